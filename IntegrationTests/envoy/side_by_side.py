#!/usr/bin/env python3
"""The jwt-kernel module beside Envoy's own jwt_authn, in the same Envoy 1.40, on the same keys served by the same
key server and the same policy (issuer, audience, RS256/ES256/HS256, 60 s of clock skew). Driven by run.sh:

    side_by_side.py --envoy BIN --module-dir DIR --work DIR [--load SECONDS] [--rounds N] [--instructions N]

One Envoy (--concurrency 1: one worker), eight listeners, every route a direct_response 200:
  nocheck       no filter
  floor         a dynamic module that does nothing (floor_module.c): what Envoy spends on any dynamic-module
                filter, which the jwtk module pays too and jwt_authn, compiled into Envoy, does not
  module        the jwtk module, keys from jwks_url (/jwks: the RS256 and ES256 keys and an HS256 secret)
  module_cached the same with libjwtk's verified-token cache ("cache": true)
  module_hs     the module on /hs-jwks (the HS256 secret alone: libjwtk drops a secret published beside
                public keys, one of the documented differences)
  authn, authn_cached, authn_hs   jwt_authn, one provider with remote_jwks on the same URLs (async_fetch), the
                cached one with jwt_cache_config
Verdicts: every case is sent to both; where the two filters are meant to agree, the statuses must be equal; where
they differ by design (DIFFERENCES below, each with its reason; docs/ENVOY.md lists them), the test checks that
each answers as stated, so the documented table is what Envoy does.
Load (--load SECONDS > 0): wrk -t1 -c32 with distinct tokens for RS256, ES256 and HS256, one repeated token for the
cached rows, and the unchecked route; rounds interleaved over the rows, medians with the range, and the worker's
CPU time per request (IntegrationTests/support/load.py's rounds). Prints a markdown table of the medians.
Instructions (--instructions N > 0): the same rows in an Envoy under valgrind's callgrind, N requests each,
instructions per request of the worker thread (instructions.py): steady from run to run where req/s and CPU time
are not.
Ends with one line: side-by-side: N passed, M failed
"""
import argparse
import json
import os
import sys
import time

from cryptography.hazmat.primitives.asymmetric import ec, rsa
from envoy_test import raw_request
import envoy_config
import instructions
from envoy_process import Envoy
from support import load  # (envoy_test put IntegrationTests on sys.path)
from support.checks import Tally
from support.loopback_server import free_port, json_answer, serve
from support.tokens import Key, token
from support.waiting import wait_for

ISSUER = "https://issuer.test"
AUDIENCE = "api"
TALLY = Tally()
check = TALLY.named


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--envoy", required=True)
    ap.add_argument("--module-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--load", type=int, default=0, help="seconds per wrk run (0: verdicts only)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=2000, help="distinct tokens per algorithm for the load rows")
    ap.add_argument("--instructions", type=int, default=0,
                    help="requests per row counted under callgrind (0: none; instructions.py)")
    a = ap.parse_args()
    t_start = time.time()
    rs = Key("rs1", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))
    es = Key("es1", "ES256", ec.generate_private_key(ec.SECP256R1()))
    hs = Key("hs1", "HS256", os.urandom(32))
    other_rs = Key("rs1", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))
    jwks = {"keys": [rs.jwk(), es.jwk(), hs.jwk()]}
    fetches = []

    def jwks_answer(req):
        fetches.append(req.path)
        return json_answer(json.dumps(jwks if req.path == "/jwks" else {"keys": [hs.jwk()]}).encode())

    key_srv = serve(jwks_answer)
    kport = key_srv.server_address[1]
    jwks_url = f"http://127.0.0.1:{kport}/jwks"
    hs_url = f"http://127.0.0.1:{kport}/hs-jwks"
    names = ["nocheck", "floor", "module", "module_cached", "module_hs", "authn", "authn_cached", "authn_hs"]
    ports = {n: free_port() for n in names}
    admin = free_port()

    policy = {"issuers": [ISSUER], "audiences": [AUDIENCE], "algorithms": ["RS256", "ES256", "HS256"],
              "leeway": 60, "jwks_url": jwks_url}

    def module_filter(cached, url=jwks_url):
        cfg = dict(policy, jwks_url=url, cache=True) if cached else dict(policy, jwks_url=url)
        return envoy_config.jwtk_filter(cfg)

    def authn_filter(cached, url=jwks_url):
        provider = {"issuer": ISSUER, "audiences": [AUDIENCE], "forward": True,
                    "remote_jwks": {"http_uri": {"uri": url, "cluster": "keys", "timeout": "5s"},
                                    "cache_duration": "600s", "async_fetch": {}}}
        if cached:
            provider["jwt_cache_config"] = {"jwt_cache_size": 100}
        return {"name": "envoy.filters.http.jwt_authn", "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication",
            "providers": {"p": provider},
            "rules": [{"match": {"prefix": "/"}, "requires": {"provider_name": "p"}}]}}

    def listener(name):
        filters = {"nocheck": [], "floor": [envoy_config.floor_filter()],
                   "module": [module_filter(False)], "module_cached": [module_filter(True)],
                   "authn": [authn_filter(False)], "authn_cached": [authn_filter(True)],
                   "module_hs": [module_filter(False, hs_url)], "authn_hs": [authn_filter(False, hs_url)]}[name]
        return envoy_config.listener(name, ports[name], filters, route=envoy_config.DIRECT_200)

    bootstrap = {
        "admin": envoy_config.admin(admin),
        "static_resources": {"listeners": [listener(n) for n in names],
                             "clusters": [envoy_config.cluster("keys", kport)]},
    }
    envoy = Envoy(a.envoy, a.module_dir, bootstrap, os.path.join(a.work, "side.json"),
                  os.path.join(a.work, "side.log"),
                  ["--concurrency", "1", "--base-id", str(os.getpid() % 60000 + 2000)])
    now = int(time.time())

    def claims(**over):
        c = {"iss": ISSUER, "aud": AUDIENCE, "sub": "user-1", "iat": now - 10, "exp": now + 3600}
        for k, v in over.items():
            if v is None:
                c.pop(k, None)
            else:
                c[k] = v
        return c

    def tok(key=rs, header=None, sign_with=None, **over):
        return token(key, claims(**over), header=header, sign_with=sign_with)

    def send(name, lines, path="/"):
        return raw_request(ports[name], lines, path, timeout=5)[0]

    def bearer(t):
        return [b"Authorization: Bearer " + t.encode()]

    try:
        ready = wait_for(lambda: send("module", bearer(tok())) == 200 and send("authn", bearer(tok())) == 200,
                                20)
        check("both filters up with the keys loaded", ready, (send("module", bearer(tok())), send("authn", bearer(tok()))))
        if not ready:
            return

        good = tok()
        padded_parts = good.split(".")
        padded = ".".join(p + "=" * (-len(p) % 4) for p in padded_parts)
        # Cases both filters express the same way: equal statuses required.
        same = [
            ("RS256 valid", bearer(tok())),
            ("ES256 valid", bearer(tok(es))),
            ("HS256 valid (the secret on its own URL)", bearer(tok(hs)), "_hs"),
            ("bad signature", bearer(tok(sign_with=other_rs))),
            ("expired beyond the skew", bearer(tok(exp=now - 120))),
            ("expired within the 60 s skew", bearer(tok(exp=now - 30))),
            ("nbf in the future beyond the skew", bearer(tok(nbf=now + 300))),
            ("nbf within the skew", bearer(tok(nbf=now + 30))),
            ("another issuer", bearer(tok(iss="https://evil.test"))),
            ("no Authorization", []),
            ("Basic scheme", [b"Authorization: Basic dXNlcjpwYXNz"]),
            ("garbage token", bearer("a.b.c")),
            ("two segments", bearer("a.b")),
            ("alg none", bearer(token(rs, claims(), header={"alg": "none", "typ": "JWT"}).rsplit(".", 1)[0] + ".")),
            ("unknown kid", bearer(tok(header={"alg": "RS256", "typ": "JWT", "kid": "nope"}, sign_with=other_rs))),
            ("RS256 key named for ES256 (alg mismatch with the JWK's alg)",
             bearer(token(rs, claims(), header={"alg": "ES256", "typ": "JWT", "kid": "rs1"}))),
            ("HS256 signed with the RSA modulus as secret (key confusion)",
             bearer(token(hs, claims(), header={"alg": "HS256", "typ": "JWT", "kid": "rs1"}))),
            ("audience in an array with ours", bearer(tok(aud=["other", AUDIENCE]))),
            ("no kid, RS256", bearer(token(rs, claims(), header={"alg": "RS256", "typ": "JWT"}))),
        ]
        # Differences by design: (name, request lines, path, module status, jwt_authn status, reason).
        differences = [
            ("another audience", bearer(tok(aud="other")), "/", 401, 403,
             "jwt_authn answers an audience mismatch 403; jwtk's contract answers every rejected token 401 "
             "invalid_token (RFC 6750 keeps 403 for insufficient_scope)"),
            ("no aud claim", bearer(tok(aud=None)), "/", 401, 403,
             "as above: jwt_authn counts a missing aud as an audience mismatch (403)"),
            ("no exp claim", bearer(tok(exp=None)), "/", 401, 200,
             "jwt_authn accepts a token without exp unless require_expiration is set; jwtk requires exp "
             "(RFC 8725 3.10: bound the token's life)"),
            ("lower-case bearer scheme", [b"Authorization: bearer " + good.encode()], "/", 200, 401,
             "the auth-scheme is case-insensitive (RFC 9110 11.1); jwt_authn matches the prefix 'Bearer ' exactly"),
            ("token in ?access_token=", [], "/?access_token=" + good, 401, 200,
             "jwt_authn reads the query parameter by default; jwtk reads the Authorization header only (RFC 6750 "
             "2.3 discourages URI tokens: they end up in logs)"),
            ("crit header parameter", bearer(token(rs, claims(), header={"alg": "RS256", "typ": "JWT", "kid": "rs1",
                                                                           "crit": ["exp"], "exp": 1})), "/", 401, 200,
             "RFC 7515 4.1.11: a crit parameter the verifier does not understand must be refused; jwt_authn ignores crit"),
            ("padded base64url", bearer(padded), "/", 401, 200,
             "RFC 7515 2: base64url without padding; jwt_authn accepts '=' padding"),
            ("HS256 secret published beside public keys", bearer(tok(hs)), "/", 401, 200,
             "libjwtk drops an HMAC secret from a key set that also holds public keys (RFC 8725 3.1: a published "
             "set is public, and a secret in it invites key confusion); jwt_authn uses it"),
            ("two tokens: another scheme, then Bearer", [b"Authorization: Basic eA==, Bearer " + good.encode()], "/",
             401, 200,
             "jwt_authn finds 'Bearer ' anywhere in the value; jwtk reads one credential (RFC 9110 11.6.2)"),
        ]
        agree = 0
        for name, lines, *suffix in same:
            sfx = suffix[0] if suffix else ""
            m, j = send("module" + sfx, lines), send("authn" + sfx, lines)
            agree += m == j
            check(f"agree: {name} (module {m}, jwt_authn {j})", m == j and m in (200, 401, 403), (m, j))
            if not sfx:
                mc, jc = send("module_cached", lines), send("authn_cached", lines)
                check(f"agree with caches on: {name}", mc == m and jc == j, (mc, jc, m, j))
        for name, lines, path, want_m, want_j, reason in differences:
            m, j = send("module", lines, path), send("authn", lines, path)
            check(f"differ by design: {name} (module {m}, jwt_authn {j}; documented {want_m}/{want_j})",
                  m == want_m and j == want_j, reason)
        print(f"verdicts: {agree} of {len(same)} shared cases agree; {len(differences)} documented differences "
              f"checked ({time.time() - t_start:.1f} s)")

        if a.load > 0:
            load_phase(a, envoy.pid, ports, rs, es, hs, claims, now)
        if a.instructions > 0:
            envoy.stop()   # the counting Envoy listens on the same ports
            instructions_phase(a, bootstrap, ports, rs, es, hs, claims)
    finally:
        code = envoy.stop()
        check("envoy exited cleanly", "Backtrace" not in envoy.log_text() and code in (0, -15), code)
        if TALLY.failed:
            sys.stdout.write(envoy.tail(20))
        key_srv.shutdown()
    print(TALLY.line("side-by-side"))


def load_phase(a, pid, ports, rs, es, hs, claims, now):
    t0 = time.time()
    files = {key.alg: load.write_tokens(os.path.join(a.work, f"load-{key.alg.lower()}.txt"),
                                        (token(key, claims(sub=f"load-{i}")) for i in range(a.tokens)))
             for key in (rs, es, hs)}
    cached = load.write_tokens(os.path.join(a.work, "load-cached.txt"), [token(rs, claims(sub="cached"))])
    print(f"load: {a.tokens} tokens per algorithm minted in {time.time() - t0:.1f} s; wrk -t1 -c32, "
          f"{a.rounds} rounds x {a.load} s, interleaved")
    url = lambda name: f"http://127.0.0.1:{ports[name]}/"
    rows = [("unchecked route", "nocheck", files["RS256"]),
            ("a dynamic module that does nothing", "floor", files["RS256"])]
    for alg in ("RS256", "ES256", "HS256"):
        sfx = "_hs" if alg == "HS256" else ""
        rows += [(f"jwtk module {alg}", "module" + sfx, files[alg]), (f"jwt_authn {alg}", "authn" + sfx, files[alg])]
    rows += [("jwtk module cached (RS256)", "module_cached", cached), ("jwt_authn cached (RS256)", "authn_cached", cached)]
    runs = load.rounds([(label, url(name), tokens, pid) for label, name, tokens in rows], a.rounds, a.load)
    result = {label: r["rps"] for label, r in load.table("row (Envoy 1.40, one worker)", "worker CPU us/request",
                                                           runs, check).items()}
    print()
    for alg in ("RS256", "ES256", "HS256"):
        print(f"load ratio {alg}: module / jwt_authn = {result[f'jwtk module {alg}'] / result[f'jwt_authn {alg}']:.2f}")
    print(f"load ratio cached module / unchecked = "
          f"{result['jwtk module cached (RS256)'] / result['unchecked route']:.2f}")


def instructions_phase(a, bootstrap, ports, rs, es, hs, claims):
    """The load rows again, counted in instructions per request under callgrind (instructions.py)."""
    toks = {k.alg: [token(k, claims(sub=f"count-{i}")) for i in range(instructions.WARM_UP + a.instructions)]
            for k in (rs, es, hs)}
    toks["cached"] = [token(rs, claims(sub="cached"))]
    rows = [("unchecked route", ports["nocheck"], toks["RS256"]),
            ("a dynamic module that does nothing", ports["floor"], toks["RS256"])]
    for alg in ("RS256", "ES256", "HS256"):
        sfx = "_hs" if alg == "HS256" else ""
        rows += [(f"jwtk module {alg}", ports["module" + sfx], toks[alg]),
                 (f"jwt_authn {alg}", ports["authn" + sfx], toks[alg])]
    rows += [("jwtk module cached (RS256)", ports["module_cached"], toks["cached"]),
             ("jwt_authn cached (RS256)", ports["authn_cached"], toks["cached"])]
    cg = instructions.CallgrindEnvoy(a.envoy, a.module_dir, bootstrap, a.work, os.getpid() % 60000 + 3000)
    try:
        first = toks["RS256"][0]
        probe = lambda: all(raw_request(ports[n], [b"Authorization: Bearer " + first.encode()], timeout=30)[0] == 200
                            for n in ("module", "authn"))
        up = cg.wait_up(probe)
        check("instructions: envoy up under callgrind with the keys loaded", up, cg.envoy.tail(10) if not up else "")
        if up:
            instructions.table(a, cg, rows, check)
    finally:
        cg.stop()


if __name__ == "__main__":
    main()
    sys.exit(1 if TALLY.failed else 0)
