"""The JSON text itself: duplicate names, BOM, escapes and surrogates, UTF-8,
nesting depth, and syntax that only lenient parsers take."""
from . import mutation
from ..draft import j, members_json


@mutation("duplicate-members")
def duplicate_members(d, ctx):
    now, lw = ctx.policy.now, ctx.policy.leeway
    choice = ctx.rng.choice(["exp-past-then-future", "exp-future-then-past", "iss", "aud", "alg", "kid",
                             "escaped-name", "nested", "same-value", "typ"])
    if choice.startswith("exp"):
        past, future = j(now - lw - 100), j(now + lw + 3600)
        first, last = (past, future) if choice == "exp-past-then-future" else (future, past)
        d.set("claims", "exp", None)
        d.claims += [(j("exp"), first), (j("exp"), last)]
    elif choice == "iss":
        d.claims.append((j("iss"), j("https://evil.example")))
    elif choice == "aud":
        d.claims.append((j("aud"), j("evil-client")))
    elif choice == "alg":
        d.header.append((j("alg"), j("none")))
    elif choice == "kid":
        d.header.append((j("kid"), j("k9")))
    elif choice == "typ":
        d.header += [(j("typ"), j("JWT")), (j("typ"), j("JWT"))]
    elif choice == "escaped-name":
        d.claims.append(('"\\u0065xp"', j(now - lw - 100)))
    elif choice == "nested":
        d.claims.append((j("dupctx"), '{"a":1,"a":2}'))
    else:
        value = d.get("claims", "sub") or j("s")
        d.claims += [(j("sub"), value)]
    return f"duplicate {choice}"


@mutation("bom")
def bom(d, ctx):
    where = ctx.rng.choice(["header", "claims"])
    if where == "header":
        d.header_raw = b"\xef\xbb\xbf" + d.header_bytes()
    else:
        d.claims_raw = b"\xef\xbb\xbf" + d.claims_bytes()
    return f"UTF-8 BOM before the {where}"


@mutation("escapes")
def escapes(d, ctx):
    choice = ctx.rng.choice(["lone-high", "lone-low", "reversed-pair", "valid-pair", "escaped-name", "nul-in-name",
                             "cesu-bytes", "invalid-utf8", "overlong", "escaped-alg", "bad-escape", "raw-control",
                             "noncharacter", "high-then-text"])
    if choice == "lone-high":
        d.claims.append((j("esc"), '"a\\ud800b"'))
    elif choice == "lone-low":
        d.claims.append((j("esc"), '"\\udc00"'))
    elif choice == "reversed-pair":
        d.claims.append((j("esc"), '"\\udc00\\ud800"'))
    elif choice == "valid-pair":
        d.claims.append((j("esc"), '"\\ud83d\\ude00"'))
    elif choice == "high-then-text":
        d.claims.append((j("esc"), '"\\ud800\\u0041"'))
    elif choice == "escaped-name":
        d.set("claims", "sub", None)
        d.claims.append(('"\\u0073ub"', j("escaped-name-sub")))
    elif choice == "nul-in-name":
        d.claims.append(('"ex\\u0000p"', "1"))
    elif choice == "escaped-alg":
        alg = d.get("header", "alg")
        d.set("header", "alg", alg.replace(alg[1], f"\\u{ord(alg[1]):04x}", 1))
    elif choice == "bad-escape":
        d.claims.append((j("esc"), '"\\x41"'))
    elif choice == "raw-control":
        d.claims.append((j("esc"), '"a\u0001b"'))
    elif choice == "noncharacter":
        d.claims.append((j("esc"), '"\\uffff\\ufffe"'))
    else:
        raw = {"cesu-bytes": b"\xed\xa0\xbd\xed\xb8\x80", "invalid-utf8": b"\xff\xfe",
               "overlong": b"\xc0\xaf"}[choice]
        body = members_json(d.claims)
        d.claims_raw = body[:-1] + b',"esc":"' + raw + b'"}'
    return f"escape/UTF-8 {choice}"


@mutation("deep-nesting")
def deep_nesting(d, ctx):
    depth = ctx.rng.choice([30, 31, 32, 33, 64, 500, 1100])
    kind = ctx.rng.choice(["array", "object"])
    where = ctx.rng.choice(["claims", "claims", "header"])
    # The claim sits inside the top-level object, which is depth 1.
    inner = depth - 1
    if kind == "array":
        value = "[" * inner + "1" + "]" * inner
    else:
        value = '{"a":' * (inner - 1) + "1" + "}" * (inner - 1) if inner > 1 else "1"
    if where == "header":
        d.header.append((j("nest"), value))
    else:
        d.claims.append((j("nest"), value))
    return f"{kind} nesting to total depth {depth} in the {where}"


@mutation("json-syntax")
def json_syntax(d, ctx):
    choice = ctx.rng.choice(["nan", "infinity", "trailing-comma", "trailing-garbage", "leading-space", "trailing-space",
                             "single-quotes", "array-top", "string-top", "number-top", "null-top", "empty-object",
                             "leading-zero", "plus-number", "dot-number", "comment", "second-document",
                             "nul-after", "exp-trailing-dot", "uppercase-true"])
    body = members_json(d.claims)
    raw = {
        "nan": body[:-1] + b',"x":NaN}', "infinity": body[:-1] + b',"x":-Infinity}',
        "trailing-comma": body[:-1] + b",}", "trailing-garbage": body + b"x", "leading-space": b" \n\t" + body,
        "trailing-space": body + b"\r\n ", "single-quotes": body[:-1] + b",'x':1}", "array-top": b"[" + body + b"]",
        "string-top": b'"' + body.replace(b'"', b'\\"') + b'"', "number-top": b"1700000000", "null-top": b"null",
        "empty-object": b"{}", "leading-zero": body[:-1] + b',"x":01}', "plus-number": body[:-1] + b',"x":+1}',
        "dot-number": body[:-1] + b',"x":.5}', "comment": body[:-1] + b'/*c*/}', "second-document": body + body,
        "nul-after": body + b"\x00", "exp-trailing-dot": body[:-1] + b',"x":1.}', "uppercase-true": body[:-1] + b',"x":True}',
    }[choice]
    if ctx.rng.random() < 0.25 and choice in ("leading-space", "trailing-space", "trailing-garbage", "nan"):
        d.header_raw = raw.replace(body, members_json(d.header))
        return f"header JSON {choice}"
    d.claims_raw = raw
    return f"claims JSON {choice}"


def _escaped(name: str, rng) -> str:
    """The member name with one or all characters as \\u escapes."""
    if rng.random() < 0.5:
        return '"' + "".join(f"\\u{ord(c):04x}" for c in name) + '"'
    i = rng.randrange(len(name))
    return '"' + name[:i] + f"\\u{ord(name[i]):04X}" + name[i + 1:] + '"'


@mutation("escaped-names")
def escaped_names(d, ctx):
    """A registered name spelled with escapes, carrying a value that must fail:
    a verifier that matches names on raw bytes would skip the check."""
    now, lw = ctx.policy.now, ctx.policy.leeway
    choice = ctx.rng.choice(["nbf-future", "exp-past", "iss-wrong", "aud-wrong", "exp-valid", "alg-none", "crit",
                             "kid-unknown"])
    if choice in ("nbf-future", "exp-past", "iss-wrong", "aud-wrong", "exp-valid"):
        name = choice.split("-")[0]
        value = {"nbf-future": j(now + lw + 3600), "exp-past": j(now - lw - 3600), "iss-wrong": j("https://evil.example"),
                 "aud-wrong": j("evil-client"), "exp-valid": j(now + lw + 3600)}[choice]
        d.set("claims", name, None)
        d.claims.append((_escaped(name, ctx.rng), value))
    elif choice == "alg-none":
        d.set("header", "alg", None)
        d.header.append((_escaped("alg", ctx.rng), j("none")))
    elif choice == "crit":
        d.header.append((_escaped("crit", ctx.rng), j(["exp"])))
    else:
        d.set("header", "kid", None)
        d.header.append((_escaped("kid", ctx.rng), j("k9")))
    return f"escaped name: {choice}"
