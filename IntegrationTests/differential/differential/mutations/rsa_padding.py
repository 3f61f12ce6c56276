"""RSA signatures whose padding is almost right: what a loose verifier takes.
Signed with the real private key, so only the padding is wrong."""
import hashlib

from . import mutation
from .. import signer

# DER DigestInfo prefixes (RFC 8017 §9.2 note 1) and the same without the NULL parameters.
_DIGEST_INFO = {
    "256": (bytes.fromhex("3031300d060960864801650304020105000420"), bytes.fromhex("302f300b0609608648016503040201" "0420")),
    "384": (bytes.fromhex("3041300d060960864801650304020205000430"), bytes.fromhex("303f300b0609608648016503040202" "0430")),
    "512": (bytes.fromhex("3051300d060960864801650304020305000440"), bytes.fromhex("304f300b0609608648016503040203" "0440")),
}


def _pkcs1(key, digest_info: bytes, trailing: bytes = b"", pad_byte: int = 0xFF) -> bytes:
    k = (key.private.public_key().public_numbers().n.bit_length() + 7) // 8
    t = digest_info + trailing
    return signer.rsa_raw_sign(key.private, b"\x00\x01" + bytes([pad_byte]) * (k - len(t) - 3) + b"\x00" + t)


@mutation("rsa-padding", resignable=False)
def rsa_padding(d, ctx):
    if d.key is None or d.key.kty != "RSA" or d.hmac_secret is not None:
        return None
    d.resign = True   # the signature itself is the edit
    bits = d.alg[2:5]
    h = {"256": hashlib.sha256, "384": hashlib.sha384, "512": hashlib.sha512}[bits]
    if d.alg.startswith("PS"):
        choice = ctx.rng.choice(["salt-0", "salt-20", "salt-max", "mgf1-sha1"])
        salt = {"salt-0": 0, "salt-20": 20, "salt-max": None, "mgf1-sha1": None}[choice]
        k = (d.key.private.public_key().public_numbers().n.bit_length() + 6) // 8
        if choice == "salt-max":
            salt = k - h().digest_size - 2
        mgf = hashlib.sha1 if choice == "mgf1-sha1" else None
        d.sign_override = lambda data, rng: signer.pss_variant(d.alg, d.key, data, rng, salt, mgf)
        return f"PSS with {choice} (RFC 7518 §3.5: salt = hash length, MGF1 with the same hash)"
    choice = ctx.rng.choice(["no-null", "trailing-garbage", "short-padding", "wrong-hash-oid"])
    with_null, without_null = _DIGEST_INFO[bits]

    def make(data, _rng):
        digest = h(data).digest()
        if choice == "no-null":
            return _pkcs1(d.key, without_null + digest)
        if choice == "trailing-garbage":
            return _pkcs1(d.key, with_null + digest, trailing=b"\x00" * 8)
        if choice == "short-padding":
            return _pkcs1(d.key, with_null + digest, pad_byte=0x00)
        other = _DIGEST_INFO["384" if bits == "256" else "256"][0]
        return _pkcs1(d.key, other[:-1] + bytes([len(digest)]) + digest)
    d.sign_override = make
    return f"PKCS#1 v1.5 with {choice}"
