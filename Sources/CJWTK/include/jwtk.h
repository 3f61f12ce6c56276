/*
 * jwtk.h - the C interface of jwt-kernel (libjwtk.so.0): JWT verification for gateways.
 *
 * Small, safe and boring, in the manner of sqlite3.h and libcurl:
 *   - three opaque handles: jwtk_keystore (keys), jwtk_verifier (policy), jwtk_ctx (per-thread results);
 *   - every function returns an int status: 0 is success, a positive number is the numbered error table
 *     of docs/ERRORS.md (token errors 1-99, key errors 101-199), a negative number is API misuse;
 *   - every string goes in as (pointer, length): no NUL terminator is needed or read;
 *   - no struct is passed or returned by value (LuaJIT compiles calls only without them);
 *   - no Swift error, trap or exception crosses this interface: bad input gets a status.
 *
 * THREADS
 *   jwtk_keystore and jwtk_verifier are thread-safe: any number of threads may use one at once.
 *   jwtk_ctx is like a curl easy handle: one thread at a time (it may move between threads).
 *   Everything else (status helpers, version) is thread-safe and reads only static data.
 *
 * PROCESS MODEL AND FORK
 *   Loading the library and every *_new function start no thread, timer or socket, do no I/O and
 *   install no atfork handler, so a process may create keystores, load keys and build verifiers (pull
 *   mode included: "jwks_url" only registers the source) before fork(): the children inherit them
 *   (immutable key sets, copy-on-write) and may use them at once.
 *   Threads start only in jwtk_verify_batch (a worker pool, on first use, unless the verifier was
 *   built with "batch_threads": 1) and in jwtk_keystore_start (one refresher thread per keystore,
 *   named "jwtk-refresh"). Call jwtk_keystore_start after fork(), in each process that verifies
 *   (nginx: init_worker_by_lua, never init_by_lua).
 *   Fork-safe: a keystore started before fork() still works in the child: the first jwtk_verify,
 *   jwtk_verify_batch, jwtk_stats_get, jwtk_keystore_start or pull-mode jwtk_verifier_new there sees that
 *   its refresher thread belongs to another process and starts a new one (fetching every remote
 *   issuer at once), never touching the parent thread's state. The first jwtk_keystore_start installs
 *   pthread_atfork handlers for this: they count forks and, around fork(), hold the locks of every
 *   started keystore and keep its refresher thread out of key parsing and publication, so the child
 *   inherits none of them held. A fetch in progress (its socket) is not waited for and is never
 *   touched by the child. jwtk_verify_batch's worker pool is not fork-safe: do not use it before fork().
 *   As with any library that takes locks, fork() while another thread is inside a jwtk call leaves the
 *   child's jwtk objects unusable: fork from a single thread, or between calls.
 *   The library never calls OPENSSL_cleanup() and never changes OpenSSL's global configuration.
 *   The library cannot be unloaded: it is linked with -z nodelete, so dlclose() leaves it in place.
 *   Pull mode fetches with libcurl (the system's libcurl4, built on the same OpenSSL): libjwtk.so.0
 *   needs libcurl.so.4; curl_global_init runs once, on the first fetch, on the refresher thread.
 *
 * POINTER LIFETIMES
 *   Inputs are read only during the call; the library keeps no pointer to caller memory (config
 *   strings such as "jwks_url" are copied). Handles: a verifier keeps its keystore alive, so
 *   jwtk_keystore_free may come first; the keystore (and its refresher thread) goes with its last
 *   user.
 *   Outputs into a jwtk_ctx (jwtk_claims fields, jwtk_claim and jwtk_claim_at values, jwtk_ctx_errmsg)
 *   stay valid until the next call that takes the same ctx, or until jwtk_ctx_free; jwtk_claim and
 *   jwtk_claim_at keep the claims fields and every earlier claim value valid (until the next jwtk_verify).
 *   jwtk_claims.payload points into the caller's token and so is valid only while that buffer lives as well.
 *   Strings returned by jwtk_status_name, jwtk_errstr, jwtk_status_bearer_error and jwtk_version are
 *   static: never freed, valid for the life of the process.
 *
 * SIZES
 *   Tokens longer than the verifier's max_token_size (16384 by default) are JWTK_TOO_LARGE before any
 *   decoding. Other inputs are JWTK_E_LENGTH when empty or above: config 1 MiB, key set 16 MiB,
 *   issuer 4096 bytes, claim name (or jwtk_claim_at pointer) 1024 bytes. Batches above 1 << 24 tokens are JWTK_E_RANGE.
 */
#ifndef JWTK_H
#define JWTK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Version. Compare the header against the loaded library, as sqlite does:
 *   assert(jwtk_version_number() == JWTK_VERSION_NUMBER);
 * JWTK_VERSION_NUMBER is major * 1000000 + minor * 1000 + patch. Both follow the top-level VERSION file
 * (scripts/version-check.sh; --set rewrites them).
 */
/* "After 0.1.0" below marks what came after the 0.1.0 release (2026-11-24). Until the next release a
 * library built from the main branch still reports 0.1.0, so test for a function's presence, not the
 * version, when the build's origin is not a release. */
#define JWTK_VERSION        "0.1.0"
#define JWTK_VERSION_NUMBER 1000

/* The library's version string (JWTK_VERSION); static. */
const char *jwtk_version(void);
/* The library's JWTK_VERSION_NUMBER. */
int jwtk_version_number(void);

/* ---------------------------------------------------------------------------------------------
 * Status codes. One append-only table (docs/ERRORS.md): numbers never change and are never reused;
 * new codes may appear in any release, so a switch over them needs a default branch.
 */
#define JWTK_OK                    0

/* Token errors (the core's JWTErrorCode.number). jwtk_status_http gives 401 unless noted. */
#define JWTK_MALFORMED             1   /* not a compact JWS; bad base64url or JSON */
#define JWTK_TOO_LARGE             2   /* longer than max_token_size */
#define JWTK_UNSUPPORTED_ALG       3   /* alg "none" or one the kernel does not verify */
#define JWTK_ALG_NOT_ALLOWED       4   /* alg outside the verifier's "algorithms" */
#define JWTK_UNKNOWN_KID           5   /* no trusted key with the token's kid */
#define JWTK_KEY_ALG_MISMATCH      6   /* the key named by kid may not verify this alg */
#define JWTK_BAD_SIGNATURE         7
#define JWTK_EXPIRED               8   /* exp past (with leeway), or older than max_age */
#define JWTK_NOT_YET_VALID         9   /* nbf in the future */
#define JWTK_BAD_ISSUER           10
#define JWTK_BAD_AUDIENCE         11   /* HTTP 401 (403 in 0.1.0) */
#define JWTK_MISSING_CLAIM        12
#define JWTK_BAD_CLAIM_TYPE       13
#define JWTK_CRIT_UNSUPPORTED     14
#define JWTK_BAD_TYP              15
#define JWTK_BAD_NONCE            16
#define JWTK_ISSUED_IN_FUTURE     17
#define JWTK_UNKNOWN_ISSUER       18   /* no keys for the token's iss, and the verifier does not accept it */
#define JWTK_KEYS_UNAVAILABLE     19   /* no keys could ever be loaded for the token's issuer: HTTP 503 */
#define JWTK_CLAIM_REQUIREMENT_FAILED 20 /* a "claims" requirement does not hold (claim absent, wrong type or
                                           value): HTTP 403, bearer error "insufficient_scope" */
#define JWTK_DECRYPTION_FAILED    21   /* after 0.1.0: an encrypted token (JWE) does not decrypt; one code for
                                          every such failure (no padding oracle) */

/* Key errors (the core's KeyErrorCode.number), from jwtk_keystore_load_jwks. HTTP 500. */
#define JWTK_MALFORMED_KEY        101
#define JWTK_UNSUPPORTED_KEY_TYPE 102
#define JWTK_WEAK_KEY             103
#define JWTK_COMPROMISED_KEY      104
#define JWTK_WRONG_KEY_USE        105
#define JWTK_AMBIGUOUS_KID        106
#define JWTK_INVALID_CERTIFICATE  107
#define JWTK_DECLARED_ALG_MISMATCH 108
#define JWTK_MIXED_KEY_TYPES      109
#define JWTK_NOT_A_KEY_SET        110
#define JWTK_KEY_RESOURCE_FAILURE 111

/* API misuse (negative): the call changed nothing (beyond the text of jwtk_ctx_errmsg). HTTP 500. */
#define JWTK_E_NULL              (-1)  /* a required pointer argument is NULL */
#define JWTK_E_HANDLE            (-2)  /* not a live handle of this kind (another kind; a freed one, while its memory is not reused) */
#define JWTK_E_LENGTH            (-3)  /* a length is 0 where bytes are required, or above its limit */
#define JWTK_E_UTF8              (-4)  /* a text argument (issuer, claim name) is not valid UTF-8 */
#define JWTK_E_CONFIG            (-5)  /* verifier config: not JSON, unknown key, wrong type or value */
#define JWTK_E_STRUCT_SIZE       (-6)  /* struct_size of an out-struct is smaller than this version's */
#define JWTK_E_NO_TOKEN          (-7)  /* jwtk_claim on a ctx whose last jwtk_verify did not succeed; jwtk_challenge: no token came */
#define JWTK_E_UNAVAILABLE       (-8)  /* not available in this build (remote keys) */
#define JWTK_E_RANGE             (-9)  /* a number out of range (negative now, n too large, unknown flag bits) */
#define JWTK_E_SYNTAX            (-10) /* a text argument breaks its grammar (jwtk_claim_at: not an RFC 6901 pointer) */

/* Stable snake_case name ("ok", "expired", "null_argument", ...), as the CLI prints; never NULL.
 * An unknown code gives "unknown". */
const char *jwtk_status_name(int status);
/* Static English description of the code; never NULL. Never contains token or key bytes. */
const char *jwtk_errstr(int status);
/* The HTTP status a gateway should answer with: 200 for JWTK_OK; 401 for token errors 1-18 except
 * JWTK_BAD_AUDIENCE (403); 503 for JWTK_KEYS_UNAVAILABLE; 403 for JWTK_CLAIM_REQUIREMENT_FAILED; 500 for
 * key errors, API misuse and unknown codes. */
int jwtk_status_http(int status);
/* The RFC 6750 error for WWW-Authenticate: "invalid_token" for token errors 1-18,
 * "insufficient_scope" for JWTK_CLAIM_REQUIREMENT_FAILED (every claim requirement, not only those on
 * scope: the token is genuine and current but does not grant what the verifier requires, RFC 6750
 * section 3.1), NULL otherwise (JWTK_OK, JWTK_KEYS_UNAVAILABLE, key errors, misuse). A missing token is the caller's case: send
 * `Bearer realm="..."` without error= (RFC 6750 section 3.1). */
const char *jwtk_status_bearer_error(int status);

/* ---------------------------------------------------------------------------------------------
 * Objects.
 */
typedef struct jwtk_keystore jwtk_keystore;   /* keys + refresh state; thread-safe, shareable */
typedef struct jwtk_verifier jwtk_verifier;   /* policy frozen at creation; thread-safe */
typedef struct jwtk_ctx jwtk_ctx;             /* per-thread scratch and results; one thread at a time */

/* A byte string that is not NUL-terminated. Absent: ptr NULL, len 0. Present but empty: ptr not NULL. */
typedef struct jwtk_str { const char *ptr; size_t len; } jwtk_str;

/* ---------------------------------------------------------------------------------------------
 * Context: per-thread result storage. Allocates once; jwtk_verify reuses its memory (it grows only
 * for a larger token than any before), so steady-state verification allocates nothing.
 */
int  jwtk_ctx_new(jwtk_ctx **out);
/* NULL is a no-op. Every pointer the ctx lent becomes invalid. */
void jwtk_ctx_free(jwtk_ctx *ctx);
/* Detail of the last failure on this ctx (English, never token or key bytes); "" after a success, and
 * after jwtk_keystore_load_jwks_ex succeeds it lists the keys that were refused. Never NULL; valid until
 * the next call with this ctx. Do not put it in WWW-Authenticate: log it. */
const char *jwtk_ctx_errmsg(const jwtk_ctx *ctx);

/* ---------------------------------------------------------------------------------------------
 * Key store: trusted keys per issuer (the core's lock-striped KeyStore), in push mode (the host does
 * its own I/O and hands the bytes over: jwtk_keystore_load_jwks) and in pull mode (a verifier config
 * with "jwks_url" or "discovery" registers a remote source; jwtk_keystore_start's thread fetches it). Both publish
 * into the same store, with the same rule: a failed load or fetch keeps the keys held.
 * Thread-safe: loads and fetches may run while other threads verify; a verification sees either the
 * old or the new keys of an issuer, never a mix, and never waits for a load or a fetch (the new key
 * set is built first, then published by swapping one pointer; verifiers notice through one atomic
 * generation number and take no lock on the verify path).
 */
int  jwtk_keystore_new(jwtk_keystore **out);
/* NULL is a no-op. A keystore still referenced by verifiers lives until the last of them is freed;
 * then its refresher thread (if started in this process) is stopped and joined: a fetch in progress is
 * cut, not waited for, so the free returns within 1 s (milliseconds in practice) even when every key URL
 * hangs, and no fetch starts after it. */
void jwtk_keystore_free(jwtk_keystore *ks);

/* Replaces the keys of `issuer` (exact iss, 1-4096 bytes of UTF-8; NULL, 0: keys for tokens of any issuer) with the
 * key set in `jwks`: a JWKS ({"keys":[...]}), a single JWK, a {kid: PEM} certificate map, or (after 0.1.0) one PEM
 * public key or certificate, told apart as the jwtk CLI's --jwks does. A key without kid (a PEM key, a JWK
 * without one) verifies tokens whose kid no key has and tokens without kid, for what its own type and alg
 * allow (at most 4 such keys tried per token). Keys the kernel refuses (weak, malformed, wrong use, an
 * Ed25519 key of small order, an x5c certificate holding another key than the JWK's, an HMAC secret
 * shorter than its hash output, ...) are skipped and the rest load: JWTK_OK.
 * If the document is not a key set, or none of its keys is usable, the old keys stay and the key
 * error code is returned (JWTK_NOT_A_KEY_SET, JWTK_WEAK_KEY, ...): a failed refresh never removes keys.
 * Which keys verify a token: those of the token's iss if any were loaded for it, otherwise the
 * any-issuer keys; with neither, the token is JWTK_KEYS_UNAVAILABLE (the verifier accepts that issuer,
 * or the store holds no keys at all) or JWTK_UNKNOWN_ISSUER. */
int  jwtk_keystore_load_jwks(jwtk_keystore *ks, const char *issuer, size_t issuer_len,   /* NULL, 0: any issuer */
                             const char *jwks, size_t jwks_len);                         /* JWKS, JWK, {kid: PEM} map or PEM */
/* The same; `ctx` (may be NULL) receives the detail in jwtk_ctx_errmsg: why the load failed, or on
 * JWTK_OK which keys were refused and why (by kid, never key material). */
int  jwtk_keystore_load_jwks_ex(jwtk_keystore *ks, const char *issuer, size_t issuer_len,
                                const char *jwks, size_t jwks_len, jwtk_ctx *ctx);
/* Several documents for one issuer at once (appended after 0.1.0): replaces the keys of `issuer` with the
 * union of the key sets docs[0..n) (each a JWKS, JWK, {kid: PEM} map or PEM key; 1 <= n <= 1024, 16 MiB in all),
 * published together, as a host with several key files or URLs for one issuer needs (loading them one by
 * one would leave only the last). If any document is not a key set, or together they hold no usable key,
 * nothing is published and the old keys stay (the message names the document by position, from 1). A
 * kid naming different keys in two documents is refused in both (JWTK_AMBIGUOUS_KID among the refused);
 * the same key twice counts once. `ctx` may be NULL, as in jwtk_keystore_load_jwks_ex. */
int  jwtk_keystore_load_jwks_many(jwtk_keystore *ks, const char *issuer, size_t issuer_len,
                                  const jwtk_str *docs, size_t n, jwtk_ctx *ctx);
/* Flags of jwtk_keystore_load_jwks_flags (appended after 0.1.0). */
#define JWTK_LOAD_ALLOW_SHORT_HMAC_SECRETS 0x1u   /* load an HMAC secret shorter than its hash output (RFC 7518
                                                     section 3.2 refuses it; NGINX Plus loads it): it verifies every
                                                     HMAC alg (or its declared one), and jwtk_ctx_errmsg has one
                                                     warning per such key, naming it and the rule */
#define JWTK_LOAD_KNOWN_FLAGS              0x1u
/* jwtk_keystore_load_jwks_many with `flags` (JWTK_LOAD_*; 0: the same as _many; unknown bits: JWTK_E_RANGE,
 * nothing loaded). Appended after 0.1.0. Without JWTK_LOAD_ALLOW_SHORT_HMAC_SECRETS a short secret is refused
 * (JWTK_WEAK_KEY among the refused), as by every other load function. */
int  jwtk_keystore_load_jwks_flags(jwtk_keystore *ks, const char *issuer, size_t issuer_len,
                                   const jwtk_str *docs, size_t n, unsigned int flags, jwtk_ctx *ctx);
/* After 0.1.0. Encrypted and nested tokens (JWE, docs/JWE.md): replaces the keystore's decryption keys (one set
 * per keystore: decryption is by recipient, not by issuer) with the private keys in `doc`: a JWKS, a single JWK
 * (with "d" for RSA, EC and X25519; "k" for oct), or one unencrypted PEM private key. Keys meant for
 * signatures ("use": "sig", a JWS "alg", "key_ops" without "decrypt"/"unwrapKey"), public keys, RSA under 2048
 * bits, "alg": "RSA1_5" or "PBES2-*" are refused (listed in jwtk_ctx_errmsg by kid) and the rest load: JWTK_OK.
 * No usable key: the old keys stay and the key error is returned. Decryption keys never verify a signature and
 * verification keys (jwtk_keystore_load_jwks) never decrypt. Used by verifiers with "token_type" "nested" or
 * "encrypted"; until a load succeeds their tokens are JWTK_KEYS_UNAVAILABLE. `ctx` may be NULL. Thread-safe. */
int  jwtk_keystore_load_decryption_keys(jwtk_keystore *ks, const char *doc, size_t doc_len, jwtk_ctx *ctx);
/* After 0.1.0. Several documents at once (docs[0..n), 1 <= n <= 1024, 16 MiB in all): their union replaces the
 * keystore's decryption keys in one step, as a host with several key files for one location needs (one
 * jwtk_keystore_load_decryption_keys call per document would leave only the last). The keys of a document of
 * verification keys listed beside them (NGINX Plus's auth_jwt_key_file lines) are refused with their reasons and
 * the rest load; if any document is not a key document, or no usable decryption key is left, nothing is published,
 * the old keys stay and the key error is returned (the message names a document by position, from 1). `ctx` may be
 * NULL. Thread-safe. */
int  jwtk_keystore_load_decryption_keys_many(jwtk_keystore *ks, const jwtk_str *docs, size_t n, jwtk_ctx *ctx);
/* Pull mode: starts the keystore's one refresher thread (idempotent; JWTK_OK also when no verifier
 * registered a remote source yet: sources registered later are fetched at once). The thread fetches
 * every remote issuer now, then refreshes ahead of expiry (Cache-Control max-age clamped to
 * refresh_min..refresh_max, 10 min without one; ETag/If-None-Match), on an unknown kid (at most once per
 * "cooldown"; the token fails at once with JWTK_UNKNOWN_KID, tokens with known kids never wait), and
 * after failures with backoff; failing fetches keep the last good keys (stale) up to "max_staleness",
 * then that issuer's tokens are JWTK_KEYS_UNAVAILABLE. Until an issuer's first successful fetch its
 * tokens are JWTK_KEYS_UNAVAILABLE (HTTP 503). Call after fork() (see PROCESS MODEL AND FORK); a
 * later call in a forked child restarts the refresher there. Thread-safe. */
int  jwtk_keystore_start(jwtk_keystore *ks);

/* ---------------------------------------------------------------------------------------------
 * Verifier: a policy frozen at creation plus a reference to a keystore (which it keeps alive).
 * Config is a JSON object (UTF-8); every key is optional, an unknown key or a wrong type is
 * JWTK_E_CONFIG naming the key (the message goes to jwtk_ctx_errmsg with jwtk_verifier_new_ex):
 *   "issuers":   ["https://issuer"]   accepted iss values (exact); absent or []: iss not checked
 *   "audiences": ["client-id"]        accepted aud values; absent or []: aud not checked
 *   "algorithms": ["RS256", ...]      allowed algs; absent: any the key allows ("none" never)
 *   "leeway": 60                      seconds of clock skew on exp/nbf/iat (integer >= 0)
 *   "require_exp": true               tokens without exp are JWTK_MISSING_CLAIM
 *   "reject_iat_in_future": true      iat later than now + leeway is JWTK_ISSUED_IN_FUTURE
 *   "max_age": 3600                   iat older than this is JWTK_EXPIRED (integer > 0)
 *   "required_claims": ["sub"]        at most 64 names that must be present
 *   "nonce": "value"                  expected nonce claim
 *   "typ": "JWT"                      expected header typ (media type, case-insensitive)
 *   "claims": [{"pointer": "/scope", "contains_all": ["read", "write"]}, {"pointer": "/tenant", "equals": "acme"}]
 *                                     claim requirements, checked in order after every other check; the
 *                                     first that fails is JWTK_CLAIM_REQUIREMENT_FAILED (HTTP 403,
 *                                     "insufficient_scope"). Each is an object with "pointer" (an RFC 6901
 *                                     JSON Pointer into the claims: "/realm_access/roles", "/roles/0",
 *                                     "/https:~1~1example.com~1roles"; not "") and exactly one of
 *                                       "equals": V           the claim is V (a string, number or boolean)
 *                                       "one_of": [V, ...]    the claim equals one of them
 *                                       "contains_all": [V, ...]  an array holding each as an element, or a
 *                                                             string holding each as a space-separated word
 *                                       "contains_any": [V, ...]  at least one of them, the same way
 *                                     Values compare by JSON type first ("1" is not 1, "true" not true);
 *                                     strings by decoded bytes; numbers by exact decimal value (1 == 1.0 ==
 *                                     10e-1, 2^53+1 != 2^53). An absent claim, or one of another type, fails.
 *                                     Sets are non-empty; another member, a second condition, null, an array
 *                                     or object among the values, a bad pointer: JWTK_E_CONFIG naming
 *                                     "claims[i]" and the member. Checked without allocating.
 *   "max_token_size": 16384           bytes, 1 .. 1073741824
 *   "provider": "apple"               preset (the one table of every surface: CLI, issuer files,
 *                                     Swift): apple, google, facebook, line (issuers, algorithms,
 *                                     required claims; give "audiences"), firebase (give "project_id"
 *                                     or "audiences"), microsoft (give "tenant" and "audiences");
 *                                     the checks above override the preset's values, "algorithms"
 *                                     narrows its algorithms, "issuers" beside it is JWTK_E_CONFIG;
 *                                     a preset with no (or an empty) audience is JWTK_E_CONFIG: it
 *                                     would admit the provider's tokens for every application;
 *                                     "project_id"/"tenant" with another provider are JWTK_E_CONFIG.
 *                                     Aliases: "tenant_id" for "tenant", "issuer": "x" for
 *                                     "issuers": ["x"] (the issuer file's schema is this one)
 *   "channel_secret": "..."           provider line only: LINE web login's channel secret (its UTF-8
 *                                     bytes, at least 32), for HS256 ID tokens (no kid); merged into
 *                                     the keys loaded or fetched for LINE's issuer (push: load LINE's
 *                                     JWKS for "https://access.line.me", not NULL, to keep both)
 *   "cache": true | false | {"capacity": 16384, "max_token_size": 4096, "shards": 16}
 *                                     verified-token cache (default false)
 *   "batch_threads": 2                jwtk_verify_batch width (default: online CPUs; 1: no threads)
 *   "token_type": "signed"            after 0.1.0; NGINX Plus's auth_jwt_type: "signed" (a JWS, the default),
 *                                     "nested" (a JWS inside a JWE with cty "JWT": decrypted with the keystore's
 *                                     decryption keys, then the inner JWS verified exactly as a signed one;
 *                                     jwtk_claims and jwtk_claim report the inner token, its payload {NULL, 0};
 *                                     jwtk_nested_jws gives the inner JWS itself),
 *                                     or "encrypted" (the claims themselves encrypted: decrypted, then this
 *                                     policy's claim checks; jwtk_claims.alg is the JWE "alg", kid, typ and
 *                                     payload are {NULL, 0}). Any decryption failure is JWTK_DECRYPTION_FAILED;
 *                                     RSA1_5, zip, PBES2 and crit are refused (docs/JWE.md)
 * Pull mode (see jwtk_keystore_start); registers a remote source in `ks` for the verifier's issuers:
 *   "jwks_url": "https://..."         a JWKS or Google/Firebase {kid: PEM} map; http:// only to
 *                                     127.0.0.0/8, ::1 or localhost. Needs "issuers" (or a provider):
 *                                     keys are published under the first, every listed issuer uses them.
 *                                     With "provider": a mirror of the provider's keys (the preset's
 *                                     issuers, algorithms and required claims; keys from this URL)
 *   "pull": true                      with "provider" and no "jwks_url": the preset's key URL
 *                                     ("pull": false beside "jwks_url" is JWTK_E_CONFIG)
 *   "discovery": true                 instead of "jwks_url": OpenID Connect discovery for the one issuer
 *                                     in "issuers" (exactly one; https, http only to loopback; no query
 *                                     or fragment): the thread fetches ISSUER/.well-known/openid-
 *                                     configuration (a trailing / of the issuer dropped first), requires
 *                                     its "issuer" to equal the configured one byte for byte (else the
 *                                     document is refused, naming both: issuer mix-up), and fetches the
 *                                     keys at its "jwks_uri" (a string, https or loopback http; else
 *                                     refused). The document is refreshed on its own schedule (max-age
 *                                     clamped to 5 min .. 7 days, 24 h without one); a failed refresh
 *                                     keeps the last good jwks_uri, and the keys keep refreshing from
 *                                     it with the schedule below; a new jwks_uri is used from the next
 *                                     key fetch. With "jwks_url", "provider" or "pull": false it is
 *                                     JWTK_E_CONFIG; "discovery": false is the same as leaving it out
 *   "cooldown": 30                    seconds between unknown-kid refetches (1 .. 86400)
 *   "max_staleness": 86400            seconds failing fetches keep serving the last good keys
 *   "refresh_min": 60, "refresh_max": 86400   clamp of the response's max-age, seconds (1 .. 31622400)
 *   The lower bounds keep any schedule from refetching without pause: retries after a failure back
 *   off from 0.5 s doubling up to 300 s, and a key set is refreshed at most every refresh_min * 0.8 s.
 *   A second verifier may name the same issuer with the same URL and schedule (shared); another URL or
 *   schedule for it in the same keystore is JWTK_E_CONFIG. An issuer with a remote source never falls
 *   back to the any-issuer keys.
 * Creating a verifier starts no thread and does no I/O. `ks` is required (load keys before or after:
 * verification uses the keystore's keys at the time of each call). */
int  jwtk_verifier_new(const char *config_json, size_t config_len, jwtk_keystore *ks, jwtk_verifier **out);
/* The same; `ctx` (may be NULL) receives the reason for JWTK_E_CONFIG, naming the key. */
int  jwtk_verifier_new_ex(const char *config_json, size_t config_len, jwtk_keystore *ks,
                          jwtk_ctx *ctx, jwtk_verifier **out);
/* NULL is a no-op. The caller makes sure no other thread is still using the verifier. */
void jwtk_verifier_free(jwtk_verifier *v);

/* ---------------------------------------------------------------------------------------------
 * Verification.
 */
/* Bits of jwtk_claims.flags. */
#define JWTK_CLAIMS_HAS_EXP   0x1u
#define JWTK_CLAIMS_HAS_NBF   0x2u
#define JWTK_CLAIMS_HAS_IAT   0x4u
#define JWTK_CLAIMS_AUD_ARRAY 0x8u   /* aud holds the raw JSON array text, e.g. ["a","b"] */

/* What a successful jwtk_verify reports. Caller-allocated; set struct_size = sizeof(jwtk_claims)
 * before the call (fields are only ever appended, so an older caller's smaller struct keeps working).
 * Strings are decoded (JSON escapes resolved) UTF-8, not NUL-terminated; absent: {NULL, 0}. */
typedef struct jwtk_claims {
    uint32_t struct_size;
    uint32_t flags;         /* JWTK_CLAIMS_* */
    jwtk_str alg;           /* "RS256", ...: static */
    jwtk_str kid;           /* header kid */
    jwtk_str typ;           /* header typ, as sent */
    jwtk_str iss;
    jwtk_str sub;
    jwtk_str aud;           /* the string, or the JSON array text (JWTK_CLAIMS_AUD_ARRAY) */
    jwtk_str jti;
    jwtk_str payload;       /* the base64url payload segment: points into the caller's token ({NULL, 0} for a JWE) */
    jwtk_str claims_json;   /* the decoded claims JSON exactly as signed */
    int64_t  exp;           /* NumericDate seconds, rounded down exactly from the token's digits (a fraction is
                               allowed; jwtk_claim gives the text as written), clamped to int64; 0 when absent */
    int64_t  nbf;
    int64_t  iat;
} jwtk_claims;

/* Verifies one compact JWT of `len` bytes (no NUL needed) against `v`'s policy and its keystore's
 * current keys, at time `now` (Unix seconds; 0: the system clock; negative: JWTK_E_RANGE). `now` stands
 * for any instant of its second, so a NumericDate with a fraction compares toward refusal: exp from its
 * floor (exp 100.5 is expired at now 100), nbf and iat from their ceiling (nbf 100.5 is not yet valid at 100).
 * Returns JWTK_OK or the token error; on JWTK_OK fills `out` (may be NULL when only the verdict is
 * wanted) and remembers the claims for jwtk_claim; on failure zeroes `out` after struct_size and
 * puts the detail in jwtk_ctx_errmsg. Pointers in `out` are valid until the next call with `ctx`.
 * Thread-safety: `v` is shared freely; `ctx` is used by one thread at a time.
 * Allocation: none in steady state (the ctx grows only for a larger token than any before). */
int  jwtk_verify(const jwtk_verifier *v, jwtk_ctx *ctx, const char *token, size_t len, int64_t now,
                 jwtk_claims *out);

/* Verifies n tokens (tokens[i] of lens[i] bytes) into statuses[i], on the core's batch path: up to
 * "batch_threads" worker threads (started on first use and kept), results in input order. `now` as in
 * jwtk_verify. A NULL tokens[i] gives statuses[i] = JWTK_E_NULL. n = 0 is JWTK_OK with nothing done.
 * Returns JWTK_OK when every status was written (whatever the verdicts), or misuse. */
int  jwtk_verify_batch(const jwtk_verifier *v, const char *const *tokens, const size_t *lens, size_t n,
                       int64_t now, int *statuses);                                      /* now 0: the clock */

/* JSON types reported by jwtk_claim. */
#define JWTK_JSON_NONE   0   /* the claim is absent */
#define JWTK_JSON_STRING 1   /* value: the decoded string */
#define JWTK_JSON_NUMBER 2   /* value: the number's JSON text */
#define JWTK_JSON_BOOL   3   /* value: "true" or "false" */
#define JWTK_JSON_NULL   4   /* value: "null" */
#define JWTK_JSON_ARRAY  5   /* value: the array's JSON text */
#define JWTK_JSON_OBJECT 6   /* value: the object's JSON text */

/* Any claim of the token last verified successfully on `ctx`, by name (UTF-8, no NUL needed).
 * Nested members by dotted path: "address.country". A member whose own name contains dots
 * ("https://example.com/roles") is found too: at each level the whole remaining name is tried first.
 * Absent: JWTK_OK with *json_type = JWTK_JSON_NONE and *value = {NULL, 0}.
 * Returns JWTK_E_NO_TOKEN if the last jwtk_verify on ctx failed (or none ran).
 * *value is valid until the next jwtk_verify or jwtk_ctx_free on ctx (several jwtk_claim results
 * stay valid together). One thread at a time per ctx. Allocates nothing. */
int  jwtk_claim(jwtk_ctx *ctx, const char *name, size_t name_len, jwtk_str *value, int *json_type);

/* Flags of jwtk_claim_at. */
#define JWTK_AT_HEADER 0x1u   /* look in the token's JOSE header instead of its claims */
#define JWTK_AT_JOIN   0x2u   /* an array whose elements are all strings, numbers, booleans or null: value is their
                                 text (strings decoded) joined by ",", as NGINX Plus's $jwt_claim_ variables show it;
                                 json_type stays JWTK_JSON_ARRAY. Any other array: its JSON text. */

/* A value of the token last verified successfully on `ctx`, by RFC 6901 JSON Pointer (UTF-8, no NUL
 * needed, at most 1024 bytes): "/email", "/address/country", "/roles/0", and "/https:~1~1example.com~1roles"
 * for a member whose name holds "/" ("~1" is "/", "~0" is "~"; "." has no meaning). An array index is
 * decimal without leading zeros ("/roles/01" and "/roles/-" match nothing). The empty pointer (pointer_len
 * 0; pointer may then be NULL) is the whole claims set (or header): JWTK_JSON_OBJECT, its JSON text.
 * Values as jwtk_claim: strings decoded, anything else its JSON text, json_type JWTK_JSON_*; absent
 * (no such member or element, or a step into a string, number, ...): JWTK_OK with *json_type =
 * JWTK_JSON_NONE and *value = {NULL, 0}. Header lookups see every parameter the token was signed with
 * (a verified token never has "crit": the kernel refuses those).
 * Returns JWTK_E_SYNTAX if pointer is neither empty nor starts with "/", or has a "~" not followed by
 * "0" or "1" (jwtk_ctx_errmsg says which); JWTK_E_UTF8, JWTK_E_LENGTH (over 1024 bytes) and JWTK_E_NULL
 * as jwtk_claim; JWTK_E_RANGE for flag bits other than JWTK_AT_*; JWTK_E_NO_TOKEN if the last jwtk_verify
 * on ctx failed (or none ran).
 * *value is valid until the next jwtk_verify or jwtk_ctx_free on ctx; any number of jwtk_claim and
 * jwtk_claim_at results stay valid together, a joined array and its own elements included. One thread
 * at a time per ctx. Allocates nothing. */
int  jwtk_claim_at(jwtk_ctx *ctx, const char *pointer, size_t pointer_len, unsigned int flags,
                   jwtk_str *value, int *json_type);

/* After 0.1.0. The inner compact JWS of the nested token (a verifier with "token_type": "nested") last verified
 * successfully on `ctx`, as decrypted (NGINX Plus's $jwt_payload of a nested token: the enclosed JWS). After a
 * signed or encrypted-only token: JWTK_OK with *value = {NULL, 0}. Returns JWTK_E_NO_TOKEN if the last jwtk_verify
 * on ctx failed (or none ran). *value is valid until the next jwtk_verify or jwtk_ctx_free on ctx, together with
 * the claim values. One thread at a time per ctx. Allocates nothing. */
int  jwtk_nested_jws(jwtk_ctx *ctx, jwtk_str *value);

/* ---------------------------------------------------------------------------------------------
 * Counters, for metrics. Caller-allocated; set struct_size = sizeof(jwtk_stats) before the call.
 * A snapshot per process (after fork each process counts on its own). Thread-safe.
 */
#define JWTK_STATS_STATUS_SLOTS 32

typedef struct jwtk_stats {
    uint32_t struct_size;
    uint32_t reserved;
    uint64_t allowed;                 /* verifications that returned JWTK_OK */
    uint64_t denied;                  /* verifications that returned a token error */
    uint64_t denied_by_status[JWTK_STATS_STATUS_SLOTS]; /* index: token status 1..31 */
    uint64_t cache_hits;              /* verified-token cache: verifications answered from it */
    uint64_t cache_misses;            /* verified-token cache: looked up, not found (verified in full) */
    uint64_t jwks_loads;              /* push: jwtk_keystore_load_jwks calls that published keys */
    uint64_t jwks_load_failures;      /* push: jwtk_keystore_load_jwks calls that kept the old keys */
    uint64_t jwks_fetches;            /* pull: fetch attempts, whatever their outcome */
    uint64_t jwks_fetch_failures;     /* pull: fetches that kept the old keys (error, timeout, bad document) */
    uint64_t unknown_kid_refreshes;   /* pull: fetches made because a token named an unknown kid */
    uint64_t unknown_kid_suppressed;  /* pull: unknown-kid requests folded into one pending (cooldown) */
    uint64_t stale_served;            /* pull: verifications of tokens whose issuer's keys were past their
                                         freshness (fetches failing), cache hits and rejections included */
    uint64_t keys_loaded;             /* keys in the store now, all issuers */
    uint64_t keys_rejected;           /* keys refused: by the push loads that published, plus the last
                                         fetched document of each remote source */
    int64_t  last_success_unix;       /* last load or fetch that published (or 304-renewed) keys; 0: never */
    int64_t  last_attempt_unix;       /* last load or fetch attempt; 0: never */
    /* Appended after 0.1.0: a caller whose struct_size stops before a field does not get it. */
    uint64_t jwks_not_modified;       /* pull: "304 Not Modified" answers */
    uint64_t remote_sources;          /* pull: issuers with a remote key source in the keystore */
    uint64_t remote_sources_without_keys; /* pull: of those, how many have no keys now (before the first
                                         successful fetch, or withdrawn after max_staleness) */
    /* Appended after 0.1.0's ABI baseline (OpenID Connect discovery, "discovery": true): */
    uint64_t discovery_fetches;       /* pull, "discovery": true: OpenID Connect discovery document fetch
                                         attempts (not counted in jwks_fetches, which are the key fetches) */
    uint64_t discovery_fetch_failures; /* of those, how many failed (error, timeout, not a document of the
                                         configured issuer, no usable jwks_uri): the last good one is kept */
} jwtk_stats;

/* Fills `out` with the verifier's counters (allowed, denied, cache) and those of its keystore (push
 * loads and pull fetches of every issuer in it). struct_size: at least the 0.1.0 size (384 bytes, the
 * fields up to last_attempt_unix); fields past struct_size are not written. Thread-safe; in a forked
 * child whose keystore was started before the fork, this call restarts the refresher (see
 * jwtk_keystore_start). */
int  jwtk_stats_get(const jwtk_verifier *v, jwtk_stats *out);

/* ---------------------------------------------------------------------------------------------
 * The gateway contract (appended after 0.1.0): what every front end does around a verification,
 * done once here so that the nginx module, the Lua handler and any other host answer alike.
 * Neither function needs a handle; both are thread-safe, allocate nothing and never echo token bytes.
 */

/* The token of an Authorization field value (`value`, `len` bytes; RFC 6750 section 2.1 with RFC 9110
 * section 11): the scheme "Bearer" in any case, one or more spaces (SP only), a b64token (ALPHA, DIGIT,
 * "-", ".", "_", "~", "+", "/", then "=" padding); spaces and tabs around the whole value are skipped
 * (they are not part of a field value). Anything else is no bearer token: another scheme, a tab after
 * the scheme, a space or comma inside the token, no token. JWTK_OK with `token` pointing into `value`,
 * or with token->ptr NULL and token->len 0 when the value holds no bearer token (answer 401 with the
 * challenge of JWTK_E_NO_TOKEN). JWTK_E_NULL if `token` is NULL, or `value` NULL with len > 0. */
int  jwtk_bearer_token(const char *value, size_t len, jwtk_str *token);

/* The value of cookie `name` (name_len bytes, matched byte for byte) in a Cookie request header `header` of
 * `len` bytes (appended after 0.1.0), for hosts that read the token from a cookie: RFC 6265 section 4.2.1's
 * cookie-string, `name=value` pairs separated by ";" (spaces and tabs around names and values skipped, a pair
 * without "=" skipped), the first pair of that name wins, a value wrapped in DQUOTEs given without them.
 * JWTK_OK with `value` pointing into `header` (len 0 for an empty value), or with value->ptr NULL and
 * value->len 0 when no pair has that name (or name_len is 0). JWTK_E_NULL if `value` is NULL, or `header` or
 * `name` NULL with a length > 0. Allocates nothing; thread-safe. */
int  jwtk_cookie_value(const char *header, size_t len, const char *name, size_t name_len, jwtk_str *value);

/* The WWW-Authenticate value for answering `status` (RFC 6750 section 3): JWTK_E_NO_TOKEN (no token
 * came) gives `Bearer realm="<realm>"`; a token error gives `Bearer realm="<realm>", error="<e>"` with
 * jwtk_status_bearer_error's e ("invalid_token"; "insufficient_scope" for
 * JWTK_CLAIM_REQUIREMENT_FAILED, with `, scope="<scope>"` when scope_len > 0). The realm and scope are
 * written as quoted-string content: '"' and '\' escaped, control characters dropped. Any other status
 * (JWTK_OK, JWTK_KEYS_UNAVAILABLE: answered 503 without a challenge, key errors, misuse) has no
 * challenge: *out_len = 0. Writes at most `cap` bytes to `buf` (no NUL) and sets *out_len to the whole
 * length; JWTK_E_LENGTH when it did not fit (call again with *out_len bytes). `buf` may be NULL when
 * cap is 0 (to measure). JWTK_E_NULL if out_len is NULL, or realm/scope NULL with a length > 0. */
int  jwtk_challenge(int status, const char *realm, size_t realm_len, const char *scope, size_t scope_len,
                    char *buf, size_t cap, size_t *out_len);

/* The claim requirements of `v` (its config's "claims"; every other member of its policy is ignored here)
 * checked against the token last verified successfully on `ctx`, by whichever verifier, without verifying it
 * again (appended after 0.1.0). For hosts whose authorization runs as a step of its own after authentication,
 * as Apache httpd's `Require` lines do: each line is a verifier built from {"claims": [...]} and checked
 * against the one verification. JWTK_OK when every requirement holds (a verifier without requirements: always);
 * JWTK_CLAIM_REQUIREMENT_FAILED for the first that does not (HTTP 403, "insufficient_scope"; which requirement
 * and how, never a value, in jwtk_ctx_errmsg), checked in order exactly as jwtk_verify checks them;
 * JWTK_E_NO_TOKEN when the last jwtk_verify on ctx did not succeed (or none ran). Counts nothing in
 * jwtk_stats. The ctx's claim values (jwtk_claims fields, jwtk_claim and jwtk_claim_at results) stay valid.
 * Thread-safe on `v`; one thread at a time per ctx. Allocates nothing. */
int  jwtk_check_claims(const jwtk_verifier *v, jwtk_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* JWTK_H */
