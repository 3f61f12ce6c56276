"""Names the reason for every disagreement between jwtk and the oracles.

Each rule is one row of docs/DIFFERENCES.md (same id). A rule holds when the
token has the fact it is about AND the verdicts lean the way the rule says:
- `jwtk-stricter` rules: jwtk rejects with one of the named codes while at
  least one oracle accepts;
- `oracle-stricter` rules: jwtk accepts, and the named oracle rejects with one
  of the named errors while the other oracle accepts;
- `finding` rules name a jwtk-only accept (jwtk valid, both oracles invalid).
  They never make a case pass: every jwtk-only accept counts as failed; the
  rule only says which known finding it is (see the fixtures);
- `deliberate` rules name a jwtk-only accept that is jwt-kernel's documented
  choice (a row of docs/DIFFERENCES.md with its reason): the case passes.
Anything else is unexplained, and fails the run."""
from dataclasses import dataclass
from typing import Callable

from .analysis import TokenFacts, numeric_kind
from .policies import Policy
from .verdict import Verdict

EDDSA_NAMES = {"EdDSA", "Ed25519", "Ed448"}
TIME_CLAIMS = ("exp", "nbf", "iat")


@dataclass
class Outcome:
    facts: TokenFacts
    policy: Policy
    jwtk: Verdict
    pyjwt: Verdict
    joserfc: Verdict

    @property
    def oracles(self) -> list[Verdict]:
        return [self.pyjwt, self.joserfc]

    @property
    def agree(self) -> bool:
        return self.jwtk.valid == self.pyjwt.valid == self.joserfc.valid

    @property
    def jwtk_only_accept(self) -> bool:
        return self.jwtk.valid and not self.pyjwt.valid and not self.joserfc.valid


@dataclass
class Rule:
    id: str
    kind: str                                  # "jwtk-stricter", "oracle-stricter", "finding" or "deliberate"
    summary: str
    fact: Callable[[Outcome], bool]
    jwtk_codes: tuple[str, ...] = ()           # jwtk-stricter: the codes that explain it
    oracle: str = ""                           # oracle-stricter: "pyjwt" or "joserfc"
    oracle_errors: tuple[str, ...] = ()

    def explains(self, o: Outcome) -> bool:
        if self.kind in ("finding", "deliberate"):
            return o.jwtk_only_accept and self.fact(o)
        if self.kind == "jwtk-stricter":
            return (not o.jwtk.valid and o.jwtk.error in self.jwtk_codes
                    and any(v.valid for v in o.oracles) and self.fact(o))
        strict = o.pyjwt if self.oracle == "pyjwt" else o.joserfc
        other = o.joserfc if self.oracle == "pyjwt" else o.pyjwt
        return (o.jwtk.valid and other.valid and not strict.valid
                and (not self.oracle_errors or strict.error in self.oracle_errors) and self.fact(o))


# ---- facts -------------------------------------------------------------

def _enc(issue: str) -> Callable[[Outcome], bool]:
    return lambda o: any(issue in issues for issues in o.facts.noncanonical.values())


def _claim_kind(o: Outcome, name: str) -> str | None:
    return numeric_kind(o.facts.c[name]) if name in o.facts.c else None


def _numericdate_not_number(o: Outcome) -> bool:
    return any(_claim_kind(o, n) in ("string", "bool", "null", "other", "nonfinite") for n in TIME_CLAIMS)


def _fractional_time(o: Outcome) -> bool:
    return any(_claim_kind(o, n) == "float" and o.facts.c[n] != int(o.facts.c[n]) for n in TIME_CLAIMS)


def _unchecked_claim_type(o: Outcome) -> bool:
    """iss/aud of the wrong type while the policy does not check that claim,
    or sub/jti of the wrong type (never compared by value)."""
    c = o.facts.c
    bad_iss = "iss" in c and not isinstance(c["iss"], str) and not o.policy.issuers
    aud = c.get("aud")
    bad_aud = "aud" in c and not (isinstance(aud, str) or (isinstance(aud, list) and all(isinstance(a, str) for a in aud)))
    return bad_iss or (bad_aud and not o.policy.audiences)


def _oidc_claim_type(o: Outcome) -> bool:
    c = o.facts.c
    return any(n in c and not isinstance(c[n], str) for n in ("nonce", "azp"))


def _header_member_type(o: Outcome) -> bool:
    h = o.facts.h
    return any(n in h and not isinstance(h[n], str) for n in ("typ", "kid", "cty"))


def _declared_alg(o: Outcome) -> str | None:
    return o.policy.signer.declared_alg


def _eddsa_alias(o: Outcome) -> bool:
    alg, declared = o.facts.h.get("alg"), _declared_alg(o)
    return declared in EDDSA_NAMES and alg in EDDSA_NAMES and alg != declared


def _rfc9864_name(o: Outcome) -> bool:
    return o.facts.h.get("alg") in ("Ed25519", "Ed448") or _declared_alg(o) in ("Ed25519", "Ed448")


def _kid_no_key_has_but_a_kidless_key(o: Outcome) -> bool:
    """The token names a kid no trusted key has, and a trusted key has no kid (a candidate for it)."""
    kid = o.facts.h.get("kid")
    kids = [k.kid for k in o.policy.keys]
    return isinstance(kid, str) and kid not in kids and None in kids


def _b64_false(o: Outcome) -> bool:
    return "b64" in o.facts.h and o.facts.h["b64"] is not True


# ---- rules (first match wins; ids are the rows of docs/DIFFERENCES.md) ----

RULES: list[Rule] = [
    Rule("F1-b64-false-ignored", "finding",
         "jwtk accepts a token whose protected header says \"b64\": false (without crit), verifying it as if b64 were "
         "true; PyJWT and joserfc (both implement RFC 7797) reject it",
         _b64_false),
    Rule("F2-eddsa-alias-across-declared-alg", "finding",
         "jwtk accepts EdDSA/Ed25519/Ed448 interchangeably even when the JWK declares one of them in \"alg\"; "
         "joserfc refuses the key for the other name and PyJWT allows only the declared one",
         _eddsa_alias),
    Rule("D1-kidless-key-candidate", "deliberate",
         "a key without kid verifies a token whose kid no key has (NGINX Plus and Envoy do the same; the key's own "
         "type and alg still pin the algorithm); PyJWT and joserfc find no key for the kid",
         _kid_no_key_has_but_a_kidless_key),
    Rule("S1-size-limit", "jwtk-stricter",
         "token longer than jwtk's 16 KiB limit: jwtk says too_large, the oracles have no (or a larger) limit",
         lambda o: len(o.facts.token) > 16 * 1024, jwtk_codes=("too_large",)),
    Rule("S2-b64-padding", "jwtk-stricter",
         "'=' padding in a segment: jwtk refuses it, PyJWT strips/accepts it",
         _enc("padding"), jwtk_codes=("malformed",)),
    Rule("S3-b64-standard-alphabet", "jwtk-stricter",
         "'+' or '/' (base64, not base64url) in a segment: jwtk refuses, PyJWT maps them to '-' '_'",
         _enc("standard-alphabet"), jwtk_codes=("malformed",)),
    Rule("S4-b64-junk", "jwtk-stricter",
         "a character outside the base64url alphabet: jwtk refuses, Python's base64 decoder discards it",
         _enc("junk"), jwtk_codes=("malformed",)),
    Rule("S5-b64-trailing-bits", "jwtk-stricter",
         "non-zero unused bits in a segment's last character: jwtk refuses the non-canonical form, PyJWT decodes it",
         _enc("trailing-bits"), jwtk_codes=("malformed",)),
    Rule("S6-duplicate-members", "jwtk-stricter",
         "duplicate member names in the header or claims: jwtk rejects, PyJWT and joserfc take the last",
         lambda o: o.facts.any_json("duplicates"), jwtk_codes=("malformed",)),
    Rule("S7-bom", "jwtk-stricter",
         "UTF-8 byte order mark before the header or claims JSON: jwtk rejects, Python's json.loads(bytes) skips it",
         lambda o: o.facts.any_json("bom"), jwtk_codes=("malformed",)),
    Rule("S8-utf8-surrogates", "jwtk-stricter",
         "invalid UTF-8, encoded surrogates or lone \\uD8xx escapes: jwtk rejects, Python keeps lone surrogates",
         lambda o: o.facts.any_json("invalid_utf8") or o.facts.any_json("lone_surrogate"), jwtk_codes=("malformed",)),
    Rule("S9-nesting-depth", "jwtk-stricter",
         "JSON nested deeper than 32: jwtk's documented limit; the oracles go to Python's recursion limit",
         lambda o: max(o.facts.header.depth, o.facts.claims.depth) > 32, jwtk_codes=("malformed",)),
    Rule("S10-nonstandard-literals", "jwtk-stricter",
         "NaN / Infinity literals: not JSON; Python's json module accepts them",
         lambda o: o.facts.any_json("nonstandard_literal"), jwtk_codes=("malformed",)),
    Rule("S11-header-member-type", "jwtk-stricter",
         "typ/kid/cty of a non-string type: jwtk rejects the header, PyJWT ignores typ/cty",
         _header_member_type, jwtk_codes=("malformed",)),
    Rule("S12-crit", "jwtk-stricter",
         "any crit: jwtk implements no extension and refuses every crit; joserfc takes crit [] and PyJWT/joserfc "
         "implement b64",
         lambda o: "crit" in o.facts.h, jwtk_codes=("crit_unsupported",)),
    Rule("S13-numericdate-not-a-number", "jwtk-stricter",
         "exp/nbf/iat that is not a finite JSON number (string, boolean, null, 1e400): jwtk rejects, PyJWT "
         "coerces with int()",
         _numericdate_not_number, jwtk_codes=("bad_claim_type",)),
    Rule("S14-unchecked-claim-type", "jwtk-stricter",
         "iss/aud of the wrong type while the policy does not check it: jwtk (and joserfc) type-check every "
         "registered claim, PyJWT only the ones it is asked to compare",
         _unchecked_claim_type, jwtk_codes=("bad_claim_type",)),
    Rule("S15-oidc-claim-type", "jwtk-stricter",
         "nonce/azp that is not a string: jwtk type-checks the OpenID Connect claims it knows, the oracles do not",
         _oidc_claim_type, jwtk_codes=("bad_claim_type",)),
    Rule("S16-pyjwt-truncates-time", "jwtk-stricter",
         "fractional exp/nbf/iat near a boundary: jwtk rounds the fraction toward refusal against its whole-second "
         "now (exp from its floor, nbf/iat from their ceiling), PyJWT compares int(value), joserfc the exact number",
         _fractional_time, jwtk_codes=("expired", "not_yet_valid", "issued_in_future")),
    Rule("O1-pyjwt-truncates-time", "oracle-stricter",
         "fractional exp/nbf/iat near a boundary: PyJWT compares int(value), jwtk and joserfc the exact number",
         _fractional_time, oracle="pyjwt", oracle_errors=("ExpiredSignatureError", "ImmatureSignatureError")),
    Rule("O2-pyjwt-no-rfc9864", "oracle-stricter",
         "alg Ed25519/Ed448 (RFC 9864) or a key declared for them: PyJWT does not implement the fully-specified names",
         _rfc9864_name, oracle="pyjwt", oracle_errors=("InvalidAlgorithmError", "DecodeError")),
    Rule("O3-joserfc-header-size", "oracle-stricter",
         "header segment over 512 bytes: joserfc's default max_header_length",
         lambda o: max(len(o.facts.header.raw), len(o.facts.segments[0])) > 512, oracle="joserfc",
         oracle_errors=("ExceededSizeError",)),
]

UNEXPLAINED = "unexplained"
UNEXPLAINED_JWTK_ONLY = "unexplained-jwtk-only-accept"


def classify(o: Outcome) -> str | None:
    """None when all three agree; otherwise the id of the rule that explains
    the disagreement, or one of the two unexplained labels."""
    if o.agree:
        return None
    for rule in RULES:
        if rule.explains(o):
            return rule.id
    return UNEXPLAINED_JWTK_ONLY if o.jwtk_only_accept else UNEXPLAINED


DELIBERATE = {rule.id for rule in RULES if rule.kind == "deliberate"}


def is_failure(o: Outcome, label: str | None) -> bool:
    """Failed: any jwtk-only accept (explained by a finding or not, unless a deliberate rule names it), any
    unexplained disagreement."""
    return label is not None and label not in DELIBERATE and (o.jwtk_only_accept or label == UNEXPLAINED)
