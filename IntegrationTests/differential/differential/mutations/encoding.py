"""base64url forms other than the canonical one (RFC 7515 §2, RFC 4648 §3.5 and §5)."""
from . import mutation
from .. import b64
from ..draft import j

SEGMENTS = ["header", "payload", "signature"]


def _on_segment(d, segment: str, fn) -> None:
    if segment == "signature":
        d.sig_text_hooks.append(lambda s: fn(s) or s)
    elif segment == "header":
        d.text_hooks.append(lambda h, p: (fn(h) or h, p))
    else:
        d.text_hooks.append(lambda h, p: (h, fn(p) or p))


@mutation("b64-trailing-bits")
def trailing_bits(d, ctx):
    segment = ctx.rng.choice(SEGMENTS)
    _on_segment(d, segment, b64.with_nonzero_trailing_bits)
    return f"non-zero unused bits in the {segment}'s last character"


@mutation("b64-padding")
def padding(d, ctx):
    segment = ctx.rng.choice(SEGMENTS)
    extra = ctx.rng.random() < 0.2
    _on_segment(d, segment, (lambda t: t + "==") if extra else b64.with_padding)
    return f"'=' padding on the {segment}{' (always two)' if extra else ''}"


@mutation("b64-std-alphabet")
def std_alphabet(d, ctx):
    segment = ctx.rng.choice(SEGMENTS)
    # Plain ASCII JSON rarely encodes to '-' or '_'; a member of high code
    # points does (0xFB 0xFF ... give 62 and 63), so the edit has something to change.
    if segment == "header":
        d.header.append((j("x"), j("\u00ff\u00fe?>~")))
    elif segment == "payload":
        d.claims.append((j("x"), j("\u00ff\u00fe?>~")))
    _on_segment(d, segment, b64.with_standard_alphabet)
    return f"standard alphabet (+/) in the {segment}"


@mutation("b64-junk")
def junk(d, ctx):
    segment = ctx.rng.choice(SEGMENTS)
    ch = ctx.rng.choice(["*", "!", "~", "%", "$", "\\"])
    pos = ctx.rng.randrange(10**6)
    _on_segment(d, segment, lambda t: t[:pos % (len(t) + 1)] + ch + t[pos % (len(t) + 1):])
    return f"non-alphabet {ch!r} inside the {segment}"


@mutation("b64-length")
def bad_length(d, ctx):
    """A length of 4n+1 cannot be base64 at all; one character dropped changes the bytes."""
    segment = ctx.rng.choice(SEGMENTS)
    add = ctx.rng.random() < 0.5
    _on_segment(d, segment, (lambda t: t + "A") if add else (lambda t: t[:-1]))
    return f"{segment} {'one character longer' if add else 'one character shorter'}"
