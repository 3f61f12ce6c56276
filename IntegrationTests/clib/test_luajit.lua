-- LuaJIT FFI smoke test of libjwtk: the header, stripped of preprocessor lines, is accepted by
-- ffi.cdef as is (no struct is passed by value, so calls stay JIT-compilable); a token verifies in a
-- hot loop; the library survives the clib object being garbage-collected (dlclose, -z nodelete).
-- Usage: luajit test_luajit.lua LIBRARY HEADER JWKS_FILE TOKEN_FILE   (prints "luajit-tests: N passed, M failed")
local ffi = require("ffi")
local lib_path, header_path, jwks_path, token_path = arg[1], arg[2], arg[3], arg[4]
local passed, failed = 0, 0
local function check(ok, what)
  if ok then passed = passed + 1 else failed = failed + 1; io.stderr:write("FAIL ", what, "\n") end
end
local function read(path) local f = assert(io.open(path, "rb")); local s = f:read("*a"); f:close(); return s end

-- The cdef: comments and preprocessor lines dropped, numeric #defines substituted, the C++ guard removed.
local text = read(header_path)
local defines = {}
for name, value in text:gmatch("#define%s+(JWTK_[%w_]+)%s+%(?(%-?%d+)%)?") do defines[name] = value end
text = text:gsub("/%*.-%*/", ""):gsub("\n#[^\n]*", "\n"):gsub('extern "C" {', ""):gsub("\n}%s*\n", "\n")
text = text:gsub("JWTK_[%w_]+", function(n) return defines[n] or n end)
ffi.cdef(text)
check(true, "cdef")

local function load() return ffi.load(lib_path) end
local jwtk = load()
check(jwtk.jwtk_version_number() == tonumber(defines.JWTK_VERSION_NUMBER), "version number")

local ks, v, ctx = ffi.new("jwtk_keystore *[1]"), ffi.new("jwtk_verifier *[1]"), ffi.new("jwtk_ctx *[1]")
check(jwtk.jwtk_keystore_new(ks) == 0 and jwtk.jwtk_ctx_new(ctx) == 0, "new")
local jwks = read(jwks_path)
check(jwtk.jwtk_keystore_load_jwks(ks[0], nil, 0, jwks, #jwks) == 0, "load")
local config = '{"issuers":["https://issuer.example"],"audiences":["api"]}'
check(jwtk.jwtk_verifier_new(config, #config, ks[0], v) == 0, "verifier")
local token = read(token_path)
local claims = ffi.new("jwtk_claims")
local ok = 0
for _ = 1, 20000 do   -- hot enough for the JIT to compile the loop
  claims.struct_size = ffi.sizeof(claims)
  if jwtk.jwtk_verify(v[0], ctx[0], token, #token, 1700000000, claims) == 0 then ok = ok + 1 end
end
check(ok == 20000, "20000 verifications: " .. ok)
check(ffi.string(claims.sub.ptr, claims.sub.len) == "user-1", "sub")
check(ffi.string(claims.alg.ptr, claims.alg.len) == "HS256", "alg")
local value, kind = ffi.new("jwtk_str[1]"), ffi.new("int[1]")
check(jwtk.jwtk_claim(ctx[0], "sub", 3, value, kind) == 0 and kind[0] == 1, "jwtk_claim")
local bad = token:sub(1, -3)
local st = jwtk.jwtk_verify(v[0], ctx[0], bad, #bad, 1700000000, claims)
check(ffi.string(jwtk.jwtk_status_name(st)) ~= "ok" and jwtk.jwtk_status_http(st) == 401, "bad token: 401")
check(ffi.string(jwtk.jwtk_status_bearer_error(st)) == "invalid_token", "bearer error")

-- LuaJIT dlcloses a library when its clib object is collected; the handles must keep working.
jwtk = nil
collectgarbage(); collectgarbage()
jwtk = load()
check(jwtk.jwtk_verify(v[0], ctx[0], token, #token, 1700000000, claims) == 0, "verify after the clib was collected")
jwtk.jwtk_verifier_free(v[0]); jwtk.jwtk_keystore_free(ks[0]); jwtk.jwtk_ctx_free(ctx[0])
print(string.format("luajit-tests: %d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
