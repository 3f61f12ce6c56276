"""A policy is what one jwtk process is run with: a key set and the claims
rules. Every token of a policy goes through all three verifiers under it."""
import random
from dataclasses import dataclass, field

from . import requirements as reqs
from .keys import KeyPool, TestKey

# (key spec, the JWK's declared alg or None). Together they cover every
# algorithm jwt-kernel verifies and every key type it loads.
KEY_SPECS = [
    ("oct-32", "HS256"), ("oct-48", "HS384"), ("oct-64", "HS512"), ("oct-64", None), ("oct-32", None),
    # Longer than a SHA-256 block (64) and a SHA-512 block (128): HMAC hashes such keys first.
    ("oct-100", None), ("oct-200", "HS512"),
    ("RSA-2048", "RS256"), ("RSA-2048", "RS384"), ("RSA-2048", "RS512"),
    ("RSA-2048", "PS256"), ("RSA-2048", "PS384"), ("RSA-2048", "PS512"),
    ("RSA-2048", None), ("RSA-3072", None),
    # e = 3: where loose PKCS#1 v1.5 parsing becomes a forgery (Bleichenbacher 2006).
    ("RSA-2048-e3", "RS256"), ("RSA-2048-e3", None),
    ("P-256", "ES256"), ("P-384", "ES384"), ("P-521", "ES512"), ("secp256k1", "ES256K"),
    ("P-256", None), ("P-521", None),
    ("Ed25519", "EdDSA"), ("Ed25519", None), ("Ed448", "EdDSA"), ("Ed448", None),
    ("Ed25519", "Ed25519"), ("Ed448", "Ed448"),
]

ISSUERS = ["https://issuer.example", "https://accounts.example.com", "https://login.example.org/tenant/v2.0"]
AUDIENCES = ["client-123", "com.example.app", "https://api.example.net"]
LEEWAYS = [0, 1, 30, 60]


@dataclass
class Policy:
    name: str
    keys: list[TestKey]        # the key set jwtk and the oracles trust
    signer: TestKey            # the key base tokens are signed with (keys[0])
    issuers: list[str]         # empty: iss not checked
    audiences: list[str]       # empty: aud not checked
    leeway: int
    now: int
    # How jwtk is given the keys: "jwks", a single "jwk", a "pem" public key, or a
    # {kid: PEM} "pem-map" (the Google/Firebase form). The oracles always get the JWKs.
    key_format: str = "jwks"
    # Whether jwtk also gets --alg for each algorithm the key allows (the same set, said twice).
    alg_flags: bool = False
    # Claim requirements (pointer, kind, values): jwtk gets --claim-* options, the oracles' acceptances are
    # filtered through requirements.holds.
    requirements: list = field(default_factory=list)

    @property
    def decoy(self) -> TestKey | None:
        return self.keys[1] if len(self.keys) > 1 else None

    def jwtk_args(self, jwks_path: str) -> list[str]:
        args = ["verify", "--jwks", jwks_path, "--leeway", str(self.leeway), "--now", str(self.now)]
        for i in self.issuers:
            args += ["--iss", i]
        for a in self.audiences:
            args += ["--aud", a]
        if self.alg_flags:
            for alg in self.signer.allowed_algs:
                args += ["--alg", alg]
        return args + reqs.jwtk_args(self.requirements)

    def describe(self) -> dict:
        return {"name": self.name, "key_format": self.key_format, "alg_flags": self.alg_flags,
                "issuers": self.issuers, "audiences": self.audiences,
                "leeway": self.leeway, "now": self.now,
                "requirements": [[p, k, [str(v) if not isinstance(v, (bool, str)) else v for v in vs]]
                                 for p, k, vs in self.requirements],
                "keys": [{"label": k.label, "kid": k.kid} for k in self.keys]}


def _key_formats(keys: list[TestKey]) -> list[str]:
    """The file forms that carry exactly what the JWKs say: PEM has no kid and
    no alg, so it is offered only for keys that declare neither (or only a kid,
    for the map form)."""
    formats = ["jwks", "jwks"]
    if len(keys) == 1:
        formats.append("jwk")
    if all(k.kty != "oct" and k.declared_alg is None for k in keys):
        if len(keys) == 1 and keys[0].kid is None:
            formats.append("pem")
        if all(k.kid is not None for k in keys):
            formats.append("pem-map")
    return formats


def build_policies(seed: int, pool: KeyPool, copies: int) -> list[Policy]:
    """`copies` policies per key spec, each with its own claims rules; a decoy
    key of the same type (a second trusted key) in about half of them."""
    rng = random.Random(f"{seed}/policies")
    policies = []
    for copy in range(copies):
        for spec, alg in KEY_SPECS:
            with_decoy = rng.random() < 0.5
            with_kid = with_decoy or rng.random() < 0.7
            signer = pool.key(spec, 0, "k1" if with_kid else None, alg)
            keys = [signer]
            if with_decoy:
                keys.append(pool.key(spec, 1, "k2", alg))
            issuers = rng.sample(ISSUERS, rng.choice([0, 1, 1, 2]))
            audiences = rng.sample(AUDIENCES, rng.choice([0, 1, 1, 2]))
            now = 1_700_000_000 + rng.randrange(0, 100_000_000)
            name = f"{spec}-{alg or 'noalg'}-{copy}"
            leeway = rng.choice(LEEWAYS)
            key_format = rng.choice(_key_formats(keys))
            policies.append(Policy(name, keys, signer, issuers, audiences, leeway, now, key_format, rng.random() < 0.3,
                                   reqs.draw(seed, name)))
    return policies
