"""Keys, key sets and tokens for the nginx integration test, made fresh on every run with `cryptography`.

    mint.py OUT_DIR LOAD_TOKENS

Writes into OUT_DIR:
  jwks.json            every public key (RS256, PS256, ES256, ES384, ES512, EdDSA)
  hmac.json            the HMAC secret (HS256) as a JWKS of its own, for tokens of HMAC_ISSUER
  jwks_rotated.json    the same set with the RS256 key "rs1" replaced by "rs2" (rotation)
  rs256.pub.pem, es256.pub.pem   SPKI PEM files for HAProxy's jwt_verify
  matrix.json          [{"name", "token", "status", "www", "note"}]: the verdict matrix (www: the exact
                       WWW-Authenticate header expected, or null for none)
  extra.json           tokens for the other checks (rotation, flood, header hygiene)
  load-{rs256,es256,hs256}.txt   LOAD_TOKENS distinct valid tokens each, one per line
  load-jwe-{dir,nested}.txt      the same, encrypted (dir + A256GCM claims; RS256 in RSA-OAEP-256 + A256GCM)
  jwe_{dir,rsa}.json             their decryption keys (private JWKs, use enc)
  load-cached.txt      100 valid RS256 tokens (repeated by the load script: the cache case)
  diff-{rs256,es256}.txt         tokens for the HAProxy comparison: "VERDICT TOKEN" lines, VERDICT 1 = the
                       signature is good; half of them are tampered (signature byte, payload or key)
"""

import json
import os
import random
import sys
import time

from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# The minting itself is shared (support/tokens.py); jwe.py, module_test.py, plus_configs.py, haproxy/ and
# forward-auth/ import these names from here.
from support.tokens import Key, b64, token, uint  # noqa: E402,F401

ISSUER = "https://issuer.test"
NEVER_LOADED_ISSUER = "https://never-loaded.test"
# jwtk refuses an HMAC secret inside a key set of public keys (mixed_key_types): the secret is its own
# key set, for its own issuer, from its own file.
HMAC_ISSUER = "https://hmac.test"
AUDIENCE = "api"
REALM = "api"
CHALLENGE = f'Bearer realm="{REALM}"'
INVALID = f'Bearer realm="{REALM}", error="invalid_token"'


def main():
    from jwe import DirKey, RsaOaepKey   # jwe.py imports this module's helpers

    out, load_tokens = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    rng = random.Random(11)
    now = int(time.time())

    def claims(**extra):
        c = {"iss": ISSUER, "sub": "user-1", "aud": AUDIENCE, "iat": now - 10, "exp": now + 7200}
        c.update(extra)
        return {k: v for k, v in c.items() if v is not None}

    rsa1 = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    keys = {
        "RS256": Key("rs1", "RS256", rsa1),
        "PS256": Key("ps1", "PS256", rsa.generate_private_key(public_exponent=65537, key_size=2048)),
        "ES256": Key("es1", "ES256", ec.generate_private_key(ec.SECP256R1())),
        "ES384": Key("es3", "ES384", ec.generate_private_key(ec.SECP384R1())),
        "ES512": Key("es5", "ES512", ec.generate_private_key(ec.SECP521R1())),
        "EdDSA": Key("ed1", "EdDSA", ed25519.Ed25519PrivateKey.generate()),
        "HS256": Key("hs1", "HS256", os.urandom(32)),
    }
    rs2 = Key("rs2", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))
    stranger = Key("rs1", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))
    jwks = {"keys": [k.jwk() for a, k in keys.items() if a != "HS256"]}
    rotated = {"keys": [rs2.jwk()] + [k.jwk() for a, k in keys.items() if a not in ("RS256", "HS256")]}
    with open(f"{out}/hmac.json", "w") as f:
        json.dump({"keys": [keys["HS256"].jwk()]}, f)
    with open(f"{out}/jwks.json", "w") as f:
        json.dump(jwks, f)
    with open(f"{out}/jwks_rotated.json", "w") as f:
        json.dump(rotated, f)
    for alg in ("RS256", "ES256"):
        with open(f"{out}/{alg.lower()}.pub.pem", "wb") as f:
            f.write(keys[alg].pem())

    rs = keys["RS256"]
    good = token(rs, claims())
    head, body, sig = good.split(".")
    flipped = sig[:10] + ("A" if sig[10] != "A" else "B") + sig[11:]
    def iss(alg):
        return HMAC_ISSUER if alg == "HS256" else ISSUER

    matrix = [{"name": f"valid {alg}", "token": token(k, claims(sub=f"user-{alg}", iss=iss(alg))), "status": 200,
               "www": None, "sub": f"user-{alg}", "iss": iss(alg)} for alg, k in keys.items()]
    # The RSA public key, as the HMAC secret: the classic algorithm-confusion forgery.
    confused = Key("rs1", "HS256", rs.pem())

    def bad(name, tok, status=401, www=INVALID):
        matrix.append({"name": name, "token": tok, "status": status, "www": www})

    bad("bad signature (one character flipped)", f"{head}.{body}.{flipped}")
    bad("signed by another key with the same kid", token(stranger, claims()))
    bad("payload swapped after signing", f"{head}.{b64(json.dumps(claims(sub='admin')).encode())}.{sig}")
    bad("not three segments", "abc.def")
    bad("not a JWT at all", "hello")
    bad("bad base64url in header (b64token characters, not base64url)", "a+b/." + body + "." + sig)
    # Not RFC 6750's b64token: no bearer credential at all, answered as a missing token (the gateway contract).
    bad("a character outside the bearer grammar", "!!!." + body + "." + sig, www='Bearer realm="api"')
    bad("header not JSON", b64(b"{not json") + "." + body + "." + sig)
    bad("alg none", b64(b'{"alg":"none","kid":"rs1"}') + "." + body + ".")
    bad("HS256 forged with the RSA public key (alg confusion)", token(confused, claims(),
        header={"alg": "HS256", "kid": "rs1"}))
    bad("unknown kid", token(rs, claims(), header={"alg": "RS256", "kid": "nope"}))
    bad("expired", token(rs, claims(exp=now - 3600, iat=now - 7200)))
    bad("not yet valid (nbf)", token(rs, claims(nbf=now + 3600)))
    bad("issued in the future (iat)", token(rs, claims(iat=now + 3600)))
    bad("issuer not accepted", token(rs, claims(iss="https://evil.test")))
    bad("sub missing (required)", token(rs, claims(sub=None)))
    bad("exp missing (required)", token(rs, claims(exp=None)))
    bad("exp of the wrong type", token(rs, claims(exp="tomorrow")))
    bad("crit header not understood", token(rs, claims(), header={"alg": "RS256", "kid": "rs1", "crit": ["x"],
                                                                   "x": 1}))
    bad("token above max_token_size (4096)", token(rs, claims(pad="x" * 5000)))
    bad("wrong audience", token(rs, claims(aud="other")), status=401)
    bad("issuer whose keys were never loaded", token(rs, claims(iss=NEVER_LOADED_ISSUER)), status=503, www=None)
    with open(f"{out}/matrix.json", "w") as f:
        json.dump(matrix, f, indent=1)

    extra = {
        "rs1": good,
        "rs2": token(rs2, claims(sub="user-rs2")),
        "crlf_sub": token(rs, claims(sub="a\r\nX-Injected: 1")),
        "flood": [token(rs, claims(), header={"alg": "RS256", "kid": f"flood-{i}"}) for i in range(300)],
        "payload_segment": body,
    }
    with open(f"{out}/extra.json", "w") as f:
        json.dump(extra, f)

    for alg in ("RS256", "ES256", "HS256"):
        with open(f"{out}/load-{alg.lower()}.txt", "w") as f:
            for i in range(load_tokens):
                f.write(token(keys[alg], claims(sub=f"load-{i}", jti=f"{alg}-{i}", iss=iss(alg))) + "\n")
    with open(f"{out}/load-cached.txt", "w") as f:
        for i in range(100):
            f.write(token(rs, claims(sub=f"cached-{i}")) + "\n")
    # The JWE rows (jwe.py): encrypted claims with dir + A256GCM, and RS256 tokens nested in RSA-OAEP-256 +
    # A256GCM; the recipient's keys in files of their own (the nested location also lists jwks.json).
    dir_key, oaep_key = DirKey("jwe-dir-1"), RsaOaepKey("jwe-rsa-1")
    with open(f"{out}/jwe_dir.json", "w") as f:
        json.dump({"keys": [dir_key.jwk()]}, f)
    with open(f"{out}/jwe_rsa.json", "w") as f:
        json.dump({"keys": [oaep_key.jwk()]}, f)
    with open(f"{out}/load-jwe-dir.txt", "w") as f:
        for i in range(load_tokens):
            c = claims(sub=f"load-{i}", jti=f"dir-{i}")
            f.write(dir_key.encrypt(json.dumps(c, separators=(",", ":")).encode()) + "\n")
    with open(f"{out}/load-jwe-nested.txt", "w") as f:
        for i in range(load_tokens):
            inner = token(rs, claims(sub=f"load-{i}", jti=f"nested-{i}"))
            f.write(oaep_key.encrypt(inner.encode(), cty="JWT") + "\n")

    # The HAProxy comparison: valid tokens and three kinds of bad signature, shuffled.
    for alg in ("RS256", "ES256"):
        k = keys[alg]
        other = Key(k.kid, alg, rsa.generate_private_key(public_exponent=65537, key_size=2048)
                    if alg == "RS256" else ec.generate_private_key(ec.SECP256R1()))
        lines = []
        for i in range(max(300, load_tokens // 10)):
            t = token(k, claims(sub=f"diff-{i}"))
            h, b, s = t.split(".")
            kind = i % 6
            if kind == 3:
                pos = rng.randrange(len(s) - 2)
                ch = "A" if s[pos] != "A" else "B"
                t, ok = f"{h}.{b}.{s[:pos]}{ch}{s[pos + 1:]}", 0
            elif kind == 4:
                t, ok = f"{h}.{b64(json.dumps(claims(sub='root')).encode())}.{s}", 0
            elif kind == 5:
                t, ok = token(other, claims(sub=f"diff-{i}")), 0
            else:
                ok = 1
            lines.append(f"{ok} {t}")
        rng.shuffle(lines)
        with open(f"{out}/diff-{alg.lower()}.txt", "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
