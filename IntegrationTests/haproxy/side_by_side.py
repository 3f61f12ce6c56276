#!/usr/bin/env python3
"""The jwtk Lua action beside HAProxy 2.6's own jwt_verify (signature only, PEM key or HMAC secret) in the same
HAProxy, on the same tokens. Driven by run.sh --load N (needs the nginx test's venv: cryptography, and wrk):

    side_by_side.py --prefix DIR --work DIR --load SECONDS [--rounds N] [--tokens N] [--instructions N]

One haproxy -db, nbthread 1 (one thread, as the comparison asks), lua-load-per-thread jwtk.lua, one frontend per
kind of check on its own port (a request meets only its own kind's rules), every answer from HAProxy itself
(http-request return), so only the check differs:
  /nocheck            no check
  /jwtk/{rs,es,hs}    lua.jwtk-verify: issuer, audience, exp, nbf, algorithm and signature (keys from files)
  /jwtk/cached        the same with libjwtk's verified-token cache ("cache": true)
  /conv/{rs,es,hs}    the converter lua.jwtk-status on req.fhdr(authorization): the same checks, the verdict only
                      (no variables, no headers), a converter as jwt_verify is
  /native/{rs,es,hs}  jwt_verify on txn.bearer (http_auth_bearer) with the PEM public key or the secret: the
                      signature only, no claim is looked at
  /floor              a Lua action that sets one variable and nothing else (floor.lua, written here): what HAProxy
                      spends on any Lua action (its TXN object, a coroutine, the call), which jwtk's action pays too
Verdicts first (the same tokens, valid and with a bad signature, through both: equal; an expired token and one of
another audience, which only jwtk refuses), then wrk -t1 -c32 with distinct tokens per algorithm (one repeated
token for the cached rows), rounds interleaved over the rows, medians with the range, and HAProxy's CPU time per
request (IntegrationTests/support/load.py's rounds). Prints a markdown table.
--instructions N: also, per row, a haproxy of the same configuration under valgrind --tool=callgrind counting only
inside process_stream (the request's processing: rules, the check, the answer; not the connection's I/O), N
requests after 20 to warm up, one keep-alive connection: instructions per request, the same from run to run on a
shared machine where CPU time is not (valgrind's CPU model may take other code paths in OpenSSL than the real CPU:
the counts compare the work, not the time).
Ends with one line: haproxy-side: N passed, M failed
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from support import load  # noqa: E402
from support.checks import Tally  # noqa: E402
from support.keepalive import Client  # noqa: E402
from support.loopback_server import free_port  # noqa: E402
from support.processes import stop  # noqa: E402
from support.tokens import Key, b64, token  # noqa: E402
from support.waiting import wait_for  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402

ISSUER = "https://issuer.test"
HMAC_ISSUER = "https://hmac.test"
AUDIENCE = "api"
TALLY = Tally()
check = TALLY.named


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--load", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=2000)
    ap.add_argument("--instructions", type=int, default=0)
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
    # One frontend per kind of check, each on its own port: a request meets only its own kind's rules.
    ports = {k: free_port() for k in ("nocheck", "jwtk", "conv", "native", "floor")}
    with open(f"{w}/floor.lua", "w") as f:
        f.write('core.register_action("floor", { "http-req" }, function(txn) txn:set_var("txn.floor", true) end, 0)\n')
    prefix = os.path.abspath(a.prefix)
    cfg = f"""global
    setenv JWTK_HAPROXY_CONFIG {w}/jwtk.json
    lua-prepend-path {prefix}/lib/haproxy/lua/?.so cpath
    lua-load-per-thread {prefix}/share/haproxy/jwtk.lua
    lua-load-per-thread {w}/floor.lua
    nbthread 1
    maxconn 4096
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend nocheck
    bind 127.0.0.1:{ports["nocheck"]}
    http-request return status 200 content-type text/plain string ok
frontend floor
    bind 127.0.0.1:{ports["floor"]}
    http-request lua.floor
    http-request return status 200 content-type text/plain string ok if {{ var(txn.floor) -m bool }}
    http-request deny deny_status 401
frontend jwtk
    bind 127.0.0.1:{ports["jwtk"]}
    http-request lua.jwtk-verify pub if {{ path /jwtk/rs }} || {{ path /jwtk/es }}
    http-request lua.jwtk-verify hmac if {{ path /jwtk/hs }}
    http-request lua.jwtk-verify cached if {{ path /jwtk/cached }}
    http-request return status 200 content-type text/plain string ok if {{ var(txn.jwtk.valid) -m bool }}
    http-request deny deny_status 401
frontend conv
    bind 127.0.0.1:{ports["conv"]}
    http-request return status 200 content-type text/plain string ok if {{ path /conv/rs }} {{ req.fhdr(authorization),lua.jwtk-status(pub) -m str ok }}
    http-request return status 200 content-type text/plain string ok if {{ path /conv/es }} {{ req.fhdr(authorization),lua.jwtk-status(pub) -m str ok }}
    http-request return status 200 content-type text/plain string ok if {{ path /conv/hs }} {{ req.fhdr(authorization),lua.jwtk-status(hmac) -m str ok }}
    http-request deny deny_status 401
frontend native
    bind 127.0.0.1:{ports["native"]}
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
        print(TALLY.line("haproxy-side"))
        return
    hap = subprocess.Popen(["haproxy", "-db", "-f", f"{w}/side.cfg"], stdout=subprocess.DEVNULL,
                           stderr=open(f"{w}/side.log", "w"))
    now = int(time.time())

    def claims(iss=ISSUER, **over):
        c = {"iss": iss, "aud": AUDIENCE, "sub": "user-1", "iat": now - 10, "exp": now + 3600}
        c.update(over)
        return c

    # One keep-alive connection per frontend (support/keepalive.py), as the callgrind rows below use.
    clients = {k: Client(p) for k, p in ports.items()}
    cl = lambda path, token: clients[path.split("/")[1]].get(path, token=token)
    try:
        check("haproxy up", wait_for(lambda: clients["nocheck"].get("/nocheck")[0] == 200, 10))
        routes = {"RS256": (rs, "rs", ISSUER), "ES256": (es, "es", ISSUER), "HS256": (hs, "hs", HMAC_ISSUER)}
        for alg, (key, r, iss) in routes.items():
            good = token(key, claims(iss))
            bad = token(key, claims(iss), sign_with=other if alg != "ES256" else Key("es1", "ES256",
                                                                                   ec.generate_private_key(ec.SECP256R1())))
            if alg == "HS256":
                bad = token(key, claims(iss), sign_with=Key("hs1", "HS256", b"another secret of 32 bytes......"))
            for name, t, want in (("valid", good, 200), ("bad signature", bad, 401)):
                j, c, n = (cl(f"/{x}/{r}", t)[0] for x in ("jwtk", "conv", "native"))
                check(f"{alg} {name}: jwtk {j}, its converter {c}, jwt_verify {n} (all {want})",
                      j == want and c == want and n == want, (j, c, n))
            for name, t in (("expired", token(key, claims(iss, exp=now - 3600))),
                            ("another audience", token(key, claims(iss, aud="other")))):
                j, c, n = (cl(f"/{x}/{r}", t)[0] for x in ("jwtk", "conv", "native"))
                check(f"{alg} {name}: jwtk and its converter 401, jwt_verify 200 (it checks the signature only)",
                      j == 401 and c == 401 and n == 200, (j, c, n))
        if a.load > 0:
            load_phase(a, w, ports, hap.pid, rs, es, hs, claims)
    finally:
        stop(hap)
    if a.instructions > 0:
        instructions(a, w, ports, rs, es, hs, claims)
    print(TALLY.line("haproxy-side"))


def load_phase(a, w, ports, pid, rs, es, hs, claims):
    t0 = time.time()
    files = {key.alg: load.write_tokens(f"{w}/load-{key.alg.lower()}.txt",
                                        (token(key, claims(iss, sub=f"load-{i}")) for i in range(a.tokens)))
             for key, iss in ((rs, ISSUER), (es, ISSUER), (hs, HMAC_ISSUER))}
    cached = load.write_tokens(f"{w}/load-cached.txt", [token(rs, claims(sub="cached"))])
    print(f"load: {a.tokens} tokens per algorithm minted in {time.time() - t0:.1f} s; wrk -t1 -c32, "
          f"{a.rounds} rounds x {a.load} s, interleaved")
    u = lambda p: f"http://127.0.0.1:{ports[p.split('/')[1]]}{p}"
    rows = [("unchecked route", "/nocheck", files["RS256"]),
            ("a Lua action setting one variable (HAProxy's floor for any)", "/floor", files["RS256"])]
    for alg, r in (("RS256", "rs"), ("ES256", "es"), ("HS256", "hs")):
        rows += [(f"jwtk {alg} (full claims)", f"/jwtk/{r}", files[alg]),
                 (f"jwtk converter {alg} (full claims, verdict only)", f"/conv/{r}", files[alg]),
                 (f"jwt_verify {alg} (signature only)", f"/native/{r}", files[alg])]
    rows += [("jwtk cached (RS256)", "/jwtk/cached", cached), ("jwt_verify, one repeated token (RS256)", "/native/rs", cached)]
    runs = load.rounds([(label, u(path), tokens, pid) for label, path, tokens in rows], a.rounds, a.load)
    res = {label: r["rps"] for label, r in load.table("row (HAProxy 2.6, one thread)", "CPU us/request", runs,
                                                       check).items()}
    print()
    for alg in ("RS256", "ES256", "HS256"):
        print(f"load ratio {alg}: jwtk / jwt_verify = "
              f"{res[f'jwtk {alg} (full claims)'] / res[f'jwt_verify {alg} (signature only)']:.2f}, converter / jwt_verify = "
              f"{res[f'jwtk converter {alg} (full claims, verdict only)'] / res[f'jwt_verify {alg} (signature only)']:.2f}")


def instructions(a, w, ports, rs, es, hs, claims):
    """Instructions per request of each row, from callgrind (see the module's docstring)."""
    toks = {k.alg: [token(k, claims(iss, sub=f"count-{i}")) for i in range(50)]
            for k, iss in ((rs, ISSUER), (es, ISSUER), (hs, HMAC_ISSUER))}
    toks["cached"] = [token(rs, claims(sub="cached"))]
    rows = [("unchecked route", "/nocheck", toks["RS256"]),
            ("a Lua action setting one variable", "/floor", toks["RS256"])]
    for alg, r in (("RS256", "rs"), ("ES256", "es"), ("HS256", "hs")):
        rows += [(f"jwtk {alg}", f"/jwtk/{r}", toks[alg]), (f"jwtk converter {alg}", f"/conv/{r}", toks[alg]),
                 (f"jwt_verify {alg}", f"/native/{r}", toks[alg])]
    rows += [("jwtk cached (RS256)", "/jwtk/cached", toks["cached"])]
    print(f"\n| row (callgrind, {a.instructions} requests) | instructions per request |")
    print("|---|---:|")
    for label, path, ts in rows:
        out = f"{w}/callgrind.{path.replace('/', '_')}"
        vg = subprocess.Popen(["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=process_stream",
                               f"--callgrind-out-file={out}", "haproxy", "-db", "-f", f"{w}/side.cfg"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        c = Client(ports[path.split("/")[1]])
        try:
            up = wait_for(lambda: c.get(path, token=ts[0])[0] == 200, 60)
            statuses = [c.get(path, token=ts[i % len(ts)])[0] for i in range(19 + a.instructions)]
        finally:
            vg.terminate()
            vg.wait(60)
        total = 0
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    total = int(line.split()[1])
        per = total / (20 + a.instructions)
        check(f"instructions {label}: every answer 200", up and all(x == 200 for x in statuses), statuses[:5])
        print(f"| {label} | {per / 1000:.1f}k |")


if __name__ == "__main__":
    main()
    sys.exit(1 if TALLY.failed else 0)
