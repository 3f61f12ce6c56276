-- jwtk.lua: JWT verification in HAProxy 2.6 (Lua 5.3) with libjwtk.so.0, through the C module jwtk.so.
--
--   global
--       setenv JWTK_HAPROXY_CONFIG /etc/haproxy/jwtk.json      -- before lua-load: read while it runs
--       lua-prepend-path /usr/local/lib/haproxy/lua/?.so cpath
--       lua-load-per-thread /usr/local/share/haproxy/jwtk.lua
--   frontend api
--       http-request lua.jwtk-verify default
--       http-request return status 401 hdr WWW-Authenticate "%[var(txn.jwtk.challenge)]" if ...
--
-- HAProxy 2.6's lua-load takes no arguments (configuration.txt: "lua-load <file>"), so the configuration file is named by the
-- environment variable JWTK_HAPROXY_CONFIG, which HAProxy's own `setenv` sets while it parses `global`.
--
-- Process model. This file runs while HAProxy parses its configuration, in the process that then
-- forks (the master with -W/-Ws, the parent with -D): here it only builds keystores and verifiers
-- (libjwtk: no thread, no I/O, fork-safe) and reads the key files. The pull-mode refresher thread is
-- started by core.register_task, which HAProxy runs once its scheduler starts, in the worker, after
-- the fork. With lua-load-per-thread each thread's state builds its own verifiers (and jwtk_ctx) over the
-- process's one keystore (jwtk.shared_keystore: one key set, one refresher, one fetch per key URL); with
-- lua-load one state serves every thread under HAProxy's Lua lock.
--
-- Every outcome of the action is a transaction variable; a Lua error inside it (it should have none)
-- is caught and becomes status 500, so no request is let through by a failure and HAProxy never sees
-- the error.
local so = package.searchpath("jwtk", package.cpath)
if not so then error("jwtk.lua: jwtk.so not on package.cpath (lua-prepend-path DIR/?.so cpath)") end
-- package.loadlib, not require: require("jwtk") could find this very file through package.path.
local jwtk = assert(package.loadlib(so, "luaopen_jwtk"))()

-- A small JSON reader for the configuration file (Lua 5.3 has none). Each object and array keeps its
-- own source text at t[RAW], so a verifier's config reaches jwtk_verifier_new byte for byte, and libjwtk
-- alone interprets it.
local RAW = {}
local function decode(s)
    local pos = 1
    local function fail(what) error(string.format("JSON: %s at byte %d", what, pos), 0) end
    local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
    local value
    local function str()
        local out, i = {}, pos + 1
        while true do
            local c = s:sub(i, i)
            if c == "" then fail("unterminated string") end
            if c == '"' then pos = i + 1; return table.concat(out) end
            if c == "\\" then
                local e = s:sub(i + 1, i + 1)
                local map = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
                if map[e] then out[#out + 1] = map[e]; i = i + 2
                elseif e == "u" then
                    local h = tonumber(s:sub(i + 2, i + 5), 16) or fail("bad \\u escape")
                    i = i + 6
                    if h >= 0xD800 and h < 0xDC00 and s:sub(i, i + 1) == "\\u" then   -- a surrogate pair
                        local l = tonumber(s:sub(i + 2, i + 5), 16)
                        if l and l >= 0xDC00 and l < 0xE000 then
                            h = 0x10000 + (h - 0xD800) * 0x400 + (l - 0xDC00); i = i + 6
                        end
                    end
                    out[#out + 1] = utf8.char(h)
                else fail("bad escape") end
            else out[#out + 1] = c; i = i + 1 end
        end
    end
    function value()
        ws()
        local c, start = s:sub(pos, pos), pos
        if c == "{" or c == "[" then
            local t, close = {}, c == "{" and "}" or "]"
            pos = pos + 1; ws()
            if s:sub(pos, pos) == close then pos = pos + 1
            else
                while true do
                    if c == "{" then
                        ws(); if s:sub(pos, pos) ~= '"' then fail("expected a member name") end
                        local k = str(); ws()
                        if s:sub(pos, pos) ~= ":" then fail("expected ':'") end
                        pos = pos + 1
                        t[k] = value()
                    else t[#t + 1] = value() end
                    ws()
                    local d = s:sub(pos, pos); pos = pos + 1
                    if d == close then break elseif d ~= "," then fail("expected ',' or '" .. close .. "'") end
                end
            end
            t[RAW] = s:sub(start, pos - 1)
            return t
        elseif c == '"' then return str()
        elseif s:find("^true", pos) then pos = pos + 4; return true
        elseif s:find("^false", pos) then pos = pos + 5; return false
        elseif s:find("^null", pos) then pos = pos + 4; return nil
        else
            local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos) or fail("unexpected character")
            pos = pos + #num
            return tonumber(num)
        end
    end
    local v = value(); ws()
    if pos <= #s then fail("trailing characters") end
    return v
end

local function read(path)
    local f, err = io.open(path, "rb")
    if not f then error("jwtk.lua: " .. err, 0) end
    local body = f:read("a"); f:close()
    return body
end

-- The configuration ------------------------------------------------------------------------------------
-- {
--   "realm": "api",                                  WWW-Authenticate realm (default "api")
--   "header_prefix": "X-Jwt-",                       claim headers: X-Jwt-Sub, X-Jwt-Iss, X-Jwt-<Name>
--   "keys": [{"file": "/etc/haproxy/jwks.json", "issuer": "https://issuer.example", "refresh": 60}],   push mode
--   "claims": {"email": "/email", "roles": "/roles"} txn.jwtk.<name> and X-Jwt-<Name>, by JSON Pointer
--   "verifiers": {"default": { jwtk_verifier_new's JSON: issuers, audiences, provider, jwks_url, claims, cache }}
-- }
local path = os.getenv("JWTK_HAPROXY_CONFIG")
if not path or path == "" then error("jwtk.lua: set JWTK_HAPROXY_CONFIG (global: setenv) to the verifiers file") end
local ok, conf = pcall(decode, read(path))
if not ok or type(conf) ~= "table" then error("jwtk.lua: " .. path .. ": " .. tostring(conf), 0) end

local realm = conf.realm or "api"
local prefix = conf.header_prefix or "X-Jwt-"
if type(realm) ~= "string" then error("jwtk.lua: realm must be a string", 0) end
if type(prefix) ~= "string" or not prefix:match("^[%w%-_]+$") or #prefix > 63 then
    error("jwtk.lua: header_prefix must be 1 to 63 letters, digits, '-' or '_' (a header name's start)", 0)
end
local strip = prefix:lower():gsub("_", "-")   -- compared with client header names normalised the same way
local names, pointers, headers, vars = {}, {}, {}, {}
for name, ptr in pairs(conf.claims or {}) do
    if type(name) == "string" then
        if not name:match("^[%w_]+$") or name == "valid" or name == "status" or name == "error" or
            name == "challenge" or name == "sub" or name == "iss" then
            error("jwtk.lua: claim name '" .. name .. "' must be letters, digits or _ and not a built-in variable", 0)
        end
        if type(ptr) ~= "string" or ptr:sub(1, 1) ~= "/" then
            error("jwtk.lua: claims." .. name .. " must be a JSON Pointer (\"/email\")", 0)
        end
        names[#names + 1] = name
    end
end
table.sort(names)   -- a stable order: verify returns the values in it
for i, name in ipairs(names) do
    pointers[i] = conf.claims[name]
    vars[i] = "txn.jwtk." .. name
    headers[i] = prefix .. name:gsub("_", "-"):gsub("^%l", string.upper)
end

local ks = jwtk.shared_keystore()
local watched = {}   -- key files with "refresh": re-read by the task below
for i, k in ipairs(conf.keys or {}) do
    if type(k.file) ~= "string" then error("jwtk.lua: keys[" .. i .. "].file must be a path", 0) end
    if k.refresh ~= nil and (math.type(k.refresh) ~= "integer" or k.refresh < 1) then
        error("jwtk.lua: keys[" .. i .. "].refresh must be whole seconds, at least 1", 0)
    end
    local body = read(k.file)
    local loaded, status, msg = ks:load(body, k.issuer)
    if not loaded then error("jwtk.lua: " .. k.file .. ": " .. status .. ": " .. msg, 0) end
    if msg ~= "" then core.Warning("jwtk: " .. k.file .. ": keys refused: " .. msg) end
    if k.refresh then watched[#watched + 1] = { file = k.file, issuer = k.issuer, every = k.refresh, body = body, due = 0 } end
end

local verifiers, pull = {}, false
for name, vc in pairs(conf.verifiers or {}) do
    if name == RAW then goto continue end
    if type(vc) ~= "table" or not vc[RAW] or vc[RAW]:sub(1, 1) ~= "{" then
        error("jwtk.lua: verifiers." .. tostring(name) .. " must be an object", 0)
    end
    local v, status, msg = jwtk.verifier(vc[RAW], ks, realm, pointers, strip)
    if not v then error("jwtk.lua: verifier '" .. name .. "': " .. status .. ": " .. msg, 0) end
    verifiers[name] = v
    pull = pull or vc.jwks_url ~= nil or vc.discovery == true or vc.pull == true
    ::continue::
end
if next(verifiers) == nil then error("jwtk.lua: no verifiers in " .. path, 0) end

-- After the fork, in the worker: the refresher thread of pull mode (never in the master), started by
-- one state only (core.thread is 0 with lua-load, 1..nbthread with lua-load-per-thread): the keystore is
-- the process's, and one caller of jwtk_keystore_start per process is all it needs (concurrent first
-- calls from several threads were seen to deadlock inside libjwtk; docs/HAPROXY.md).
if pull and core.thread <= 1 then
    core.register_task(function()
        local st = ks:start()
        if st ~= "ok" then core.Alert("jwtk: jwtk_keystore_start: " .. st) end
    end)
end

-- Push mode without a reload: key files with "refresh": N are read again every N seconds, in the worker
-- (one state: the keystore is the process's), and handed to libjwtk when they changed. A file that cannot
-- be read or that libjwtk refuses keeps the keys held (libjwtk's rule), with a warning. The read is of a
-- small local file; core.sleep yields to HAProxy's scheduler between rounds.
if #watched > 0 and core.thread <= 1 then
    core.register_task(function()
        local now = 0
        while true do
            for _, w in ipairs(watched) do
                if now >= w.due then
                    w.due = now + w.every
                    local f, err = io.open(w.file, "rb")
                    local body = f and f:read("a")
                    if f then f:close() end
                    if not body then
                        core.Warning("jwtk: " .. w.file .. ": " .. tostring(err) .. "; keeping the keys")
                    elseif body ~= w.body then
                        local loaded, status, msg = ks:load(body, w.issuer)
                        if loaded then w.body = body
                        else core.Warning("jwtk: " .. w.file .. ": " .. status .. ": " .. msg .. "; keeping the keys") end
                    end
                end
            end
            core.sleep(1)
            now = now + 1
        end
    end)
end

-- The action ----------------------------------------------------------------------------------------
--
-- Per request the work is HAProxy's (the TXN object, each set_var and header) plus one fetch and one C call:
-- req.hdrs_bin hands the whole header block to v:verify_headers, which finds the Authorization value and
-- any client header looking like a claim header, and verifies, in C. Walking req_get_headers' table here
-- (a Lua table per field, three strings per name) cost more than the rest of the action together; it is
-- left for the rare requests that need it (a look-alike to remove, a block the fetch could not give).

local sub_header, iss_header = prefix .. "Sub", prefix .. "Iss"

-- Removes client-sent claim headers: any header whose name, lower-cased with '_' read as '-', starts with
-- the prefix (X_Jwt_Sub, x-JWT-role), as a back end may read either. Returns req_get_headers' table.
local function strip_lookalikes(txn)
    local http = txn.http
    local hdrs = http:req_get_headers()
    for h in pairs(hdrs) do
        if h:lower():gsub("_", "-"):sub(1, #strip) == strip then http:req_del_header(h) end
    end
    return hdrs
end

-- A verification's results, fixed in number (vals: the configured claims' values, slot i for names[i], or nil):
-- no varargs. Every client copy of a claim header is gone by now, so adding a header replaces it.
local function apply(txn, http, status, challenge, sub, iss, vals)
    local set_var = txn.set_var
    set_var(txn, "txn.jwtk.valid", status == "ok")
    set_var(txn, "txn.jwtk.status", http)
    set_var(txn, "txn.jwtk.error", status)
    if challenge then set_var(txn, "txn.jwtk.challenge", challenge) end
    if status ~= "ok" then return end
    local h = txn.http
    if sub then set_var(txn, "txn.jwtk.sub", sub); h:req_add_header(sub_header, sub) end
    if iss then set_var(txn, "txn.jwtk.iss", iss); h:req_add_header(iss_header, iss) end
    if not vals then return end
    for i = 1, #names do
        local val = vals[i]
        if val then set_var(txn, vars[i], val); h:req_add_header(headers[i], val) end
    end
end

local function verify(txn, name)
    local v = verifiers[name]
    if not v then
        strip_lookalikes(txn)
        core.Alert("jwtk: no verifier named '" .. tostring(name) .. "'")
        txn:set_var("txn.jwtk.valid", false); txn:set_var("txn.jwtk.status", 500)
        txn:set_var("txn.jwtk.error", "no_verifier")
        return
    end
    local block = txn.f:req_hdrs_bin()
    if block then
        local lookalike, http, status, challenge, sub, iss, vals = v:verify_headers(block)
        if lookalike ~= nil then   -- nil: not a whole header block
            if lookalike then strip_lookalikes(txn) end
            return apply(txn, http, status, challenge, sub, iss, vals)
        end
    end
    -- The fetch failed (a header block larger than its buffer): the same steps through Lua tables.
    local hdrs = strip_lookalikes(txn)
    -- Several Authorization fields read as one list (RFC 9110 5.3): a second credential is no bearer token.
    local a = hdrs["authorization"]
    local auth = a and a[0]
    if a and a[1] then auth = table.concat(a, ", ", 0, #a) end
    return apply(txn, v:verify(auth))
end

-- pcall: an error anywhere above (there should be none) becomes status 500 for this request, and HAProxy
-- never sees it. The variables are set again, since the error may have come after the verdict.
core.register_action("jwtk-verify", { "http-req" }, function(txn, name)
    local ok, err = pcall(verify, txn, name)
    if not ok then
        core.Alert("jwtk: " .. tostring(err))
        pcall(txn.set_var, txn, "txn.jwtk.valid", false)
        pcall(txn.set_var, txn, "txn.jwtk.status", 500)
        pcall(txn.set_var, txn, "txn.jwtk.error", "internal")
    end
end, 1)

-- A converter for ACLs and log formats that need only the verdict (no variables, no headers):
--   http-request deny if !{ req.fhdr(authorization),lua.jwtk-status(default) -m str ok }
-- It returns the status name ("ok", "no_token", "expired", ...); req.fhdr, not req.hdr, which would split
-- the value at commas. Without an Authorization field there is no sample and HAProxy calls no converter:
-- the expression is empty and the ACL above denies.
core.register_converters("jwtk-status", function(value, name)
    local v = verifiers[name]
    if not v then return "no_verifier" end
    local ok, _, status = pcall(v.verify, v, value)
    return ok and status or "internal"
end)
