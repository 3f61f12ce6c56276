#!/usr/bin/env python3
"""Generate the RFC 8725 attack-suite fixtures for jwt-kernel.

Run ONCE; the output is committed and the Swift tests only read it:

    pip install cryptography
    python3 scripts/gen_attack_tokens.py

Writes, under Tests/JWTKernelTests/Fixtures/:

  attacks/jwks.json       trusted public keys (RSA, EC P-256/384/521/secp256k1, Ed25519, Ed448)
  attacks/hmac-jwks.json  trusted HMAC secrets (a key set never mixes secrets with public keys)
  attacks/tokens.json     a JSON list of cases:
        {name, token, jwks: "public"|"hmac", expect_valid, expect_error,
         accept_errors?: [codes]   (ambiguous cases: any of these codes is fine),
         policy?: {...}            (overrides of the default policy, see below),
         note?}
  cli/*                   key files for the jwtk CLI contract tests

Default policy (what the Swift test builds when a case has no `policy`):
    now = NOW, leeway = 60, issuers = [ISS], audiences = [AUD], every algorithm,
    exp required, default maximum token size (16384 bytes).
`policy` may set: now, leeway, algorithms, issuers, audiences, typ, nonce,
max_token_size, required_claims, reject_iat_in_future, max_age.

Nothing here is secret: every private key is thrown away after signing.
"""

import base64
import json
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.x509.oid import NameOID
import datetime

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OUT = os.path.join(ROOT, "Tests", "JWTKernelTests", "Fixtures", "attacks")
CLI_OUT = os.path.join(ROOT, "Tests", "JWTKernelTests", "Fixtures", "cli")

NOW = 1_700_000_000
ISS = "https://issuer.example"
AUD = "api://attack-suite"
MAX_TOKEN = 16 * 1024


# ---------------------------------------------------------------- encoding

def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64u_int(n: int, length: int | None = None) -> str:
    if length is None:
        length = max(1, (n.bit_length() + 7) // 8)
    return b64u(n.to_bytes(length, "big"))


def compact(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def as_bytes(part) -> bytes:
    if isinstance(part, bytes):
        return part
    if isinstance(part, str):
        return part.encode("utf-8")
    return compact(part)


# ---------------------------------------------------------------- keys

rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
rsa_ps_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
attacker_rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
weak_rsa = rsa.generate_private_key(public_exponent=65537, key_size=1024)
p256 = ec.generate_private_key(ec.SECP256R1())
p384 = ec.generate_private_key(ec.SECP384R1())
p521 = ec.generate_private_key(ec.SECP521R1())
k256 = ec.generate_private_key(ec.SECP256K1())
attacker_p256 = ec.generate_private_key(ec.SECP256R1())
ed_key = ed25519.Ed25519PrivateKey.generate()
ed448_key = ed448.Ed448PrivateKey.generate()
hmac_key = os.urandom(64)        # kid hmac-1, any HS*
hmac256_key = os.urandom(32)     # kid hmac-256, alg HS256 only

CURVE_ORDER = {
    "P-256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    "P-384": 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973,
    "P-521": 0x01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB71E91386409,
}
ED25519_L = 2**252 + 27742317777372353535851937790883648493


def rsa_jwk(key, kid, **extra):
    pub = key.public_key().public_numbers()
    return {"kty": "RSA", "kid": kid, "use": "sig", "n": b64u_int(pub.n), "e": b64u_int(pub.e), **extra}


def ec_jwk(key, kid, crv, size):
    pub = key.public_key().public_numbers()
    return {"kty": "EC", "kid": kid, "use": "sig", "crv": crv,
            "x": b64u_int(pub.x, size), "y": b64u_int(pub.y, size)}


def okp_jwk(key, kid, crv):
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {"kty": "OKP", "kid": kid, "use": "sig", "crv": crv, "x": b64u(raw)}


def self_signed_cert(key, cn):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    start = datetime.datetime(2023, 1, 1, tzinfo=datetime.timezone.utc)
    return (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(1)
            .not_valid_before(start).not_valid_after(start + datetime.timedelta(days=3650))
            .sign(key, hashes.SHA256()))


PUBLIC_JWKS = {"keys": [
    rsa_jwk(rsa_key, "rsa-1"),
    rsa_jwk(rsa_ps_key, "rsa-ps256", alg="PS256"),
    ec_jwk(p256, "ec-p256", "P-256", 32),
    ec_jwk(p384, "ec-p384", "P-384", 48),
    ec_jwk(p521, "ec-p521", "P-521", 66),
    ec_jwk(k256, "ec-k256", "secp256k1", 32),
    okp_jwk(ed_key, "ed25519", "Ed25519"),
    okp_jwk(ed448_key, "ed448", "Ed448"),
]}
HMAC_JWKS = {"keys": [
    {"kty": "oct", "kid": "hmac-1", "k": b64u(hmac_key)},
    {"kty": "oct", "kid": "hmac-256", "alg": "HS256", "k": b64u(hmac256_key)},
]}

RSA_PUBLIC_PEM = rsa_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
RSA_PUBLIC_DER = rsa_key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
RSA_PKCS1_PEM = rsa_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.PKCS1)
EC_PUBLIC_PEM = p256.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
ED_PUBLIC_RAW = ed_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


# ---------------------------------------------------------------- signing

HASHES = {"256": hashes.SHA256(), "384": hashes.SHA384(), "512": hashes.SHA512()}
KEY_FOR = {
    "HS256": hmac_key, "HS384": hmac_key, "HS512": hmac_key,
    "RS256": rsa_key, "RS384": rsa_key, "RS512": rsa_key,
    "PS256": rsa_key, "PS384": rsa_key, "PS512": rsa_key,
    "ES256": p256, "ES384": p384, "ES512": p521, "ES256K": k256,
    "EdDSA": ed_key, "Ed25519": ed_key, "Ed448": ed448_key,
}
KID_FOR = {
    "HS256": "hmac-1", "HS384": "hmac-1", "HS512": "hmac-1",
    "RS256": "rsa-1", "RS384": "rsa-1", "RS512": "rsa-1",
    "PS256": "rsa-1", "PS384": "rsa-1", "PS512": "rsa-1",
    "ES256": "ec-p256", "ES384": "ec-p384", "ES512": "ec-p521", "ES256K": "ec-k256",
    "EdDSA": "ed25519", "Ed25519": "ed25519", "Ed448": "ed448",
}
EC_SIZE = {"ES256": 32, "ES384": 48, "ES512": 66, "ES256K": 32}


def ecdsa_raw(key, data, hash_alg, size):
    r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hash_alg)))
    return r.to_bytes(size, "big") + s.to_bytes(size, "big")


def sign(alg: str, data: bytes, key=None, pss_salt=None) -> bytes:
    key = KEY_FOR[alg] if key is None else key
    if alg.startswith("HS"):
        h = hmac.HMAC(key, HASHES[alg[2:]])
        h.update(data)
        return h.finalize()
    if alg.startswith("RS"):
        return key.sign(data, padding.PKCS1v15(), HASHES[alg[2:]])
    if alg.startswith("PS"):
        hash_alg = HASHES[alg[2:]]
        salt = hash_alg.digest_size if pss_salt is None else pss_salt
        return key.sign(data, padding.PSS(mgf=padding.MGF1(hash_alg), salt_length=salt), hash_alg)
    if alg in EC_SIZE:
        return ecdsa_raw(key, data, HASHES["256" if alg == "ES256K" else alg[2:]], EC_SIZE[alg])
    if alg in ("EdDSA", "Ed25519", "Ed448"):
        return key.sign(data)
    raise ValueError(alg)


def claims(**overrides):
    c = {"iss": ISS, "sub": "user-1", "aud": AUD, "iat": NOW - 60, "nbf": NOW - 60, "exp": NOW + 3600}
    for k, v in overrides.items():
        if v is DROP:
            c.pop(k, None)
        else:
            c[k] = v
    return c


DROP = object()


def header(alg, kid="default", **extra):
    h = {"alg": alg}
    if kid == "default":
        kid = KID_FOR.get(alg)
    if kid is not None:
        h["kid"] = kid
    h.update(extra)
    return h


def jws(hdr, payload, alg=None, key=None, signature=None, pss_salt=None) -> str:
    """A compact JWS; signs with `alg` (default: the header's alg) unless `signature` is given."""
    h = b64u(as_bytes(hdr))
    p = b64u(as_bytes(payload))
    signing_input = f"{h}.{p}".encode("ascii")
    if signature is None:
        if alg is None:
            alg = hdr["alg"] if isinstance(hdr, dict) else None
        signature = sign(alg, signing_input, key, pss_salt)
    return f"{h}.{p}.{b64u(signature)}"


# ---------------------------------------------------------------- cases

CASES = []


def case(name, token, *, jwks="public", valid=False, error=None, accept=None, policy=None, note=None):
    assert valid == (error is None), name
    assert all(c["name"] != name for c in CASES), f"duplicate case name {name}"
    entry = {"name": name, "token": token, "jwks": jwks, "expect_valid": valid, "expect_error": error}
    if accept:
        entry["accept_errors"] = sorted(set(accept) | {error})
    if policy:
        entry["policy"] = policy
    if note:
        entry["note"] = note
    CASES.append(entry)


def jwks_for(alg):
    return "hmac" if alg.startswith("HS") else "public"


ALL_ALGS = ["HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
            "ES256", "ES384", "ES512", "ES256K", "EdDSA", "Ed25519", "Ed448"]

# --- positive controls: every algorithm must verify (zero false rejects).
for alg in ALL_ALGS:
    case(f"valid_{alg}", jws(header(alg, typ="JWT"), claims()), jwks=jwks_for(alg), valid=True)
case("valid_EdDSA_ed448_key", jws(header("EdDSA", kid="ed448"), claims(), key=ed448_key), valid=True,
     note="EdDSA is polymorphic: the Ed448 key decides the curve (RFC 8037)")
case("valid_HS256_32_byte_key_with_alg", jws(header("HS256", kid="hmac-256"), claims(), key=hmac256_key), jwks="hmac", valid=True)
case("valid_HS512_no_kid_single_fitting_key", jws(header("HS512", kid=None), claims()), jwks="hmac", valid=True,
     note="hmac-256 only does HS256, so hmac-1 is the one key fitting HS512")
case("valid_RS256_no_kid_single_fitting_key", jws(header("RS256", kid=None), claims()), valid=True,
     note="rsa-ps256 is pinned to PS256, so rsa-1 is the one key fitting RS256")
case("valid_ES256_no_kid", jws(header("ES256", kid=None), claims()), valid=True)
case("valid_PS256_pinned_key", jws(header("PS256", kid="rsa-ps256"), claims(), key=rsa_ps_key), valid=True)
case("valid_no_typ_no_policy", jws({"alg": "RS256", "kid": "rsa-1"}, claims()), valid=True)
case("valid_unknown_header_params_ignored",
     jws(header("RS256", cty="JWT", **{"x-custom": {"a": [1, 2]}}), claims()), valid=True,
     note="unknown header parameters without crit are ignored (RFC 7515 4.1)")
case("valid_jku_header_ignored_when_signed_by_trusted_key",
     jws(header("RS256", jku="https://attacker.example/jwks.json"), claims()), valid=True,
     note="jku is never fetched; the trusted key verifies, so the token is valid")
case("valid_aud_array", jws(header("ES256"), claims(aud=["other", AUD])), valid=True)
case("valid_no_nbf_no_iat", jws(header("ES256"), claims(nbf=DROP, iat=DROP)), valid=True)
# A fraction is read; against the whole-second `now` it rounds toward refusal (exp counts from its floor).
fractional_exp = jws(header("ES256"), claims(exp=NOW + 0.5))
case("valid_fractional_exp", fractional_exp, valid=True, policy={"leeway": 0, "now": NOW - 1})
case("fractional_exp_in_the_current_second", fractional_exp, error="expired", policy={"leeway": 0},
     note="exp NOW+0.5 at the whole-second now NOW: the real time may be past it, so a fraction rounds toward refusal")
case("valid_exponent_exp", jws(header("ES256"), b'{"iss":"%s","aud":"%s","exp":1.7000036e9}' % (ISS.encode(), AUD.encode())),
     valid=True)
case("valid_whitespace_around_json",
     jws(b' \n\t{ "alg" : "ES256" , "kid" : "ec-p256" }\r\n ',
         b'\n{ "iss": "%s", "aud": "%s", "exp": %d }\n ' % (ISS.encode(), AUD.encode(), NOW + 3600), alg="ES256"),
     valid=True, note="insignificant JSON whitespace is allowed everywhere RFC 8259 allows it")
case("valid_unicode_claims", jws(header("ES256"), claims(name="Zoë 🤖 名前", sub="ü")), valid=True)
case("valid_escaped_unicode_claims",
     jws(header("ES256"), b'{"iss":"%s","aud":"%s","exp":%d,"name":"\\ud83e\\udd16 \\u00fc \\u0000 \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t"}'
         % (ISS.encode(), AUD.encode(), NOW + 3600)), valid=True)

# ECDSA DER conversion edge cases: r or s with a leading zero byte or with the top bit set.
def ecdsa_with(alg, predicate, name, note):
    for _ in range(100000):
        token = jws(header(alg), claims(jti=b64u(os.urandom(6))))
        sig = base64.urlsafe_b64decode(token.split(".")[2] + "==")
        if predicate(sig, EC_SIZE[alg]):
            case(name, token, valid=True, note=note)
            return
    raise RuntimeError(name)


ecdsa_with("ES256", lambda s, n: s[0] == 0, "valid_ES256_r_leading_zero_byte", "r < 2^248: minimal DER drops the zero byte")
ecdsa_with("ES256", lambda s, n: s[n] == 0, "valid_ES256_s_leading_zero_byte", "s < 2^248")
ecdsa_with("ES256", lambda s, n: s[0] >= 0x80 and s[n] >= 0x80, "valid_ES256_r_s_high_bit", "DER needs a 0x00 pad on both")
ecdsa_with("ES384", lambda s, n: s[0] >= 0x80, "valid_ES384_r_high_bit", "DER pad")
ecdsa_with("ES512", lambda s, n: s[0] == 0 and s[1] < 0x80, "valid_ES512_r_short", "P-521 r with a zero first byte")
ecdsa_with("ES512", lambda s, n: s[0] == 1 and s[n] == 1, "valid_ES512_r_s_66_bytes", "P-521 halves using all 66 bytes")

# --- alg none, every spelling, with and without a signature.
for spelling in ["none", "None", "NONE", "nOnE"]:
    body = claims()
    h = b64u(compact({"alg": spelling}))
    p = b64u(compact(body))
    case(f"alg_{spelling}_empty_signature", f"{h}.{p}.", error="unsupported_alg")
    case(f"alg_{spelling}_with_signature", jws({"alg": spelling}, body, alg="HS256"), jwks="hmac", error="unsupported_alg")
    case(f"alg_{spelling}_trusted_kid", f"{b64u(compact({'alg': spelling, 'kid': 'rsa-1'}))}.{p}.", error="unsupported_alg")
none_escaped_header = b64u(b'{"alg":"n\\u006fne"}')
case("alg_none_escaped", none_escaped_header + "." + b64u(compact(claims())) + ".", error="unsupported_alg")
case("alg_none_no_signature_segment", f"{b64u(compact({'alg': 'none'}))}.{b64u(compact(claims()))}", error="malformed",
     note="two segments: the segment count is checked first")
case("alg_empty_string", jws({"alg": ""}, claims(), alg="HS256"), jwks="hmac", error="unsupported_alg")
case("alg_missing", jws({"kid": "hmac-1"}, claims(), alg="HS256"), jwks="hmac", error="malformed")
case("alg_null", jws({"alg": None, "kid": "hmac-1"}, claims(), alg="HS256"), jwks="hmac", error="malformed")
case("alg_number", jws({"alg": 256, "kid": "hmac-1"}, claims(), alg="HS256"), jwks="hmac", error="malformed")
case("alg_array", jws({"alg": ["HS256"], "kid": "hmac-1"}, claims(), alg="HS256"), jwks="hmac", error="malformed")

# --- unsupported / mismatched algorithms.
for label, bad in [("HS1", "HS1"), ("RS1", "RS1"), ("ES1", "ES1"), ("RSA_OAEP", "RSA-OAEP"), ("A128KW", "A128KW"),
                   ("dir", "dir"), ("lowercase_hs256", "hs256"), ("mixed_case_Hs256", "Hs256"),
                   ("trailing_space", "HS256 "), ("leading_space", " HS256"), ("HS_dash_256", "HS-256"),
                   ("ES256K1", "ES256K1"), ("PS256X", "PS256X"), ("RS256_with_nbsp", "RS256\u00a0")]:
    case(f"alg_unsupported_{label}", jws({"alg": bad, "kid": "hmac-1"}, claims(), alg="HS256"), jwks="hmac", error="unsupported_alg")
case("alg_HS256_trailing_nul", jws(b'{"alg":"HS256\\u0000","kid":"hmac-1"}', claims(), alg="HS256"), jwks="hmac",
     error="unsupported_alg", note="\"HS256\\u0000\" is not the name HS256 (a parser differential otherwise)")
case("alg_ES256_trailing_nul", jws(b'{"alg":"ES256\\u0000","kid":"ec-p256"}', claims(), alg="ES256"),
     error="unsupported_alg")
case("alg_nine_chars", jws({"alg": "HS256HS25", "kid": "hmac-1"}, claims(), alg="HS256"), jwks="hmac", error="unsupported_alg")
case("alg_escaped_HS256", jws(b'{"alg":"HS\\u0032\\u0035\\u0036","kid":"hmac-1"}', claims(), alg="HS256"), jwks="hmac",
     valid=True, note="escapes are resolved before comparison: this IS HS256")
case("ES256_with_P384_key", jws(header("ES256", kid="ec-p384"), claims(), key=p384, alg="ES384"), error="key_alg_mismatch")
case("ES256_header_signed_by_P384_no_kid", jws(header("ES256", kid=None), claims(), key=p384, alg="ES384"),
     error="bad_signature", accept=["key_alg_mismatch", "unknown_kid"],
     note="no kid: the P-256 key is the only ES256 key; the 96-byte signature cannot verify")
case("ES384_with_P256_key", jws(header("ES384", kid="ec-p256"), claims(), key=p384), error="key_alg_mismatch")
case("ES512_with_P256_key", jws(header("ES512", kid="ec-p256"), claims(), key=p521), error="key_alg_mismatch")
case("ES256K_with_P256_key", jws(header("ES256K", kid="ec-p256"), claims(), key=k256), error="key_alg_mismatch")
case("ES256_with_secp256k1_key", jws(header("ES256", kid="ec-k256"), claims(), key=k256, alg="ES256K"), error="key_alg_mismatch")
case("RS256_with_EC_key", jws(header("RS256", kid="ec-p256"), claims()), error="key_alg_mismatch")
case("EdDSA_with_RSA_key", jws(header("EdDSA", kid="rsa-1"), claims()), error="key_alg_mismatch")
case("Ed448_with_Ed25519_key", jws(header("Ed448", kid="ed25519"), claims(), key=ed448_key), error="key_alg_mismatch")
case("Ed25519_with_Ed448_key", jws(header("Ed25519", kid="ed448"), claims(), key=ed_key), error="key_alg_mismatch")
case("RS256_with_PS256_pinned_key", jws(header("RS256", kid="rsa-ps256"), claims(), key=rsa_ps_key), error="key_alg_mismatch")
case("HS384_with_HS256_pinned_key", jws(header("HS384", kid="hmac-256"), claims(), key=hmac256_key), jwks="hmac",
     error="key_alg_mismatch")
case("PS256_no_kid_two_keys_fit", jws(header("PS256", kid=None), claims()), error="unknown_kid",
     note="rsa-1 and rsa-ps256 both do PS256: without kid the choice is ambiguous (RFC 8725 3.10)")
case("HS256_no_kid_two_keys_fit", jws(header("HS256", kid=None), claims()), jwks="hmac", error="unknown_kid")
case("RS256_token_against_hmac_set", jws(header("RS256"), claims()), jwks="hmac", error="unknown_kid")
case("HS256_token_against_public_set_no_kid", jws(header("HS256", kid=None), claims()), error="unknown_kid")

# --- alg not allowed by policy.
case("alg_not_allowed_ES256_policy_RS256", jws(header("ES256"), claims()), error="alg_not_allowed", policy={"algorithms": ["RS256"]})
case("alg_not_allowed_RS256_policy_PS256", jws(header("RS256"), claims()), error="alg_not_allowed", policy={"algorithms": ["PS256"]})
case("alg_not_allowed_HS256_policy_asymmetric", jws(header("HS256"), claims()), jwks="hmac", error="alg_not_allowed",
     policy={"algorithms": ["RS256", "ES256", "EdDSA"]})
case("alg_not_allowed_Ed25519_policy_EdDSA", jws(header("Ed25519"), claims()), error="alg_not_allowed", policy={"algorithms": ["EdDSA"]})
case("alg_allowed_by_policy", jws(header("ES256"), claims()), valid=True, policy={"algorithms": ["RS256", "ES256"]})

# --- HMAC keyed with the verifier's own public key (algorithm confusion).
for label, secret in [("pem", RSA_PUBLIC_PEM), ("pem_no_newline", RSA_PUBLIC_PEM.rstrip(b"\n")), ("der", RSA_PUBLIC_DER),
                      ("pkcs1_pem", RSA_PKCS1_PEM), ("jwk_json", compact(PUBLIC_JWKS["keys"][0])),
                      ("modulus", rsa_key.public_key().public_numbers().n.to_bytes(256, "big"))]:
    for alg in ["HS256", "HS512"]:
        case(f"{alg}_keyed_with_rsa_public_{label}_kid", jws(header(alg, kid="rsa-1"), claims(), key=secret), error="key_alg_mismatch")
    case(f"HS256_keyed_with_rsa_public_{label}_no_kid", jws(header("HS256", kid=None), claims(), key=secret), error="unknown_kid")
case("HS256_keyed_with_ec_public_pem_kid", jws(header("HS256", kid="ec-p256"), claims(), key=EC_PUBLIC_PEM), error="key_alg_mismatch")
case("HS256_keyed_with_ed25519_raw_kid", jws(header("HS256", kid="ed25519"), claims(), key=ED_PUBLIC_RAW), error="key_alg_mismatch")

# --- keys embedded in the header must never be used.
attacker_jwk = rsa_jwk(attacker_rsa, "attacker")
attacker_jwk_claiming_trusted = rsa_jwk(attacker_rsa, "rsa-1")
attacker_cert = self_signed_cert(attacker_rsa, "attacker")
attacker_x5c = [base64.b64encode(attacker_cert.public_bytes(serialization.Encoding.DER)).decode()]
case("jwk_header_attacker_key_no_kid", jws({"alg": "RS256", "jwk": attacker_jwk}, claims(), key=attacker_rsa),
     error="bad_signature", accept=["unknown_kid"])
case("jwk_header_attacker_key_trusted_kid", jws({"alg": "RS256", "kid": "rsa-1", "jwk": attacker_jwk_claiming_trusted}, claims(), key=attacker_rsa),
     error="bad_signature")
case("jwk_header_attacker_key_attacker_kid", jws({"alg": "RS256", "kid": "attacker", "jwk": attacker_jwk}, claims(), key=attacker_rsa),
     error="unknown_kid")
case("jwk_header_attacker_ec_key", jws({"alg": "ES256", "kid": "ec-p256", "jwk": ec_jwk(attacker_p256, "ec-p256", "P-256", 32)},
                                       claims(), key=attacker_p256), error="bad_signature")
case("jwk_header_symmetric_key", jws({"alg": "HS256", "kid": "hmac-1", "jwk": {"kty": "oct", "k": b64u(b"attacker-secret-" * 4)}},
                                     claims(), key=b"attacker-secret-" * 4), jwks="hmac", error="bad_signature")
for member in ["jku", "x5u"]:
    url = f"https://attacker.example/{member}"
    case(f"{member}_header_trusted_kid", jws({"alg": "RS256", "kid": "rsa-1", member: url}, claims(), key=attacker_rsa), error="bad_signature")
    case(f"{member}_header_attacker_kid", jws({"alg": "RS256", "kid": "attacker", member: url}, claims(), key=attacker_rsa), error="unknown_kid")
    case(f"{member}_header_no_kid", jws({"alg": "RS256", member: url}, claims(), key=attacker_rsa), error="bad_signature", accept=["unknown_kid"])
case("x5c_header_attacker_cert_no_kid", jws({"alg": "RS256", "x5c": attacker_x5c}, claims(), key=attacker_rsa),
     error="bad_signature", accept=["unknown_kid"])
case("x5c_header_attacker_cert_trusted_kid", jws({"alg": "RS256", "kid": "rsa-1", "x5c": attacker_x5c}, claims(), key=attacker_rsa),
     error="bad_signature")
case("x5c_header_attacker_cert_attacker_kid", jws({"alg": "RS256", "kid": "attacker", "x5c": attacker_x5c}, claims(), key=attacker_rsa),
     error="unknown_kid")
case("all_embedded_key_headers", jws({"alg": "RS256", "kid": "rsa-1", "jwk": attacker_jwk_claiming_trusted, "jku": "https://a.example/",
                                      "x5u": "https://a.example/c", "x5c": attacker_x5c}, claims(), key=attacker_rsa),
     error="bad_signature")

# --- crit.
for label, crit, extra in [("unknown_extension", ["http://example.invalid/ext"], {"http://example.invalid/ext": True}),
                           ("b64", ["b64"], {"b64": False}),
                           ("empty_array", [], {}),
                           ("non_array_string", "exp", {}),
                           ("non_array_object", {"alg": True}, {}),
                           ("null", None, {}),
                           ("names_alg", ["alg"], {}),
                           ("names_exp_extension", ["exp"], {"exp": NOW + 3600})]:
    case(f"crit_{label}", jws(header("RS256", crit=crit, **extra), claims()), error="crit_unsupported")
case("crit_with_HS256", jws(header("HS256", crit=["x"], x=1), claims()), jwks="hmac", error="crit_unsupported")

# --- duplicate members.
def raw_hmac(hdr: bytes, body: bytes) -> str:
    return jws(hdr, body, alg="HS256")

cl = compact(claims())
case("header_dup_alg_hs_then_none", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","alg":"none"}', cl), jwks="hmac", error="malformed")
case("header_dup_alg_none_then_hs", raw_hmac(b'{"alg":"none","kid":"hmac-1","alg":"HS256"}', cl), jwks="hmac", error="malformed")
case("header_dup_alg_same_value", raw_hmac(b'{"alg":"HS256","alg":"HS256","kid":"hmac-1"}', cl), jwks="hmac", error="malformed")
case("header_dup_alg_escaped", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","\\u0061lg":"none"}', cl), jwks="hmac", error="malformed")
case("header_dup_alg_escaped_first", raw_hmac(b'{"\\u0061\\u006c\\u0067":"none","alg":"HS256","kid":"hmac-1"}', cl), jwks="hmac", error="malformed")
case("header_dup_kid", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","kid":"attacker"}', cl), jwks="hmac", error="malformed")
case("header_dup_kid_escaped", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","k\\u0069d":"hmac-1"}', cl), jwks="hmac", error="malformed")
case("header_dup_typ", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","typ":"JWT","typ":"at+jwt"}', cl), jwks="hmac", error="malformed")
case("header_dup_crit", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","crit":["x"],"crit":["x"],"x":1}', cl), jwks="hmac",
     error="malformed", accept=["crit_unsupported"])
case("header_dup_unknown_member", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","x":1,"x":2}', cl), jwks="hmac", error="malformed")
hdr = compact(header("HS256"))
exp_good, exp_bad = NOW + 3600, NOW - 3600
base = b'"iss":"%s","aud":"%s"' % (ISS.encode(), AUD.encode())
case("claims_dup_exp", raw_hmac(hdr, b'{%s,"exp":%d,"exp":%d}' % (base, exp_bad, exp_good)), jwks="hmac", error="malformed")
case("claims_dup_exp_escaped", raw_hmac(hdr, b'{%s,"exp":%d,"\\u0065xp":%d}' % (base, exp_bad, exp_good)), jwks="hmac", error="malformed")
case("claims_dup_aud", raw_hmac(hdr, b'{"iss":"%s","aud":"%s","exp":%d,"aud":"other"}' % (ISS.encode(), AUD.encode(), exp_good)),
     jwks="hmac", error="malformed")
case("claims_dup_aud_string_and_array", raw_hmac(hdr, b'{"iss":"%s","aud":"other","exp":%d,"aud":["%s"]}' % (ISS.encode(), exp_good, AUD.encode())),
     jwks="hmac", error="malformed")
case("claims_dup_iss", raw_hmac(hdr, b'{"iss":"https://evil.example","iss":"%s","aud":"%s","exp":%d}' % (ISS.encode(), AUD.encode(), exp_good)),
     jwks="hmac", error="malformed")
case("claims_dup_sub_escaped_solidus", raw_hmac(hdr, b'{%s,"exp":%d,"sub":"a","s\\u0075b":"b"}' % (base, exp_good)), jwks="hmac", error="malformed")
case("claims_dup_private_claim", raw_hmac(hdr, b'{%s,"exp":%d,"role":"user","role":"admin"}' % (base, exp_good)), jwks="hmac", error="malformed")
many = b",".join(b'"c%d":%d' % (i, i) for i in range(80))
case("claims_dup_after_64_members", raw_hmac(hdr, b'{%s,"exp":%d,%s,"c70":0}' % (base, exp_good, many)), jwks="hmac", error="malformed",
     note="duplicate detection must not stop at the inline name table")
case("claims_dup_first_and_80th_member", raw_hmac(hdr, b'{"c0":0,%s,"exp":%d,%s}' % (base, exp_good, many)), jwks="hmac", error="malformed")
case("claims_80_distinct_members", raw_hmac(hdr, b'{%s,"exp":%d,%s}' % (base, exp_good, many)), jwks="hmac", valid=True)

# --- ECDSA signature malleability and range checks.
def with_signature(token, sig: bytes) -> str:
    h, p, _ = token.split(".")
    return f"{h}.{p}.{b64u(sig)}"

for alg, crv in [("ES256", "P-256"), ("ES384", "P-384"), ("ES512", "P-521")]:
    size = EC_SIZE[alg]
    n = CURVE_ORDER[crv]
    good = jws(header(alg), claims())
    sig = base64.urlsafe_b64decode(good.split(".")[2] + "==")
    r, s = sig[:size], sig[size:]
    I = lambda v: v.to_bytes(size, "big")
    case(f"{alg}_signature_all_zero", with_signature(good, bytes(2 * size)), error="bad_signature")
    case(f"{alg}_r_zero", with_signature(good, I(0) + s), error="bad_signature")
    case(f"{alg}_s_zero", with_signature(good, r + I(0)), error="bad_signature")
    case(f"{alg}_r_equals_n", with_signature(good, I(n) + s), error="bad_signature")
    case(f"{alg}_s_equals_n", with_signature(good, r + I(n)), error="bad_signature")
    case(f"{alg}_r_and_s_equal_n", with_signature(good, I(n) + I(n)), error="bad_signature")
    case(f"{alg}_r_greater_than_n", with_signature(good, I(n + 1) + s), error="bad_signature")
    case(f"{alg}_s_greater_than_n", with_signature(good, r + I(n + 1)), error="bad_signature")
    case(f"{alg}_r_s_all_ones", with_signature(good, b"\xff" * (2 * size)), error="bad_signature")
    case(f"{alg}_r_s_swapped", with_signature(good, s + r), error="bad_signature")
    case(f"{alg}_signature_one_byte_short", with_signature(good, sig[:-1]), error="bad_signature", accept=["malformed"])
    case(f"{alg}_signature_one_byte_long", with_signature(good, sig + b"\x00"), error="bad_signature", accept=["malformed"])
    case(f"{alg}_signature_zero_padded_front", with_signature(good, b"\x00" + sig), error="bad_signature", accept=["malformed"])
    der = encode_dss_signature(int.from_bytes(r, "big"), int.from_bytes(s, "big"))
    case(f"{alg}_DER_signature", with_signature(good, der), error="bad_signature", accept=["malformed"],
         note="JOSE ECDSA signatures are raw r||s (RFC 7518 3.4); DER is refused")
    case(f"{alg}_empty_signature", with_signature(good, b""), error="bad_signature", accept=["malformed"])
# EdDSA non-canonical S and zero signature.
good = jws(header("EdDSA"), claims())
sig = base64.urlsafe_b64decode(good.split(".")[2] + "==")
S = int.from_bytes(sig[32:], "little")
if S + ED25519_L < 2**256:
    case("EdDSA_s_plus_L_non_canonical", with_signature(good, sig[:32] + (S + ED25519_L).to_bytes(32, "little")), error="bad_signature",
         note="S >= L is a malleated signature (RFC 8032 5.1.7)")
case("EdDSA_signature_all_zero", with_signature(good, bytes(64)), error="bad_signature")
case("EdDSA_signature_one_byte_short", with_signature(good, sig[:-1]), error="bad_signature", accept=["malformed"])
case("EdDSA_signature_flipped_bit", with_signature(good, sig[:10] + bytes([sig[10] ^ 1]) + sig[11:]), error="bad_signature")

# RSA.
for alg in ["RS256", "PS256"]:
    good = jws(header(alg), claims())
    sig = base64.urlsafe_b64decode(good.split(".")[2] + "==")
    case(f"{alg}_signature_one_byte_short", with_signature(good, sig[:-1]), error="bad_signature", accept=["malformed"])
    case(f"{alg}_signature_leading_byte_dropped", with_signature(good, sig[1:]), error="bad_signature", accept=["malformed"])
    case(f"{alg}_signature_zero_prefixed", with_signature(good, b"\x00" + sig), error="bad_signature", accept=["malformed"])
    case(f"{alg}_signature_all_zero", with_signature(good, bytes(256)), error="bad_signature")
    case(f"{alg}_signature_equals_modulus", with_signature(good, rsa_key.public_key().public_numbers().n.to_bytes(256, "big")),
         error="bad_signature")
    case(f"{alg}_signature_flipped_bit", with_signature(good, sig[:100] + bytes([sig[100] ^ 0x10]) + sig[101:]), error="bad_signature")
    case(f"{alg}_empty_signature", with_signature(good, b""), error="bad_signature", accept=["malformed"])
case("RS256_signed_as_PS256_header", jws(header("PS256"), claims(), alg="RS256"), error="bad_signature")
case("PS256_signed_as_RS256_header", jws(header("RS256"), claims(), alg="PS256"), error="bad_signature")
case("RS256_header_RS512_signature", jws(header("RS256"), claims(), alg="RS512"), error="bad_signature")
case("PS256_salt_length_0", jws(header("PS256"), claims(), pss_salt=0), error="bad_signature",
     note="RFC 7518 3.5: the salt is as long as the hash")
case("RS256_signed_by_attacker", jws(header("RS256"), claims(), key=attacker_rsa), error="bad_signature")
case("ES256_signed_by_attacker", jws(header("ES256"), claims(), key=attacker_p256), error="bad_signature")
case("payload_swapped_after_signing",
     ".".join([jws(header("RS256"), claims()).split(".")[0], b64u(compact(claims(sub="admin"))),
               jws(header("RS256"), claims()).split(".")[2]]), error="bad_signature")

# HMAC.
good = jws(header("HS256"), claims())
tag = base64.urlsafe_b64decode(good.split(".")[2] + "==")
case("HS256_tag_truncated_16", with_signature(good, tag[:16]), jwks="hmac", error="bad_signature")
case("HS256_tag_truncated_31", with_signature(good, tag[:31]), jwks="hmac", error="bad_signature")
case("HS256_tag_1_byte", with_signature(good, tag[:1]), jwks="hmac", error="bad_signature")
case("HS256_tag_extended", with_signature(good, tag + b"\x00"), jwks="hmac", error="bad_signature")
case("HS256_empty_tag", with_signature(good, b""), jwks="hmac", error="bad_signature")
case("HS256_tag_flipped_last_bit", with_signature(good, tag[:-1] + bytes([tag[-1] ^ 1])), jwks="hmac", error="bad_signature")
good512 = jws(header("HS512"), claims())
tag512 = base64.urlsafe_b64decode(good512.split(".")[2] + "==")
case("HS512_tag_truncated_to_32", with_signature(good512, tag512[:32]), jwks="hmac", error="bad_signature")
case("HS512_header_HS256_tag", jws(header("HS512"), claims(), alg="HS256"), jwks="hmac", error="bad_signature")
case("HS256_wrong_secret", jws(header("HS256"), claims(), key=b"\x00" * 64), jwks="hmac", error="bad_signature")
case("HS256_empty_secret", jws(header("HS256"), claims(), key=b""), jwks="hmac", error="bad_signature")

# --- non-canonical base64url.
def find_token(predicate, make):
    for i in range(100000):
        t = make(i)
        if predicate(t):
            return t
    raise RuntimeError("no token found")

tok = jws(header("HS256"), claims())
h, p, s = tok.split(".")
case("b64_header_padding", f"{h}{'=' * (-len(h) % 4) or '='}.{p}.{s}", jwks="hmac", error="malformed")
case("b64_payload_padding", f"{h}.{p}{'=' * (-len(p) % 4) or '='}.{s}", jwks="hmac", error="malformed")
case("b64_signature_padding", f"{h}.{p}.{s}=", jwks="hmac", error="malformed")
case("b64_signature_double_padding", f"{h}.{p}.{s}==", jwks="hmac", error="malformed")
case("b64_space_in_payload", f"{h}.{p[:10]} {p[10:]}.{s}", jwks="hmac", error="malformed")
case("b64_newline_in_header", f"{h[:8]}\n{h[8:]}.{p}.{s}", jwks="hmac", error="malformed")
case("b64_tab_in_signature", f"{h}.{p}.{s[:5]}\t{s[5:]}", jwks="hmac", error="malformed")
case("b64_trailing_newline", f"{tok}\n", jwks="hmac", error="malformed")
case("b64_leading_space", f" {tok}", jwks="hmac", error="malformed")
case("b64_trailing_crlf", f"{tok}\r\n", jwks="hmac", error="malformed")
case("b64_payload_4n_plus_1", f"{h}.{p}A.{s}" if len(p) % 4 == 0 else f"{h}.{p[:len(p) - len(p) % 4]}A.{s}",
     jwks="hmac", error="malformed")
case("b64_non_alphabet_char", f"{h}.{p[:-1]}*.{s}", jwks="hmac", error="malformed")
case("b64_percent_encoded", f"{h}.{p}.{s[:-2]}%3D", jwks="hmac", error="malformed")
# '+' and '/' instead of '-' and '_'.
tok_pm = find_token(lambda t: "-" in t.split(".")[1] and "_" in t.split(".")[1],
                    lambda i: jws(header("HS256"), claims(x="a" * (i % 3) + "???~~~" * (i // 3 % 5 + 1) + "a" * (i // 15 % 3))))
h2, p2, s2 = tok_pm.split(".")
case("b64_payload_plus_instead_of_dash", f"{h2}.{p2.replace('-', '+', 1)}.{s2}", jwks="hmac", error="malformed")
case("b64_payload_slash_instead_of_underscore", f"{h2}.{p2.replace('_', '/', 1)}.{s2}", jwks="hmac", error="malformed")
case("b64_payload_with_dash_and_underscore_is_valid", tok_pm, jwks="hmac", valid=True)
tok_sig = find_token(lambda t: "-" in t.split(".")[2] or "_" in t.split(".")[2], lambda i: jws(header("HS256"), claims(jti=str(i))))
h3, p3, s3 = tok_sig.split(".")
s3_std = s3.replace("-", "+").replace("_", "/")
case("b64_signature_standard_alphabet", f"{h3}.{p3}.{s3_std}", jwks="hmac", error="malformed")
tok_hdr = find_token(lambda t: "_" in t.split(".")[0] or "-" in t.split(".")[0],
                     lambda i: jws(header("HS256", x="a" * (i % 3) + "???~~~" * (i // 3 % 5 + 1) + "a" * (i // 15 % 3)), claims()))
h4, p4, s4 = tok_hdr.split(".")
case("b64_header_standard_alphabet", f"{h4.replace('-', '+').replace('_', '/')}.{p4}.{s4}", jwks="hmac", error="malformed")

# Non-zero unused trailing bits: same decoded bytes, different text; a lenient decoder accepts them.
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
def with_trailing_bits(segment: str) -> str:
    rem = len(segment) % 4
    assert rem in (2, 3), segment
    mask = 0x0F if rem == 2 else 0x03
    v = B64.index(segment[-1])
    assert v & mask == 0
    return segment[:-1] + B64[v | 1]

tok_h = find_token(lambda t: len(t.split(".")[0]) % 4 in (2, 3), lambda i: jws(header("HS256", x="a" * i), claims()))
th, tp, ts = tok_h.split(".")
case("b64_header_nonzero_trailing_bits", f"{with_trailing_bits(th)}.{tp}.{ts}", jwks="hmac", error="malformed")
tok_p = find_token(lambda t: len(t.split(".")[1]) % 4 in (2, 3), lambda i: jws(header("HS256"), claims(x="a" * i)))
th, tp, ts = tok_p.split(".")
case("b64_payload_nonzero_trailing_bits", f"{th}.{with_trailing_bits(tp)}.{ts}", jwks="hmac", error="malformed")
th, tp, ts = tok.split(".")
case("b64_HS256_signature_nonzero_trailing_bits", f"{th}.{tp}.{with_trailing_bits(ts)}", jwks="hmac", error="malformed")
for alg in ["RS256", "ES256", "EdDSA"]:
    th, tp, ts = jws(header(alg), claims()).split(".")
    case(f"b64_{alg}_signature_nonzero_trailing_bits", f"{th}.{tp}.{with_trailing_bits(ts)}", error="malformed")

# --- segments.
h, p, s = jws(header("HS256"), claims()).split(".")
case("segments_1", h, jwks="hmac", error="malformed")
case("segments_2", f"{h}.{p}", jwks="hmac", error="malformed")
case("segments_4", f"{h}.{p}.{s}.{s}", jwks="hmac", error="malformed")
case("segments_4_trailing_dot", f"{h}.{p}.{s}.", jwks="hmac", error="malformed")
case("segments_5_jwe_shape", f"{b64u(compact({'alg': 'dir', 'enc': 'A128GCM'}))}..{b64u(b'iv')}.{p}.{b64u(b'tag')}", jwks="hmac", error="malformed")
case("segments_empty_token", "", jwks="hmac", error="malformed")
case("segments_only_dots", "..", jwks="hmac", error="malformed")
case("segments_empty_header", f".{p}.{s}", jwks="hmac", error="malformed")
case("segments_empty_payload", jws(header("HS256"), b""), jwks="hmac", error="malformed",
     note="a JWT needs a JSON claims set; the empty payload is not one")
case("segments_leading_dot", f".{h}.{p}.{s}", jwks="hmac", error="malformed")

# --- size.
def sized_token(total: int) -> str:
    # base64 grows by 4/3: search the padding length that lands exactly on `total`.
    for extra in range(0, total):
        t = jws(header("HS256"), claims(pad="x" * extra))
        if len(t) == total:
            return t
        if len(t) > total:
            break
    # Adjust with a second member when 4/3 rounding skips the exact size.
    for extra in range(0, total):
        for k in range(0, 4):
            t = jws(header("HS256"), claims(pad="x" * extra, q="y" * k))
            if len(t) == total:
                return t
    raise RuntimeError(total)

exact = sized_token(MAX_TOKEN)
assert len(exact) == MAX_TOKEN
case("size_exactly_limit", exact, jwks="hmac", valid=True, note="16384 bytes: at the limit, still accepted")
over = sized_token(MAX_TOKEN + 1)
case("size_one_over_limit", over, jwks="hmac", error="too_large")
case("size_garbage_over_limit", "!" * (MAX_TOKEN + 1), jwks="hmac", error="too_large",
     note="decided on the length alone, before segments or base64url are looked at")
case("size_many_dots_over_limit", "." * (MAX_TOKEN + 1), jwks="hmac", error="too_large")
case("size_64k", "A" * 65536 + "." + "A" * 4 + "." + "A" * 4, jwks="hmac", error="too_large")
small = jws(header("HS256"), claims())
case("size_policy_limit_exact", small, jwks="hmac", valid=True, policy={"max_token_size": len(small)})
case("size_policy_limit_one_under", small, jwks="hmac", error="too_large", policy={"max_token_size": len(small) - 1})

# --- nesting depth: the claims object is level 1.
def nested(levels_below_top: int) -> bytes:
    return b'{"iss":"%s","aud":"%s","exp":%d,"x":%s1%s}' % (ISS.encode(), AUD.encode(), NOW + 3600, b"[" * levels_below_top, b"]" * levels_below_top)

case("nesting_depth_32_ok", raw_hmac(hdr, nested(31)), jwks="hmac", valid=True, note="object + 31 arrays = 32 levels")
case("nesting_depth_33", raw_hmac(hdr, nested(32)), jwks="hmac", error="malformed")
case("nesting_depth_100", raw_hmac(hdr, nested(99)), jwks="hmac", error="malformed")
case("nesting_depth_5000", raw_hmac(hdr, nested(5000)), jwks="hmac", error="malformed", note="no recursion past the limit")
obj_nest = b'{"iss":"%s","aud":"%s","exp":%d,"x":%s1%s}' % (ISS.encode(), AUD.encode(), NOW + 3600, b'{"a":' * 32, b"}" * 32)
case("nesting_depth_33_objects", raw_hmac(hdr, obj_nest), jwks="hmac", error="malformed")
case("nesting_header_depth_33", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","x":%s%s}' % (b"[" * 32, b"]" * 32), cl), jwks="hmac", error="malformed")
case("nesting_header_depth_32_ok", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","x":%s%s}' % (b"[" * 31, b"]" * 31), cl), jwks="hmac", valid=True)
case("nesting_unclosed_arrays", raw_hmac(hdr, b'{"exp":%d,"x":%s' % (NOW + 3600, b"[" * 20)), jwks="hmac", error="malformed")

# --- claim types.
for label, member in [("exp_string", b'"exp":"%d"' % (NOW + 3600)), ("exp_string_word", b'"exp":"never"'),
                      ("exp_null", b'"exp":null'), ("exp_bool", b'"exp":true'), ("exp_array", b'"exp":[%d]' % (NOW + 3600)),
                      ("exp_object", b'"exp":{"t":%d}' % (NOW + 3600)),
                      ("nbf_bool", b'"nbf":false'), ("nbf_string", b'"nbf":"%d"' % NOW),
                      ("iat_string", b'"iat":"%d"' % NOW), ("iat_null", b'"iat":null'),
                      ("aud_number", None), ("aud_array_with_number", None), ("aud_object", None), ("aud_null", None),
                      ("aud_array_nested", None), ("iss_array", None), ("iss_number", None), ("iss_null", None),
                      ("sub_number", b'"sub":42'), ("jti_object", b'"jti":{}'), ("nonce_number", b'"nonce":1'),
                      ("azp_array", b'"azp":["a"]')]:
    if label.startswith("aud_"):
        aud_values = {"aud_number": b"1", "aud_array_with_number": b'["%s",1]' % AUD.encode(), "aud_object": b'{"%s":true}' % AUD.encode(),
                      "aud_null": b"null", "aud_array_nested": b'[["%s"]]' % AUD.encode()}
        body = b'{"iss":"%s","exp":%d,"aud":%s}' % (ISS.encode(), NOW + 3600, aud_values[label])
    elif label.startswith("iss_"):
        iss_values = {"iss_array": b'["%s"]' % ISS.encode(), "iss_number": b"1", "iss_null": b"null"}
        body = b'{"aud":"%s","exp":%d,"iss":%s}' % (AUD.encode(), NOW + 3600, iss_values[label])
    elif label.startswith("exp_"):
        body = b'{%s,%s}' % (base, member)
    else:
        body = b'{%s,"exp":%d,%s}' % (base, NOW + 3600, member)
    case(f"claim_type_{label}", raw_hmac(hdr, body), jwks="hmac", error="bad_claim_type")
case("claim_type_checked_without_policy", raw_hmac(hdr, b'{"exp":%d,"iss":["x"],"aud":5}' % (NOW + 3600)), jwks="hmac",
     error="bad_claim_type", policy={"issuers": [], "audiences": []},
     note="types are enforced even when the policy does not look at the claim")

# --- time.
case("exp_equals_now_leeway_0", jws(header("ES256"), claims(exp=NOW)), error="expired", policy={"leeway": 0})
case("exp_now_plus_1_leeway_0", jws(header("ES256"), claims(exp=NOW + 1)), valid=True, policy={"leeway": 0})
case("exp_now_minus_60_leeway_60", jws(header("ES256"), claims(exp=NOW - 60)), error="expired")
case("exp_now_minus_59_leeway_60", jws(header("ES256"), claims(exp=NOW - 59)), valid=True)
case("exp_long_ago", jws(header("ES256"), claims(exp=1)), error="expired")
case("exp_zero", jws(header("ES256"), claims(exp=0)), error="expired")
case("exp_negative", jws(header("ES256"), claims(exp=-1)), error="expired")
case("exp_missing", jws(header("ES256"), claims(exp=DROP)), error="missing_claim")
case("nbf_in_future", jws(header("ES256"), claims(nbf=NOW + 3600)), error="not_yet_valid")
case("nbf_now_plus_61_leeway_60", jws(header("ES256"), claims(nbf=NOW + 61)), error="not_yet_valid")
case("nbf_now_plus_60_leeway_60", jws(header("ES256"), claims(nbf=NOW + 60)), valid=True)
case("nbf_now_plus_1_leeway_0", jws(header("ES256"), claims(nbf=NOW + 1)), error="not_yet_valid", policy={"leeway": 0})
case("nbf_equals_now_leeway_0", jws(header("ES256"), claims(nbf=NOW)), valid=True, policy={"leeway": 0})
case("nbf_huge_number", jws(header("ES256"), b'{"iss":"%s","aud":"%s","exp":%d,"nbf":1e400}' % (ISS.encode(), AUD.encode(), NOW + 3600)),
     error="not_yet_valid", accept=["bad_claim_type"], note="1e400 overflows a double: never valid yet, or refused")

# --- identity claims.
case("iss_wrong", jws(header("ES256"), claims(iss="https://evil.example")), error="bad_issuer")
case("iss_case_differs", jws(header("ES256"), claims(iss=ISS.upper())), error="bad_issuer")
case("iss_trailing_slash", jws(header("ES256"), claims(iss=ISS + "/")), error="bad_issuer")
case("iss_prefix_only", jws(header("ES256"), claims(iss=ISS[:-1])), error="bad_issuer")
case("iss_with_nul_suffix", jws(header("ES256"), b'{"iss":"%s\\u0000","aud":"%s","exp":%d}' % (ISS.encode(), AUD.encode(), NOW + 3600)),
     error="bad_issuer")
case("iss_missing", jws(header("ES256"), claims(iss=DROP)), error="missing_claim")
case("iss_escaped_solidus_equal", jws(header("ES256"), b'{"iss":"https:\\/\\/issuer.example","aud":"%s","exp":%d}' % (AUD.encode(), NOW + 3600)),
     valid=True, note="compared after unescaping: \"https:\\/\\/x\" is https://x")
case("iss_unicode_escapes_equal", jws(header("ES256"), b'{"iss":"\\u0068ttps://issuer.ex\\u0061mple","aud":"%s","exp":%d}' % (AUD.encode(), NOW + 3600)),
     valid=True)
case("aud_wrong", jws(header("ES256"), claims(aud="api://other")), error="bad_audience")
case("aud_array_wrong", jws(header("ES256"), claims(aud=["a", "b"])), error="bad_audience")
case("aud_empty_array", jws(header("ES256"), claims(aud=[])), error="bad_audience")
case("aud_missing", jws(header("ES256"), claims(aud=DROP)), error="missing_claim")
case("aud_escaped_equal", jws(header("ES256"), b'{"iss":"%s","aud":["x","api:\\/\\/attack-suite"],"exp":%d}' % (ISS.encode(), NOW + 3600)),
     valid=True)
case("kid_escaped_matches", jws(b'{"alg":"RS256","kid":"rsa\\u002d1"}', claims(), alg="RS256"), valid=True,
     note="the kid is looked up after unescaping")
case("kid_escaped_uppercase_hex", jws(b'{"alg":"HS256","kid":"hmac\\u002D256"}', claims(), alg="HS256", key=hmac256_key), jwks="hmac", valid=True)
case("kid_unknown", jws(header("RS256", kid="rsa-2"), claims()), error="unknown_kid")
case("kid_empty", jws(header("RS256", kid=""), claims()), error="unknown_kid")
case("kid_case_differs", jws(header("RS256", kid="RSA-1"), claims()), error="unknown_kid")
case("kid_with_nul_suffix", jws(b'{"alg":"RS256","kid":"rsa-1\\u0000"}', claims(), alg="RS256"), error="unknown_kid")
case("kid_number", jws({"alg": "RS256", "kid": 1}, claims()), error="malformed")
case("kid_null", jws({"alg": "RS256", "kid": None}, claims()), error="malformed")

# --- typ and nonce.
case("typ_mismatch", jws(header("ES256", typ="at+jwt"), claims()), error="bad_typ", policy={"typ": "JWT"})
case("typ_missing", jws(header("ES256"), claims()), error="bad_typ", policy={"typ": "JWT"})
case("typ_near_miss", jws(header("ES256", typ="JWTX"), claims()), error="bad_typ", policy={"typ": "JWT"})
case("typ_wrong_prefix", jws(header("ES256", typ="text/jwt"), claims()), error="bad_typ", policy={"typ": "JWT"})
case("typ_not_string", jws(header("ES256", typ=1), claims()), error="malformed", accept=["bad_typ"], policy={"typ": "JWT"})
case("typ_application_jwt_ok", jws(header("ES256", typ="application/JWT"), claims()), valid=True, policy={"typ": "jwt"})
case("typ_lowercase_ok", jws(header("ES256", typ="jwt"), claims()), valid=True, policy={"typ": "JWT"})
case("typ_at_jwt_ok", jws(header("ES256", typ="application/at+jwt"), claims()), valid=True, policy={"typ": "at+JWT"})
case("typ_escaped_ok", jws(b'{"alg":"ES256","kid":"ec-p256","typ":"application\\/jwt"}', claims(), alg="ES256"), valid=True,
     policy={"typ": "JWT"})
case("typ_jwt_rejected_for_at_jwt_policy", jws(header("ES256", typ="JWT"), claims()), error="bad_typ", policy={"typ": "at+jwt"},
     note="RFC 9068 access tokens: a plain JWT must not pass as an access token")
NONCE = "n-0S6_WzA2Mj"
case("nonce_mismatch", jws(header("ES256"), claims(nonce="other")), error="bad_nonce", policy={"nonce": NONCE})
case("nonce_case_differs", jws(header("ES256"), claims(nonce=NONCE.upper())), error="bad_nonce", policy={"nonce": NONCE})
case("nonce_prefix", jws(header("ES256"), claims(nonce=NONCE[:-1])), error="bad_nonce", policy={"nonce": NONCE})
case("nonce_missing", jws(header("ES256"), claims()), error="missing_claim", policy={"nonce": NONCE})
case("nonce_matches", jws(header("ES256"), claims(nonce=NONCE)), valid=True, policy={"nonce": NONCE})
case("nonce_escaped_matches", jws(header("ES256"), b'{"iss":"%s","aud":"%s","exp":%d,"nonce":"n\\u002d0S6_WzA2Mj"}'
                                  % (ISS.encode(), AUD.encode(), NOW + 3600)), valid=True, policy={"nonce": NONCE})

# --- text encoding in the decoded JSON.
def body_with(raw_value: bytes) -> bytes:
    return b'{%s,"exp":%d,"name":"%s"}' % (base, NOW + 3600, raw_value)

for label, raw in [("invalid_utf8_c3_28", b"\xc3\x28"), ("invalid_utf8_lone_continuation", b"\x80"),
                   ("invalid_utf8_overlong_slash", b"\xc0\xaf"), ("invalid_utf8_overlong_3byte", b"\xe0\x80\xaf"),
                   ("invalid_utf8_surrogate_d800", b"\xed\xa0\x80"), ("invalid_utf8_above_10ffff", b"\xf4\x90\x80\x80"),
                   ("invalid_utf8_f5", b"\xf5\x80\x80\x80"), ("invalid_utf8_ff", b"\xff"),
                   ("invalid_utf8_truncated_3byte", b"\xe2\x82"), ("invalid_utf8_truncated_4byte", b"\xf0\x9f\xa4"),
                   ("lone_high_surrogate_escape", b"\\ud800"), ("lone_low_surrogate_escape", b"\\udc00"),
                   ("high_surrogate_then_letter", b"\\ud83ex"), ("high_surrogate_then_non_low_escape", b"\\ud83e\\u0041"),
                   ("reversed_surrogate_pair", b"\\udd16\\ud83e"), ("high_surrogate_at_end", b"abc\\ud83e"),
                   ("control_char_raw_01", b"a\x01b"), ("control_char_raw_nul", b"a\x00b"), ("control_char_raw_newline", b"a\nb"),
                   ("control_char_raw_tab", b"a\tb"), ("control_char_raw_1f", b"\x1f"),
                   ("bad_escape_x", b"\\x41"), ("bad_escape_single_quote", b"\\'"), ("bad_escape_short_u", b"\\u12"),
                   ("bad_escape_non_hex_u", b"\\u12g4"), ("bad_escape_uppercase_U", b"\\U0041"), ("bad_escape_trailing_backslash", b"\\")]:
    case(f"claims_{label}", raw_hmac(hdr, body_with(raw)), jwks="hmac", error="malformed")
case("header_invalid_utf8", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","x":"\xc3\x28"}', cl), jwks="hmac", error="malformed")
case("header_invalid_utf8_in_name", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","\xff":1}', cl), jwks="hmac", error="malformed")
case("header_lone_surrogate", raw_hmac(b'{"alg":"HS256","kid":"hmac-1","x":"\\udfff"}', cl), jwks="hmac", error="malformed")
case("header_control_char", raw_hmac(b'{"alg":"HS256","kid":"hmac\x01-1"}', cl), jwks="hmac", error="malformed")
case("claims_valid_surrogate_pair", raw_hmac(hdr, body_with(b"\\ud83e\\udd16")), jwks="hmac", valid=True)
case("claims_valid_del_char", raw_hmac(hdr, body_with(b"a\x7fb")), jwks="hmac", valid=True, note="U+007F is not a JSON control character")
case("claims_valid_max_scalar", raw_hmac(hdr, body_with(b"\xf4\x8f\xbf\xbf\\udbff\\udfff")), jwks="hmac", valid=True)

# --- JSON grammar.
E = NOW + 3600
for label, body in [("trailing_garbage", b'{%s,"exp":%d}x' % (base, E)),
                    ("trailing_second_object", b'{%s,"exp":%d}{}' % (base, E)),
                    ("trailing_nul", b'{%s,"exp":%d}\x00' % (base, E)),
                    ("bom_prefix", b'\xef\xbb\xbf{%s,"exp":%d}' % (base, E)),
                    ("block_comment", b'{%s,/* c */"exp":%d}' % (base, E)),
                    ("line_comment", b'{%s,"exp":%d // c\n}' % (base, E)),
                    ("hash_comment", b'{%s,"exp":%d # c\n}' % (base, E)),
                    ("single_quotes", b"{'iss':'%s','aud':'%s','exp':%d}" % (ISS.encode(), AUD.encode(), E)),
                    ("single_quoted_value", b"{%s,\"exp\":%d,\"x\":'y'}" % (base, E)),
                    ("unquoted_key", b'{%s,exp:%d}' % (base, E)),
                    ("nan", b'{%s,"exp":NaN}' % base),
                    ("infinity", b'{%s,"exp":Infinity}' % base),
                    ("negative_infinity", b'{%s,"exp":-Infinity}' % base),
                    ("leading_zero", b'{%s,"exp":0%d}' % (base, E)),
                    ("leading_zeros_00", b'{%s,"exp":%d,"x":00}' % (base, E)),
                    ("negative_leading_zero", b'{%s,"exp":%d,"x":-01}' % (base, E)),
                    ("plus_sign", b'{%s,"exp":+%d}' % (base, E)),
                    ("plus_one", b'{%s,"exp":%d,"x":+1}' % (base, E)),
                    ("hex_number", b'{%s,"exp":0x6553F100}' % base),
                    ("fraction_without_digits", b'{%s,"exp":%d.}' % (base, E)),
                    ("fraction_without_int", b'{%s,"exp":%d,"x":.5}' % (base, E)),
                    ("exponent_without_digits", b'{%s,"exp":%de}' % (base, E)),
                    ("exponent_sign_only", b'{%s,"exp":%de+}' % (base, E)),
                    ("minus_only", b'{%s,"exp":%d,"x":-}' % (base, E)),
                    ("trailing_comma_object", b'{%s,"exp":%d,}' % (base, E)),
                    ("trailing_comma_array", b'{%s,"exp":%d,"x":[1,]}' % (base, E)),
                    ("missing_comma", b'{%s "exp":%d}' % (base, E)),
                    ("missing_colon", b'{%s,"exp" %d}' % (base, E)),
                    ("double_colon", b'{%s,"exp"::%d}' % (base, E)),
                    ("capital_true", b'{%s,"exp":%d,"x":True}' % (base, E)),
                    ("truncated_literal", b'{%s,"exp":%d,"x":tru}' % (base, E)),
                    ("literal_prefix", b'{%s,"exp":%d,"x":nullx}' % (base, E)),
                    ("unterminated_string", b'{%s,"exp":%d,"x":"abc}' % (base, E)),
                    ("unterminated_object", b'{%s,"exp":%d' % (base, E)),
                    ("array_top_level", b'[{%s,"exp":%d}]' % (base, E)),
                    ("string_top_level", b'"{\\"exp\\":%d}"' % E),
                    ("number_top_level", b'%d' % E),
                    ("null_top_level", b'null'),
                    ("vertical_tab_whitespace", b'{%s,\x0b"exp":%d}' % (base, E)),
                    ("form_feed_whitespace", b'{%s,\x0c"exp":%d}' % (base, E)),
                    ("nbsp_whitespace", b'{%s,\xc2\xa0"exp":%d}' % (base, E)),
                    ("utf16_encoded", ('{"exp":%d}' % E).encode("utf-16-le"))]:
    case(f"json_{label}", raw_hmac(hdr, body), jwks="hmac", error="malformed")
case("json_header_trailing_garbage", raw_hmac(b'{"alg":"HS256","kid":"hmac-1"}garbage', cl), jwks="hmac", error="malformed")
case("json_header_bom", raw_hmac(b'\xef\xbb\xbf{"alg":"HS256","kid":"hmac-1"}', cl), jwks="hmac", error="malformed")
case("json_header_single_quotes", raw_hmac(b"{'alg':'HS256','kid':'hmac-1'}", cl), jwks="hmac", error="malformed")
case("json_header_comment", raw_hmac(b'{"alg":"HS256",/**/"kid":"hmac-1"}', cl), jwks="hmac", error="malformed")
case("json_header_array", raw_hmac(b'["HS256"]', cl), jwks="hmac", error="malformed")
case("json_header_empty_object", raw_hmac(b'{}', cl), jwks="hmac", error="malformed")
case("json_header_not_json", raw_hmac(b'HS256', cl), jwks="hmac", error="malformed")

# ----------------------------------------------------------------------------- write

os.makedirs(OUT, exist_ok=True)
os.makedirs(CLI_OUT, exist_ok=True)

def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, ensure_ascii=True)
        f.write("\n")

write_json(os.path.join(OUT, "jwks.json"), PUBLIC_JWKS)
write_json(os.path.join(OUT, "hmac-jwks.json"), HMAC_JWKS)
write_json(os.path.join(OUT, "tokens.json"), CASES)
with open(os.path.join(OUT, "rsa-1.pub.pem"), "wb") as f:
    f.write(RSA_PUBLIC_PEM)

# CLI fixtures: key files in each accepted format, and broken ones.
with open(os.path.join(CLI_OUT, "rsa-1.pub.pem"), "wb") as f:
    f.write(RSA_PUBLIC_PEM)
rsa_cert = self_signed_cert(rsa_key, "rsa-1")
write_json(os.path.join(CLI_OUT, "pem-map.json"), {"rsa-1": rsa_cert.public_bytes(serialization.Encoding.PEM).decode()})
write_json(os.path.join(CLI_OUT, "single-jwk.json"), PUBLIC_JWKS["keys"][2])   # ec-p256 alone
write_json(os.path.join(CLI_OUT, "all-bad-keys.json"), {"keys": [
    rsa_jwk(weak_rsa, "weak-rsa-1024"),
    {"kty": "oct", "kid": "short-hmac", "k": b64u(b"too short")},
    {"kty": "EC", "kid": "off-curve", "crv": "P-256", "x": b64u(bytes(31) + b"\x01"), "y": b64u(bytes(31) + b"\x01")},
    {"kty": "RSA", "kid": "enc-key", "use": "enc", **{k: v for k, v in rsa_jwk(rsa_key, "x").items() if k in ("n", "e")}},
]})
write_json(os.path.join(CLI_OUT, "one-bad-key.json"), {"keys": [rsa_jwk(weak_rsa, "weak-rsa-1024"), PUBLIC_JWKS["keys"][0]]})
with open(os.path.join(CLI_OUT, "not-json.json"), "w") as f:
    f.write("this is not a key set\n")
write_json(os.path.join(CLI_OUT, "not-a-key-set.json"), {"hello": "world"})

valid = sum(1 for c in CASES if c["expect_valid"])
print(f"{len(CASES)} cases ({valid} valid, {len(CASES) - valid} invalid) -> {os.path.relpath(OUT, ROOT)}", file=sys.stderr)
