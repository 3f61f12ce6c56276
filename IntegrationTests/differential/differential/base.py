"""Well-formed tokens a real issuer could send under a policy: the starting
point of every case (and, unmutated, the positive controls)."""
import random

from .draft import Draft, j
from .policies import Policy

NAMES = ["Zoë Ångström", "José", "日本 太郎", "plain", "O'Brien \"quoted\"", "emoji 🎉", "tab\tand\\slash"]


def base_draft(policy: Policy, rng: random.Random) -> Draft:
    key = policy.signer
    alg = rng.choice(key.allowed_algs)
    header = [(j("alg"), j(alg))]
    if rng.random() < 0.8:
        header.append((j("typ"), j("JWT")))
    if key.kid is not None:
        header.insert(rng.randrange(len(header) + 1), (j("kid"), j(key.kid)))
    now = policy.now
    claims = [
        (j("iss"), j(rng.choice(policy.issuers) if policy.issuers else "https://unchecked.example")),
        (j("sub"), j(f"user-{rng.randrange(10**6)}")),
    ]
    if policy.audiences or rng.random() < 0.5:
        aud = rng.choice(policy.audiences) if policy.audiences else "some-client"
        claims.append((j("aud"), j(aud) if rng.random() < 0.6 else j([aud, "other-client"])))
    claims.append((j("iat"), j(now - rng.randrange(0, 600))))
    claims.append((j("exp"), j(now + rng.randrange(policy.leeway + 2, 7200))))
    if rng.random() < 0.4:
        claims.append((j("nbf"), j(now - rng.randrange(0, 600))))
    if rng.random() < 0.3:
        claims.append((j("nonce"), j(f"n-{rng.randrange(10**9):x}")))
    if rng.random() < 0.5:
        claims.append((j("name"), j(rng.choice(NAMES))))
    if rng.random() < 0.3:
        claims.append((j("ctx"), j({"roles": ["a", "b"], "deep": {"x": [1, 2.5, None, True]}})))
    rng.shuffle(claims)
    return Draft(header=header, claims=claims, alg=alg, key=key)
