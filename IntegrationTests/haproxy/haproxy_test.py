#!/usr/bin/env python3
"""The HAProxy Lua module (gateways/haproxy) in Debian's real haproxy on 127.0.0.1.

Runs gateways/haproxy/haproxy.cfg and jwtk.json with only their paths and ports rewritten, in master-worker
mode with two threads (lua-load-per-thread): keys from a file (push) and from a loopback JWKS server
(pull, libjwtk's refresher), a header-echoing upstream. Tokens are RS256, signed with the openssl CLI
(standard library only: no venv). Ends with one line: haproxy: N passed, M failed
"""
import argparse
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
GW = os.path.join(ROOT, "gateways/haproxy")
sys.path.insert(0, os.path.join(ROOT, "IntegrationTests/verdicts"))
import verdicts  # noqa: E402  (the verdict corpus's one comparison)
sys.path.insert(0, os.path.join(ROOT, "IntegrationTests"))
from support import http_raw  # noqa: E402
from support.checks import Tally  # noqa: E402
from support.loopback_server import echo_headers as echo, free_port, serve  # noqa: E402
from support.openssl_keys import Key, b64  # noqa: E402
from support.processes import children, stop, threads_of  # noqa: E402
VERDICTS = verdicts.load()
PREFIX = None   # --prefix: where gateways/haproxy/build.sh installed the module and the library


TALLY = Tally(ok_line="  ok   {name}", fail_line="  FAIL {name}{detail}", detail_sep=": ", always_sep=False)
check = TALLY.check


def raw_get(port, path, headers=(), timeout=5):
    return http_raw.get(port, path, headers, timeout)


def config(work, port, upstream, jwks_port, jwks_file, extra_verifiers=None, shared_state=False, realm=None,
           chroot=None):
    cfg = open(os.path.join(GW, "haproxy.cfg")).read()
    if chroot:   # Debian's packaged configuration has this line in global
        assert cfg.count("\nglobal\n") == 1
        cfg = cfg.replace("\nglobal\n", f"\nglobal\n    chroot {chroot}\n")
    lib = PREFIX
    cfg = cfg.replace("/etc/haproxy/jwtk.json", os.path.join(work, "jwtk.json"))
    cfg = cfg.replace("/usr/local/lib/haproxy/lua", os.path.join(lib, "lib/haproxy/lua"))
    cfg = cfg.replace("/usr/local/share/haproxy", os.path.join(lib, "share/haproxy"))
    # One more route, to a verifier whose key URL never answers (the example has none).
    writers = "    http-request lua.jwtk-verify writers if { path_beg /write/ }\n"
    assert writers in cfg
    cfg = cfg.replace(writers, writers + "    http-request lua.jwtk-verify down if { path_beg /down/ }\n"
                      "    http-request lua.jwtk-verify nosuch if { path_beg /nosuch/ }\n"
                      "    http-request return status 200 content-type text/plain lf-string "
                      "\"%[req.fhdr(authorization),lua.jwtk-status(default)]\" if { path_beg /status/ }\n")
    # The verdict corpus: a route and a verifier per configuration (v-NAME), its key file per key issuer.
    verdict_routes = "".join(f"    http-request lua.jwtk-verify v-{n} if {{ path_beg /v-{n}/ }}\n"
                             for n in VERDICTS["configurations"])
    cfg = cfg.replace(writers, writers + verdict_routes)
    if shared_state:   # the other supported model: one state for the process, one thread
        cfg = cfg.replace("lua-load-per-thread ", "lua-load ").replace("nbthread 2", "nbthread 1")
    cfg = cfg.replace("127.0.0.1:8080", f"127.0.0.1:{port}").replace("127.0.0.1:8000", f"127.0.0.1:{upstream}")
    j = json.load(open(os.path.join(GW, "jwtk.json")))
    j["keys"][0]["file"] = jwks_file
    j["keys"][0]["refresh"] = 1   # the push rotation check waits a second, not the example's minute
    j["verifiers"]["remote"]["jwks_url"] = f"http://127.0.0.1:{jwks_port}/jwks.json"
    j["verifiers"]["remote"]["cooldown"] = 1   # the rotation check waits one cooldown, not the default 30 s
    j["verifiers"].update(extra_verifiers or {})
    for n, conf in VERDICTS["configurations"].items():
        j["verifiers"]["v-" + n] = conf["config"]
        source = {"file": verdicts.keys_path(conf), "issuer": conf["key_issuer"], "refresh": 3600}
        if source not in j["keys"]:
            j["keys"].append(source)
    if realm is not None:
        j["realm"] = realm   # json.dump writes it with \u escapes (a surrogate pair for U+1F600)
    with open(os.path.join(work, "jwtk.json"), "w") as f:
        json.dump(j, f)
    path = os.path.join(work, "haproxy.cfg")
    with open(path, "w") as f:
        f.write(cfg)
    return path


def verify_headers_unit(keys, jwks_file):
    """The C module's reader of req.hdrs_bin (v:verify_headers) on crafted header blocks, under Debian's lua5.3:
    verify_headers_test.lua prints one "ok NAME" or "FAIL NAME: detail" line per check."""
    print("== v:verify_headers on crafted header blocks (lua5.3 verify_headers_test.lua)")
    token = keys.token(claims(int(time.time())))
    r = subprocess.run(["lua5.3", os.path.join(HERE, "verify_headers_test.lua"),
                        os.path.join(PREFIX, "lib/haproxy/lua/jwtk.so"), jwks_file, "https://issuer.example", token],
                       capture_output=True, text=True, timeout=60)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith(("ok ", "FAIL "))]
    for ln in lines:
        ok, _, rest = ln.partition(" ")
        name, _, detail = rest.partition(": ") if ok == "FAIL" else (rest, "", "")
        check(ok == "ok", "verify_headers: " + name, detail)
    check(r.returncode == 0 and len(lines) >= 30, "verify_headers_test.lua ran to its end",
          f"exit {r.returncode}, {len(lines)} checks, {r.stderr[-400:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--prefix", required=True)
    a = ap.parse_args()
    global PREFIX
    PREFIX = os.path.abspath(a.prefix)
    t0 = time.monotonic()
    work = a.work
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    keys = Key(work, "k1")
    jwks_file = os.path.join(work, "jwks.json")
    with open(jwks_file, "w") as f:
        f.write(keys.jwks)
    fetches = []
    served = {"jwks": keys.jwks}   # the rotation check adds a second key
    # served["fail"]: the key server answers 500 (the stale-keys check).
    jwks_srv = serve(lambda req: (fetches.append(time.time()) or (500 if served.get("fail") else 200),
                                  {"Content-Type": "application/json", "Cache-Control": "max-age=300"},
                                  b"{}" if served.get("fail") else served["jwks"].encode()))
    keys.served = served
    keys.file = jwks_file
    keys.next = Key(work, "k2")
    up = serve(echo)
    port = free_port()
    dead = free_port()   # nothing listens: the "down" verifier never gets keys
    cfg = config(work, port, up.server_port, jwks_srv.server_port, jwks_file, {
        "down": {"issuers": ["https://down.example"], "audiences": ["api"],
                 "jwks_url": f"http://127.0.0.1:{dead}/jwks.json"}})

    print("== configuration")
    r = subprocess.run(["haproxy", "-c", "-f", cfg], capture_output=True, text=True, env=env)
    check(r.returncode == 0, "haproxy -c accepts gateways/haproxy/haproxy.cfg", r.stdout + r.stderr)
    # A provider preset without an audience would admit the provider's tokens for every application.
    os.makedirs(work + "/bad", exist_ok=True)
    bad = config(work + "/bad", port, up.server_port, jwks_srv.server_port, jwks_file, {"google": {"provider": "google"}})
    r = subprocess.run(["haproxy", "-c", "-f", bad], capture_output=True, text=True, env=env)
    check(r.returncode != 0 and "verifier 'google'" in r.stdout + r.stderr and "audience" in r.stdout + r.stderr,
          "a provider preset without an audience: haproxy refuses to start, naming it",
          (r.stdout + r.stderr)[-400:])
    config(work, port, up.server_port, jwks_srv.server_port, jwks_file, {
        "down": {"issuers": ["https://down.example"], "audiences": ["api"],
                 "jwks_url": f"http://127.0.0.1:{dead}/jwks.json"}})

    verify_headers_unit(keys, jwks_file)

    print("== haproxy -W (master-worker), nbthread 2, lua-load-per-thread")
    with_haproxy(work, cfg, port, env, lambda proc: (run(port, keys, proc, fetches), reload(port, keys, proc)))

    print("== lua-load (one shared state), nbthread 1")
    extra = {"down": {"issuers": ["https://down.example"], "audiences": ["api"],
                      "jwks_url": f"http://127.0.0.1:{dead}/jwks.json"}}
    cfg = config(work, port, up.server_port, jwks_srv.server_port, jwks_file, extra, shared_state=True,
                 realm='caf\u00e9 \U0001F600 "q"')
    with_haproxy(work, cfg, port, env, lambda proc: shared(port, keys, proc))

    print("== chroot (as Debian's haproxy.cfg) with https key URLs")
    chroot_https(work, port, up, jwks_file, keys, env)
    before = os.environ.get("JWTK_STAGE_TIMES")
    print(f"stage times: {before + ', ' if before else ''}haproxy test {time.monotonic() - t0:.1f} s")
    print(TALLY.line("haproxy"))
    return 1 if TALLY.failed else 0


def with_haproxy(work, cfg, port, env, body):
    logpath = os.path.join(work, "haproxy.log")
    log = open(logpath, "w")
    proc = subprocess.Popen(["haproxy", "-W", "-db", "-f", cfg], stdout=log, stderr=subprocess.STDOUT, env=env)
    before = TALLY.failed
    try:
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        body(proc)
    finally:
        stop(proc, signal.SIGUSR1, 5)   # soft stop
        log.close()
        text = open(logpath).read()
        exits = re.findall(r"exited with code (\d+)", text)
        check(proc.returncode == 0 and exits and all(c == "0" for c in exits) and "stuck=1" not in text,
              "every worker and the master exit with status 0 on a soft stop (no crash, no watchdog)",
              f"master {proc.returncode}, workers {exits}")
        if TALLY.failed > before:
            print(text[-3000:])


def claims(now, **kw):
    return dict({"iss": "https://issuer.example", "aud": "api", "sub": "user-1", "exp": now + 600,
                 "email": "u@example.com", "roles": ["admin", "ops"], "scope": "read"}, **kw)


def wait_200(port, path, token, tries=100):
    s = 0
    for _ in range(tries):
        s, h, body = raw_get(port, path, [("Authorization", "Bearer " + token)])
        if s == 200:
            return s
        time.sleep(0.05)
    return s


def reload(port, keys, proc):
    """master-worker reload (SIGUSR2): the master re-executes itself, reruns jwtk.lua while parsing,
    still without a thread of ours, and the new worker starts its own refresher."""
    print("== reload (SIGUSR2 to the master)")
    old = children(proc.pid)
    proc.send_signal(signal.SIGUSR2)
    new = []
    for _ in range(100):
        new = [p for p in children(proc.pid) if p not in old]
        if new:
            break
        time.sleep(0.05)
    now = int(time.time())
    s = wait_200(port, "/remote/x", keys.token(claims(now, iss="https://login.example")))
    check(len(new) == 1 and s == 200, "after a reload the new worker verifies pull-mode tokens", f"{new} {s}")
    check(threads_of(proc.pid) == ["haproxy"], "the master still has one thread after the reload",
          str(threads_of(proc.pid)))


def shared(port, keys, proc):
    now = int(time.time())
    good = keys.token(claims(now))
    s, _, body = raw_get(port, "/api/x", [("Authorization", "Bearer " + good), ("X_JWT_SUB", "x")])
    e = json.loads(body) if s == 200 else {}
    check(s == 200 and e.get("x-jwt-sub") == ["user-1"] and "x_jwt_sub" not in e, "lua-load: a valid token is 200", f"{s} {e}")
    s, h, _ = raw_get(port, "/api/x")
    want = 'Bearer realm="caf\u00e9 \U0001F600 \\"q\\""'.encode().decode("latin-1")
    check(s == 401 and h.get("www-authenticate") == want,
          "lua-load: no token is 401; a realm read from JSON \\u escapes (a surrogate pair) and quoted by jwtk_challenge",
          f"{s} {h.get('www-authenticate')!r}")
    s = wait_200(port, "/remote/x", keys.token(claims(now, iss="https://login.example")))
    check(s == 200, "lua-load: pull mode (refresher started by the state's task, core.thread 0)", str(s))


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def https_server(work, name, handler_body, ca):
    """An https key server on 127.0.0.1 whose certificate (IP 127.0.0.1 and DNS localhost) is signed by ca
    (a (cert, key) pair), or self-signed when ca is None."""
    key, csr, crt, ext = (os.path.join(work, f"{name}.{x}") for x in ("key", "csr", "pem", "ext"))
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", csr,
            "-subj", "/CN=localhost")
    if ca:
        openssl("x509", "-req", "-in", csr, "-CA", ca[0], "-CAkey", ca[1], "-CAcreateserial", "-out", crt, "-days",
                "1", "-extfile", ext)
    else:
        openssl("x509", "-req", "-in", csr, "-signkey", key, "-out", crt, "-days", "1", "-extfile", ext)
    srv = serve(handler_body)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(crt, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    return srv


def chroot_https(work, port, up, jwks_file, keys, env):
    """Pull mode over https inside HAProxy's chroot. The refresher runs in the worker, after the chroot, so
    libcurl looks for its CA bundle (/etc/ssl/certs/ca-certificates.crt, Debian's libcurl default) and for
    /etc/hosts under the chroot directory. With them copied there (the fix docs/HAPROXY.md gives) https key
    URLs work, by IP and by name; a server whose certificate that bundle does not vouch for gets no keys
    (503): verification stays on."""
    d = os.path.join(work, "tls")
    os.makedirs(d, exist_ok=True)
    ca = (os.path.join(d, "ca.pem"), os.path.join(d, "ca.key"))
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", ca[1],
            "-out", ca[0], "-subj", "/CN=jwtk test CA", "-days", "1")
    fetched = []
    body = lambda req: (fetched.append(req.path) or 200, {"Content-Type": "application/json"}, keys.jwks.encode())
    good_srv = https_server(d, "good", body, ca)
    rogue_srv = https_server(d, "rogue", body, None)
    root = os.path.join(work, "chroot")
    os.makedirs(os.path.join(root, "etc/ssl/certs"), exist_ok=True)
    import shutil
    shutil.copy(ca[0], os.path.join(root, "etc/ssl/certs/ca-certificates.crt"))
    shutil.copy("/etc/hosts", os.path.join(root, "etc/hosts"))
    gp, rp = good_srv.server_port, rogue_srv.server_port
    extra = {
        "tls_ip": {"issuers": ["https://tls-ip.example"], "audiences": ["api"],
                   "jwks_url": f"https://127.0.0.1:{gp}/jwks.json"},
        "tls_name": {"issuers": ["https://tls-name.example"], "audiences": ["api"],
                     "jwks_url": f"https://localhost:{gp}/jwks.json"},
        "tls_rogue": {"issuers": ["https://tls-rogue.example"], "audiences": ["api"],
                      "jwks_url": f"https://127.0.0.1:{rp}/jwks.json"},
    }
    cfg = config(work, port, up.server_port, gp, jwks_file, extra, chroot=root)
    text = open(cfg).read()
    routes = "".join(f"    http-request lua.jwtk-verify {v} if {{ path_beg /{v}/ }}\n" for v in extra)
    anchor = "    http-request lua.jwtk-verify default if { path_beg /api/ }\n"
    with open(cfg, "w") as f:
        f.write(text.replace(anchor, anchor + routes))

    def body_fn(proc):
        now = int(time.time())
        workers = children(proc.pid)
        root_of = lambda pid: os.readlink(f"/proc/{pid}/root")
        check(len(workers) == 1 and root_of(workers[0]) == root, "the worker runs chrooted",
              f"{workers} {[root_of(p) for p in workers]}")
        for v in ("tls_ip", "tls_name"):
            iss = extra[v]["issuers"][0]
            s = wait_200(port, f"/{v}/x", keys.token(claims(now, iss=iss)), tries=100)
            check(s == 200, f"chroot: an https key URL ({v}: {extra[v]['jwks_url'].split('/jwks')[0]}) works with "
                  "the CA bundle and /etc/hosts in the chroot", str(s))
        s, h, _ = raw_get(port, "/tls_rogue/x", [("Authorization", "Bearer " + keys.token(
            claims(now, iss="https://tls-rogue.example")))])
        check(s == 503 and "www-authenticate" not in h,
              "chroot: a key server whose certificate the bundle does not vouch for gets no keys (503)", f"{s} {h}")
    try:
        with_haproxy(work, cfg, port, env, body_fn)
    finally:
        good_srv.shutdown()
        rogue_srv.shutdown()


def rotation(port, keys, fetches, base, now):
    """Pull mode through HAProxy: a token of a new key is refused until the key server has it; then a
    flood of tokens with unknown kids (and the new one) costs about one fetch per cooldown, and the new
    key verifies without a reload."""
    print("== rotation and an unknown-kid flood (pull mode, cooldown 1 s)")
    claims_r = dict(base, iss="https://login.example")
    new_tok = keys.next.token(claims_r)
    s, h, _ = raw_get(port, "/remote/x", [("Authorization", "Bearer " + new_tok)])
    check(s == 401 and h.get("www-authenticate") == 'Bearer realm="api", error="invalid_token"',
          "a token of a key the server does not publish yet: 401 invalid_token", f"{s} {h.get('www-authenticate')}")
    keys.served["jwks"] = json.dumps({"keys": [json.loads(keys.jwks)["keys"][0], keys.next.jwk]})
    forged = keys.token(claims_r, kid="flood")   # signed with k1, named with an unknown kid
    before, t0, ok200, answered, sent = len(fetches), time.time(), False, 0, 0
    while time.time() - t0 < 4 and not ok200:
        for _ in range(20):
            s, _, _ = raw_get(port, "/remote/x", [("Authorization", "Bearer " + forged)])
            answered += s == 401
            sent += 1
        ok200 = raw_get(port, "/remote/x", [("Authorization", "Bearer " + new_tok)])[0] == 200
    spent = time.time() - t0
    made = len(fetches) - before
    check(ok200, f"after the rotation the new key verifies ({spent:.1f} s, no reload)", f"{spent:.1f} s")
    check(answered == sent and made <= 2 + int(spent), f"{answered} unknown-kid tokens: 401 each, {made} fetches "
          f"(at most one per cooldown)", f"{made} fetches in {spent:.1f} s")
    s, _, _ = raw_get(port, "/remote/x", [("Authorization", "Bearer " + keys.token(claims_r))])
    check(s == 200, "the old key still verifies (both published)", str(s))


def stale(port, keys, fetches, base):
    """Stale keys while the key server fails: after a success, the server answers 500; refetches (forced by
    unknown kids, one per cooldown) fail, and the keys held keep verifying (max_staleness, default 24 h)."""
    print("== stale keys while the key server fails (pull mode)")
    claims_r = dict(base, iss="https://login.example")
    good = keys.token(claims_r)
    forged = keys.token(claims_r, kid="stale-flood")
    keys.served["fail"] = True
    try:
        before, t0, statuses = len(fetches), time.time(), []
        while time.time() - t0 < 2.5:
            raw_get(port, "/remote/x", [("Authorization", "Bearer " + forged)])
            statuses.append(raw_get(port, "/remote/x", [("Authorization", "Bearer " + good)])[0])
            time.sleep(0.05)
        failed_fetches = len(fetches) - before
        check(failed_fetches >= 2, f"the key server failed {failed_fetches} refetches (500) while tokens came",
              str(failed_fetches))
        check(statuses and all(x == 200 for x in statuses),
              f"stale keys: {len(statuses)} valid tokens 200 while every refetch failed",
              str({x: statuses.count(x) for x in set(statuses)}))
    finally:
        keys.served["fail"] = False


def push_rotation(port, keys, base):
    """Push mode: the key file rewritten while haproxy runs ("refresh": 1) is read again by the worker's
    task; a file that is no longer a key set keeps the keys."""
    print("== key file rotation (push mode, refresh 1 s)")
    new_tok = keys.next.token(base)
    s, _, _ = raw_get(port, "/api/x", [("Authorization", "Bearer " + new_tok)])
    check(s == 401, "a token of a key not yet in the file: 401", str(s))
    with open(keys.file + ".tmp", "w") as f:
        f.write(json.dumps({"keys": [keys.jwk, keys.next.jwk]}))
    os.replace(keys.file + ".tmp", keys.file)
    t0 = time.time()
    s = wait_200(port, "/api/x", new_tok, tries=80)
    check(s == 200, f"after the file changed the new key verifies ({time.time() - t0:.1f} s, no reload)", str(s))
    with open(keys.file, "w") as f:
        f.write("not a key set")
    time.sleep(1.5)
    s1 = raw_get(port, "/api/x", [("Authorization", "Bearer " + new_tok)])[0]
    s2 = raw_get(port, "/api/x", [("Authorization", "Bearer " + keys.token(base))])[0]
    check(s1 == 200 and s2 == 200, "a key file that is no longer a key set keeps the keys held", f"{s1} {s2}")
    with open(keys.file, "w") as f:   # a reload (next) reads the file again, and refuses to start on a bad one
        f.write(keys.jwks)


def run(port, keys, proc, fetches):
    now = int(time.time())
    base = {"iss": "https://issuer.example", "aud": "api", "sub": "user-1", "exp": now + 600,
            "email": "u@example.com", "roles": ["admin", "ops"], "scope": "read"}
    good = keys.token(base)
    workers = children(proc.pid)
    check(len(workers) == 1, "one worker", str(workers))
    master = threads_of(proc.pid)
    check(master == ["haproxy"], "the master has one thread: no jwtk thread before the fork", str(master))
    ok = False
    for _ in range(100):
        s, h, body = raw_get(port, "/remote/x", [("Authorization", "Bearer " + keys.token(dict(base, iss="https://login.example")))])
        if s == 200:
            ok = True
            break
        time.sleep(0.05)
    check(ok and len(fetches) >= 1, "pull: a token of the key URL's issuer is 200 once jwtk fetched the keys",
          f"{s} {h.get('www-authenticate')} fetches={len(fetches)}")
    wt = threads_of(workers[0]) if workers else []
    check(wt.count("jwtk-refresh") >= 1, "the worker started the refresher (core.register_task, after fork)", str(wt))

    print("== verdicts")
    forged = [("X-Jwt-Sub", "spoofed"), ("X_Jwt_Sub", "spoofed"), ("x-JWT-role", "admin"), ("X-JWT-EMAIL", "e@evil")]
    s, h, body = raw_get(port, "/api/x", [("Authorization", "Bearer " + good)] + forged)
    e = json.loads(body) if s == 200 else {}
    check(s == 200 and e.get("x-jwt-sub") == ["user-1"] and e.get("x-jwt-iss") == ["https://issuer.example"] and
          e.get("x-jwt-email") == ["u@example.com"] and e.get("x-jwt-roles") == ["admin,ops"] and
          e.get("x-user") == ["user-1"],
          "valid token: 200, X-Jwt-Sub/Iss/Email and Roles (joined) reach the upstream", f"{s} {e}")
    check(s == 200 and "x_jwt_sub" not in e and "x-jwt-role" not in e,
          "client X-Jwt-* copies removed, look-alikes (X_Jwt_Sub, x-JWT-role) included", str(e))
    s, h, body = raw_get(port, "/api/x", forged)
    check(s == 401 and h.get("www-authenticate") == 'Bearer realm="api"' and "spoofed" not in body,
          "no token: 401 with the realm-only challenge", f"{s} {h}")
    bad_sig = good[:-6] + ("AAAAAA" if not good.endswith("AAAAAA") else "BBBBBB")
    for name, tok, want_s, want_h in [
        ("bad signature", bad_sig, 401, 'Bearer realm="api", error="invalid_token"'),
        ("expired", keys.token(dict(base, exp=now - 3600)), 401, 'Bearer realm="api", error="invalid_token"'),
        ("another audience", keys.token(dict(base, aud="other")), 401, 'Bearer realm="api", error="invalid_token"'),
        ("unknown kid", keys.token(base, kid="nope"), 401, 'Bearer realm="api", error="invalid_token"'),
        ("garbage", "x.y.z", 401, 'Bearer realm="api", error="invalid_token"'),
    ]:
        s, h, body = raw_get(port, "/api/x", [("Authorization", "Bearer " + tok)])
        check(s == want_s and h.get("www-authenticate") == want_h and
              not [p for p in tok.split(".") if len(p) > 8 and p in body],
              f"{name}: {want_s} {want_h}", f"{s} {h.get('www-authenticate')}")
    s, h, _ = raw_get(port, "/write/x", [("Authorization", "Bearer " + good)])
    check(s == 403 and h.get("www-authenticate") == 'Bearer realm="api", error="insufficient_scope"',
          "an unmet claim requirement: 403 insufficient_scope", f"{s} {h.get('www-authenticate')}")
    s, _, _ = raw_get(port, "/write/x", [("Authorization", "Bearer " + keys.token(dict(base, scope="read write")))])
    check(s == 200, "a met claim requirement: 200", str(s))
    s, h, _ = raw_get(port, "/api/x", [("Authorization", "Bearer " + good), ("Authorization", "Bearer " + good)])
    check(s == 401 and h.get("www-authenticate") == 'Bearer realm="api"',
          "two Authorization fields: no bearer token (one list of two credentials)", f"{s} {h}")
    s, h, body = raw_get(port, "/down/x", [("Authorization", "Bearer " + keys.token(dict(base, iss="https://down.example")))])
    check(s == 503 and "www-authenticate" not in h, "keys never fetched (key URL down): 503 without a challenge", f"{s} {h}")
    for name, hdrs, want in [("a valid token", [("Authorization", "Bearer " + good)], "ok"),
                             ("Basic credentials", [("Authorization", "Basic dXNlcjpwYXNz")], "no_token"),
                             ("no Authorization (no sample: haproxy calls no converter)", [], ""),
                             ("an expired token", [("Authorization", "Bearer " + keys.token(dict(base, exp=now - 3600)))], "expired")]:
        s, _, body = raw_get(port, "/status/x", hdrs)
        check(s == 200 and body == want, f"converter lua.jwtk-status: {name} is {want}", f"{s} {body!r}")
    s, h, _ = raw_get(port, "/nosuch/x", [("Authorization", "Bearer " + good)])
    check(s == 500, "an action naming no configured verifier: 500 (fail closed), haproxy keeps serving", str(s))
    s, _, body = raw_get(port, "/open/x", [("X-Jwt-Sub", "kept")])
    check(s == 200 and json.loads(body).get("x-jwt-sub") == ["kept"], "a path without the action is not touched", str(s))
    s, _, body = raw_get(port, "/api/x", [("Authorization", "Bearer " + keys.token(dict(base, sub="a\r\nX-Injected: 1")))])
    e = json.loads(body) if s == 200 else {}
    check(s == 200 and "x-injected" not in e and e.get("x-jwt-sub") == ["a%0D%0AX-Injected: 1"],
          "a sub with CR LF cannot add an upstream header (percent-encoded)", f"{s} {e}")
    s, _, body = raw_get(port, "/api/x", [("Authorization", "Bearer " + keys.token(dict(base, sub="50% off")))])
    e = json.loads(body) if s == 200 else {}
    check(e.get("x-jwt-sub") == ["50% off"], "a sub with '%' and no control character goes as it is", f"{s} {e}")

    rotation(port, keys, fetches, base, now)
    stale(port, keys, fetches, base)
    push_rotation(port, keys, base)

    print("== the gateway contract's bearer grammar (Tests/JWTKernelTests/Fixtures/gateway/contract.json)")
    with open(os.path.join(ROOT, "Tests/JWTKernelTests/Fixtures/gateway/contract.json")) as f:
        contract = json.load(f)
    for case in contract["bearer"]:
        if "\0" in case["value"]:
            continue   # a NUL cannot travel in an HTTP field (haproxy answers 400 itself)
        s, h, _ = raw_get(port, "/api/x", [("Authorization", case["value"])])
        want = 'Bearer realm="api", error="invalid_token"' if case["token"] else 'Bearer realm="api"'
        check(s == 401 and h.get("www-authenticate") == want, f"bearer: {case['name']}",
              f"got {s} {h.get('www-authenticate')!r}, want 401 {want!r}")
    # The challenge cases whose status a request through this configuration (realm "api") can produce.
    reach = {"no_token": ("/api/x", None), "expired": ("/api/x", keys.token(dict(base, exp=now - 3600))),
             "bad_audience": ("/api/x", keys.token(dict(base, aud="other"))),
             "claim_requirement_failed": ("/write/x", good)}
    for case in contract["challenge"]:
        if case["realm"] != "api" or case["scope"] or case["status"] not in reach:
            continue
        path, tok = reach[case["status"]]
        s, h, _ = raw_get(port, path, [("Authorization", "Bearer " + tok)] if tok else [])
        check(h.get("www-authenticate") == case["expect"], f"challenge: {case['name']}",
              f"{s} {h.get('www-authenticate')!r}")

    print("== the verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json)")
    def send(case):
        s, h, body = raw_get(port, f"/v-{case['configuration']}/x", [("Authorization", "Bearer " + case["token"])])
        e = json.loads(body) if s == 200 else {}
        names = {"iss": "x-jwt-iss", "sub": "x-jwt-sub", "/roles": "x-jwt-roles"}
        return s, h.get("www-authenticate"), {c: (e.get(hdr) or [None])[0] for c, hdr in names.items()}, None
    agreed, problems = verdicts.run_gateway("haproxy", send, ("routed", "pushed-per-issuer"))
    for p in problems:
        check(False, "verdicts: " + p)
    check(not problems, "verdicts: every case as the corpus says")
    print(f"verdicts (haproxy): {agreed} of {len(VERDICTS['cases'])} cases as the corpus says")

    print("== hostile input")
    pid = workers[0] if workers else None
    for name, hdrs in [
        ("a 15 KB token", [("Authorization", "Bearer " + "a" * 15000)]),
        ("a 100 KB header (haproxy's own limit)", [("Authorization", "Bearer " + "a" * 100000)]),
        ("binary garbage", [("Authorization", bytes(range(1, 32)).replace(b"\r", b"").replace(b"\n", b"") + b"\xff\xfe")]),
        ("Bearer with 2000 dots", [("Authorization", "Bearer " + "." * 2000)]),
        ("a JSON bomb header", [("Authorization", "Bearer " + b64(b"[" * 5000) + "." + b64(b"{" * 5000) + ".x")]),
        ("200 X-Jwt-* headers", [("X-Jwt-N%d" % i, "v") for i in range(200)]),
    ]:
        s, h, _ = raw_get(port, "/api/x", hdrs)
        check(s in (400, 401, 431), f"{name}: answered ({s}), no crash", str(s))
    check(pid is not None and children(proc.pid) == [pid] and proc.poll() is None,
          "the same worker still serves after the hostile input", f"{children(proc.pid)}")
    s, _, _ = raw_get(port, "/api/x", [("Authorization", "Bearer " + good)])
    check(s == 200, "a valid token after the hostile input: 200", str(s))


if __name__ == "__main__":
    sys.exit(main())
