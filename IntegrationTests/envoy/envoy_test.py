#!/usr/bin/env python3
"""The Envoy filter module (gateways/envoy) in the real Envoy 1.40 on 127.0.0.1, driven by run.sh:

    envoy_test.py --envoy BIN --module-dir DIR --work DIR

Starts a JWKS server (/jwks: an ES256 key; /broken: 500), an upstream that echoes the request headers it
got as JSON, and one Envoy (--concurrency 2) with three listeners, each its own filter configuration:
  good     pull mode: jwks_url to /jwks, claim headers x-jwt-sub, x-jwt-roles (an array), x-jwt-email
  nokeys   pull mode: jwks_url to /broken, so its issuer never has keys (503)
  file     push mode: the same key set from a file (jwks_file), realm with a quote and a backslash,
           a claim requirement (roles contains admin: 403 otherwise)
Then checks verdicts, challenges, claim headers and header hygiene, the bearer corpus of
Tests/JWTKernelTests/Fixtures/gateway/contract.json (the values HTTP/1.1 can carry), hostile input, and
that Envoy is still up and answering. Ends with one line: envoy: N passed, M failed
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

from cryptography.hazmat.primitives.asymmetric import ec

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "IntegrationTests"))
from support import http_raw  # noqa: E402
from support.checks import Tally  # noqa: E402
from support.http_raw import header as hget  # noqa: E402  (lifecycle_test imports it from here)
from support.loopback_server import free_port, json_answer, serve  # noqa: E402
from support.tokens import Key, token  # noqa: E402
import envoy_config  # noqa: E402
from envoy_process import Envoy  # noqa: E402

ISSUER = "https://issuer.test"
AUDIENCE = "api"
REALM = "api"
NO_TOKEN = 'Bearer realm="api"'
INVALID = 'Bearer realm="api", error="invalid_token"'

TALLY = Tally()
check = TALLY.named


class Keys:
    """The ES256 key "k1" the listeners trust, another one under the same kid, and tokens with this test's
    claims (support/tokens.py signs)."""

    def __init__(self):
        self.key = Key("k1", "ES256", ec.generate_private_key(ec.SECP256R1()))
        self.other = Key("k1", "ES256", ec.generate_private_key(ec.SECP256R1()))
        self.jwks = {"keys": [self.key.jwk()]}

    def token(self, claims=None, key=None, kid="k1", **over):
        now = int(time.time())
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": "user-1", "iat": now, "exp": now + 600,
                "roles": ["admin", "dev"], "email": "u@example.com"}
        body.update(claims or {})
        for k, v in over.items():
            if v is None:
                body.pop(k, None)
            else:
                body[k] = v
        return token(self.key, body, header={"alg": "ES256", "typ": "JWT", "kid": kid}, sign_with=key)


def raw_request(port, header_lines, path="/", timeout=5):
    """Sends one HTTP/1.1 request with the given raw header lines (bytes); returns (status, headers, body)
    with header names lower-cased (a list of pairs), or (0, [], b"") if the connection failed."""
    return http_raw.parse(http_raw.exchange(port, http_raw.request(path, header_lines), timeout))


def upstream_headers(body):
    try:
        return json.loads(body)
    except ValueError:
        return None


def admin_get(port, path):
    st, _, body = raw_request(port, [], path)
    return st, body.decode("utf-8", "replace")


def check_stats(admin_port, counted):
    """The module's counters against the answers this run got: every 200 and every RBAC 403 passed the module
    (allowed); every 401, 503 and the claim-requirement 403 were its denials. Requests Envoy's codec refused
    (400, 431) never reached it."""
    st, text = admin_get(admin_port, "/stats?filter=dynamicmodulescustom")
    stats = {}
    for line in text.splitlines():
        k, _, v = line.partition(": ")
        if v.strip().isdigit():
            stats[k] = int(v)
    n = lambda status, lst=None: sum(c for (l, s), c in counted.items() if s == status and (lst is None or l == lst))
    allowed = n(200) + n(403, "rbac")
    denied = n(401) + n(503) + n(403, "file")
    check("stats: /stats answers", st == 200, st)
    check("stats: jwtk.allowed is the requests passed on", stats.get("dynamicmodulescustom.jwtk.allowed") == allowed,
          (stats.get("dynamicmodulescustom.jwtk.allowed"), allowed))
    by_reason = {k.rsplit(".", 1)[1]: v for k, v in stats.items() if k.startswith("dynamicmodulescustom.jwtk.denied.reason.")}
    check("stats: jwtk.denied by reason sums to the requests refused", sum(by_reason.values()) == denied,
          (by_reason, denied))
    for reason, want in (("expired", 1), ("unknown_kid", 1), ("unknown_issuer", 1), ("bad_audience", 1),
                         ("keys_unavailable", n(503)), ("claim_requirement_failed", 1)):
        check(f"stats: denied reason {reason} = {want}", by_reason.get(reason) == want, by_reason)
    check("stats: no_token and bad_signature counted", by_reason.get("no_token", 0) >= 10 and
          by_reason.get("bad_signature", 0) >= 2, by_reason)
    st, text = admin_get(admin_port, "/stats/prometheus")
    prom = {}
    for line in text.splitlines():
        if line.startswith("envoy_dynamicmodulescustom_jwtk_"):
            k, _, v = line.rpartition(" ")
            prom[k] = int(v)
    check("prometheus: jwtk_allowed", prom.get("envoy_dynamicmodulescustom_jwtk_allowed{}") == allowed, prom)
    check("prometheus: jwtk_denied with a reason label, same numbers",
          {k: v for k, v in prom.items() if "_denied{" in k} ==
          {f'envoy_dynamicmodulescustom_jwtk_denied{{reason="{r}"}}': v for r, v in by_reason.items()}, prom)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--envoy")
    ap.add_argument("--module-dir")
    ap.add_argument("--work", required=True)
    ap.add_argument("--mint-only", action="store_true",
                    help="write WORK/mock-jwks.json and WORK/mock-token.txt (a valid token) for mock_host and exit")
    a = ap.parse_args()
    t_start = time.time()
    keys = Keys()
    if a.mint_only:
        with open(os.path.join(a.work, "mock-jwks.json"), "w") as f:
            json.dump(keys.jwks, f)
        with open(os.path.join(a.work, "mock-token.txt"), "w") as f:
            f.write(keys.token(exp=int(time.time()) + 3600))
        return

    def jwks_answer(req):
        return json_answer(json.dumps(keys.jwks).encode()) if req.path == "/jwks" else json_answer(b"{}", 500)

    def echo_answer(req):
        return json_answer(json.dumps([[k.lower(), v] for k, v in req.headers.items()]).encode())

    jwks_srv = serve(jwks_answer)
    echo_srv = serve(echo_answer)
    jwks_port, echo_port = jwks_srv.server_address[1], echo_srv.server_address[1]
    jwks_file = os.path.join(a.work, "jwks.json")
    with open(jwks_file, "w") as f:
        json.dump(keys.jwks, f)

    claim_headers = {"X-Jwt-Sub": "sub", "x-jwt-roles": "/roles", "x-jwt-email": "email"}
    base = {"issuers": [ISSUER], "audiences": [AUDIENCE], "algorithms": ["ES256"]}
    configs = {
        "good": dict(base, jwks_url=f"http://127.0.0.1:{jwks_port}/jwks", realm=REALM, claim_headers=claim_headers),
        "nokeys": dict(base, jwks_url=f"http://127.0.0.1:{jwks_port}/broken", realm=REALM,
                       claim_headers=claim_headers),
        "file": dict(base, jwks_file=jwks_file, realm='a "q" \\ b', claim_headers={"x-jwt-sub": "/sub"},
                     claims=[{"pointer": "/roles", "contains_all": ["admin"]}]),
        # The payload in dynamic metadata as jwt_authn's payload_in_metadata, read by an RBAC filter after the
        # module with a policy written for jwt_authn (its namespace, its key path).
        "rbac": dict(base, jwks_file=jwks_file, realm=REALM, payload_in_metadata="jwt_payload"),
        # Other token sources (jwt_authn's from_headers, with and without value_prefix, and from_cookies), and
        # Authorization stripped before the upstream (jwt_authn's forward: false).
        "hdr": dict(base, jwks_file=jwks_file, realm=REALM, token_header="X-JWT"),
        "hdrp": dict(base, jwks_file=jwks_file, realm=REALM, token_header="x-auth", token_prefix="Token "),
        "cookie": dict(base, jwks_file=jwks_file, realm=REALM, token_cookie="jwt", strip_authorization=True),
    }
    # The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json): a listener per configuration,
    # the configuration as written plus the module's own members (its key file for any issuer: "unrouted").
    sys.path.insert(0, os.path.join(ROOT, "IntegrationTests/verdicts"))
    import verdicts
    corpus_doc = verdicts.load()
    exported = {"x-jwt-iss": "iss", "x-jwt-sub": "sub", "x-jwt-roles": "/roles", "x-jwt-plan": "/org/plan",
                "x-jwt-scope": "/scope"}
    for name, conf in corpus_doc["configurations"].items():
        configs["v-" + name] = dict(conf["config"], jwks_file=verdicts.keys_path(conf), realm=REALM,
                                    claim_headers=exported)
    # RBAC after the module: allow sub "user-1" whose roles contain "admin" and whose address.country is "FR".
    md = lambda path, value: {"metadata": {"filter": "envoy.filters.http.jwt_authn",
                                           "path": [{"key": k} for k in ["jwt_payload"] + path], "value": value}}
    rbac_filter = {"name": "envoy.filters.http.rbac", "typed_config": {
        "@type": "type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC",
        "rules": {"action": "ALLOW", "policies": {"jwt-users": {
            "permissions": [{"any": True}],
            "principals": [{"and_ids": {"ids": [
                md(["sub"], {"string_match": {"exact": "user-1"}}),
                md(["roles"], {"list_match": {"one_of": {"string_match": {"exact": "admin"}}}}),
                # The same matcher in RBAC's newer spelling (sourced_metadata; `metadata` is deprecated).
                {"sourced_metadata": {"metadata_matcher": md(["address", "country"],
                                                             {"string_match": {"exact": "FR"}})["metadata"]}},
            ]}}]}}}}}
    ports = {name: free_port() for name in configs}
    admin_port = free_port()

    def listener(name, cfg, after=()):
        return envoy_config.listener(name, ports[name], [envoy_config.jwtk_filter(cfg), *after])

    bootstrap = {
        "admin": envoy_config.admin(admin_port),
        "static_resources": {
            "listeners": [listener(n, c, [rbac_filter] if n == "rbac" else []) for n, c in configs.items()],
            "clusters": [envoy_config.cluster("upstream", echo_port)],
        },
    }
    envoy = Envoy(a.envoy, a.module_dir, bootstrap, os.path.join(a.work, "envoy.yaml"),
                  os.path.join(a.work, "envoy.log"),
                  ["--concurrency", "2", "--base-id", str(os.getpid() % 60000 + 1000)], indent=1)

    def dump_log():
        sys.stdout.write(envoy.tail(40))

    try:
        good = keys.token()
        counted = {}   # (listener, status) -> requests answered, for the counters' check
        deadline = time.time() + 20
        status = 0
        while time.time() < deadline and envoy.poll() is None:
            status, _, _ = raw_request(ports["good"], [b"Authorization: Bearer " + good.encode()], timeout=1)
            counted[("good", status)] = counted.get(("good", status), 0) + 1
            if status == 200:
                break
            time.sleep(0.1)
        check("envoy started and the keys loaded", status == 200, f"last status {status}")
        if status != 200:
            dump_log()
            return
        t_ready = time.time() - t_start
        text = envoy.log_text()
        check("the ABI version was checked (Envoy logged the module's version)", "ABI version v0.1.0" in text,
              "no ABI line in envoy.log")

        def req(listener_name, headers, path="/"):
            t0 = time.time()
            r = raw_request(ports[listener_name], headers, path)
            counted[(listener_name, r[0])] = counted.get((listener_name, r[0]), 0) + 1
            if time.time() - t0 > 0.5:
                print(f"slow request ({time.time() - t0:.1f} s): {listener_name} {[l[:40] for l in headers[:3]]}")
            return r

        # Valid token: 200, the claim headers at the upstream.
        st, h, body = req("good", [b"Authorization: Bearer " + good.encode()])
        up = dict(upstream_headers(body) or [])
        check("valid token: 200", st == 200, st)
        check("valid token: x-jwt-sub", up.get("x-jwt-sub") == "user-1", up)
        check("valid token: x-jwt-roles joined", up.get("x-jwt-roles") == "admin,dev", up)
        check("valid token: x-jwt-email", up.get("x-jwt-email") == "u@example.com", up)
        check("valid token: authorization kept", up.get("authorization") == "Bearer " + good, up)

        # Missing token, bad tokens.
        st, h, _ = req("good", [])
        check("missing token: 401", st == 401, st)
        check("missing token: realm-only challenge", hget(h, "www-authenticate") == NO_TOKEN, h)
        cases = {
            "bad signature": keys.token(key=keys.other),
            "expired": keys.token(exp=int(time.time()) - 3600, iat=int(time.time()) - 7200),
            "another audience": keys.token(aud="other"),
            "another issuer": keys.token(iss="https://evil.test"),
            "unknown kid": keys.token(kid="nope"),
            "garbage": "a.b.c",
            "too large": "a" * 20000,
        }
        for name, tok in cases.items():
            st, h, body = req("good", [b"Authorization: Bearer " + tok.encode()])
            check(f"{name}: 401", st == 401, st)
            check(f"{name}: invalid_token challenge", hget(h, "www-authenticate") == INVALID, h)
            check(f"{name}: the token is not echoed", tok.encode() not in body and
                  all(tok not in v for _, v in h), "")

        # Keys not loaded: 503 without a challenge.
        st, h, _ = req("nokeys", [b"Authorization: Bearer " + good.encode()])
        check("keys unavailable: 503", st == 503, st)
        check("keys unavailable: no challenge", hget(h, "www-authenticate") is None, h)
        st, h, _ = req("nokeys", [])
        check("keys unavailable, no token: 401 realm-only", st == 401 and hget(h, "www-authenticate") == NO_TOKEN,
              (st, h))

        # Push mode from a file; the realm escaped by jwtk_challenge.
        st, h, body = req("file", [b"Authorization: Bearer " + good.encode()])
        check("jwks_file: valid token 200", st == 200, st)
        check("jwks_file: x-jwt-sub", dict(upstream_headers(body) or []).get("x-jwt-sub") == "user-1", body[:200])
        st, h, _ = req("file", [])
        check("jwks_file: realm quoted", hget(h, "www-authenticate") == 'Bearer realm="a \\"q\\" \\\\ b"', h)
        st, h, _ = req("file", [b"Authorization: Bearer " + keys.token(roles=["dev"]).encode()])
        check("claim requirement not met: 403 insufficient_scope",
              st == 403 and hget(h, "www-authenticate") == 'Bearer realm="a \\"q\\" \\\\ b", error="insufficient_scope"',
              (st, h))

        # payload_in_metadata read by RBAC (a policy written for jwt_authn): nested keys, a list, a string.
        rbac_cases = [
            ("sub user-1, roles admin, country FR: RBAC allows", keys.token(address={"country": "FR"}), 200),
            ("another sub: RBAC denies", keys.token(sub="user-2", address={"country": "FR"}), 403),
            ("roles without admin: RBAC denies", keys.token(roles=["dev"], address={"country": "FR"}), 403),
            ("another country: RBAC denies", keys.token(address={"country": "DE"}), 403),
            ("no address: RBAC denies", keys.token(), 403),
        ]
        for name, tok, want in rbac_cases:
            st, h, body = req("rbac", [b"Authorization: Bearer " + tok.encode()])
            check(f"metadata: {name}", st == want and (want == 200 or b"RBAC" in body), (st, body[:80]))
        st, h, _ = req("rbac", [b"Authorization: Bearer " + keys.token(key=keys.other).encode()])
        check("metadata: a bad token stops at the module (401), not RBAC", st == 401, st)
        st, h, _ = req("rbac", [b"Authorization: Bearer " + keys.token(
            address={"country": "FR"}, deep=[{"a": [1.5, None, True, {"b": "\u0000x"}]}], n=-1e300).encode()])
        check("metadata: every JSON type encodes (200)", st == 200, st)

        # Forged and look-alike claim headers: removed, whatever the token says.
        forged = [b"X-Jwt-Sub: evil", b"x_jwt_sub: evil2", b"X_JWT_SUB: evil3", b"X-JWT-ROLES: root",
                  b"x-jwt-email: forged@example.com", b"X_Jwt_Email: forged2"]
        no_email = keys.token(email=None)
        st, h, body = req("good", [b"Authorization: Bearer " + no_email.encode()] + forged)
        pairs = upstream_headers(body) or []
        names = [k for k, _ in pairs]
        check("forged: 200", st == 200, st)
        check("forged: one x-jwt-sub, the token's",
              [v for k, v in pairs if k.replace("_", "-") == "x-jwt-sub"] == ["user-1"], pairs)
        check("forged: one x-jwt-roles, the token's",
              [v for k, v in pairs if k.replace("_", "-") == "x-jwt-roles"] == ["admin,dev"], pairs)
        check("forged: x-jwt-email gone (the token has none)",
              not [k for k in names if k.replace("_", "-") == "x-jwt-email"], pairs)
        check("forged: no underscore spelling left", not [k for k in names if k.startswith("x_jwt")], pairs)
        st, _, body = req("good", [b"Authorization: Bearer " + keys.token(key=keys.other).encode()] + forged)
        check("forged with a bad token: 401, nothing upstream", st == 401 and b"evil" not in body, st)

        # Two Authorization headers: Envoy's codec joins them with a comma into one value, which the bearer
        # grammar reads as no bearer token (the corpus's "Bearer a.b.c, Bearer d.e.f").
        st, h, _ = req("good", [b"Authorization: Bearer " + good.encode(), b"Authorization: Bearer " + good.encode()])
        check("two Authorization headers: 401 realm-only", st == 401 and hget(h, "www-authenticate") == NO_TOKEN,
              (st, h))

        # Token sources other than Authorization: Bearer; only the configured one is read.
        st, h, body = req("hdr", [b"X-Jwt: " + good.encode()])
        check("token_header: a valid token 200", st == 200, st)
        st, h, body = req("hdr", [b"X-Jwt: " + keys.token(key=keys.other).encode()])
        check("token_header: a bad signature 401 invalid_token", st == 401 and hget(h, "www-authenticate") == INVALID,
              (st, h))
        bad = keys.token(key=keys.other)
        check("token_header: the token is not echoed", bad.encode() not in body and all(bad not in v for _, v in h), "")
        st, h, _ = req("hdr", [b"X-Jwt: Bearer " + good.encode()])
        check("token_header: the whole value is the token (no prefix configured): 401", st == 401, st)
        st, h, _ = req("hdr", [b"Authorization: Bearer " + good.encode()])
        check("token_header: Authorization is not read: 401 realm-only",
              st == 401 and hget(h, "www-authenticate") == NO_TOKEN, (st, h))
        st, h, body = req("hdr", [b"X-Jwt: " + good.encode(), b"Authorization: Bearer x"])
        check("token_header: Authorization kept by default",
              st == 200 and dict(upstream_headers(body) or []).get("authorization") == "Bearer x", (st, body[:200]))
        st, h, _ = req("hdr", [b"X-Jwt: " + good.encode(), b"X-Jwt: " + good.encode()])
        check("token_header: two headers refused (401)", st == 401, st)
        st, h, _ = req("hdrp", [b"X-Auth: Token " + good.encode()])
        check("token_prefix: the value after the prefix: 200", st == 200, st)
        st, h, _ = req("hdrp", [b"X-Auth: " + good.encode()])
        check("token_prefix: no prefix: 401 realm-only", st == 401 and hget(h, "www-authenticate") == NO_TOKEN, (st, h))
        st, h, body = req("cookie", [b"Cookie: a=1; xjwt=nope; jwt=" + good.encode() + b"; b=2",
                                     b"Authorization: Basic dXNlcjpwYXNz"])
        up = upstream_headers(body) or []
        check("token_cookie: a valid token among other cookies 200", st == 200, st)
        check("strip_authorization: the upstream sees no Authorization",
              st == 200 and not [k for k, _ in up if k == "authorization"], up)
        check("token_cookie: the Cookie header itself passes on", any(k == "cookie" for k, _ in up), up)
        st, h, _ = req("cookie", [b"Cookie: jwt=\"" + good.encode() + b"\""])
        check("token_cookie: a quoted value 200", st == 200, st)
        st, h, _ = req("cookie", [b"Cookie: a=1; xjwt=" + good.encode()])
        check("token_cookie: cookie absent: 401 realm-only", st == 401 and hget(h, "www-authenticate") == NO_TOKEN,
              (st, h))
        st, h, _ = req("cookie", [b"Authorization: Bearer " + good.encode()])
        check("token_cookie: Authorization is not read: 401 realm-only",
              st == 401 and hget(h, "www-authenticate") == NO_TOKEN, (st, h))
        st, h, _ = req("cookie", [b"Cookie: jwt="])
        check("token_cookie: an empty value is no token: 401 realm-only",
              st == 401 and hget(h, "www-authenticate") == NO_TOKEN, (st, h))
        st, h, _ = req("cookie", [b"Cookie: jwt=" + keys.token(key=keys.other).encode()])
        check("token_cookie: a bad signature 401 invalid_token", st == 401 and hget(h, "www-authenticate") == INVALID,
              (st, h))

        # The bearer corpus of the gateway contract.
        with open(os.path.join(ROOT, "Tests/JWTKernelTests/Fixtures/gateway/contract.json")) as f:
            corpus = json.load(f)["bearer"]
        ran = 0
        for case in corpus:
            value = case["value"].encode()
            if any(c in value for c in (b"\x00", b"\r", b"\n")):
                continue   # not carried by HTTP/1.1 (Envoy refuses the request before any filter)
            ran += 1
            st, h, _ = req("good", [b"Authorization: " + value])
            want = NO_TOKEN if case["token"] is None else INVALID
            check(f"corpus {case['name']!r}: 401 {want}", st == 401 and hget(h, "www-authenticate") == want,
                  (st, hget(h, "www-authenticate")))
        check("corpus: most cases carried", ran >= len(corpus) - 3, f"{ran} of {len(corpus)}")
        # The corpus's valid shapes with a real token.
        for prefix in (b"Bearer ", b"bearer ", b"BEARER ", b"Bearer    "):
            st, _, _ = req("good", [b"Authorization: " + prefix + good.encode() + b"  "])
            check(f"corpus shape {prefix!r} with a valid token: 200", st == 200, st)

        # Hostile input: no crash, Envoy answers.
        hostile = [
            [b"Authorization: Bearer " + b"\xff\xfe" * 100],
            [b"Authorization: Bearer " + b"A" * 60000],
            [b"Authorization: " + b"\x01\x02\x7f"],
            [b"Authorization: Bearer a\x00b"],
            [b"Authorization: Bearer " + good.encode()] * 50,
            [b"X-Jwt-Sub: x"] * 500 + [b"Authorization: Bearer " + good.encode()],
            [b"x_jwt_sub" + b"_" * 5000 + b": y", b"Authorization: Bearer " + good.encode()],
            [b"Authorization: Bearer " + keys.token(sub="a\nb", roles=[{"x": 1}, 2]).encode()],
            [b"Authorization: Bearer " + keys.token(sub="x" * 10000).encode()],
            [b"Authorization: Bearer " + ("." * 3000).encode()],
        ]
        for i, lines in enumerate(hostile):
            st, h, body = req("good", lines)
            check(f"hostile {i}: answered", st in (200, 400, 401, 403, 413, 431, 503) or st == 0, st)
            if i == 7:
                up = dict(upstream_headers(body) or [])
                check("hostile: a claim with a newline sets no header", st == 200 and "x-jwt-sub" not in up,
                      (st, up))
            if i == 8:
                up = dict(upstream_headers(body) or [])
                check("hostile: a claim over 4 KiB sets no header", st == 200 and "x-jwt-sub" not in up, (st, up))
        check("envoy still running after hostile input", envoy.poll() is None, envoy.poll())
        st, _, _ = req("good", [b"Authorization: Bearer " + good.encode()])
        check("still answering after hostile input: 200", st == 200, st)

        # A burst of concurrent requests over both workers (each its own jwtk_ctx).
        results = []

        def burst():
            for _ in range(50):
                results.append(req("good", [b"Authorization: Bearer " + good.encode()])[0])

        threads = [threading.Thread(target=burst) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        check("200 concurrent requests: all 200", results.count(200) == 200,
              {s: results.count(s) for s in set(results)})
        # Bad filter configurations: Envoy refuses them (config_new returns NULL, the module logs why), no
        # crash; `--mode validate` also runs config_new, without starting the refresher.
        one = dict(bootstrap, static_resources=dict(bootstrap["static_resources"],
                                                    listeners=[listener("good", configs["good"])]))
        fc = (one["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]["typed_config"]
              ["http_filters"][0]["typed_config"]["filter_config"])
        bad_configs = ["not json", "[]", '{"realm": 1}', '{"claim_headers": {"bad header": "sub"}}',
                       '{"claim_headers": {"Authorization": "sub"}}', '{"claim_headers": ["sub"]}',
                       '{"jwks_file": "/nonexistent/jwks.json"}', '{"issuers": ["x"], "bogus": 1}', '{"a":',
                       '{"realm": "\\ud800"}', '{"issuers": ' + "[" * 200 + "]" * 200 + "}",
                       '{"audiences": "api"}', '{} trailing',
                       '{"token_header": "x-jwt", "token_cookie": "jwt"}', '{"token_prefix": "Bearer "}',
                       '{"token_header": "bad header"}', '{"token_cookie": ""}', '{"strip_authorization": "yes"}']
        env = dict(os.environ, ENVOY_DYNAMIC_MODULES_SEARCH_PATH=a.module_dir)
        for i, value in enumerate(bad_configs + [None]):
            fc["value"] = value if value is not None else json.dumps(configs["good"])
            path = os.path.join(a.work, f"validate{i}.yaml")
            with open(path, "w") as f:
                json.dump(one, f)
            r = subprocess.run([a.envoy, "-c", path, "--mode", "validate", "--log-level", "error"], env=env,
                               capture_output=True, text=True, timeout=30)
            out = r.stdout + r.stderr
            if value is None:
                check("validate: the good configuration passes", r.returncode == 0, out[-500:])
            else:
                check(f"bad config {value[:40]!r}: refused with the module's reason",
                      r.returncode != 0 and "jwtk:" in out and "Backtrace" not in out, (r.returncode, out[-300:]))
        # Counters through Envoy's stats: on /stats and /stats/prometheus, the numbers of this run.
        check_stats(admin_port, counted)
        # The verdict corpus: HTTP status, the challenge's error=, and the claim headers the upstream gets. After
        # the counters' check, which counts this run's own requests only.
        def send(case):
            st, h, body = req("v-" + case["configuration"], [b"Authorization: Bearer " + case["token"].encode()])
            seen = dict(upstream_headers(body) or []) if st == 200 else {}
            return st, hget(h, "www-authenticate"), {c: seen.get(hdr) for hdr, c in exported.items()}, None
        agreed, problems = verdicts.run_gateway("envoy", send)
        for p in problems:
            check("verdicts: " + p, False)
        check("verdicts: every case as the corpus says", not problems)
        print(f"verdicts (envoy): {agreed} of {len(corpus_doc['cases'])} cases as the corpus says")
        print(f"envoy ready in {t_ready:.1f} s; checks in {time.time() - t_start:.1f} s")
    finally:
        code = envoy.stop()
        text = envoy.log_text()
        crashed = "Caught Segmentation fault" in text or "Backtrace" in text or code not in (0, -15)
        check("envoy exited cleanly (no crash, no backtrace)", not crashed, f"exit {code}")
        if TALLY.failed:
            dump_log()
        jwks_srv.shutdown()
        echo_srv.shutdown()
    print(TALLY.line("envoy"))


if __name__ == "__main__":
    main()
    sys.exit(1 if TALLY.failed else 0)
