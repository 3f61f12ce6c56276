"""ngx_http_jwtk_module (issue 17) against the real /usr/sbin/nginx on 127.0.0.1: the NGINX Plus auth_jwt
surface directive by directive and the admin guide's examples (part "surface"), bad input inside a host
("hostile"), a single-process nginx under valgrind ("valgrind") and a soak with key rotation and HUP reloads
("soak"). Run by module.sh, which builds the module into a temp prefix and makes the venv:

    module_test.py --module SO --work DIR [--soak SECONDS] [--parts surface,hostile,valgrind,soak]

Reuses driver.py's helpers (check, wait_for, Client, JWKS) and mint.py's keys and token signing.
Ends with one line: nginx-module: N passed, M failed
"""

import argparse
import base64
import http.client
import http.server
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import driver  # noqa: E402  (driver.passed / driver.failed are the counts)
from driver import JWKS, Client, check, free_port, wait_for  # noqa: E402
from mint import Key, b64, token  # noqa: E402
import plus_configs  # noqa: E402

from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402

NGINX = "/usr/sbin/nginx"
REALM_API = 'Bearer realm="api"'
INVALID_API = 'Bearer realm="api", error="invalid_token"'
NOW = int(time.time())

# --------------------------------------------------------------------------------------------------------
# Keys and tokens


def rsa_key(kid):
    return Key(kid, "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))


def ec_key(kid):
    return Key(kid, "ES256", ec.generate_private_key(ec.SECP256R1()))


class Keys:
    def __init__(self):
        self.rs1, self.es1, self.other = rsa_key("rs1"), ec_key("es1"), rsa_key("rs1")   # other: same kid, unpublished
        self.dup_a, self.dup_b = ec_key("dup"), ec_key("dup")
        self.hs = Key("0001", "HS256", os.urandom(32))   # the admin guide's api_secret.jwk, a 256-bit secret


def jwks(*keys):
    return json.dumps({"keys": [k.jwk() for k in keys]})


def tok(key, header=None, sign_with=None, **claims):
    c = {"iss": "https://issuer.test", "sub": "user-1", "iat": NOW - 10, "exp": NOW + 3600}
    c.update(claims)
    return token(key, {k: v for k, v in c.items() if v is not None}, header=header, sign_with=sign_with)


def raw_token(key, header_bytes, payload_bytes):
    """A token over arbitrary bytes (non-UTF-8, NUL): signed correctly, so only the content is wrong."""
    signing = b64(header_bytes) + "." + b64(payload_bytes)
    return signing + "." + b64(key.sign(signing.encode()))


# --------------------------------------------------------------------------------------------------------
# nginx


def conf(a, w, http_body, workers=1, master=True, main=""):
    return "\n".join([
        f"load_module {a.module};",
        f"worker_processes {workers};", f"master_process {'on' if master else 'off'};", "daemon off;",
        f"pid {w}/nginx.pid;", f"error_log {w}/error.log info;", main,
        "events { worker_connections 512; }",
        "http {", "  access_log off;",
        f"  client_body_temp_path {w}/tmp/body; proxy_temp_path {w}/tmp/proxy; fastcgi_temp_path {w}/tmp/fcgi;",
        f"  uwsgi_temp_path {w}/tmp/uwsgi; scgi_temp_path {w}/tmp/scgi;",
        http_body, "}", ""])


def prep(w):
    os.makedirs(f"{w}/tmp", exist_ok=True)
    os.chmod(w, 0o755)


def nginx_t(w, text):
    """nginx -t on a configuration: (exit status, what it printed)."""
    prep(w)
    with open(f"{w}/nginx.conf", "w") as f:
        f.write(text)
    p = subprocess.run([NGINX, "-t", "-p", w, "-c", f"{w}/nginx.conf", "-e", f"{w}/error.log"],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr + p.stdout


class Ngx:
    def __init__(self, w, text, port, probe="/__up", wrapper=(), timeout=15):
        prep(w)
        self.w, self.port = w, port
        with open(f"{w}/nginx.conf", "w") as f:
            f.write(text)
        self.proc = subprocess.Popen(list(wrapper) + [NGINX, "-p", w, "-c", f"{w}/nginx.conf", "-e",
                                                      f"{w}/error.log"],
                                     stdout=subprocess.DEVNULL, stderr=open(f"{w}/stderr.log", "w"))
        self.client = Client(port)
        if not wait_for(lambda: self.client.get(probe)[0] in (200, 204), timeout, 0.2):
            self.stop()
            raise RuntimeError(f"nginx did not start: {self.log()[-3000:]}")

    def workers(self):
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.proc.pid)], capture_output=True, text=True)
        return sorted(int(p) for p in out.stdout.split())

    def hup(self):
        self.proc.send_signal(signal.SIGHUP)

    def stop(self, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return None
        return self.proc.returncode

    def log(self):
        with open(f"{self.w}/error.log", errors="replace") as f:
            return f.read()

    def mark(self):
        return os.path.getsize(f"{self.w}/error.log")

    def since(self, mark):
        with open(f"{self.w}/error.log", "rb") as f:
            f.seek(mark)
            return f.read().decode("latin-1")

    def bad_lines(self):
        """What must never appear: a worker killed by a signal, alert or crit lines."""
        return [ln for ln in self.log().splitlines()
                if "exited on signal" in ln or "[alert]" in ln or "[crit]" in ln]

    def get(self, path, tok_=None, headers=None, method="GET", body=None, timeout=10):
        h = dict(headers or {})
        if tok_ is not None:
            h["Authorization"] = "Bearer " + tok_
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            data = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, data.decode("latin-1")
        finally:
            c.close()


def raw(port, data, timeout=10):
    """Sends raw bytes; the status of the answer (0: none)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        buf = b""
        try:
            while b"\r\n" not in buf:
                chunk = s.recv(4096)
                if not chunk:
                    break
                buf += chunk
        except socket.timeout:
            return 0
    m = re.match(rb"HTTP/1\.\d (\d{3})", buf)
    return int(m.group(1)) if m else 0


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


PROXY = "proxy_pass http://backend;"


def backend(port):
    return "\n".join([
        f"  upstream backend {{ server 127.0.0.1:{port}; keepalive 8; }}",
        f"  server {{ listen 127.0.0.1:{port}; large_client_header_buffers 4 64k;",
        f"    location / {{ return 200 \"backend $request_method $uri\\n\"; }} }}"])


# --------------------------------------------------------------------------------------------------------
# Part 1a: directives and contexts (nginx -t)

DIRECTIVES = {
    # name: (a valid line, the contexts NGINX Plus allows)
    "auth_jwt": ('auth_jwt "r";', {"http", "server", "location", "limit_except"}),
    "auth_jwt_key_file": ("auth_jwt_key_file {w}/keys1.json;", {"http", "server", "location", "limit_except"}),
    "auth_jwt_key_request": ("auth_jwt_key_request /_jwks;", {"http", "server", "location", "limit_except"}),
    "auth_jwt_key_cache": ("auth_jwt_key_cache 10s;", {"http", "server", "location"}),
    "auth_jwt_leeway": ("auth_jwt_leeway 5s;", {"http", "server", "location"}),
    "auth_jwt_type": ("auth_jwt_type signed;", {"http", "server", "location", "limit_except"}),
    "auth_jwt_require": ("auth_jwt_require $arg_x;", {"http", "server", "location", "limit_except"}),
    "auth_jwt_claim_set": ("auth_jwt_claim_set $cs_v sub;", {"http"}),
    "auth_jwt_header_set": ("auth_jwt_header_set $hs_v kid;", {"http"}),
}
CONTEXTS = ["main", "http", "server", "location", "limit_except", "if"]


def context_conf(a, w, where, line):
    slot = {c: (line if c == where else "") for c in CONTEXTS}
    return conf(a, w, "\n".join([
        f"  auth_jwt_key_file {w}/keys1.json;", "  " + slot["http"],
        f"  server {{ listen 127.0.0.1:{free_port()}; " + slot["server"],
        "    location = /_jwks { internal; return 200 '{\"keys\":[]}'; }",
        "    location /p/ { " + slot["location"] + " limit_except GET { " + slot["limit_except"] + " }",
        "      if ($arg_z) { " + slot["if"] + " } return 204; }",
        "  }"]), main=slot["main"])


def part_contexts(a, w, keys):
    prep(w)
    with open(f"{w}/keys1.json", "w") as f:
        f.write(jwks(keys.rs1))
    for name, (line, allowed) in DIRECTIVES.items():
        line = line.format(w=w)
        for where in CONTEXTS:
            rc, out = nginx_t(w, context_conf(a, w, where, line))
            if where in allowed:
                check(rc == 0, f"contexts: {name} allowed in {where}", out.strip()[-300:])
            else:
                check(rc == 1 and f'"{name}" directive is not allowed here' in out,
                      f"contexts: {name} refused in {where}", f"rc={rc} {out.strip()[-300:]}")


def part_config_refusals(a, w, keys):
    prep(w)
    with open(f"{w}/keys1.json", "w") as f:
        f.write(jwks(keys.rs1))
    with open(f"{w}/dup_a.json", "w") as f:
        f.write(jwks(keys.dup_a))
    with open(f"{w}/dup_b.json", "w") as f:
        f.write(jwks(keys.dup_b))
    with open(f"{w}/dup_a_again.json", "w") as f:
        f.write(jwks(keys.dup_a))

    def loc(body):
        return conf(a, w, f"  server {{ listen 127.0.0.1:{free_port()}; location /p/ {{ {body} return 204; }} }}")

    with open(f"{w}/dir.jwk", "w") as f:
        f.write(json.dumps({"keys": [plus_configs.DirKey("d1").jwk()]}))
    for t in ("encrypted", "nested"):
        rc, out = nginx_t(w, loc(f'auth_jwt "r"; auth_jwt_type {t}; auth_jwt_key_file {w}/keys1.json; '
                                 f'auth_jwt_key_file {w}/dir.jwk;'))
        check(rc == 0, f"config: auth_jwt_type {t} accepted (JWE; plus-configs run its tokens)", out.strip()[-300:])
    # A location lacking a kind of key its tokens need could never accept one: refused, naming what is missing
    # (key files read at configuration; keys read per request answer 500, plus-configs/23).
    for t in ("encrypted", "nested"):
        rc, out = nginx_t(w, loc(f'auth_jwt "r"; auth_jwt_type {t}; auth_jwt_key_file {w}/keys1.json;'))
        check(rc == 1 and f'location "/p/": auth_jwt_type {t} needs decryption keys' in out and "keys1.json" in out,
              f"config: auth_jwt_type {t} whose key files hold no decryption key refused, naming them",
              out.strip()[-300:])
    for t in ("signed", "nested"):
        rc, out = nginx_t(w, loc(f'auth_jwt "r"; auth_jwt_type {t}; auth_jwt_key_file {w}/dir.jwk;'))
        check(rc == 1 and f"auth_jwt_type {t} verifies signed tokens" in out and "decryption keys only" in out,
              f"config: auth_jwt_type {t} whose key files hold decryption keys only refused", out.strip()[-300:])
    rc, out = nginx_t(w, conf(a, w, f"  server {{ listen 127.0.0.1:{free_port()}; auth_jwt_key_file {w}/dir.jwk; "
                                    "location /enc/ { auth_jwt \"r\"; auth_jwt_type encrypted; return 204; } "
                                    "location /p/ { auth_jwt \"r\"; return 204; } }"))
    check(rc == 1 and 'location "/p/": auth_jwt_type signed verifies signed tokens' in out,
          "config: a server's decryption key file inherited by a signed location refused (its encrypted "
          "sibling is not the problem)", out.strip()[-300:])
    rc, out = nginx_t(w, loc('auth_jwt "r";'))
    check(rc == 1 and "without a key source" in out, "config: auth_jwt without a key source refused (fail closed)",
          out.strip()[-300:])
    # A provider preset without its audience would admit that provider's ID tokens of every application.
    for body, words in ((f'auth_jwt "r"; jwtk_provider google; auth_jwt_key_file {w}/keys1.json;', "OAuth client ID"),
                        ('auth_jwt "r"; jwtk_provider apple;', "bundle ID"),
                        ('auth_jwt "r"; jwtk_provider facebook; jwtk_audience "";', "empty audience")):
        rc, out = nginx_t(w, loc(body))
        check(rc == 1 and "[emerg]" in out and words in out,
              f"config: {body.split(';')[1].strip()} without an audience refused, naming it", out.strip()[-300:])
    rc, out = nginx_t(w, loc(f'auth_jwt "r"; auth_jwt_key_file {w}/dup_a.json; auth_jwt_key_file {w}/dup_b.json;'))
    check(rc == 1 and "emerg" in out, "config: two key files whose only kid names different keys refused (no usable key)",
          out.strip()[-300:])
    rc, out = nginx_t(w, loc(f'auth_jwt "r"; auth_jwt_key_file {w}/dup_a.json; '
                             f'auth_jwt_key_file {w}/dup_a_again.json;'))
    check(rc == 0, "config: the same key under the same kid in two key files accepted", out.strip()[-300:])
    rc, out = nginx_t(w, loc(f'auth_jwt "r"; auth_jwt_key_file {w}/keys1.json; auth_jwt_require $arg_a error=500;'))
    check(rc == 1 and "error=401 or error=403" in out, "config: auth_jwt_require error=500 refused", out.strip()[-200:])
    rc, out = nginx_t(w, loc(f'auth_jwt "r"; auth_jwt_key_file {w}/keys1.json; auth_jwt_require literal;'))
    check(rc == 1 and "must start with a variable" in out, "config: auth_jwt_require value not a variable refused",
          out.strip()[-200:])
    rc, out = nginx_t(w, loc(f'auth_jwt "r" cookie=x; auth_jwt_key_file {w}/keys1.json;'))
    check(rc == 1 and "token=$variable" in out, "config: auth_jwt with a bad second parameter refused",
          out.strip()[-200:])
    rc, out = nginx_t(w, loc(f'auth_jwt "r"; auth_jwt_key_file {w}/missing.json;'))
    check(rc == 1 and "cannot open" in out, "config: a missing key file refused", out.strip()[-200:])
    rc, out = nginx_t(w, loc('auth_jwt "r"; auth_jwt_key_file $arg_f; jwtk_issuer https://i.test; '
                             'jwtk_key_url http://127.0.0.1:9/jwks;'))
    check(rc == 1 and "cannot be combined" in out, "config: a key file with variables beside jwtk_key_url refused",
          out.strip()[-200:])
    rc, out = nginx_t(w, loc('auth_jwt "r"; auth_jwt_key_request relative/$arg_f;'))
    check(rc == 1 and "a local URI" in out, "config: auth_jwt_key_request not starting with / refused",
          out.strip()[-200:])
    rc, out = nginx_t(w, loc(f'auth_jwt "r"; auth_jwt_key_file {w}/keys1.json; jwtk_key_sets 0;'))
    check(rc == 1 and "between 1 and 4096" in out, "config: jwtk_key_sets 0 refused", out.strip()[-200:])
    key_file_places(a, w)
    time_and_size_syntax(a, w)


# nginx's time and size syntax wherever NGINX Plus's syntax says "time" (ngx_parse_time: 90, 90s, 1m, 1m30s,
# 1h, 1d) and for the module's one size directive (ngx_parse_size: 16384, 16k); plain integers keep working.
TIME_SYNTAX = [("auth_jwt_leeway", v) for v in ("90", "1m", "1m30s", "0s", "2h")] + \
    [("auth_jwt_key_cache", v) for v in ("3600", "1h", "30m", "1d", "0")] + \
    [("jwtk_max_token_size", v) for v in ("16384", "16k", "1m")]
TIME_REFUSED = [("auth_jwt_leeway", "1x"), ("auth_jwt_leeway", "-5"), ("auth_jwt_key_cache", "soon"),
                ("jwtk_max_token_size", "16q")]


def time_and_size_syntax(a, w):
    def loc(line):
        return conf(a, w, f"  server {{ listen 127.0.0.1:{free_port()}; location /p/ {{ auth_jwt \"r\"; "
                          f"auth_jwt_key_file {w}/keys1.json; {line} return 204; }} }}")
    for name, v in TIME_SYNTAX:
        rc, out = nginx_t(w, loc(f"{name} {v};"))
        check(rc == 0, f"syntax: {name} {v} accepted (nginx time/size)", out.strip()[-300:])
    for name, v in TIME_REFUSED:
        rc, out = nginx_t(w, loc(f"{name} {v};"))
        check(rc == 1 and f'"{name}"' in out and "invalid value" in out, f"syntax: {name} {v} refused",
              out.strip()[-300:])


def key_file_places(a, w):
    """A key file refused when the locations are merged (after nginx left the directive's file) is named,
    at its own directive's file and line, as nginx's own directives report (not where parsing stood: the
    end of "http" in the main file)."""
    os.makedirs(f"{w}/conf.d", exist_ok=True)
    with open(f"{w}/truncated.json", "w") as f:
        f.write('{"keys":[\n')
    port = free_port()

    def included(lines):
        with open(f"{w}/conf.d/jwtk-test.conf", "w") as f:
            f.write("\n".join(lines) + "\n")
        return conf(a, w, f"  include {w}/conf.d/jwtk-test.conf;\n  # the end of http\n")

    rc, out = nginx_t(w, included([
        f"server {{ listen 127.0.0.1:{port};",
        "  location /p/ {",
        '    auth_jwt "r";',
        f"    auth_jwt_key_file {w}/truncated.json;",
        "    return 204;", "  }", "}"]))
    check(rc == 1 and f'auth_jwt_key_file "{w}/truncated.json": key set refused' in out
          and "unexpected end of JSON at line 2, column 1" in out
          and out.count(f" in {w}/conf.d/jwtk-test.conf:4") == 1
          and "nginx.conf:" not in out.split("[emerg]", 1)[-1].split("\n", 1)[0],
          "config: a refused key file is named at its directive's file:line", out.strip()[-400:])
    rc, out = nginx_t(w, included([
        f"server {{ listen 127.0.0.1:{port};",
        "  location /p/ {",
        '    auth_jwt "r";',
        f"    auth_jwt_key_file {w}/keys1.json;",
        f"    auth_jwt_key_file {w}/truncated.json;",
        "    return 204;", "  }", "}"]))
    check(rc == 1 and f'auth_jwt_key_file "{w}/truncated.json"' in out and "keys1.json" not in out
          and f" in {w}/conf.d/jwtk-test.conf:5" in out,
          "config: of two key files, the refused one is named at its own line", out.strip()[-400:])
    rc, out = nginx_t(w, included([
        f"server {{ listen 127.0.0.1:{port};",
        "  location /p/ {",
        '    auth_jwt "r";',
        f"    auth_jwt_key_file {w}/missing.json;",
        "    return 204;", "  }", "}"]))
    check(rc == 1 and "cannot open" in out and f" in {w}/conf.d/jwtk-test.conf:4" in out,
          "config: a missing key file is reported at its directive's file:line", out.strip()[-400:])


# --------------------------------------------------------------------------------------------------------
# Part 1b: behaviour


def surface_conf(a, w, p1, p2, p3, bport, jwks_ok, jwks_500):
    return conf(a, w, "\n".join([
        backend(bport),
        f"  auth_jwt_key_file {w}/keys1.json;",
        '  map $jwt_claim_iss $valid_iss { "https://idp.example.com/sts" 1; }',
        '  map $jwt_claim_scope $is_admin { "access_as_admin" 1; }',
        "  auth_jwt_claim_set $email info e-mail;",
        "  auth_jwt_claim_set $ext_roles https://example.com/roles;",
        "  auth_jwt_claim_set $dotted a.b;",
        "  auth_jwt_claim_set $deep obj inner deeper;",
        "  auth_jwt_claim_set $obj_list obj list;",
        "  auth_jwt_header_set $hdr_nested x5 y;",
        "  auth_jwt_header_set $hdr_kid kid;",
        "  log_format jwt 'uri=$uri status=$status sub=$jwt_claim_sub roles=$ext_roles email=$email "
        "kid=$jwt_header_kid hk=$hdr_kid';",
        f"  server {{ listen 127.0.0.1:{p1};",
        "    location = /__up { return 204; }",
        f'    location /p/ {{ auth_jwt "api"; auth_jwt_key_file {w}/keys1.json; auth_jwt_key_file {w}/keys2.json; '
        + PROXY + " }",
        f'    location /mix/ {{ auth_jwt "api"; auth_jwt_key_file {w}/mix_a.json; auth_jwt_key_file {w}/mix_b.json; '
        + PROXY + " }",
        '    location /leeway/ { auth_jwt "api"; auth_jwt_leeway 60s; ' + PROXY + " }",
        '    location /leeway-m/ { auth_jwt "api"; auth_jwt_leeway 1m; ' + PROXY + " }",
        '    location /leeway-n/ { auth_jwt "api"; auth_jwt_leeway 90; ' + PROXY + " }",
        '    location /cookie/ { auth_jwt "api" token=$cookie_x; ' + PROXY + " }",
        '    location /arg/ { auth_jwt "api" token=$arg_x; ' + PROXY + " }",
        '    location /req1/ { auth_jwt "api"; auth_jwt_require $jwt_claim_admin; ' + PROXY + " }",
        '    location /reqn/ { auth_jwt "api"; auth_jwt_require $jwt_claim_a $jwt_claim_b; ' + PROXY + " }",
        '    location /req403/ { auth_jwt "api"; auth_jwt_require $jwt_claim_admin error=403; ' + PROXY + " }",
        '    location /authz/ { auth_jwt "api"; auth_jwt_require $valid_iss; auth_jwt_require $is_admin error=403; '
        + PROXY + " }",
        '    location /vars/ { auth_jwt "api";',
        f"      access_log {w}/access.log jwt;",
        "      add_header X-Sub $jwt_claim_sub always; add_header X-Num $jwt_claim_num always;",
        "      add_header X-Flt $jwt_claim_flt always; add_header X-Flag $jwt_claim_flag always;",
        "      add_header X-Roles $jwt_claim_roles always; add_header X-Obj $jwt_claim_obj always;",
        "      add_header X-Kid $jwt_header_kid always; add_header X-Alg $jwt_header_alg always;",
        "      add_header X-Email $email always; add_header X-Ext $ext_roles always;",
        "      add_header X-Dotted $dotted always; add_header X-Deep $deep always; add_header X-List $obj_list always;",
        "      add_header X-Hn $hdr_nested always; add_header X-Missing $jwt_claim_nope always;",
        "      " + PROXY + " }",
        '    location /sat-allow/ { satisfy any; allow 127.0.0.1; deny all; auth_jwt "api"; ' + PROXY + " }",
        '    location /sat-deny/ { satisfy any; allow 10.9.9.9; deny all; auth_jwt "api"; ' + PROXY + " }",
        f'    location /sat-basic/ {{ satisfy any; auth_basic "basic"; auth_basic_user_file {w}/htpasswd; '
        'auth_jwt "api" token=$http_x_jwt; ' + PROXY + " }",
        '    location /sat-basic2/ { satisfy any; auth_jwt "api" token=$http_x_jwt; auth_basic "basic"; '
        f"auth_basic_user_file {w}/htpasswd; " + PROXY + " }",
        '    location /areq/ { auth_request /_auth; auth_jwt "api"; ' + PROXY + " }",
        '    location /areq-any/ { satisfy any; auth_request /_auth; auth_jwt "api"; ' + PROXY + " }",
        "    location = /_auth { internal; if ($http_x_deny) { return 403; } return 204; }",
        '    location /lmt/ { limit_except GET { auth_jwt "write"; } ' + PROXY + " }",
        '    location /kr/ { auth_jwt "api"; auth_jwt_key_request /_jwks_ok; auth_jwt_key_cache 1h; '
        + PROXY + " }",
        '    location /kr500/ { auth_jwt "api"; auth_jwt_key_request /_jwks_500; ' + PROXY + " }",
        f"    location = /_jwks_ok {{ internal; proxy_pass http://127.0.0.1:{jwks_ok}/jwks; }}",
        f"    location = /_jwks_500 {{ internal; proxy_pass http://127.0.0.1:{jwks_500}/jwks; }}",
        "    location = /status { jwtk_status; }",
        "  }",
        f'  server {{ listen 127.0.0.1:{p2}; auth_jwt "srv";',
        "    location /inherit/ { " + PROXY + " }",
        "    location /off/ { auth_jwt off; " + PROXY + " }",
        '    location /lmt/ { limit_except GET { auth_jwt "write"; } ' + PROXY + " }",
        '    location /lmt-off/ { limit_except GET { auth_jwt off; } ' + PROXY + " }",
        "  }",
        # Inheritance as NGINX Plus documents it: auth_jwt at the server level, key files only in the
        # locations (the server level itself has none: a request matching no location is refused, 500);
        # key files at two levels (the inner replaces the outer); auth_jwt_key_cache set below the level
        # of the key request it governs; directives inside limit_except.
        f'  server {{ listen 127.0.0.1:{p3}; auth_jwt "s3";',
        "    location = /__up { auth_jwt off; return 204; }",
        f"    location /k1/ {{ auth_jwt_key_file {w}/keys1.json; " + PROXY + " }",
        f"    location /k2/ {{ auth_jwt_key_file {w}/keys2.json; " + PROXY,
        f"      location /k2/inner/ {{ auth_jwt_key_file {w}/keys1.json; " + PROXY + " } }",
        "    location /kc/ { auth_jwt_key_request /_jwks_ok3; auth_jwt_key_cache 1h; " + PROXY + " }",
        f"    location = /_jwks_ok3 {{ internal; proxy_pass http://127.0.0.1:{jwks_ok}/jwks3; }}",
        f"    location /lx/ {{ auth_jwt_key_file {w}/keys1.json; limit_except GET {{ auth_jwt \"w3\"; "
        f"auth_jwt_key_file {w}/keys2.json; auth_jwt_require $jwt_claim_admin error=403; auth_jwt_type signed; }} "
        + PROXY + " }",
        "  }"]))


def part_behaviour(a, w, keys):
    os.makedirs(w, exist_ok=True)
    for name, body in (("keys1.json", jwks(keys.rs1)), ("keys2.json", jwks(keys.es1)),
                       ("mix_a.json", jwks(keys.rs1, keys.dup_a)), ("mix_b.json", jwks(keys.es1, keys.dup_b)),
                       ("htpasswd", "alice:{PLAIN}secret\n")):
        with open(f"{w}/{name}", "w") as f:
            f.write(body)
    ok_srv, srv500 = JWKS(jwks(keys.rs1)), JWKS(jwks(keys.rs1))
    srv500.mode = "500"
    p1, p2, p3, bport = free_port(), free_port(), free_port(), free_port()
    ngx = Ngx(w, surface_conf(a, w, p1, p2, p3, bport, ok_srv.port, srv500.port), p1)
    n2 = Ngx.__new__(Ngx)
    n2.w, n2.port = w, p2
    n3 = Ngx.__new__(Ngx)
    n3.w, n3.port = w, p3
    try:
        behaviour_checks(a, w, keys, ngx, n2, ok_srv, srv500)
        inheritance_checks(keys, ngx, n3, ok_srv)
    finally:
        check(ngx.stop() == 0, "surface: nginx exits 0 on QUIT")
        check(not ngx.bad_lines(), "surface: no worker crash, no alert/crit line", "\n".join(ngx.bad_lines())[:800])
        ok_srv.server.shutdown()
        srv500.server.shutdown()


def unkeyed_server(a, w, keys):
    """auth_jwt at the server level with key files only in its locations (NGINX Plus accepts it): the
    server level has no verifier, and a request no location takes is refused (500, fail closed), also in a
    server with no location at all."""
    os.makedirs(f"{w}/unkeyed", exist_ok=True)
    w = f"{w}/unkeyed"
    prep(w)
    with open(f"{w}/keys1.json", "w") as f:
        f.write(jwks(keys.rs1))
    p, q, bport = free_port(), free_port(), free_port()
    text = conf(a, w, "\n".join([
        backend(bport),
        f'  server {{ listen 127.0.0.1:{p}; auth_jwt "s";',
        "    location = /__up { auth_jwt off; return 204; }",
        f"    location /a/ {{ auth_jwt_key_file {w}/keys1.json; " + PROXY + " } }",
        f'  server {{ listen 127.0.0.1:{q}; auth_jwt "bare"; }}']))
    rc, out = nginx_t(w, text)
    check(rc == 0, "inherit: server auth_jwt with key files only in locations: nginx -t accepts", out.strip()[-300:])
    ngx = Ngx(w, text, p)
    n2 = Ngx.__new__(Ngx)
    n2.w, n2.port = w, q
    try:
        expect(ngx, "inherit: server auth_jwt, key file in the location -> 200", "/a/x", 200, tok(keys.rs1))
        m = ngx.mark()
        expect(ngx, "inherit: no key source at the level that answers (no location took it) -> 500", "/b/x", 500,
               tok(keys.rs1))
        check("without a key source" in ngx.since(m), "inherit: that 500 has an error log line naming the cause",
              ngx.since(m)[-300:])
        expect(n2, "inherit: a server with auth_jwt, no key source and no location -> 500", "/x", 500, tok(keys.rs1))
    finally:
        check(ngx.stop() == 0 and not ngx.bad_lines(), "inherit: unkeyed server: clean exit")


def part_variable_keys(a, w, keys):
    """auth_jwt_key_file and auth_jwt_key_request with variables (NGINX Plus: "The file name can contain
    variables", "The URI can contain variables"): resolved per request, a key set per resolved name cached per
    location (auth_jwt_key_cache honoured; a file's change of mtime or size reloads it), a document parsed
    once per distinct content, a missing file or failing subrequest 500, the cache bounded (jwtk_key_sets,
    least recently used out, counted)."""
    os.makedirs(w, exist_ok=True)
    prep(w)
    ka, kb, kd, ka2 = ec_key("ta"), ec_key("tb"), ec_key("td"), rsa_key("ta2")
    for name, k in (("tenant_a", ka), ("tenant_b", kb), ("tenant_d", kd)):
        with open(f"{w}/{name}.json", "w") as f:
            f.write(jwks(k))
    with open(f"{w}/keys1.json", "w") as f:
        f.write(jwks(keys.rs1))
    sa, sb = JWKS(jwks(ka)), JWKS(jwks(kb))
    port, bport = free_port(), free_port()
    text = conf(a, w, "\n".join([
        backend(bport),
        f"  map $http_x_tenant $tenant_file {{ a {w}/tenant_a.json; b {w}/tenant_b.json; "
        f"c {w}/tenant_c.json; default \"\"; }}",
        f"  server {{ listen 127.0.0.1:{port};",
        "    location = /__up { return 204; }",
        f'    location /vf/ {{ auth_jwt "api"; auth_jwt_key_file $tenant_file; error_log {w}/vf.log debug; '
        + PROXY + " }",
        f'    location /vfc/ {{ auth_jwt "api"; auth_jwt_key_file $tenant_file; auth_jwt_key_cache 1h; ' + PROXY + " }",
        f'    location /vfcap/ {{ auth_jwt "api"; auth_jwt_key_file {w}/tenant_$arg_t.json; jwtk_key_sets 2; '
        + PROXY + " }",
        f'    location /vfd/ {{ auth_jwt "api"; auth_jwt_key_file {w}/$arg_t.json; ' + PROXY + " }",
        f'    location /vmix/ {{ auth_jwt "api"; auth_jwt_key_file {w}/keys1.json; auth_jwt_key_file $tenant_file; '
        + PROXY + " }",
        '    location /vr/ { auth_jwt "api"; auth_jwt_key_request /_jwks/$arg_t; ' + PROXY + " }",
        '    location /vrc/ { auth_jwt "api"; auth_jwt_key_request /_jwks/$arg_t?c=1; auth_jwt_key_cache 1h; '
        + PROXY + " }",
        f"    location = /_jwks/a {{ internal; proxy_pass http://127.0.0.1:{sa.port}/jwks-a$is_args$args; }}",
        f"    location = /_jwks/b {{ internal; proxy_pass http://127.0.0.1:{sb.port}/jwks-b$is_args$args; }}",
        "    location = /status { jwtk_status; }",
        "  }"]))
    rc, out = nginx_t(w, text)
    check(rc == 0, "variable keys: nginx -t accepts auth_jwt_key_file $file and auth_jwt_key_request /uri/$var",
          out.strip()[-300:])
    ngx = Ngx(w, text, port)
    try:
        ta, tb = {"X-Tenant": "a"}, {"X-Tenant": "b"}
        expect(ngx, "variable key file: tenant a's key for tenant a -> 200", "/vf/x", 200, tok(ka), headers=ta)
        expect(ngx, "variable key file: tenant b's file does not hold a's key -> 401", "/vf/x", 401, tok(ka),
               headers=tb)
        expect(ngx, "variable key file: tenant b's key for tenant b -> 200", "/vf/x", 200, tok(kb), headers=tb)
        for i in range(5):
            ngx.get("/vf/x", tok(ka, sub=f"u{i}"), headers=ta)
        vf = open(f"{w}/vf.log").read()
        reads_a = vf.count(f'jwtk: key file "{w}/tenant_a.json" read')
        check(reads_a == 1, "variable key file: read and parsed once for 6 requests (unchanged mtime and size)",
              f"{reads_a} reads")
        m = ngx.mark()
        expect(ngx, "variable key file: a file that does not exist -> 500", "/vf/x", 500, tok(ka),
               headers={"X-Tenant": "c"})
        vf = open(f"{w}/vf.log").read()   # the location's own error_log
        check("tenant_c.json" in vf and "cannot open" in vf,
              "variable key file: the 500 has a log line naming the file", vf[-300:])
        expect(ngx, "variable key file: a name resolving to nothing -> 500", "/vf/x", 500, tok(ka))
        expect(ngx, "variable key file: a whole path segment from a variable -> 200", "/vfd/x?t=tenant_d", 200,
               tok(kd))
        expect(ngx, "variable key file: a resolved name with a \"..\" segment -> 500 (the same file)",
               f"/vfd/x?t=../{os.path.basename(w)}/tenant_d", 500, tok(kd))
        expect(ngx, "variable key request: a resolved URI with a \"..\" segment -> 500", "/vr/x?t=../_jwks/a", 500,
               tok(ka))
        expect(ngx, "variable key file: no token is still 401", "/vf/x", 401, headers=ta)
        # Cached for 1 h: a change is not seen there; without a key cache it is.
        expect(ngx, "variable key file + key cache: tenant a -> 200", "/vfc/x", 200, tok(ka), headers=ta)
        with open(f"{w}/tenant_a.json.tmp", "w") as f:
            f.write(jwks(ka2))
        os.replace(f"{w}/tenant_a.json.tmp", f"{w}/tenant_a.json")
        expect(ngx, "variable key file: a changed file is reloaded (new key -> 200)", "/vf/x", 200, tok(ka2),
               headers=ta)
        expect(ngx, "variable key file: a changed file is reloaded (old key -> 401)", "/vf/x", 401, tok(ka),
               headers=ta)
        expect(ngx, "variable key file + auth_jwt_key_cache 1h: the cached set serves (old key -> 200)", "/vfc/x",
               200, tok(ka), headers=ta)
        expect(ngx, "variable key file + auth_jwt_key_cache 1h: the new key not yet -> 401", "/vfc/x", 401,
               tok(ka2), headers=ta)
        with open(f"{w}/tenant_a.json", "w") as f:
            f.write(jwks(ka))
        # Fixed and variable key files together.
        expect(ngx, "fixed + variable key files: the fixed file's key -> 200", "/vmix/x", 200, tok(keys.rs1),
               headers=tb)
        expect(ngx, "fixed + variable key files: the variable file's key -> 200", "/vmix/x", 200, tok(kb),
               headers=tb)
        expect(ngx, "fixed + variable key files: another tenant's key -> 401", "/vmix/x", 401, tok(kd), headers=tb)
        # Key subrequests with variables.
        t0 = time.time()
        expect(ngx, "variable key request: tenant a -> 200", "/vr/x?t=a", 200, tok(ka))
        expect(ngx, "variable key request: tenant b -> 200", "/vr/x?t=b", 200, tok(kb))
        expect(ngx, "variable key request: tenant b again -> 200", "/vr/x?t=b", 200, tok(kb, sub="again"))
        check(len(sa.hits(t0, path="/jwks-a")) == 1 and len(sb.hits(t0, path="/jwks-b")) == 2,
              "variable key request: without a key cache every request asks its own URI (Plus's default)",
              f"a {len(sa.hits(t0))} b {len(sb.hits(t0))}")
        expect(ngx, "variable key request: a's key at b's URI -> 401", "/vr/x?t=b", 401, tok(ka))
        m = ngx.mark()
        expect(ngx, "variable key request: a URI with no location (404) -> 500", "/vr/x?t=zz", 500, tok(ka))
        check("auth_jwt_key_request" in ngx.since(m), "variable key request: the 500 has a log line",
              ngx.since(m)[-300:])
        t0 = time.time()
        for i in range(4):
            expect(ngx, f"variable key request + key cache 1h: tenant a ({i})", "/vrc/x?t=a", 200, tok(ka))
            expect(ngx, f"variable key request + key cache 1h: tenant b ({i})", "/vrc/x?t=b", 200, tok(kb))
        check(len(sa.hits(t0, path="/jwks-a?c=1")) == 1 and len(sb.hits(t0, path="/jwks-b?c=1")) == 1,
              "variable key request + auth_jwt_key_cache 1h: each URI asked once (arguments passed)",
              f"a {[h[1] for h in sa.hits(t0)]} b {[h[1] for h in sb.hits(t0)]}")
        # The bound: jwtk_key_sets 2, three tenants in turn.
        for t, k in (("a", ka), ("b", kb), ("d", kd), ("a", ka), ("d", kd)):
            expect(ngx, f"key set cache of 2: tenant {t} -> 200", f"/vfcap/x?t={t}", 200, tok(k))
        st, _, body = ngx.get("/status")
        try:
            ev = json.loads(body)["locations"]["/vfcap/"]["key_set_evictions"]
        except (ValueError, KeyError, TypeError):
            ev = None
        check(ev == 2, "key set cache of 2: the least recently used set left twice, counted in jwtk_status", body[:600])
        st, _, body = ngx.get("/status?format=prometheus")
        check('jwtk_key_set_evictions_total{location="/vfcap/"} 2' in body,
              "key set cache: evictions in the Prometheus text", body[:300])
    finally:
        check(ngx.stop() == 0 and not ngx.bad_lines(), "variable keys: clean exit, no crash",
              "\n".join(ngx.bad_lines())[:600])
        sa.server.shutdown()
        sb.server.shutdown()


def inheritance_checks(keys, ngx, n3, ok_srv):
    rs1, es1 = keys.rs1, keys.es1
    expect(n3, "inherit: server auth_jwt, key file in the location -> 200", "/k1/a", 200, tok(rs1))
    expect(n3, "inherit: server auth_jwt, the location's key file decides -> 401", "/k1/a", 401, tok(es1))
    expect(n3, "inherit: server auth_jwt, the http level's key file at the server level", "/nowhere", 401,
           tok(es1))
    expect(n3, "key files at two levels: the outer level's key -> 200", "/k2/a", 200, tok(es1))
    expect(n3, "key files at two levels: the inner replaces the outer (outer's key) -> 401", "/k2/inner/a", 401,
           tok(es1))
    expect(n3, "key files at two levels: the inner level's own key -> 200", "/k2/inner/a", 200, tok(rs1))
    t0 = time.time()
    for i in range(4):
        expect(n3, f"auth_jwt_key_cache below the key request's level ({i})", "/kc/a", 200, tok(rs1))
    check(len(ok_srv.hits(t0, path="/jwks3")) == 1, "inherit: auth_jwt_key_cache 1h in the location applies to "
          "the key request it names -> fetched once", str(len(ok_srv.hits(t0, path="/jwks3"))))
    expect(n3, "limit_except: GET uses the location (key file 1, realm s3)", "/lx/a", 401, tok(es1),
           'Bearer realm="s3", error="invalid_token"')
    expect(n3, "limit_except: GET with the location's key -> 200", "/lx/a", 200, tok(rs1))
    expect(n3, "limit_except: POST uses limit_except's key file -> 200 with its require met", "/lx/a", 200,
           tok(es1, admin=1), method="POST", body="x")
    expect(n3, "limit_except: POST, limit_except's require -> 403", "/lx/a", 403, tok(es1), method="POST", body="x")
    expect(n3, "limit_except: POST with the location's key -> 401 realm w3", "/lx/a", 401, tok(rs1, admin=1),
           'Bearer realm="w3", error="invalid_token"', method="POST", body="x")


def expect(ngx, name, path, status, tok_=None, www=None, **kw):
    st, h, body = ngx.get(path, tok_, **kw)
    ok = st == status and (www is None or h.get("www-authenticate") == www)
    if tok_ and tok_ in body:
        ok = False
    check(ok, name, f"got {st} www={h.get('www-authenticate')!r}, want {status} {www!r}")
    return st, h, body


def behaviour_checks(a, w, keys, ngx, n2, ok_srv, srv500):
    rs1, es1 = keys.rs1, keys.es1
    good = tok(rs1)
    # Verdicts and challenges (401 on every failure, RFC 6750 challenge, nothing of the token echoed).
    expect(ngx, "verdict: RS256 key from the first key file", "/p/a", 200, good)
    expect(ngx, "verdict: ES256 key from the second key file", "/p/a", 200, tok(es1))
    # Two key files, one kid naming different keys in each: that kid is refused in both, the others load.
    check(re.search(r"\[warn\].*auth_jwt_key_file \"[^\"]*mix_a.json\" \(and this level's other key files\): "
                    r"keys skipped or loaded with a warning: .*ambiguous_kid: key \"dup\".* in [^ ]*nginx.conf:\d+", ngx.log()),
          "key files: a kid naming different keys in two files -> a warn line at configuration")
    expect(ngx, "key files: that kid refused (signed by the first file's key) -> 401", "/mix/a", 401, tok(keys.dup_a))
    expect(ngx, "key files: that kid refused (signed by the second file's key) -> 401", "/mix/a", 401, tok(keys.dup_b))
    expect(ngx, "key files: the other keys of both files accepted (first)", "/mix/a", 200, tok(rs1))
    expect(ngx, "key files: the other keys of both files accepted (second)", "/mix/a", 200, tok(es1))
    expect(ngx, "verdict: missing token -> 401 realm only", "/p/a", 401, None, REALM_API)
    expect(ngx, "verdict: Authorization not Bearer -> 401", "/p/a", 401, None, REALM_API,
           headers={"Authorization": "Basic YTpi"})
    expect(ngx, "verdict: bad signature -> 401 invalid_token", "/p/a", 401, tok(rs1, sign_with=keys.other),
           INVALID_API)
    expect(ngx, "verdict: expired -> 401", "/p/a", 401, tok(rs1, exp=NOW - 100), INVALID_API)
    expect(ngx, "verdict: nbf in the future -> 401", "/p/a", 401, tok(rs1, nbf=NOW + 100), INVALID_API)
    expect(ngx, "verdict: no exp passes (as in Plus)", "/p/a", 200, tok(rs1, exp=None))
    expect(ngx, "verdict: no exp, nbf, iat passes", "/p/a", 200, tok(rs1, exp=None, iat=None))
    expect(ngx, "verdict: nbf in the past passes", "/p/a", 200, tok(rs1, nbf=NOW - 100))
    expect(ngx, "verdict: unknown kid -> 401", "/p/a", 401, tok(rs1, header={"alg": "RS256", "kid": "nope"}),
           INVALID_API)
    expect(ngx, "verdict: alg none -> 401", "/p/a", 401,
           b64(b'{"alg":"none"}') + "." + b64(b'{"sub":"x"}') + ".", INVALID_API)
    expect(ngx, "verdict: garbage token -> 401", "/p/a", 401, "a.b.c", INVALID_API)
    expect(ngx, "verdict: location without auth_jwt is open", "/__up", 204)
    expect(ngx, "leeway: exp 30 s ago -> 401 without leeway", "/p/a", 401, tok(rs1, exp=NOW - 30))
    expect(ngx, "leeway: exp 30 s ago -> 200 with auth_jwt_leeway 60s", "/leeway/a", 200, tok(rs1, exp=NOW - 30))
    expect(ngx, "leeway: exp 120 s ago -> 401 with leeway 60s", "/leeway/a", 401, tok(rs1, exp=NOW - 120))
    expect(ngx, "leeway: nbf 30 s ahead -> 200 with leeway 60s", "/leeway/a", 200, tok(rs1, nbf=NOW + 30))
    expect(ngx, "leeway: exp 30 s ago -> 200 with auth_jwt_leeway 1m", "/leeway-m/a", 200, tok(rs1, exp=NOW - 30))
    expect(ngx, "leeway: exp 120 s ago -> 401 with auth_jwt_leeway 1m", "/leeway-m/a", 401, tok(rs1, exp=NOW - 120))
    expect(ngx, "leeway: exp 75 s ago -> 200 with auth_jwt_leeway 90 (plain seconds)", "/leeway-n/a", 200,
           tok(rs1, exp=NOW - 75))
    expect(ngx, "leeway: exp 120 s ago -> 401 with auth_jwt_leeway 90", "/leeway-n/a", 401, tok(rs1, exp=NOW - 120))

    # token=
    expect(ngx, "token=$cookie_x: valid cookie -> 200", "/cookie/a", 200, headers={"Cookie": f"y=1; x={good}"})
    expect(ngx, "token=$cookie_x: no cookie -> 401", "/cookie/a", 401, www=REALM_API)
    expect(ngx, "token=$cookie_x: Authorization ignored -> 401", "/cookie/a", 401, good)
    expect(ngx, "token=$cookie_x: bad cookie -> 401", "/cookie/a", 401, headers={"Cookie": "x=a.b.c"}, www=INVALID_API)
    expect(ngx, "token=$arg_x: valid -> 200", f"/arg/a?x={good}", 200)
    expect(ngx, "token=$arg_x: expired -> 401", f"/arg/a?x={tok(rs1, exp=NOW - 100)}", 401, www=INVALID_API)
    expect(ngx, "token=$arg_x: absent -> 401", "/arg/a?y=1", 401, www=REALM_API)

    # auth_jwt_require
    expect(ngx, "require: one value true -> 200", "/req1/a", 200, tok(rs1, admin=True))
    expect(ngx, "require: value absent -> 401", "/req1/a", 401, tok(rs1), INVALID_API)
    expect(ngx, "require: value 0 -> 401", "/req1/a", 401, tok(rs1, admin=0), INVALID_API)
    expect(ngx, "require: value \"\" -> 401", "/req1/a", 401, tok(rs1, admin=""), INVALID_API)
    expect(ngx, "require: value false passes (non-empty, not \"0\", as Plus)", "/req1/a", 200, tok(rs1, admin=False))
    expect(ngx, "require: several values, all set -> 200", "/reqn/a", 200, tok(rs1, a="x", b=1))
    expect(ngx, "require: several values, one missing -> 401", "/reqn/a", 401, tok(rs1, a="x"))
    expect(ngx, "require: error=403 -> 403 insufficient_scope", "/req403/a", 403, tok(rs1),
           'Bearer realm="api", error="insufficient_scope"')
    expect(ngx, "require: error=403 passes when set", "/req403/a", 200, tok(rs1, admin="yes"))
    expect(ngx, "require: error=403 line, bad signature still 401", "/req403/a", 401,
           tok(rs1, admin="yes", sign_with=keys.other))
    idp = "https://idp.example.com/sts"
    expect(ngx, "require authn/authz (map): good issuer + admin scope -> 200", "/authz/a", 200,
           tok(rs1, iss=idp, scope="access_as_admin"))
    expect(ngx, "require authn/authz (map): good issuer, no admin scope -> 403", "/authz/a", 403,
           tok(rs1, iss=idp, scope="read"))
    expect(ngx, "require authn/authz (map): wrong issuer -> 401 (first line)", "/authz/a", 401,
           tok(rs1, iss="https://evil.test", scope="access_as_admin"))

    # Variables: raw values, paths, names with dots and slashes, header parameters; the log phase.
    claims = {"sub": "alice", "num": 42, "flt": 1.5, "flag": True, "roles": ["a", "b", 3],
              "obj": {"inner": {"deeper": "d"}, "list": ["x", "y"]}, "info": {"e-mail": "a@example.com"},
              "https://example.com/roles": ["admin", "ops"], "a.b": "dotted"}
    vt = tok(rs1, header={"alg": "RS256", "typ": "JWT", "kid": "rs1", "x5": {"y": "hv"}}, **claims)
    st, h, _ = ngx.get("/vars/a", vt)
    want = {"x-sub": "alice", "x-num": "42", "x-flt": "1.5", "x-flag": "true", "x-roles": "a,b,3",
            "x-kid": "rs1", "x-alg": "RS256", "x-email": "a@example.com", "x-ext": "admin,ops",
            "x-dotted": "dotted", "x-deep": "d", "x-list": "x,y", "x-hn": "hv"}
    check(st == 200, "vars: token with every claim type accepted", str(st))
    for k, v in want.items():
        check(h.get(k) == v, f"vars: {k[2:]} = {v!r}", repr(h.get(k)))
    try:
        obj_ok = json.loads(h.get("x-obj", "")) == claims["obj"]
    except ValueError:
        obj_ok = False
    check(obj_ok, "vars: object claim as JSON text", repr(h.get("x-obj")))
    check("x-missing" not in h, "vars: absent claim is empty", repr(h.get("x-missing")))
    st, h, _ = ngx.get("/vars/a", tok(rs1, sign_with=keys.other, **claims))
    check(st == 401 and not any(k in h for k in ("x-sub", "x-email", "x-ext", "x-kid")),
          "vars: nothing set on a rejected token", str({k: v for k, v in h.items() if k.startswith("x-")}))
    # Another request in between (the worker's jwtk_ctx is reused); the log line is written after both.
    ngx.get("/vars/b", tok(rs1, sub="bob"))
    log_ok = wait_for(lambda: "uri=/vars/a status=200 sub=alice roles=admin,ops email=a@example.com kid=rs1 hk=rs1"
                      in open(f"{w}/access.log").read() and "uri=/vars/b status=200 sub=bob" in
                      open(f"{w}/access.log").read(), 3)
    check(log_ok, "vars: available in the log phase (log_format)",
          open(f"{w}/access.log").read()[-600:] if os.path.exists(f"{w}/access.log") else "no access.log")

    # satisfy any
    expect(ngx, "satisfy any + allow 127.0.0.1: no token -> 200", "/sat-allow/a", 200)
    expect(ngx, "satisfy any + deny: no token -> 401", "/sat-deny/a", 401)
    expect(ngx, "satisfy any + deny: valid token -> 200", "/sat-deny/a", 200, good)
    basic_ok = "Basic " + base64.b64encode(b"alice:secret").decode()
    basic_bad = "Basic " + base64.b64encode(b"alice:wrong").decode()
    for loc in ("/sat-basic/", "/sat-basic2/"):
        st, h, _ = ngx.get(loc + "a", headers={"Authorization": basic_ok, "X-Jwt": "a.b.c"})
        check(st == 200 and "www-authenticate" not in h, f"satisfy any {loc}: JWT fails, basic passes -> 200, no challenge",
              f"{st} {h.get('www-authenticate')}")
        st, h, _ = ngx.get(loc + "a", headers={"Authorization": basic_bad, "X-Jwt": good})
        check(st == 200 and "www-authenticate" not in h, f"satisfy any {loc}: basic fails, JWT passes -> 200",
              f"{st} {h.get('www-authenticate')}")
        st, h, _ = ngx.get(loc + "a", headers={"Authorization": basic_bad, "X-Jwt": "a.b.c"})
        check(st == 401, f"satisfy any {loc}: both fail -> 401", str(st))
    # auth_request
    expect(ngx, "auth_request + auth_jwt: both pass -> 200", "/areq/a", 200, good)
    expect(ngx, "auth_request + auth_jwt: auth_request denies -> 403", "/areq/a", 403, good, headers={"X-Deny": "1"})
    expect(ngx, "auth_request + auth_jwt: JWT fails -> 401", "/areq/a", 401, "a.b.c")
    expect(ngx, "satisfy any + auth_request: JWT fails, auth_request passes -> 200", "/areq-any/a", 200, "a.b.c")
    st = ngx.get("/areq-any/a", "a.b.c", headers={"X-Deny": "1"})[0]
    check(st in (401, 403), "satisfy any + auth_request: both fail -> 401/403", str(st))
    # limit_except
    expect(ngx, "limit_except GET { auth_jwt }: GET open", "/lmt/a", 200)
    expect(ngx, "limit_except GET { auth_jwt }: POST without token -> 401 realm write", "/lmt/a", 401,
           www='Bearer realm="write"', method="POST", body="x")
    expect(ngx, "limit_except GET { auth_jwt }: POST with token -> 200", "/lmt/a", 200, good, method="POST", body="x")
    # inheritance and auth_jwt off
    expect(n2, "inherit: server-level auth_jwt applies -> 401 realm srv", "/inherit/a", 401, www='Bearer realm="srv"')
    expect(n2, "inherit: valid token -> 200", "/inherit/a", 200, good)
    expect(n2, "auth_jwt off cancels the inherited one", "/off/a", 200)
    expect(n2, "inherit into limit_except: GET still checked (server level)", "/lmt/a", 401, www='Bearer realm="srv"')
    expect(n2, "limit_except POST: its own realm", "/lmt/a", 401, www='Bearer realm="write"', method="POST", body="x")
    expect(n2, "limit_except { auth_jwt off }: POST open", "/lmt-off/a", 200, method="POST", body="x")
    expect(n2, "limit_except { auth_jwt off }: GET still checked", "/lmt-off/a", 401)

    # Key subrequests
    t0 = time.time()
    expect(ngx, "key request: valid token -> 200", "/kr/a", 200, good)
    expect(ngx, "key request: bad signature -> 401", "/kr/a", 401, tok(rs1, sign_with=keys.other))
    for _ in range(3):
        ngx.get("/kr/a", good)
    check(len(ok_srv.hits(t0)) == 1, "key request: auth_jwt_key_cache 1h -> fetched once", str(len(ok_srv.hits(t0))))
    m = ngx.mark()
    expect(ngx, "key request: source answers 500 before any keys -> 500", "/kr500/a", 500, good)
    check("auth_jwt_key_request" in ngx.since(m), "key request: the 500 has an error log line", ngx.since(m)[-300:])
    expect(ngx, "key request failing: missing token still 401", "/kr500/a", 401)
    st, h, body = ngx.get("/status")
    try:
        js = json.loads(body)
        ok = st == 200 and isinstance(js, dict)
    except ValueError:
        ok = False
    check(ok, "jwtk_status: JSON", body[:200])
    st, h, body = ngx.get("/status?format=prometheus")
    check(st == 200 and "jwtk_" in body, "jwtk_status: Prometheus text", body[:200])


# --------------------------------------------------------------------------------------------------------
# Part 1c: the NGINX Plus admin guide's examples
# Source: nginx/documentation content/nginx/admin-guide/security-controls/configuring-jwt-authentication.md
# (commit 62e0d08) = https://docs.nginx.com/nginx/admin-guide/security-controls/configuring-jwt-authentication/
# Each snippet is the guide's, with listen ports, paths and upstream addresses adapted to 127.0.0.1; the
# guide's fragments ("#...") get the key file of the example they belong to.

GUIDE_JWE = {
    "step 3 (auth_jwt_type encrypted)": """
       location /products/ {
           proxy_pass        http://api_server;
           auth_jwt          "API";
           auth_jwt_type     encrypted;
       }""",
    "step 4 (two key files, encrypted)": """
       location /products/ {
           proxy_pass        http://api_server;
           auth_jwt          "API";
           auth_jwt_type     encrypted;
           auth_jwt_key_file conf/key.jwk;
           auth_jwt_key_file conf/keys.json;
       }""",
    "step 4 (key file + key request, encrypted)": """
       location /products/ {
           proxy_pass           http://api_server;
           auth_jwt             "API";
           auth_jwt_type        encrypted;
           auth_jwt_key_file    private_jwe_keys.jwk;
           auth_jwt_key_request /public_jws_keys;
       }""",
    "step 4 (key cache 1h, encrypted)": """
       location /products/ {
           proxy_pass           http://api_server;
           auth_jwt             "API";
           auth_jwt_type        encrypted;
           auth_jwt_key_file    private_jwe_keys.jwk;
           auth_jwt_key_request /public_jws_keys;
           auth_jwt_key_cache   1h;
       }""",
    "nested JWT": """
        location / {
        auth_jwt          "API";
        auth_jwt_type     nested;
        auth_jwt_key_file conf/api_secret.jwk;
        proxy_pass       http://api_server;
        proxy_set_header Authorization "Bearer $jwt_payload";
        }""",
}


def guide_server(port, body, http_extra=""):
    return "\n".join([
        http_extra,
        f"  server {{ listen 127.0.0.1:{port};", "    location = /__up { return 204; }", body, "  }"])


def part_guide(a, w, keys):
    os.makedirs(f"{w}/conf", exist_ok=True)
    prep(w)
    # The guide's key files as its text describes them: key.jwk and private_jwe_keys.jwk the recipient's
    # decryption key, keys.json the issuer's public keys, api_secret.jwk (its nested example's one file) the
    # HMAC secret and a decryption key.
    dir_jwk = plus_configs.DirKey("jwe-1").jwk()
    with open(f"{w}/conf/api_secret.jwk", "w") as f:
        f.write(json.dumps({"keys": json.loads(jwks(keys.hs))["keys"] + [dir_jwk]}))
    for name, doc in (("key.jwk", json.dumps({"keys": [dir_jwk]})), ("keys.json", jwks(keys.rs1)),
                      ("../private_jwe_keys.jwk", json.dumps({"keys": [dir_jwk]}))):
        with open(f"{w}/conf/{name}", "w") as f:
            f.write(doc)
    bport = free_port()
    up = "\n".join([f"  upstream api_server {{ server 127.0.0.1:{bport}; }}",
                    f"  upstream my_backend {{ server 127.0.0.1:{bport}; }}",
                    f"  server {{ listen 127.0.0.1:{bport}; location / {{ return 200 \"backend $uri\\n\"; }} }}"])

    for name, body in GUIDE_JWE.items():
        rc, out = nginx_t(w, conf(a, w, up + "\n" + guide_server(free_port(), body)))
        if "auth_jwt_key" in body:
            check(rc == 0, f"guide: {name}: nginx -t accepts it", out.strip()[-300:])
        else:
            check(rc == 1 and "without a key source" in out,
                  f"guide: {name} without a key source refused (documented divergence)", out.strip()[-300:])

    # Step 2: auth_jwt "API" with no key directive: Plus skips the signature; the module refuses (fail closed).
    rc, out = nginx_t(w, conf(a, w, up + "\n" + guide_server(free_port(), """
       location /products/ {
           proxy_pass http://api_server;
           auth_jwt   "API";
       }""")))
    check(rc == 1 and "without a key source" in out, "guide: step 2 without a key source refused (documented divergence)",
          out.strip()[-300:])

    # Step 2 with token=$arg_apijwt (the fragment, with the map example's key file).
    port = free_port()
    ngx = Ngx(w, conf(a, w, up + "\n" + guide_server(port, """
       location /products/ {
           proxy_pass http://api_server;
           auth_jwt "API" token=$arg_apijwt;
           auth_jwt_key_file conf/api_secret.jwk;
       }""")), port)
    hs_good = tok(keys.hs)
    expect(ngx, "guide: token=$arg_apijwt -> 200", f"/products/x?apijwt={hs_good}", 200)
    expect(ngx, "guide: token=$arg_apijwt absent -> 401", "/products/x", 401, www='Bearer realm="API"')
    ngx.stop()

    # Key subrequest with proxy_cache (the first snippet: no key cache), then the full example (key cache 1h).
    idp = JWKS(jwks(keys.rs1))
    for label, cache_line in (("subrequest + proxy_cache", ""), ("full example, auth_jwt_key_cache 1h",
                                                                   "auth_jwt_key_cache   1h;")):
        port = free_port()
        shutil_rm(f"{w}/cache")
        os.makedirs(f"{w}/cache", exist_ok=True)
        text = conf(a, w, up + "\n" + guide_server(port, f"""
    location / {{
        auth_jwt             "closed site";
        {cache_line}
        auth_jwt_key_request /_jwks_uri;    # Keys will be fetched by subrequest

        proxy_pass http://my_backend;
    }}

    location = /_jwks_uri {{
        internal;
        proxy_method      GET;
        proxy_cache       jwk; # Cache responses
        proxy_cache_valid 200 12h;
        proxy_pass        http://127.0.0.1:{idp.port}/oauth2/keys; # Obtain keys from here
    }}""", http_extra=f"  proxy_cache_path {w}/cache/jwk levels=1 keys_zone=jwk:1m max_size=10m;"))
        rc, out = nginx_t(w, text)
        check(rc == 0, f"guide: {label}: nginx -t", out.strip()[-300:])
        t0 = time.time()
        ngx = Ngx(w, text, port)
        good = tok(keys.rs1)
        expect(ngx, f"guide: {label}: valid token -> 200", "/x", 200, good)
        for _ in range(4):
            ngx.get("/x", good)
        expect(ngx, f"guide: {label}: bad token -> 401", "/x", 401, tok(keys.rs1, sign_with=keys.other),
               'Bearer realm="closed site", error="invalid_token"')
        check(len(idp.hits(t0)) == 1, f"guide: {label}: the IdP is asked once", str(len(idp.hits(t0))))
        expect(ngx, f"guide: {label}: the internal key location is not reachable from outside", "/_jwks_uri", 404)
        ngx.stop()
    idp.server.shutdown()

    # Arbitrary claims validation: three maps, one auth_jwt_require; then the authn/authz pair.
    maps = r"""
map $jwt_claim_aud $valid_app_id {    #map rule 1:
    "~api\d.example.com" 1;           #token issued only for target apps
}

map $jwt_claim_iss $valid_issuer {    #map rule 2:
    "https://idp.example.com/sts" 1;  #token issued by trusted CA
}

map $jwt_claim_scope $valid_scope {   #map rule 3:
    "access_as_admin" 1;              #access as admin only
}"""
    good_claims = {"aud": "api1.example.com", "iss": "https://idp.example.com/sts", "scope": "access_as_admin"}
    for label, extra in (("map + auth_jwt_require", ""),
                         ("two auth_jwt_require lines", "auth_jwt_require  $valid_scope error=403;")):
        port = free_port()
        text = conf(a, w, up + "\n" + maps + "\n" + guide_server(port, f"""
    location /products/ {{
        auth_jwt          "API";
        auth_jwt_key_file conf/api_secret.jwk;
        auth_jwt_require  $valid_app_id $valid_issuer $valid_scope;
        {extra}
        proxy_pass        http://api_server;
    }}"""))
        rc, out = nginx_t(w, text)
        check(rc == 0, f"guide: {label}: nginx -t", out.strip()[-300:])
        ngx = Ngx(w, text, port)
        expect(ngx, f"guide: {label}: all three conditions -> 200", "/products/", 200, tok(keys.hs, **good_claims))
        for claim, bad in (("aud", "web.example.com"), ("iss", "https://other/sts"), ("scope", "read")):
            # The guide: "In case of an error, the 401 code" -- the first line fails first, even for the scope.
            expect(ngx, f"guide: {label}: wrong {claim} -> 401", "/products/", 401,
                   tok(keys.hs, **{**good_claims, claim: bad}))
        expect(ngx, f"guide: {label}: HS256 signed with another secret -> 401", "/products/", 401,
               tok(keys.hs, sign_with=Key("0001", "HS256", os.urandom(32)), **good_claims))
        ngx.stop()

    # The guide's key.jwk example: the secret "fantasticjwt" (12 bytes, below RFC 7518's 256 bits for HS256).
    with open(f"{w}/conf/fantastic.jwk", "w") as f:
        f.write('{"keys":\n    [{\n        "k":"ZmFudGFzdGljand0",\n        "kty":"oct",\n        "kid":"0001"\n    }]\n}\n')
    rc, out = nginx_t(w, conf(a, w, up + "\n" + guide_server(free_port(), """
       location /products/ { auth_jwt "API"; auth_jwt_key_file conf/fantastic.jwk; proxy_pass http://api_server; }""")))
    check(rc == 0 and "[warn]" in out and '"0001"' in out and "RFC 7518" in out,
          "guide's key.jwk (12-byte HMAC secret): nginx -t accepts it, warning about the key and the rule",
          f"exit {rc}: {out.strip()[-300:]}")


def shutil_rm(path):
    import shutil
    shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------------------------------------
# Part 2: bad input inside a host


def part_hostile(a, w, keys):
    os.makedirs(w, exist_ok=True)
    prep(w)
    rs1 = keys.rs1
    with open(f"{w}/keys1.json", "w") as f:
        f.write(jwks(rs1))
    # Hostile key files: nginx -t refuses each with an emerg line, never a signal.
    pem = rs1.pem().decode()
    private_pem = rs1.private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption()).decode()
    hostile = {
        "not JSON": "this is not json {",
        "deeply nested": '{"keys":' + "[" * 200000 + "]" * 200000 + "}",
        "16 MiB + 1": '{"keys":[]}' + " " * ((16 << 20) + 1 - len('{"keys":[]}')),
        "a private key PEM": private_pem,
        "empty": "",
        "JSON, not a key set": '{"kty":"RSA"}',
        "keys not an array": '{"keys":{"a":1}}',
        "NUL bytes": '{"keys":[\x00]}',
        "non-UTF-8": '{"keys":[{"kty":"oct","k":"\udcff"}]}',
    }
    for name, body in hostile.items():
        with open(f"{w}/hostile.json", "wb") as f:
            f.write(body.encode("utf-8", "surrogateescape"))
        t0 = time.time()
        rc, out = nginx_t(w, conf(a, w, f"  server {{ listen 127.0.0.1:{free_port()}; location / {{ "
                                  f'auth_jwt "r"; auth_jwt_key_file {w}/hostile.json; return 204; }} }}'))
        check(rc == 1 and "[emerg]" in out and time.time() - t0 < 30,
              f"hostile key file ({name}): refused by nginx -t with a message", f"rc={rc} {out.strip()[-300:]}")
    # PEM, as the CLI's --jwks reads it (libjwtk's one rule): a public key file loads; a private key is
    # refused, saying what it is and what to give instead.
    with open(f"{w}/hostile.json", "w") as f:
        f.write(pem)
    rc, out = nginx_t(w, conf(a, w, f"  server {{ listen 127.0.0.1:{free_port()}; location / {{ "
                              f'auth_jwt "r"; auth_jwt_key_file {w}/hostile.json; return 204; }} }}'))
    check(rc == 0, "key file: a PEM public key is accepted", f"rc={rc} {out.strip()[-300:]}")
    with open(f"{w}/hostile.json", "w") as f:
        f.write(private_pem)
    rc, out = nginx_t(w, conf(a, w, f"  server {{ listen 127.0.0.1:{free_port()}; location / {{ "
                              f'auth_jwt "r"; auth_jwt_key_file {w}/hostile.json; return 204; }} }}'))
    check(rc == 1 and "private key" in out and "-pubout" in out and f'"{w}/hostile.json"' in out,
          "key file: a private key PEM is refused, saying what to give instead", f"rc={rc} {out.strip()[-300:]}")

    # Hostile key endpoints, hostile requests.
    bodies = {"notjson": "this is not json", "pem": private_pem, "deep": '{"keys":' + "[" * 100000 + "]" * 100000 + "}",
              "big": '{"keys":[]}' + " " * (16 << 20)}
    servers = {k: JWKS(v) for k, v in bodies.items()}
    hang, s500, huge = JWKS(jwks(rs1)), JWKS(jwks(rs1)), JWKS(jwks(rs1))
    hang.mode, s500.mode, huge.mode = "hang", "500", "huge"
    servers.update(hang=hang, s500=s500, huge=huge, hugeok=huge, bigbuf=servers["big"])
    port, bport = free_port(), free_port()
    locs = []
    for name, srv in servers.items():
        buf = {"hugeok": "subrequest_output_buffer_size 32m;", "bigbuf": "subrequest_output_buffer_size 32m;",
               "deep": "subrequest_output_buffer_size 1m;"}.get(name, "")
        locs.append(f'    location /kr-{name}/ {{ auth_jwt "api"; auth_jwt_key_request /_k_{name}; {PROXY} }}')
        locs.append(f"    location = /_k_{name} {{ internal; proxy_read_timeout 1s; proxy_connect_timeout 1s; {buf} "
                    f"proxy_pass http://127.0.0.1:{srv.port}/jwks; }}")
    text = conf(a, w, "\n".join([
        backend(bport),
        f"  auth_jwt_key_file {w}/keys1.json;",
        f"  server {{ listen 127.0.0.1:{port}; large_client_header_buffers 4 64k;",
        "    location = /__up { return 204; }",
        '    location /h/ { auth_jwt "api"; add_header X-Sub $jwt_claim_sub always; ' + PROXY + " }",
        '    location /hc/ { auth_jwt "api" token=$cookie_t; ' + PROXY + " }",
        *locs, "  }"]))
    ngx = Ngx(w, text, port)
    try:
        hostile_requests(ngx, keys, servers)
        # A reload with a hostile key file keeps the running configuration.
        with open(f"{w}/keys1.json", "w") as f:
            f.write("not json")
        m = ngx.mark()
        ngx.hup()
        time.sleep(1.5)
        check("[emerg]" in ngx.since(m) and ngx.proc.poll() is None, "hostile key file on HUP: emerg line, master lives",
              ngx.since(m)[-300:])
        expect(ngx, "hostile key file on HUP: the running configuration still verifies", "/h/a", 200, tok(rs1))
    finally:
        rc = ngx.stop()
        check(rc == 0, "hostile: nginx exits 0 on QUIT", str(rc))
        check(not ngx.bad_lines(), "hostile: no worker crash, no alert/crit line", "\n".join(ngx.bad_lines())[:800])
        for s in set(servers.values()):
            s.server.shutdown()


def hostile_requests(ngx, keys, servers):
    rs1 = keys.rs1

    def logged(name, path, status, tok_=None, want_log="jwtk:", headers=None, timeout=15):
        m = ngx.mark()
        t0 = time.time()
        try:
            st, h, _ = ngx.get(path, tok_, headers=headers, timeout=timeout)
        except Exception as e:  # noqa: BLE001
            st, h = f"no answer ({e.__class__.__name__})", {}
        took = time.time() - t0
        ok_log = wait_for(lambda: want_log in ngx.since(m), 2)
        check(st == status and ok_log, f"hostile: {name} -> {status} with a log line ({took:.1f} s)",
              f"got {st}, log {ngx.since(m)[-300:]!r}")
        return st, h

    big_claim = "x" * 20000
    logged("token over the limit (20 KB, valid signature)", "/h/a", 401, tok(rs1, pad=big_claim))
    logged("token under the limit (10 KB) passes", "/h/a", 200, tok(rs1, pad="x" * 10000), want_log="")
    logged("60 KB of garbage in Authorization", "/h/a", 401, "A" * 60000)
    st = raw(ngx.port, b"GET /h/a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + b"A" * 100000 + b"\r\n\r\n")
    check(st in (400, 494), "hostile: 100 KB header (over the buffers) -> 400/494 from nginx", str(st))
    m = ngx.mark()
    st = raw(ngx.port, b"GET /h/a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\x00b.c.d\r\n\r\n")
    check(st == 400, "hostile: NUL byte in the Authorization header -> 400 from nginx", str(st))
    st = raw(ngx.port, b"GET /h/a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe.\x80.\xc3\r\n\r\n")
    check(st == 401, "hostile: non-UTF-8 bytes in the Authorization header -> 401", str(st))
    hs = [raw(ngx.port, b"GET /h/a HTTP/1.1\r\nHost: x\r\n" + b"X-Pad: " + b"y" * 8000 + b"\r\n" * 1 +
              b"Authorization: Bearer " + tok(rs1).encode() + b"\r\n\r\n")]
    check(hs[0] == 200, "hostile: large other headers, valid token -> 200", str(hs))
    st = raw(ngx.port, b"GET /h/a HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(2000)) +
             b"Authorization: Bearer " + tok(rs1).encode() + b"\r\n\r\n")
    check(st in (200, 400, 494), "hostile: 2000 header lines -> answered", str(st))
    st, h = logged("NUL in a claim: accepted, variable percent-encoded", "/h/a", 200, tok(rs1, sub="a\x00b"),
                   want_log="")
    check(h.get("x-sub") == "a%00b", "hostile: NUL in a claim -> $jwt_claim_sub percent-encoded", repr(h.get("x-sub")))
    st, h = logged("CR LF in a claim (header injection attempt)", "/h/a", 200,
                   tok(rs1, sub="x\r\nX-Injected: 1"), want_log="")
    check("x-injected" not in h and h.get("x-sub") == "x%0D%0AX-Injected: 1",
          "hostile: CR LF in a claim cannot add a header", repr(h.get("x-sub")))
    header = json.dumps({"alg": "RS256", "kid": "rs1"}).encode()
    payload = b'{"iss":"https://issuer.test","sub":"\xff\xfe\x80","exp":' + str(NOW + 3600).encode() + b"}"
    logged("non-UTF-8 bytes in a claim -> 401", "/h/a", 401, raw_token(rs1, header, payload))
    logged("non-UTF-8 bytes in the header JSON -> 401", "/h/a", 401,
           raw_token(rs1, b'{"alg":"RS256","kid":"rs1\xff"}', b'{"sub":"a"}'))
    logged("payload nested 10000 deep -> 401", "/h/a", 401,
           raw_token(rs1, header, b'{"a":' + b"[" * 10000 + b"]" * 10000 + b"}"))
    logged("token of 5000 dots -> 401", "/h/a", 401, "." * 5000)
    logged("token in a 4 KB cookie of garbage -> 401", "/hc/a", 401, headers={"Cookie": "t=" + "z" * 4000})
    good = tok(rs1)
    for name, status, what in (("notjson", 500, "not JSON"), ("pem", 500, "a private key PEM"), ("deep", 500, "deeply nested"),
                               ("s500", 500, "answers 500"),
                               ("bigbuf", 500, "16 MiB + 11 bytes (over jwtk's limit)"),
                               ("hang", 500, "hangs (proxy_read_timeout 1s)")):
        logged(f"key endpoint {what}", f"/kr-{name}/a", status, good, want_log="auth_jwt_key_request")
    # The module takes a key answer with its own body filter (up to jwtk's 16 MiB), so nginx's
    # subrequest_output_buffer_size (default 4k/8k, which ends the connection when exceeded) does not apply.
    logged("key endpoint sending 2 MiB, default subrequest_output_buffer_size -> keys loaded", "/kr-huge/a", 200, good,
           want_log="")
    logged("key endpoint sending 2 MiB with a large enough buffer -> keys loaded", "/kr-hugeok/a", 200, good,
           want_log="")
    # Keys held, then the endpoint fails: stale keys serve (no 500 once keys were loaded).
    servers["hugeok"].mode = "500"
    time.sleep(1.1)
    logged("key endpoint failing after keys were loaded -> held keys serve", "/kr-hugeok/a", 200, good,
           want_log="auth_jwt_key_request")
    servers["hugeok"].mode = "huge"


# --------------------------------------------------------------------------------------------------------
# jwt-kernel's own key sources: OpenID Connect discovery (jwtk_oidc), a preset with keys from a file


class Discovery:
    """A loopback issuer: /.well-known/openid-configuration naming `issuer` (default: itself) and /jwks."""

    def __init__(self, jwks_body):
        self.jwks_body, self.claimed, self.log = jwks_body, None, []
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self):
                outer.log.append(self.path)
                if self.path == "/.well-known/openid-configuration":
                    body = json.dumps({"issuer": outer.claimed or outer.issuer,
                                       "jwks_uri": outer.issuer + "/jwks"}).encode()
                elif self.path == "/jwks":
                    body = outer.jwks_body.encode()
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def part_key_sources(a, w, keys):
    good, mixup = Discovery(jwks(keys.rs1)), Discovery(jwks(keys.rs1))
    # A 12-byte HMAC secret (the admin guide's key.jwk, "fantasticjwt"): the Plus directive loads it with a
    # warning, jwt-kernel's own key source (here jwtk_oidc's jwks_uri) refuses it (RFC 7518 section 3.2).
    short = Key("0001", "HS256", b"fantasticjwt")
    short_oidc = Discovery(jwks(short))
    with open(f"{w}-short.jwk", "w") as f:
        f.write(jwks(short))
    mixup.claimed = "https://someone-else.example"
    with open(f"{w}-keys.json", "w") as f:
        f.write(jwks(keys.rs1))
    port, bport = free_port(), free_port()
    text = conf(a, w, "\n".join([
        backend(bport),
        f"  server {{ listen 127.0.0.1:{port};",
        "    location = /__up { return 204; }",
        f'    location /oidc/ {{ auth_jwt "api"; jwtk_oidc {good.issuer} cooldown=1s; {PROXY} }}',
        f'    location /mixup/ {{ auth_jwt "api"; jwtk_oidc {mixup.issuer}; {PROXY} }}',
        f'    location /short/ {{ auth_jwt "api"; auth_jwt_key_file {w}-short.jwk; '
        f"add_header X-Exp $jwt_claim_exp always; add_header X-Nbf $jwt_claim_nbf always; {PROXY} }}",
        f'    location /short-oidc/ {{ auth_jwt "api"; jwtk_oidc {short_oidc.issuer}; {PROXY} }}',
        '    location /google/ { auth_jwt "api"; jwtk_provider google; jwtk_audience client-1; '
        f"auth_jwt_key_file {w}-keys.json; {PROXY} }}",
        f'    location /claims/ {{ auth_jwt "api"; auth_jwt_key_file {w}-keys.json; '
        "jwtk_claim_contains_all /scope read write; jwtk_claim_equals /tenant acme; "
        "jwtk_claim_contains_any /https:~1~1example.com~1roles admin ops; jwtk_claim_equals /email_verified true; "
        f"jwtk_claim_one_of /org/id 42 43; {PROXY} }}",
        "  }"]))
    ngx = Ngx(w, text, port)
    try:
        expect(ngx, "auth_jwt_key_file: a 12-byte HMAC secret loads (as NGINX Plus)", "/short/a", 200, tok(short))
        expect(ngx, "auth_jwt_key_file: a token of another 12-byte secret is 401", "/short/a", 401,
               tok(short, sign_with=Key("0001", "HS256", b"fantasticjwu")))
        # NumericDate fractions: compared toward refusal against the second, printed as the token wrote them.
        st, h, _ = expect(ngx, "a fractional exp and nbf are read", "/short/a", 200,
                          tok(short, exp=4133862000.875, nbf=1.5e9))
        check(h.get("x-exp") == "4133862000.875" and h.get("x-nbf") == "1500000000.0",
              "$jwt_claim_exp and $jwt_claim_nbf print fractions as the token wrote them", str(h))
        expect(ngx, "an exp half a second into the current second is expired (the real time may be past it)",
               "/short/a", 401, tok(short, exp=int(time.time()) + 0.5))
        warn = [line for line in ngx.log().splitlines() if "[warn]" in line and '"0001"' in line]
        check(len(warn) == 1 and "RFC 7518" in warn[0] and "12 bytes" in warn[0],
              "auth_jwt_key_file: one warning at configuration naming the key and the rule", "\n".join(warn)[-400:])
        expect(ngx, "jwtk_oidc: the same 12-byte secret is refused (no usable key: 503)", "/short-oidc/a", 503,
               tok(short, iss=short_oidc.issuer))
        check(good.log[:2] == ["/.well-known/openid-configuration", "/jwks"],
              "jwtk_oidc: the document first, then the jwks_uri it names", str(good.log[:4]))
        expect(ngx, "jwtk_oidc: a token of another issuer is refused", "/oidc/a", 401,
               tok(keys.rs1, iss="https://issuer.test"))
        expect(ngx, "jwtk_oidc: a document naming another issuer gives no keys (503)", "/mixup/a", 503,
               tok(keys.rs1, iss=mixup.issuer))
        check("/jwks" not in mixup.log, "jwtk_oidc: the mixed-up document's jwks_uri is never fetched", str(mixup.log))
        check(wait_for(lambda: f"{mixup.issuer}: " in ngx.log() and "(503)" in ngx.log(), 3),
              "jwtk_oidc: the failing discovery is logged (its issuer, 503)", ngx.log()[-500:])
        g = dict(iss="https://accounts.google.com", aud="client-1", azp="client-1")
        expect(ngx, "jwtk_provider google + auth_jwt_key_file: the preset's policy offline", "/google/a", 200,
               tok(keys.rs1, **g))
        expect(ngx, "jwtk_provider google: another audience is 401", "/google/a", 401,
               tok(keys.rs1, **dict(g, aud="client-2")))
        expect(ngx, "jwtk_provider google: another issuer is refused", "/google/a", 401,
               tok(keys.rs1, **dict(g, iss="https://issuer.test")))
        ok = {"scope": "openid read write", "tenant": "acme", "https://example.com/roles": ["viewer", "ops"],
              "email_verified": True, "org": {"id": 42}}
        scope = 'Bearer realm="api", error="insufficient_scope"'
        expect(ngx, "jwtk_claim_*: every requirement met", "/claims/a", 200, tok(keys.rs1, **ok))
        for name, change in (("a scope word missing", {"scope": "openid read"}),
                             ("another tenant", {"tenant": "other"}),
                             ("no role of the set", {"https://example.com/roles": ["viewer"]}),
                             ("email_verified the string \"true\"", {"email_verified": "true"}),
                             ("org.id outside the set", {"org": {"id": 44}}),
                             ("tenant missing", {"tenant": None})):
            m = ngx.mark()
            expect(ngx, f"jwtk_claim_*: {name} -> 403 insufficient_scope", "/claims/a", 403,
                   tok(keys.rs1, **dict(ok, **change)), www=scope)
            if name == "another tenant":
                logged_line = ngx.since(m)
                check("claim requirement /tenant equals: a claim does not equal its required value" in logged_line
                      and "other" not in logged_line.split("claim requirement", 1)[-1].split("\n", 1)[0],
                      "jwtk_claim_*: the log names the requirement (pointer, operator), never the value",
                      logged_line[-300:])
        rc, out = nginx_t(f"{w}-bad", conf(a, f"{w}-bad", f"  server {{ listen 127.0.0.1:{free_port()}; location / {{ "
                                            f'auth_jwt "r"; auth_jwt_key_file {w}-keys.json; '
                                            "jwtk_claim_equals tenant acme; return 204; } }"))
        check(rc == 1 and "is not a JSON Pointer" in out, "jwtk_claim_equals with a name that is not a JSON Pointer: refused by "
              "nginx -t with libjwtk's message", out.strip()[-300:])
    finally:
        rc = ngx.stop()
        check(rc == 0 and not ngx.bad_lines(), "key sources: clean exit, no crash", str(rc))
        good.server.shutdown()
        mixup.server.shutdown()
        short_oidc.server.shutdown()


# --------------------------------------------------------------------------------------------------------
# Part 3: valgrind


def part_valgrind(a, w, keys):
    os.makedirs(w, exist_ok=True)
    prep(w)
    rs1 = keys.rs1
    with open(f"{w}/keys1.json", "w") as f:
        f.write(jwks(rs1, keys.es1))
    with open(f"{w}/keys2.json", "w") as f:
        f.write(jwks(keys.es1))
    dkey, dother = plus_configs.DirKey("d1"), plus_configs.DirKey("d1")
    with open(f"{w}/dir.jwk", "w") as f:
        f.write(json.dumps({"keys": [dkey.jwk()]}))
    srv = JWKS(jwks(rs1))
    port, bport = free_port(), free_port()
    text = conf(a, w, "\n".join([
        backend(bport),
        f"  auth_jwt_key_file {w}/keys1.json;",
        "  auth_jwt_claim_set $email info e-mail;",
        f"  log_format jwt '$status $jwt_claim_sub $email $jwt_header_kid';",
        f"  server {{ listen 127.0.0.1:{port};",
        "    location = /__up { return 204; }",
        f'    location /p/ {{ auth_jwt "api"; access_log {w}/access.log jwt; '
        "add_header X-Sub $jwt_claim_sub always; add_header X-Email $email always; "
        "auth_jwt_require $jwt_claim_sub; " + PROXY + " }",
        '    location /kr/ { auth_jwt "api"; auth_jwt_key_request /_k; ' + PROXY + " }",
        f"    location = /_k {{ internal; proxy_pass http://127.0.0.1:{srv.port}/jwks; }}",
        f'    location /jwe/ {{ auth_jwt "api"; auth_jwt_type encrypted; auth_jwt_key_file {w}/dir.jwk; '
        "add_header X-P $jwt_payload always; " + PROXY + " }",
        f'    location /vk/ {{ auth_jwt "api"; auth_jwt_key_file {w}/$arg_f.json; jwtk_key_sets 1; '
        "auth_jwt_key_request /_k?$arg_f; " + PROXY + " }",
        "    location = /status { jwtk_status; }",
        "  }"]), master=False)
    vlog = f"{w}/valgrind.log"
    ngx = Ngx(w, text, port, wrapper=["valgrind", "--leak-check=full", "--keep-debuginfo=yes", "--errors-for-leak-kinds=definite,indirect",
                                      "--show-leak-kinds=definite,indirect", "--num-callers=40",
                                      "--error-exitcode=3", f"--log-file={vlog}"], timeout=120)
    try:
        good = tok(rs1, info={"e-mail": "v@example.com"})
        for i in range(3):
            expect(ngx, f"valgrind: valid ({i})", "/p/a", 200, good, timeout=60)
        expect(ngx, "valgrind: ES256 valid", "/p/a", 200, tok(keys.es1), timeout=60)
        expect(ngx, "valgrind: bad signature", "/p/a", 401, tok(rs1, sign_with=keys.other), timeout=60)
        expect(ngx, "valgrind: expired", "/p/a", 401, tok(rs1, exp=NOW - 100), timeout=60)
        expect(ngx, "valgrind: missing token", "/p/a", 401, timeout=60)
        expect(ngx, "valgrind: garbage", "/p/a", 401, "x.y.z", timeout=60)
        st, h, _ = ngx.get("/p/a", good, timeout=60)
        check(st == 200 and h.get("x-email") == "v@example.com", "valgrind: claim variables", str(h.get("x-email")))
        expect(ngx, "valgrind: key subrequest", "/kr/a", 200, tok(rs1), timeout=60)
        srv.body = jwks(rs1, keys.es1)
        expect(ngx, "valgrind: key subrequest, changed document", "/kr/a", 200, tok(keys.es1), timeout=60)
        srv.mode = "500"
        expect(ngx, "valgrind: key subrequest failing, held keys", "/kr/a", 200, tok(rs1), timeout=60)
        srv.mode = "ok"
        expect(ngx, "valgrind: variable key file and request (a key set)", "/vk/a?f=keys1", 200, tok(rs1), timeout=60)
        expect(ngx, "valgrind: another key set (the first evicted)", "/vk/a?f=keys2", 200, tok(keys.es1), timeout=60)
        expect(ngx, "valgrind: a missing variable key file -> 500", "/vk/a?f=none", 500, tok(rs1), timeout=60)
        enc = json.dumps({"sub": "v", "exp": NOW + 3600}, separators=(",", ":")).encode()
        st, h, _ = ngx.get("/jwe/a", dkey.encrypt(enc), timeout=60)
        check(st == 200 and '"sub":"v"' in h.get("x-p", ""), "valgrind: an encrypted token, $jwt_payload", f"{st} {h}")
        expect(ngx, "valgrind: an encrypted token under another key", "/jwe/a", 401, dother.encrypt(enc), timeout=60)
        expect(ngx, "valgrind: status JSON", "/status", 200, timeout=60)
        expect(ngx, "valgrind: status Prometheus", "/status?format=prometheus", 200, timeout=60)
    finally:
        rc = ngx.stop(timeout=120)
        srv.server.shutdown()
    log = open(vlog, errors="replace").read()
    records = re.split(r"\n==\d+== \n", log)
    # glibc's ld.so reading an RPATH with its word-wise strncmp (is_dst) is a known valgrind false positive.
    invalid = [r.strip().splitlines()[0] for r in records
               if re.search(r"Invalid (read|write|free)|Conditional jump|uninitialised|Syscall param|Mismatched free", r)
               and not re.search(r"by 0x[0-9A-F]+: is_dst \(dl-load\.c", r)]
    leaks = [r for r in records if re.search(r"(definitely|indirectly) lost in loss record", r)]
    ours = [r for r in leaks if re.search(r"ngx_http_jwtk|libjwtk|jwtk_", r)]
    summary = re.findall(r"(ERROR SUMMARY: \d+ errors|definitely lost: [\d,]+ bytes|indirectly lost: [\d,]+ bytes|"
                         r"possibly lost: [\d,]+ bytes)", log)
    print("valgrind: " + "; ".join(summary))
    check(not invalid, "valgrind: no invalid access or uninitialised use", "\n".join(invalid[:10]))
    check(not ours, "valgrind: no definite/indirect leak attributable to the module or libjwtk",
          "\n\n".join(ours[:3])[:3000])
    if leaks and not ours:
        print(f"note  valgrind: {len(leaks)} definite/indirect leak record(s) outside the module (nginx's own)")
    check(rc in (0, 3), "valgrind: nginx exited (QUIT) under valgrind", str(rc))


# --------------------------------------------------------------------------------------------------------
# Part 4: soak


def part_soak(a, w, keys, seconds, rotate_every=3.0, hup_every=5.0, clients=4):
    """Load with key rotation (at the JWKS server and in a key file), HUP reloads, and a key file chosen by a
    variable (three tenants' files rewritten at each rotation, two key sets kept per worker, so they are evicted
    and parsed again in turn). Keys rotate as an IdP
    publishes them: the set at step i is {k_i-1, k_i, k_i+1} (previous, current, next), tokens are signed with
    k_i, so a token is in the set a worker holds (key cache 1 s < rotation period) and in the set just
    published (a client may read step i just before the rotation and send after it: with only {k_i+1, k_i+2}
    published then, a fresh worker would rightly refuse k_i); the key file rotates the same way at each HUP
    (old workers hold the previous file). Every request must get its expected status (200, or 401 for the tampered tenth)."""
    os.makedirs(w, exist_ok=True)
    prep(w)
    ring = [ec_key(f"k{i}") for i in range(8)]
    tokens = [[tok(k, sub=f"u{j}") for j in range(16)] for k in ring]
    bad = [tok(k, sign_with=ec_key(k.kid)) for k in ring]
    step = {"i": 0, "f": 0}   # i: the JWKS server's step; f: the key file's (changes only with a HUP)

    def ring_set(i):
        return jwks(ring[(i - 1) % 8], ring[i % 8], ring[(i + 1) % 8])

    def publish(i):
        srv.body = ring_set(i)

    def publish_file(i):
        with open(f"{w}/rot.json.tmp", "w") as f:
            f.write(ring_set(i))
        os.replace(f"{w}/rot.json.tmp", f"{w}/rot.json")

    srv = JWKS(ring_set(0))
    publish_file(0)
    tenants = [ec_key(f"tenant{k}") for k in range(3)]
    tenant_tokens = [[tok(k, sub=f"t{j}") for j in range(4)] for k in tenants]

    def publish_tenants():
        # the same keys, a new mtime: a worker reads and parses the file again
        for k, key in enumerate(tenants):
            with open(f"{w}/kv_{k}.json.tmp", "w") as f:
                f.write(jwks(key))
            os.replace(f"{w}/kv_{k}.json.tmp", f"{w}/kv_{k}.json")

    publish_tenants()
    port, bport = free_port(), free_port()
    text = conf(a, w, "\n".join([
        backend(bport),
        f"  server {{ listen 127.0.0.1:{port};",
        "    location = /__up { return 204; }",
        '    location /kr/ { auth_jwt "api"; auth_jwt_key_request /_k; auth_jwt_key_cache 1s; '
        "add_header X-Sub $jwt_claim_sub; " + PROXY + " }",
        f"    location = /_k {{ internal; proxy_pass http://127.0.0.1:{srv.port}/jwks; }}",
        f'    location /kf/ {{ auth_jwt "api"; auth_jwt_key_file {w}/rot.json; ' + PROXY + " }",
        f'    location /kv/ {{ auth_jwt "api"; auth_jwt_key_file {w}/kv_$arg_t.json; jwtk_key_sets 2; ' + PROXY + " }",
        "    location = /status { jwtk_status; }",
        "  }"]), workers=2)
    ngx = Ngx(w, text, port)
    stop = threading.Event()
    counts = {"ok": 0, "failed": 0, "errors": 0}
    failures = []
    lock = threading.Lock()

    def worker(seed):
        c = Client(port)
        n = seed
        while not stop.is_set():
            n += 1
            path = "/kr/a" if n % 2 else "/kf/a"
            i = step["i"] if n % 2 else step["f"]
            if n % 10 == 0:
                t, want = bad[i % 8], 401
            elif n % 5 == 3:
                # a key file chosen by a variable: three tenants, two key sets kept (evicted in turn)
                path, t, want = f"/kv/a?t={(n // 5) % 3}", tenant_tokens[(n // 5) % 3][n % 4], 200
            else:
                t, want = tokens[i % 8][n % 16], 200
            try:
                st = c.get(path, t)[0]
            except Exception as e:  # noqa: BLE001
                st = f"error {e.__class__.__name__}"
            with lock:
                if st == want:
                    counts["ok"] += 1
                else:
                    counts["failed"] += 1
                    if len(failures) < 10:
                        failures.append((round(time.time() - t0, 1), path, i, want, st))

    def rss():
        ws = ngx.workers()
        return rss_kib(ngx.proc.pid), [rss_kib(p) for p in ws]

    t0 = time.time()
    threads_ = [threading.Thread(target=worker, args=(k * 1000,), daemon=True) for k in range(clients)]
    for t in threads_:
        t.start()
    time.sleep(min(3.0, seconds / 5))
    m0, w0 = rss()
    end = t0 + seconds
    next_rot, next_hup = time.time() + rotate_every, time.time() + hup_every
    hups = rotations = 0
    while time.time() < end:
        now = time.time()
        if now >= next_rot:
            publish(step["i"] + 1)    # publish {k_i, k_i+1, k_i+2}, then sign with k_i+1 (in the old set too)
            publish_tenants()
            step["i"] += 1
            rotations += 1
            next_rot = now + rotate_every
        if now >= next_hup:
            publish_file(step["f"] + 1)   # the same scheme for the file, which a HUP reloads
            ngx.hup()
            step["f"] += 1
            hups += 1
            next_hup = now + hup_every
        time.sleep(0.05)
    time.sleep(1.0)   # the last reload's workers have served
    m1, w1 = rss()
    stop.set()
    for t in threads_:
        t.join(10)
    total = counts["ok"] + counts["failed"]
    try:
        kv = json.loads(Client(port).get("/status")[2])["locations"]["/kv/"]
    except (ValueError, KeyError, OSError):
        kv = {}
    check(kv.get("allowed", 0) > 0 and kv.get("key_set_evictions", 0) > 0,
          "soak: the variable key file's sets served and were evicted in turn (jwtk_status)", str(kv)[:300])
    rc = ngx.stop()
    srv.server.shutdown()
    print(f"soak: {seconds:.0f} s, {total} requests ({total / seconds:.0f}/s), {rotations} rotations, {hups} HUPs, "
          f"{counts['failed']} failed; master RSS {m0} -> {m1} KiB, worker RSS {w0} -> {w1} KiB")
    check(total > 0 and counts["failed"] == 0, f"soak: 0 failed requests of {total}", str(failures))
    # Bound: a worker is forked from the master after each HUP, so its RSS at the end holds what the master kept
    # over every reload plus what the last workers grew by. glibc arenas and libjwtk's per-process state settle
    # within the warm-up; 16 MiB is over 1 KiB per reload for a 10-minute soak's 120 reloads plus per-request
    # growth of > 100 bytes x 100k requests: either would show. The master must stay within the same bound.
    bound = 16 * 1024
    check(m1 - m0 <= bound, f"soak: master RSS flat ({m0} -> {m1} KiB, bound +{bound} KiB)")
    check(w0 and w1 and max(w1) - max(w0) <= bound, f"soak: worker RSS flat ({w0} -> {w1} KiB, bound +{bound} KiB)")
    check(rc == 0 and not ngx.bad_lines(), "soak: clean exit, no crash, no alert/crit line",
          f"rc={rc} " + "\n".join(ngx.bad_lines())[:800])


# --------------------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--soak", type=float, default=30)
    ap.add_argument("--parts", default="surface,plus,hostile,valgrind,soak")
    ap.add_argument("--only", default=None, help="plus: the configurations whose file name matches")
    a = ap.parse_args()
    parts = a.parts.split(",")
    keys = Keys()
    timings = []
    for part, fn in (("surface", lambda: (part_contexts(a, f"{a.work}/contexts", keys),
                                          part_config_refusals(a, f"{a.work}/refusals", keys),
                                          part_behaviour(a, f"{a.work}/surface", keys),
                                          unkeyed_server(a, f"{a.work}/surface", keys),
                                          part_variable_keys(a, f"{a.work}/varkeys", keys),
                                          part_guide(a, f"{a.work}/guide", keys),
                                          part_key_sources(a, f"{a.work}/sources", keys))),
                     ("plus", lambda: plus_configs.run(a, f"{a.work}/plus", Ngx, conf, backend, nginx_t,
                                                       only=a.only)),
                     ("hostile", lambda: part_hostile(a, f"{a.work}/hostile", keys)),
                     ("valgrind", lambda: part_valgrind(a, f"{a.work}/valgrind", keys)),
                     ("soak", lambda: part_soak(a, f"{a.work}/soak", keys, a.soak))):
        if part not in parts:
            continue
        print(f"== {part}")
        sys.stdout.flush()
        t0 = time.time()
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            check(False, f"{part}: ran to the end", f"{e.__class__.__name__}: {e}")
        timings.append(f"{part} {time.time() - t0:.0f} s")
    print("timings: " + ", ".join(timings))
    print(f"nginx-module: {driver.passed} passed, {driver.failed} failed, {driver.skipped} skipped")
    return 0 if driver.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
