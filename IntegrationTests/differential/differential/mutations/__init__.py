"""The mutation classes. Each mutation edits a base `Draft` and returns a short
description of what it did, or None when it does not apply (the generator then
picks another). `resignable` mutations run both re-signed after the edit and
with the unmutated token's signature kept."""
import random
from dataclasses import dataclass
from typing import Callable

from ..draft import Draft
from ..policies import Policy


@dataclass
class Context:
    policy: Policy
    rng: random.Random


@dataclass
class Mutation:
    name: str
    apply: Callable[[Draft, Context], str | None]
    resignable: bool


REGISTRY: list[Mutation] = []


def mutation(name: str, resignable: bool = True):
    def register(fn):
        REGISTRY.append(Mutation(name, fn, resignable))
        return fn
    return register


def load_all() -> list[Mutation]:
    from . import claims, encoding, header, json_text, rsa_padding, signature, structure  # noqa: F401  (registers)
    return REGISTRY
