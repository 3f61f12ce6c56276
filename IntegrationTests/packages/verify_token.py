"""python3 verify_token.py JWKS TOKEN TAMPERED ISSUER AUDIENCE NOW: the installed binding (python3-jwtk) from the
system's dist-packages, loading libjwtk.so.0 from libjwtk0 by its SONAME (no JWTK_LIBRARY). Exits 0 when the token
verifies, the tampered one does not, and the module and library came from the packages' places."""
import os
import sys

assert "JWTK_LIBRARY" not in os.environ, "the test must use the binding's default"
import jwtk  # noqa: E402

jwks, token, tampered, iss, aud, now = sys.argv[1:]
assert jwtk.__file__ == "/usr/lib/python3/dist-packages/jwtk.py", jwtk.__file__
ks = jwtk.KeyStore()
ks.load_jwks(open(jwks, "rb").read())
v = jwtk.Verifier({"issuers": [iss], "audiences": [aud]}, ks)
ctx = jwtk.Context()
good = v.verify(ctx, open(token).read().strip(), now=int(now))
bad = v.verify(ctx, open(tampered).read().strip(), now=int(now))
print(f"libjwtk {jwtk.version()}: token {good.name}, tampered {bad.name}")
sys.exit(0 if good.ok and not bad.ok else 1)
