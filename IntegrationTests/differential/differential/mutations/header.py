"""Protected-header edits: alg, kid, typ, crit, key-carrying members, b64."""
import json

from . import mutation
from ..draft import j
from ..keys import HMAC_ALGS, RSA_ALGS

ALL_ALGS = list(HMAC_ALGS) + list(RSA_ALGS) + ["ES256", "ES384", "ES512", "ES256K", "EdDSA", "Ed25519", "Ed448"]
NONE_SPELLINGS = ["none", "None", "NONE", "nOnE"]


def _can_sign(key, alg: str) -> bool:
    """Whether `key` can physically make an `alg` signature (not whether it may)."""
    if key.kty == "oct":
        return alg.startswith("HS")
    if key.kty == "RSA":
        return alg[:2] in ("RS", "PS")
    if key.kty == "EC":
        return alg == {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512", "secp256k1": "ES256K"}[key.crv]
    return alg == "EdDSA" or alg == key.crv


@mutation("alg-change")
def alg_change(d, ctx):
    """Another real algorithm; when re-signed, with the same key if it can make
    that signature (e.g. RS256 -> PS384 on one RSA key, EdDSA -> Ed25519)."""
    signable = [a for a in ALL_ALGS if a != d.alg and _can_sign(d.key, a)]
    pool = signable if signable and ctx.rng.random() < 0.7 else [a for a in ALL_ALGS if a != d.alg]
    new = ctx.rng.choice(pool)
    d.set("header", "alg", j(new))
    if _can_sign(d.key, new):
        d.alg = new
        return f"alg {new}, signed as {new}"
    return f"alg {new}, signature still {d.alg}"


@mutation("alg-none")
def alg_none(d, ctx):
    spelling = ctx.rng.choice(NONE_SPELLINGS)
    d.set("header", "alg", j(spelling))
    if ctx.rng.random() < 0.6:
        d.sig_bytes_hooks.append(lambda s: b"")
        d.resign = False
        return f"alg {spelling}, empty signature"
    return f"alg {spelling}, signature kept"


@mutation("alg-confusion")
def alg_confusion(d, ctx):
    """RFC 8725 §2.1: an HMAC tag keyed with the verifier's public key bytes."""
    if d.key.kty == "oct":
        return None
    key = d.key
    form = ctx.rng.choice(["pem", "jwk", "der"])
    if form == "pem":
        secret = key.public_pem()
    elif form == "jwk":
        secret = json.dumps(key.jwk).encode()
    else:
        from cryptography.hazmat.primitives import serialization
        secret = key.public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    alg = ctx.rng.choice(HMAC_ALGS)
    d.set("header", "alg", j(alg))
    d.alg, d.hmac_secret, d.resign = alg, secret, True
    return f"{alg} keyed with the public key's {form}"


@mutation("alg-odd")
def alg_odd(d, ctx):
    value = ctx.rng.choice([None, '""', "123", "null", '["RS256"]', j(d.alg.lower()), j(d.alg + "\u0000"),
                            j(d.alg + " "), j(" " + d.alg), '"' + "".join(f"\\u{ord(c):04x}" for c in d.alg) + '"'])
    d.set("header", "alg", value)
    return f"alg {'removed' if value is None else value}"


@mutation("kid-edit")
def kid_edit(d, ctx):
    choice = ctx.rng.choice(["missing", "unknown", "number", "null", "empty", "escaped", "case", "array", "nul-suffix",
                             "prefix"])
    kid = d.key.kid
    value = {"missing": None, "unknown": j("k9"), "number": "1", "null": "null", "empty": '""',
             "escaped": '"' + "".join(f"\\u{ord(c):04x}" for c in (kid or "k1")) + '"',
             "case": j((kid or "k1").upper()), "array": j([kid or "k1"]),
             # A C-string comparison would stop at the NUL; a prefix match would take "k".
             "nul-suffix": '"' + (kid or "k1") + '\\u0000"', "prefix": j((kid or "k1")[:-1])}[choice]
    d.set("header", "kid", value)
    return f"kid {choice}"


@mutation("typ-edit")
def typ_edit(d, ctx):
    value = ctx.rng.choice([None, j("JWT"), j("jwt"), j("at+jwt"), j("application/jwt"), j("JOSE"), "1", "null", j("")])
    d.set("header", "typ", value)
    return f"typ {'removed' if value is None else value}"


@mutation("crit")
def crit(d, ctx):
    choice = ctx.rng.choice(["exp", "empty", "string", "unknown-present", "unknown-absent", "b64", "null"])
    if choice == "exp":
        d.set("header", "crit", j(["exp"]))
        d.set("header", "exp", "1")
    elif choice == "empty":
        d.set("header", "crit", "[]")
    elif choice == "string":
        d.set("header", "crit", j("foo"))
        d.set("header", "foo", "true")
    elif choice == "unknown-present":
        d.set("header", "crit", j(["foo"]))
        d.set("header", "foo", "true")
    elif choice == "unknown-absent":
        d.set("header", "crit", j(["foo"]))
    elif choice == "b64":
        d.set("header", "crit", j(["b64"]))
        d.set("header", "b64", "true")
    else:
        d.set("header", "crit", "null")
    return f"crit {choice}"


@mutation("key-headers")
def key_headers(d, ctx):
    """jku/jwk/x5u/x5c in the header: never a source of keys (RFC 8725 §3.10).
    Half the time the embedded jwk is the trusted key itself, half an attacker's."""
    choice = ctx.rng.choice(["jku", "x5u", "jwk-trusted", "jwk-attacker", "x5c", "x5t"])
    if choice == "jku":
        d.set("header", "jku", j("https://attacker.example/jwks.json"))
    elif choice == "x5u":
        d.set("header", "x5u", j("https://attacker.example/cert.pem"))
    elif choice == "jwk-trusted":
        d.set("header", "jwk", j({k: v for k, v in d.key.jwk.items() if k != "k"}))
    elif choice == "jwk-attacker":
        # An HMAC key the attacker made up, announced in the header and used to sign.
        secret = ctx.rng.randbytes(64)
        from .. import b64
        d.set("header", "jwk", j({"kty": "oct", "k": b64.encode(secret)}))
        d.set("header", "alg", j("HS256"))
        d.alg, d.hmac_secret = "HS256", secret
    elif choice == "x5c":
        d.set("header", "x5c", j(["MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"]))
    else:
        d.set("header", "x5t", j("dGh1bWJwcmludA"))
    return f"header {choice}"


@mutation("b64-false")
def b64_false(d, ctx):
    """RFC 7797 unencoded payload option, with and without crit."""
    with_crit = ctx.rng.random() < 0.7
    d.set("header", "b64", "false")
    if with_crit:
        d.set("header", "crit", j(["b64"]))
    return f"b64:false {'with' if with_crit else 'without'} crit"
