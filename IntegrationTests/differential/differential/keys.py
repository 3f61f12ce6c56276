"""Key material derived from the run's seed, so a seed reproduces every token.

`cryptography` cannot generate RSA keys from a seed, so the primes are found
here (Miller-Rabin with a seeded generator); EC scalars, Ed25519/Ed448 seeds
and HMAC secrets are drawn from the same generator."""
import json
import random
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

from . import b64

HMAC_ALGS = ("HS256", "HS384", "HS512")
RSA_ALGS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
EC_CURVES = {  # JWK crv -> (cryptography curve, the one JWS alg, order bits)
    "P-256": (ec.SECP256R1, "ES256"),
    "P-384": (ec.SECP384R1, "ES384"),
    "P-521": (ec.SECP521R1, "ES512"),
    "secp256k1": (ec.SECP256K1, "ES256K"),
}
OKP_ALGS = {"Ed25519": ("EdDSA", "Ed25519"), "Ed448": ("EdDSA", "Ed448")}

_SMALL_PRIMES = [p for p in range(3, 2000) if all(p % q for q in range(2, int(p ** 0.5) + 1))]


def _is_probable_prime(n: int, rng: random.Random, rounds: int = 24) -> bool:
    if any(n % p == 0 for p in _SMALL_PRIMES):
        return n in _SMALL_PRIMES
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for _ in range(rounds):
        x = pow(rng.randrange(2, n - 1), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(bits: int, rng: random.Random, e: int) -> int:
    while True:
        # Top two bits set so p*q has exactly 2*bits bits.
        n = rng.getrandbits(bits) | (3 << (bits - 2)) | 1
        if (n - 1) % e and _is_probable_prime(n, rng):
            return n


def rsa_private_key(bits: int, rng: random.Random, e: int = 65537) -> rsa.RSAPrivateKey:
    while True:
        p, q = _prime(bits // 2, rng, e), _prime(bits // 2, rng, e)
        if p != q and (p * q).bit_length() == bits:
            break
    d = pow(e, -1, (p - 1) * (q - 1))
    pub = rsa.RSAPublicNumbers(e, p * q)
    return rsa.RSAPrivateNumbers(p, q, d, d % (p - 1), d % (q - 1), pow(q, -1, p), pub).private_key()


def _uint(n: int, length: int | None = None) -> str:
    length = length or max(1, (n.bit_length() + 7) // 8)
    return b64.encode(n.to_bytes(length, "big"))


@dataclass
class TestKey:
    """One key of a policy's key set: what signs (private) and what jwtk and
    the oracles trust (the public JWK)."""
    label: str            # e.g. "RSA-2048/RS256" or "oct-64/-"
    kty: str
    private: object       # cryptography private key, or bytes for HMAC
    kid: str | None
    declared_alg: str | None
    crv: str | None = None
    jwk: dict = field(default_factory=dict)

    @property
    def allowed_algs(self) -> tuple[str, ...]:
        """RFC 7517 §4.4: a JWK's alg names the one algorithm it is for;
        without one, every algorithm its type and size allow (RFC 7518 §3.2
        for HMAC secrets: at least the hash length)."""
        if self.declared_alg:
            return (self.declared_alg,)
        if self.kty == "oct":
            return tuple(a for a in HMAC_ALGS if len(self.public) >= int(a[2:]) // 8)
        if self.kty == "RSA":
            return RSA_ALGS
        if self.kty == "EC":
            return (EC_CURVES[self.crv][1],)
        return OKP_ALGS[self.crv]

    @property
    def public(self):
        return self.private if self.kty == "oct" else self.private.public_key()

    def public_pem(self) -> bytes:
        return self.public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def _public_jwk(kty: str, private, crv: str | None) -> dict:
    if kty == "oct":
        return {"kty": "oct", "k": b64.encode(private)}
    if kty == "RSA":
        n = private.public_key().public_numbers()
        return {"kty": "RSA", "n": _uint(n.n), "e": _uint(n.e)}
    if kty == "EC":
        n = private.public_key().public_numbers()
        size = (private.curve.key_size + 7) // 8
        return {"kty": "EC", "crv": crv, "x": _uint(n.x, size), "y": _uint(n.y, size)}
    raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {"kty": "OKP", "crv": crv, "x": b64.encode(raw)}


class KeyPool:
    """Private keys by (spec, index), made once per run: RSA primes take a
    second or more to find, and policies share keys under different kids."""

    def __init__(self, seed: int):
        self.seed = seed
        self._made: dict[tuple[str, int], tuple] = {}

    def private(self, spec: str, index: int) -> tuple:
        if (spec, index) not in self._made:
            rng = random.Random(f"{self.seed}/{spec}/{index}")
            self._made[(spec, index)] = _private_key(spec, rng)
        return self._made[(spec, index)]

    def key(self, spec: str, index: int, kid: str | None, declared_alg: str | None) -> TestKey:
        kty, crv, private = self.private(spec, index)
        jwk = _public_jwk(kty, private, crv)
        if kid is not None:
            jwk["kid"] = kid
        if declared_alg:
            jwk["alg"] = declared_alg
        return TestKey(f"{spec}/{declared_alg or '-'}", kty, private, kid, declared_alg, crv, jwk)


def _private_key(spec: str, rng: random.Random) -> tuple:
    """`spec` is "oct-<bytes>", "RSA-<bits>" or "RSA-<bits>-e3", an EC crv or an OKP crv."""
    if spec.startswith("oct-"):
        kty, crv, private = "oct", None, rng.randbytes(int(spec[4:]))
    elif spec.startswith("RSA-"):
        bits, _, e = spec[4:].partition("-e")
        kty, crv, private = "RSA", None, rsa_private_key(int(bits), rng, int(e or 65537))
    elif spec in EC_CURVES:
        curve = EC_CURVES[spec][0]()
        order_bits = curve.key_size
        kty, crv = "EC", spec
        private = ec.derive_private_key(rng.getrandbits(order_bits - 1) | 1, curve)
    elif spec == "Ed25519":
        kty, crv, private = "OKP", spec, ed25519.Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
    elif spec == "Ed448":
        kty, crv, private = "OKP", spec, ed448.Ed448PrivateKey.from_private_bytes(rng.randbytes(57))
    else:
        raise ValueError(spec)
    return kty, crv, private


def jwks_json(keys: list[TestKey]) -> str:
    return json.dumps({"keys": [k.jwk for k in keys]}, sort_keys=True)


def key_file(keys: list[TestKey], key_format: str) -> str:
    """The key set as jwtk's --jwks file in one of the forms it loads."""
    if key_format == "jwk":
        return json.dumps(keys[0].jwk, sort_keys=True)
    if key_format == "pem":
        return keys[0].public_pem().decode()
    if key_format == "pem-map":
        return json.dumps({k.kid: k.public_pem().decode() for k in keys}, sort_keys=True)
    return jwks_json(keys)
