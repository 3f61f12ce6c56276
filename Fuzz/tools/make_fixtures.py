#!/usr/bin/env python3
"""Generates the fuzz fixtures: throwaway keys (test-only), the JWKS the harnesses
trust, Fuzz/Sources/FuzzSupport/Fixtures.swift and the seed corpora.

Run once by hand (needs pyca/cryptography); the outputs are committed, so the
fuzz build itself never runs Python. Re-running makes NEW keys and invalidates
every signed seed, so regenerate everything together:  python3 Fuzz/tools/make_fixtures.py
"""
import base64, hashlib, hmac, json, os, pathlib
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography import x509
from cryptography.x509.oid import NameOID
import datetime

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOW = 1_700_000_000  # FixedClock time every harness uses


def b64u(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def uint(n: int, length: int | None = None) -> bytes:
    length = length or (n.bit_length() + 7) // 8
    return n.to_bytes(length, "big")


hs_secret = os.urandom(32)
hs_any_secret = os.urandom(64)
rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ec_key = ec.generate_private_key(ec.SECP256R1())
ec384_key = ec.generate_private_key(ec.SECP384R1())
ec521_key = ec.generate_private_key(ec.SECP521R1())
ed_key = ed25519.Ed25519PrivateKey.generate()

rn = rsa_key.public_key().public_numbers()
en = ec_key.public_key().public_numbers()
en384 = ec384_key.public_key().public_numbers()
en521 = ec521_key.public_key().public_numbers()
ed_pub = ed_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

public_jwks = {"keys": [
    {"kty": "RSA", "kid": "rs", "use": "sig", "alg": "RS256", "n": b64u(uint(rn.n)), "e": b64u(uint(rn.e))},
    {"kty": "EC", "kid": "es", "use": "sig", "alg": "ES256", "crv": "P-256",
     "x": b64u(uint(en.x, 32)), "y": b64u(uint(en.y, 32))},
    {"kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": b64u(ed_pub)},
    {"kty": "EC", "kid": "es384", "alg": "ES384", "crv": "P-384",
     "x": b64u(uint(en384.x, 48)), "y": b64u(uint(en384.y, 48))},
    # P-521: 132-byte signatures take the long-form DER length branch of ECDSASignature.withDER.
    {"kty": "EC", "kid": "es512", "crv": "P-521", "x": b64u(uint(en521.x, 66)), "y": b64u(uint(en521.y, 66))},
]}
hmac_jwks = {"keys": [
    {"kty": "oct", "kid": "hs", "alg": "HS256", "k": b64u(hs_secret)},
    {"kty": "oct", "kid": "hs-any", "k": b64u(hs_any_secret)},
]}


def sign(alg: str, signing_input: bytes) -> bytes:
    if alg == "HS256":
        return hmac.new(hs_secret, signing_input, hashlib.sha256).digest()
    if alg == "HS512":
        return hmac.new(hs_any_secret, signing_input, hashlib.sha512).digest()
    if alg == "RS256":
        return rsa_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    if alg == "ES256":
        r, s = decode_dss_signature(ec_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        return uint(r, 32) + uint(s, 32)
    if alg == "ES384":
        r, s = decode_dss_signature(ec384_key.sign(signing_input, ec.ECDSA(hashes.SHA384())))
        return uint(r, 48) + uint(s, 48)
    if alg == "ES512":
        r, s = decode_dss_signature(ec521_key.sign(signing_input, ec.ECDSA(hashes.SHA512())))
        return uint(r, 66) + uint(s, 66)
    if alg in ("EdDSA", "Ed25519"):
        return ed_key.sign(signing_input)
    raise ValueError(alg)


def token(header: dict, claims: dict, alg: str | None = None) -> str:
    h = b64u(json.dumps(header, separators=(",", ":")).encode())
    p = b64u(json.dumps(claims, separators=(",", ":")).encode())
    si = f"{h}.{p}".encode()
    return f"{h}.{p}.{b64u(sign(alg or header['alg'], si))}"


base_claims = {"iss": "https://issuer.example", "sub": "user-1", "aud": "api", "iat": NOW - 1000,
               "nbf": NOW - 1000, "exp": NOW + 3600, "nonce": "n-0S6_WzA2Mj", "jti": "t1"}
tokens = {
    "hs256": token({"alg": "HS256", "typ": "JWT", "kid": "hs"}, base_claims),
    "hs256-nokid": token({"alg": "HS256", "typ": "JWT"}, dict(base_claims, aud=["api", "other"])),
    "hs512-any": token({"alg": "HS512", "kid": "hs-any"}, {"exp": NOW + 60, "sub": "\u00e9t\u00e9 \ud83d\ude00"}),
    "rs256": token({"alg": "RS256", "typ": "JWT", "kid": "rs"}, base_claims),
    "es256": token({"alg": "ES256", "typ": "at+jwt", "kid": "es"}, dict(base_claims, azp="client")),
    "eddsa": token({"alg": "EdDSA", "kid": "ed"}, base_claims),
    "eddsa-nokid": token({"alg": "EdDSA"}, dict(base_claims, aud=[])),
    "ed25519": token({"alg": "Ed25519", "kid": "ed"}, dict(base_claims, aud=["x", "api"])),
    "es384": token({"alg": "ES384", "kid": "es384"}, base_claims),
    "es512": token({"alg": "ES512", "kid": "es512", "typ": "JWT"}, base_claims),
    "expired": token({"alg": "HS256", "kid": "hs"}, dict(base_claims, exp=NOW - 3600)),
}
# A kid written with a JSON escape ("\u0065s" is "es"): built by hand so json.dumps does not normalise it.
h = b64u(b'{"alg":"ES256","kid":"\\u0065s","typ":"JWT"}')
p = b64u(json.dumps(base_claims, separators=(",", ":")).encode())
tokens["escaped-kid"] = f"{h}.{p}.{b64u(sign('ES256', f'{h}.{p}'.encode()))}"

ec_pem = ec_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()).decode()
ec384_pem = ec384_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode()
ec521_pem = ec521_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode()
ed_pem = ed_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()).decode()

# A self-signed certificate for the x5c / {kid: PEM} seeds of FuzzJWKS.
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fuzz")])
cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(ec_key.public_key())
        .serial_number(1).not_valid_before(datetime.datetime(2023, 1, 1))
        .not_valid_after(datetime.datetime(2033, 1, 1)).sign(ec_key, hashes.SHA256()))
cert_der = cert.public_bytes(serialization.Encoding.DER)
cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode()


def swift_raw(s: str) -> str:
    assert '"""#' not in s
    return '#"""\n' + s + '\n"""#'


out = ROOT / "Sources" / "FuzzSupport" / "Fixtures.swift"
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(f"""// Generated by Fuzz/tools/make_fixtures.py: throwaway test keys, never used outside the fuzzers.

public enum FuzzFixtures {{
    /// The time every harness verifies at (FixedClock).
    public static let now: Int64 = {NOW}

    /// RS256 ("rs"), ES256 ("es"), Ed25519 ("ed", no alg: EdDSA and Ed25519), ES384 ("es384")
    /// and P-521 ("es512", no alg) public keys.
    public static let publicJWKS = {swift_raw(json.dumps(public_jwks, indent=1))}

    /// HMAC secrets: "hs" (HS256 only) and "hs-any" (64 bytes, no alg: HS256/384/512).
    /// Kept in a separate set: JWKSet(json:) refuses secrets mixed with public keys.
    public static let hmacJWKS = {swift_raw(json.dumps(hmac_jwks, indent=1))}

    public static let hs256Secret: [UInt8] = {list(hs_secret)}

    public static let ecPrivateKeyPEM = {swift_raw(ec_pem.strip())}

    public static let ed25519PrivateKeyPEM = {swift_raw(ed_pem.strip())}

    public static let ec384PrivateKeyPEM = {swift_raw(ec384_pem.strip())}

    public static let ec521PrivateKeyPEM = {swift_raw(ec521_pem.strip())}

    /// Valid at `now` against the two key sets above (with the default ClaimsPolicy).
    public static let validTokens: [String] = [
{chr(10).join(f'        "{t}",' for k, t in tokens.items() if k not in ("expired", "hs256-nokid"))}
    ]

    public static let expiredToken = "{tokens['expired']}"

    /// No kid, and two HMAC keys fit HS256: refused as unknown_kid (RFC 8725 §3.10).
    public static let ambiguousToken = "{tokens['hs256-nokid']}"
}}
""")

corpus = ROOT / "corpus"
def seed(harness: str, name: str, data: bytes):
    d = corpus / harness
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)

for k, t in tokens.items():
    seed("FuzzVerify", f"raw-{k}", t.encode())
# Signed-mode seeds: selector byte (% 5: HS256, ES256, Ed25519, ES384, ES512), header JSON, 0x00,
# claims JSON (see FuzzVerify.swift).
signed = [
    (0, {"alg": "HS256", "kid": "hs", "typ": "JWT"}, base_claims),
    (0, {"alg": "HS256"}, {"exp": NOW + 10, "aud": ["a", "api"], "iss": "https://issuer.example"}),
    (1, {"alg": "ES256", "kid": "es"}, dict(base_claims, extra={"nested": [1, 2.5e3, None, True, "x"]})),
    (2, {"alg": "EdDSA", "kid": "ed", "typ": "application/JWT"}, base_claims),
    (2, {"alg": "Ed25519", "kid": "ed"}, {"exp": 1.7e9 + 100, "nbf": NOW + 30, "iat": NOW}),
    (3, {"alg": "ES384", "kid": "es384"}, base_claims),
    (4, {"alg": "ES512", "kid": "es512", "typ": "JWT"}, dict(base_claims, aud=["api"])),
]
for i, (sel, hdr, cl) in enumerate(signed):
    seed("FuzzVerify", f"signed-{i}", bytes([sel]) + json.dumps(hdr).encode() + b"\x00" + json.dumps(cl).encode())

json_seeds = {
    "claims": json.dumps(base_claims, indent=2).encode(),
    "escapes": b'{"a\\u0062":"\\ud83d\\ude00\\n\\t\\"\\\\\\/","n":[-0.5e-3,0,1E+2,123456789012345678],"e":{},"l":[]}',
    "utf8": '["\u00e9\u4e2d\U0001F600", true, false, null]'.encode(),
    "nested": b'{"a":{"b":{"c":[[[{"d":1}]]]}}}',
    "dup-nested": b'{"a":{"x":1,"x":2}}',
    "number": b" 1.5e300 ",
}
for k, v in json_seeds.items():
    seed("FuzzJSON", k, v)

for k, v in {"empty": b"", "one": b"QQ", "two": b"QUI", "three": b"QUJD", "all": b"-_-_AAAA0123456789",
             "hdr": b"eyJhbGciOiJIUzI1NiJ9"}.items():
    seed("FuzzBase64URL", k, v)

seed("FuzzJWKS", "public", json.dumps(public_jwks).encode())
seed("FuzzJWKS", "hmac", json.dumps(hmac_jwks).encode())
seed("FuzzJWKS", "single-jwk", json.dumps(public_jwks["keys"][1]).encode())
seed("FuzzJWKS", "x5c", json.dumps({"keys": [{"kty": "EC", "kid": "c", "x5c": [base64.b64encode(cert_der).decode()]}]}).encode())
seed("FuzzJWKS", "pem-map", json.dumps({"c1": cert_pem, "k1": ec_key.public_key().public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()}).encode())
seed("FuzzJWKS", "mixed", json.dumps({"keys": public_jwks["keys"][:1] + hmac_jwks["keys"] + [
    {"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"}, {"kty": "OKP", "crv": "X25519", "x": b64u(bytes(32))},
    {"kty": "RSA", "n": "AQAB", "e": "AQAB", "key_ops": ["verify"]}]}).encode())
spki_der = ec_key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
seed("FuzzJWKS", "spki-der", spki_der)   # starts with 0x30: also goes through VerificationKey(spkiDER:)
seed("FuzzJWKS", "pem-spki", ec_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                              serialization.PublicFormat.SubjectPublicKeyInfo))

# Regression reproducers (replayed first by every fuzz run; never name them crash-*/leak-*/timeout-*,
# which .gitignore drops as libFuzzer artifacts): valid DER followed by one extra
# byte. d2i_* succeeds, the "consumed everything" check fails, and the object d2i_* returned
# was leaked (OpenSSLPublicKey.fromCertificateDER / fromSPKI).
seed("regressions/FuzzJWKS", "x5c-cert-trailing-byte",
     json.dumps({"keys": [{"kty": "EC", "kid": "c", "x5c": [base64.b64encode(cert_der + b"\0").decode()]}]}).encode())
seed("regressions/FuzzJWKS", "spki-der-trailing-byte", spki_der + b"\0")
print("wrote", out, "and", corpus)
