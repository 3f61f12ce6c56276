"""A token under construction: header and claims as raw JSON members (so
mutations can write what no JSON library would: duplicates, lone surrogates,
odd numbers), then the encoding and signature steps, each with hooks."""
import json
import random
from dataclasses import dataclass, field
from typing import Callable

from . import b64, signer
from .keys import TestKey


def j(value) -> str:
    """Compact JSON text of a Python value, UTF-8 left unescaped like most issuers."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def members_json(members: list[tuple[str, str]]) -> bytes:
    return ("{" + ",".join(f"{n}:{v}" for n, v in members) + "}").encode("utf-8", "surrogatepass")


@dataclass
class Draft:
    """Members are (name as JSON text, value as JSON text)."""
    header: list[tuple[str, str]]
    claims: list[tuple[str, str]]
    alg: str                               # the algorithm the signature is made with
    key: TestKey | None                    # the key it is made with (None: see hmac_secret)
    hmac_secret: bytes | None = None       # key-confusion: an HMAC tag over a public key's bytes
    header_raw: bytes | None = None        # replaces the serialized header when set
    claims_raw: bytes | None = None
    resign: bool = True                    # False: keep the unmutated token's signature
    text_hooks: list[Callable[[str, str], tuple[str, str]]] = field(default_factory=list)
    sig_bytes_hooks: list[Callable[[bytes], bytes]] = field(default_factory=list)
    sig_text_hooks: list[Callable[[str], str]] = field(default_factory=list)
    join: Callable[[str, str, str], str] | None = None
    sign_override: Callable[[bytes, random.Random], bytes] | None = None   # a deliberately malformed signature

    def get(self, which: str, name: str) -> str | None:
        for n, v in getattr(self, which):
            if n == j(name):
                return v
        return None

    def set(self, which: str, name: str, value_json: str | None) -> None:
        """Replaces (or appends, or with None removes) a member."""
        members = [(n, v) for n, v in getattr(self, which) if n != j(name) or value_json is not None]
        members = [(n, value_json if n == j(name) else v) for n, v in members]
        if value_json is not None and all(n != j(name) for n, _ in members):
            members.append((j(name), value_json))
        setattr(self, which, members)

    def header_bytes(self) -> bytes:
        return self.header_raw if self.header_raw is not None else members_json(self.header)

    def claims_bytes(self) -> bytes:
        return self.claims_raw if self.claims_raw is not None else members_json(self.claims)

    def signature(self, signing_input: bytes, rng: random.Random) -> bytes:
        if self.sign_override is not None:
            return self.sign_override(signing_input, rng)
        if self.hmac_secret is not None:
            return signer.hmac_tag(self.hmac_secret, self.alg, signing_input)
        return signer.sign(self.alg, self.key, signing_input, rng)


def assemble(draft: Draft, original_signature: bytes | None, rng: random.Random) -> str:
    h, p = b64.encode(draft.header_bytes()), b64.encode(draft.claims_bytes())
    for hook in draft.text_hooks:
        h, p = hook(h, p)
    if draft.resign or original_signature is None:
        sig = draft.signature(f"{h}.{p}".encode("utf-8", "surrogatepass"), rng)
    else:
        sig = original_signature
    for hook in draft.sig_bytes_hooks:
        sig = hook(sig)
    s = b64.encode(sig)
    for hook in draft.sig_text_hooks:
        s = hook(s)
    return draft.join(h, p, s) if draft.join else f"{h}.{p}.{s}"
