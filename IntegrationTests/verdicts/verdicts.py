"""The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json) for the Python runners: the C
library through bindings/python, the CLI (main() below), and the gateway drivers (nginx, Envoy, HAProxy,
forward-auth, Apache). One comparison for all of them, so every front end is held to the same expectation
and a documented difference (a case's "differs") is applied in one place.

A front end answers a case with a dict holding what it can express (the CLI has no HTTP status, a gateway
no status name unless it logs one):
    {"valid": bool, "error": name or None, "http": int, "bearer_error": str or None,
     "claims": {name or /pointer: value as a header shows it}}
and `mismatches(front_end, case, answer)` lists what differs from the corpus ([] when it agrees).

The Swift runners (the Swift API, Hummingbird, Vapor) have the same comparison once, in Swift:
Tests/JWTKernelTestSupport/VerdictAnswer.swift; a change to the rule here is made there too.

Standard library only (the runners run without PyPI)."""

import functools
import http.server
import json
import os
import subprocess
import sys
import threading

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
FIXTURES = os.path.join(ROOT, "Tests/JWTKernelTests/Fixtures/gateway")
PATH = os.path.join(FIXTURES, "verdicts.json")


def load():
    with open(PATH, encoding="utf-8") as f:
        return json.load(f)


def keys_path(configuration):
    return os.path.join(FIXTURES, configuration["keys"])


def expected(case, front_end, groups=()):
    """The answer `front_end` owes for `case`: the corpus's, or its documented difference, a differs entry
    naming this front end or one of its groups: "routed" (it routes by issuer, keys per issuer: an issuer file,
    a keystore loaded per issuer) or else "unrouted" (one key set for any issuer), and "pushed-per-issuer"
    (keys pushed with jwtk_keystore_load_jwks under an issuer: the C library, and gateways on it)."""
    want = {k: case[k] for k in ("valid", "error", "http", "bearer_error")}
    names = {front_end, *groups, *(() if "routed" in groups else ("unrouted",))}
    for d in case.get("differs", []):
        if d["front_end"] in names:
            want.update({k: d[k] for k in ("valid", "error", "http", "bearer_error") if k in d})
    return want


def mismatches(front_end, case, answer, groups=()):
    """What `answer` (see the module's doc) says otherwise than the corpus; [] when it agrees."""
    want = expected(case, front_end, groups)
    out = []
    for k, v in answer.items():
        if k == "claims":
            continue
        if k in want and want[k] != v:
            out.append(f"{k}: {v!r}, expected {want[k]!r}")
    if want["valid"] and "claims" in answer:
        for name, value in case.get("claims", {}).items():
            if name in answer["claims"] and answer["claims"][name] != value:
                out.append(f"claim {name}: {answer['claims'][name]!r}, expected {value!r}")
    return out


def http_answer(status, challenge, claims=None, status_name=None):
    """A gateway's answer from what HTTP carries: the status, the WWW-Authenticate value (its error=), the
    claims it forwarded when valid ({corpus claim: value}), and the status name when the gateway tells it."""
    import re
    m = re.search(r'error="([a-z_]+)"', challenge or "")
    answer = {"valid": status == 200, "http": status, "bearer_error": m.group(1) if m else None}
    if status_name is not None:
        answer["error"] = None if status_name == "ok" else status_name
    if status == 200 and claims is not None:
        answer["claims"] = claims
    return answer


def run_gateway(front_end, send, groups=(), realm="api", cases=None):
    """The whole corpus through an HTTP gateway: the hook for a gateway runner (nginx, Envoy, HAProxy use it;
    Apache's can). `send(case)` sends case["token"] as a bearer token to the gateway's location for
    case["configuration"] and returns (status, WWW-Authenticate value or None, {corpus claim: forwarded
    value} or None, status name or None). Also checks that a 401 or 403 carries a challenge of `realm`.
    `cases`: a predicate on the case and its configuration, for a front end that cannot express some (the
    caller reports them skipped, with the reason). Returns (agreed, [problem lines])."""
    agreed, problems = 0, []
    doc = load()
    for case in doc["cases"]:
        if cases is not None and not cases(case, doc["configurations"][case["configuration"]]):
            continue
        status, challenge, claims, name = send(case)
        found = mismatches(front_end, case, http_answer(status, challenge, claims, name), groups)
        if status in (401, 403) and not (challenge or "").startswith(f'Bearer realm="{realm}"'):
            found.append(f"challenge {challenge!r}")
        if found:
            problems.append(f"{case['name']} [{case['configuration']}]: {'; '.join(found)}")
        else:
            agreed += 1
    return agreed, problems


def header_value(value):
    """A claim as a header shows it (jwtk_claim_at with JWTK_AT_JOIN): strings as they are, an array of
    scalars joined by ',', anything else its compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value):
        return ",".join(v if isinstance(v, str) else json.dumps(v) for v in value)
    return json.dumps(value, separators=(",", ":"))


def claim_of(claims, name):
    """The value of `name` (a claim name, or an RFC 6901 pointer starting with /) in a claims dict."""
    if not name.startswith("/"):
        return claims.get(name)
    node = claims
    for step in name[1:].split("/"):
        step = step.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or step not in node:
            return None
        node = node[step]
    return node


class KeyServer:
    """The fixture directory over HTTP on loopback: the "jwks_url" mirror pulling front ends fetch."""

    def __init__(self):
        handler = functools.partial(Quiet, directory=FIXTURES)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def entry(self, configuration):
        """The configuration as an issuer file entry pulling its keys from this server."""
        return dict(configuration["config"], jwks_url=self.base + configuration["keys"])

    def close(self):
        self.server.shutdown()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def cli_options(configuration):
    """A configuration as `jwtk verify` options with its key file (--jwks), or None when a member has no
    option. Without a provider: one key set for any issuer (unrouted); with one, the preset's routes over the
    file's keys (routed)."""
    cfg = configuration["config"]
    args = ["--jwks", keys_path(configuration)]
    for member, value in cfg.items():
        values = value if isinstance(value, list) else [value]
        if member in ("issuers", "audiences", "algorithms", "required_claims", "provider", "tenant"):
            flag = {"issuers": "--iss", "audiences": "--aud", "algorithms": "--alg", "required_claims": "--require",
                    "provider": "--provider", "tenant": "--tenant"}[member]
            args += [a for v in values for a in (flag, v)]
        elif member == "project_id":
            args += ["--aud", value]   # Firebase's audience is its project
        elif member == "claims":
            for r in value:
                op = next(o for o in ("equals", "one_of", "contains_all", "contains_any") if o in r)
                vals = r[op] if isinstance(r[op], list) else [r[op]]
                args += [a for v in vals for a in ("--claim-" + op.replace("_", "-"), f"{r['pointer']}={v}")]
        else:
            return None
    return args


def run_cli(jwtk):
    """Every case through `jwtk verify`, one process per configuration and way, tokens on stdin: (1)
    --issuer-config with the configuration as written plus a loopback "jwks_url" mirror (routed; not for HMAC
    secrets, which are never fetched); (2) the configuration as options over --jwks (cli_options). The CLI
    has no HTTP status or challenge: the verdict, the status name and the claims are checked."""
    doc, server = load(), KeyServer()
    passed, failed = 0, []
    tmp = os.environ.get("TMPDIR", "/tmp")
    try:
        for name, configuration in doc["configurations"].items():
            cases = [c for c in doc["cases"] if c["configuration"] == name]
            ways = []
            if not configuration.get("secret"):
                path = os.path.join(tmp, f"verdicts-{os.getpid()}-{name}.json")
                with open(path, "w") as f:
                    json.dump({"issuers": [server.entry(configuration)]}, f)
                ways.append(("--issuer-config", ["--issuer-config", path], ("routed",)))
            options = cli_options(configuration)
            if options is not None:
                ways.append(("--jwks", options, ("routed",) if "provider" in configuration["config"] else ()))
            for way, args, groups in ways:
                proc = subprocess.run([jwtk, "verify", *args], input="".join(c["token"] + "\n" for c in cases),
                                      capture_output=True, text=True, timeout=60)
                lines = proc.stdout.splitlines()
                if len(lines) != len(cases):
                    failed.append(f"{name} ({way}): {len(lines)} lines for {len(cases)} tokens (exit "
                                  f"{proc.returncode}): {proc.stderr.strip()[:300]}")
                    continue
                for case, line in zip(cases, lines):
                    r = json.loads(line)
                    answer = {"valid": r["valid"], "error": r.get("error")}
                    if r["valid"]:
                        answer["claims"] = {n: header_value(claim_of(r["claims"], n)) for n in case.get("claims", {})}
                    problems = mismatches("cli", case, answer, groups)
                    if problems:
                        failed.append(f"{case['name']} [{name}, {way}]: {'; '.join(problems)}")
                    else:
                        passed += 1
    finally:
        server.close()
    for f in failed:
        print("FAIL  cli:", f)
    print(f"verdicts (cli): {passed} passed, {len(failed)} failed")
    return not failed


def run_forward_auth(agent):
    """Every case through the forward-auth agent's /auth, asked directly (what Caddy, nginx, Traefik and Envoy
    copy; IntegrationTests/forward-auth checks the copying): one agent per configuration, its issuer file the
    configuration plus a loopback "jwks_url" mirror (routed). HMAC configurations are not expressible (an
    issuer file pulls keys; secrets are never served) and are reported as skipped. Checks the HTTP status,
    the challenge's error= and the claim headers (X-Jwt-Iss, X-Jwt-Sub, X-Jwt-Roles: /roles joined)."""
    import http.client
    import re
    import time
    doc, server = load(), KeyServer()
    passed, failed, skipped = 0, [], 0
    tmp = os.environ.get("TMPDIR", "/tmp")
    headers = {"x-jwt-iss": "iss", "x-jwt-sub": "sub", "x-jwt-roles": "/roles"}
    try:
        for name, configuration in doc["configurations"].items():
            cases = [c for c in doc["cases"] if c["configuration"] == name]
            if configuration.get("secret"):
                skipped += len(cases)
                continue
            path = os.path.join(tmp, f"verdicts-fa-{os.getpid()}-{name}.json")
            with open(path, "w") as f:
                json.dump({"issuers": [server.entry(configuration)]}, f)
            args = [agent, "--issuer-config", path, "--listen", "127.0.0.1:0", "--log-level", "error"]
            args += [a for h, c in headers.items() for a in ("--claim-header", f"{h}={c}")]
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                line = proc.stdout.readline()
                m = re.search(r"127\.0\.0\.1:(\d+)", line)
                if not m:
                    failed.append(f"{name}: the agent did not say where it listens: {line!r} {proc.stderr.read()[-300:]}")
                    continue
                port = int(m.group(1))

                def get(path, token=None):
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    conn.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
                    r = conn.getresponse()
                    r.read()
                    conn.close()
                    return r.status, {k.lower(): v for k, v in r.getheaders()}

                deadline = time.time() + 15
                while time.time() < deadline and get("/healthz")[0] != 200:
                    time.sleep(0.05)
                for case in cases:
                    st, h = get("/auth", case["token"])
                    www = h.get("www-authenticate") or ""
                    m = re.search(r'error="([a-z_]+)"', www)
                    answer = {"valid": st == 200, "http": st, "bearer_error": m.group(1) if m else None}
                    if st == 200:
                        answer["claims"] = {c: h.get(k) for k, c in headers.items() if c in case.get("claims", {})}
                    problems = mismatches("forward-auth", case, answer, ("routed",))
                    if st in (401, 403) and not www.startswith("Bearer realm="):
                        problems.append(f"challenge {www!r}")
                    if problems:
                        failed.append(f"{case['name']} [{name}]: {'; '.join(problems)}")
                    else:
                        passed += 1
            finally:
                proc.terminate()
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
    finally:
        server.close()
    for f in failed:
        print("FAIL  forward-auth:", f)
    print(f"verdicts (forward-auth): {passed} passed, {len(failed)} failed, {skipped} skipped (HMAC: no key file "
          f"in an issuer file)")
    return not failed


if __name__ == "__main__":
    # python3 IntegrationTests/verdicts/verdicts.py cli PATH-TO-jwtk
    # python3 IntegrationTests/verdicts/verdicts.py forward-auth PATH-TO-jwtk-forward-auth
    if len(sys.argv) == 3 and sys.argv[1] == "cli":
        sys.exit(0 if run_cli(sys.argv[2]) else 1)
    if len(sys.argv) == 3 and sys.argv[1] == "forward-auth":
        sys.exit(0 if run_forward_auth(sys.argv[2]) else 1)
    print(__doc__)
    sys.exit(2)
