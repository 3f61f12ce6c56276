/*
 * jwtk.c - Lua 5.3 C module `jwtk` (luaopen_jwtk) for HAProxy's Lua, over libjwtk.so.0.
 *
 * Plumbing only: the bearer grammar, the verification, the HTTP status, the WWW-Authenticate challenge
 * and the rendering of claims are libjwtk's (jwtk_bearer_token, jwtk_verify, jwtk_status_http,
 * jwtk_challenge, jwtk_claim_at with JWTK_AT_JOIN); this file turns them into Lua values.
 *
 *   local jwtk = package.loadlib(path, "luaopen_jwtk")()
 *   local ks = jwtk.shared_keystore()               -- the process's one keystore (jwtk.keystore(): a
 *                                                   -- private one, freed by the garbage collector)
 *   ok, name, msg = ks:load(bytes [, issuer])       -- push mode: a JWKS, JWK, {kid: PEM} map or PEM key
 *   st = ks:start()                                 -- pull mode: the refresher thread (after fork only)
 *   v, name, msg = jwtk.verifier(json, ks, realm, {"/email", "/roles"} [, "x-jwt-"])
 *   http, name, challenge, sub, iss, claims = v:verify(authorization_value_or_nil)
 *   lookalike, http, name, challenge, sub, iss, claims = v:verify_headers(req_hdrs_bin)
 *                                                   -- claims: {c1, c2, ...} or nil (none configured or not valid)
 *
 * Built against liblua5.3-dev's headers and NOT linked with liblua: HAProxy is linked with it, and a
 * second copy of the Lua runtime in the process would corrupt its states.
 *
 * Threads: HAProxy runs one Lua state on one thread at a time (lua-load: under a global lock;
 * lua-load-per-thread: a state per thread), so a verifier's one jwtk_ctx, kept in its userdata, is
 * never used by two threads at once; v:verify does every call on the ctx in one go, without yielding.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include <jwtk.h>

#define KS_MT "jwtk.keystore"
#define V_MT  "jwtk.verifier"
#define MAX_CLAIMS 32      /* claim pointers per verifier: Lua's stack is checked for that many results */
#define CHALLENGE_MAX 1024 /* checked against the realm at jwtk.verifier, so verify never runs out */
#define STRIP_MAX 64       /* the claim headers' prefix, as jwtk.lua normalises it */

typedef struct {
    jwtk_keystore *ks;
    int shared;            /* the process's keystore: never freed by a state */
} ks_ud;

/* One keystore per process, shared by every Lua state (lua-load-per-thread makes one state per
 * thread): one set of keys and, in pull mode, one refresher thread and one fetch per key URL for the
 * whole process instead of one per thread. jwtk_keystore is thread-safe; the lock only guards its
 * creation (the states are loaded one after another, but nothing here depends on that). */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static jwtk_keystore *shared_ks;

typedef struct {
    jwtk_verifier *v;
    jwtk_ctx *ctx;
    char realm[256];
    size_t realm_len;
    int nclaims;
    int claims_ref;        /* registry ref to the Lua array of pointers (strings kept alive there) */
    char strip[STRIP_MAX]; /* the claim headers' prefix, lower case, '-' for '_' ("x-jwt-"); none: empty */
    size_t strip_len;
} v_ud;

/* Claim values travel as header values: a control character (CR, LF, NUL ...) would end or split the
 * header on the wire. A value holding one has those and '%' percent-encoded (so it decodes back), as the
 * nginx module's claim variables do; any other value, UTF-8 included, goes as the claim holds it. */
static void push_header_safe(lua_State *L, const char *p, size_t n)
{
    size_t i;
    luaL_Buffer b;

    for (i = 0; i < n; i++)
        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
            break;
    if (i == n) {   /* the common case: no copy beyond the Lua string itself */
        lua_pushlstring(L, p, n);
        return;
    }
    luaL_buffinit(L, &b);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7f || c == '%') {
            static const char hex[] = "0123456789ABCDEF";
            luaL_addchar(&b, '%');
            luaL_addchar(&b, hex[c >> 4]);
            luaL_addchar(&b, hex[c & 15]);
        } else {
            luaL_addchar(&b, (char)c);
        }
    }
    luaL_pushresult(&b);
}

static void push_str_or_nil(lua_State *L, jwtk_str s)
{
    if (s.ptr == NULL)
        lua_pushnil(L);
    else
        push_header_safe(L, s.ptr, s.len);
}

/* ---- keystore -------------------------------------------------------------------------------- */

static int l_keystore(lua_State *L)
{
    ks_ud *u = lua_newuserdata(L, sizeof *u);
    int st;

    u->ks = NULL;
    u->shared = 0;
    luaL_setmetatable(L, KS_MT);
    st = jwtk_keystore_new(&u->ks);
    if (st != JWTK_OK)
        return luaL_error(L, "jwtk_keystore_new: %s", jwtk_status_name(st));
    return 1;
}

/* jwtk.shared_keystore() -> the process's keystore (created on first use). */
static int l_shared_keystore(lua_State *L)
{
    ks_ud *u = lua_newuserdata(L, sizeof *u);
    int st = JWTK_OK, rc;

    u->ks = NULL;
    u->shared = 1;
    luaL_setmetatable(L, KS_MT);
    if ((rc = pthread_mutex_lock(&shared_lock)) != 0)
        return luaL_error(L, "jwtk: pthread_mutex_lock: %d", rc);
    if (shared_ks == NULL)
        st = jwtk_keystore_new(&shared_ks);
    u->ks = shared_ks;
    if ((rc = pthread_mutex_unlock(&shared_lock)) != 0)
        return luaL_error(L, "jwtk: pthread_mutex_unlock: %d", rc);
    if (st != JWTK_OK)
        return luaL_error(L, "jwtk_keystore_new: %s", jwtk_status_name(st));
    return 1;
}

static ks_ud *check_ks(lua_State *L, int i)
{
    ks_ud *u = luaL_checkudata(L, i, KS_MT);
    if (u->ks == NULL)
        luaL_argerror(L, i, "freed keystore");
    return u;
}

/* ks:load(bytes [, issuer]) -> true, "ok", refused_keys | false, status_name, why.
 * A refused document keeps the previous keys (libjwtk's rule). */
static int l_ks_load(lua_State *L)
{
    ks_ud *u = check_ks(L, 1);
    size_t n, ilen = 0;
    const char *doc = luaL_checklstring(L, 2, &n);
    const char *iss = luaL_optlstring(L, 3, NULL, &ilen);
    jwtk_ctx *ctx = NULL;
    int st;

    st = jwtk_ctx_new(&ctx);
    if (st != JWTK_OK)
        return luaL_error(L, "jwtk_ctx_new: %s", jwtk_status_name(st));
    st = jwtk_keystore_load_jwks_ex(u->ks, iss, ilen, doc, n, ctx);
    lua_pushboolean(L, st == JWTK_OK);
    lua_pushstring(L, jwtk_status_name(st));
    lua_pushstring(L, jwtk_ctx_errmsg(ctx));
    jwtk_ctx_free(ctx);
    return 3;
}

/* ks:start() -> status_name. Starts the one refresher thread of pull mode: call it in the worker,
 * after HAProxy has forked (core.register_task), never while the configuration is parsed. */
static int l_ks_start(lua_State *L)
{
    ks_ud *u = check_ks(L, 1);
    int st = jwtk_keystore_start(u->ks);

    lua_pushstring(L, jwtk_status_name(st));
    return 1;
}

static int l_ks_gc(lua_State *L)
{
    ks_ud *u = luaL_checkudata(L, 1, KS_MT);

    if (!u->shared)
        jwtk_keystore_free(u->ks);   /* verifiers keep their keystore alive: the order does not matter */
    u->ks = NULL;
    return 0;
}

/* ---- verifier -------------------------------------------------------------------------------- */

/* jwtk.verifier(config_json, ks, realm, pointers [, strip_prefix]) -> v | nil, status_name, why
 * strip_prefix: the claim headers' prefix lower-cased with '_' read as '-' ("x-jwt-"), which
 * v:verify_headers looks for among the request's header names. */
static int l_verifier(lua_State *L)
{
    size_t clen, rlen, mlen = 0, slen = 0;
    const char *config = luaL_checklstring(L, 1, &clen);
    ks_ud *ku = check_ks(L, 2);
    const char *realm = luaL_checklstring(L, 3, &rlen);
    const char *strip = luaL_optlstring(L, 5, "", &slen);
    v_ud *u;
    int st, i, n;

    luaL_checktype(L, 4, LUA_TTABLE);
    n = (int)luaL_len(L, 4);
    luaL_argcheck(L, n <= MAX_CLAIMS, 4, "at most 32 claim pointers");
    for (i = 1; i <= n; i++) {
        int t = lua_rawgeti(L, 4, i);
        lua_pop(L, 1);
        luaL_argcheck(L, t == LUA_TSTRING, 4, "claim pointers are strings");
    }
    luaL_argcheck(L, rlen < sizeof u->realm, 3, "realm longer than 255 bytes");
    luaL_argcheck(L, slen < STRIP_MAX, 5, "header prefix longer than 63 bytes");
    for (i = 0; i < (int)slen; i++)
        luaL_argcheck(L, strip[i] != '_' && !(strip[i] >= 'A' && strip[i] <= 'Z'), 5,
                      "header prefix not normalised (lower case, '-' for '_')");
    /* The longest challenge (insufficient_scope) fits v:verify's buffer: checked once, not per request. */
    st = jwtk_challenge(JWTK_CLAIM_REQUIREMENT_FAILED, realm, rlen, NULL, 0, NULL, 0, &mlen);
    if ((st != JWTK_OK && st != JWTK_E_LENGTH) || mlen == 0 || mlen >= CHALLENGE_MAX)
        return luaL_error(L, "jwtk_challenge: %s (%d bytes)", jwtk_status_name(st), (int)mlen);

    u = lua_newuserdata(L, sizeof *u);
    memset(u, 0, sizeof *u);
    u->claims_ref = LUA_NOREF;
    luaL_setmetatable(L, V_MT);
    memcpy(u->realm, realm, rlen);
    u->realm_len = rlen;
    memcpy(u->strip, strip, slen);
    u->strip_len = slen;
    st = jwtk_ctx_new(&u->ctx);
    if (st != JWTK_OK)
        return luaL_error(L, "jwtk_ctx_new: %s", jwtk_status_name(st));
    st = jwtk_verifier_new_ex(config, clen, ku->ks, u->ctx, &u->v);
    if (st != JWTK_OK) {
        lua_pushnil(L);
        lua_pushstring(L, jwtk_status_name(st));
        lua_pushstring(L, jwtk_ctx_errmsg(u->ctx));
        return 3;   /* the userdata is collected: __gc frees the ctx */
    }
    lua_pushvalue(L, 4);
    u->claims_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    u->nclaims = n;
    return 1;
}

static v_ud *check_v(lua_State *L, int i)
{
    v_ud *u = luaL_checkudata(L, i, V_MT);
    if (u->v == NULL)
        luaL_argerror(L, i, "freed verifier");
    return u;
}

/* Pushes the verdict on the Authorization value auth (NULL: the request has none):
 * http_status, status_name, challenge|nil, sub|nil, iss|nil, claims|nil; returns 6. claims: a new table, slot i
 * for pointer i (nil for a claim the token lacks), when claims are configured and the token is valid. Fixed
 * results, so the Lua side needs no varargs; a table of the request's own, never one shared between requests:
 * HAProxy may yield a Lua action between two of its instructions (tune.lua.forced-yield) and run another
 * request's action on the same state meanwhile. */
static int push_verdict(lua_State *L, v_ud *u, const char *auth, size_t alen)
{
    size_t clen = 0;
    jwtk_str tok = { NULL, 0 };
    jwtk_claims c;
    char ch[CHALLENGE_MAX];
    int st, http, i, ptrs, vals;

    luaL_checkstack(L, 9, "jwtk results");
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    st = jwtk_bearer_token(auth, alen, &tok);
    if (st == JWTK_OK)
        st = tok.ptr == NULL ? JWTK_E_NO_TOKEN : jwtk_verify(u->v, u->ctx, tok.ptr, tok.len, 0, &c);
    /* No token is the one misuse code a gateway answers 401 (RFC 6750 3.1), not 500. */
    http = st == JWTK_E_NO_TOKEN ? 401 : jwtk_status_http(st);
    lua_pushinteger(L, http);
    lua_pushstring(L, jwtk_status_name(st));
    if (st != JWTK_OK && jwtk_challenge(st, u->realm, u->realm_len, NULL, 0, ch, sizeof ch, &clen) == JWTK_OK &&
        clen > 0)
        lua_pushlstring(L, ch, clen);
    else
        lua_pushnil(L);   /* a verified token has no challenge (jwtk_challenge: empty for JWTK_OK) */
    if (st != JWTK_OK) {
        lua_pushnil(L);
        lua_pushnil(L);
        lua_pushnil(L);
        return 6;
    }
    push_str_or_nil(L, c.sub);
    push_str_or_nil(L, c.iss);
    if (u->nclaims == 0) {
        lua_pushnil(L);
        return 6;
    }
    lua_createtable(L, u->nclaims, 0);
    vals = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, u->claims_ref);
    ptrs = lua_gettop(L);
    for (i = 1; i <= u->nclaims; i++) {
        size_t plen;
        const char *ptr;
        jwtk_str val = { NULL, 0 };
        int type = JWTK_JSON_NONE;

        lua_rawgeti(L, ptrs, i);
        ptr = lua_tolstring(L, -1, &plen);
        lua_pop(L, 1);   /* the string stays alive in the table */
        if (jwtk_claim_at(u->ctx, ptr, plen, JWTK_AT_JOIN, &val, &type) == JWTK_OK && type != JWTK_JSON_NONE) {
            push_header_safe(L, val.ptr, val.len);
            lua_rawseti(L, vals, i);
        }
    }
    lua_pop(L, 1);   /* the pointers; the values' table is the sixth result */
    return 6;
}

/* v:verify(authorization) -> http_status, status_name, challenge|nil, sub|nil, iss|nil, claims|nil
 * authorization: the Authorization field value, or nil when the request has none. Never raises for
 * any input: every outcome is a status. */
static int l_v_verify(lua_State *L)
{
    v_ud *u = check_v(L, 1);
    size_t alen = 0;
    const char *auth = lua_isnoneornil(L, 2) ? NULL : luaL_checklstring(L, 2, &alen);

    return push_verdict(L, u, auth, alen);
}

/* One length of HAProxy's varint encoding (doc/SPOE.txt, "Variable-length integer"; the peers' encoding):
 * a first byte below 240 is the value; otherwise its low 4 bits, then 7 bits per byte while the byte's top
 * bit is set, each group shifted above the previous. Returns 0 past the end or beyond 32 bits. */
static int get_varint(const unsigned char **p, const unsigned char *end, size_t *out)
{
    uint64_t v;
    unsigned r = 4;

    if (*p >= end)
        return 0;
    v = **p;
    if (v >= 240) {
        do {
            if (++*p >= end || r > 32)
                return 0;
            v += (uint64_t)**p << r;
            r += 7;
        } while (**p >= 128);
    }
    ++*p;
    if (v > (uint64_t)(end - *p))
        return 0;   /* a string longer than what is left */
    *out = (size_t)v;
    return 1;
}

/* Is a header name "Authorization", in any case? (HAProxy hands names lower-cased; not relied upon.) */
static int is_authorization(const unsigned char *name, size_t n)
{
    static const char want[] = "authorization";
    size_t i;

    if (n != sizeof want - 1)
        return 0;
    for (i = 0; i < n; i++)
        if ((name[i] | 0x20) != (unsigned char)want[i])
            return 0;
    return 1;
}

/* Does a header name start with the claim headers' prefix, compared lower-cased and with '_' read as '-'? */
static int is_lookalike(const v_ud *u, const unsigned char *name, size_t n)
{
    size_t i;

    if (u->strip_len == 0 || n < u->strip_len)
        return 0;
    for (i = 0; i < u->strip_len; i++) {
        unsigned char c = name[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        else if (c == '_')
            c = '-';
        if (c != (unsigned char)u->strip[i])
            return 0;
    }
    return 1;
}

/* The next field of a req.hdrs_bin block at *p: 1 with its name and value, 0 at the end marker (an empty
 * name and an empty value), -1 when the block ends first or a length runs past it (get_varint). */
static int next_field(const unsigned char **p, const unsigned char *end, const unsigned char **name,
                      size_t *n, const unsigned char **value, size_t *vlen)
{
    if (!get_varint(p, end, n))
        return -1;
    *name = *p;
    *p += *n;
    if (!get_varint(p, end, vlen))
        return -1;
    *value = *p;
    *p += *vlen;
    return *n == 0 && *vlen == 0 ? 0 : 1;
}

/* v:verify_headers(block) -> lookalike, http_status, status_name, challenge|nil, sub|nil, iss|nil, claims|nil
 *                          | nil when block is not a whole header block
 * block: HAProxy's req.hdrs_bin, every request header field in order as <varint length><name><varint
 * length><value>, ended by an empty name and an empty value (nothing may follow). One call instead of
 * Lua walking req_get_headers' table: the Authorization value (several fields read as one list joined
 * by ", ", RFC 9110 5.3) and whether any name starts with the claim headers' prefix (lookalike: the Lua
 * side then removes those fields), then v:verify's results. Lengths are checked against the block, so
 * any bytes are a status or nil, never a read past it. */
static int l_v_verify_headers(lua_State *L)
{
    v_ud *u = check_v(L, 1);
    size_t blen, n, alen = 0;
    const unsigned char *p = (const unsigned char *)luaL_checklstring(L, 2, &blen);
    const unsigned char *end = p + blen, *name, *value;
    const char *auth = NULL;
    const unsigned char *first = NULL;
    size_t first_len = 0, vlen;
    int nauth = 0, lookalike = 0, field;

    if (u->strip_len == 0)
        return luaL_error(L, "jwtk: verify_headers needs the verifier's header prefix");
    while ((field = next_field(&p, end, &name, &n, &value, &vlen)) == 1) {
        if (is_authorization(name, n)) {
            if (++nauth == 1) {
                first = value;
                first_len = vlen;
            }
        } else if (is_lookalike(u, name, n)) {
            lookalike = 1;
        }
    }
    if (field != 0 || p != end) {   /* no end marker, or bytes after it */
        lua_pushnil(L);
        return 1;
    }
    if (nauth == 1) {
        auth = (const char *)first;
        alen = first_len;
    } else if (nauth > 1) {
        /* Joined on the Lua stack, below the results (the caller takes only the top ones). */
        luaL_Buffer b;
        int k = 0;

        luaL_buffinit(L, &b);
        p = (const unsigned char *)lua_tolstring(L, 2, &blen);
        end = p + blen;
        while (next_field(&p, end, &name, &n, &value, &vlen) == 1) {
            if (is_authorization(name, n)) {
                if (k++ > 0)
                    luaL_addlstring(&b, ", ", 2);
                luaL_addlstring(&b, (const char *)value, vlen);
            }
        }
        luaL_pushresult(&b);
        auth = lua_tolstring(L, -1, &alen);
    }
    luaL_checkstack(L, 1, "jwtk");
    lua_pushboolean(L, lookalike);
    return 1 + push_verdict(L, u, auth, alen);
}

static int l_v_gc(lua_State *L)
{
    v_ud *u = luaL_checkudata(L, 1, V_MT);

    jwtk_verifier_free(u->v);
    jwtk_ctx_free(u->ctx);
    u->v = NULL;
    u->ctx = NULL;
    if (u->claims_ref != LUA_NOREF)
        luaL_unref(L, LUA_REGISTRYINDEX, u->claims_ref);
    u->claims_ref = LUA_NOREF;
    return 0;
}

/* ---- module ---------------------------------------------------------------------------------- */

static int l_version(lua_State *L)
{
    lua_pushstring(L, jwtk_version());
    return 1;
}

static int l_http_status(lua_State *L)
{
    lua_pushinteger(L, jwtk_status_http((int)luaL_checkinteger(L, 1)));
    return 1;
}

int luaopen_jwtk(lua_State *L)
{
    static const luaL_Reg ks_m[] = { { "load", l_ks_load }, { "start", l_ks_start }, { NULL, NULL } };
    static const luaL_Reg v_m[] = { { "verify", l_v_verify }, { "verify_headers", l_v_verify_headers },
                                    { NULL, NULL } };
    static const luaL_Reg mod[] = {
        { "keystore", l_keystore }, { "shared_keystore", l_shared_keystore }, { "verifier", l_verifier },
        { "version", l_version }, { "status_http", l_http_status }, { NULL, NULL }
    };

    /* The header and the loaded library must agree (sqlite's rule); a mismatch is a packaging error. */
    if (jwtk_version_number() != JWTK_VERSION_NUMBER)
        return luaL_error(L, "jwtk: built for libjwtk %d, loaded %d", JWTK_VERSION_NUMBER, jwtk_version_number());
    luaL_newmetatable(L, KS_MT);
    luaL_newlib(L, ks_m);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_ks_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, V_MT);
    luaL_newlib(L, v_m);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_v_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newlib(L, mod);
    lua_pushstring(L, JWTK_VERSION);
    lua_setfield(L, -2, "_VERSION");
    return 1;
}
