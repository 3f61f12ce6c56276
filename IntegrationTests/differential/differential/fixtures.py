"""Saved cases (fixtures/*.json): a token, the public key set and the policy,
replayed on every run next to the generated cases. A fixture records a finding
(see its "finding" text); while jwt-kernel still behaves that way the run
counts it as failed, which is the point: it stays visible until fixed."""
import base64
import glob
import json
import os

from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

from .keys import EC_CURVES, TestKey
from .policies import Policy


def _b64(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def _public_from_jwk(jwk: dict):
    kty = jwk["kty"]
    if kty == "oct":
        return _b64(jwk["k"])
    if kty == "RSA":
        return rsa.RSAPublicNumbers(int.from_bytes(_b64(jwk["e"]), "big"), int.from_bytes(_b64(jwk["n"]), "big")).public_key()
    if kty == "EC":
        curve = EC_CURVES[jwk["crv"]][0]()
        return ec.EllipticCurvePublicNumbers(int.from_bytes(_b64(jwk["x"]), "big"), int.from_bytes(_b64(jwk["y"]), "big"), curve).public_key()
    cls = ed25519.Ed25519PublicKey if jwk["crv"] == "Ed25519" else ed448.Ed448PublicKey
    return cls.from_public_bytes(_b64(jwk["x"]))


class PublicTestKey(TestKey):
    """A key known only by its public JWK (fixtures carry no private keys)."""

    @property
    def public(self):
        return _public_from_jwk(self.jwk)


def _key(jwk: dict) -> TestKey:
    spec = jwk.get("crv") or jwk["kty"]
    return PublicTestKey(f"{spec}/{jwk.get('alg', '-')}", jwk["kty"], None, jwk.get("kid"), jwk.get("alg"),
                         jwk.get("crv"), dict(jwk))


def load(directory: str) -> list[tuple[dict, Policy]]:
    out = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        keys = [_key(k) for k in doc["jwks"]["keys"]]
        p = doc["policy"]
        policy = Policy(f"fixture:{os.path.basename(path)}", keys, keys[0], p.get("iss", []), p.get("aud", []),
                        p["leeway"], p["now"])
        out.append((doc, policy))
    return out


def save(path: str, name: str, finding: str, token: str, policy: Policy, verdicts: dict) -> None:
    doc = {
        "name": name, "finding": finding, "token": token,
        "jwks": {"keys": [k.jwk for k in policy.keys]},
        "policy": {"iss": policy.issuers, "aud": policy.audiences, "leeway": policy.leeway, "now": policy.now},
        "verdicts_when_recorded": verdicts,
        "jwtk_command": "jwtk " + " ".join(policy.jwtk_args("jwks.json")),
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
