"""PyJWT under a policy. Aligned with the jwtk CLI where PyJWT's defaults
differ by policy rather than by reading of the RFCs:
- the clock is frozen at the policy's `now` (PyJWT reads datetime.now);
- `exp` is required (jwt-kernel's default, RFC 8725 §3.10 spirit);
- `aud` is not checked when the policy names no audience (PyJWT otherwise
  rejects any token carrying `aud`; jwtk checks `aud` only when asked);
- keys come from the policy's key set by `kid`, or the single key when the
  token has none, as an application with a JWKS would pick them."""
import warnings
from datetime import datetime, timezone

import jwt
import jwt.api_jwt as api_jwt

from . import requirements
from .policies import Policy
from .verdict import ALG, CLAIM, EXPIRED, FORMAT, KEY, NOT_YET, OTHER, SIGNATURE, Verdict


class _FrozenClock(datetime):
    """Stands in for `datetime` inside jwt.api_jwt: `now()` is the policy's time."""
    frozen = 0.0

    @classmethod
    def now(cls, tz=None):
        return datetime.fromtimestamp(cls.frozen, tz=tz or timezone.utc)


api_jwt.datetime = _FrozenClock


_REASONS = {
    "DecodeError": FORMAT, "InvalidTokenError": FORMAT, "InvalidSignatureError": SIGNATURE,
    "ExpiredSignatureError": EXPIRED, "ImmatureSignatureError": NOT_YET, "InvalidAudienceError": CLAIM,
    "InvalidIssuerError": CLAIM, "MissingRequiredClaimError": CLAIM, "InvalidIssuedAtError": CLAIM,
    "InvalidSubjectError": CLAIM, "InvalidJTIError": CLAIM, "InvalidAlgorithmError": ALG, "InvalidKeyError": KEY,
    "NoKeyForKid": KEY,
}
_SUPPORTED = set(jwt.algorithms.get_default_algorithms()) - {"none"}


def _reason(error: Exception) -> str:
    name = type(error).__name__
    if name == "DecodeError" and "must be an integer" in str(error):
        return CLAIM   # PyJWT raises DecodeError for a non-numeric exp/nbf
    return _REASONS.get(name, OTHER)


def verify_batch(policy: Policy, tokens: list[str]) -> list[Verdict]:
    _FrozenClock.frozen = float(policy.now)
    verifier = jwt.PyJWT()
    allowed = [a for a in policy.signer.allowed_algs if a in _SUPPORTED]
    options = {"require": ["exp"], "verify_aud": bool(policy.audiences)}
    out = []
    for token in tokens:
        try:
            header = jwt.get_unverified_header(token)
            if "kid" in header:
                keys = [k for k in policy.keys if k.kid is not None and k.kid == header["kid"]]
            else:
                keys = policy.keys if len(policy.keys) == 1 else []
            if not keys:
                out.append(Verdict(False, "NoKeyForKid", KEY))
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                verifier.decode(token, key=keys[0].public, algorithms=allowed, options=options,
                                audience=policy.audiences or None, issuer=policy.issuers or None,
                                leeway=policy.leeway)
            out.append(Verdict(True) if requirements.holds(token, policy.requirements)
                       else Verdict(False, "RequirementNotMet", CLAIM))
        except Exception as error:  # noqa: BLE001  (any failure is a rejection; the name is kept)
            out.append(Verdict(False, type(error).__name__, _reason(error), str(error)[:200]))
    return out
