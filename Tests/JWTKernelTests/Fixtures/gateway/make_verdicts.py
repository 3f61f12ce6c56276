#!/usr/bin/env python3
"""Writes verdicts.json and keys/*.json: the verdict half of the gateway contract (contract.json is the
bearer-grammar and challenge half). Run once by hand (python3 make_verdicts.py, needs PyPI `cryptography`);
its output is committed, so the runners need nothing from PyPI.

Every key is a fresh OpenSSL key made by `cryptography`; every token is signed here by hand (JWS compact
serialization, RFC 7515 section 7.1) so the hostile ones (duplicate members, crit, alg none, a key of another
type) can be written byte by byte. Valid tokens expire in 2100; the expired one expired in 2001, the early one
becomes valid in 2099, so every front end judges them at its own clock.

The expectations are the contract as docs/ERRORS.md and docs/C-API.md state it (status name, HTTP status,
bearer error), written here case by case, not read back from the library."""

import base64
import json
import os

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives import hmac as chmac

HERE = os.path.dirname(os.path.abspath(__file__))
ISS = "https://issuer.verdicts.test"
HMAC_ISS = "https://hmac.verdicts.test"
AUD = "api://verdicts"
EXP = 4102444800        # 2100-01-01
PAST = 978307200        # 2001-01-01
FUTURE = 4070908800     # 2099-01-01
IAT = 1700000000


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def uint(n, size=None):
    size = size or (n.bit_length() + 7) // 8
    return b64(n.to_bytes(size, "big"))


HASH = {"256": hashes.SHA256, "384": hashes.SHA384, "512": hashes.SHA512}


class Key:
    """A private key, its public JWK, and how it signs for `alg`."""

    def __init__(self, kid, alg, private, jwk):
        self.kid, self.alg, self.private, self.jwk = kid, alg, private, dict(jwk, kid=kid, alg=alg, use="sig")

    def sign(self, alg, data):
        p = self.private
        if alg.startswith("HS"):
            h = chmac.HMAC(p, HASH[alg[2:]]())
            h.update(data)
            return h.finalize()
        if alg.startswith("RS"):
            return p.sign(data, padding.PKCS1v15(), HASH[alg[2:]]())
        if alg.startswith("PS"):
            return p.sign(data, padding.PSS(padding.MGF1(HASH[alg[2:]]()), HASH[alg[2:]]().digest_size),
                          HASH[alg[2:]]())
        if alg.startswith("ES"):
            digest = {"ES256": hashes.SHA256, "ES256K": hashes.SHA256, "ES384": hashes.SHA384,
                      "ES512": hashes.SHA512}[alg]
            r, s = decode_dss_signature(p.sign(data, ec.ECDSA(digest())))
            size = (p.curve.key_size + 7) // 8
            return r.to_bytes(size, "big") + s.to_bytes(size, "big")
        return p.sign(data)   # EdDSA, Ed25519, Ed448


def rsa_key(kid, alg):
    p = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    n = p.public_key().public_numbers()
    return Key(kid, alg, p, {"kty": "RSA", "n": uint(n.n), "e": uint(n.e)})


def ec_key(kid, alg, curve, crv):
    p = ec.generate_private_key(curve())
    n = p.public_key().public_numbers()
    size = (curve().key_size + 7) // 8
    return Key(kid, alg, p, {"kty": "EC", "crv": crv, "x": uint(n.x, size), "y": uint(n.y, size)})


def okp_key(kid, alg, cls, crv):
    p = cls.generate()
    raw = p.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return Key(kid, alg, p, {"kty": "OKP", "crv": crv, "x": b64(raw)})


def oct_key(kid, alg, size):
    secret = os.urandom(size)
    return Key(kid, alg, secret, {"kty": "oct", "k": b64(secret)})


def compact(header, payload, key=None, alg=None, sign_with=None):
    """header/payload: dicts (JSON-encoded compactly) or raw strings (sent as written)."""
    enc = lambda part: b64(part.encode() if isinstance(part, str) else json.dumps(part, separators=(",", ":")).encode())
    signing_input = f"{enc(header)}.{enc(payload)}"
    if key is None:
        return signing_input + "."
    return signing_input + "." + b64((sign_with or key).sign(alg, signing_input.encode()))


def claims(**extra):
    base = {"iss": ISS, "sub": "user-1", "aud": AUD, "iat": IAT, "exp": EXP, "roles": ["admin", "dev"]}
    base.update(extra)
    return {k: v for k, v in base.items() if v is not None}


def main():
    keys_dir = os.path.join(HERE, "keys")
    os.makedirs(keys_dir, exist_ok=True)
    public = [rsa_key(f"k-{a.lower()}", a) for a in ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")]
    public += [ec_key("k-es256", "ES256", ec.SECP256R1, "P-256"), ec_key("k-es384", "ES384", ec.SECP384R1, "P-384"),
               ec_key("k-es512", "ES512", ec.SECP521R1, "P-521"),
               ec_key("k-es256k", "ES256K", ec.SECP256K1, "secp256k1"),
               okp_key("k-eddsa", "EdDSA", ed25519.Ed25519PrivateKey, "Ed25519"),
               okp_key("k-ed25519", "Ed25519", ed25519.Ed25519PrivateKey, "Ed25519"),
               okp_key("k-ed448", "Ed448", ed448.Ed448PrivateKey, "Ed448")]
    secrets = [oct_key("k-hs256", "HS256", 32), oct_key("k-hs384", "HS384", 48), oct_key("k-hs512", "HS512", 64)]
    provider = [rsa_key("p-rs256", "RS256"), ec_key("p-es256", "ES256", ec.SECP256R1, "P-256")]
    stranger = rsa_key("k-rs256", "RS256")   # another key under a trusted kid: a bad signature
    by_kid = {k.kid: k for k in public + secrets + provider}

    def write_keys(name, keys):
        with open(os.path.join(keys_dir, name), "w") as f:
            json.dump({"keys": [k.jwk for k in keys]}, f, indent=1)
            f.write("\n")
        return "keys/" + name

    configurations = {
        "public": {
            "about": "every asymmetric algorithm, one key each (alg and kid set), one issuer and audience",
            "config": {"issuers": [ISS], "audiences": [AUD]},
            "keys": write_keys("public.jwks.json", public), "key_issuer": ISS},
        "hmac": {
            "about": "HS256/384/512 secrets (oct JWKs); secrets are never fetched, so pulling front ends load a file",
            "config": {"issuers": [HMAC_ISS], "audiences": [AUD], "algorithms": ["HS256", "HS384", "HS512"]},
            "keys": write_keys("hmac.jwks.json", secrets), "key_issuer": HMAC_ISS, "secret": True},
        "claims": {
            "about": "required claims and claim requirements, one of them on a nested claim",
            "config": {"issuers": [ISS], "audiences": [AUD], "required_claims": ["email"],
                       "claims": [{"pointer": "/scope", "contains_all": ["read", "write"]},
                                  {"pointer": "/org/plan", "one_of": ["pro", "team"]}]},
            "keys": "keys/public.jwks.json", "key_issuer": ISS},
    }
    presets = {
        # name: (config, key issuer, token claims, alg)
        "google": ({"provider": "google", "audiences": ["verdicts.apps.googleusercontent.com"]},
                   "https://accounts.google.com", {"aud": "verdicts.apps.googleusercontent.com"}, "p-rs256"),
        "apple": ({"provider": "apple", "audiences": ["com.example.verdicts"]}, "https://appleid.apple.com",
                  {"aud": "com.example.verdicts"}, "p-rs256"),
        "firebase": ({"provider": "firebase", "project_id": "verdicts-project"},
                     "https://securetoken.google.com/verdicts-project",
                     {"aud": "verdicts-project", "auth_time": IAT}, "p-rs256"),
        "facebook": ({"provider": "facebook", "audiences": ["1234567890"]}, "https://www.facebook.com",
                     {"aud": "1234567890"}, "p-rs256"),
        "line": ({"provider": "line", "audiences": ["1600000000"]}, "https://access.line.me",
                 {"aud": "1600000000"}, "p-es256"),
        "microsoft": ({"provider": "microsoft", "tenant": "9188040d-6c67-4c5b-b112-36a304b66dad",
                       "audiences": ["00000000-0000-0000-0000-0000000000aa"]},
                      "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
                      {"aud": "00000000-0000-0000-0000-0000000000aa"}, "p-rs256"),
    }
    provider_keys = write_keys("providers.jwks.json", provider)
    for name, (config, issuer, _, _) in presets.items():
        configurations[name] = {"about": f"the {name} preset, its keys given as a file (push) or served as a "
                                         "\"jwks_url\" mirror (pull), minted here under its issuer",
                                "config": config, "keys": provider_keys, "key_issuer": issuer}

    cases = []

    def case(name, cls, configuration, token, error=None, http=None, bearer=None, claims_out=None, differs=None):
        entry = {"name": name, "class": cls, "configuration": configuration, "token": token,
                 "valid": error is None, "error": error,
                 "http": http or (200 if error is None else 401),
                 "bearer_error": bearer if bearer is not None else (None if error is None else "invalid_token")}
        if claims_out is not None:
            entry["claims"] = claims_out
        if differs:
            entry["differs"] = differs
        cases.append(entry)

    exported = {"iss": ISS, "sub": "user-1", "/roles": "admin,dev"}

    # Every algorithm the kernel verifies, valid.
    for k in public:
        tok = compact({"alg": k.alg, "typ": "JWT", "kid": k.kid}, claims(), k, k.alg)
        case(f"{k.alg} valid", "algorithm", "public", tok, claims_out=exported)
    for k in secrets:
        tok = compact({"alg": k.alg, "kid": k.kid}, claims(iss=HMAC_ISS), k, k.alg)
        case(f"{k.alg} valid", "algorithm", "hmac", tok, claims_out=dict(exported, iss=HMAC_ISS))

    rs = by_kid["k-rs256"]
    es = by_kid["k-es256"]
    hdr = {"alg": "RS256", "kid": "k-rs256"}
    # Failure classes of the error table a token can trigger.
    tok = compact(hdr, claims(), rs, "RS256")
    sig = tok.rsplit(".", 1)
    flipped = sig[0] + "." + ("A" if sig[1][0] != "A" else "B") + sig[1][1:]
    case("bad signature: one signature byte changed", "bad_signature", "public", flipped, "bad_signature")
    case("bad signature: another key under a trusted kid", "bad_signature", "public",
         compact(hdr, claims(), rs, "RS256", sign_with=stranger), "bad_signature")
    other_payload = compact({"alg": "ES256", "kid": "k-es256"}, claims(sub="user-2"), es, "ES256")
    good = compact({"alg": "ES256", "kid": "k-es256"}, claims(), es, "ES256")
    case("bad signature: ES256 signature of other claims", "bad_signature", "public",
         good.rsplit(".", 1)[0] + "." + other_payload.rsplit(".", 1)[1], "bad_signature")
    case("expired in 2001", "expired", "public", compact(hdr, claims(exp=PAST), rs, "RS256"), "expired")
    case("not valid before 2099", "not_yet_valid", "public",
         compact(hdr, claims(nbf=FUTURE), rs, "RS256"), "not_yet_valid")
    case("another issuer", "bad_issuer", "public",
         compact(hdr, claims(iss="https://evil.example"), rs, "RS256"), "bad_issuer",
         differs=[{"front_end": "routed", "error": "unknown_issuer",
                   "reason": "a front end that routes by issuer (an issuer file: jwtk verify --issuer-config, the "
                             "forward-auth agent) has no route for this iss: unknown_issuer, also 401 invalid_token"}])
    case("another audience", "bad_audience", "public",
         compact(hdr, claims(aud="api://other"), rs, "RS256"), "bad_audience")
    case("an audience array without ours", "bad_audience", "public",
         compact(hdr, claims(aud=["api://a", "api://b"]), rs, "RS256"), "bad_audience")
    case("unknown kid", "unknown_kid", "public",
         compact({"alg": "RS256", "kid": "nobody"}, claims(), rs, "RS256"), "unknown_kid")
    case("alg none", "alg_none", "public", compact({"alg": "none", "kid": "k-rs256"}, claims()), "unsupported_alg")
    case("alg none, lower-case variant", "alg_none", "public",
         compact({"alg": "None", "kid": "k-rs256"}, claims()), "unsupported_alg")
    case("RS384 under the RS256 key", "alg_key_mismatch", "public",
         compact({"alg": "RS384", "kid": "k-rs256"}, claims(), rs, "RS384"), "key_alg_mismatch")
    pem = rs.private.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    confused = Key("k-rs256", "HS256", pem, {})
    case("HS256 signed with the RSA public key (key confusion)", "alg_key_mismatch", "public",
         compact({"alg": "HS256", "kid": "k-rs256"}, claims(), confused, "HS256"), "key_alg_mismatch")
    case("two segments", "malformed", "public", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0", "malformed")
    case("header not JSON", "malformed", "public", compact("not json", claims(), rs, "RS256"), "malformed")
    body = tok.split(".")
    to_4n1 = lambda seg: seg + "A" * ((1 - len(seg)) % 4)   # 4n+1 characters: no base64url text has that length
    case("bad base64url: '+' in the payload", "bad_base64url", "public",
         body[0] + "." + body[1][:-2] + "+" + body[1][-1:] + "." + body[2], "malformed")
    case("bad base64url: a payload of 4n+1 characters", "bad_base64url", "public",
         body[0] + "." + to_4n1(body[1]) + "." + body[2], "malformed")
    case("claims not JSON under another token's signature", "malformed", "public",
         body[0] + "." + b64(b"not json") + "." + body[2], "malformed",
         differs=[{"front_end": "unrouted", "error": "bad_signature",
                   "reason": "one key set for any issuer: the signature is checked before the claims are parsed "
                             "(a routed verifier parses them first to read iss); both refuse, 401 invalid_token"}])
    case("bad base64url: a header of 4n+1 characters", "bad_base64url", "public",
         to_4n1(body[0]) + "." + body[1] + "." + body[2], "malformed")
    case("bad base64url: a signature of 4n+1 characters", "bad_base64url", "public",
         body[0] + "." + body[1] + "." + to_4n1(body[2]), "malformed")
    dup = ('{"iss":"%s","sub":"user-1","sub":"admin","aud":"%s","exp":%d}' % (ISS, AUD, EXP))
    case("duplicate JSON member in the claims", "duplicate_member", "public", compact(hdr, dup, rs, "RS256"), "malformed")
    case("duplicate JSON member in the header", "duplicate_member", "public",
         compact('{"alg":"RS256","kid":"k-rs256","alg":"none"}', claims(), rs, "RS256"), "malformed")
    case("crit names an extension", "crit", "public",
         compact({"alg": "RS256", "kid": "k-rs256", "crit": ["exp"], "exp": EXP}, claims(), rs, "RS256"),
         "crit_unsupported")
    big = compact(hdr, claims(pad="x" * 17000), rs, "RS256")
    case("too large: over 16 KiB", "too_large", "public", big, "too_large",
         differs=[{"front_end": "haproxy", "valid": False, "error": None, "http": 400, "bearer_error": None,
                   "reason": "HAProxy's request buffer (tune.bufsize, 16 KiB by default; gateways/haproxy/haproxy.cfg "
                             "keeps it) refuses the request with 400 before the Lua action runs: still refused, "
                             "without a challenge"},
                  {"front_end": "apache", "valid": False, "error": None, "http": 400, "bearer_error": None,
                   "reason": "Apache's LimitRequestFieldSize (8190 bytes by default) refuses the Authorization "
                             "field with 400 before the module runs: still refused, without a challenge"}])

    # Required claims and claim requirements (403 insufficient_scope), a nested one among them.
    good_claims = dict(email="u@example.com", scope="read write", org={"plan": "pro", "name": "acme"})
    with_claims = dict(exported, **{"/org/plan": "pro", "/scope": "read write"})
    case("every requirement met", "claim_requirement", "claims",
         compact(hdr, claims(**good_claims), rs, "RS256"), claims_out=with_claims)
    case("missing required claim email", "missing_claim", "claims",
         compact(hdr, claims(**dict(good_claims, email=None)), rs, "RS256"), "missing_claim")
    case("scope without write", "claim_requirement", "claims",
         compact(hdr, claims(**dict(good_claims, scope="read")), rs, "RS256"),
         "claim_requirement_failed", 403, "insufficient_scope")
    case("nested claim /org/plan not allowed", "nested_claim", "claims",
         compact(hdr, claims(**dict(good_claims, org={"plan": "free"})), rs, "RS256"),
         "claim_requirement_failed", 403, "insufficient_scope")
    case("nested claim /org/plan absent", "nested_claim", "claims",
         compact(hdr, claims(**dict(good_claims, org={"name": "acme"})), rs, "RS256"),
         "claim_requirement_failed", 403, "insufficient_scope")

    # Each provider preset: a valid token under its issuer, and one it must refuse.
    for name, (config, issuer, extra, kid) in presets.items():
        k = by_kid[kid]
        tc = claims(iss=issuer, **extra)
        case(f"{name} preset: valid", "preset", name, compact({"alg": k.alg, "kid": k.kid}, tc, k, k.alg),
             claims_out={"iss": issuer, "sub": "user-1", "/roles": "admin,dev"})
        case(f"{name} preset: another app's audience", "preset", name,
             compact({"alg": k.alg, "kid": k.kid}, dict(tc, aud="another.app"), k, k.alg), "bad_audience")
    g = by_kid["p-rs256"]
    case("google preset: the issuer spelled without https://", "preset", "google",
         compact({"alg": "RS256", "kid": "p-rs256"},
                 claims(iss="accounts.google.com", aud="verdicts.apps.googleusercontent.com"), g, "RS256"),
         claims_out={"iss": "accounts.google.com", "sub": "user-1", "/roles": "admin,dev"})
    tenant = presets["microsoft"][0]["tenant"]
    for name, issuer, aud in (("facebook", "https://facebook.com", "1234567890"),
                              ("microsoft", f"https://sts.windows.net/{tenant}/", "00000000-0000-0000-0000-0000000000aa")):
        case(f"{name} preset: its other issuer ({issuer})", "preset", name,
             compact({"alg": "RS256", "kid": "p-rs256"}, claims(iss=issuer, aud=aud), g, "RS256"),
             claims_out={"iss": issuer, "sub": "user-1", "/roles": "admin,dev"})
    case("firebase preset: no auth_time", "preset", "firebase",
         compact({"alg": "RS256", "kid": "p-rs256"},
                 claims(iss="https://securetoken.google.com/verdicts-project", aud="verdicts-project"), g, "RS256"),
         "missing_claim")
    case("apple preset: ES256 is not Apple's algorithm", "preset", "apple",
         compact({"alg": "ES256", "kid": "p-es256"},
                 claims(iss="https://appleid.apple.com", aud="com.example.verdicts"), by_kid["p-es256"], "ES256"),
         "alg_not_allowed")

    doc = {
        "description": "The verdict half of the gateway contract (contract.json has the bearer grammar and the "
                       "challenge): tokens x configurations -> verdict, status name (docs/ERRORS.md), HTTP status, "
                       "bearer error of the challenge, exported claims. Written by make_verdicts.py; see "
                       "docs/TESTING.md for the runners and how to add a case.",
        "fields": {
            "configurations": "name -> config (the one configuration schema: the C verifier config, an issuer "
                              "file entry), keys (a JWKS file beside this one), key_issuer (the issuer the keys "
                              "are loaded under when pushed), secret (true: HMAC keys, never served over HTTP)",
            "cases.error": "the status name (jwtk_status_name) or null when valid",
            "cases.http": "jwtk_status_http", "cases.bearer_error": "the error= of the challenge; null: none",
            "cases.claims": "exported values: a name is a top-level claim, a /pointer is read by RFC 6901 pointer; "
                            "arrays as a header shows them (strings joined by ',')",
            "cases.differs": "front ends answering otherwise, each with the reason; front_end names one, or a "
                             "group: 'routed' (routes by issuer, keys per issuer), 'unrouted' (one key set for any "
                             "issuer), 'pushed-per-issuer' (keys pushed with jwtk_keystore_load_jwks under an issuer)",
        },
        "configurations": configurations,
        "cases": cases,
    }
    with open(os.path.join(HERE, "verdicts.json"), "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(cases)} cases, {len(configurations)} configurations")


if __name__ == "__main__":
    main()
