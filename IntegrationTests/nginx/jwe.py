"""JWE compact tokens (RFC 7516 section 7.1) for the nginx tests, made with `cryptography` directly (the pinned
version in requirements.txt): key management "dir" and "RSA-OAEP-256", content encryption A256GCM. Options make
the tokens the module must refuse: a "zip" header (compressed plaintext) and RSA1_5 key transport."""

import json
import os
import zlib

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mint import b64, uint


def compact(header, encrypted_key, cek, plaintext, zip_=False):
    """The five segments: the protected header is the AAD (RFC 7516 section 5.1 step 14)."""
    if zip_:
        header = {**header, "zip": "DEF"}
        deflate = zlib.compressobj(wbits=-15)
        plaintext = deflate.compress(plaintext) + deflate.flush()
    protected = b64(json.dumps(header, separators=(",", ":")).encode())
    iv = os.urandom(12)
    sealed = AESGCM(cek).encrypt(iv, plaintext, protected.encode())
    return ".".join([protected, b64(encrypted_key), b64(iv), b64(sealed[:-16]), b64(sealed[-16:])])


class DirKey:
    """A 256-bit key for "dir" + A256GCM: the key is the content key."""

    def __init__(self, kid, secret=None):
        self.kid, self.alg, self.secret = kid, "dir", secret or os.urandom(32)

    def jwk(self):
        j = {"kty": "oct", "alg": "dir", "use": "enc", "k": b64(self.secret)}
        return {"kid": self.kid, **j} if self.kid is not None else j

    def encrypt(self, plaintext, cty=None, zip_=False, alg=None):
        header = {"alg": "dir", "enc": "A256GCM"}
        if self.kid is not None:
            header["kid"] = self.kid
        if cty:
            header["cty"] = cty
        return compact(header, b"", self.secret, plaintext, zip_)


class RsaOaepKey:
    """An RSA-2048 recipient key for RSA-OAEP-256 + A256GCM; its JWK and PEM are the private key (a key file of
    decryption keys holds private keys). alg="RSA1_5" makes a token with PKCS #1 v1.5 key transport instead."""

    def __init__(self, kid):
        self.kid, self.alg = kid, "RSA-OAEP-256"
        self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def jwk(self):
        pr = self.private.private_numbers()
        pu = pr.public_numbers
        j = {"kty": "RSA", "alg": self.alg, "use": "enc", "n": uint(pu.n), "e": uint(pu.e), "d": uint(pr.d),
             "p": uint(pr.p), "q": uint(pr.q), "dp": uint(pr.dmp1), "dq": uint(pr.dmq1), "qi": uint(pr.iqmp)}
        return {"kid": self.kid, **j} if self.kid is not None else j

    def pem(self):
        return self.private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption())

    def encrypt(self, plaintext, cty=None, zip_=False, alg=None):
        alg = alg or self.alg
        cek = os.urandom(32)
        public = self.private.public_key()
        if alg == "RSA1_5":
            encrypted_key = public.encrypt(cek, padding.PKCS1v15())
        else:
            encrypted_key = public.encrypt(cek, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()),
                                                             algorithm=hashes.SHA256(), label=None))
        header = {"alg": alg, "enc": "A256GCM"}
        if self.kid is not None:
            header["kid"] = self.kid
        if cty:
            header["cty"] = cty
        return compact(header, encrypted_key, cek, plaintext, zip_)
