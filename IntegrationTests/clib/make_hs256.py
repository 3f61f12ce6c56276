"""Writes an HS256 JWKS and a token signed with it (for the LuaJIT smoke test): make_hs256.py JWKS TOKEN."""
import base64, hashlib, hmac, json, sys

def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

secret = b"0123456789abcdef0123456789abcdef"
header = {"alg": "HS256", "kid": "h1"}
claims = {"iss": "https://issuer.example", "sub": "user-1", "aud": "api", "exp": 1700003600}
signing = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
signature = b64(hmac.new(secret, signing.encode(), hashlib.sha256).digest())
open(sys.argv[1], "w").write(json.dumps({"keys": [{"kty": "oct", "kid": "h1", "alg": "HS256", "k": b64(secret)}]}))
open(sys.argv[2], "w").write(signing + "." + signature)
