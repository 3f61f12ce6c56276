#!/usr/bin/env python3
"""The jwtk Lua action beside HAProxy 2.6's own jwt_verify (signature only, PEM key or HMAC secret) in the same
HAProxy, on the same tokens. Driven by run.sh --load N (needs the nginx test's venv: cryptography, and wrk):

    side_by_side.py --prefix DIR --work DIR --load SECONDS [--rounds N] [--tokens N]

One haproxy -db, nbthread 1 (one thread, as the comparison asks), lua-load-per-thread jwtk.lua, one frontend whose
routes all answer from HAProxy itself (http-request return), so only the check differs:
  /nocheck            no check
  /jwtk/{rs,es,hs}    lua.jwtk-verify: issuer, audience, exp, nbf, algorithm and signature (keys from files)
  /jwtk/cached        the same with libjwtk's verified-token cache ("cache": true)
  /native/{rs,es,hs}  jwt_verify on txn.bearer (http_auth_bearer) with the PEM public key or the secret: the
                      signature only, no claim is looked at
Verdicts first (the same tokens, valid and with a bad signature, through both: equal; an expired token and one of
another audience, which only jwtk refuses), then wrk -t1 -c32 with distinct tokens per algorithm (one repeated
token for the cached rows), rounds interleaved over the rows, medians with the range, and HAProxy's CPU time per
request (IntegrationTests/nginx/driver.py's wrk). Prints a markdown table.
Ends with one line: haproxy-side: N passed, M failed
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nginx"))
import driver  # noqa: E402
from mint import Key, token, b64  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402

ISSUER = "https://issuer.test"
HMAC_ISSUER = "https://hmac.test"
AUDIENCE = "api"
passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--load", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=2000)
    a = ap.parse_args()
    w = a.work
    os.makedirs(w, exist_ok=True)
    rs = Key("rs1", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))
    es = Key("es1", "ES256", ec.generate_private_key(ec.SECP256R1()))
    # jwt_verify takes the HMAC secret as the configuration's string: printable, so one text serves both.
    secret = b64(os.urandom(32)).encode()
    hs = Key("hs1", "HS256", secret)
    other = Key("rs1", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))
    for k in (rs, es):
        with open(f"{w}/{k.alg.lower()}.pem", "wb") as f:
            f.write(k.pem())
    with open(f"{w}/public.jwks", "w") as f:
        json.dump({"keys": [rs.jwk(), es.jwk()]}, f)
    with open(f"{w}/hmac.jwk", "w") as f:
        json.dump(hs.jwk(), f)
    policy = {"audiences": [AUDIENCE], "require_exp": True, "leeway": 30}
    with open(f"{w}/jwtk.json", "w") as f:
        json.dump({"realm": "api", "keys": [{"file": f"{w}/public.jwks", "issuer": ISSUER},
                                             {"file": f"{w}/hmac.jwk", "issuer": HMAC_ISSUER}],
                   "verifiers": {
                       "pub": dict(policy, issuers=[ISSUER], algorithms=["RS256", "ES256"]),
                       "hmac": dict(policy, issuers=[HMAC_ISSUER], algorithms=["HS256"]),
                       "cached": dict(policy, issuers=[ISSUER], algorithms=["RS256", "ES256"], cache=True)}}, f)
    port = driver.free_port()
    prefix = os.path.abspath(a.prefix)
    cfg = f"""global
    setenv JWTK_HAPROXY_CONFIG {w}/jwtk.json
    lua-prepend-path {prefix}/lib/haproxy/lua/?.so cpath
    lua-load-per-thread {prefix}/share/haproxy/jwtk.lua
    nbthread 1
    maxconn 4096
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend f
    bind 127.0.0.1:{port}
    http-request return status 200 content-type text/plain string ok if {{ path /nocheck }}
    http-request lua.jwtk-verify pub if {{ path /jwtk/rs }} || {{ path /jwtk/es }}
    http-request lua.jwtk-verify hmac if {{ path /jwtk/hs }}
    http-request lua.jwtk-verify cached if {{ path /jwtk/cached }}
    http-request return status 200 content-type text/plain string ok if {{ var(txn.jwtk.valid) -m bool }}
    http-request deny deny_status 401 if {{ path_beg /jwtk/ }}
    http-request set-var(txn.bearer) http_auth_bearer
    http-request return status 200 content-type text/plain string ok if {{ path /native/rs }} {{ var(txn.bearer),jwt_verify("RS256","{w}/rs256.pem") -m int 1 }}
    http-request return status 200 content-type text/plain string ok if {{ path /native/es }} {{ var(txn.bearer),jwt_verify("ES256","{w}/es256.pem") -m int 1 }}
    http-request return status 200 content-type text/plain string ok if {{ path /native/hs }} {{ var(txn.bearer),jwt_verify("HS256","{secret.decode()}") -m int 1 }}
    http-request deny deny_status 401
"""
    with open(f"{w}/side.cfg", "w") as f:
        f.write(cfg)
    chk = subprocess.run(["haproxy", "-c", "-f", f"{w}/side.cfg"], capture_output=True, text=True)
    check("haproxy -c accepts the side-by-side configuration", chk.returncode == 0, chk.stdout[-400:] + chk.stderr[-400:])
    if chk.returncode:
        print(f"haproxy-side: {passed} passed, {failed} failed")
        return
    hap = subprocess.Popen(["haproxy", "-db", "-f", f"{w}/side.cfg"], stdout=subprocess.DEVNULL,
                           stderr=open(f"{w}/side.log", "w"))
    now = int(time.time())

    def claims(iss=ISSUER, **over):
        c = {"iss": iss, "aud": AUDIENCE, "sub": "user-1", "iat": now - 10, "exp": now + 3600}
        c.update(over)
        return c

    cl = driver.Client(port)
    try:
        check("haproxy up", driver.wait_for(lambda: cl.get("/nocheck")[0] == 200, 10))
        routes = {"RS256": (rs, "rs", ISSUER), "ES256": (es, "es", ISSUER), "HS256": (hs, "hs", HMAC_ISSUER)}
        for alg, (key, r, iss) in routes.items():
            good = token(key, claims(iss))
            bad = token(key, claims(iss), sign_with=other if alg != "ES256" else Key("es1", "ES256",
                                                                                   ec.generate_private_key(ec.SECP256R1())))
            if alg == "HS256":
                bad = token(key, claims(iss), sign_with=Key("hs1", "HS256", b"another secret of 32 bytes......"))
            for name, t, want in (("valid", good, 200), ("bad signature", bad, 401)):
                j, n = cl.get(f"/jwtk/{r}", token=t)[0], cl.get(f"/native/{r}", token=t)[0]
                check(f"{alg} {name}: jwtk {j}, jwt_verify {n} (both {want})", j == want and n == want, (j, n))
            for name, t in (("expired", token(key, claims(iss, exp=now - 3600))),
                            ("another audience", token(key, claims(iss, aud="other")))):
                j, n = cl.get(f"/jwtk/{r}", token=t)[0], cl.get(f"/native/{r}", token=t)[0]
                check(f"{alg} {name}: jwtk 401, jwt_verify 200 (it checks the signature only)", j == 401 and n == 200,
                      (j, n))
        if a.load > 0:
            load(a, w, port, hap.pid, rs, es, hs, claims)
    finally:
        hap.terminate()
        try:
            hap.wait(10)
        except subprocess.TimeoutExpired:
            hap.kill()
    print(f"haproxy-side: {passed} passed, {failed} failed")


def load(a, w, port, pid, rs, es, hs, claims):
    t0 = time.time()
    files = {}
    for key, iss in ((rs, ISSUER), (es, ISSUER), (hs, HMAC_ISSUER)):
        path = f"{w}/load-{key.alg.lower()}.txt"
        with open(path, "w") as f:
            for i in range(a.tokens):
                f.write(token(key, claims(iss, sub=f"load-{i}")) + "\n")
        files[key.alg] = path
    cached = f"{w}/load-cached.txt"
    with open(cached, "w") as f:
        f.write(token(rs, claims(sub="cached")) + "\n")
    print(f"load: {a.tokens} tokens per algorithm minted in {time.time() - t0:.1f} s; wrk -t1 -c32, "
          f"{a.rounds} rounds x {a.load} s, interleaved")
    u = lambda p: f"http://127.0.0.1:{port}{p}"
    rows = [("unchecked route", "/nocheck", files["RS256"])]
    for alg, r in (("RS256", "rs"), ("ES256", "es"), ("HS256", "hs")):
        rows += [(f"jwtk {alg} (full claims)", f"/jwtk/{r}", files[alg]),
                 (f"jwt_verify {alg} (signature only)", f"/native/{r}", files[alg])]
    rows += [("jwtk cached (RS256)", "/jwtk/cached", cached), ("jwt_verify, one repeated token (RS256)", "/native/rs", cached)]
    runs = {r[0]: [] for r in rows}
    for rnd in range(a.rounds):
        for label, path, tokens in rows:
            if rnd == 0:
                driver.wrk(u(path), tokens, 1, pid)
            runs[label].append(driver.wrk(u(path), tokens, a.load, pid))
    med = lambda xs: sorted(xs)[len(xs) // 2]
    print("\n| row (HAProxy 2.6, one thread) | req/s median | range | p99 ms | CPU us/request |")
    print("|---|---:|---:|---:|---:|")
    res = {}
    for label, _, _ in rows:
        rs_ = runs[label]
        res[label] = med([x["rps"] for x in rs_])
        non2xx = sum(x["non2xx"] for x in rs_)
        errors = sum(x["socket_errors"] for x in rs_)
        print(f"| {label} | {res[label]:.0f} | {min(x['rps'] for x in rs_):.0f}-{max(x['rps'] for x in rs_):.0f} | "
              f"{med([x['p99_ms'] for x in rs_]):.2f} | {med([x['cpu_us_per_request'] for x in rs_]):.1f} |")
        check(f"load {label}: every answer 200, no socket error", non2xx == 0 and errors == 0, (non2xx, errors))
    print()
    for alg in ("RS256", "ES256", "HS256"):
        print(f"load ratio {alg}: jwtk / jwt_verify = "
              f"{res[f'jwtk {alg} (full claims)'] / res[f'jwt_verify {alg} (signature only)']:.2f}")


if __name__ == "__main__":
    main()
    sys.exit(1 if failed else 0)
