#!/usr/bin/env python3
"""The JWE cells' fixture (jwe.json) from the JWE test fixtures (Tests/JWTKernelTests/Fixtures/jwe/jwcrypto.json,
tokens made by jwcrypto): four nested tokens (dir, A256KW, RSA-OAEP-256, ECDH-ES P-256; all A256GCM inside, an
ES256 JWS inside that) with their keys in the forms raw OpenSSL needs for the floor (PEM, raw secrets). Needs
jwcrypto (PyPI). Outputs committed; re-run only when the cases change."""
import base64, json, pathlib
from jwcrypto import jwk

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parents[1] / "Tests/JWTKernelTests/Fixtures/jwe/jwcrypto.json"
CASES = [("dir", "dir-A256GCM"), ("A256KW", "kw-256"), ("RSA-OAEP-256", "rsa"), ("ECDH-ES", "ec-P-256")]

doc = json.loads(SRC.read_text())
keys = {k["kid"]: k for k in doc["decryption_keys"]["keys"]}
signer = jwk.JWK(**doc["verification_keys"]["keys"][0])
out = {"source": "Tests/JWTKernelTests/Fixtures/jwe/jwcrypto.json (jwcrypto 1.6.1)", "now": 1800000000,
       "iss": doc["claims"]["iss"], "aud": doc["claims"]["aud"],
       "verification_jwks": doc["verification_keys"], "decryption_jwks": {"keys": [keys[k] for _, k in CASES]},
       "signing_public_pem": signer.export_to_pem().decode(), "cases": []}
for alg, kid in CASES:
    token = next(c["token"] for c in doc["nested"] if c["alg"] == alg and c["enc"] == "A256GCM" and c["kid"] == kid)
    key = jwk.JWK(**keys[kid])
    material = {"secret_b64u": keys[kid]["k"]} if keys[kid]["kty"] == "oct" else \
        {"private_pem": key.export_to_pem(private_key=True, password=None).decode()}
    out["cases"].append(dict(name=f"{alg}+A256GCM", alg=alg, kid=kid, token=token, **material))
(HERE / "jwe.json").write_text(json.dumps(out, indent=1) + "\n")
