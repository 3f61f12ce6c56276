"""The nginx integration test (issue 11): libjwtk inside a real nginx through LuaJIT FFI, with the module
and config of gateways/lua/, against a loopback JWKS server; then a load comparison with HAProxy 2.6's
jwt_verify. Run by run.sh, which installs the packages, builds the library and makes the venv:

    driver.py --lib LIB --header HEADER --examples DIR --work DIR --load SECONDS [--module SO]

Ends with the line other tools read:
nginx-integration: checks=N failed=F wrong_answers=W worker_crashes=C rps_nocheck=A rps_jwtk_rs256=B
rps_haproxy_rs256=H rps_jwtk_cached=K rps_module_rs256=R rps_module_es256=E rps_module_hs256=S rps_module_cached=M
rps_module_jwe_dir=D rps_module_jwe_nested=N

With --module (ngx_http_jwtk_module.so), the same checks run against the native module too (module_phase),
and the load phase adds the module's rows from locations in the same nginx.
"""

import argparse
import ctypes
import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from support.checks import Tally  # noqa: E402
from support.keepalive import Client  # noqa: E402  (module_test.py imports it from here)
from support import load  # noqa: E402
from support.loopback_server import free_port, serve  # noqa: E402,F401  (free_port: others import it from here)
from support.processes import children, stop  # noqa: E402
from support.waiting import wait_for  # noqa: E402

ISSUER = "https://issuer.test"
NEVER = "https://never-loaded.test"
HMAC = "https://hmac.test"
HERE = os.path.dirname(os.path.abspath(__file__))

# The counts of this program and of those that import check from here (module_test.py, plus_configs.py,
# forward-auth/ with its readme_gateways.py); they read driver.passed and driver.failed (__getattr__ below).
TALLY = Tally(ok_line="ok    {name}", fail_line="FAIL  {name}{detail}", detail_sep="  ")
check = TALLY.check
skipped = 0
wrong_answers = 0


def __getattr__(name):
    if name in ("passed", "failed"):
        return getattr(TALLY, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def skip(name, why):
    global skipped
    skipped += 1
    print(f"skip  {name}  ({why})")


# The JWKS server: the test's stand-in for an identity provider, with its own request log. ----------------

class JWKS:
    def __init__(self, body):
        self.body, self.mode, self.log, self.lock = body, "ok", [], threading.Lock()
        self.bodies = None   # {path: body}: each path its own document, any other path 404
        self.max_age = 1
        outer = self

        def answer(req):
            with outer.lock:
                outer.log.append((time.time(), req.path, req.headers.get("User-Agent", "")))
                mode, body = outer.mode, outer.body
                if outer.bodies is not None:
                    body = outer.bodies.get(req.path.split("?", 1)[0])
            if body is None:
                return 404, {}, b""
            if mode == "hang":
                time.sleep(5)
            if mode not in ("ok", "huge"):
                return 500, {}, b""
            data = body.encode()
            if mode == "huge":   # a valid key set behind 2 MiB of JSON whitespace: above every size cap
                data = b" " * (2 << 20) + data
            # Cache-Control: pull mode's refresh schedule. A fetcher that gives up (its size cap, its timeout)
            # breaks the write; the server keeps quiet, the fetcher counts it.
            return 200, {"Content-Type": "application/json", "Cache-Control": f"max-age={outer.max_age}"}, data

        self.server = serve(answer, protocol="HTTP/1.0")
        self.port = self.server.server_address[1]

    def hits(self, since, agent=None, path=None):
        with self.lock:
            return [e for e in self.log if e[0] >= since and (agent is None or agent in e[2]) and
                    (path is None or e[1] == path)]


# HTTP helpers --------------------------------------------------------------------------------------------

def echoed(body):
    """The echo upstream's response: the request headers it received, lower-cased names."""
    out = {}
    for line in body.splitlines():
        if ": " in line:
            k, v = line.split(": ", 1)
            out.setdefault(k.lower(), []).append(v)
    return out


# nginx ---------------------------------------------------------------------------------------------------

def verifier_config(cache=False, pull_url=None):
    # Pull mode: a remote source serves every issuer its verifier lists, so that verifier lists one.
    c = {"issuers": [ISSUER] if pull_url else [ISSUER, NEVER, HMAC], "audiences": ["api"],
         "algorithms": ["RS256", "PS256", "ES256", "ES384", "ES512", "EdDSA", "HS256"], "leeway": 30,
         "require_exp": True, "reject_iat_in_future": True, "required_claims": ["sub"], "max_token_size": 4096}
    if cache:
        c["cache"] = True
    if pull_url:
        c.update({"jwks_url": pull_url, "cooldown": 2, "max_staleness": 3600, "refresh_min": 1, "refresh_max": 4})
    return json.dumps(c)


def lua_str(s):
    return "[==[" + s + "]==]"


def nginx_conf(a, w, port, echo_port, variant, jwks_port):
    """variant: "jwtk" (push mode), "pull" (jwtk's refresher), "bare" (the lua module without libjwtk),
    "cooldown0" (push mode with cooldown = 0, which init_worker must refuse)."""
    if variant == "module":
        return module_conf(a, w, port, echo_port, jwks_port)
    jwtk = variant != "bare"
    # The push instance also loads ngx_http_jwtk_module for the load rows (key files: no thread).
    module = variant == "jwtk" and a.module
    lines = [
        "worker_processes 1;", "master_process on;", "daemon off;", f"pid {w}/nginx.pid;",
        f"error_log {w}/error.log notice;",
        "load_module /usr/lib/nginx/modules/ndk_http_module.so;",
        "load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;",
    ] + ([f"load_module {a.module};"] if module else []) + [
        "events { worker_connections 1024; }",
        "http {", "  access_log off;",
        f"  client_body_temp_path {w}/tmp/body; proxy_temp_path {w}/tmp/proxy; fastcgi_temp_path {w}/tmp/fcgi;",
        f"  uwsgi_temp_path {w}/tmp/uwsgi; scgi_temp_path {w}/tmp/scgi;",
        f'  lua_package_path "{a.examples}/?.lua;;";',
        "  upstream echo { server 127.0.0.1:%d; keepalive 16; }" % echo_port,
    ]
    if jwtk:
        url = f"http://127.0.0.1:{jwks_port}/jwks"
        if variant == "pull":
            keys = (f'{{ {{ file = "{w}/never.json", issuer = "{NEVER}", interval = 1 }},'
                    f' {{ file = "{w}/hmac.json", issuer = "{HMAC}", interval = 1 }} }}')
            verifiers = (f'{{ default = {lua_str(verifier_config(pull_url=url))}, '
                         f'cached = {lua_str(verifier_config(cache=True, pull_url=url))} }}')
            pull = 'nil, headers = "get_headers"'   # the portable header path, checked in pull_phase
        else:
            cooldown = 0 if variant == "cooldown0" else 2
            keys = (f'{{ {{ url = "{url}", issuer = "{ISSUER}", interval = 1, cooldown = {cooldown}, timeout = 1 }},'
                    f' {{ file = "{w}/never.json", issuer = "{NEVER}", interval = 1 }},'
                    f' {{ file = "{w}/hmac.json", issuer = "{HMAC}", interval = 1 }} }}')
            verifiers = (f'{{ default = {lua_str(verifier_config())}, '
                         f'cached = {lua_str(verifier_config(cache=True))} }}')
            pull = "false"
        lines += [
            f'  init_by_lua_block {{ require("jwtk").load("{a.lib}") }}',
            f'  init_worker_by_lua_block {{ require("jwtk").init_worker{{ keys = {keys}, verifiers = {verifiers},'
            f' pull = {pull} }} }}',
        ]
    access = (lambda opts: f'    access_by_lua_block {{ require("jwtk").access{{ {opts} }} }}') if jwtk else \
        (lambda opts: "")
    proxy = "    proxy_pass http://echo; proxy_http_version 1.1; proxy_set_header Connection \"\";"
    lines += [
        "  server {", f"    listen 127.0.0.1:{port};",
        "    location /api/ {", access('verifier = "default", realm = "api"'), proxy, "    }",
        "    location /payload/ {", access('realm = "api", forward_payload = true, forward_authorization = true'),
        proxy, "    }",
        "    location = /load/nocheck { content_by_lua_block { ngx.say(\"ok\") } }",
        "    location = /load/jwtk {", access('realm = "api"'), "      content_by_lua_block { ngx.say(\"ok\") } }",
        "    location = /load/cached {", access('verifier = "cached", realm = "api"'),
        "      content_by_lua_block { ngx.say(\"ok\") } }",
    ]
    if jwtk:
        lines.append('    location = /jwtk/stats { content_by_lua_block { require("jwtk").stats() } }')
    if module:
        # The module's load locations: the nocheck location's content handler, keys from files (the Lua
        # handler's push mode also verifies with keys in hand).
        ok = '      content_by_lua_block { ngx.say("ok") } }'
        lines += [
            "    location = /load/module {", module_policy(ISSUER, f"auth_jwt_key_file {a.work}/jwks.json;"), ok,
            "    location = /load/module_hs {", module_policy(HMAC, f"auth_jwt_key_file {a.work}/hmac.json;"), ok,
            "    location = /load/module_cached {",
            module_policy(ISSUER, f"auth_jwt_key_file {a.work}/jwks.json; jwtk_cache on;"), ok,
            # The JWE rows: encrypted claims (dir + A256GCM), and RS256 nested in RSA-OAEP-256 + A256GCM.
            "    location = /load/module_jwe_dir {",
            module_policy(ISSUER, f"auth_jwt_type encrypted; auth_jwt_key_file {a.work}/jwe_dir.json;"), ok,
            "    location = /load/module_jwe_nested {",
            module_policy(ISSUER, f"auth_jwt_type nested; auth_jwt_key_file {a.work}/jwe_rsa.json; "
                                  f"auth_jwt_key_file {a.work}/jwks.json;"), ok,
            "    location = /jwtk/status { jwtk_status; }",
        ]
    lines += [
        "  }",
        "  server {", f"    listen 127.0.0.1:{echo_port};",
        "    location / { content_by_lua_block {",
        "      local h, names = ngx.req.get_headers(0, true), {}",
        "      for k in pairs(h) do names[#names + 1] = k end",
        "      table.sort(names)",
        "      for _, k in ipairs(names) do",
        "        local v = h[k]",
        "        if type(v) == 'table' then for _, x in ipairs(v) do ngx.say(k, ': ', x) end",
        "        else ngx.say(k, ': ', v) end",
        "      end } }",
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"


ALGS = "RS256 PS256 ES256 ES384 ES512 EdDSA HS256"


def module_policy(issuer, keys):
    """The verdict matrix's policy, the module's native way (the Lua verifier_config's equivalent)."""
    return (f'      auth_jwt "api"; {keys}\n      jwtk_issuer {issuer}; jwtk_audience api; jwtk_algorithms {ALGS};'
            f' jwtk_require_claim sub; jwtk_require_exp on; auth_jwt_leeway 30; jwtk_max_token_size 4096;')


def module_conf(a, w, port, echo_port, jwks_port):
    """ngx_http_jwtk_module alone (the lua module only for the echo upstream and the plain content
    handler), two workers. Keys per location: /api/ pulls the loopback JWKS server (jwtk_key_url), /hmac/
    reads hmac.json, /never/ pulls from a port nobody answers (503), /sum/ reads jwks.json (the counters'
    sum over workers), /kr0/ /krc/ /krbad/ use key subrequests."""
    url = lambda p, path: f"http://127.0.0.1:{p}/{path}"
    pull = "cooldown=2s refresh_min=1s refresh_max=4s"
    proxy = ('      proxy_set_header X-Jwt-Sub $jwt_claim_sub; proxy_set_header X-Jwt-Iss $jwt_claim_iss;\n'
             '      proxy_set_header Authorization ""; proxy_set_header Connection "";\n'
             '      proxy_pass http://echo; proxy_http_version 1.1; }')
    ok = '      content_by_lua_block { ngx.say("ok") } }'
    lines = [
        "worker_processes 2;", "master_process on;", "daemon off;", f"pid {w}/nginx.pid;",
        f"error_log {w}/error.log info;",   # info: the module's reasons for each denial
        "load_module /usr/lib/nginx/modules/ndk_http_module.so;",
        "load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;",
        f"load_module {a.module};",
        "events { worker_connections 1024; }",
        "http {", "  access_log off;",
        f"  client_body_temp_path {w}/tmp/body; proxy_temp_path {w}/tmp/proxy; fastcgi_temp_path {w}/tmp/fcgi;",
        f"  uwsgi_temp_path {w}/tmp/uwsgi; scgi_temp_path {w}/tmp/scgi;",
        "  subrequest_output_buffer_size 64k;",   # a key subrequest's answer is held in memory
        "  upstream echo { server 127.0.0.1:%d; keepalive 16; }" % echo_port,
        "  server {", f"    listen 127.0.0.1:{port};",
        "    add_header X-Worker $pid always;",
        "    location = /load/nocheck {", ok,
        "    location = /jwtk/status { jwtk_status; }",
        "    location /api/ {", module_policy(ISSUER, f"jwtk_key_url {url(jwks_port, 'jwks')} {pull};"), proxy,
        "    location /hmac/ {", module_policy(HMAC, f"auth_jwt_key_file {a.work}/hmac.json;"), proxy,
        "    location /never/ {", module_policy(NEVER, f"jwtk_key_url {url(a.dead_port, 'jwks')} {pull};"), proxy,
        "    location /sum/ {", module_policy(ISSUER, f"auth_jwt_key_file {a.work}/jwks.json;"), ok,
        "    location /kr0/ {", module_policy(ISSUER, "auth_jwt_key_request /_keys0; auth_jwt_key_cache 0;"), ok,
        "    location /krc/ {", module_policy(ISSUER, "auth_jwt_key_request /_keysc; auth_jwt_key_cache 3s;"), ok,
        "    location /krbad/ {", module_policy(ISSUER, "auth_jwt_key_request /_keysbad;"), ok,
        f"    location = /_keys0 {{ internal; proxy_pass {url(jwks_port, 'kr0')}; }}",
        f"    location = /_keysc {{ internal; proxy_pass {url(jwks_port, 'krc')}; }}",
        f"    location = /_keysbad {{ internal; proxy_pass {url(a.dead_port, 'bad')}; }}",
        "  }",
    ]
    echo = nginx_conf(a, w, port, echo_port, "bare", jwks_port).splitlines()   # its echo server, and "}"
    lines += echo[echo.index(f"    listen 127.0.0.1:{echo_port};") - 1:]
    return "\n".join(lines) + "\n"


class NginxProcess:
    """One nginx from its own prefix w (w/nginx.conf, w/error.log, w/tmp), the configuration text given; up once
    probe answers 200 or 204 on port (stopped, and RuntimeError with the error log's tail, if it never does).
    Nginx below and module_test.py's Ngx build on it."""

    def __init__(self, w, text, port, probe, timeout=15, step=0.1, binary="nginx", wrapper=(), env=None,
                 stop_timeout=30):
        self.w, self.port, self.stop_timeout = w, port, stop_timeout
        os.makedirs(f"{w}/tmp", exist_ok=True)
        os.chmod(w, 0o755)   # workers run as nobody and read the files under it
        with open(f"{w}/nginx.conf", "w") as f:
            f.write(text)
        self.proc = subprocess.Popen(list(wrapper) + [binary, "-p", w, "-c", f"{w}/nginx.conf", "-e",
                                                      f"{w}/error.log"],
                                     stdout=subprocess.DEVNULL, stderr=open(f"{w}/stderr.log", "w"),
                                     env=dict(os.environ, **(env or {})))
        self.client = Client(port)
        if not wait_for(lambda: self.client.get(probe)[0] in (200, 204), timeout, step):
            self.stop()
            raise RuntimeError(f"nginx did not start: {self.log()[-3000:]}")

    def workers(self):
        return children(self.proc.pid)

    def stop(self, timeout=None):
        """SIGQUIT (graceful), SIGKILL after timeout seconds: the exit status, None when it had to be killed."""
        return stop(self.proc, signal.SIGQUIT, timeout or self.stop_timeout)

    def log(self):
        with open(f"{self.w}/error.log", errors="replace") as f:
            return f.read()


class Nginx(NginxProcess):
    """nginx on nginx_conf's configuration (the Lua handler, pull mode or the module) beside its echo server."""

    def __init__(self, a, w, variant, jwks_port, env=None):
        port, self.echo_port = free_port(), free_port()
        super().__init__(w, nginx_conf(a, w, port, self.echo_port, variant, jwks_port), port, "/load/nocheck",
                         timeout=10, env=env, stop_timeout=15)

    def stats(self):
        return json.loads(self.client.get("/jwtk/stats")[2])


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def sigcgt(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("SigCgt:"):
                return int(line.split()[1], 16)


def signal_names(mask):
    return sorted(signal.Signals(i + 1).name if (i + 1) in signal.valid_signals() and
                  (i + 1) < signal.SIGRTMIN else f"SIG{i + 1}" for i in range(64) if mask >> i & 1)


def serve_through_reloads(ngx, master, path, token, workers=1, check=check):
    """Three HUP reloads while a client keeps sending `token` to `path`: each must give new workers (and a
    master with one thread), and every request an answer of 200. `check`: the caller's (a labelled one)."""
    stop, bad, sent = threading.Event(), [], [0]

    def hammer():
        hc = Client(ngx.port)
        while not stop.is_set():
            try:
                s = hc.get(path, token=token, timeout=5)[0]
            except Exception as e:   # a refused or reset connection is a failure to serve
                s = repr(e)
            sent[0] += 1
            if s != 200:
                bad.append(s)
            time.sleep(0.002)

    # What "through" means is that requests were answered while each reload happened, so the check counts
    # the requests sent in each reload's window rather than a total, which a slow machine makes smaller.
    th = threading.Thread(target=hammer)
    th.start()
    per_reload = []
    for n in range(1, 4):
        old, before = ngx.workers(), sent[0]
        os.kill(master, signal.SIGHUP)
        changed = wait_for(lambda: (lambda ws: len(ws) == workers and not set(ws) & set(old))(ngx.workers()), 10)
        wait_for(lambda: sent[0] >= before + 3, 10)
        per_reload.append(sent[0] - before)
        check(changed and threads(master) == 1, f"HUP {n}: new workers, the master still has one thread",
              f"threads={threads(master)} workers {old} -> {ngx.workers()}")
    time.sleep(0.5)
    stop.set()
    th.join()
    check(min(per_reload) >= 3 and not bad,
          f"workers serve through 3 reloads ({sent[0]} requests, {per_reload} in the reloads' windows, "
          f"{len(bad)} not 200)", str(bad[:5]))


# The checks ----------------------------------------------------------------------------------------------

def cdef_matches_header(a):
    """Every declaration of the module's ffi.cdef is the header's, token for token (structs: a prefix of the
    header's members, since jwtk appends fields only)."""
    def decls(text, defines):
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        text = text.replace('extern "C" {', "")
        text = re.sub(r"\bJWTK_[A-Z0-9_]+\b", lambda m: defines.get(m.group(0), m.group(0)), text)
        out, cur, depth = [], "", 0
        for ch in text:
            cur += ch
            depth += ch == "{"
            depth -= ch == "}"
            if ch == ";" and depth == 0:
                out.append(re.sub(r"\s*([(),;*{}\[\]])\s*", r"\1", re.sub(r"\s+", " ", cur)).strip())
                cur = ""
        return out

    header = open(a.header).read()
    defines = dict(re.findall(r"#define\s+(JWTK_\w+)\s+\(?(-?\d+)\)?", header))
    hd = decls(header.replace("\n}\n", "\n"), defines)
    module = open(os.path.join(a.examples, "jwtk.lua")).read()
    md = decls(re.search(r"_M\.cdef = \[\[(.*?)\]\]", module, re.S).group(1), defines)
    missing = []
    for d in md:
        if d in hd:
            continue
        m = re.match(r"typedef struct (\w+)\{(.*)\}\w+;$", d)
        twin = [h for h in hd if m and h.startswith(f"typedef struct {m.group(1)}{{")]
        if twin and re.match(r"typedef struct \w+\{(.*)\}\w+;$", twin[0]).group(1).startswith(m.group(2)):
            continue
        missing.append(d)
    funcs = set(re.findall(r"\b(jwtk_\w+)\(", " ".join(hd))) - set(re.findall(r"\b(jwtk_\w+)\(", " ".join(md)))
    if funcs:
        print(f"      header functions the module does not declare: {sorted(funcs)}")
    return check(not missing and len(md) > 20, f"cdef: the module's {len(md)} declarations are the header's",
                 f"not in jwtk.h: {missing}")


def pull_available(lib):
    l = ctypes.CDLL(lib)
    ks = ctypes.c_void_p()
    assert l.jwtk_keystore_new(ctypes.byref(ks)) == 0
    st = l.jwtk_keystore_start(ks)
    l.jwtk_keystore_free(ks)
    return st != -8, st


def run_matrix(ngx, corpus, route=lambda case: "/api/x", label="", strip_others=True):
    """route: the case's path (the module routes keys per location); strip_others: client X-Jwt-* headers
    the handler does not set are removed too (the Lua handler does; the module only replaces its own)."""
    check = lambda ok, name, detail="": globals()["check"](ok, label + name, detail)
    c = Client(ngx.port)
    s, h, body = c.get("/api/x")
    check(s == 401 and h.get("www-authenticate") == 'Bearer realm="api"', "no Authorization: 401, challenge without error=",
          f"{s} {h.get('www-authenticate')}")
    s, h, body = c.get("/api/x", headers={"Authorization": "Basic dXNlcjpwYXNz"})
    check(s == 401 and h.get("www-authenticate") == 'Bearer realm="api"', "Basic credentials: 401 as missing")
    s, h, body = c.get("/api/x", headers={"Authorization": "Bearer "})
    check(s == 401 and h.get("www-authenticate") == 'Bearer realm="api"', "empty Bearer: 401 as missing")
    # The gateway contract's bearer grammar (Tests/JWTKernelTests/Fixtures/gateway/contract.json, libjwtk's
    # jwtk_bearer_token): a value holding a bearer token (none of them a valid JWS) is 401 invalid_token, any
    # other value 401 as missing. Values HTTP cannot carry (a NUL) are left to the C and Swift tests.
    with open(os.path.join(HERE, "../../Tests/JWTKernelTests/Fixtures/gateway/contract.json")) as f:
        contract = json.load(f)
    for case in contract["bearer"]:
        if "\0" in case["value"] or not case["value"].strip():
            continue
        s, h, body = c.get("/api/x", headers={"Authorization": case["value"]})
        want = 'Bearer realm="api", error="invalid_token"' if case["token"] else 'Bearer realm="api"'
        check(s == 401 and h.get("www-authenticate") == want, f"bearer grammar: {case['name']}",
              f"got {s} {h.get('www-authenticate')!r}, want 401 {want!r}")
    for case in corpus:
        s, h, body = c.get(route(case), token=case["token"], headers={"X-Jwt-Sub": "spoofed", "x-JWT-role": "admin"})
        www = h.get("www-authenticate")
        ok = s == case["status"] and www == case["www"]
        detail = f"got {s} {www!r}, want {case['status']} {case['www']!r}"
        if case["status"] == 200:
            e = echoed(body)
            ok = ok and e.get("x-jwt-sub") == [case["sub"]] and e.get("x-jwt-iss") == [case["iss"]] and \
                "authorization" not in e and ("x-jwt-role" not in e or not strip_others)
            detail += f" upstream saw {e}"
        else:
            seg = case["token"].split(".")
            leaked = [p for p in seg if len(p) > 8 and p in body]
            ok = ok and not leaked and "x-jwt-sub" not in body.lower()
        check(ok, f"matrix: {case['name']} -> {case['status']}", detail)


def run_hygiene(ngx, extra, label=""):
    check = lambda ok, name, detail="": globals()["check"](ok, label + name, detail)
    c = Client(ngx.port)
    s, h, body = c.get("/payload/x", token=extra["rs1"], headers={"X-JWT-Sub": "x", "X-Jwt-Payload": "forged"})
    e = echoed(body)
    check(s == 200 and e.get("x-jwt-payload") == [extra["payload_segment"]] and e.get("x-jwt-sub") == ["user-1"],
          "forward_payload: the upstream gets the token's payload segment, client X-Jwt-* replaced", str(e))
    check(e.get("authorization") == ["Bearer " + extra["rs1"]], "forward_authorization = true keeps Authorization")
    many = {f"X-Filler-{i}": "x" for i in range(150)}
    many["x-jWt-Role"] = "admin"   # after lua-resty-core's default limit of 100 headers
    s, h, body = c.get("/api/x", token=extra["rs1"], headers=many)
    e = echoed(body)
    check(s == 200 and "x-jwt-role" not in e and "x-filler-149" in e,
          "a client X-Jwt-* header after 150 others is removed too", str(s))
    s, h, body = c.get("/api/x", token=extra["crlf_sub"])
    e = echoed(body)
    check(s == 200 and "x-injected" not in e and e.get("x-jwt-sub") == ["a%0D%0AX-Injected: 1"],
          "a sub with CR LF cannot add an upstream header (percent-encoded)", str(e))


def nginx_phase(a, w, corpus, extra, jwks_body, rotated_body):
    """Push mode: matrix, hygiene, no-keys, file source, rotation, flood, stale, process model."""
    jwks = JWKS(jwks_body)
    ngx = Nginx(a, w, "jwtk", jwks.port)
    master = ngx.proc.pid
    workers = ngx.workers()
    check(wait_for(lambda: ngx.stats()["keystore"]["keys_loaded"] >= 7, 10), "push: keys fetched from the JWKS server")
    check(ngx.stats()["headers"] == "ffi", "push: request headers read in place (lua-nginx-module FFI)")
    check(threads(master) == 1, "master has exactly one thread after start", str(threads(master)))
    check(len(workers) == 1 and threads(workers[0]) == 1, "the worker has one thread (push mode)")
    st = ngx.stats()
    check(st["pull"] == "off" and "default" in st["verifiers"] and "cached" in st["verifiers"], "/jwtk/stats is JSON")

    run_matrix(ngx, corpus)
    run_hygiene(ngx, extra)

    st = ngx.stats()
    d = st["verifiers"]["default"]
    check(d["allowed"] >= 7 and d["denied"] >= 15 and d["denied_by_status"].get("bad_signature", 0) >= 3 and
          d["denied_by_status"].get("expired", 0) >= 1, "stats count the matrix (allowed, denied by status)", str(d))
    prom = ngx.client.get("/jwtk/stats?format=prometheus")[2]
    check('jwtk_allowed_total{verifier="default"}' in prom and "jwtk_keystore_keys_loaded " in prom,
          "/jwtk/stats?format=prometheus is Prometheus text")

    # File source: the never-loaded issuer gets keys when its file appears.
    never_tok = next(c["token"] for c in corpus if c["status"] == 503)
    with open(f"{w}/never.json.tmp", "w") as f:
        f.write(jwks_body)
    os.rename(f"{w}/never.json.tmp", f"{w}/never.json")
    check(wait_for(lambda: ngx.client.get("/api/x", token=never_tok)[0] == 200, 5),
          "push (file): keys written to the file are used within the interval (503 -> 200)")

    c = Client(ngx.port)
    # Unknown-kid flood: 300 tokens with random kids over ~T seconds; fetches <= ceil(T/cooldown) + 1.
    t0 = time.time()
    for i, tok in enumerate(extra["flood"]):
        s = c.get("/api/x", token=tok)[0]
        if s != 401:
            check(False, "flood token rejected", str(s))
            break
        time.sleep(0.01)
    T = time.time() - t0
    kid_hits = len(jwks.hits(t0, "unknown kid"))
    bound = math.ceil(T / 2) + 1
    check(1 <= kid_hits <= bound, f"unknown-kid flood: {len(extra['flood'])} tokens in {T:.1f}s -> {kid_hits} "
          f"kid-triggered JWKS fetches (server log), bound ceil(T/cooldown)+1 = {bound}")
    push = ngx.stats()["push"][0]
    check(push["unknown_kid_suppressed"] >= len(extra["flood"]) - bound, "stats: unknown_kid_suppressed rises",
          str(push))

    # Rotation: the server now publishes rs2 instead of rs1.
    time.sleep(2.1)   # past the flood's cooldown
    jwks.body = rotated_body
    t0 = time.time()
    s = c.get("/api/x", token=extra["rs2"])[0]
    check(s == 200 and len(jwks.hits(t0, "unknown kid")) <= 1,
          "rotation: a new-kid token is accepted on its first request after <= 1 extra fetch",
          f"{s}, {len(jwks.hits(t0, 'unknown kid'))} fetches")
    check(wait_for(lambda: c.get("/api/x", token=extra["rs1"])[0] == 401, 5),
          "rotation: the removed kid is rejected after the next refresh")

    # Stale keys: the server fails; the keys in hand keep working.
    for mode in ("500", "hang", "huge"):
        before = ngx.stats()["push"][0]["fetch_failures"]
        jwks.mode = mode
        time.sleep(2.5 if mode == "hang" else 3.5)
        t0 = time.time()
        s = c.get("/api/x", token=extra["rs2"])[0]
        dt = time.time() - t0
        after = ngx.stats()["push"][0]["fetch_failures"]
        capped = mode != "huge" or "response above 1048576 bytes" in ngx.log()
        check(s == 200 and dt < 0.5 and after > before and capped,
              f"stale-on-error: JWKS server answering {mode}: valid token 200 in {dt * 1000:.0f} ms, "
              f"fetch failures {before} -> {after}")
    jwks.mode = "ok"
    time.sleep(1.5)

    # Process model: three HUP reloads while a client keeps sending requests.
    sig_master, sig_worker = sigcgt(master), sigcgt(ngx.workers()[0])
    serve_through_reloads(ngx, master, "/api/x", extra["rs2"])
    check(wait_for(lambda: ngx.stats()["keystore"]["keys_loaded"] >= 7, 5) and
          c.get("/api/x", token=extra["rs2"])[0] == 200, "after the reloads the new workers have their keys")
    return ngx, jwks, (sig_master, sig_worker)


def pull_phase(a, w, extra, jwks_body, rotated_body):
    """Pull mode (jwtk_keystore_start), written against /work/notes/pullmode-contract.md."""
    jwks = JWKS(jwks_body)
    ngx = Nginx(a, w, "pull", jwks.port)
    try:
        master = ngx.proc.pid
        check(ngx.stats()["pull"] == "running", "pull: jwtk_keystore_start started the refresher in the worker")
        c = Client(ngx.port)
        check(wait_for(lambda: c.get("/api/x", token=extra["rs1"])[0] == 200, 10), "pull: keys fetched, token 200")
        # This instance reads the headers with ngx.req.get_headers (jwtk.init_worker{headers = "get_headers"}).
        check(ngx.stats()["headers"] == "get_headers", "pull: request headers read with ngx.req.get_headers")
        run_hygiene(ngx, extra, "pull, get_headers path: ")
        s, h, _ = c.get("/api/x")
        check(s == 401 and h.get("www-authenticate") == 'Bearer realm="api"',
              "pull, get_headers path: no token -> 401 with the challenge", f"{s} {h}")
        check(threads(master) == 1, "pull: the master has one thread")
        # One refresher thread; libcurl may add a short-lived resolver thread during a fetch.
        check(wait_for(lambda: threads(ngx.workers()[0]) == 2, 5), "pull: the worker has its thread plus the refresher",
              str(threads(ngx.workers()[0])))
        jwks.max_age = 3600   # clamped to refresh_max 4 s: the flood's fetches are mostly unknown-kid ones
        time.sleep(2.1)
        before = ngx.stats()["keystore"]
        t0 = time.time()
        for tok in extra["flood"]:
            s = c.get("/api/x", token=tok)[0]
            time.sleep(0.01)
        T = time.time() - t0
        after = ngx.stats()["keystore"]
        hits = len(jwks.hits(t0))
        kid_fetches = after["unknown_kid_refreshes"] - before["unknown_kid_refreshes"]
        bound = math.ceil(T / 2) + 1
        check(kid_fetches <= bound and hits <= bound + math.ceil(T / 1) + 1,
              f"pull: unknown-kid flood of {len(extra['flood'])} tokens in {T:.1f}s -> {kid_fetches} unknown-kid "
              f"fetches (bound {bound}), {hits} hits in the JWKS server's log", str(after))
        check(after["unknown_kid_suppressed"] > before["unknown_kid_suppressed"],
              "pull: stats count suppressed unknown-kid refreshes", str(after))
        jwks.max_age = 1
        time.sleep(2.1)
        jwks.body = rotated_body
        check(wait_for(lambda: c.get("/api/x", token=extra["rs2"])[0] == 200, 5), "pull: rotation, new kid accepted")
        check(wait_for(lambda: c.get("/api/x", token=extra["rs1"])[0] == 401, 6), "pull: rotation, old kid rejected")
        for mode in ("500", "hang", "huge"):
            jwks.mode = mode
            time.sleep(3)
            check(c.get("/api/x", token=extra["rs2"])[0] == 200, f"pull: stale keys served while the server answers {mode}")
        jwks.mode = "ok"
        st = ngx.stats()["keystore"]
        check(st["jwks_fetch_failures"] > 0 and st["jwks_fetches"] > 0 and st["stale_served"] > 0,
              "pull: stats count fetches, failures and stale keys served", str(st))
        for n in range(3):
            old = ngx.workers()
            os.kill(master, signal.SIGHUP)
            wait_for(lambda: (lambda ws: ws and not set(ws) & set(old))(ngx.workers()), 10)
        time.sleep(1)
        check(threads(master) == 1 and wait_for(lambda: c.get("/api/x", token=extra["rs2"])[0] == 200, 5),
              "pull: after 3 HUP the master has one thread and the new worker fetched keys")
    finally:
        code = ngx.stop()
        check(code == 0, "pull: QUIT exits cleanly", str(code))
        bad = re.findall(r".*\[(?:alert|crit|emerg)\].*|.*exited on signal.*", ngx.log())
        check(not bad, "pull: no alert/crit/emerg/exited on signal in error.log", "\n".join(bad[:5]))
        jwks.server.shutdown()


# ngx_http_jwtk_module -------------------------------------------------------------------------------------

def module_route(case):
    """The module routes keys per location: the HMAC issuer's key file and the never-answering key URL have
    locations of their own; every other case goes to /api/ (jwtk_key_url of the loopback JWKS server)."""
    iss = case.get("iss")
    if iss == HMAC:
        return "/hmac/x"
    if case["status"] == 503:
        return "/never/x"
    return "/api/x"


def mstatus(ngx):
    """The module's counters (its status location), summed over the workers."""
    return json.loads(ngx.client.get("/jwtk/status")[2])


def fresh(ngx, path, token, n):
    """n requests, each on a new connection (so both workers take some): [(status, worker pid)]."""
    out = []
    for _ in range(n):
        s, h, _ = Client(ngx.port).get(path, token=token, headers={"Connection": "close"})
        out.append((s, h.get("x-worker")))
    return out


def module_phase(a, w, corpus, extra, jwks_body, rotated_body, bare_sigs):
    """The Lua checks against ngx_http_jwtk_module configured the native way (module_conf)."""
    check = lambda ok, name, detail="": globals()["check"](ok, "module: " + name, detail)
    jwks = JWKS(jwks_body)
    jwks.max_age = 1
    ngx = Nginx(a, w, "module", jwks.port)
    master = ngx.proc.pid
    try:
        c = Client(ngx.port)
        check(wait_for(lambda: c.get("/api/x", token=extra["rs1"])[0] == 200, 10),
              "jwtk_key_url: keys fetched by the workers' refresher, token 200")
        workers = ngx.workers()
        # /api/ and /never/ pull: one refresher thread each, in each worker; none in the master.
        check(len(workers) == 2 and wait_for(lambda: all(threads(p) == 3 for p in ngx.workers()), 5),
              "each of the 2 workers has its thread plus one refresher per jwtk_key_url location",
              str([threads(p) for p in ngx.workers()]))
        check(threads(master) == 1, "the master has exactly one thread", str(threads(master)))
        # glibc's own signals 32 (SIGCANCEL) and 33 (SIGSETXID, which glibc installs at the first
        # pthread_create of any process) are below SIGRTMIN and never nginx's: the refresher threads add 33.
        glibc = (1 << 31) | (1 << 32)
        got = (sigcgt(master), sigcgt(workers[0]))
        for who, g, want in (("master", got[0], bare_sigs[0]), ("worker", got[1], bare_sigs[1])):
            print(f"      SigCgt {who}: with the module {g:016x}, without {want:016x}; added "
                  f"{signal_names(g & ~want)}, removed {signal_names(want & ~g)}")
            check(g & ~glibc == want & ~glibc and (who == "worker" or g == want),
                  f"signal dispositions of the {who} match a run without libjwtk" +
                  (" (glibc's SIG32/SIG33 aside: threads)" if who == "worker" else ""))

        run_matrix(ngx, corpus, route=module_route, label="module: ", strip_others=False)

        # Header hygiene beyond the matrix (client X-Jwt-Sub replaced, Authorization not forwarded: above).
        many = {f"X-Filler-{i}": "x" for i in range(150)}
        many["x-jWt-Sub"] = "spoofed"
        s, h, body = c.get("/api/x", token=extra["rs1"], headers=many)
        e = echoed(body)
        check(s == 200 and e.get("x-jwt-sub") == ["user-1"] and "x-filler-149" in e,
              "a client X-Jwt-Sub after 150 other headers is replaced too", str(e.get("x-jwt-sub")))
        s, h, body = c.get("/api/x", token=extra["crlf_sub"])
        e = echoed(body)
        check(s == 200 and "x-injected" not in e and e.get("x-jwt-sub") == ["a%0D%0AX-Injected: 1"],
              "a sub with CR LF cannot add an upstream header (percent-encoded)", str(e))

        # Counters summed over the workers: requests on new connections until both workers served some.
        before = mstatus(ngx)["locations"].get("/sum/", {}).get("allowed", 0)
        served = []
        while len(served) < 400 and len({p for _, p in served}) < 2:
            served += fresh(ngx, "/sum/x", extra["rs1"], 20)
        pids = {p for _, p in served}
        n = sum_n = len(served)
        check(all(s == 200 for s, _ in served) and len(pids) == 2, f"/sum/: {n} requests served by workers {sorted(pids)}")
        check(wait_for(lambda: mstatus(ngx)["locations"]["/sum/"]["allowed"] - before == n, 4),
              f"status: allowed of /sum/ is the sum over both workers ({n})",
              str(mstatus(ngx)["locations"].get("/sum/")))
        st = mstatus(ngx)["locations"]
        api = st.get("/api/", {})
        dbs = api.get("denied_by_status", {})
        check(api.get("allowed", 0) >= 6 and dbs.get("bad_signature", 0) >= 3 and dbs.get("expired", 0) >= 1 and
              dbs.get("missing_token", 0) >= 3, "status counts the matrix (allowed, denied by status)", str(api))
        prom = c.get("/jwtk/status?format=prometheus")[2]
        check(f'jwtk_allowed_total{{location="/sum/"}} {n + before}' in prom and 'jwtk_jwks_fetches_total{keys="/api/"}'
              in prom, "status ?format=prometheus: the same sums as Prometheus text")

        # Unknown-kid flood on one connection (one worker): kid-triggered fetches <= ceil(T/cooldown) + 1.
        jwks.max_age = 3600   # clamped to refresh_max 4 s: the flood's fetches are mostly unknown-kid ones
        time.sleep(2.1)
        k0 = mstatus(ngx)["keys"]["/api/"]
        t0 = time.time()
        statuses = set()
        for tok in extra["flood"]:
            statuses.add(c.get("/api/x", token=tok)[0])
            time.sleep(0.01)
        T = time.time() - t0
        time.sleep(1.2)   # the other worker's counts are published once a second
        k1 = mstatus(ngx)["keys"]["/api/"]
        kid = k1["unknown_kid_refreshes"] - k0["unknown_kid_refreshes"]
        hits = len(jwks.hits(t0, path="/jwks"))
        bound = math.ceil(T / 2) + 1
        scheduled = 2 * (math.ceil((T + 1.2) / 4) + 1)   # refresh_max 4 s, in each of the 2 workers
        check(statuses == {401} and 1 <= kid <= bound and hits <= bound + scheduled,
              f"unknown-kid flood of {len(extra['flood'])} tokens in {T:.1f}s -> {kid} unknown-kid fetches (bound "
              f"{bound}), {hits} hits in the JWKS server's log (bound {bound} + {scheduled} scheduled)",
              f"statuses {statuses}")
        check(k1["unknown_kid_suppressed"] - k0["unknown_kid_suppressed"] >= len(extra["flood"]) - bound,
              "status: unknown_kid_suppressed rises", str(k1))

        # Rotation: the server publishes rs2 instead of rs1.
        jwks.max_age = 1
        time.sleep(2.1)
        k0 = mstatus(ngx)["keys"]["/api/"]
        jwks.body = rotated_body
        accepted = wait_for(lambda: c.get("/api/x", token=extra["rs2"])[0] == 200, 5, step=0.05)
        time.sleep(1.2)
        k1 = mstatus(ngx)["keys"]["/api/"]
        kid = k1["unknown_kid_refreshes"] - k0["unknown_kid_refreshes"]
        check(accepted and kid <= 1, f"rotation: the new kid accepted after {kid} unknown-kid fetch (<= 1)")
        check(wait_for(lambda: all(s == 200 for s, _ in fresh(ngx, "/api/x", extra["rs2"], 8)), 6),
              "rotation: the new kid accepted by every worker")
        check(wait_for(lambda: all(s == 401 for s, _ in fresh(ngx, "/api/x", extra["rs1"], 8)), 6),
              "rotation: the removed kid rejected by every worker after the next refresh")

        # Stale keys while the server fails: the keys in hand keep working in every worker.
        for mode in ("500", "hang", "huge"):
            f0 = mstatus(ngx)["keys"]["/api/"]["jwks_fetch_failed"]
            jwks.mode = mode
            failed_more = wait_for(lambda: mstatus(ngx)["keys"]["/api/"]["jwks_fetch_failed"] > f0, 9, step=0.5)
            t0 = time.time()
            got = fresh(ngx, "/api/x", extra["rs2"], 6)
            dt = (time.time() - t0) / 6
            check(failed_more and all(s == 200 for s, _ in got) and dt < 0.5,
                  f"stale-on-error: JWKS server answering {mode}: valid tokens 200 ({dt * 1000:.0f} ms each), "
                  f"fetch failures counted", f"{got} {mstatus(ngx)['keys']['/api/']}")
        jwks.mode = "ok"
        k = mstatus(ngx)["keys"]["/api/"]
        check(k["stale_served"] > 0 and k["jwks_fetches"] > k["jwks_fetch_failed"] > 0 and k["keys_loaded"] >= 6,
              "status: fetches, failures and stale keys served counted", str(k))
        check(re.search(r'\[warn\].*jwtk: the key URL of "/api/" http://\S+/jwks: \d+ fetch\(es\) failed, the keys held '
                        r'are served', ngx.log()), "error.log: a warning for the failing key URL (stale keys served)")

        # The never-answering key URL: 503 without a challenge, and it is counted.
        n503 = mstatus(ngx)["keys"]["/never/"]
        check(n503["remote_sources_without_keys"] == 1 and n503["jwks_fetch_failed"] > 0,
              "status: the key URL nobody answers has no keys and failing fetches", str(n503))
        check('jwtk: the key URL of "/never/"' in ngx.log() and "no keys for its tokens (503)" in ngx.log(),
              "error.log: a warning for the key URL nobody answers (503)")

        # auth_jwt_key_request with auth_jwt_key_cache 0: a fetch per request, parsed only when it changed.
        s, h, _ = c.get("/krbad/x", token=extra["rs2"])
        check(s == 500 and "www-authenticate" not in h, "key request failing before any keys were loaded: 500",
              f"{s} {h.get('www-authenticate')}")
        seen = set()

        def kr(tok, body_name):
            s, h, _ = c.get("/kr0/x", token=tok)
            seen.add((h.get("x-worker"), body_name))
            return s

        t0 = time.time()
        s1 = [kr(extra["rs2"], "rotated") for _ in range(6)]
        loads = lambda: mstatus(ngx)["keys"]["/kr0/"]["jwks_loads"]
        loaded = wait_for(lambda: loads() == len(seen), 3)
        jwks.body = jwks_body
        s2 = [kr(extra["rs1"], "original") for _ in range(4)]
        hits = len(jwks.hits(t0, path="/kr0"))
        check(s1 == [200] * 6 and s2 == [200] * 4 and hits == 10,
              f"auth_jwt_key_cache 0: every request fetched ({hits} fetches for 10 requests)", f"{s1} {s2}")
        check(loaded and wait_for(lambda: loads() == len(seen), 3),
              f"auth_jwt_key_cache 0: keys parsed only when the answer changed (jwks_loads {loads()}, "
              f"{len(seen)} distinct (worker, answer) pairs)")
        jwks.mode = "500"
        s = c.get("/kr0/x", token=extra["rs1"])[0]
        jwks.mode = "ok"
        check(s == 200, "a failing key request after a success: the keys held serve (200)", str(s))
        # With a cache of 3 s: at most one fetch per period and worker.
        t0 = time.time()
        got = []
        while time.time() - t0 < 4:
            s, h, _ = c.get("/krc/x", token=extra["rs1"])
            got.append((s, h.get("x-worker")))
            time.sleep(0.1)
        T = time.time() - t0
        hits = len(jwks.hits(t0, path="/krc"))
        npid = len({p for _, p in got})
        check(all(s == 200 for s, _ in got) and 1 <= hits <= npid * (math.ceil(T / 3) + 1),
              f"auth_jwt_key_cache 3s: {len(got)} requests in {T:.1f}s -> {hits} fetches (bound "
              f"{npid * (math.ceil(T / 3) + 1)})")

        # Three HUP reloads while a client keeps sending requests to the key-URL location.
        serve_through_reloads(ngx, master, "/api/x", extra["rs1"], workers=2, check=check)
        check(wait_for(lambda: all(threads(p) == 3 for p in ngx.workers()), 5) and
              all(s == 200 for s, _ in fresh(ngx, "/api/x", extra["rs1"], 6)),
              "after the reloads the new workers have their refreshers and their keys")
        check(mstatus(ngx)["locations"]["/sum/"]["allowed"] >= sum_n + before,
              "status: the sums survive the reloads")
    finally:
        code = ngx.stop()
        check(code == 0, "QUIT exits cleanly", str(code))
        log = ngx.log()
        bad = re.findall(r".*\[(?:alert|crit|emerg)\].*|.*exited on signal.*", log)
        check(not bad, "no alert/crit/emerg/exited on signal in error.log", "\n".join(bad[:5]))
        jwks.server.shutdown()
    return len(re.findall(r"exited on signal", log))


# Load ----------------------------------------------------------------------------------------------------

def verdict_conf(a, w, port, echo_port, doc):
    """The verdict corpus's nginx: per configuration a Lua handler location /lua/NAME/ (its JSON config as a
    jwtk_verifier_new config, its key file pushed under its key issuer) and, with --module, a module location
    /module/NAME/ (the same configuration in the module's directives, keys from auth_jwt_key_file). Both
    forward the claims they export to the echo upstream; the module adds $jwtk_status as X-Jwtk-Status.
    Header buffers of 32k so the corpus's too-large token reaches the handlers (nginx's default 8k would
    answer 400 before them)."""
    sys.path.insert(0, os.path.join(HERE, "../verdicts"))
    import verdicts
    sources, verifiers, locations = {}, [], []
    proxy = ("      proxy_set_header Connection \"\"; proxy_pass http://echo; proxy_http_version 1.1; }")
    for name, conf in doc["configurations"].items():
        path = verdicts.keys_path(conf)
        sources[(path, conf["key_issuer"])] = f'{{ file = "{path}", issuer = "{conf["key_issuer"]}", interval = 3600 }}'
        verifiers.append(f'["{name}"] = {lua_str(json.dumps(conf["config"]))}')
        locations += [f"    location /lua/{name}/ {{",
                      f'      access_by_lua_block {{ require("jwtk").access{{ verifier = "{name}", realm = "api" }} }}',
                      proxy]
        directives = module_directives(conf["config"])
        if a.module and directives is not None:
            locations += [f"    location /module/{name}/ {{", f'      auth_jwt "api"; auth_jwt_key_file {path};',
                          "      " + directives,
                          "      add_header X-Jwtk-Status $jwtk_status always;",
                          "      proxy_set_header X-Jwt-Sub $jwt_claim_sub; proxy_set_header X-Jwt-Iss $jwt_claim_iss;",
                          "      proxy_set_header X-Jwt-Roles $jwt_claim_roles;", proxy]
    lines = [
        "worker_processes 1;", "master_process on;", "daemon off;", f"pid {w}/nginx.pid;",
        f"error_log {w}/error.log notice;",
        "load_module /usr/lib/nginx/modules/ndk_http_module.so;",
        "load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;",
    ] + ([f"load_module {a.module};"] if a.module else []) + [
        "events { worker_connections 1024; }",
        "http {", "  access_log off;", "  large_client_header_buffers 4 32k;",
        f"  client_body_temp_path {w}/tmp/body; proxy_temp_path {w}/tmp/proxy; fastcgi_temp_path {w}/tmp/fcgi;",
        f"  uwsgi_temp_path {w}/tmp/uwsgi; scgi_temp_path {w}/tmp/scgi;",
        f'  lua_package_path "{a.examples}/?.lua;;";',
        "  upstream echo { server 127.0.0.1:%d; keepalive 16; }" % echo_port,
        f'  init_by_lua_block {{ require("jwtk").load("{a.lib}") }}',
        f'  init_worker_by_lua_block {{ require("jwtk").init_worker{{ keys = {{ {", ".join(sources.values())} }},'
        f' verifiers = {{ {", ".join(verifiers)} }}, pull = false }} }}',
        "  server {", f"    listen 127.0.0.1:{port};",
        "    location = /load/nocheck { content_by_lua_block { ngx.say(\"ok\") } }",
    ] + locations + ["  }"]
    echo = nginx_conf(a, w, port, echo_port, "bare", 1).splitlines()   # its echo server, and "}"
    lines += echo[echo.index(f"    listen 127.0.0.1:{echo_port};") - 1:]
    return "\n".join(lines) + "\n"


def module_directives(config):
    """A configuration of the one schema as the module's directives (docs/NGINX.md); None when it has a member
    the module spells no other way."""
    out = []
    for k, v in config.items():
        if k == "issuers":
            out.append("jwtk_issuer " + " ".join(v) + ";")
        elif k == "audiences":
            out.append("jwtk_audience " + " ".join(v) + ";")
        elif k == "algorithms":
            out.append("jwtk_algorithms " + " ".join(v) + ";")
        elif k == "required_claims":
            out.append("jwtk_require_claim " + " ".join(v) + ";")
        elif k == "claims":
            for r in v:
                op = next(o for o in ("equals", "one_of", "contains_all", "contains_any") if o in r)
                values = r[op] if isinstance(r[op], list) else [r[op]]
                out.append(f"jwtk_claim_{op} {r['pointer']} " + " ".join(str(x) for x in values) + ";")
        elif k == "provider":
            extra = [f"{m}={config[m]}" for m in ("project_id", "tenant") if m in config]
            out.append(f"jwtk_provider {v} " + " ".join(e.replace("tenant=", "tenant_id=") for e in extra) + ";")
        elif k in ("project_id", "tenant"):
            continue
        else:
            return None
    return " ".join(out)


def verdict_phase(a, w):
    """The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json) through the Lua handler and the
    module: each case's token as a bearer token; the HTTP status, the challenge's error=, the status name where
    the front end tells it (the module's $jwtk_status), and the claims the upstream receives (X-Jwt-Iss,
    X-Jwt-Sub; the module also the roles array joined, as $jwt_claim_roles shows it). The Lua handler pushes
    keys per issuer ("routed", "pushed-per-issuer" answers), the module's key file serves any issuer
    ("unrouted")."""
    sys.path.insert(0, os.path.join(HERE, "../verdicts"))
    import verdicts
    doc = verdicts.load()
    os.makedirs(f"{w}/tmp", exist_ok=True)
    port, echo_port = free_port(), free_port()
    with open(f"{w}/nginx.conf", "w") as f:
        f.write(verdict_conf(a, w, port, echo_port, doc))
    proc = subprocess.Popen(["nginx", "-p", w, "-c", f"{w}/nginx.conf", "-e", f"{w}/error.log"],
                            stdout=subprocess.DEVNULL, stderr=open(f"{w}/stderr.log", "w"))
    c = Client(port)
    try:
        if not check(wait_for(lambda: c.get("/load/nocheck")[0] == 200, 10), "verdicts: nginx starts"):
            print(open(f"{w}/error.log").read()[-2000:])
            return
        for fe in ["lua"] + (["module"] if a.module else []):
            def send(case):
                s, h, body = c.get(f"/{fe}/{case['configuration']}/x", token=case["token"])
                e = echoed(body) if s == 200 else {}
                claims = {"iss": e.get("x-jwt-iss", [None])[0], "sub": e.get("x-jwt-sub", [None])[0]}
                if fe == "module":
                    claims["/roles"] = e.get("x-jwt-roles", [None])[0]
                return s, h.get("www-authenticate"), claims, h.get("x-jwtk-status") if fe == "module" else None
            # The Lua handler pushes each key file under its key issuer; the module's key file serves any
            # issuer its location accepts.
            groups = ("routed", "pushed-per-issuer") if fe == "lua" else ()
            agreed, problems = verdicts.run_gateway(fe, send, groups)
            for p in problems:
                check(False, f"verdicts ({fe}): {p}")
            check(not problems, f"verdicts ({fe}): {agreed} of {agreed + len(problems)} cases as the corpus says")
    finally:
        stop(proc, signal.SIGQUIT, 15)


def haproxy_conf(w, port):
    return f"""global
    nbthread 1
    maxconn 4096
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend jwt
    bind 127.0.0.1:{port}
    http-request set-var(txn.bearer) http_auth_bearer
    acl rs path /rs256
    acl es path /es256
    acl rs_ok var(txn.bearer),jwt_verify("RS256","{w}/rs256.pub.pem") -m int 1
    acl es_ok var(txn.bearer),jwt_verify("ES256","{w}/es256.pub.pem") -m int 1
    http-request return status 200 content-type text/plain string ok if rs rs_ok
    http-request return status 200 content-type text/plain string ok if es es_ok
    http-request deny deny_status 401
"""


def load_phase(a, w, ngx, results):
    global wrong_answers
    hport = free_port()
    with open(f"{w}/haproxy.cfg", "w") as f:
        f.write(haproxy_conf(w, hport))
    chk = subprocess.run(["haproxy", "-c", "-f", f"{w}/haproxy.cfg"], capture_output=True, text=True)
    if not check(chk.returncode == 0, "haproxy 2.6 config with jwt_verify is valid", chk.stderr[-500:]):
        return
    hap = subprocess.Popen(["haproxy", "-db", "-f", f"{w}/haproxy.cfg"], stdout=subprocess.DEVNULL,
                           stderr=open(f"{w}/haproxy.log", "w"))
    try:
        hc = Client(hport)
        wait_for(lambda: hc.get("/rs256")[0] == 401, 10)
        # Verdicts, token by token: jwtk (full checks) and HAProxy (signature only) on the same signatures.
        jc = Client(ngx.port)
        for alg in ("rs256", "es256"):
            n = disagree = wrong = mdisagree = mwrong = 0
            for line in open(f"{w}/diff-{alg}.txt"):
                want, tok = line.split()
                j = jc.get("/load/jwtk", token=tok)[0] == 200
                h = hc.get(f"/{alg}", token=tok)[0] == 200
                n += 1
                disagree += j != h
                wrong += (j != (want == "1")) + (h != (want == "1"))
                if a.module:
                    m = jc.get("/load/module", token=tok)[0] == 200
                    mdisagree += m != h
                    mwrong += m != (want == "1")
            wrong_answers += disagree + mdisagree
            check(disagree == 0 and wrong == 0, f"{alg.upper()}: jwtk and HAProxy jwt_verify agree on all {n} "
                  f"tokens (half with bad signatures)", f"{disagree} disagreements, {wrong} wrong verdicts")
            if a.module:
                check(mdisagree == 0 and mwrong == 0, f"{alg.upper()}: ngx_http_jwtk_module and HAProxy jwt_verify "
                      f"agree on all {n} tokens", f"{mdisagree} disagreements, {mwrong} wrong verdicts")
        worker = ngx.workers()
        cases = [
            ("nocheck", f"http://127.0.0.1:{ngx.port}/load/nocheck", "load-rs256.txt"),
            ("jwtk_rs256", f"http://127.0.0.1:{ngx.port}/load/jwtk", "load-rs256.txt"),
            ("jwtk_es256", f"http://127.0.0.1:{ngx.port}/load/jwtk", "load-es256.txt"),
            ("jwtk_hs256", f"http://127.0.0.1:{ngx.port}/load/jwtk", "load-hs256.txt"),
            ("jwtk_cached", f"http://127.0.0.1:{ngx.port}/load/cached", "load-cached.txt"),
            ("haproxy_rs256", f"http://127.0.0.1:{hport}/rs256", "load-rs256.txt"),
            ("haproxy_es256", f"http://127.0.0.1:{hport}/es256", "load-es256.txt"),
        ]
        if a.module:
            cases += [
                ("module_rs256", f"http://127.0.0.1:{ngx.port}/load/module", "load-rs256.txt"),
                ("module_es256", f"http://127.0.0.1:{ngx.port}/load/module", "load-es256.txt"),
                ("module_hs256", f"http://127.0.0.1:{ngx.port}/load/module_hs", "load-hs256.txt"),
                ("module_cached", f"http://127.0.0.1:{ngx.port}/load/module_cached", "load-cached.txt"),
                ("module_jwe_dir", f"http://127.0.0.1:{ngx.port}/load/module_jwe_dir", "load-jwe-dir.txt"),
                ("module_jwe_nested", f"http://127.0.0.1:{ngx.port}/load/module_jwe_nested",
                 "load-jwe-nested.txt"),
            ]
        # Rounds interleaved over the cases (a b c ... a b c ...), so a neighbour's burst of load on this
        # shared machine hits every case alike; each figure is the median over the rounds, with the range.
        runs = load.rounds([(name, url, f"{w}/{tokens}", hap.pid if name.startswith("haproxy") else worker[0])
                            for name, url, tokens in cases], a.rounds, a.load)
        for name, _, _ in cases:
            r = load.summary(runs[name])
            results[name] = r
            wrong_answers += r["non2xx"]
            print(f"      load {name:14s} {r['rps']:7.0f} req/s ({r['rps_min']:.0f}-{r['rps_max']:.0f})  p99 "
                  f"{r['p99_ms']:6.2f} ms  {r['cpu_us_per_request']:6.1f} us CPU/request  "
                  f"({r['requests']} requests, {r['non2xx']} non-2xx, {r['socket_errors']} socket errors)")
            check(r["non2xx"] == 0 and r["socket_errors"] == 0, f"load {name}: every answer 200, no socket error")
        check(ngx.workers() == worker, "the nginx worker survived the load (same pid)")
    finally:
        hap.terminate()
        hap.wait(10)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", required=True)
    p.add_argument("--header", required=True)
    p.add_argument("--examples", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--load", type=int, default=3, help="seconds per wrk run (0: no load phase)")
    p.add_argument("--rounds", type=int, default=3, help="wrk runs per case, interleaved; medians reported")
    p.add_argument("--results", default=None)
    p.add_argument("--module", default=None, help="ngx_http_jwtk_module.so (scripts/nginx/build-module.sh)")
    p.add_argument("--verdicts-only", action="store_true", help="only the verdict corpus (no minted files needed)")
    a = p.parse_args()
    if a.verdicts_only:
        os.makedirs(f"{a.work}/verdicts", exist_ok=True)
        verdict_phase(a, f"{a.work}/verdicts")
        print(f"nginx-verdicts: checks={TALLY.passed + TALLY.failed} failed={TALLY.failed}")
        sys.exit(1 if TALLY.failed else 0)
    a.dead_port = free_port()   # a key URL nobody answers
    w = a.work
    corpus = json.load(open(f"{w}/matrix.json"))
    extra = json.load(open(f"{w}/extra.json"))
    jwks_body, rotated_body = open(f"{w}/jwks.json").read(), open(f"{w}/jwks_rotated.json").read()

    cdef_matches_header(a)
    conf = open(os.path.join(a.examples, "nginx.conf")).read()
    conf = conf.replace("/usr/local/lib/libjwtk.so.0", a.lib).replace("/etc/nginx/jwtk", a.examples)
    conf = conf.replace("/var/run/nginx-jwtk.pid", f"{w}/example.pid").replace("/etc/nginx/jwks.json", f"{w}/jwks.json")
    with open(f"{w}/example.conf", "w") as f:
        f.write(conf)
    t = subprocess.run(["nginx", "-t", "-p", w, "-c", f"{w}/example.conf", "-e", f"{w}/example-error.log"],
                       capture_output=True, text=True)
    check(t.returncode == 0, "gateways/lua/nginx.conf passes nginx -t", t.stderr[-800:])

    # The verdict corpus through the Lua handler and the module (~1 s).
    os.makedirs(f"{w}/verdicts", exist_ok=True)
    verdict_phase(a, f"{w}/verdicts")

    # A run without libjwtk, for the signal dispositions.
    os.makedirs(f"{w}/bare", exist_ok=True)
    bare = Nginx(a, f"{w}/bare", "bare", 1)
    bare_sigs = (sigcgt(bare.proc.pid), sigcgt(bare.workers()[0]))
    bare.stop()

    # A push source with cooldown = 0 would fetch on every unknown kid: init_worker refuses it, by name.
    os.makedirs(f"{w}/cooldown0/tmp", exist_ok=True)
    refused = Nginx(a, f"{w}/cooldown0", "cooldown0", 1)
    check(wait_for(lambda: "cooldown must be a number of seconds in [1, 86400]" in refused.log(), 5),
          "push: cooldown = 0 refused by init_worker with the bound in the error log")
    refused.stop()

    os.makedirs(f"{w}/push", exist_ok=True)
    for f in ("rs256.pub.pem", "es256.pub.pem", "hmac.json"):
        os.link(f"{w}/{f}", f"{w}/push/{f}")
    ngx, jwks, sigs = nginx_phase(a, f"{w}/push", corpus, extra, jwks_body, rotated_body)
    for who, got, want in (("master", sigs[0], bare_sigs[0]), ("worker", sigs[1], bare_sigs[1])):
        extra_sigs = signal_names(got & ~want)
        missing = signal_names(want & ~got)
        print(f"      SigCgt {who}: with jwtk {got:016x}, without {want:016x}; added {extra_sigs}, removed {missing}")
        check(got == want, f"signal dispositions of the {who} match a run without jwtk")

    results = {}
    jwks.body = jwks_body   # the load corpus is signed with rs1, which the rotation removed
    check(wait_for(lambda: ngx.client.get("/api/x", token=extra["rs1"])[0] == 200, 5), "rs1 restored for the load")
    if a.load > 0:
        for f in ("diff-rs256.txt", "diff-es256.txt", "load-rs256.txt", "load-es256.txt", "load-hs256.txt",
                  "load-cached.txt", "load-jwe-dir.txt", "load-jwe-nested.txt"):
            os.link(f"{w}/{f}", f"{w}/push/{f}")
        load_phase(a, f"{w}/push", ngx, results)
        # The issue's targets, reported and not checked: neither is met reliably. RS256 against HAProxy came
        # out between 0.77x and 1.26x of HAProxy's req/s over five full runs, and 1.00x after the header scan
        # in place (README): at parity within this shared machine's noise (both spend ~25 us of the ~60-70 in
        # the same OpenSSL RSA code), not reliably >= 1.
        if "jwtk_rs256" in results and "haproxy_rs256" in results:
            j, h = results["jwtk_rs256"], results["haproxy_rs256"]
            met = "met" if j["rps"] >= h["rps"] else "NOT met"
            print(f"      target {met} (reported, not a check): jwtk RS256 (one worker, full checks) at "
                  f"{j['rps'] / h['rps']:.2f}x HAProxy jwt_verify RS256 (one thread) req/s ({j['rps']:.0f} vs "
                  f"{h['rps']:.0f}); CPU/request {j['cpu_us_per_request']} vs {h['cpu_us_per_request']} us")
        # The cache against no check at all: not met. The access handler itself is ~1.6-2.1 us a request (its
        # median, timed in the worker: the header scan ~0.2, jwtk_verify with a cache hit ~1, routed by the
        # cached claims; setting the headers ~0.9), but a cached request still costs several us of CPU more
        # than an unchecked one (README, "Use from nginx").
        if "jwtk_cached" in results and "nocheck" in results:
            ratio = results["jwtk_cached"]["rps"] / results["nocheck"]["rps"]
            met = "met" if ratio >= 0.9 else "NOT met"
            print(f"      target {met} (reported, not a check): jwtk with the cache on repeated tokens at "
                  f"{ratio:.0%} of the unchecked location's req/s (target 90 %); CPU/request "
                  f"{results['jwtk_cached']['cpu_us_per_request']} vs {results['nocheck']['cpu_us_per_request']} us")
        # Issue 17's targets for the module (one worker, the same nginx, interleaved rounds): reported.
        if "module_cached" in results:
            r, n = results["module_cached"], results["nocheck"]
            ratio = r["rps"] / n["rps"]
            print(f"      target {'met' if ratio >= 0.9 else 'NOT met'} (reported, not a check): module with jwtk_cache "
                  f"on repeated tokens at {ratio:.2f}x the unchecked location's req/s (target 0.9x); CPU/request "
                  f"{r['cpu_us_per_request']} vs {n['cpu_us_per_request']} us")
            m, h = results["module_rs256"], results["haproxy_rs256"]
            print(f"      target {'met' if m['rps'] >= h['rps'] else 'NOT met'} (reported, not a check): module RS256 "
                  f"(full claims) at {m['rps'] / h['rps']:.2f}x HAProxy jwt_verify RS256 (signature only) req/s "
                  f"({m['rps']:.0f} vs {h['rps']:.0f}); CPU/request {m['cpu_us_per_request']} vs "
                  f"{h['cpu_us_per_request']} us")
            for row in ("rs256", "es256", "hs256", "cached"):
                m, j = results[f"module_{row}"], results[f"jwtk_{row}"]
                print(f"      target {'met' if m['rps'] >= j['rps'] else 'NOT met'} (reported, not a check): module "
                      f"{row} at {m['rps'] / j['rps']:.2f}x the Lua handler's req/s ({m['rps']:.0f} vs {j['rps']:.0f}); "
                      f"CPU/request {m['cpu_us_per_request']} vs {j['cpu_us_per_request']} us")
    code = ngx.stop()
    check(code == 0, "QUIT: nginx exits cleanly", str(code))
    log = ngx.log()
    bad = re.findall(r".*\[(?:alert|crit|emerg)\].*|.*exited on signal.*", log)
    crashes = len(re.findall(r"exited on signal", log))
    check(not bad, "no alert, crit, emerg or 'exited on signal' in error.log", "\n".join(bad[:5]))
    jwks.server.shutdown()

    avail, st = pull_available(a.lib)
    pull_names = ["refresher started", "keys fetched", "threads", "unknown-kid flood", "rotation", "stale on 500/hang",
                  "stats", "reloads", "QUIT", "error.log"]
    if avail:
        os.makedirs(f"{w}/pull", exist_ok=True)
        os.link(f"{w}/hmac.json", f"{w}/pull/hmac.json")
        pull_phase(a, f"{w}/pull", extra, jwks_body, rotated_body)
    else:
        for n in pull_names:
            skip(f"pull: {n}", "jwtk_keystore_start returns JWTK_E_UNAVAILABLE in this build")

    if a.module:
        os.makedirs(f"{w}/module/tmp", exist_ok=True)
        crashes += module_phase(a, f"{w}/module", corpus, extra, jwks_body, rotated_body, bare_sigs)
    else:
        skip("module", "no --module given")

    if a.results:
        with open(a.results, "w") as f:
            json.dump({"load_seconds": a.load, "rounds": a.rounds, "results": results}, f, indent=1)
    rps = lambda k: f"{results[k]['rps']:.0f}" if k in results else "0"
    print(f"checks passed={TALLY.passed} failed={TALLY.failed} skipped={skipped}")
    print(f"nginx-integration: checks={TALLY.passed + TALLY.failed} failed={TALLY.failed} wrong_answers={wrong_answers} "
          f"worker_crashes={crashes} rps_nocheck={rps('nocheck')} rps_jwtk_rs256={rps('jwtk_rs256')} "
          f"rps_haproxy_rs256={rps('haproxy_rs256')} rps_jwtk_cached={rps('jwtk_cached')} "
          f"rps_module_rs256={rps('module_rs256')} rps_module_es256={rps('module_es256')} "
          f"rps_module_hs256={rps('module_hs256')} rps_module_cached={rps('module_cached')} "
          f"rps_module_jwe_dir={rps('module_jwe_dir')} rps_module_jwe_nested={rps('module_jwe_nested')}")
    return 0 if TALLY.failed == 0 and wrong_answers == 0 and crashes == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
