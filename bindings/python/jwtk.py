"""Python binding of libjwtk (jwt-kernel's C library) over ctypes.

    import jwtk
    ks = jwtk.KeyStore()
    ks.load_jwks(open("jwks.json", "rb").read())                # or load_jwks(data, issuer="https://...")
    v = jwtk.Verifier({"issuers": ["https://issuer"], "audiences": ["api"]}, ks)
    ctx = jwtk.Context()                                         # one per thread
    result = v.verify(ctx, token)                                # bytes or str; now=<unix seconds> to fix the clock
    if result.ok: print(result.claims.sub, ctx.claim("email"))
    else: print(result.name, jwtk.status_http(result.status))    # "expired", 401

The library is found through JWTK_LIBRARY (a path), then the system loader ("libjwtk.so.0": with the Debian
packages, python3-jwtk's module finds libjwtk0's library through ld.so's cache, with nothing set).
ctypes releases the GIL around every call, so threads verify in parallel; a Context must not be
used by two threads at once (the C contract), which this module does not police.
"""

import ctypes
import json
import os

__all__ = ["KeyStore", "Verifier", "Context", "Result", "Claims", "JWTKError", "status_name", "errstr",
           "status_http", "status_bearer_error", "bearer_token", "challenge", "version", "version_number", "lib"]

OK = 0
E_LENGTH, E_NO_TOKEN = -3, -7   # jwtk.h's JWTK_E_LENGTH, JWTK_E_NO_TOKEN (the no_token challenge)
JSON_NONE, JSON_STRING, JSON_NUMBER, JSON_BOOL, JSON_NULL, JSON_ARRAY, JSON_OBJECT = range(7)
CLAIMS_HAS_EXP, CLAIMS_HAS_NBF, CLAIMS_HAS_IAT, CLAIMS_AUD_ARRAY = 0x1, 0x2, 0x4, 0x8
LOAD_ALLOW_SHORT_HMAC_SECRETS = 0x1
STATS_STATUS_SLOTS = 32


class Str(ctypes.Structure):
    """jwtk_str: a pointer and a length, no NUL terminator."""
    _fields_ = [("ptr", ctypes.c_void_p), ("len", ctypes.c_size_t)]

    def bytes(self):
        return None if not self.ptr else ctypes.string_at(self.ptr, self.len)


class ClaimsStruct(ctypes.Structure):
    """jwtk_claims, field for field (jwtk.h; the layout is pinned by Sources/CJWTK/jwtk_layout.c)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("alg", Str), ("kid", Str), ("typ", Str), ("iss", Str), ("sub", Str), ("aud", Str), ("jti", Str),
                ("payload", Str), ("claims_json", Str),
                ("exp", ctypes.c_int64), ("nbf", ctypes.c_int64), ("iat", ctypes.c_int64)]


class StatsStruct(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("allowed", ctypes.c_uint64), ("denied", ctypes.c_uint64),
                ("denied_by_status", ctypes.c_uint64 * STATS_STATUS_SLOTS)] + [
                (name, ctypes.c_uint64) for name in (
                    "cache_hits", "cache_misses", "jwks_loads", "jwks_load_failures", "jwks_fetches",
                    "jwks_fetch_failures", "unknown_kid_refreshes", "unknown_kid_suppressed", "stale_served",
                    "keys_loaded", "keys_rejected")] + [
                ("last_success_unix", ctypes.c_int64), ("last_attempt_unix", ctypes.c_int64)] + [
                (name, ctypes.c_uint64) for name in (
                    "jwks_not_modified", "remote_sources", "remote_sources_without_keys",
                    "discovery_fetches", "discovery_fetch_failures")]


def _load():
    path = os.environ.get("JWTK_LIBRARY") or "libjwtk.so.0"
    so = ctypes.CDLL(path)
    handle = ctypes.c_void_p
    sigs = {
        "jwtk_version": (ctypes.c_char_p, []),
        "jwtk_version_number": (ctypes.c_int, []),
        "jwtk_status_name": (ctypes.c_char_p, [ctypes.c_int]),
        "jwtk_errstr": (ctypes.c_char_p, [ctypes.c_int]),
        "jwtk_status_http": (ctypes.c_int, [ctypes.c_int]),
        "jwtk_status_bearer_error": (ctypes.c_char_p, [ctypes.c_int]),
        "jwtk_ctx_new": (ctypes.c_int, [ctypes.POINTER(handle)]),
        "jwtk_ctx_free": (None, [handle]),
        "jwtk_ctx_errmsg": (ctypes.c_char_p, [handle]),
        "jwtk_keystore_new": (ctypes.c_int, [ctypes.POINTER(handle)]),
        "jwtk_keystore_free": (None, [handle]),
        "jwtk_keystore_load_jwks": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]),
        "jwtk_keystore_load_jwks_ex": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                                      ctypes.c_size_t, handle]),
        "jwtk_keystore_load_jwks_flags": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Str),
                                                         ctypes.c_size_t, ctypes.c_uint, handle]),
        "jwtk_keystore_start": (ctypes.c_int, [handle]),
        "jwtk_keystore_load_decryption_keys": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.c_size_t, handle]),
        "jwtk_verifier_new": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, handle, ctypes.POINTER(handle)]),
        "jwtk_verifier_new_ex": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, handle, handle, ctypes.POINTER(handle)]),
        "jwtk_verifier_free": (None, [handle]),
        "jwtk_verify": (ctypes.c_int, [handle, handle, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int64,
                                       ctypes.POINTER(ClaimsStruct)]),
        "jwtk_verify_batch": (ctypes.c_int, [handle, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t),
                                             ctypes.c_size_t, ctypes.c_int64, ctypes.POINTER(ctypes.c_int)]),
        "jwtk_claim": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Str),
                                      ctypes.POINTER(ctypes.c_int)]),
        "jwtk_stats_get": (ctypes.c_int, [handle, ctypes.POINTER(StatsStruct)]),
        "jwtk_bearer_token": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Str)]),
        "jwtk_challenge": (ctypes.c_int, [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                          ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
                                          ctypes.POINTER(ctypes.c_size_t)]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(so, name)
        fn.restype, fn.argtypes = restype, argtypes
    return so


lib = _load()


def status_name(status):
    return lib.jwtk_status_name(status).decode()


def errstr(status):
    return lib.jwtk_errstr(status).decode()


def status_http(status):
    return lib.jwtk_status_http(status)


def status_bearer_error(status):
    e = lib.jwtk_status_bearer_error(status)
    return None if e is None else e.decode()


def bearer_token(value):
    """The token of an Authorization value (bytes or str), or None when it holds no bearer token: the
    library's one grammar (jwtk_bearer_token), as every front end reads it."""
    data = _bytes(value)
    out = Str()
    rc = lib.jwtk_bearer_token(data, len(data), ctypes.byref(out))
    if rc != OK:
        raise JWTKError(rc)
    return None if not out.ptr else ctypes.string_at(out.ptr, out.len)


def challenge(status, realm, scope=None):
    """The WWW-Authenticate value answering `status` (NO_TOKEN when no token came), or None when the
    status has no challenge (keys_unavailable: 503): jwtk_challenge, as every front end renders it."""
    r, s = _bytes(realm), _bytes(scope or b"")
    need = ctypes.c_size_t()
    buf = ctypes.create_string_buffer(256)
    rc = lib.jwtk_challenge(status, r, len(r), s, len(s), buf, len(buf), ctypes.byref(need))
    if rc == E_LENGTH:
        buf = ctypes.create_string_buffer(need.value)
        rc = lib.jwtk_challenge(status, r, len(r), s, len(s), buf, len(buf), ctypes.byref(need))
    if rc != OK:
        raise JWTKError(rc)
    return None if need.value == 0 else buf.raw[:need.value].decode()


def version():
    return lib.jwtk_version().decode()


def version_number():
    return lib.jwtk_version_number()


class JWTKError(Exception):
    """A call that failed with a status (key loading, configuration, misuse)."""

    def __init__(self, status, message=""):
        self.status, self.name, self.message = status, status_name(status), message
        super().__init__(f"{self.name} ({status}){': ' + message if message else ''}")


def _bytes(value):
    return value.encode() if isinstance(value, str) else bytes(value)


class Context:
    """A jwtk_ctx: one thread's results. Claims read through it stay valid until its next verify."""

    def __init__(self):
        self._h = ctypes.c_void_p()
        rc = lib.jwtk_ctx_new(ctypes.byref(self._h))
        if rc != OK:
            raise JWTKError(rc)

    def close(self):
        if self._h:
            lib.jwtk_ctx_free(self._h)
            self._h = ctypes.c_void_p()

    __del__ = close

    @property
    def errmsg(self):
        return lib.jwtk_ctx_errmsg(self._h).decode()

    def claim(self, name):
        """(json_type, value): value is str for strings, the JSON text (str) otherwise; None when absent."""
        value, kind = Str(), ctypes.c_int()
        raw = _bytes(name)
        rc = lib.jwtk_claim(self._h, raw, len(raw), ctypes.byref(value), ctypes.byref(kind))
        if rc != OK:
            raise JWTKError(rc)
        data = value.bytes()
        return kind.value, (None if data is None else data.decode())


class KeyStore:
    """A jwtk_keystore: keys per issuer (None: any issuer), thread-safe."""

    def __init__(self):
        self._h = ctypes.c_void_p()
        rc = lib.jwtk_keystore_new(ctypes.byref(self._h))
        if rc != OK:
            raise JWTKError(rc)

    def close(self):
        if self._h:
            lib.jwtk_keystore_free(self._h)
            self._h = ctypes.c_void_p()

    __del__ = close

    def load_jwks(self, document, issuer=None, allow_short_hmac_secrets=False):
        """Loads a JWKS, JWK, {kid: PEM} map or one PEM public key or certificate; returns the refused keys'
        description ('' if none), and a warning per key loaded only because allow_short_hmac_secrets
        (JWTK_LOAD_ALLOW_SHORT_HMAC_SECRETS: an HMAC secret shorter than its hash output, which RFC 7518
        section 3.2 refuses and NGINX Plus loads; refused by default).
        Raises JWTKError (old keys kept) when the document is not usable."""
        data = _bytes(document)
        iss = None if issuer is None else _bytes(issuer)
        ctx = Context()
        if allow_short_hmac_secrets:
            buf = ctypes.create_string_buffer(data, len(data))
            doc = Str(ctypes.addressof(buf), len(data))
            rc = lib.jwtk_keystore_load_jwks_flags(self._h, iss, 0 if iss is None else len(iss), ctypes.byref(doc), 1,
                                                   LOAD_ALLOW_SHORT_HMAC_SECRETS, ctx._h)
        else:
            rc = lib.jwtk_keystore_load_jwks_ex(self._h, iss, 0 if iss is None else len(iss), data, len(data),
                                                ctx._h)
        if rc != OK:
            raise JWTKError(rc, ctx.errmsg)
        return ctx.errmsg

    def load_decryption_keys(self, document):
        """Loads JWE decryption keys (a JWKS or JWK with private keys, or one PEM private key) for verifiers
        whose config has "token_type": "nested" or "encrypted"; returns the refused keys' description.
        Raises JWTKError (old keys kept) when the document holds no usable decryption key."""
        data = _bytes(document)
        ctx = Context()
        rc = lib.jwtk_keystore_load_decryption_keys(self._h, data, len(data), ctx._h)
        if rc != OK:
            raise JWTKError(rc, ctx.errmsg)
        return ctx.errmsg

    def start(self):
        rc = lib.jwtk_keystore_start(self._h)
        if rc != OK:
            raise JWTKError(rc)


class Claims:
    """The registered claims of a verified token, copied out of the context (bytes decoded to str)."""

    def __init__(self, s):
        def text(field):
            data = getattr(s, field).bytes()
            return None if data is None else data.decode()
        self.alg, self.kid, self.typ = text("alg"), text("kid"), text("typ")
        self.iss, self.sub, self.jti = text("iss"), text("sub"), text("jti")
        aud = text("aud")
        self.aud = json.loads(aud) if aud is not None and s.flags & CLAIMS_AUD_ARRAY else aud
        self.exp = s.exp if s.flags & CLAIMS_HAS_EXP else None
        self.nbf = s.nbf if s.flags & CLAIMS_HAS_NBF else None
        self.iat = s.iat if s.flags & CLAIMS_HAS_IAT else None
        self.payload = text("payload")
        self.json = json.loads(text("claims_json"))


class Result:
    def __init__(self, status, claims=None, message=""):
        self.status, self.claims, self.message = status, claims, message
        self.name = status_name(status)

    @property
    def ok(self):
        return self.status == OK

    def __repr__(self):
        return f"Result({self.name})"


class Verifier:
    """A jwtk_verifier: a policy (dict or JSON text, jwtk.h lists the keys) over a KeyStore."""

    def __init__(self, config, keystore):
        text = _bytes(config if isinstance(config, (str, bytes)) else json.dumps(config))
        self._keystore = keystore  # the C verifier keeps the keystore alive too; this keeps the Python object
        self._h = ctypes.c_void_p()
        ctx = Context()
        rc = lib.jwtk_verifier_new_ex(text, len(text), keystore._h, ctx._h, ctypes.byref(self._h))
        if rc != OK:
            raise JWTKError(rc, ctx.errmsg)

    def close(self):
        if self._h:
            lib.jwtk_verifier_free(self._h)
            self._h = ctypes.c_void_p()

    __del__ = close

    def verify(self, ctx, token, now=0):
        """Verifies `token` (bytes or str) with `ctx` (one per thread). `now`: Unix seconds to judge
        `exp`/`nbf`/`iat` at; 0 (the default) is the current time (tests and replays pass a fixed time)."""
        data = _bytes(token)
        out = ClaimsStruct()
        out.struct_size = ctypes.sizeof(ClaimsStruct)
        rc = lib.jwtk_verify(self._h, ctx._h, data, len(data), now, ctypes.byref(out))
        if rc != OK:
            return Result(rc, message=ctx.errmsg)
        return Result(rc, Claims(out))

    def verify_batch(self, tokens, now=0):
        """Statuses for many tokens, on the library's batch path (all cores unless batch_threads says otherwise);
        `now` as for `verify`."""
        data = [_bytes(t) for t in tokens]
        n = len(data)
        ptrs = (ctypes.c_char_p * n)(*data)
        lens = (ctypes.c_size_t * n)(*[len(d) for d in data])
        statuses = (ctypes.c_int * n)()
        rc = lib.jwtk_verify_batch(self._h, ptrs, lens, n, now, statuses)
        if rc != OK:
            raise JWTKError(rc)
        return list(statuses)

    def stats(self):
        s = StatsStruct()
        s.struct_size = ctypes.sizeof(StatsStruct)
        rc = lib.jwtk_stats_get(self._h, ctypes.byref(s))
        if rc != OK:
            raise JWTKError(rc)
        out = {name: getattr(s, name) for name, _ in StatsStruct._fields_ if name not in ("struct_size", "reserved")}
        out["denied_by_status"] = {status_name(i): c for i, c in enumerate(s.denied_by_status) if c}
        return out
