#!/usr/bin/env python3
"""Generates the benchmark keys and tokens once; the outputs are committed.

Re-running makes new random keys, so only do it when the fixture format changes.
Needs `cryptography` (PyPI).
"""
import base64, hashlib, json, os, pathlib
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

OUT = pathlib.Path(__file__).resolve().parent
ISS, AUD = "https://appleid.apple.com", "com.example.app"
IAT = 1767225600          # 2026-01-01T00:00:00Z
EXP = 4102444800          # 2100-01-01: jwt-kit checks exp against the real clock
NOW = IAT + 60            # the fixed "now" given to implementations that take a clock
CLAIMS_TARGET = 850


def b64u(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def claims_json() -> bytes:
    sub = "001234.5f3b9c1e2d4a4b6c8e0f1a2b3c4d5e6f.0815"
    claims = {
        "iss": ISS, "aud": AUD, "exp": EXP, "iat": IAT, "sub": sub,
        "c_hash": b64u(hashlib.sha256(b"code").digest()[:16]),
        "at_hash": b64u(hashlib.sha256(b"access").digest()[:16]),
        "email": "x7k2m9q4p1@privaterelay.appleid.com",
        "email_verified": True, "is_private_email": True,
        "auth_time": IAT, "nonce_supported": True, "real_user_status": 2,
        "nonce": hashlib.sha256(b"nonce").hexdigest(),
        "transfer_sub": "000987.8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d.1234",
        "org_id": "1f2e3d4c-5b6a-7980-a1b2-c3d4e5f60718",
        "amr": ["pwd", "hwk", "user"],
        "sid": "5a2f0c3e-8b7d-4e61-9c0a-2d4b6f8e1a3c",
    }
    raw = json.dumps(claims, separators=(",", ":"))
    # Pad with an opaque claim so every token carries ~850 bytes of claims JSON.
    pad = CLAIMS_TARGET - len(raw) - len(',"x_session_meta":""')
    claims["x_session_meta"] = b64u(hashlib.sha512(b"pad").digest() * 4)[:max(pad, 0)]
    return json.dumps(claims, separators=(",", ":")).encode()


def pem_public(key) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)


def main():
    payload = claims_json()
    rsa_rs = rsa.generate_private_key(65537, 2048)
    rsa_ps = rsa.generate_private_key(65537, 2048)
    p256 = ec.generate_private_key(ec.SECP256R1())
    ed = ed25519.Ed25519PrivateKey.generate()
    secret = os.urandom(32)

    def rsa_jwk(k, kid, alg):
        n = k.public_key().public_numbers()
        return {"kty": "RSA", "kid": kid, "use": "sig", "alg": alg,
                "n": b64u(n.n.to_bytes(256, "big")), "e": b64u(n.e.to_bytes(3, "big"))}

    pn = p256.public_key().public_numbers()
    edx = ed.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    jwks = {"keys": [
        rsa_jwk(rsa_rs, "rs256-1", "RS256"),
        rsa_jwk(rsa_ps, "ps256-1", "PS256"),
        {"kty": "EC", "kid": "es256-1", "use": "sig", "alg": "ES256", "crv": "P-256",
         "x": b64u(pn.x.to_bytes(32, "big")), "y": b64u(pn.y.to_bytes(32, "big"))},
        {"kty": "OKP", "kid": "eddsa-1", "use": "sig", "alg": "EdDSA", "crv": "Ed25519", "x": b64u(edx)},
    ]}
    (OUT / "jwks.json").write_text(json.dumps(jwks, indent=2) + "\n")
    (OUT / "hs256.key").write_bytes(secret)
    for name, k in [("rs256", rsa_rs), ("ps256", rsa_ps), ("es256", p256), ("eddsa", ed)]:
        (OUT / f"{name}.pub.pem").write_bytes(pem_public(k))

    def sign(alg, kid, fn):
        header = json.dumps({"kid": kid, "alg": alg}, separators=(",", ":")).encode()
        signing_input = f"{b64u(header)}.{b64u(payload)}".encode()
        return f"{signing_input.decode()}.{b64u(fn(signing_input))}\n"

    def es256(m):
        r, s = decode_dss_signature(p256.sign(m, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")

    def hs256(m):
        h = hmac.HMAC(secret, hashes.SHA256()); h.update(m); return h.finalize()

    pss = padding.PSS(padding.MGF1(hashes.SHA256()), 32)
    tokens = {
        "HS256": sign("HS256", "hs256-1", hs256),
        "RS256": sign("RS256", "rs256-1", lambda m: rsa_rs.sign(m, padding.PKCS1v15(), hashes.SHA256())),
        "PS256": sign("PS256", "ps256-1", lambda m: rsa_ps.sign(m, pss, hashes.SHA256())),
        "ES256": sign("ES256", "es256-1", es256),
        "EdDSA": sign("EdDSA", "eddsa-1", ed.sign),
    }
    for alg, tok in tokens.items():
        (OUT / f"{alg.lower()}.jwt").write_text(tok)
    (OUT / "meta.json").write_text(json.dumps(
        {"iss": ISS, "aud": AUD, "iat": IAT, "exp": EXP, "now": NOW,
         "claims_bytes": len(payload)}, indent=2) + "\n")
    print(f"claims JSON: {len(payload)} bytes; token lengths:",
          {a: len(t) - 1 for a, t in tokens.items()})


if __name__ == "__main__":
    main()
