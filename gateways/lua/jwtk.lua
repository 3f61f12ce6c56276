-- jwtk.lua: JWT verification in nginx (lua-nginx-module + LuaJIT FFI) with libjwtk.so.0.
--
--   init_by_lua_block        { require("jwtk").load("/usr/local/lib/libjwtk.so.0") }   -- library only
--   init_worker_by_lua_block { require("jwtk").init_worker{ keys = {...}, verifiers = {...} } }
--   access_by_lua_block      { require("jwtk").access{ verifier = "default", realm = "api" } }
--   content_by_lua_block     { require("jwtk").stats() }                                -- /jwtk/stats
--
-- The master process only loads the library (no keystore, no thread, no timer before fork); each worker
-- builds its own keystore, verifiers and ctx in init_worker, and keeps its keys fresh itself:
--   push mode  (keys = {{file = PATH}} or {{url = "http://127.0.0.1:8081/jwks"}}): an ngx.timer reads
--              the file or fetches the URL on nginx's event loop and hands the bytes to
--              jwtk_keystore_load_jwks; a failed read or fetch keeps the old keys (stale-on-error); with a
--              url, a token with an unknown kid triggers at most one fetch per `cooldown` seconds;
--   pull mode  ("jwks_url" in a verifier's config): jwtk's own refresher thread (libcurl), started per
--              worker with jwtk_keystore_start (after fork); unknown kids, stale keys and backoff are jwtk's.
-- Requests: a valid token reaches the upstream with X-Jwt-Sub and X-Jwt-Iss (and X-Jwt-Payload, the
-- base64url payload segment, with forward_payload = true); every client-sent X-Jwt-* header is removed;
-- Authorization is removed unless forward_authorization = true. A missing token is 401 with
-- `WWW-Authenticate: Bearer realm="..."`; a bad one is jwtk_status_http's status (401; 403 for an unmet
-- "claims" requirement) with jwtk_status_bearer_error's `, error="..."` added
-- ("invalid_token"; "insufficient_scope" for a claim requirement); an issuer whose keys were never loaded is
-- 503 without a challenge. Nothing of the token is echoed: the detail goes to the error log at info level.
local ffi = require("ffi")
local C_NULL = nil

local _M = { _VERSION = "0.1.0" }

-- Declarations from jwtk.h; IntegrationTests/nginx checks them against the header.
_M.cdef = [[
const char *jwtk_version(void);
int jwtk_version_number(void);
const char *jwtk_status_name(int status);
const char *jwtk_errstr(int status);
int jwtk_status_http(int status);
const char *jwtk_status_bearer_error(int status);
typedef struct jwtk_keystore jwtk_keystore;
typedef struct jwtk_verifier jwtk_verifier;
typedef struct jwtk_ctx jwtk_ctx;
typedef struct jwtk_str { const char *ptr; size_t len; } jwtk_str;
int jwtk_ctx_new(jwtk_ctx **out);
void jwtk_ctx_free(jwtk_ctx *ctx);
const char *jwtk_ctx_errmsg(const jwtk_ctx *ctx);
int jwtk_keystore_new(jwtk_keystore **out);
void jwtk_keystore_free(jwtk_keystore *ks);
int jwtk_keystore_load_jwks(jwtk_keystore *ks, const char *issuer, size_t issuer_len, const char *jwks, size_t jwks_len);
int jwtk_keystore_load_jwks_ex(jwtk_keystore *ks, const char *issuer, size_t issuer_len, const char *jwks, size_t jwks_len, jwtk_ctx *ctx);
int jwtk_keystore_start(jwtk_keystore *ks);
int jwtk_verifier_new(const char *config_json, size_t config_len, jwtk_keystore *ks, jwtk_verifier **out);
int jwtk_verifier_new_ex(const char *config_json, size_t config_len, jwtk_keystore *ks, jwtk_ctx *ctx, jwtk_verifier **out);
void jwtk_verifier_free(jwtk_verifier *v);
typedef struct jwtk_claims {
    uint32_t struct_size;
    uint32_t flags;
    jwtk_str alg;
    jwtk_str kid;
    jwtk_str typ;
    jwtk_str iss;
    jwtk_str sub;
    jwtk_str aud;
    jwtk_str jti;
    jwtk_str payload;
    jwtk_str claims_json;
    int64_t exp;
    int64_t nbf;
    int64_t iat;
} jwtk_claims;
int jwtk_verify(const jwtk_verifier *v, jwtk_ctx *ctx, const char *token, size_t len, int64_t now, jwtk_claims *out);
int jwtk_verify_batch(const jwtk_verifier *v, const char *const *tokens, const size_t *lens, size_t n, int64_t now, int *statuses);
int jwtk_claim(jwtk_ctx *ctx, const char *name, size_t name_len, jwtk_str *value, int *json_type);
int jwtk_claim_at(jwtk_ctx *ctx, const char *pointer, size_t pointer_len, unsigned int flags, jwtk_str *value, int *json_type);
int jwtk_bearer_token(const char *value, size_t len, jwtk_str *token);
int jwtk_challenge(int status, const char *realm, size_t realm_len, const char *scope, size_t scope_len, char *buf, size_t cap, size_t *out_len);
typedef struct jwtk_stats {
    uint32_t struct_size;
    uint32_t reserved;
    uint64_t allowed;
    uint64_t denied;
    uint64_t denied_by_status[32];
    uint64_t cache_hits;
    uint64_t cache_misses;
    uint64_t jwks_loads;
    uint64_t jwks_load_failures;
    uint64_t jwks_fetches;
    uint64_t jwks_fetch_failures;
    uint64_t unknown_kid_refreshes;
    uint64_t unknown_kid_suppressed;
    uint64_t stale_served;
    uint64_t keys_loaded;
    uint64_t keys_rejected;
    int64_t last_success_unix;
    int64_t last_attempt_unix;
    uint64_t jwks_not_modified;
    uint64_t remote_sources;
    uint64_t remote_sources_without_keys;
} jwtk_stats;
int jwtk_stats_get(const jwtk_verifier *v, jwtk_stats *out);
]]
ffi.cdef(_M.cdef)

local VERSION_NUMBER = 1000
local MAX_RESPONSE = 1024 * 1024   -- bytes of a key server's response (jwtk's own fetcher uses the same cap)
local OK, UNKNOWN_KID, E_LENGTH, E_NO_TOKEN, E_UNAVAILABLE = 0, 5, -3, -7, -8

local lib            -- the clib object: a module upvalue, so it lives as long as this Lua VM
local W              -- this worker's state (init_worker)
local ngx = ngx
local str_sub, str_lower, str_find, str_gsub, str_format, str_byte, concat = string.sub, string.lower,
    string.find, string.gsub, string.format, string.byte, table.concat
local ffi_string = ffi.string

-- Loads the library (idempotent). Safe in init_by_lua: it creates nothing and starts nothing.
function _M.load(path)
    if lib then return lib end
    local l = ffi.load(path or "jwtk")
    local n = l.jwtk_version_number()
    if n ~= VERSION_NUMBER then
        error(str_format("jwtk.lua expects libjwtk %d, the library is %d", VERSION_NUMBER, n))
    end
    lib = l
    return lib
end

local function errmsg()
    return ffi_string(lib.jwtk_ctx_errmsg(W.ctx))
end

local function status_name(st)
    return ffi_string(lib.jwtk_status_name(st))
end

-- Key sources (push mode) -------------------------------------------------------------------------------

-- Hands a key set to the keystore; on failure the old keys stay (the library never removes keys then).
local function publish(src, body)
    local st = lib.jwtk_keystore_load_jwks_ex(W.ks, src.issuer, src.issuer and #src.issuer or 0, body, #body, W.ctx)
    if st ~= OK then
        src.load_failures = src.load_failures + 1
        ngx.log(ngx.ERR, "jwtk: key set from ", src.name, " refused (", status_name(st), "): ", errmsg(),
            "; keeping the previous keys")
        return false
    end
    src.body = body
    local refused = errmsg()
    if refused ~= "" then ngx.log(ngx.WARN, "jwtk: key set from ", src.name, ": keys refused: ", refused) end
    return true
end

local function read_file(src)
    local f, err = io.open(src.file, "rb")
    if not f then
        if src.last_error ~= err then ngx.log(ngx.WARN, "jwtk: cannot read ", src.file, ": ", err) end
        src.last_error = err
        return
    end
    local body = f:read("*a")
    f:close()
    src.last_error = nil
    if body ~= src.body and body ~= "" then publish(src, body) end
end

-- A small HTTP/1.0 GET over a cosocket (lua-resty-http is not in Debian): returns status, body.
local function http_get(src, reason)
    local sock = ngx.socket.tcp()
    sock:settimeout(src.timeout_ms)
    local ok, err = sock:connect(src.host, src.port)
    if not ok then return nil, "connect: " .. err end
    if src.https then
        ok, err = sock:sslhandshake(nil, src.host, true)
        if not ok then sock:close(); return nil, "tls: " .. err end
    end
    ok, err = sock:send("GET " .. src.path .. " HTTP/1.0\r\nHost: " .. src.host ..
        "\r\nAccept: application/json\r\nUser-Agent: jwtk.lua (" .. reason ..
        ")\r\nConnection: close\r\n\r\n")
    if not ok then sock:close(); return nil, "send: " .. err end
    -- Read to the end (HTTP/1.0, Connection: close), at most MAX_RESPONSE bytes: a key server must not be
    -- able to make the worker buffer without bound.
    local parts, total = {}, 0
    while true do
        local chunk, rerr, partial = sock:receive(65536)
        chunk = chunk or partial
        if chunk and #chunk > 0 then
            total = total + #chunk
            if total > MAX_RESPONSE then sock:close(); return nil, "response above " .. MAX_RESPONSE .. " bytes" end
            parts[#parts + 1] = chunk
        end
        if rerr == "closed" then break end
        if rerr then sock:close(); return nil, "receive: " .. rerr end
    end
    sock:close()
    local data = concat(parts)
    local status = tonumber(data:match("^HTTP/1%.%d (%d%d%d)"))
    local head_end = str_find(data, "\r\n\r\n", 1, true)
    if not status or not head_end then return nil, "not an HTTP response" end
    return status, str_sub(data, head_end + 4)
end

-- reason ("refresh", "unknown kid") goes into the User-Agent, for the JWKS server's log.
local function fetch_url(src, reason)
    if src.in_flight then return false end
    src.in_flight = true
    src.fetches = src.fetches + 1
    local status, body = http_get(src, reason)
    src.in_flight = false
    if status ~= 200 then
        src.fetch_failures = src.fetch_failures + 1
        ngx.log(ngx.WARN, "jwtk: fetching ", src.url, " failed (", status or body, "); keeping the previous keys")
        return false
    end
    if body == src.body then return true end
    return publish(src, body)
end

local function refresh(src)
    if src.file then read_file(src) else fetch_url(src, "refresh") end
end

local function parse_url(src)
    local scheme, host, port, path = src.url:match("^(https?)://([%w%.%-]+):?(%d*)(/?.*)$")
    if not scheme then error("jwtk: unsupported key url " .. src.url) end
    src.https = scheme == "https"
    src.host, src.port = host, tonumber(port) or (src.https and 443 or 80)
    src.path = path ~= "" and path or "/"
end

-- Per-worker setup -------------------------------------------------------------------------------------

-- A push source's duration: a number in [lo, hi], else a configuration error. No value may make the
-- worker fetch without pause (cooldown 0 during an unknown-kid flood) or hand ngx.timer.every a bad delay.
local function seconds(src, field, default, lo, hi)
    local v = src[field]
    if v == nil then return default end
    if type(v) ~= "number" or v ~= v or v < lo or v > hi then
        error(str_format("jwtk: key source %s: %s must be a number of seconds in [%g, %g]",
            tostring(src.file or src.url), field, lo, hi))
    end
    return v
end

-- opts.keys:      list of push sources {file = PATH | url = URL, issuer = ISS (nil: any issuer),
--                 interval = seconds (default 60, 1..86400), cooldown = seconds between unknown-kid fetches
--                 (default 30, 1..86400, as the C config's), timeout = seconds (default 2, up to 60)}
-- opts.verifiers: {name = JSON config (the jwtk_verifier_new keys; "jwks_url" etc. for pull mode)}
-- opts.pull:      jwtk's own refresher (pull mode) is started in this worker when a verifier config has
--                 "jwks_url" (or opts.pull = true); opts.pull = false never starts it
-- opts.library:   path of libjwtk.so.0 if load() was not called in init_by_lua
-- opts.headers:   "get_headers" reads the request headers through ngx.req.get_headers and ngx.var (slower,
--                 portable); by default they are read in place through lua-nginx-module's FFI (see access)
function _M.init_worker(opts)
    _M.load(opts.library)
    local ks, ctx = ffi.new("jwtk_keystore *[1]"), ffi.new("jwtk_ctx *[1]")
    assert(lib.jwtk_keystore_new(ks) == OK and lib.jwtk_ctx_new(ctx) == OK, "jwtk: out of memory")
    W = {
        ks = ffi.gc(ks[0], lib.jwtk_keystore_free),
        ctx = ffi.gc(ctx[0], lib.jwtk_ctx_free),
        claims = ffi.new("jwtk_claims"),
        stats = ffi.new("jwtk_stats"),
        verifiers = {}, order = {}, sources = {}, pull = "off",
        challenges = {},     -- realm .. status -> the WWW-Authenticate value (libjwtk's, made once)
        token = ffi.new("jwtk_str"),
        challenge_len = ffi.new("size_t[1]"),
        headers = opts.headers,
    }
    for name, config in pairs(opts.verifiers or {}) do
        local v = ffi.new("jwtk_verifier *[1]")
        local st = lib.jwtk_verifier_new_ex(config, #config, W.ks, W.ctx, v)
        if st == OK then
            W.verifiers[name] = ffi.gc(v[0], lib.jwtk_verifier_free)
            W.order[#W.order + 1] = name
        elseif st == E_UNAVAILABLE then
            W.pull = "unavailable"
            ngx.log(ngx.ERR, "jwtk: verifier ", name, ": pull mode (jwks_url) is not available in this libjwtk build")
        else
            ngx.log(ngx.ERR, "jwtk: verifier ", name, " (", status_name(st), "): ", errmsg())
        end
    end
    table.sort(W.order)
    for i, s in ipairs(opts.keys or {}) do
        local src = {
            file = s.file, url = s.url, issuer = s.issuer, name = s.file or s.url,
            interval = seconds(s, "interval", 60, 1, 86400), cooldown = seconds(s, "cooldown", 30, 1, 86400),
            timeout_ms = seconds(s, "timeout", 2, 0.001, 60) * 1000,
            fetches = 0, fetch_failures = 0, load_failures = 0, kid_refreshes = 0, kid_suppressed = 0,
            last_kid_fetch = 0,
        }
        if src.url then parse_url(src) end
        W.sources[i] = src
        if src.file then read_file(src) end   -- files now: the first requests find their keys
        local function tick(premature)
            if not premature then refresh(src) end
        end
        if src.url then ngx.timer.at(0, tick) end   -- no cosocket in init_worker itself
        local ok, err = ngx.timer.every(src.interval, tick)
        if not ok then ngx.log(ngx.ERR, "jwtk: timer: ", err) end
    end
    -- Pull mode: a verifier config with "jwks_url" registered a remote source; its refresher thread starts
    -- here, in the worker (after fork), never in the master. opts.pull = false leaves it unstarted.
    local first = W.verifiers[W.order[1]]
    local remote = 0
    if first then
        W.stats.struct_size = ffi.sizeof(W.stats)
        if lib.jwtk_stats_get(first, W.stats) == OK then remote = tonumber(W.stats.remote_sources) end
    end
    if (opts.pull or remote > 0) and opts.pull ~= false and W.pull ~= "unavailable" then
        local st = lib.jwtk_keystore_start(W.ks)
        if st == OK then
            W.pull = "running"
        elseif st == E_UNAVAILABLE then
            W.pull = "unavailable"
            ngx.log(ngx.ERR, "jwtk: pull mode is not available in this libjwtk build")
        else
            W.pull = "failed"
            ngx.log(ngx.ERR, "jwtk: jwtk_keystore_start: ", status_name(st))
        end
    end
end

-- The pull-mode state of this worker: "off", "running", "unavailable" or "failed".
function _M.pull_state() return W and W.pull end

-- Requests ---------------------------------------------------------------------------------------------

-- Header values from claims: control characters (CR, LF, ...) percent-encoded, so a claim cannot add headers.
-- The check is a byte loop, which LuaJIT compiles: string.find with a pattern is not compiled and cost
-- ~0.5 us a call here (the trace stops and restarts around it); pct is a module-level function because
-- creating a closure in header_safe stopped the trace too.
local function pct(c) return str_format("%%%02X", str_byte(c)) end
local function header_safe(s)
    for i = 1, #s do
        local b = str_byte(s, i)
        if b < 32 or b == 127 then return (str_gsub(s, "[%c\127%%]", pct)) end
    end
    return s
end

local function jstr(p)
    if p.ptr == C_NULL then return nil end
    return ffi_string(p.ptr, p.len)
end

-- The WWW-Authenticate value for a status (E_NO_TOKEN: no token came), as libjwtk renders it for every
-- front end (jwtk_challenge: the realm quoted, the error by the status); false: none (503). Made once per
-- realm and status.
local function challenge(realm, st)
    local key = realm .. "\0" .. st
    local value = W.challenges[key]
    if value == nil then
        local n = W.challenge_len
        value = false
        if lib.jwtk_challenge(st, realm, #realm, nil, 0, nil, 0, n) == E_LENGTH then
            local buf = ffi.new("char[?]", n[0])
            if lib.jwtk_challenge(st, realm, #realm, nil, 0, buf, n[0], n) == OK then value = ffi_string(buf, n[0]) end
        end
        W.challenges[key] = value
    end
    return value
end

-- st nil: no token (RFC 6750 3.1: a challenge without error=).
local function deny(realm, st)
    local http = st and lib.jwtk_status_http(st) or 401
    local value = challenge(realm, st or E_NO_TOKEN)
    if value then ngx.header["WWW-Authenticate"] = value end
    if st then ngx.log(ngx.INFO, "jwtk: ", http, " ", status_name(st), ": ", errmsg()) end
    return ngx.exit(http)
end

-- An unknown kid may mean the issuer rotated: fetch the URL sources now, at most once per cooldown.
local function refresh_for_unknown_kid()
    local fetched = false
    local now = ngx.now()
    for _, src in ipairs(W.sources) do
        if src.url then
            if now - src.last_kid_fetch >= src.cooldown and not src.in_flight then
                src.last_kid_fetch = now
                src.kid_refreshes = src.kid_refreshes + 1
                if fetch_url(src, "unknown kid") then fetched = true end
            else
                src.kid_suppressed = src.kid_suppressed + 1
            end
        end
    end
    return fetched
end

-- The request headers, read in place with the lua-nginx-module functions that lua-resty-core declares and
-- its ngx.req.get_headers uses: a pointer scan (~0.2 us), no Lua table and no string per header, and the
-- token goes to jwtk from nginx's own buffer (ngx.req.get_headers plus ngx.var.http_authorization and the
-- token's substring cost ~1.5 us a request more: a table, a string per header, the token copied and
-- interned twice). Without those declarations (another lua-resty-core), or with init_worker{headers =
-- "get_headers"}, the same checks through ngx.req.get_headers.
local C = ffi.C
local get_request, hdrs, hdrs_cap, truncated
do
    local ok, base = pcall(require, "resty.core.base")
    if ok and pcall(require, "resty.core.request") and pcall(function()
            return C.ngx_http_lua_ffi_req_get_headers_count and C.ngx_http_lua_ffi_req_get_headers and
                ffi.typeof("ngx_http_lua_ffi_table_elt_t")
        end) then
        get_request, hdrs_cap, truncated = base.get_request, 0, ffi.new("int[1]")
    end
end
local const_char_p = ffi.typeof("const char *")
local X_, J_, W_, T_ = 120, 106, 119, 116   -- x j w t

-- Removes every X-Jwt-* header (any case) and returns the Authorization header as pointer, length (nil
-- when there is none). The pointer stays valid for the request (nginx's pool); jwtk copies what it keeps.
local function scan_headers()
    local r = get_request()
    -- max 0: every header, however many the client sent (a cap would let X-Jwt-* hide behind it).
    local n = C.ngx_http_lua_ffi_req_get_headers_count(r, 0, truncated)
    if n <= 0 then return nil end
    if n > hdrs_cap then
        hdrs_cap = n < 32 and 32 or n
        hdrs = ffi.new("ngx_http_lua_ffi_table_elt_t[?]", hdrs_cap)
    end
    if C.ngx_http_lua_ffi_req_get_headers(r, hdrs, n, 0) ~= 0 then error("jwtk: cannot read the request headers") end
    local ap, al
    for i = 0, n - 1 do   -- keys in lower case (raw = 0)
        local k = hdrs[i].key
        local kl, kp = k.len, k.data
        if kl > 6 and kp[0] == X_ and kp[1] == 45 and kp[2] == J_ and kp[3] == W_ and kp[4] == T_ and kp[5] == 45 then
            ngx.req.clear_header(ffi_string(kp, kl))
        elseif kl == 13 and ap == nil and ffi_string(kp, 13) == "authorization" then
            ap, al = hdrs[i].value.data, hdrs[i].value.len
        end
    end
    return ap, al
end

-- The same with ngx.req.get_headers and ngx.var (a Lua string, its length).
local function scan_headers_slow()
    for name in pairs(ngx.req.get_headers(0, true)) do
        if #name > 6 and str_lower(str_sub(name, 1, 6)) == "x-jwt-" then ngx.req.clear_header(name) end
    end
    local auth = ngx.var.http_authorization
    return auth, auth and #auth
end

-- The Authorization value's bearer token, by libjwtk's one grammar (jwtk_bearer_token): pointer, length
-- (nil: none).
local function bearer(p, len)
    local t = W.token
    if lib.jwtk_bearer_token(p, len, t) ~= OK or t.len == 0 then return nil end
    return t.ptr, t.len
end

-- opts: verifier (name, default "default"), realm (default "api"), forward_payload, forward_authorization.
function _M.access(opts)
    opts = opts or {}
    local realm = opts.realm or "api"
    -- Only the gateway speaks X-Jwt-*: drop whatever the client sent under those names (any case).
    local auth, auth_len
    if get_request and not (W and W.headers == "get_headers") then
        auth, auth_len = scan_headers()
    else
        auth, auth_len = scan_headers_slow()
    end
    local v = W and W.verifiers[opts.verifier or "default"]
    if not v then
        ngx.log(ngx.ERR, "jwtk: no verifier ", opts.verifier or "default", " in this worker")
        return ngx.exit(500)
    end
    if not auth then return deny(realm, nil) end
    local p = ffi.cast(const_char_p, auth)
    local token, len = bearer(p, auth_len)
    if not token then return deny(realm, nil) end

    local claims = W.claims
    claims.struct_size = ffi.sizeof(claims)
    local st = lib.jwtk_verify(v, W.ctx, token, len, 0, claims)
    if st == UNKNOWN_KID and refresh_for_unknown_kid() then
        claims.struct_size = ffi.sizeof(claims)
        st = lib.jwtk_verify(v, W.ctx, token, len, 0, claims)
    end
    if st ~= OK then return deny(realm, st) end

    local sub, iss = jstr(claims.sub), jstr(claims.iss)
    if sub then ngx.req.set_header("X-Jwt-Sub", header_safe(sub)) end
    if iss then ngx.req.set_header("X-Jwt-Iss", header_safe(iss)) end
    if opts.forward_payload then ngx.req.set_header("X-Jwt-Payload", jstr(claims.payload)) end
    if not opts.forward_authorization then ngx.req.clear_header("Authorization") end
end

-- Counters -------------------------------------------------------------------------------------------

local function u64(x) return str_format("%.0f", tonumber(x)) end

-- The counters of this worker as JSON (default) or Prometheus text (opts.format = "prometheus", or
-- ?format=prometheus). Each worker counts on its own; the response is that of the worker that served it.
function _M.stats(opts)
    local format = (opts and opts.format) or ngx.var.arg_format or "json"
    local s = W.stats
    local verifiers, prom = {}, {}
    local keystore
    for _, name in ipairs(W.order) do
        s.struct_size = ffi.sizeof(s)
        lib.jwtk_stats_get(W.verifiers[name], s)
        local by = {}
        for i = 1, 31 do
            if s.denied_by_status[i] > 0 then
                local sn = status_name(i)
                by[#by + 1] = str_format('"%s":%s', sn, u64(s.denied_by_status[i]))
                prom[#prom + 1] = str_format('jwtk_denied_by_status_total{verifier="%s",status="%s"} %s', name, sn,
                    u64(s.denied_by_status[i]))
            end
        end
        verifiers[#verifiers + 1] = str_format('"%s":{"allowed":%s,"denied":%s,"cache_hits":%s,"cache_misses":%s,' ..
            '"denied_by_status":{%s}}', name, u64(s.allowed), u64(s.denied), u64(s.cache_hits), u64(s.cache_misses),
            concat(by, ","))
        for _, f in ipairs({ "allowed", "denied", "cache_hits", "cache_misses" }) do
            prom[#prom + 1] = str_format('jwtk_%s_total{verifier="%s"} %s', f, name, u64(s[f]))
        end
        if not keystore then
            local fields = {}
            for _, f in ipairs({ "jwks_loads", "jwks_load_failures", "jwks_fetches", "jwks_fetch_failures",
                "unknown_kid_refreshes", "unknown_kid_suppressed", "stale_served", "keys_loaded", "keys_rejected",
                "last_success_unix", "last_attempt_unix", "jwks_not_modified", "remote_sources",
                "remote_sources_without_keys" }) do
                fields[#fields + 1] = str_format('"%s":%s', f, u64(s[f]))
                local gauge = f == "keys_loaded" or f:find("^remote_sources") or f:find("_unix$")
                local suffix = gauge and "" or "_total"
                prom[#prom + 1] = str_format("jwtk_keystore_%s%s %s", f, suffix, u64(s[f]))
            end
            keystore = "{" .. concat(fields, ",") .. "}"
        end
    end
    local push = {}
    for _, src in ipairs(W.sources) do
        push[#push + 1] = str_format('{"source":"%s","fetches":%d,"fetch_failures":%d,"load_failures":%d,' ..
            '"unknown_kid_refreshes":%d,"unknown_kid_suppressed":%d,"loaded":%s}', header_safe(src.name), src.fetches,
            src.fetch_failures, src.load_failures, src.kid_refreshes, src.kid_suppressed, tostring(src.body ~= nil))
        for _, f in ipairs({ "fetches", "fetch_failures", "load_failures", "kid_refreshes", "kid_suppressed" }) do
            prom[#prom + 1] = str_format('jwtk_push_%s_total{source="%s"} %d', f, header_safe(src.name), src[f])
        end
    end
    if format == "prometheus" then
        ngx.header["Content-Type"] = "text/plain; version=0.0.4"
        ngx.say(concat(prom, "\n"))
    else
        ngx.header["Content-Type"] = "application/json"
        ngx.say(str_format('{"pid":%d,"pull":"%s","headers":"%s","verifiers":{%s},"keystore":%s,"push":[%s]}',
            ngx.worker.pid(), W.pull, (get_request and W.headers ~= "get_headers") and "ffi" or "get_headers",
            concat(verifiers, ","), keystore or "null", concat(push, ",")))
    end
end

return _M
