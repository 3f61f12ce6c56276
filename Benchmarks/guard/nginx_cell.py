"""The nginx cells of the cost guard: the module's access handler (ngx_http_jwtk_access_handler) inside the real
/usr/sbin/nginx, under callgrind, serving n requests with one fixture token each.

Why nginx itself and not a C driver imitating the handler: the handler's cost is the bearer parsing, the
per-request context in the request's pool, the worker's jwtk_ctx, jwtk_verify and the verdict, and a driver would
measure its own copy of that. callgrind counts only inside the handler (--collect-atstart=no
--toggle-collect=ngx_http_jwtk_access_handler), so nginx's HTTP parsing, the file it serves and the client's timing
do not enter the figure (nor their allocations: the request's pool, the connection's buffers); one process (master_process off) so the counts are the worker's.
"""

import http.client
import json
import os
import signal
import socket
import subprocess
import time

import callgrind

NGINX = "/usr/sbin/nginx"
# Deep enough for an allocation anywhere below the handler to name it among its callers (the handler, jwtk_verify,
# the Swift pipeline, swift_slowAlloc or OpenSSL's CRYPTO_malloc, malloc). The deepest seen: 26 frames from the
# handler (a first ES256 verification: jwtk_verify, 23 frames of the library and OpenSSL, CRYPTO_malloc); 64 leaves
# room. A steady-state allocation deeper than that would be missed: the count can only err low.
DEPTH = 64
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Fixtures")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(prefix, alg, n, w, secret_jwks):
    """n requests through the handler; the callgrind profile of the handler's calls."""
    os.makedirs(f"{w}/tmp", exist_ok=True)
    os.makedirs(f"{w}/www/p", exist_ok=True)
    os.chmod(w, 0o755)
    with open(f"{w}/www/p/a", "w") as f:
        f.write("ok\n")
    meta = json.load(open(os.path.join(FIXTURES, "meta.json")))
    keys = os.path.join(FIXTURES, "jwks.json")
    if alg == "HS256":
        keys = f"{w}/secret.json"
        with open(keys, "w") as f:
            f.write(secret_jwks)
    port = free_port()
    module = os.path.join(prefix, "lib", "nginx", "modules", "ngx_http_jwtk_module.so")
    conf = "\n".join([
        f"load_module {module};",
        "master_process off; daemon off;", f"pid {w}/nginx.pid;", f"error_log {w}/error.log warn;",
        "events { worker_connections 64; }",
        "http {", "  access_log off; keepalive_requests 100000;",
        f"  client_body_temp_path {w}/tmp/body; proxy_temp_path {w}/tmp/proxy; fastcgi_temp_path {w}/tmp/fcgi;",
        f"  uwsgi_temp_path {w}/tmp/uwsgi; scgi_temp_path {w}/tmp/scgi;",
        f"  server {{ listen 127.0.0.1:{port}; root {w}/www;",
        "    location = /__up { return 204; }",
        f'    location /p/ {{ auth_jwt "api"; auth_jwt_key_file {keys}; jwtk_issuer {meta["iss"]}; '
        f'jwtk_audience {meta["aud"]}; }}',
        "  }", "}", ""])
    with open(f"{w}/nginx.conf", "w") as f:
        f.write(conf)
    out = f"{w}/callgrind.out"
    proc = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no",
         "--toggle-collect=ngx_http_jwtk_access_handler", f"--separate-callers={DEPTH}", NGINX, "-p", w, "-c", f"{w}/nginx.conf",
         "-e", f"{w}/error.log"], stdout=subprocess.DEVNULL, stderr=open(f"{w}/valgrind.log", "w"))
    try:
        deadline = time.time() + 120
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                c.request("GET", "/__up")
                c.getresponse().read()
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"nginx under callgrind did not start: {open(f'{w}/error.log').read()}")
                time.sleep(0.2)
        token = open(os.path.join(FIXTURES, f"{alg.lower()}.jwt")).read().strip()
        for i in range(n):
            c.request("GET", "/p/a", headers={"Authorization": f"Bearer {token}"})
            r = c.getresponse()
            r.read()
            if r.status != 200:
                raise RuntimeError(f"nginx {alg}: request {i} answered {r.status}: {open(f'{w}/error.log').read()}")
        c.close()
    finally:
        proc.send_signal(signal.SIGQUIT)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    prof = callgrind.read(out, within="ngx_http_jwtk_access_handler")
    if prof.calls.get("jwtk_verify", 0) != n:
        raise RuntimeError(f"nginx {alg}: jwtk_verify called {prof.calls.get('jwtk_verify', 0)} times, not {n}")
    return prof
