"""The forward-auth agent (issue 20 section 3) behind Debian's Caddy (`forward_auth`) and nginx
(`auth_request`), Traefik (`forwardAuth`) and Envoy (`ext_authz`) on loopback, against a loopback JWKS server;
then a short load run beside the native nginx module. The agent's options and the Caddy, Traefik and Envoy
configurations are the README's (readme_gateways.py), which must also be what `--print-gateway-config` prints.
Run by run.sh, which installs the packages, builds the agent and the module and makes the venv:

    forward_auth_test.py --agent BIN --module SO --traefik BIN --envoy BIN --work DIR --load SECONDS

Ends with the line other tools read:
forward-auth: checks=N failed=F wrong_answers=W rps_caddy=A rps_nginx_auth_request=B rps_module=C

Uses the gateway harnesses' kit (IntegrationTests/support: the keep-alive client, the raw request, the loopback
server, keys and tokens, wait_for, wrk rounds) and the nginx test's driver.py for its check tally (driver.passed and
driver.failed count this program's checks too), its JWKS server and echoed().
"""

import argparse
import difflib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "nginx"))
import driver  # noqa: E402
import readme_gateways  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "verdicts"))
import verdicts  # noqa: E402  (the verdict corpus's runner for the agent)
from driver import JWKS, check, echoed  # noqa: E402
from support import http_raw, load  # noqa: E402
from support.keepalive import Client  # noqa: E402
from support.loopback_server import free_port, serve  # noqa: E402
from support.processes import children, stop  # noqa: E402
from support.tokens import Key, token  # noqa: E402
from support.waiting import wait_for  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402

ISSUER = "https://issuer.test"
DOWN = "https://down.test"        # its key URL answers nothing: 503 until keys come
AUDIENCE = "api"
REALM = "api"
CHALLENGE = f'Bearer realm="{REALM}"'
INVALID = f'Bearer realm="{REALM}", error="invalid_token"'
ROLES = "https://example.com/roles"
CLAIM_HEADERS = ["X-Jwt-Sub", "X-Jwt-Email", "X-Jwt-Roles"]   # the README's agent command must answer these
GATEWAYS = ("caddy", "nginx", "traefik", "envoy")   # and envoy-grpc: the same guide, the agent's --grpc-listen

wrong_answers = 0


# The upstream (support/loopback_server.py's serve(echo)): echoes the request headers it received, one
# "Name: value" per line, as the nginx test's echo location does (driver.echoed reads both). ---------------

def echo(req):
    return 200, {}, "".join(f"{k}: {v}\n" for k, v in req.headers.items()).encode()


# The agent ------------------------------------------------------------------------------------------------

class Agent:
    def __init__(self, binary, w, config_path, options, name="agent", grpc=False):
        """options: the guide's agent command's claim headers and token sources (and any other option). grpc:
        also serve ext_authz over gRPC (--grpc-listen) on grpc_port."""
        self.port = free_port()
        self.grpc_port = free_port() if grpc else None
        self.log_path = f"{w}/{name}.log"
        args = [binary, "--issuer-config", config_path, "--listen", f"127.0.0.1:{self.port}", *options,
                "--unknown-kid-cooldown", "1", "--log-level", "debug"]
        if grpc:
            args += ["--grpc-listen", f"127.0.0.1:{self.grpc_port}"]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(self.log_path, "w"), text=True)
        self.client = Client(self.port)
        # One line per listener, in the order they come up.
        lines = [self.proc.stdout.readline().strip() for _ in range(2 if grpc else 1)]
        self.listening = next((ln for ln in lines if "gRPC" not in ln), "")
        self.grpc_listening = next((ln for ln in lines if "gRPC" in ln), "")

    def health(self):
        s, _, body = self.client.get("/healthz")
        return s, json.loads(body)

    def stop(self):
        return stop(self.proc, timeout=15)   # SIGTERM: the service group's graceful shutdown


# Key URLs that accept the connection and never answer. -------------------------------
# Not the kit's loopback server: that one answers every request it reads, and these must never read one (the
# connections stay open, held here, so the agent's fetches hang until its own timeout or its shutdown).

class Silent:
    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.held = []   # accepted connections, kept open and never read or answered

        def accept():
            while True:
                try:
                    self.held.append(self.sock.accept()[0])
                except OSError:
                    return
        threading.Thread(target=accept, daemon=True).start()


def shutdown_with_hanging_keys(binary, w):
    """SIGTERM while every key URL of two issuers hangs: the agent exits within KeyRefresher.stop()'s bound
    (1 s; checked under 2 s) instead of waiting out its fetches (30 s timeout here, and more fetches after)."""
    silent = Silent()
    config = {"issuers": [{"issuer": f"https://hang-{n}.test", "jwks_url": f"http://127.0.0.1:{silent.port}/{n}",
                           "audiences": [AUDIENCE]} for n in ("a", "b")]}
    with open(f"{w}/hanging.json", "w") as f:
        json.dump(config, f)
    agent = Agent(binary, w, f"{w}/hanging.json", ["--fetch-timeout", "30"], name="agent-hanging")
    hanging = wait_for(lambda: len(silent.held) >= 1, 10)
    start = time.monotonic()
    rc = agent.stop()
    took = time.monotonic() - start
    print(f"      agent: SIGTERM to exit with every key URL hanging: {took * 1e3:.0f} ms")
    check(hanging and rc == 0 and took < 2, "agent: SIGTERM with every key URL hanging exits within 2 s",
          f"fetch hanging: {hanging}, rc={rc}, {took:.2f} s")
    silent.sock.close()


# The gateways ---------------------------------------------------------------------------------------------

def caddyfile(block, port, agent_port, echo_port):
    """The README's Caddyfile on the test's ports, with the test's global options and a load route (the load
    rows answer there, so they compare the checks rather than the echo upstream)."""
    site = readme_gateways.substituted(block, [
        ("example.com {", f"http://127.0.0.1:{port} {{"), (readme_gateways.AGENT, f"127.0.0.1:{agent_port}"),
        (f"        reverse_proxy {readme_gateways.UPSTREAM}",
         f'        @load path /load/*\n        respond @load "ok" 200\n        reverse_proxy 127.0.0.1:{echo_port}')])
    return "{\n    admin off\n    auto_https off\n}\n" + site


def nginx_conf(block, w, port, agent_port, echo_port, jwks_port, module):
    """The README's two locations in a server of the test, with keep-alive to the agent and the echo upstream
    (their upstream blocks), as the load rows were measured. /load/ serves a static file, so the rows compare
    the checks."""
    keepalive = 'proxy_http_version 1.1; proxy_set_header Connection "";'
    locations = readme_gateways.substituted(block, [
        ("proxy_pass http://backend;", f"proxy_pass http://echo; {keepalive}"),
        (f"proxy_pass http://{readme_gateways.AGENT}/auth;", f"proxy_pass http://agent/auth; {keepalive}")])
    return f"""worker_processes 1;
master_process on;
daemon off;
pid {w}/nginx.pid;
error_log {w}/nginx-error.log warn;
load_module {module};
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {w}/tmp/body; proxy_temp_path {w}/tmp/proxy; fastcgi_temp_path {w}/tmp/fcgi;
  uwsgi_temp_path {w}/tmp/uwsgi; scgi_temp_path {w}/tmp/scgi;
  upstream agent {{ server 127.0.0.1:{agent_port}; keepalive 32; }}
  upstream echo {{ server 127.0.0.1:{echo_port}; keepalive 16; }}
  server {{
    listen 127.0.0.1:{port};
    root {w}/www;
{locations}
    location = /load/nocheck {{ }}
    location = /load/agent {{ auth_request /_auth; try_files /load/ok =404; }}
    location = /load/module {{
      auth_jwt "{REALM}"; jwtk_key_url http://127.0.0.1:{jwks_port}/jwks;
      jwtk_issuer {ISSUER}; jwtk_audience {AUDIENCE}; jwtk_algorithms RS256 ES256;
      try_files /load/ok =404;
    }}
  }}
}}
"""


# Checks ---------------------------------------------------------------------------------------------------

def matrix(keys, now):
    """(name, token, status, challenge, claims the upstream must see or None). challenge: the exact
    WWW-Authenticate value, or None for none expected."""
    rs, es, other = keys["rs1"], keys["es1"], keys["stranger"]

    def claims(**extra):
        c = {"iss": ISSUER, "sub": "user-1", "aud": AUDIENCE, "iat": now - 10, "exp": now + 3600,
             "email": "u1@example.com", ROLES: ["admin", "dev"]}
        c.update(extra)
        return {k: v for k, v in c.items() if v is not None}

    none_header = {"alg": "none", "typ": "JWT"}
    unsigned = token(rs, claims(), header=none_header).rsplit(".", 1)[0] + "."
    return [
        ("valid RS256", token(rs, claims()), 200, None,
         {"x-jwt-sub": "user-1", "x-jwt-email": "u1@example.com", "x-jwt-roles": "admin,dev"}),
        ("valid ES256, no email claim", token(es, claims(email=None, sub="user-2")), 200, None,
         {"x-jwt-sub": "user-2", "x-jwt-email": None, "x-jwt-roles": "admin,dev"}),
        ("no token", None, 401, CHALLENGE, None),
        ("expired", token(rs, claims(exp=now - 600, iat=now - 4000)), 401, INVALID, None),
        ("not yet valid", token(rs, claims(nbf=now + 600)), 401, INVALID, None),
        ("wrong audience", token(rs, claims(aud="other")), 401, f'Bearer realm="{REALM}", error="invalid_token"', None),
        ("unknown issuer", token(rs, claims(iss="https://evil.test")), 401, INVALID, None),
        ("signed by a stranger's key under a known kid", token(rs, claims(), sign_with=other), 401, INVALID, None),
        ("alg none", unsigned, 401, INVALID, None),
        ("garbage", "not.a.jwt", 401, INVALID, None),
        ("issuer without keys yet", token(rs, claims(iss=DOWN)), 503, None, None),
    ]


def run_matrix(label, client, cases, gateway):
    """One gateway's verdicts. nginx's auth_request passes a 401's WWW-Authenticate on, answers 403 without
    the agent's headers and 500 for any other status (its documented behaviour): those are what it must give."""
    global wrong_answers
    for name, tok, status, www, claims in cases:
        want_status, want_www = status, www
        if gateway == "nginx":
            if status == 403:
                want_www = None
            elif status not in (200, 401):
                want_status, want_www = 500, None
        headers = {h: "forged-by-client" for h in CLAIM_HEADERS}
        s, h, body = client.get("/echo/x", token=tok, headers=headers)
        ok = s == want_status and h.get("www-authenticate") == want_www
        got = echoed(body) if s == 200 else {}
        if claims is not None and s == 200:
            for k, v in claims.items():
                seen = got.get(k)
                # A claim the token lacks: the agent answers the header empty; the gateway sends it empty
                # (Caddy, Traefik, Envoy: the README tells upstreams to read that as absent) or drops it
                # (nginx; Envoy over gRPC, where the agent's answer removes it), never a client's copy or a
                # placeholder.
                ok = ok and seen == ([v] if v is not None else None if gateway in ("nginx", "envoy-grpc") else [""])
        if s == 200 and want_status != 200 or s != 200 and want_status == 200:
            wrong_answers += 1
        check(ok, f"{label}: {name} -> {want_status}" + (f" {want_www}" if want_www else ""),
              f"got {s} www={h.get('www-authenticate')!r} upstream saw "
              f"{ {k: got.get(k) for k in ('x-jwt-sub', 'x-jwt-email', 'x-jwt-roles', 'authorization')} }")
        if s == 200:
            forged = [k for k in ("x-jwt-sub", "x-jwt-email", "x-jwt-roles") if "forged-by-client" in got.get(k, [])]
            check(not forged, f"{label}: {name}: client-sent claim headers never reach the upstream", str(forged))


def run_edges(label, client, valid):
    """What a client can try beside the token: look-alike spellings of the claim headers (CGI, WSGI and PHP
    upstreams read X_Jwt_Sub as X-Jwt-Sub) and other letter cases, and /metrics, which must reach the upstream
    after the check rather than be answered by the agent's metrics endpoint."""
    forged = {"X_Jwt_Sub": "forged-underscore", "X_JWT_ROLES": "forged-underscore", "x-JWT-sub": "forged-case",
              "X-JWT-ROLES": "forged-case", "x-jwt-email": "forged-case"}
    s, _, body = client.get("/echo/x", token=valid, headers=forged)
    got = echoed(body) if s == 200 else {}
    aliased = {k: v for k, v in got.items()
               if k.replace("_", "-") in ("x-jwt-sub", "x-jwt-email", "x-jwt-roles") and any("forged" in x for x in v)}
    check(s == 200 and not aliased and got.get("x-jwt-sub") == ["user-1"] and got.get("x-jwt-roles") == ["admin,dev"]
          and got.get("x-jwt-email") == ["u1@example.com"],
          f"{label}: look-alike (X_Jwt_Sub) and mixed-case claim headers never reach the upstream",
          f"{s} {aliased} { {k: got.get(k) for k in ('x-jwt-sub', 'x-jwt-email', 'x-jwt-roles')} }")
    s, h, _ = client.get("/metrics")
    check(s == 401 and h.get("www-authenticate") == CHALLENGE,
          f"{label}: GET /metrics without a token is refused, not answered by the agent's metrics", f"{s} {h}")
    s, _, body = client.get("/metrics", token=valid)
    check(s == 200 and "# TYPE" not in body and echoed(body).get("x-jwt-sub") == ["user-1"],
          f"{label}: GET /metrics with a token reaches the upstream", f"{s} {body[:200]!r}")


def readme_checks(a, b):
    """The README's agent command and its gateway texts: what --print-gateway-config prints for that command."""
    options = readme_gateways.agent_options(b["agent"])
    claims = [options[i + 1].split("=", 1)[0] for i, o in enumerate(options) if o == "--claim-header"]
    check(claims == CLAIM_HEADERS, "guide: the agent command answers the claim headers the test checks",
          str(claims))
    for g in GATEWAYS:
        got, want = readme_gateways.printed(a.agent, options, g), readme_gateways.the_readmes(b, g)
        check(got == want, f"guide: the {g} configuration is what --print-gateway-config {g} prints",
              "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "docs/FORWARD-AUTH.md", "printed", lineterm="")))
    got = readme_gateways.printed(a.agent, [*options, "--grpc-listen", readme_gateways.GRPC_AGENT], "envoy-grpc")
    check(got == b["envoy-grpc"],
          "guide: the envoy-grpc configuration is what --print-gateway-config envoy-grpc prints with --grpc-listen",
          "\n".join(difflib.unified_diff(b["envoy-grpc"].splitlines(), got.splitlines(), "docs/FORWARD-AUTH.md",
                                         "printed", lineterm="")))
    r = subprocess.run([a.agent, *options, "--print-gateway-config", "envoy-grpc"], capture_output=True, text=True,
                       timeout=30)
    check(r.returncode != 0 and "--grpc-listen" in r.stderr,
          "agent: --print-gateway-config envoy-grpc without --grpc-listen is refused", f"rc={r.returncode} {r.stderr}")
    return readme_gateways.without(options, "--issuer-config", "--listen")


def verdicts_through_envoy_grpc(binary, envoy, w, b):
    """The verdict corpus (verdicts.run_gateway) through Envoy's ext_authz over gRPC: one agent per corpus
    configuration (its issuer file the configuration plus a loopback "jwks_url" mirror, as
    verdicts.run_forward_auth asks the agent directly) behind one Envoy with a listener per configuration, each
    the guide's envoy-grpc listener and cluster (names and ports changed). The status, the challenge's error=
    and the claim headers the upstream gets are compared with the corpus, as for every other front end; the HMAC
    configuration is skipped (an issuer file pulls keys, secrets are never served)."""
    doc, server, upstream = verdicts.load(), verdicts.KeyServer(), serve(echo)
    headers = {"x-jwt-iss": "iss", "x-jwt-sub": "sub", "x-jwt-roles": "/roles"}
    names = [n for n, c in doc["configurations"].items() if not c.get("secret")]
    agents, ports = [], {}
    listeners_part, clusters_part = b["envoy-grpc"].split("  clusters:\n")
    listeners_part = listeners_part.split("  listeners:\n")[1]
    agent_cluster, api_cluster = clusters_part.split("  - name: api\n")
    listeners, clusters = [], []
    proc = None
    try:
        for i, name in enumerate(names):
            path = f"{w}/verdicts-grpc-{name}.json"
            with open(path, "w") as f:
                json.dump({"issuers": [server.entry(doc["configurations"][name])]}, f)
            options = [o for h, c in headers.items() for o in ("--claim-header", f"{h}={c}")]
            ag = Agent(binary, w, path, options + ["--log-level", "error"], name=f"agent-verdicts-{name}", grpc=True)
            agents.append(ag)
            ports[name] = free_port()
            listeners.append(readme_gateways.substituted(listeners_part, [
                ("- name: web\n", f"- name: web-{i}\n"), ("stat_prefix: web\n", f"stat_prefix: web_{i}\n"),
                ("0.0.0.0, port_value: 8000", f"127.0.0.1, port_value: {ports[name]}"),
                ("cluster_name: jwtk_forward_auth_grpc}", f"cluster_name: agent_{i}}}")]))
            clusters.append(readme_gateways.substituted(agent_cluster, [
                ("jwtk_forward_auth_grpc", f"agent_{i}"),   # the cluster's name and load_assignment's
                ("port_value: 9181", f"port_value: {ag.grpc_port}")]))
        config = ("static_resources:\n  listeners:\n" + "".join(listeners) + "  clusters:\n" + "".join(clusters)
                  + "  - name: api\n" + readme_gateways.substituted(api_cluster, [("port_value: 8080",
                                                                                   f"port_value: {upstream.server_address[1]}")]))
        proc, log = readme_gateways.start_envoy(envoy, w, "envoy-grpc-verdicts", config)
        for ag in agents:
            wait_for(lambda: ag.client.get("/healthz")[0] == 200, 15, 0.05)
        clients = {n: Client(p) for n, p in ports.items()}
        if not wait_for(lambda: all(c.get("/echo/x")[0] == 401 for c in clients.values()), 15):
            print(open(log, errors="replace").read()[-1500:])
            return False

        def send(case):
            s, h, body = clients[case["configuration"]].get("/echo/x", token=case["token"])
            seen = echoed(body) if s == 200 else {}
            claims = {c: (seen[k][0] if seen.get(k) else None) for k, c in headers.items()}
            return s, h.get("www-authenticate"), claims, None

        # The agent's decision, so the forward-auth front end's expectations (and documented differences).
        agreed, problems = verdicts.run_gateway("forward-auth", send, ("routed",),
                                                cases=lambda case, configuration: not configuration.get("secret"))
        for p in problems:
            check(False, "envoy-grpc verdicts: " + p)
        skipped = sum(1 for c in doc["cases"] if doc["configurations"][c["configuration"]].get("secret"))
        print(f"verdicts (envoy-grpc): {agreed} passed, {len(problems)} failed, {skipped} skipped (HMAC: no key file "
              f"in an issuer file)")
        return not problems and agreed > 0
    finally:
        if proc:
            proc.terminate()
            proc.wait(10)
        for ag in agents:
            ag.stop()
        server.close()
        upstream.shutdown()


def repeated_claim_headers(label, port, tok):
    """Two client copies of each claim header: the agent's answer replaces both (OVERWRITE_IF_EXISTS_OR_ADD) or,
    for a claim the token lacks (no email in this token), removes both (headers_to_remove)."""
    forged = [(name, copy) for name in ("X-Jwt-Sub", "X-Jwt-Email", "X-Jwt-Roles") for copy in ("forged-1", "forged-2")]
    status, _, body = http_raw.get(port, "/echo/x", [("Authorization", "Bearer " + tok), *forged])
    got = echoed(body) if status == 200 else {}
    check(status == 200 and got.get("x-jwt-sub") == ["user-2"] and got.get("x-jwt-roles") == ["admin,dev"]
          and "x-jwt-email" not in got,
          f"{label}: two client copies of each claim header: replaced by the token's, or removed when it has none",
          f"{status} { {k: got.get(k) for k in ('x-jwt-sub', 'x-jwt-email', 'x-jwt-roles')} }")


def envoy_default_failure_mode(binary, w, b, dead_port, echo_port):
    """The guide's envoy-grpc configuration without its status_on_error, the agent down: Envoy's own answer for a
    failed authorization call with failure_mode_allow: false is a 403 (the guide sets 503, as in HTTP mode)."""
    port = free_port()
    config = readme_gateways.substituted(b["envoy-grpc"], [
        ("              status_on_error: {code: 503}\n", ""),
        ("0.0.0.0, port_value: 8000", f"127.0.0.1, port_value: {port}"),
        ("port_value: 9181", f"port_value: {dead_port}"), ("port_value: 8080", f"port_value: {echo_port}")])
    proc, log = readme_gateways.start_envoy(binary, w, "envoy-grpc-default", config)
    client, got = Client(port), []
    ok = wait_for(lambda: got.append(client.get("/echo/x", token="x")[0]) or got[-1] == 403, 15, 0.2)
    check(ok, "envoy-grpc without status_on_error: agent down -> 403 (Envoy's default), nothing passes",
          f"{got[-3:]} {open(log, errors='replace').read()[-600:]}")
    proc.terminate()
    proc.wait(10)


def non_utf8_header(label, port, tok):
    """A header value that is not UTF-8 (a Latin-1 byte; HTTP allows obs-text) beside a valid token: the gRPC
    CheckRequest carries headers as proto3 strings, and the call must still be decided on the token (200), not
    fail as an undecodable message."""
    status, _, body = http_raw.get(port, "/echo/x", [("Authorization", "Bearer " + tok), ("X-Junk", b"caf\xe9")])
    got = echoed(body) if status == 200 else {}
    check(status == 200 and got.get("x-jwt-sub") == ["user-2"],
          f"{label}: a header value that is not UTF-8 beside a valid token is answered on the token (200)",
          f"{status} {got.get('x-jwt-sub')}")


def grpc_direct(agent, w):
    """Calls Envoy would never make, straight to the agent's gRPC listener over HTTP/2 with prior knowledge (curl,
    nghttp2): each ends with a gRPC error status in the trailers (or 415 for a body that is not gRPC), never a
    crash or a guess, and the agent keeps serving."""
    path = "/envoy.service.auth.v3.Authorization/Check"

    def call(body, url_path=path, content_type="application/grpc"):
        with open(f"{w}/grpc-body", "wb") as f:
            f.write(body)
        r = subprocess.run(["curl", "-s", "--http2-prior-knowledge", "-D", "-", "-o", "/dev/null", "-X", "POST",
                            "-H", f"content-type: {content_type}", "-H", "te: trailers", "--data-binary",
                            f"@{w}/grpc-body", f"http://127.0.0.1:{agent.grpc_port}{url_path}"],
                           capture_output=True, text=True, timeout=20)
        status = re.search(r"^HTTP/2 (\d+)", r.stdout, re.M)
        grpc = re.search(r"^grpc-status: (\d+)", r.stdout, re.M)
        return (int(status.group(1)) if status else None), (grpc.group(1) if grpc else None), r.stdout

    frame = lambda flag, payload: bytes([flag]) + len(payload).to_bytes(4, "big") + payload
    for name, body, want in (("an empty body", b"", "3"), ("bytes that are not a CheckRequest", frame(0, b"\xff\xff"), "3"),
                             ("a compressed message", frame(1, b"\x0a\x00"), "12"),
                             ("a length prefix over 1 MiB", b"\x00\x7f\xff\xff\xff", "8"),
                             ("two messages", frame(0, b"") * 2, "3")):
        st, grpc, out = call(body)
        check(st == 200 and grpc == want, f"agent gRPC: {name} ends with grpc-status {want}", out[-400:])
    st, grpc, out = call(frame(0, b""), url_path="/envoy.service.auth.v2.Authorization/Check")
    check(st == 200 and grpc == "12", "agent gRPC: another method ends with grpc-status 12 (UNIMPLEMENTED)",
          out[-400:])
    st, _, out = call(frame(0, b""), content_type="application/json")
    check(st == 415, "agent gRPC: a body that is not gRPC is answered 415", out[-400:])
    # An empty CheckRequest is a well-formed call: no token, so the answer is a denial inside grpc-status 0.
    st, grpc, out = call(frame(0, b""))
    check(st == 200 and grpc == "0", "agent gRPC: an empty CheckRequest is answered (a denial), grpc-status 0",
          out[-400:])


def main():
    global wrong_answers
    p = argparse.ArgumentParser()
    p.add_argument("--agent", required=True)
    p.add_argument("--module", required=True)
    p.add_argument("--traefik", required=True)
    p.add_argument("--envoy", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--load", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    started_at = time.time()
    w = a.work
    os.makedirs(f"{w}/tmp", exist_ok=True)
    os.makedirs(f"{w}/www/load", exist_ok=True)
    with open(f"{w}/www/load/ok", "w") as f:
        f.write("ok\n")
    with open(f"{w}/www/load/nocheck", "w") as f:
        f.write("ok\n")
    now = int(time.time())

    keys = {
        "rs1": Key("rs1", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048)),
        "rs2": Key("rs2", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048)),
        "es1": Key("es1", "ES256", ec.generate_private_key(ec.SECP256R1())),
    }
    keys["stranger"] = Key("rs1", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))
    jwks_body = json.dumps({"keys": [keys["rs1"].jwk(), keys["es1"].jwk()]})
    rotated_body = json.dumps({"keys": [keys["rs2"].jwk(), keys["es1"].jwk()]})
    jwks = JWKS(jwks_body)
    jwks.max_age = 300
    dead_port = free_port()
    config = {"issuers": [
        {"issuer": ISSUER, "jwks_url": f"http://127.0.0.1:{jwks.port}/jwks", "audiences": [AUDIENCE],
         "algorithms": ["RS256", "ES256"]},
        {"issuer": DOWN, "jwks_url": f"http://127.0.0.1:{dead_port}/jwks", "audiences": [AUDIENCE]},
    ]}
    with open(f"{w}/issuers.json", "w") as f:
        json.dump(config, f)

    # A configuration the agent must refuse, naming the member, before it listens.
    with open(f"{w}/bad.json", "w") as f:
        json.dump({"issuers": [{"issuer": ISSUER, "jwks_url": "http://127.0.0.1:1/jwks", "audience": ["x"]}]}, f)
    bad = subprocess.run([a.agent, "--issuer-config", f"{w}/bad.json"], capture_output=True, text=True, timeout=30)
    check(bad.returncode != 0 and 'unknown member "audience"' in bad.stderr,
          "agent: an unknown configuration member is refused by name, exit status not 0",
          f"rc={bad.returncode} {bad.stderr[-300:]}")
    # A provider preset without its audience would pass that provider's ID tokens of every application.
    for entry, words in (({"provider": "google"}, "OAuth client ID"),
                         ({"provider": "apple", "audiences": [""]}, "empty audience")):
        with open(f"{w}/bad.json", "w") as f:
            json.dump({"issuers": [entry]}, f)
        bad = subprocess.run([a.agent, "--issuer-config", f"{w}/bad.json"], capture_output=True, text=True,
                             timeout=30)
        check(bad.returncode != 0 and words in bad.stderr,
              f"agent: provider {entry['provider']} without an audience refused before it listens",
              f"rc={bad.returncode} {bad.stderr[-300:]}")
    bad = subprocess.run([a.agent, "--issuer-config", f"{w}/issuers.json", "--claim-header", "X Bad=sub"],
                         capture_output=True, text=True, timeout=30)
    check(bad.returncode != 0 and "--claim-header" in bad.stderr, "agent: a bad --claim-header is refused",
          bad.stderr[-300:])

    # The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json), asked of the agent directly.
    t_verdicts = time.time()
    check(verdicts.run_forward_auth(a.agent), "agent: every case of the verdict corpus as the corpus says")
    print(f"      verdict corpus: {time.time() - t_verdicts:.1f} s")

    b = readme_gateways.blocks()
    options = readme_checks(a, b)
    t_verdicts = time.time()
    check(verdicts_through_envoy_grpc(a.agent, a.envoy, w, b), "envoy-grpc: every case of the verdict corpus as "
          "the corpus says, through Envoy's ext_authz over gRPC")
    print(f"      verdict corpus through envoy-grpc: {time.time() - t_verdicts:.1f} s")
    agent = Agent(a.agent, w, f"{w}/issuers.json", options, grpc=True)
    check("listening on" in agent.listening, "agent: prints where it listens", agent.listening)
    check(f"127.0.0.1:{agent.grpc_port}" in agent.grpc_listening, "agent: prints where its gRPC listener listens",
          agent.grpc_listening)
    grpc_direct(agent, w)
    ok = wait_for(lambda: agent.health()[1]["issuers_without_keys"] == [DOWN], 15)
    s, health = agent.health()
    check(ok and s == 503, "agent: /healthz 503 naming only the issuer whose keys never came", f"{s} {health}")

    # Direct: the agent's own answers, and its token sources.
    valid = matrix(keys, now)[0][1]
    s, h, _ = agent.client.get("/auth", token=valid)
    check(s == 200 and h.get("x-jwt-sub") == "user-1" and h.get("x-jwt-roles") == "admin,dev",
          "agent: 200 with the claim headers", f"{s} {h}")
    s, h, _ = agent.client.get("/auth/some/original/path", headers={"Cookie": f"theme=dark; id_token={valid}"})
    check(s == 200 and h.get("x-jwt-sub") == "user-1", "agent: the token from the id_token cookie", f"{s} {h}")
    s, h, _ = agent.client.get("/auth", token="bad", headers={"Cookie": f"id_token={valid}"})
    check(s == 401 and h.get("www-authenticate") == INVALID,
          "agent: a bad Authorization token is refused, not passed over for the cookie's", f"{s} {h}")
    s, _, _ = agent.client.get("/not-auth", token=valid)
    check(s == 404, "agent: paths outside /auth, /healthz and /metrics are 404", str(s))
    s, h, _ = agent.client.get("/auth", token=valid + "x" * 20000)
    check(s in (401, 431), "agent: a 20 kB token is refused, the agent keeps serving", str(s))
    check(agent.client.get("/auth", token=valid)[0] == 200, "agent: still serving after the oversized token")
    # Two Authorization headers: read as one value, "Bearer a, Bearer b", which is no token.
    s = http_raw.get(agent.port, "/auth", [("Authorization", "Bearer " + valid)] * 2)[0]
    check(s == 401, "agent: two Authorization headers are refused", str(s))

    upstream = serve(echo)
    echo_port = upstream.server_address[1]
    cases = matrix(keys, now)

    # Caddy.
    times, t0 = {}, time.time()
    cport = free_port()
    with open(f"{w}/Caddyfile", "w") as f:
        f.write(caddyfile(b["caddy"], cport, agent.port, echo_port))
    caddy = subprocess.Popen(["caddy", "run", "--config", f"{w}/Caddyfile", "--adapter", "caddyfile"],
                             stdout=subprocess.DEVNULL, stderr=open(f"{w}/caddy.log", "w"),
                             env={**os.environ, "HOME": w, "XDG_DATA_HOME": f"{w}/caddy-data",
                                  "XDG_CONFIG_HOME": f"{w}/caddy-config"})
    cc = Client(cport)
    if not check(wait_for(lambda: cc.get("/echo/x")[0] == 401, 15), "caddy: started with forward_auth",
                 open(f"{w}/caddy.log").read()[-1500:]):
        caddy.kill()
        caddy = None
    else:
        run_matrix("caddy", cc, cases, "caddy")
        run_edges("caddy", cc, valid)
    times["caddy"] = time.time() - t0

    # nginx.
    t0 = time.time()
    nport = free_port()
    with open(f"{w}/nginx.conf", "w") as f:
        f.write(nginx_conf(b["nginx"], w, nport, agent.port, echo_port, jwks.port, a.module))
    ngx = subprocess.Popen(["nginx", "-p", w, "-c", f"{w}/nginx.conf", "-e", f"{w}/nginx-error.log"],
                           stdout=subprocess.DEVNULL, stderr=open(f"{w}/nginx-stderr.log", "w"))
    nc = Client(nport)
    started = wait_for(lambda: nc.get("/load/nocheck")[0] == 200, 10)
    if check(started, "nginx: started with auth_request and the module", open(f"{w}/nginx-error.log").read()[-1500:]
             if os.path.exists(f"{w}/nginx-error.log") else ""):
        run_matrix("nginx", nc, cases, "nginx")
        run_edges("nginx", nc, valid)
    times["nginx"] = time.time() - t0

    # Traefik and Envoy (ext_authz over HTTP, then over gRPC), on the README's configurations.
    others = {}
    for g, binary, start in (("traefik", a.traefik, readme_gateways.traefik),
                             ("envoy", a.envoy, readme_gateways.envoy),
                             ("envoy-grpc", a.envoy, lambda *x: readme_gateways.envoy(*x, block="envoy-grpc"))):
        t0 = time.time()
        proc, client = start(binary, w, b, agent.grpc_port if g == "envoy-grpc" else agent.port, echo_port)
        if proc:
            others[g] = (proc, client)
            run_matrix(g, client, cases, g)
            run_edges(g, client, valid)
            if g == "envoy-grpc":
                repeated_claim_headers(g, client.port, cases[1][1])
                non_utf8_header(g, client.port, cases[1][1])
        times[g] = time.time() - t0

    # Key rotation through every gateway: rs2 replaces rs1 at the JWKS server.
    jwks.body = rotated_body
    new_tok = token(keys["rs2"], {"iss": ISSUER, "sub": "user-3", "aud": AUDIENCE, "exp": now + 3600})
    old_tok = cases[0][1]
    gateways = [("caddy", cc if caddy else None), ("nginx", nc if started else None),
                 *((g, c) for g, (_, c) in others.items())]
    for label, client in gateways:
        if client is None:
            continue
        got = []
        ok = wait_for(lambda: (got.append(client.get("/echo/x", token=new_tok)) or got[-1][0] == 200), 10, 0.3)
        check(ok and echoed(got[-1][2]).get("x-jwt-sub") == ["user-3"],
              f"{label}: a token of the rotated-in key rs2 is accepted (unknown kid: one refetch)",
              str(got[-1][:2]) if got else "")
        s = client.get("/echo/x", token=old_tok)[0]
        check(s == 401, f"{label}: a token of the rotated-out key rs1 is refused", str(s))
    jwks.body = jwks_body   # rs1 back for the load phase
    check(wait_for(lambda: agent.client.get("/auth", token=old_tok)[0] == 200, 10, 0.5),
          "agent: rs1 accepted again after the set rotates back")

    # Metrics: the verification counters reach /metrics within the reporting interval (1 s).
    time.sleep(1.5)
    s, _, text = agent.client.get("/metrics")
    m = re.search(r'jwtk_verifications_total\{[^}]*issuer="https://issuer.test"[^}]*result="ok"[^}]*\} (\d+)', text) or \
        re.search(r'jwtk_verifications_total\{[^}]*result="ok"[^}]*issuer="https://issuer.test"[^}]*\} (\d+)', text)
    check(s == 200 and m and int(m.group(1)) >= 4, "agent: /metrics counts accepted tokens by issuer",
          text[:600])
    check('jwtk_key_fetches_total' in text and 'reason=' in text,
          "agent: /metrics has key fetches and failures by reason", text[:600])

    # Load: the same RS256 tokens through nginx to the agent (auth_request) and to the native module, and
    # through Caddy; rounds interleaved, medians with the range.
    rps = {"caddy": 0, "nginx_auth_request": 0, "module": 0}
    if a.load > 0 and started:
        tokens_file = load.write_tokens(f"{w}/load-rs256.txt", (token(keys["rs1"], {
            "iss": ISSUER, "sub": f"load-{i}", "aud": AUDIENCE, "exp": now + 3600}) for i in range(2000)))
        wpid = children(ngx.pid)[0]
        rows = [("nocheck", f"http://127.0.0.1:{nport}/load/nocheck", wpid),
                ("module", f"http://127.0.0.1:{nport}/load/module", wpid),
                ("nginx_auth_request", f"http://127.0.0.1:{nport}/load/agent", agent.proc.pid)]
        if caddy:
            rows.append(("caddy", f"http://127.0.0.1:{cport}/load/ok", agent.proc.pid))
        runs = load.rounds([(name, url, tokens_file, pid) for name, url, pid in rows], a.rounds, a.load)
        for name, _, _ in rows:
            r = load.summary(runs[name])
            if name in rps:
                rps[name] = round(r["rps"])
            print(f"      load {name:20s} {r['rps']:7.0f} req/s ({r['rps_min']:.0f}-{r['rps_max']:.0f})  p99 "
                  f"{r['p99_ms']:6.2f} ms  agent/worker CPU {r['cpu_us_per_request']:6.1f} us/request  "
                  f"({r['requests']} requests, {r['non2xx']} non-2xx, {r['socket_errors']} socket errors)")
            wrong_answers += r["non2xx"]
            check(r["non2xx"] == 0 and r["socket_errors"] == 0, f"load {name}: every answer 200, no socket error")
        if rps["module"]:
            print(f"      forward auth through nginx: {rps['nginx_auth_request'] / rps['module']:.2f}x the native "
                  f"module's requests per second")

    # Shutdown: SIGTERM stops the agent cleanly (the service group's graceful shutdown). Then every gateway
    # fails closed: no request passes without the agent.
    rc = agent.stop()
    check(rc == 0, "agent: exits 0 on SIGTERM (graceful shutdown)", f"rc={rc}")
    # Each gateway's status for it; Envoy's two modes: status_on_error (its own default would be a 403).
    down = {"caddy": 502, "nginx": 500, "traefik": 500, "envoy": 503, "envoy-grpc": 503}
    for label, client in gateways:
        if client is not None:
            s, _, _ = client.get("/echo/x", token=old_tok)
            if s == 200:
                wrong_answers += 1
            check(s == down[label], f"{label}: agent down -> {down[label]}, nothing passes", str(s))
    envoy_default_failure_mode(a.envoy, w, b, agent.grpc_port, echo_port)
    for proc in [caddy, ngx if started else None, *(p for p, _ in others.values())]:
        if proc:
            proc.terminate()
            proc.wait(10)
    print("      seconds per gateway (start, checks): " + ", ".join(f"{g} {t:.1f}" for g, t in times.items()))
    log = open(agent.log_path, errors="replace").read()
    check("Fatal error" not in log and "Illegal instruction" not in log, "agent: no crash in its log", log[-800:])
    jwks.server.shutdown()
    shutdown_with_hanging_keys(a.agent, w)

    print(f"== stage times: {os.environ.get('JWTK_STAGE_TIMES', 'builds not timed')}, checks and load "
          f"{time.time() - started_at:.0f} s")
    print(f"forward-auth: checks={driver.passed + driver.failed} failed={driver.failed} wrong_answers={wrong_answers} "
          f"rps_caddy={rps['caddy']} rps_nginx_auth_request={rps['nginx_auth_request']} rps_module={rps['module']}")
    return 1 if driver.failed or wrong_answers else 0


if __name__ == "__main__":
    sys.exit(main())
