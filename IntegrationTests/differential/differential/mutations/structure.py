"""Bit flips inside a segment's bytes and changes to the segment structure."""
from . import mutation
from .. import b64


def _flip(data: bytes, pos: int) -> bytes:
    if not data:
        return data
    i = pos % (len(data) * 8)
    return data[:i // 8] + bytes([data[i // 8] ^ (1 << (i % 8))]) + data[i // 8 + 1:]


@mutation("header-bitflip")
def header_bitflip(d, ctx):
    pos = ctx.rng.randrange(10**6)
    d.header_raw = _flip(d.header_bytes(), pos)
    return f"header bit {pos} (mod length) flipped"


@mutation("payload-bitflip")
def payload_bitflip(d, ctx):
    pos = ctx.rng.randrange(10**6)
    d.claims_raw = _flip(d.claims_bytes(), pos)
    return f"payload bit {pos} (mod length) flipped"


@mutation("segments-swapped", resignable=False)
def segments_swapped(d, ctx):
    how = ctx.rng.choice(["p-h-s", "s-p-h", "h-s-p", "s-h-p"])
    orders = {"s-h-p": lambda h, p, s: f"{s}.{h}.{p}", "p-h-s": lambda h, p, s: f"{p}.{h}.{s}",
              "s-p-h": lambda h, p, s: f"{s}.{p}.{h}", "h-s-p": lambda h, p, s: f"{h}.{s}.{p}"}
    d.join = orders[how]
    return f"segments reordered ({how})"


@mutation("segment-count", resignable=False)
def segment_count(d, ctx):
    how = ctx.rng.choice(["two", "four", "five", "trailing-dot", "leading-dot", "empty-payload"])
    joins = {
        "two": lambda h, p, s: f"{h}.{p}",
        "four": lambda h, p, s: f"{h}.{p}.{s}.{s}",
        "five": lambda h, p, s: f"{h}.{p}.{s}.{p}.{s}",
        "trailing-dot": lambda h, p, s: f"{h}.{p}.{s}.",
        "leading-dot": lambda h, p, s: f".{h}.{p}.{s}",
        "empty-payload": lambda h, p, s: f"{h}..{s}",
    }
    d.join = joins[how]
    return f"segment structure: {how}"


@mutation("oversize")
def oversize(d, ctx):
    """Beyond jwt-kernel's 16 KiB default limit (README: too_large before decoding)."""
    n = ctx.rng.choice([10_500, 20_000])
    d.set("claims", "blob", '"' + "x" * n + '"')
    return f"{n}-character claim"


@mutation("payload-b64-text")
def payload_b64_text(d, ctx):
    """The header base64url-encoded twice, or the signing input's payload left
    empty: encodings that decode to something a lenient reader might take."""
    twice = ctx.rng.random() < 0.5
    if twice:
        d.claims_raw = b64.encode(d.claims_bytes()).encode()
        return "payload base64url-encoded twice"
    d.claims_raw = b""
    return "payload empty (zero bytes)"
