"""joserfc under a policy. Aligned with the jwtk CLI where joserfc's defaults
differ by policy:
- `now` and leeway are passed to the claims registry;
- `exp` is essential; iss/aud essential with the accepted values when set;
- unknown header members are ignored (`strict_check_header=False`), as
  RFC 7515 §4 requires of members not listed in `crit`;
- keys: the policy's key set as a joserfc KeySet, chosen by joserfc itself."""
import warnings

from joserfc import jwt
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry
from joserfc.jwt import JWTClaimsRegistry

from . import requirements
from .policies import Policy
from .verdict import ALG, CLAIM, EXPIRED, FORMAT, KEY, OTHER, SIGNATURE, Verdict

_REASONS = {
    "BadSignatureError": SIGNATURE, "ExpiredTokenError": EXPIRED, "MissingClaimError": CLAIM,
    "InvalidClaimError": CLAIM, "UnsupportedAlgorithmError": ALG, "InvalidKeyIdError": KEY,
    "InvalidKeyTypeError": KEY, "InvalidKeyCurveError": KEY, "DecodeError": FORMAT, "InvalidPayloadError": FORMAT,
    "MissingAlgorithmError": FORMAT, "UnsupportedHeaderError": FORMAT, "MissingCritHeaderError": FORMAT,
    "InvalidHeaderValueError": FORMAT, "ExceededSizeError": FORMAT, "MissingHeaderError": FORMAT,
}


def _reason(error: Exception) -> str:
    if type(error).__name__ == "InvalidClaimError" and ("not yet valid" in str(error) or "in the future" in str(error)):
        return "not-yet-valid"
    return _REASONS.get(type(error).__name__, OTHER)


def verify_batch(policy: Policy, tokens: list[str]) -> list[Verdict]:
    keyset = KeySet.import_key_set({"keys": [dict(k.jwk) for k in policy.keys]})
    registry = JWSRegistry(algorithms=list(policy.signer.allowed_algs), strict_check_header=False)
    options = {"exp": {"essential": True}}
    if policy.issuers:
        options["iss"] = {"essential": True, "values": list(policy.issuers)}
    if policy.audiences:
        options["aud"] = {"essential": True, "values": list(policy.audiences)}
    claims_rules = JWTClaimsRegistry(now=policy.now, leeway=policy.leeway, **options)
    out = []
    for token in tokens:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                decoded = jwt.decode(token, keyset, registry=registry)
                claims_rules.validate(decoded.claims)
            out.append(Verdict(True) if requirements.holds(token, policy.requirements)
                       else Verdict(False, "RequirementNotMet", CLAIM))
        except Exception as error:  # noqa: BLE001  (any failure is a rejection; the name is kept)
            out.append(Verdict(False, type(error).__name__, _reason(error), str(error)[:200]))
    return out
