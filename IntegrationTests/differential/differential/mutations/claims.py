"""Claim values: time boundaries and NumericDate forms, iss/aud shapes, types."""
from . import mutation
from ..draft import j

TIME_CLAIMS = ["exp", "nbf", "iat"]


@mutation("time-boundary")
def time_boundary(d, ctx):
    """exp/nbf/iat exactly at now, now±1, ±leeway and ±(leeway±1)."""
    name = ctx.rng.choice(TIME_CLAIMS)
    lw = ctx.policy.leeway
    offset = ctx.rng.choice(sorted({0, 1, -1, lw, -lw, lw + 1, -lw - 1, lw - 1, -lw + 1}))
    d.set("claims", name, j(ctx.policy.now + offset))
    return f"{name} = now {offset:+d} (leeway {lw})"


def _numeric_forms(now: int, lw: int) -> list[tuple[str, str]]:
    return [
        ("float +0.5", j(now + 0.5)), ("float -0.5", j(now - 0.5)),
        ("float at leeway +0.25", j(now + lw + 0.25)), ("float at -leeway -0.25", j(now - lw - 0.25)),
        ("float .0", f"{now}.0"), ("exponent form", f"{now / 1e9:.9f}e9"), ("exponent E+", f"{now / 1e9:.9f}E+9"),
        ("string", j(str(now + 3600))), ("bool true", "true"), ("bool false", "false"), ("null", "null"),
        ("1e300", "1e300"), ("1e400", "1e400"), ("-1e400", "-1e400"), ("10**30 integer", str(10**30)),
        ("2**63", str(2**63)), ("2**64+1", str(2**64 + 1)), ("negative", "-1"), ("zero", "0"), ("-0", "-0"),
        ("-0.0", "-0.0"), ("huge negative", str(-(10**20))), ("array", j([now + 3600])), ("object", '{"t":1}'),
        ("tiny fraction", f"{now + 3600}.000000000000000000001"), ("leading zero", "0" + str(now)),
        ("many digits", str(now + 3600) + "." + "9" * 40), ("2**53+1", str(2**53 + 1)),
    ]


@mutation("time-format")
def time_format(d, ctx):
    name = ctx.rng.choice(TIME_CLAIMS)
    label, value = ctx.rng.choice(_numeric_forms(ctx.policy.now, ctx.policy.leeway))
    d.set("claims", name, value)
    return f"{name} as {label}: {value[:40]}"


@mutation("exp-missing")
def exp_missing(d, ctx):
    d.set("claims", "exp", None)
    return "exp removed"


@mutation("iss-edit")
def iss_edit(d, ctx):
    current = d.get("claims", "iss") or j("https://issuer.example")
    import json
    iss = json.loads(current)
    choice = ctx.rng.choice(["escaped-solidus", "unicode-escape", "case", "trailing-slash", "number", "null",
                             "missing", "array", "other", "empty", "nul-suffix", "prefix"])
    value = {
        "escaped-solidus": j(iss).replace("/", "\\/"),
        "unicode-escape": '"' + "".join(f"\\u{ord(c):04x}" for c in iss) + '"',
        "case": j(iss.upper()), "trailing-slash": j(iss + "/"), "number": "42", "null": "null",
        "missing": None, "array": j([iss]), "other": j("https://evil.example"), "empty": j(""),
        "nul-suffix": j(iss)[:-1] + '\\u0000"', "prefix": j(iss[:-1]),
    }[choice]
    d.set("claims", "iss", value)
    return f"iss {choice}"


@mutation("aud-edit")
def aud_edit(d, ctx):
    import json
    accepted = ctx.policy.audiences[0] if ctx.policy.audiences else "some-client"
    choice = ctx.rng.choice(["list-match", "list-last", "list-nomatch", "empty-list", "empty-string", "number",
                             "list-with-number", "null", "missing", "object", "escaped", "nested-list", "dup-in-list"])
    value = {
        "list-match": j([accepted]), "list-last": j(["x", "y", accepted]), "list-nomatch": j(["x", "y"]),
        "empty-list": "[]", "empty-string": j(""), "number": "7", "list-with-number": "[" + j(accepted) + ",7]",
        "null": "null", "missing": None, "object": '{"aud":' + j(accepted) + "}",
        "escaped": '"' + "".join(f"\\u{ord(c):04x}" for c in accepted) + '"',
        "nested-list": "[" + j([accepted]) + "]", "dup-in-list": j([accepted, accepted]),
    }[choice]
    d.set("claims", "aud", value)
    _ = json
    return f"aud {choice}"


@mutation("claim-types")
def claim_types(d, ctx):
    name = ctx.rng.choice(["sub", "jti", "nonce", "azp"])
    value = ctx.rng.choice(["1", "null", "true", "[]", "{}", j(""), j("ok")])
    d.set("claims", name, value)
    return f"{name} = {value}"
