#!/usr/bin/env python3
"""Builds an RSA-2048 public key with the ROCA structure (CVE-2017-15361, Nemec et al. 2017):
both primes are k*M + (65537^a mod M), M the primorial of the primes up to 167, as the flawed
Infineon library made them. Such a modulus carries the fingerprint the kernel refuses. Written
to roca-jwk.json; the private half is thrown away. Deterministic from the seed."""
import base64, json, random

SMALL = [3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73,
         79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167]
M = 2
for p in SMALL:
    M *= p

def probably_prime(n, rng):
    if n < 2 or any(n % p == 0 for p in SMALL):
        return False
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for _ in range(40):
        x = pow(rng.randrange(2, n - 1), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True

def roca_prime(rng):
    while True:
        # p in [2^1023.5, 2^1024), so that the product of two has exactly 2048 bits.
        k = rng.randrange(int(2 ** 1023.5) // M + 1, (1 << 1024) // M - 1)
        p = k * M + pow(65537, rng.randrange(1, 1 << 20), M)
        if p.bit_length() == 1024 and probably_prime(p, rng):
            return p

def b64u(n):
    return base64.urlsafe_b64encode(n.to_bytes((n.bit_length() + 7) // 8, "big")).rstrip(b"=").decode()

rng = random.Random(15361)
while True:
    n = roca_prime(rng) * roca_prime(rng)
    if n.bit_length() == 2048:
        break
json.dump({"kty": "RSA", "kid": "roca-2048", "use": "sig", "n": b64u(n), "e": b64u(65537)},
          open("roca-jwk.json", "w"), indent=1)
