"""Writes fixtures/*.json, the minimal reproducers of the findings this
differential run made in jwt-kernel (python -m differential.finding_fixtures).
Deterministic: the same files every time. Each is replayed by every run."""
import json
import os
import random

from . import b64
from .draft import j
from .keys import KeyPool
from .policies import Policy
from .signer import sign

NOW = 1_750_000_000
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _token(header: str, claims: str, alg: str, key) -> str:
    signing_input = f"{b64.encode(header.encode())}.{b64.encode(claims.encode())}"
    return f"{signing_input}.{b64.encode(sign(alg, key, signing_input.encode(), random.Random(0)))}"


def _write(name: str, finding: str, status: str, token: str, key, oracles: dict) -> None:
    policy = Policy(name, [key], key, [], [], 0, NOW)
    doc = {
        "name": name, "finding": finding, "status": status, "token": token,
        "jwks": {"keys": [key.jwk]},
        "policy": {"iss": [], "aud": [], "leeway": 0, "now": NOW},
        "oracles_when_recorded": oracles,
        "replay": (f"jq .jwks {name}.json > /tmp/jwks.json && jq -r .token {name}.json | "
                   f"jwtk {' '.join(policy.jwtk_args('/tmp/jwks.json'))}"),
    }
    with open(os.path.join(HERE, "fixtures", f"{name}.json"), "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")


def main() -> None:
    pool = KeyPool(12)
    claims = '{"sub":"fixture","exp":' + str(NOW + 3600) + "}"

    hs = pool.key("oct-32", 0, "k1", "HS256")
    _write("F1-b64-false-ignored",
           "jwtk accepts a JWS whose protected header carries \"b64\": false without listing it in crit; it "
           "verifies base64url(header).base64url(payload) as if b64 were true. PyJWT and joserfc implement RFC 7797 "
           "and reject it.",
           "fixed on main in 11fd401 (b64 other than true is malformed); kept as a regression check, where all "
           "three now reject",
           _token('{"alg":"HS256","kid":"k1","b64":false}', claims, "HS256", hs),
           hs, {"pyjwt": "DecodeError: Payload segment must be empty when 'b64' is false.",
                "joserfc": "MissingCritHeaderError: Missing critical 'b64' value in header"})

    ed = pool.key("Ed25519", 0, "k1", "EdDSA")
    _write("F2a-ed25519-token-under-eddsa-key",
           "jwtk accepts alg \"Ed25519\" with a JWK whose \"alg\" is \"EdDSA\". PyJWT (algorithms = the key's alg) "
           "and joserfc (key filtered by alg) reject it.",
           "fixed on main in 5e15f5e (a declared EdDSA/Ed25519/Ed448 alg pins exactly that name); kept as a "
           "regression check, where all three now reject",
           _token(f'{{"alg":"Ed25519","kid":"k1"}}', claims, "Ed25519", ed),
           ed, {"pyjwt": "InvalidAlgorithmError: The specified alg value is not allowed",
                "joserfc": "UnsupportedAlgorithmError: Algorithm of 'Ed25519' is not allowed"})

    ed2 = pool.key("Ed25519", 0, "k1", "Ed25519")
    _write("F2b-eddsa-token-under-ed25519-key",
           "jwtk accepts alg \"EdDSA\" with a JWK whose \"alg\" is \"Ed25519\" (the reverse of F2a).",
           "fixed on main in 5e15f5e, as F2a; kept as a regression check",
           _token('{"alg":"EdDSA","kid":"k1"}', claims, "EdDSA", ed2),
           ed2, {"pyjwt": "DecodeError: It is required that you pass in a value for the \"algorithms\" argument "
                          "(PyJWT has no Ed25519 name, so the key's algorithms are none it knows)",
                 "joserfc": "UnsupportedAlgorithmError: Algorithm of 'EdDSA' is not allowed"})


if __name__ == "__main__":
    main()
