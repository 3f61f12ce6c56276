"""Generated the test keys and tokens in this folder ONCE (pyca/cryptography 48.0.0).

TEST-ONLY key material: never trust these keys anywhere. Re-running makes new random keys
(and every token changes), so the committed JSON files are the fixtures, this script is provenance.
Usage: python3 generate.py  (writes keys.json, private-jwks.json, tokens.json next to itself)
"""
import base64, datetime, hashlib, hmac, json, os
from cryptography import x509
from cryptography.x509.oid import NameOID
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

HERE = os.path.dirname(os.path.abspath(__file__))
def b64e(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
def be(n, size=None): return n.to_bytes(size or (n.bit_length() + 7) // 8, "big")

def rsa_jwk(key, kid, **extra):
    pn = key.public_key().public_numbers()
    return dict(kty="RSA", kid=kid, n=b64e(be(pn.n)), e=b64e(be(pn.e)), **extra)
def ec_jwk(key, kid, **extra):
    pn = key.public_key().public_numbers()
    return dict(kty="EC", kid=kid, crv="P-256", x=b64e(be(pn.x, 32)), y=b64e(be(pn.y, 32)), **extra)
def ed_jwk(key, kid):
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return dict(kty="OKP", kid=kid, crv="Ed25519", x=b64e(raw))

rsa2048 = rsa.generate_private_key(public_exponent=65537, key_size=2048)
rsa1024 = rsa.generate_private_key(public_exponent=65537, key_size=1024)
p256a = ec.generate_private_key(ec.SECP256R1())
p256b = ec.generate_private_key(ec.SECP256R1())
edkey = ed25519.Ed25519PrivateKey.generate()
secret32 = os.urandom(32)
secret31 = os.urandom(31)

# Public JWKs (what the tests load).
jwk = {
    "rsa2048": rsa_jwk(rsa2048, "rsa-2048", alg="RS256", use="sig"),
    "rsa2048NoAlg": rsa_jwk(rsa2048, "rsa-2048-any"),
    "rsa1024": rsa_jwk(rsa1024, "rsa-1024", alg="RS256", use="sig"),
    "p256a": ec_jwk(p256a, "ec-a", use="sig"),
    "p256b": ec_jwk(p256b, "ec-b", use="sig"),
    "ed25519": ed_jwk(edkey, "ed-1"),
    "hmac32": dict(kty="oct", kid="hmac-32", k=b64e(secret32)),
    "hmac31": dict(kty="oct", kid="hmac-31", k=b64e(secret31)),
}
jwk["p256aUseEnc"] = dict(jwk["p256a"], kid="ec-a-enc", use="enc")
jwk["p256aKeyOpsSign"] = {k: v for k, v in dict(jwk["p256a"], kid="ec-a-sign-only", key_ops=["sign"]).items() if k != "use"}
jwk["p256aKeyOpsVerify"] = {k: v for k, v in dict(jwk["p256a"], kid="ec-a-verify", key_ops=["sign", "verify"]).items() if k != "use"}
# One byte of y changed: the point is no longer on P-256.
y = bytearray(base64.urlsafe_b64decode(jwk["p256a"]["y"] + "="))
y[31] ^= 0x01
off = dict(jwk["p256a"], kid="ec-off-curve", y=b64e(bytes(y)))
pn = p256a.public_key().public_numbers()
p = 2**256 - 2**224 + 2**192 + 2**96 - 1
b = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
yy = int.from_bytes(bytes(y), "big")
assert (yy * yy - (pn.x ** 3 - 3 * pn.x + b)) % p != 0, "still on the curve"
jwk["p256OffCurve"] = off

# PEM forms: the RSA key as a self-signed certificate, the EC key as SubjectPublicKeyInfo.
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "jwt-kernel test key rsa-2048")])
now = datetime.datetime(2023, 11, 14, tzinfo=datetime.timezone.utc)
cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(rsa2048.public_key())
        .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
        .sign(rsa2048, hashes.SHA256()))
pem = {
    "rsa2048Certificate": cert.public_bytes(serialization.Encoding.PEM).decode(),
    "p256aPublicKey": p256a.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode(),
    "rsa1024PublicKey": rsa1024.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode(),
}

claims = {"iss": "https://issuer.example", "aud": "jwt-kernel-tests", "sub": "user-1", "iat": 1700000000, "exp": 1700003600}
payload = b64e(json.dumps(claims, separators=(",", ":")).encode())

def sign(header, key):
    h = b64e(json.dumps(header, separators=(",", ":")).encode())
    si = (h + "." + payload).encode()
    alg = header["alg"]
    if alg == "RS256": sig = key.sign(si, padding.PKCS1v15(), hashes.SHA256())
    elif alg == "PS256": sig = key.sign(si, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())
    elif alg == "ES256":
        r, s = utils.decode_dss_signature(key.sign(si, ec.ECDSA(hashes.SHA256())))
        sig = be(r, 32) + be(s, 32)
    elif alg == "EdDSA": sig = key.sign(si)
    elif alg == "HS256": sig = hmac.new(key, si, hashlib.sha256).digest()
    else: raise ValueError(alg)
    return h + "." + payload + "." + b64e(sig)

tokens = {
    "rs256": sign({"alg": "RS256", "kid": "rsa-2048"}, rsa2048),
    "rs256AnyKid": sign({"alg": "RS256", "kid": "rsa-2048-any"}, rsa2048),
    "ps256KidRSA2048": sign({"alg": "PS256", "kid": "rsa-2048"}, rsa2048),          # key pins RS256
    "ps256AnyKid": sign({"alg": "PS256", "kid": "rsa-2048-any"}, rsa2048),           # key allows PS256
    "rs256KidECA": sign({"alg": "RS256", "kid": "ec-a"}, rsa2048),                   # kid names an EC key
    "rs256By1024": sign({"alg": "RS256", "kid": "rsa-1024"}, rsa1024),
    "es256A": sign({"alg": "ES256", "kid": "ec-a"}, p256a),
    "es256B": sign({"alg": "ES256", "kid": "ec-b"}, p256b),
    "es256ANoKid": sign({"alg": "ES256"}, p256a),
    "es256UnknownKid": sign({"alg": "ES256", "kid": "no-such-key"}, p256a),
    "es256KidEnc": sign({"alg": "ES256", "kid": "ec-a-enc"}, p256a),
    "es256KidOffCurve": sign({"alg": "ES256", "kid": "ec-off-curve"}, p256a),
    "eddsa": sign({"alg": "EdDSA", "kid": "ed-1"}, edkey),
    "hs256": sign({"alg": "HS256", "kid": "hmac-32"}, secret32),
    "hs256NoKid": sign({"alg": "HS256"}, secret32),
    "hs256Short": sign({"alg": "HS256", "kid": "hmac-31"}, secret31),
}
# The same tokens under the PEM map's kids.
tokens["rs256PemKid"] = sign({"alg": "RS256", "kid": "pem-rsa"}, rsa2048)
tokens["es256PemKid"] = sign({"alg": "ES256", "kid": "pem-ec"}, p256a)

def priv_pem(k): return k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()

note = "TEST-ONLY keys generated by generate.py with pyca/cryptography 48.0.0; never trust them."
with open(os.path.join(HERE, "keys.json"), "w") as f:
    json.dump({"source": note, "jwk": jwk, "pem": pem}, f, indent=1); f.write("\n")
with open(os.path.join(HERE, "tokens.json"), "w") as f:
    json.dump({"source": note + " Every token carries the claims below.", "claims": claims, "tokens": tokens}, f, indent=1); f.write("\n")
with open(os.path.join(HERE, "private-keys.json"), "w") as f:
    json.dump({"source": note + " Private halves, kept only so more tokens can be signed later.",
               "pkcs8": {"rsa2048": priv_pem(rsa2048), "rsa1024": priv_pem(rsa1024), "p256a": priv_pem(p256a),
                         "p256b": priv_pem(p256b), "ed25519": priv_pem(edkey)},
               "hmac": {"hmac32": b64e(secret32), "hmac31": b64e(secret31)}}, f, indent=1); f.write("\n")
