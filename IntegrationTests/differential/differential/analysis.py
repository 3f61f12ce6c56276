"""Facts about a token read from its text alone (never from how it was made),
so the classifier explains a saved fixture exactly as it explains a fresh case.
Decoding here is deliberately lenient: it must see what a lenient verifier sees."""
import json
import math
from dataclasses import dataclass, field

from . import b64

SEGMENT_NAMES = ("header", "payload", "signature")
BOM = b"\xef\xbb\xbf"


class _Duplicate(Exception):
    pass


@dataclass
class JSONFacts:
    """What a strict RFC 8259 reader would object to in one decoded segment."""
    raw: bytes = b""
    value: object = None          # lenient parse, last duplicate wins; None if unparseable
    parsed: bool = False
    bom: bool = False
    invalid_utf8: bool = False    # strict UTF-8 decoding fails (includes encoded surrogates)
    lone_surrogate: bool = False  # a \uD800-\uDFFF escape not in a proper pair
    duplicates: bool = False
    depth: int = 0
    nonstandard_literal: bool = False   # NaN, Infinity, -Infinity


def _walk(value):
    """(depth, has_surrogate) without recursion: nesting may exceed Python's stack."""
    depth, surrogate = 0, False
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            depth = max(depth, d + 1)
            for k, x in v.items():
                surrogate = surrogate or any(0xD800 <= ord(c) <= 0xDFFF for c in k)
                stack.append((x, d + 1))
        elif isinstance(v, list):
            depth = max(depth, d + 1)
            stack.extend((x, d + 1) for x in v)
        elif isinstance(v, str):
            surrogate = surrogate or any(0xD800 <= ord(c) <= 0xDFFF for c in v)
    return depth, surrogate


def json_facts(raw: bytes | None) -> JSONFacts:
    f = JSONFacts(raw=raw or b"")
    if raw is None:
        return f
    f.bom = raw.startswith(BOM)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        f.invalid_utf8 = True
    body = raw[len(BOM):] if f.bom else raw
    try:
        # What Python's json.loads(bytes) does: encoded surrogates pass through.
        text = body.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        text = body.decode("utf-8", "replace")

    def constant(name):
        f.nonstandard_literal = True
        return float(name.replace("Infinity", "inf"))

    def pairs_dup(pairs):
        if len({k for k, _ in pairs}) != len(pairs):
            f.duplicates = True
        return dict(pairs)

    try:
        f.value = json.loads(text, object_pairs_hook=pairs_dup, parse_constant=constant)
        f.parsed = True
    except (ValueError, RecursionError):
        pass
    if f.parsed:
        f.depth, f.lone_surrogate = _walk(f.value)
    return f


@dataclass
class TokenFacts:
    token: str
    segments: list[str]
    noncanonical: dict = field(default_factory=dict)   # segment -> list of issues
    header: JSONFacts = field(default_factory=JSONFacts)
    claims: JSONFacts = field(default_factory=JSONFacts)

    @property
    def h(self) -> dict:
        return self.header.value if isinstance(self.header.value, dict) else {}

    @property
    def c(self) -> dict:
        return self.claims.value if isinstance(self.claims.value, dict) else {}

    def any_json(self, attr: str) -> bool:
        return getattr(self.header, attr) or getattr(self.claims, attr)


def _encoding_issues(text: str) -> list[str]:
    issues = []
    if "=" in text:
        issues.append("padding")
    if "+" in text or "/" in text:
        issues.append("standard-alphabet")
    if any(c not in b64.ALPHABET + "+/=" for c in text):
        issues.append("junk")
    stripped = text.rstrip("=")
    if len(stripped) % 4 == 1:
        issues.append("length")
    elif not issues and not b64.is_canonical(text):
        issues.append("trailing-bits")
    return issues


def analyse(token: str) -> TokenFacts:
    segments = token.split(".")
    facts = TokenFacts(token, segments)
    for name, seg in zip(SEGMENT_NAMES, segments):
        issues = _encoding_issues(seg)
        if issues:
            facts.noncanonical[name] = issues
    if len(segments) >= 2:
        facts.header = json_facts(b64.decode_lenient(segments[0]))
        facts.claims = json_facts(b64.decode_lenient(segments[1]))
    return facts


def numeric_kind(v) -> str:
    """How a NumericDate value reads: 'int', 'float', 'nonfinite', 'bool', 'string', 'null', 'other'."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float" if math.isfinite(v) else "nonfinite"
    if isinstance(v, str):
        return "string"
    if v is None:
        return "null"
    return "other"
