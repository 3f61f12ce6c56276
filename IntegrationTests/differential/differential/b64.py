"""base64url as RFC 7515 §2 defines it (no padding), plus the raw-text helpers
the mutations need to produce encodings a strict decoder must refuse."""
import base64


def encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def decode_lenient(text: str) -> bytes | None:
    """Decodes canonical and non-canonical forms alike; None if hopeless.
    Used by the token analysis, never as a verdict."""
    try:
        t = text.replace("+", "-").replace("/", "_").rstrip("=")
        return base64.urlsafe_b64decode(t + "=" * (-len(t) % 4))
    except (ValueError, TypeError):
        return None


ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def is_canonical(text: str) -> bool:
    """The strict rule jwt-kernel documents: URL-safe alphabet, no padding, a
    length that is not 4n+1, and zero unused bits in the last character."""
    if any(c not in ALPHABET for c in text) or len(text) % 4 == 1:
        return False
    return encode(decode_lenient(text) or b"") == text


def with_nonzero_trailing_bits(text: str) -> str | None:
    """The same bytes with the last character's unused bits set (None when the
    length leaves no unused bits)."""
    unused = {2: 4, 3: 2}.get(len(text) % 4)
    if not unused or not text:
        return None
    v = ALPHABET.index(text[-1])
    return text[:-1] + ALPHABET[v | ((1 << unused) - 1)]


def with_padding(text: str) -> str | None:
    """The padded form standard base64 would produce (None when it has no padding)."""
    pad = -len(text) % 4
    return text + "=" * pad if pad else None


def with_standard_alphabet(text: str) -> str:
    return text.replace("-", "+").replace("_", "/")
