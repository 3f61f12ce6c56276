"""The forward-auth guide's configurations (docs/FORWARD-AUTH.md, linked from the README), as the test runs them: the agent's command line, and the Traefik and
Envoy configurations verbatim (only addresses and ports replaced), so the README cannot drift from what works.
The README marks each fenced block the test reads with a `<!-- forward-auth-test: NAME -->` line before it."""

import atexit
import os
import re
import shlex
import subprocess

import driver   # its check(): forward_auth_test.py's tally (the caller put nginx/ and IntegrationTests/ on sys.path)
from support.keepalive import Client
from support.loopback_server import free_port
from support.waiting import wait_for

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "FORWARD-AUTH.md")
# The addresses the README's texts use, replaced by the test's.
AGENT = "127.0.0.1:9180"
GRPC_AGENT = "127.0.0.1:9181"   # the guide's --grpc-listen address, for Envoy's ext_authz over gRPC
UPSTREAM = "127.0.0.1:8080"
# The gateways started here, killed at exit if the test stops before it terminates them.
children = []
atexit.register(lambda: [p.kill() for p in children if p.poll() is None])


def blocks(path=README):
    """{NAME: the fenced block's text} for every block marked `<!-- forward-auth-test: NAME -->`."""
    text = open(path).read()
    return {m.group(1): m.group(2)
            for m in re.finditer(r"<!-- forward-auth-test: ([\w-]+) -->\n```[a-z]*\n(.*?)```\n", text, re.S)}


def agent_options(block):
    """The options of the README's `jwtk-forward-auth ...` command (continuation lines joined)."""
    line = next(ln for ln in block.replace("\\\n", " ").splitlines() if ln.startswith("jwtk-forward-auth "))
    return shlex.split(line)[1:]


def without(options, *names):
    """`options` less the named options and their values."""
    out, skip = [], False
    for o in options:
        if skip:
            skip = False
        elif o in names:
            skip = True
        else:
            out.append(o)
    return out


def printed(binary, options, gateway):
    """The agent's --print-gateway-config text for the README's options."""
    r = subprocess.run([binary, *options, "--print-gateway-config", gateway], capture_output=True, text=True,
                       timeout=30)
    return r.stdout if r.returncode == 0 else f"rc={r.returncode} {r.stderr}"


def the_readmes(b, gateway):
    """What the README shows for a gateway: Traefik's two files in the order the agent prints them."""
    if gateway == "traefik":
        return b["traefik-static"] + "\n" + b["traefik-dynamic"]
    return b[gateway]


def substituted(text, pairs):
    """`text` with each (old, new) replaced; an `old` missing from the README's text is an error, not a no-op."""
    for old, new in pairs:
        if old not in text:
            raise ValueError(f"the README's block no longer contains {old!r}")
        text = text.replace(old, new)
    return text


def _started(name, proc, log, port):
    """A gateway that answers a tokenless request with 401 (through the agent) within 15 s."""
    c = Client(port)
    ok = wait_for(lambda: c.get("/echo/x")[0] == 401, 15)
    if not driver.check(ok, f"{name}: started on the README's configuration",
                        open(log, errors="replace").read()[-1500:]):
        proc.kill()
        return None, None
    return proc, c


def traefik(binary, w, b, agent_port, echo_port):
    port = free_port()
    static = substituted(b["traefik-static"], [('":8000"', f'"127.0.0.1:{port}"'),
                                               ("/etc/traefik/dynamic.yml", f"{w}/traefik-dynamic.yml")])
    dynamic = substituted(b["traefik-dynamic"], [(AGENT, f"127.0.0.1:{agent_port}"),
                                                 (UPSTREAM, f"127.0.0.1:{echo_port}")])
    with open(f"{w}/traefik.yml", "w") as f:
        f.write(static)
    with open(f"{w}/traefik-dynamic.yml", "w") as f:
        f.write(dynamic)
    log = f"{w}/traefik.log"
    proc = subprocess.Popen([binary, f"--configfile={w}/traefik.yml"], stdout=open(log, "w"), stderr=subprocess.STDOUT)
    children.append(proc)
    return _started("traefik", proc, log, port)


def envoy(binary, w, b, agent_port, echo_port, block="envoy"):
    """Envoy on the guide's `envoy` block (ext_authz over HTTP to the agent's --listen port) or `envoy-grpc` (over
    gRPC to its --grpc-listen port: pass that port as agent_port)."""
    port = free_port()
    agent = [("port_value: 9181", f"port_value: {agent_port}")] if block == "envoy-grpc" else \
        [(AGENT, f"127.0.0.1:{agent_port}"), ("port_value: 9180", f"port_value: {agent_port}")]
    config = substituted(b[block], [("0.0.0.0, port_value: 8000", f"127.0.0.1, port_value: {port}"), *agent,
                                    ("port_value: 8080", f"port_value: {echo_port}")])
    return _started(block, *start_envoy(binary, w, block, config), port=port)


def start_envoy(binary, w, name, config):
    """Envoy on a configuration of the guide's (YAML text, written to w/NAME.yaml), one worker, its output in
    w/NAME.log, killed at exit if the test stops first: (process, log path). Not envoy/envoy_process.py's Envoy,
    which writes its own bootstrap as JSON and loads the jwt-kernel module: here the guide's text runs as written."""
    with open(f"{w}/{name}.yaml", "w") as f:
        f.write(config)
    log = f"{w}/{name}.log"
    # No hot restart: no shared memory region that another Envoy on the machine could hold.
    proc = subprocess.Popen([binary, "-c", f"{w}/{name}.yaml", "--concurrency", "1", "--disable-hot-restart",
                             "-l", "warning"], stdout=open(log, "w"), stderr=subprocess.STDOUT)
    children.append(proc)
    return proc, log
