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
 *   v, name, msg = jwtk.verifier(json, ks, realm, {"/email", "/roles"})
 *   http, name, challenge, sub, iss, c1, c2, ... = v:verify(authorization_value_or_nil)
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

/* jwtk.verifier(config_json, ks, realm, pointers) -> v | nil, status_name, why */
static int l_verifier(lua_State *L)
{
    size_t clen, rlen, mlen = 0;
    const char *config = luaL_checklstring(L, 1, &clen);
    ks_ud *ku = check_ks(L, 2);
    const char *realm = luaL_checklstring(L, 3, &rlen);
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

/* v:verify(authorization) -> http_status, status_name, challenge|nil, sub|nil, iss|nil, claims...
 * authorization: the Authorization field value, or nil when the request has none. Never raises for
 * any input: every outcome is a status. */
static int l_v_verify(lua_State *L)
{
    v_ud *u = check_v(L, 1);
    size_t alen = 0, clen = 0;
    const char *auth = lua_isnoneornil(L, 2) ? NULL : luaL_checklstring(L, 2, &alen);
    jwtk_str tok = { NULL, 0 };
    jwtk_claims c;
    char ch[CHALLENGE_MAX];
    int st, http, i, t;

    luaL_checkstack(L, 5 + u->nclaims, "jwtk claims");
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    st = jwtk_bearer_token(auth, alen, &tok);
    if (st == JWTK_OK)
        st = tok.ptr == NULL ? JWTK_E_NO_TOKEN : jwtk_verify(u->v, u->ctx, tok.ptr, tok.len, 0, &c);
    /* No token is the one misuse code a gateway answers 401 (RFC 6750 3.1), not 500. */
    http = st == JWTK_E_NO_TOKEN ? 401 : jwtk_status_http(st);
    lua_pushinteger(L, http);
    lua_pushstring(L, jwtk_status_name(st));
    if (jwtk_challenge(st, u->realm, u->realm_len, NULL, 0, ch, sizeof ch, &clen) == JWTK_OK && clen > 0)
        lua_pushlstring(L, ch, clen);
    else
        lua_pushnil(L);
    if (st != JWTK_OK) {
        lua_pushnil(L);
        lua_pushnil(L);
        return 5;
    }
    push_str_or_nil(L, c.sub);
    push_str_or_nil(L, c.iss);
    lua_rawgeti(L, LUA_REGISTRYINDEX, u->claims_ref);
    t = lua_gettop(L);
    for (i = 1; i <= u->nclaims; i++) {
        size_t plen;
        const char *ptr;
        jwtk_str val = { NULL, 0 };
        int type = JWTK_JSON_NONE;

        lua_rawgeti(L, t, i);
        ptr = lua_tolstring(L, -1, &plen);
        lua_pop(L, 1);   /* the string stays alive in the table */
        if (jwtk_claim_at(u->ctx, ptr, plen, JWTK_AT_JOIN, &val, &type) == JWTK_OK && type != JWTK_JSON_NONE)
            push_header_safe(L, val.ptr, val.len);
        else
            lua_pushnil(L);
    }
    lua_remove(L, t);   /* the pointer table, between iss and the claims */
    return 5 + u->nclaims;
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
    static const luaL_Reg v_m[] = { { "verify", l_v_verify }, { NULL, NULL } };
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
