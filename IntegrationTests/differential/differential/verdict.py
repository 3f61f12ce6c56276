"""One verifier's answer for one token, with its reason mapped onto a small
shared vocabulary so reasons can be compared across implementations."""
from dataclasses import dataclass

# Shared reason classes. "format" covers everything before a key is chosen
# (encoding, JSON, header syntax, alg names); "key" is key selection.
FORMAT, ALG, KEY, SIGNATURE, EXPIRED, NOT_YET, CLAIM, OTHER = (
    "format", "alg", "key", "signature", "expired", "not-yet-valid", "claim", "other")


@dataclass(frozen=True)
class Verdict:
    valid: bool
    error: str = ""        # the implementation's own code or exception name
    reason: str = ""       # one of the shared classes above
    message: str = ""      # the implementation's message, for reports only

    def short(self) -> str:
        return "valid" if self.valid else f"invalid({self.error}: {self.message[:60]})"


JWTK_REASONS = {
    "malformed": FORMAT, "too_large": FORMAT, "crit_unsupported": FORMAT, "bad_typ": FORMAT,
    # key_alg_mismatch is "this alg is not the key's": what the oracles call an algorithm error.
    "unsupported_alg": ALG, "alg_not_allowed": ALG, "key_alg_mismatch": ALG,
    "unknown_kid": KEY,
    "bad_signature": SIGNATURE,
    "expired": EXPIRED, "not_yet_valid": NOT_YET, "issued_in_future": NOT_YET,
    "bad_issuer": CLAIM, "bad_audience": CLAIM, "missing_claim": CLAIM, "bad_claim_type": CLAIM, "bad_nonce": CLAIM,
    "unknown_issuer": CLAIM, "keys_unavailable": KEY, "claim_requirement_failed": CLAIM,
}
