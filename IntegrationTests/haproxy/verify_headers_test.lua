-- v:verify_headers, the C module's reader of HAProxy's req.hdrs_bin, under Debian's lua5.3 (which provides
-- the lua_* symbols jwtk.so leaves to its host), on blocks built here by an encoder written from HAProxy's
-- doc/SPOE.txt ("Variable-length integer"), independent of the module's decoder:
--
--   lua5.3 verify_headers_test.lua JWTK_SO JWKS_FILE ISSUER TOKEN
--
-- TOKEN verifies under JWKS_FILE for ISSUER and audience "api", and holds "email" and the array "roles". Checked: a well-formed block gives what
-- v:verify gives on the same Authorization value (none, one, several fields joined, any name case, long
-- names and values with two- and three-byte lengths); look-alike claim header names are reported in every
-- spelling and only those; every malformed block (cut anywhere, a length past the end, no terminator,
-- bytes after it, an overlong length) is nil, never a read past the block. Prints "ok NAME" or
-- "FAIL NAME: detail" per check, for haproxy_test.py to count.
local so, jwks_file, issuer, token = arg[1], arg[2], arg[3], arg[4]
local jwtk = assert(package.loadlib(so, "luaopen_jwtk"))()

local function check(ok, name, detail)
    print((ok and "ok " or "FAIL ") .. name .. (ok and "" or (": " .. tostring(detail))))
end

-- SPOE.txt: X < 240 in one byte; otherwise [1111 XXXX] then 7 bits per byte, a set top bit meaning more.
local function varint(x)
    if x < 240 then return string.char(x) end
    local out = { string.char((x % 256) | 240) }
    x = (x - 240) >> 4
    while x >= 128 do
        out[#out + 1] = string.char((x % 256) | 128)
        x = (x - 128) >> 7
    end
    out[#out + 1] = string.char(x)
    return table.concat(out)
end
local function field(name, value) return varint(#name) .. name .. varint(#value) .. value end
local function block(fields)
    local out = {}
    for _, f in ipairs(fields) do out[#out + 1] = field(f[1], f[2]) end
    return table.concat(out) .. "\0\0"   -- the empty name and the empty value that end the block
end

local f = assert(io.open(jwks_file, "rb"))
local jwks = f:read("a")
f:close()
local ks = jwtk.keystore()
assert(ks:load(jwks, issuer))
local config = string.format('{"issuers": ["%s"], "audiences": ["api"]}', issuer)
local v = assert(jwtk.verifier(config, ks, "api", {}, "x-jwt-"))

local function same(name, blk, auth, want_lookalike)
    local got = table.pack(v:verify_headers(blk))
    local want = table.pack(v:verify(auth))
    local ok = got.n == want.n + 1 and got[1] == want_lookalike
    for i = 1, want.n do ok = ok and got[i + 1] == want[i] end
    check(ok, name, string.format("lookalike %s, %s %s (v:verify: %s %s)", tostring(got[1]), tostring(got[2]),
        tostring(got[3]), tostring(want[1]), tostring(want[2])))
end

local bearer = "Bearer " .. token
same("one Authorization field: v:verify's results, status ok",
    block({ { "host", "h" }, { "authorization", bearer }, { "accept", "*/*" } }), bearer, false)
check(select(3, v:verify_headers(block({ { "authorization", bearer } }))) == "ok", "the token verifies")
same("no Authorization field: no_token", block({ { "host", "h" } }), nil, false)
same("no field at all: no_token", "\0\0", nil, false)
same("Authorization in upper case is the field", block({ { "AUTHORIZATION", bearer } }), bearer, false)
same("an empty Authorization value", block({ { "authorization", "" } }), "", false)
same("two Authorization fields read as one list (no bearer token)",
    block({ { "authorization", bearer }, { "host", "h" }, { "authorization", "Bearer x" } }),
    bearer .. ", Bearer x", false)
same("a 300-byte name (two-byte length) before the field",
    block({ { string.rep("n", 300), "v" }, { "authorization", bearer } }), bearer, false)
local long = "Bearer " .. string.rep("a", 3000)   -- a three-byte length (2288 and above)
same("a 3,007-byte value (three-byte length)", block({ { "authorization", long } }), long, false)
same("authorization-x and x-authorization are other fields",
    block({ { "authorization-x", "Bearer y" }, { "x-authorization", "Bearer z" }, { "authorization", bearer } }),
    bearer, false)

for _, name in ipairs({ "x-jwt-sub", "X-Jwt-Sub", "x_jwt_sub", "X_JWT_role", "x-jwt_email", "x-jwt-" }) do
    same("look-alike claim header " .. name, block({ { name, "spoofed" }, { "authorization", bearer } }), bearer, true)
end
for _, name in ipairs({ "x-jwtsub", "x-jwt", "xx-jwt-sub", "x-jw", "jwt-sub", "x.jwt.sub" }) do
    same("not a claim header: " .. name, block({ { name, "v" }, { "authorization", bearer } }), bearer, false)
end
same("a look-alike without a token is still reported", block({ { "X_Jwt_Sub", "spoofed" } }), nil, true)

local good = block({ { "host", "h" }, { "authorization", bearer } })
local cut_ok = true
for n = 0, #good - 1 do   -- every strict prefix of a block is malformed (the terminator is its last bytes)
    if v:verify_headers(good:sub(1, n)) ~= nil then cut_ok = false; print("  cut at " .. n) end
end
check(cut_ok, "a block cut at any of its " .. #good .. " bytes is nil")
for name, blk in pairs({
    ["a length past the end"] = varint(5) .. "host" .. "\0\0",
    ["a value length past the end"] = varint(4) .. "host" .. varint(200) .. "abc\0\0",
    ["bytes after the terminator"] = good .. "x",
    ["a second block after the terminator"] = good .. good,
    ["an overlong (six-byte) length"] = "\xf0\xff\xff\xff\xff\x01" .. "\0\0",
    ["a length above 4 GB"] = "\xf0\xff\xff\xff\xff\x7f" .. "\0\0",
    ["a lone 0xF0"] = "\xf0",
    ["a length whose continuation bytes never end"] = "\xf0" .. string.rep("\xff", 12),
    ["an empty string"] = "",
    ["an empty name with a value"] = varint(0) .. varint(1) .. "v",
}) do
    local r = table.pack(v:verify_headers(blk))
    check(r.n == 1 and r[1] == nil, "malformed block: " .. name .. " is nil", r[1])
end

-- The claims' values come in a table of the request's own (HAProxy may run another request's action on the same
-- Lua state between two instructions of this one): nil without configured claims and for a token that fails.
local vc = assert(jwtk.verifier(config, ks, "api", { "/email", "/roles", "/missing" }, "x-jwt-"))
local r = table.pack(vc:verify_headers(good))
local vals = r[7]
check(r.n == 7 and r[3] == "ok" and type(vals) == "table" and vals[1] ~= nil and vals[1]:find("@", 1, true) and
    vals[2] ~= nil and vals[2]:find(",", 1, true) and vals[3] == nil,
    "claim values (a string, an array joined, a missing claim) in the seventh result",
    table.concat({ tostring(r[3]), tostring(vals and vals[1]), tostring(vals and vals[2]) }, " "))
local r2 = table.pack(vc:verify_headers(good))
check(r2[7] ~= vals and vals[1] ~= nil, "each verification its own table; an earlier one's values stay", tostring(r2[7]))
r = table.pack(vc:verify_headers(block({ { "authorization", "Bearer x.y.z" } })))
check(r.n == 7 and r[7] == nil and vals[1] ~= nil, "a failed verification has no claim values", tostring(r[7]))
check(select(6, v:verify(bearer)) == nil, "no claims configured: no claim values")
check(type(select(6, vc:verify(bearer))) == "table", "v:verify returns the claims' table too")

local plain = assert(jwtk.verifier(config, ks, "api", {}))
check(not pcall(plain.verify_headers, plain, good), "a verifier without the header prefix refuses verify_headers")
check(not pcall(jwtk.verifier, config, ks, "api", {}, "X-Jwt-"), "a prefix not normalised is refused")
