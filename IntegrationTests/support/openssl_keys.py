"""Real keys made by the openssl command (RS256, ES256 on P-256), their public JWKs, and compact JWS signed by it:
standard library only, for the harnesses that run without the venv's `cryptography` (apache/,
haproxy/haproxy_test.py). tokens.py is the same for the harnesses that have the venv; both sign what issuers sign,
these through a separate implementation (the openssl CLI)."""
import base64
import json
import os
import subprocess


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def der_ecdsa_to_raw(der, size=32):
    """openssl's DER ECDSA signature as JOSE's r || s."""
    assert der[0] == 0x30
    i = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    out = b""
    for _ in range(2):
        assert der[i] == 0x02
        n = der[i + 1]
        v = der[i + 2:i + 2 + n].lstrip(b"\0")
        out += v.rjust(size, b"\0")
        i += 2 + n
    return out


class Key:
    """A real key made by the openssl CLI; signs compact JWS."""

    def __init__(self, work, kid, alg="RS256"):
        self.kid, self.alg = kid, alg
        self.pem = os.path.join(work, kid + ".pem")
        if alg == "RS256":
            subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                            "-out", self.pem], check=True, capture_output=True)
            mod = subprocess.check_output(["openssl", "rsa", "-in", self.pem, "-noout", "-modulus"]).decode()
            n = b64(bytes.fromhex(mod.strip().split("=", 1)[1]))
            self.jwk = {"kty": "RSA", "kid": kid, "alg": alg, "use": "sig", "n": n, "e": "AQAB"}
        else:
            subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                            "-out", self.pem], check=True, capture_output=True)
            der = subprocess.check_output(["openssl", "pkey", "-in", self.pem, "-pubout", "-outform", "DER"])
            pt = der[-65:]
            assert pt[0] == 4
            self.jwk = {"kty": "EC", "kid": kid, "alg": alg, "use": "sig", "crv": "P-256",
                        "x": b64(pt[1:33]), "y": b64(pt[33:])}

    @property
    def jwks(self):
        """A key set of this key alone, as JSON text."""
        return json.dumps({"keys": [self.jwk]})

    def token(self, claims, kid=None):
        signing = b64(json.dumps({"alg": self.alg, "typ": "JWT", "kid": kid or self.kid}).encode()) + "." + \
            b64(json.dumps(claims).encode())
        sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", self.pem], input=signing.encode(),
                             check=True, capture_output=True).stdout
        if self.alg == "ES256":
            sig = der_ecdsa_to_raw(sig)
        return signing + "." + b64(sig)
