"""Signature bytes changed after signing (never re-signed: the signature is the edit)."""
from cryptography.hazmat.primitives.asymmetric import utils

from . import mutation
from ..keys import EC_CURVES

# Group orders, for the high-S form of an ECDSA signature.
_ORDERS = {
    "P-256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    "P-384": int("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973", 16),
    "P-521": int("01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB71E91386409", 16),
    "secp256k1": 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141,
}


@mutation("sig-bitflip", resignable=False)
def sig_bitflip(d, ctx):
    pos = ctx.rng.randrange(10**6)

    def flip(sig):
        if not sig:
            return sig
        i = pos % (len(sig) * 8)
        return sig[:i // 8] + bytes([sig[i // 8] ^ (1 << (i % 8))]) + sig[i // 8 + 1:]
    d.sig_bytes_hooks.append(flip)
    return f"bit {pos} (mod length) flipped"


@mutation("sig-truncate", resignable=False)
def sig_truncate(d, ctx):
    n = ctx.rng.choice([1, 1, 2, 16, 10**6])
    d.sig_bytes_hooks.append(lambda s: s[:-n] if n < len(s) else b"")
    return f"last {n} bytes dropped" if n < 10**6 else "signature emptied"


@mutation("sig-extend", resignable=False)
def sig_extend(d, ctx):
    extra = ctx.rng.choice([b"\x00", b"\x00\x00", ctx.rng.randbytes(1), ctx.rng.randbytes(32)])
    prepend = ctx.rng.random() < 0.3
    d.sig_bytes_hooks.append(lambda s: extra + s if prepend else s + extra)
    return f"{len(extra)} bytes {'prepended' if prepend else 'appended'}"


@mutation("sig-zero", resignable=False)
def sig_zero(d, ctx):
    d.sig_bytes_hooks.append(lambda s: b"\x00" * len(s))
    return "signature bytes all zero (ECDSA r = s = 0)"


@mutation("sig-ecdsa-form", resignable=False)
def sig_ecdsa_form(d, ctx):
    """DER instead of raw r||s (CVE-2022-21449-style confusion), or the
    malleable high-S twin of a valid signature (RFC 7518 does not forbid it)."""
    if not d.alg.startswith("ES"):
        return None
    crv = next(c for c, (_, a) in EC_CURVES.items() if a == d.alg)
    if ctx.rng.random() < 0.5:
        d.sig_bytes_hooks.append(lambda s: utils.encode_dss_signature(
            int.from_bytes(s[:len(s) // 2], "big"), int.from_bytes(s[len(s) // 2:], "big")))
        return "ECDSA signature in DER instead of raw r||s"
    order = _ORDERS[crv]
    d.sig_bytes_hooks.append(lambda s: s[:len(s) // 2] + (order - int.from_bytes(s[len(s) // 2:], "big")).to_bytes(len(s) // 2, "big"))
    return "ECDSA high-S twin (s -> n - s), still a valid signature"


_ED25519_L = 2**252 + 27742317777372353535851937790883648493


@mutation("sig-eddsa-s-plus-l", resignable=False)
def sig_eddsa_s_plus_l(d, ctx):
    """Ed25519 S replaced by S + L: the same point equation holds, but RFC 8032
    §5.1.7 requires S < L (signature malleability)."""
    if d.key is None or d.key.crv != "Ed25519" or d.alg not in ("EdDSA", "Ed25519"):
        return None

    def malleate(sig):
        s = int.from_bytes(sig[32:], "little") + _ED25519_L
        return sig[:32] + s.to_bytes(32, "little") if s < 2**256 else sig
    d.sig_bytes_hooks.append(malleate)
    return "Ed25519 S + L"


@mutation("sig-other-key", resignable=False)
def sig_other_key(d, ctx):
    """Signed by the other trusted key (the decoy) or by an untrusted one, under
    the first key's kid (or the decoy's own kid, which is valid)."""
    decoy = ctx.policy.decoy
    if decoy is None:
        return None
    if ctx.rng.random() < 0.5:
        d.key = decoy
        d.resign = True
        return "signed by the decoy key under kid k1"
    d.key = decoy
    d.resign = True
    d.set("header", "kid", '"k2"')
    return "signed by the decoy key under its own kid k2 (valid)"
