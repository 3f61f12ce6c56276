"""Claim requirements (jwtk verify --claim-equals/--claim-one-of/--claim-contains-all/--claim-contains-any)
and their oracle: neither PyJWT nor joserfc has them, so once an oracle accepts a token the decision is
computed here, independently of jwt-kernel, from the token's own payload: an RFC 6901 walk over the JSON
parsed with every number as a Decimal (exact: 1 == 1.0, 2**53 + 1 != 2**53), values equal only within one
JSON type (a bool is never a number, "1" never 1), and "contains" reading an array's elements or the
space-separated words of a string (RFC 6749 section 3.3)."""
import json
import random
from decimal import Decimal

from . import b64

KINDS = ("equals", "one_of", "contains_all", "contains_any")
OPTION = {"equals": "--claim-equals", "one_of": "--claim-one-of", "contains_all": "--claim-contains-all",
          "contains_any": "--claim-contains-any"}

# Requirements on the claims base.py draws (and the claims mutations change): each holds for some tokens
# and fails for others (absent, another value, another type). A (pointer, kind) pair appears once: the CLI
# merges repeated options of one kind and pointer into one set, which two draws must not be read as.
CANDIDATES = [
    ("/ctx/roles", "contains_all", ["a"]), ("/ctx/roles", "contains_all", ["a", "b"]),
    ("/ctx/roles", "contains_all", ["a", "c"]), ("/ctx/roles", "contains_any", ["c", "b"]),
    ("/ctx/roles/1", "equals", ["b"]), ("/ctx/deep/x", "contains_any", ["1", Decimal("2.50")]),
    ("/ctx/deep/x", "contains_all", [Decimal("1.0"), True]), ("/ctx/deep/x/3", "equals", [True]),
    ("/ctx/deep/x/0", "one_of", [Decimal("10e-1"), "x"]), ("/ctx/deep/x/2", "equals", ["null"]),
    ("/name", "one_of", ["plain", "José"]), ("/name", "contains_any", ["and\\slash", "emoji"]),
    ("/aud", "contains_any", ["client-123", "com.example.app"]), ("/aud", "equals", ["client-123"]),
    ("/iss", "equals", ["https://issuer.example"]), ("/sub", "contains_all", ["user-1"]),
    ("/nonce", "one_of", ["n-0"]), ("/ctx", "equals", ["{}"]), ("/ctx/roles", "equals", ["a"]),
]


def draw(seed: int, policy_name: str) -> list[tuple[str, str, list]]:
    """0-2 requirements for a policy, from a generator of its own (the other draws stay as they were)."""
    rng = random.Random(f"{seed}/{policy_name}/requirements")
    if rng.random() < 0.6:
        return []
    return rng.sample(CANDIDATES, rng.choice([1, 1, 2]))


def _cli_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Decimal):
        return str(v)
    return json.dumps(v, ensure_ascii=False)  # always quoted: the string itself, whatever it looks like


def jwtk_args(requirements) -> list[str]:
    args = []
    for pointer, kind, values in requirements:
        for v in values:
            args += [OPTION[kind], f"{pointer}={_cli_value(v)}"]
    return args


def _resolve(doc, pointer: str):
    """RFC 6901 over parsed JSON; (False, None) when absent."""
    current = doc
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict):
            if token not in current:
                return False, None
            current = current[token]
        elif isinstance(current, list):
            if not token.isdigit() or (len(token) > 1 and token[0] == "0") or int(token) >= len(current):
                return False, None
            current = current[int(token)]
        else:
            return False, None
    return True, current


def _kind(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, Decimal):
        return "number"
    if isinstance(v, str):
        return "string"
    return "other"


def _equal(claim, value) -> bool:
    return _kind(claim) == _kind(value) != "other" and claim == value


def _contains(claim, value) -> bool:
    if isinstance(claim, list):
        return any(_equal(e, value) for e in claim)
    return isinstance(value, str) and value != "" and value in claim.split(" ")


def holds(token: str, requirements) -> bool:
    """Whether every requirement holds for the (already accepted) token."""
    if not requirements:
        return True
    try:
        claims = json.loads(b64.decode_lenient(token.split(".")[1]), parse_float=Decimal, parse_int=Decimal)
    except (TypeError, ValueError):
        # A payload the oracle read but strict JSON does not (NaN, bad UTF-8): the existing rules explain
        # that disagreement; the requirement is not made its reason.
        return True
    for pointer, kind, values in requirements:
        present, claim = _resolve(claims, pointer)
        if not present:
            return False
        if kind in ("equals", "one_of"):
            ok = any(_equal(claim, v) for v in values)
        elif not isinstance(claim, (list, str)):
            ok = False
        elif kind == "contains_all":
            ok = all(_contains(claim, v) for v in values)
        else:
            ok = any(_contains(claim, v) for v in values)
        if not ok:
            return False
    return True
