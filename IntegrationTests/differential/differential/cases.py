"""Cases: one token each, under one policy, with the mutation that made it.
Everything is drawn from generators seeded by (seed, policy, index), so a
seed reproduces the same tokens, and one case can be regenerated alone."""
import copy
import random
from dataclasses import dataclass

from . import b64
from .base import base_draft
from .draft import assemble
from .mutations import Context, load_all
from .policies import Policy

CONTROL = "control"


@dataclass
class Case:
    id: str
    policy: Policy
    mutation: str
    detail: str
    resigned: bool
    alg: str           # the base token's algorithm
    token: str


def _original_signature(draft, rng) -> bytes:
    token = assemble(copy.deepcopy(draft), None, rng)
    return b64.decode_lenient(token.rsplit(".", 1)[1])


def make_case(seed: int, policy: Policy, index: int) -> Case:
    mutations = load_all()
    rng = random.Random(f"{seed}/{policy.name}/{index}")
    base = base_draft(policy, rng)
    original = _original_signature(base, random.Random(f"{seed}/{policy.name}/{index}/sig"))
    # Every eighth case is an unmutated control; the rest walk the mutation list
    # from a per-policy offset, so every policy sees every class.
    slot = index % 8
    if slot == 0:
        token = assemble(copy.deepcopy(base), original, random.Random(f"{seed}/{policy.name}/{index}/sig"))
        return Case(f"{policy.name}#{index}", policy, CONTROL, "unmutated", True, base.alg, token)
    start = (index - index // 8 - 1 + sum(map(ord, policy.name))) % len(mutations)
    for k in range(len(mutations)):
        m = mutations[(start + k) % len(mutations)]
        draft = copy.deepcopy(base)
        draft.resign = m.resignable and rng.random() < 0.75
        ctx = Context(policy, rng)
        detail = m.apply(draft, ctx)
        if detail is None:
            continue
        token = assemble(draft, original, random.Random(f"{seed}/{policy.name}/{index}/sig"))
        if not token or any(c.isspace() for c in token) or not token.isascii():
            continue
        return Case(f"{policy.name}#{index}", policy, m.name, detail, draft.resign, base.alg, token)
    raise RuntimeError("no mutation applies")


def make_cases(seed: int, policies: list[Policy], per_policy: int) -> list[Case]:
    return [make_case(seed, p, i) for p in policies for i in range(per_policy)]
