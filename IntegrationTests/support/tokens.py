"""Signing keys (real ones, made by `cryptography`), their public JWKs and compact JWS tokens, for every
harness that mints its own tokens (nginx/mint.py's corpus, envoy/, haproxy/, forward-auth/).

Compact JSON (no spaces) in the header and payload, as issuers write them.
"""

import base64
import json

from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def uint(n: int) -> str:
    return b64(n.to_bytes((n.bit_length() + 7) // 8, "big"))


class Key:
    """One signing key and its public JWK."""

    def __init__(self, kid, alg, private):
        self.kid, self.alg, self.private = kid, alg, private

    def sign(self, data: bytes) -> bytes:
        a, p = self.alg, self.private
        if a == "HS256":
            h = hmac.HMAC(p, hashes.SHA256())
            h.update(data)
            return h.finalize()
        if a == "RS256":
            return p.sign(data, padding.PKCS1v15(), hashes.SHA256())
        if a == "PS256":
            return p.sign(data, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())
        if a.startswith("ES"):
            bits = {"ES256": 256, "ES384": 384, "ES512": 521}[a]
            digest = {"ES256": hashes.SHA256(), "ES384": hashes.SHA384(), "ES512": hashes.SHA512()}[a]
            r, s = decode_dss_signature(p.sign(data, ec.ECDSA(digest)))
            size = (bits + 7) // 8
            return r.to_bytes(size, "big") + s.to_bytes(size, "big")
        if a == "EdDSA":
            return p.sign(data)
        raise ValueError(a)

    def jwk(self) -> dict:
        a, p = self.alg, self.private
        base = {"kid": self.kid, "alg": a, "use": "sig"}
        if a == "HS256":
            return {**base, "kty": "oct", "k": b64(p)}
        if a in ("RS256", "PS256"):
            n = p.public_key().public_numbers()
            return {**base, "kty": "RSA", "n": uint(n.n), "e": uint(n.e)}
        if a.startswith("ES"):
            n = p.public_key().public_numbers()
            crv, size = {"ES256": ("P-256", 32), "ES384": ("P-384", 48), "ES512": ("P-521", 66)}[a]
            return {**base, "kty": "EC", "crv": crv,
                    "x": b64(n.x.to_bytes(size, "big")), "y": b64(n.y.to_bytes(size, "big"))}
        raw = p.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {**base, "kty": "OKP", "crv": "Ed25519", "x": b64(raw)}

    def pem(self) -> bytes:
        return self.private.public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)


def token(key, claims, header=None, sign_with=None) -> str:
    h = {"alg": key.alg, "typ": "JWT", "kid": key.kid} if header is None else header
    signing = b64(json.dumps(h, separators=(",", ":")).encode()) + "." + \
        b64(json.dumps(claims, separators=(",", ":")).encode())
    return signing + "." + b64((sign_with or key).sign(signing.encode()))
