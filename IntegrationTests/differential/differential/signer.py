"""Produces JWS signatures over raw signing-input bytes, independently of the
libraries under comparison (only `cryptography` and `hashlib`). Every
signature is deterministic: PKCS#1 v1.5, RFC 6979 ECDSA and EdDSA are by
construction, and PSS takes its salt from the case's seeded generator."""
import hashlib
import hmac
import random

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, utils

from .keys import TestKey

_HASHES = {"256": (hashlib.sha256, hashes.SHA256), "384": (hashlib.sha384, hashes.SHA384),
           "512": (hashlib.sha512, hashes.SHA512)}


def _hash_for(alg: str):
    return _HASHES[alg[2:5]] if alg != "ES256K" else _HASHES["256"]


def hmac_tag(secret: bytes, alg: str, signing_input: bytes) -> bytes:
    return hmac.new(secret, signing_input, _hash_for(alg)[0]).digest()


def _mgf1(seed: bytes, length: int, h) -> bytes:
    out = b""
    counter = 0
    while len(out) < length:
        out += h(seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return out[:length]


def rsa_raw_sign(key, encoded_message: bytes) -> bytes:
    """RSASP1 over an encoded message the caller built (RFC 8017 §5.2.1)."""
    numbers = key.private_numbers()
    n = numbers.public_numbers.n
    return pow(int.from_bytes(encoded_message, "big"), numbers.d, n).to_bytes((n.bit_length() + 7) // 8, "big")


def _pss_sign(key, alg: str, message: bytes, rng: random.Random, salt_length: int | None = None,
              mgf_hash=None) -> bytes:
    """RFC 8017 §9.1.1 EMSA-PSS-ENCODE with salt length = hash length (RFC 7518
    §3.5) unless told otherwise, then RSASP1 with the private exponent."""
    h = _hash_for(alg)[0]
    numbers = key.private_numbers()
    n, d = numbers.public_numbers.n, numbers.d
    mod_bits = n.bit_length()
    em_bits = mod_bits - 1
    em_len = (em_bits + 7) // 8
    m_hash = h(message).digest()
    h_len = len(m_hash)
    salt = rng.randbytes(h_len if salt_length is None else salt_length)
    hh = h(b"\x00" * 8 + m_hash + salt).digest()
    db = b"\x00" * (em_len - len(salt) - h_len - 2) + b"\x01" + salt
    masked = bytes(a ^ b for a, b in zip(db, _mgf1(hh, em_len - h_len - 1, mgf_hash or h)))
    masked = bytes([masked[0] & (0xFF >> (8 * em_len - em_bits))]) + masked[1:]
    em = int.from_bytes(masked + hh + b"\xbc", "big")
    return pow(em, d, n).to_bytes((mod_bits + 7) // 8, "big")


def pss_variant(alg: str, key: TestKey, signing_input: bytes, rng: random.Random, salt_length: int | None,
                mgf_hash=None) -> bytes:
    return _pss_sign(key.private, alg, signing_input, rng, salt_length, mgf_hash)


def sign(alg: str, key: TestKey, signing_input: bytes, rng: random.Random) -> bytes:
    """The signature `alg` makes with `key`; the caller has chosen a pair that fits
    (a mismatched pair is a mutation, built explicitly where it is wanted)."""
    if alg.startswith("HS"):
        return hmac_tag(key.private, alg, signing_input)
    if alg.startswith("RS"):
        return key.private.sign(signing_input, padding.PKCS1v15(), _hash_for(alg)[1]())
    if alg.startswith("PS"):
        return _pss_sign(key.private, alg, signing_input, rng)
    if alg.startswith("ES"):
        der = key.private.sign(signing_input, ec.ECDSA(_hash_for(alg)[1](), deterministic_signing=True))
        r, s = utils.decode_dss_signature(der)
        size = (key.private.curve.key_size + 7) // 8
        return r.to_bytes(size, "big") + s.to_bytes(size, "big")
    if alg in ("EdDSA", "Ed25519", "Ed448"):
        return key.private.sign(signing_input)
    raise ValueError(f"cannot sign {alg}")
