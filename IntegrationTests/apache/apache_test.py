#!/usr/bin/env python3
"""mod_auth_jwtk (gateways/apache) in Debian's real apache2 on 127.0.0.1.

Apache runs from its own ServerRoot and configuration in a temp directory (never the system's), as
`nobody`, under the event, worker and prefork MPMs. Keys are real (the openssl CLI: RSA 2048 and P-256),
served by a loopback JWKS server that counts its fetches and can be made to fail; a header-echoing
upstream behind mod_proxy and CGI scripts behind mod_cgid receive the claims. Then the same tokens through
mod_auth_openidc's `AuthType oauth20` (OIDCOAuthVerifyJwksUri, the same key server), and with --load N a
wrk comparison. Standard library only. Ends with one line: apache: N passed, M failed
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
MODULES = "/usr/lib/apache2/modules"
ISS = "https://issuer.example"

sys.path.insert(0, os.path.join(ROOT, "IntegrationTests/verdicts"))
import verdicts as corpus  # noqa: E402  (the verdict corpus's one comparison; verdicts() is a test here)
VERDICTS = corpus.load()
sys.path.insert(0, os.path.join(ROOT, "IntegrationTests"))
from support import http_raw  # noqa: E402
from support.checks import Tally  # noqa: E402
from support.loopback_server import echo_headers as echo, free_port, serve  # noqa: E402
from support.openssl_keys import Key, b64  # noqa: E402
from support.processes import children, stop, threads_of  # noqa: E402

TALLY = Tally(ok_line="  ok   {name}", fail_line="  FAIL {name}{detail}", detail_sep=": ", always_sep=False)
check = TALLY.check


raw_get = http_raw.get


def bearer(tok):
    return [("Authorization", "Bearer " + tok)]


def claims(now, **kw):
    return dict({"iss": ISS, "aud": "api", "sub": "user-1", "exp": now + 600, "email": "u@example.com",
                 "roles": ["admin", "ops"], "scope": "read"}, **kw)


CH_REALM = 'Bearer realm="api"'
CH_INVALID = 'Bearer realm="api", error="invalid_token"'
CH_SCOPE = 'Bearer realm="api", error="insufficient_scope"'


class Env:
    """Everything one test run shares: keys, servers, the work directory."""

    def __init__(self, work, module):
        self.work, self.module = work, module
        os.chmod(work, 0o755)
        self.rsa = Key(work, "k1")
        self.rsa2 = Key(work, "k2")
        self.ec = Key(work, "e1", "ES256")
        self.jwks = {"keys": [self.rsa.jwk, self.ec.jwk]}
        self.fetches = []
        self.key_fail = False
        self.max_age = 300

        def keys(req):
            self.fetches.append((time.time(), req.path))
            if self.key_fail:
                return 500, {}, b"down"
            return 200, {"Content-Type": "application/json", "Cache-Control": f"max-age={self.max_age}"}, \
                json.dumps(self.jwks).encode()
        self.key_srv = serve(keys)
        self.key_url = f"http://127.0.0.1:{self.key_srv.server_port}/jwks.json"
        # mod_auth_openidc takes https key URLs only: the same handler (keys, counters) over TLS, with a
        # self-signed certificate it is told not to validate (OIDCOAuthSSLValidateServer Off).
        cert, key = os.path.join(work, "tls.crt"), os.path.join(work, "tls.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                        "/CN=127.0.0.1", "-keyout", key, "-out", cert], check=True, capture_output=True)
        self.key_tls = serve(keys, tls=(cert, key))
        self.key_url_tls = f"https://127.0.0.1:{self.key_tls.server_port}/jwks.json"
        self.up = serve(echo)
        self.dead = free_port()
        self.port = free_port()
        self.jwks_file = os.path.join(work, "file-jwks.json")
        with open(self.jwks_file, "w") as f:
            json.dump({"keys": [self.rsa.jwk]}, f)
        with open(os.path.join(work, "api.json"), "w") as f:
            json.dump({"issuers": [ISS], "audiences": ["api"], "algorithms": ["RS256", "ES256"],
                       "jwks_url": self.key_url, "cooldown": 1, "refresh_min": 1}, f)
        with open(os.path.join(work, "cached.json"), "w") as f:
            json.dump({"issuers": [ISS], "audiences": ["api"], "jwks_url": self.key_url, "cache": True}, f)
        with open(os.path.join(work, "google.json"), "w") as f:
            json.dump({"provider": "google"}, f)
        # The verdict corpus: each configuration as written, a JWTKConfig file beside its key file.
        for name, conf in VERDICTS["configurations"].items():
            with open(os.path.join(work, f"v-{name}.json"), "w") as f:
                json.dump(conf["config"], f)
        cgi = os.path.join(work, "cgi")
        os.makedirs(cgi, exist_ok=True)
        os.chmod(cgi, 0o755)
        scripts = {"env.cgi": "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\n'\nenv\n",
                   "redir.cgi": "#!/bin/sh\nprintf 'Location: /cgi/env.cgi\\n\\n'\n"}
        for name, body in scripts.items():
            p = os.path.join(cgi, name)
            with open(p, "w") as f:
                f.write(body)
            os.chmod(p, 0o755)
        docs = os.path.join(work, "htdocs")
        os.makedirs(docs, exist_ok=True)
        # Static answers for the load rows (a proxied Python upstream would be the bottleneck).
        for sub in ["", "ljwtk", "lcached", "loidc", "lopen"]:
            os.makedirs(os.path.join(docs, sub), exist_ok=True)
            with open(os.path.join(docs, sub, "index.html"), "w") as f:
                f.write("ok\n")

    def config(self, mpm, extra="", name="httpd.conf", openidc=False):
        w = self.work
        mods = ["mpm_" + mpm, "authn_core", "authz_core", "authz_user", "alias", "cgid", "proxy", "proxy_http",
                "mime", "dir", "env"]
        if openidc:
            mods.append("auth_openidc")
        load = "\n".join(f"LoadModule {m}_module {MODULES}/mod_{m}.so" for m in mods)
        api = f"JWTKConfig {w}/api.json"
        headers = ("JWTKClaimHeader X-Jwt-Sub sub\nJWTKClaimHeader X-Jwt-Email email\n"
                   "JWTKClaimHeader X-Jwt-Roles roles\nJWTKClaimHeader X-Jwt-Iss /iss\n"
                   "JWTKClaimEnv JWT_SUB sub\nJWTKClaimEnv JWT_SCOPE scope\n")
        oidc = ""
        if openidc:
            oidc = f"""
OIDCOAuthVerifyJwksUri {self.key_url_tls}
OIDCOAuthSSLValidateServer Off
OIDCCryptoPassphrase jwtk-test-passphrase
OIDCCacheType shm
<Location /oidc>
    AuthType oauth20
    Require valid-user
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /loidc>
    AuthType oauth20
    Require valid-user
</Location>
<Location /ljwtk>
    AuthType Bearer
    {api}
    Require valid-user
</Location>
<Location /lcached>
    AuthType Bearer
    JWTKConfig {w}/cached.json
    Require valid-user
</Location>
"""
        text = f"""ServerRoot {w}
ServerName 127.0.0.1
Listen 127.0.0.1:{self.port}
PidFile {w}/httpd.pid
DefaultRuntimeDir {w}
Mutex file:{w} default
ScriptSock {w}/cgid.sock
ErrorLog {w}/error.log
LogLevel warn auth_jwtk:debug
User nobody
Group nogroup
{load}
LoadModule auth_jwtk_module {self.module}
DocumentRoot {w}/htdocs
TypesConfig /etc/mime.types
KeepAlive On
MaxKeepAliveRequests 0
Timeout 10
ScriptAlias /cgi/ {w}/cgi/
<Directory {w}/cgi>
    Options +ExecCGI
    DirectoryIndex env.cgi
</Directory>
<Location /api>
    AuthType Bearer
    {api}
    {headers}
    Require valid-user
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /cgi/>
    AuthType Bearer
    {api}
    {headers}
    Require valid-user
</Location>
<Location /read>
    AuthType jwtk
    {api}
    Require jwtk-claim scope contains read
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /write>
    AuthType Bearer
    {api}
    Require jwtk-claim scope contains write
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /forbid>
    AuthType Bearer
    {api}
    AuthzSendForbiddenOnFailure On
    Require jwtk-claim scope contains write
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /all>
    AuthType Bearer
    {api}
    AuthzSendForbiddenOnFailure On
    <RequireAll>
        Require jwtk-claim scope contains read
        Require jwtk-claim /roles contains admin
        Require jwtk-claim email_verified equals true
    </RequireAll>
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /any>
    AuthType Bearer
    {api}
    AuthzSendForbiddenOnFailure On
    <RequireAny>
        Require jwtk-claim scope contains write
        Require jwtk-claim roles contains-any admin owner
        Require user alice
    </RequireAny>
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /tenant>
    AuthType Bearer
    {api}
    AuthzSendForbiddenOnFailure On
    Require jwtk-claim /org/tier one-of 2 3
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /inline>
    AuthType Bearer
    JWTKIssuer {ISS}
    JWTKAudience api
    JWTKAlgorithms RS256
    JWTKKeyFile {self.jwks_file}
    JWTKRealm "inline \\"realm\\""
    JWTKUserClaim email
    JWTKClaimHeader X-User email
    Require valid-user
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /cached>
    AuthType Bearer
    JWTKConfig {w}/cached.json
    Require valid-user
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
<Location /down>
    AuthType Bearer
    JWTKIssuer https://down.example
    JWTKKeyURL http://127.0.0.1:{self.dead}/jwks.json
    Require valid-user
</Location>
<Location /nopolicy>
    AuthType Bearer
    Require valid-user
</Location>
<Location /open>
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>
{self.verdict_locations()}
{oidc}
{extra}
"""
        path = os.path.join(w, name)
        with open(path, "w") as f:
            f.write(text)
        return path


    def verdict_locations(self):
        """A location per configuration of the verdict corpus: its JWTKConfig file and its key file (for any
        issuer: "unrouted"), the claims the corpus exports as headers for the upstream."""
        return "\n".join(f"""<Location /v-{name}/>
    AuthType Bearer
    JWTKConfig {self.work}/v-{name}.json
    JWTKKeyFile {corpus.keys_path(conf)}
    JWTKClaimHeader X-Jwt-Iss /iss
    JWTKClaimHeader X-Jwt-Sub sub
    JWTKClaimHeader X-Jwt-Roles /roles
    Require valid-user
    ProxyPass http://127.0.0.1:{self.up.server_port}/
</Location>""" for name, conf in VERDICTS["configurations"].items())


def verdict_corpus(env):
    """The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json) through the module: HTTP status,
    the challenge's error=, the forwarded claims."""
    print("== the verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json)")

    def send(case):
        s, h, body = raw_get(env.port, f"/v-{case['configuration']}/x", bearer(case["token"]))
        e = json.loads(body) if s == 200 else {}
        names = {"iss": "x-jwt-iss", "sub": "x-jwt-sub", "/roles": "x-jwt-roles"}
        return s, h.get("www-authenticate"), {c: (e.get(hdr) or [None])[0] for c, hdr in names.items()}, None
    agreed, problems = corpus.run_gateway("apache", send)
    for p in problems:
        check(False, "verdicts: " + p)
    check(not problems, "verdicts: every case as the corpus says")
    print(f"verdicts (apache): {agreed} of {len(VERDICTS['cases'])} cases as the corpus says")


class Apache:
    def __init__(self, env, conf, prefix=()):
        self.env, self.conf = env, conf
        self.log = os.path.join(env.work, "error.log")
        self.proc = subprocess.Popen(list(prefix) + ["/usr/sbin/apache2", "-f", conf, "-DFOREGROUND"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env=dict(os.environ, SWIFT_BACKTRACE="enable=no"),
                                     # prefork's parent signals its whole process group on shutdown
                                     start_new_session=True)
        deadline = time.time() + (60 if prefix else 15)
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", env.port), timeout=0.2).close()
                break
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)

    def stop(self):
        stop(self.proc, timeout=30)
        return self.proc.returncode

    def log_text(self):
        try:
            return open(self.log, errors="replace").read()
        except FileNotFoundError:
            return ""


def wait_status(port, path, tok, want=200, tries=100):
    s = 0
    for _ in range(tries):
        s = raw_get(port, path, bearer(tok))[0]
        if s == want:
            return s
        time.sleep(0.05)
    return s


def configuration(env):
    print("== configuration (apache2 -t)")
    conf = env.config("event")
    r = subprocess.run(["/usr/sbin/apache2", "-t", "-f", conf], capture_output=True, text=True)
    check(r.returncode == 0, "apache2 -t accepts the test configuration", r.stdout + r.stderr)
    bad = [("a provider preset without an audience", f"<Location /g>\nAuthType Bearer\nJWTKConfig {env.work}/google.json\n"
            "Require valid-user\n</Location>", "audience"),
           ("an unknown operator", "<Location /x>\nRequire jwtk-claim scope likes read\n</Location>", "unknown operator"),
           ("a bad pointer", "<Location /x>\nRequire jwtk-claim /a~2b equals 1\n</Location>", "Require jwtk-claim"),
           ("JWTKConfig beside inline directives",
            f"<Location /x>\nJWTKConfig {env.work}/api.json\nJWTKIssuer a\n</Location>", "exclude each other"),
           ("an unreadable key file", "<Location /x>\nJWTKKeyFile /nonexistent/jwks.json\n</Location>", "cannot read")]
    for name, extra, want in bad:
        c = env.config("event", extra, name="bad.conf")
        # -t checks syntax only; post_config (the verifiers) runs on a real start, which must fail.
        r = subprocess.run(["/usr/sbin/apache2", "-f", c, "-k", "start", "-DFOREGROUND"], capture_output=True,
                           text=True, timeout=20, start_new_session=True)
        text = r.stdout + r.stderr
        try:
            text += open(os.path.join(env.work, "error.log"), errors="replace").read()
        except FileNotFoundError:
            pass
        check(r.returncode != 0 and want in text, f"refused at start-up: {name}", text[-300:])
        try:
            os.remove(os.path.join(env.work, "error.log"))
        except FileNotFoundError:
            pass


def verdicts(env, ap):
    port = env.port
    now = int(time.time())
    good = env.rsa.token(claims(now))
    print("== verdicts")
    forged = [("X-Jwt-Sub", "spoofed"), ("X_Jwt_Sub", "spoofed"), ("x-JWT-email", "e@evil"), ("X_JWT_ROLES", "root")]
    s, h, body = raw_get(port, "/api/x", bearer(good) + forged)
    e = json.loads(body) if s == 200 else {}
    check(s == 200 and e.get("x-jwt-sub") == ["user-1"] and e.get("x-jwt-email") == ["u@example.com"] and
          e.get("x-jwt-roles") == ["admin,ops"] and e.get("x-jwt-iss") == [ISS],
          "valid RS256 token: 200, X-Jwt-Sub/Email/Roles (joined)/Iss reach the proxied upstream", f"{s} {e}")
    check(s == 200 and "x_jwt_sub" not in e and "x_jwt_roles" not in e and "spoofed" not in body and "root" not in body,
          "client-sent copies removed, any case and '_' look-alikes included", str(e))
    s, _, _ = raw_get(port, "/api/x", bearer(env.ec.token(claims(now))))
    check(s == 200, "valid ES256 token: 200", str(s))
    s, h, body = raw_get(port, "/api/x", forged)
    check(s == 401 and h.get("www-authenticate") == CH_REALM and "spoofed" not in body,
          "no token: 401 with the realm-only challenge", f"{s} {h.get('www-authenticate')}")
    bad_sig = good[:-6] + ("AAAAAA" if not good.endswith("AAAAAA") else "BBBBBB")
    for name, tok in [("bad signature", bad_sig), ("expired", env.rsa.token(claims(now, exp=now - 3600))),
                      ("another audience", env.rsa.token(claims(now, aud="other"))),
                      ("another issuer", env.rsa.token(claims(now, iss="https://evil.example"))),
                      ("unknown kid", env.rsa.token(claims(now), kid="nope")),
                      ("alg none", b64(b'{"alg":"none"}') + "." + b64(json.dumps(claims(now)).encode()) + "."),
                      ("garbage", "x.y.z")]:
        s, h, body = raw_get(port, "/api/x", bearer(tok))
        check(s == 401 and h.get("www-authenticate") == CH_INVALID and
              not [p for p in tok.split(".") if len(p) > 8 and p in body],
              f"{name}: 401 invalid_token, no token bytes in the answer", f"{s} {h.get('www-authenticate')}")
    s, h, _ = raw_get(port, "/api/x", bearer(env.rsa.token(claims(now, sub=""))))
    check(s == 401 and h.get("www-authenticate") == CH_INVALID, "an empty user claim: 401 (no anonymous user)",
          f"{s} {h}")
    s, h, _ = raw_get(port, "/down/x", bearer(env.rsa.token(claims(now, iss="https://down.example"))))
    check(s == 503 and "www-authenticate" not in h, "keys never fetched (key URL down): 503 without a challenge",
          f"{s} {h}")
    s, h, _ = raw_get(port, "/nopolicy/x", bearer(good))
    check(s == 500 and "www-authenticate" not in h, "AuthType Bearer without a policy: 500 (fail closed), logged",
          f"{s} {h}")
    s, _, body = raw_get(port, "/open/x", [("X-Jwt-Sub", "kept")])
    check(s == 200 and json.loads(body).get("x-jwt-sub") == ["kept"], "a location without the module is not touched",
          str(s))
    s, _, body = raw_get(port, "/api/x", bearer(env.rsa.token(claims(now, sub="a\r\nX-Injected: 1"))))
    e = json.loads(body) if s == 200 else {}
    check(s == 401 or ("x-injected" not in e and e.get("x-jwt-sub") is None),
          "a sub with CR LF: no user and no header from it", f"{s} {e}")

    print("== push keys and inline directives (JWTKKeyFile, JWTKUserClaim, JWTKRealm)")
    s, _, body = raw_get(port, "/inline/x", bearer(good) + [("X_User", "forged")])
    e = json.loads(body) if s == 200 else {}
    check(s == 200 and e.get("x-user") == ["u@example.com"] and "x_user" not in e,
          "key file, user from the email claim, X-User set and its look-alike removed", f"{s} {e}")
    s, h, _ = raw_get(port, "/inline/x", bearer(env.ec.token(claims(now))))
    check(s == 401 and h.get("www-authenticate") == 'Bearer realm="inline \\"realm\\"", error="invalid_token"',
          "ES256 outside JWTKAlgorithms: 401; the realm quoted by jwtk_challenge", f"{s} {h.get('www-authenticate')}")

    print("== CGI environment, subrequests and internal redirects")
    s, _, body = raw_get(port, "/cgi/env.cgi", bearer(env.rsa.token(claims(now, sub="cgi-user", scope="read write")))
                         + [("X_Jwt_Sub", "spoofed"), ("x-jwt-SUB", "spoofed")])
    envs = dict(line.split("=", 1) for line in body.splitlines() if "=" in line)
    check(s == 200 and envs.get("JWT_SUB") == "cgi-user" and envs.get("JWT_SCOPE") == "read write" and
          envs.get("REMOTE_USER") == "cgi-user" and envs.get("AUTH_TYPE") == "Bearer" and
          envs.get("HTTP_X_JWT_SUB") == "cgi-user" and "spoofed" not in body,
          "CGI: JWT_SUB, JWT_SCOPE, REMOTE_USER, HTTP_X_JWT_SUB from the token, no forged value", f"{s} {envs}")
    before = ap.log_text().count("mod_auth_jwtk: verified, user redir-user")
    s, _, body = raw_get(port, "/cgi/redir.cgi", bearer(env.rsa.token(claims(now, sub="redir-user"))))
    envs = dict(line.split("=", 1) for line in body.splitlines() if "=" in line)
    time.sleep(0.2)
    made = ap.log_text().count("mod_auth_jwtk: verified, user redir-user") - before
    check(s == 200 and envs.get("JWT_SUB") == "redir-user" and envs.get("REMOTE_USER") == "redir-user" and
          envs.get("REDIRECT_STATUS") == "200",
          "an internal redirect (CGI Location: /cgi/env.cgi) gets the user and the claims", f"{s} {envs}")
    check(made == 1, "... from one verification (the redirect reuses the first)", f"{made} verifications")

    before = ap.log_text().count("mod_auth_jwtk: verified, user index-user")
    s, _, body = raw_get(port, "/cgi/", bearer(env.rsa.token(claims(now, sub="index-user"))))
    envs = dict(line.split("=", 1) for line in body.splitlines() if "=" in line)
    time.sleep(0.2)
    made = ap.log_text().count("mod_auth_jwtk: verified, user index-user") - before
    check(s == 200 and envs.get("JWT_SUB") == "index-user" and envs.get("SCRIPT_NAME") == "/cgi/env.cgi" and made == 1,
          "a subrequest (mod_dir's DirectoryIndex env.cgi) gets the claims from the one verification",
          f"{s} {made} verifications {envs.get('JWT_SUB')} {envs.get('SCRIPT_NAME')}")

    print("== Require jwtk-claim, RequireAll, RequireAny")
    tok = lambda **kw: env.rsa.token(claims(now, **kw))
    rows = [
        ("/read", good, 200, None, "scope contains read"),
        ("/read", tok(scope="write"), 401, CH_SCOPE, "scope without read: 401 insufficient_scope (Apache's default)"),
        ("/write", good, 401, CH_SCOPE, "scope without write: 401 insufficient_scope"),
        ("/forbid", good, 403, CH_SCOPE, "AuthzSendForbiddenOnFailure On: 403 insufficient_scope"),
        ("/forbid", tok(scope="read write"), 200, None, "write granted"),
        ("/forbid", tok(exp=now - 3600), 401, CH_INVALID, "an expired token is 401 invalid_token, never insufficient"),
        ("/all", tok(email_verified=True), 200, None, "RequireAll: read, admin, email_verified true"),
        ("/all", tok(email_verified="true"), 403, CH_SCOPE, "RequireAll: the string \"true\" is not true"),
        ("/all", tok(email_verified=True, roles=["ops"]), 403, CH_SCOPE, "RequireAll: no admin role"),
        ("/any", tok(roles=["viewer"]), 403, CH_SCOPE, "RequireAny: none holds"),
        ("/any", tok(roles=["owner"]), 200, None, "RequireAny: roles contains-any owner"),
        ("/any", tok(roles=[], scope="write"), 200, None, "RequireAny: scope contains write"),
        ("/any", tok(roles=[], sub="alice"), 200, None, "RequireAny: Require user alice (r->user from sub)"),
        ("/tenant", tok(org={"tier": 3.0}), 200, None, "one-of 2 3: 3.0 (numbers by value)"),
        ("/tenant", tok(org={"tier": "3"}), 403, CH_SCOPE, "one-of 2 3: the string \"3\""),
        ("/tenant", tok(), 403, CH_SCOPE, "one-of: the claim absent"),
    ]
    for path, t, want, ch, name in rows:
        s, h, _ = raw_get(port, path + "/x", bearer(t))
        check(s == want and h.get("www-authenticate") == ch, f"{path}: {name}",
              f"{s} {h.get('www-authenticate')!r}")

    print("== the gateway contract (Tests/JWTKernelTests/Fixtures/gateway/contract.json)")
    with open(os.path.join(ROOT, "Tests/JWTKernelTests/Fixtures/gateway/contract.json")) as f:
        contract = json.load(f)
    for case in contract["bearer"]:
        if "\0" in case["value"] or "\r" in case["value"] or "\n" in case["value"]:
            continue   # cannot travel in an HTTP field (the hostile-input checks send a NUL)
        s, h, _ = raw_get(port, "/api/x", [("Authorization", case["value"])])
        want = CH_INVALID if case["token"] else CH_REALM
        check(s == 401 and h.get("www-authenticate") == want, f"bearer: {case['name']}",
              f"got {s} {h.get('www-authenticate')!r}, want 401 {want!r}")
    reach = {"no_token": ("/api/x", None), "expired": ("/api/x", env.rsa.token(claims(now, exp=now - 3600))),
             "bad_audience": ("/api/x", env.rsa.token(claims(now, aud="other"))),
             "claim_requirement_failed": ("/forbid/x", good)}
    for case in contract["challenge"]:
        if case["realm"] != "api" or case["scope"] or case["status"] not in reach:
            continue
        path, t = reach[case["status"]]
        s, h, _ = raw_get(port, path, bearer(t) if t else [])
        check(h.get("www-authenticate") == case["expect"], f"challenge: {case['name']}",
              f"{s} {h.get('www-authenticate')!r}")


def rotation(env, ap):
    port = env.port
    now = int(time.time())
    print("== rotation and an unknown-kid flood (pull mode, cooldown 1 s)")
    new_tok = env.rsa2.token(claims(now))
    s, h, _ = raw_get(port, "/api/x", bearer(new_tok))
    check(s == 401 and h.get("www-authenticate") == CH_INVALID, "a token of a key not yet published: 401", str(s))
    env.jwks = {"keys": [env.rsa.jwk, env.ec.jwk, env.rsa2.jwk]}
    forged = env.rsa.token(claims(now), kid="flood")
    before, t0, ok200, answered, sent = len(env.fetches), time.time(), False, 0, 0
    while time.time() - t0 < 6 and not ok200:
        for _ in range(20):
            s, _, _ = raw_get(port, "/api/x", bearer(forged))
            answered += s == 401
            sent += 1
        ok200 = raw_get(port, "/api/x", bearer(new_tok))[0] == 200
    spent = time.time() - t0
    made = len([f for f in env.fetches[before:] if f[1] == "/jwks.json"])
    kids = len(children(ap.proc.pid)) or 1
    check(ok200, f"after the rotation the new key verifies ({spent:.1f} s, no restart)", f"{spent:.1f} s")
    # Each child process has its own refresher; each fetches at most once per cooldown, plus its schedule.
    check(answered == sent and made <= kids * (3 + 2 * int(spent + 1)),
          f"{sent} unknown-kid tokens: 401 each; {made} fetches from {kids} children (about one per cooldown each)",
          f"{made} fetches in {spent:.1f} s")

    print("== stale keys while the key server fails")
    env.key_fail = True
    before = len(env.fetches)
    t0 = time.time()
    seen = []
    while time.time() - t0 < 3:
        seen.append(raw_get(port, "/api/x", bearer(env.rsa.token(claims(now), kid="nope2")))[0])
        # k1's token: every child has held k1 since it started (k2 reached only the children an unknown kid
        # sent to the key server before it failed; each child keeps its own keys).
        seen.append(raw_get(port, "/api/x", bearer(env.rsa.token(claims(now))))[0])
        time.sleep(0.2)
    ok = seen == [401, 200] * (len(seen) // 2)
    failed_fetches = len(env.fetches) - before
    check(ok and failed_fetches >= 1, f"the key server answering 500: {failed_fetches} failed fetches, "
          "the last good keys still verify", f"answers {seen} fetches={failed_fetches}")
    env.key_fail = False
    log = ap.log_text()
    check("Segmentation fault" not in log and "exit signal" not in log, "no child crashed", log[-500:])


def hostile(env, ap):
    port = env.port
    now = int(time.time())
    good = env.rsa.token(claims(now))
    print("== hostile input")
    for name, hdrs, ok in [
        ("a 15 KB token (over Apache's 8 KB field limit)", bearer("a" * 15000), (400,)),
        ("a 7 KB garbage token", bearer("a" * 7000), (401,)),
        ("a NUL in the Authorization value", [("Authorization", b"Bearer abc\0def")], (400, 401)),
        ("binary garbage", [("Authorization", bytes(range(1, 32)).replace(b"\r", b"").replace(b"\n", b"") +
                              b"\xff\xfe")], (400, 401)),
        ("Bearer with 2000 dots", bearer("." * 2000), (401,)),
        ("a JSON bomb", bearer(b64(b"[" * 3000) + "." + b64(b"{" * 2000) + ".x"), (401,)),
        ("60 Authorization fields (merged by Apache past its field limit)", bearer(good) * 60, (400, 401)),
        ("8 Authorization fields (merged by Apache: a list, no bearer token)", bearer(good) * 8, (401,)),
        ("two Authorization fields", bearer(good) * 2, (401,)),
        ("150 X-Jwt-* look-alikes", [("X_Jwt_Sub", "v")] * 40 + [("x-jwt-sub", "v")] * 40, (401,)),
    ]:
        s, h, _ = raw_get(port, "/api/x", hdrs)
        check(s in ok, f"{name}: {s}", str(s))
    s, _, body = raw_get(port, "/api/x", bearer(good) + [("X_Jwt_Sub", "v")] * 40)
    check(s == 200 and json.loads(body).get("x-jwt-sub") == ["user-1"], "a valid token with 40 forged copies: one "
          "X-Jwt-Sub, the token's", body[:200])
    log = ap.log_text()
    check(ap.proc.poll() is None and "Segmentation fault" not in log and "exit signal" not in log,
          "apache still serves, no child crashed", log[-500:])


def refresh_threads(pids):
    return sum(threads_of(p).count("jwtk-refresh") for p in pids)


def graceful(env, ap, mpm, rounds=2):
    port = env.port
    now = int(time.time())
    good = env.rsa.token(claims(now))
    print(f"== graceful restarts ({mpm})")
    parent = ap.proc.pid
    for i in range(rounds):
        old = set(children(parent))
        # apachectl graceful: apache2 -k graceful signals the parent named by the configuration's PidFile.
        r = subprocess.run(["/usr/sbin/apache2", "-f", ap.conf, "-k", "graceful"], capture_output=True, text=True)
        check(r.returncode == 0, f"graceful {i + 1}: apache2 -k graceful", r.stdout + r.stderr)
        new = set()
        t0 = time.time()
        while time.time() - t0 < 15:
            new = set(children(parent)) - old
            if new and not (set(children(parent)) & old - {p for p in old if not os.path.exists(f"/proc/{p}")}):
                break
            time.sleep(0.1)
        s = wait_status(port, "/api/x", good)
        check(new and s == 200, f"graceful {i + 1}: new children verify pull-mode tokens", f"{new} {s}")
        pt = threads_of(parent)
        check("jwtk-refresh" not in pt and len(pt) == 1, f"graceful {i + 1}: the parent has one thread, no refresher",
              str(pt))
    # Old children finish and exit; each live child runs one refresher per pull keystore (api.json,
    # cached.json and the down URL: 3), none left over from an earlier generation. mod_cgid's daemon, also a
    # child of the parent, runs none.
    counts = {}
    for _ in range(50):
        counts = {p: threads_of(p).count("jwtk-refresh") for p in children(parent)}
        zero = [p for p, n in counts.items() if n == 0]
        if len(zero) <= 1 and all(n in (0, 3) for n in counts.values()) and len(counts) > len(zero):
            break
        time.sleep(0.1)
    zero = [p for p, n in counts.items() if n == 0]
    check(len(zero) <= 1 and all(n in (0, 3) for n in counts.values()) and len(counts) > len(zero),
          f"{len(counts) - len(zero)} children with 3 refresher threads each (3 pull keystores), none leaked",
          str(counts))
    s = raw_get(port, "/api/x", bearer(good))[0]
    check(s == 200, "after the restarts: 200", str(s))


def run_mpm(env, mpm, full):
    conf = env.config(mpm)
    ap = Apache(env, conf)
    before = TALLY.failed
    try:
        print(f"== apache2 ({mpm} MPM)")
        if ap.proc.poll() is not None:
            check(False, f"apache2 ({mpm}) starts", ap.log_text()[-1500:])
            return
        pt = threads_of(ap.proc.pid)
        check(pt and "jwtk-refresh" not in pt, "the parent starts no refresher thread", str(pt))
        now = int(time.time())
        s = wait_status(env.port, "/api/x", env.rsa.token(claims(now)))
        check(s == 200, "a valid token: 200", str(s))
        kids = children(ap.proc.pid)
        check(refresh_threads(kids) >= 1, "children run libjwtk's refresher (started in child_init)",
              str([threads_of(k) for k in kids]))
        if full:
            verdicts(env, ap)
            verdict_corpus(env)
            rotation(env, ap)
            hostile(env, ap)
        else:
            s, h, _ = raw_get(env.port, "/forbid/x", bearer(env.rsa.token(claims(now))))
            check(s == 403 and h.get("www-authenticate") == CH_SCOPE, "403 insufficient_scope", f"{s} {h}")
            s, _, body = raw_get(env.port, "/cgi/env.cgi", bearer(env.rsa.token(claims(now, sub="m"))))
            check(s == 200 and "JWT_SUB=m\n" in body, "CGI gets JWT_SUB", f"{s}")
        graceful(env, ap, mpm)
    finally:
        rc = ap.stop()
        log = ap.log_text()
        check(rc == 0 and "Segmentation fault" not in log and "exit signal" not in log,
              f"apache2 ({mpm}) stops cleanly", f"rc {rc} {log[-800:]}")
        if TALLY.failed > before:
            print(log[-3000:])
        if os.path.exists(ap.log):
            os.rename(ap.log, ap.log + "." + mpm)


def valgrind(env):
    print("== one pass with apache2 -X under valgrind (prefork, memcheck)")
    conf = env.config("prefork")
    vlog = os.path.join(env.work, "valgrind.log")
    supp = os.path.join(HERE, "valgrind.supp")
    ap = Apache(env, conf, prefix=["valgrind", "--leak-check=full", "--show-leak-kinds=definite",
                                   "--errors-for-leak-kinds=definite", f"--suppressions={supp}",
                                   "--trace-children=no", f"--log-file={vlog}", "--num-callers=30"])
    try:
        now = int(time.time())
        good = env.rsa.token(claims(now))
        s = wait_status(env.port, "/api/x", good, tries=200)
        check(s == 200, "under valgrind: a valid token is 200", str(s))
        answers = []
        for path, hdrs in [("/api/x", bearer(good) + [("X_Jwt_Sub", "f")]), ("/api/x", []),
                           ("/api/x", bearer("x.y.z")), ("/forbid/x", bearer(good)), ("/all/x", bearer(good)),
                           ("/inline/x", bearer(good)), ("/cgi/redir.cgi", bearer(good)),
                           ("/api/x", bearer(env.rsa.token(claims(now), kid="nope"))), ("/down/x", bearer(good)),
                           ("/api/x", bearer("a" * 7000)), ("/cached/x", bearer(good)), ("/cached/x", bearer(good))]:
            answers.append(raw_get(env.port, path, hdrs, timeout=30)[0])
        check(answers == [200, 401, 401, 403, 403, 200, 200, 401, 401, 401, 200, 200],
              "under valgrind: the verdicts", str(answers))
    finally:
        ap.stop()
    text = open(vlog, errors="replace").read() if os.path.exists(vlog) else ""
    # Every process valgrind followed (Apache forks mod_cgid's daemon and the CGI children) writes a summary.
    errors = re.findall(r"ERROR SUMMARY: (\d+) errors", text)
    lost = re.findall(r"definitely lost: ([\d,]+) bytes", text)
    check(errors and all(e == "0" for e in errors), f"valgrind: no errors ({len(errors)} processes)",
          text[-3000:])
    check(all(x == "0" for x in lost), "valgrind: no definite leaks", str(lost))
    os.rename(os.path.join(env.work, "error.log"), os.path.join(env.work, "error.log.valgrind"))


def openidc(env, load_rounds):
    print("== beside mod_auth_openidc (AuthType oauth20, OIDCOAuthVerifyJwksUri, the same key server)")
    conf = env.config("event", openidc=True, name="openidc.conf")
    ap = Apache(env, conf)
    try:
        now = int(time.time())
        good = env.rsa.token(claims(now))
        s = wait_status(env.port, "/oidc/x", good)
        check(s == 200, "mod_auth_openidc verifies a valid RS256 token", f"{s} {ap.log_text()[-500:]}")
        bad_sig = good[:-6] + ("AAAAAA" if not good.endswith("AAAAAA") else "BBBBBB")
        # The rows both modules express: signature, key, time, the bearer grammar. Issuer and audience
        # rules are not in mod_auth_openidc 2.4.12's oauth20 mode (no OIDCOAuthVerifyIssuer/Audience).
        rows = [("valid RS256", good), ("valid ES256", env.ec.token(claims(now))), ("bad signature", bad_sig),
                ("expired", env.rsa.token(claims(now, exp=now - 3600))),
                ("unknown kid", env.rsa.token(claims(now), kid="nope")), ("garbage", "x.y.z"), ("no token", None),
                ("alg none", b64(b'{"alg":"none"}') + "." + b64(json.dumps(claims(now)).encode()) + "."),
                ("Basic credentials", "BASIC")]
        agree = 0
        for name, t in rows:
            hdrs = [("Authorization", "Basic dXNlcjpwYXNz")] if t == "BASIC" else (bearer(t) if t else [])
            a = raw_get(env.port, "/api/x", hdrs)[0]
            b = raw_get(env.port, "/oidc/x", hdrs)[0]
            agree += a == b
            check(a == b, f"same verdict: {name} (jwtk {a}, openidc {b})", f"jwtk {a} openidc {b}")
        print(f"  verdict agreement: {agree}/{len(rows)}")
        if load_rounds:
            load(env, load_rounds)
    finally:
        ap.stop()
        if os.path.exists(ap.log):
            os.rename(ap.log, ap.log + ".openidc")


def load(env, rounds):
    """wrk, one thread and 16 connections, 2 s per cell; rows interleaved round by round; medians."""
    print(f"== load: wrk -t1 -c16 -d2s, {rounds} interleaved rounds, median requests/s")
    now = int(time.time())
    files = {}
    for alg, key in [("RS256", env.rsa), ("ES256", env.ec)]:
        path = os.path.join(env.work, f"tokens-{alg}.txt")
        with open(path, "w") as f:
            for i in range(200):
                f.write(key.token(claims(now, sub=f"u{i}", jti=str(i))) + "\n")
        files[alg] = path
    one = env.rsa.token(claims(now))
    script = os.path.join(ROOT, "IntegrationTests/nginx/wrk_tokens.lua")
    cells = [("RS256 (200 tokens)", "jwtk", "/ljwtk/index.html", ["-s", script], [files["RS256"]]),
             ("RS256 (200 tokens)", "openidc", "/loidc/index.html", ["-s", script], [files["RS256"]]),
             ("ES256 (200 tokens)", "jwtk", "/ljwtk/index.html", ["-s", script], [files["ES256"]]),
             ("ES256 (200 tokens)", "openidc", "/loidc/index.html", ["-s", script], [files["ES256"]]),
             ("cached (one token)", "jwtk", "/lcached/index.html", ["-H", "Authorization: Bearer " + one], []),
             ("cached (one token)", "openidc", "/loidc/index.html", ["-H", "Authorization: Bearer " + one], []),
             ("unchecked", "apache", "/lopen/index.html", [], [])]
    results = {(c[0], c[1]): [] for c in cells}
    for _ in range(rounds):
        for row, impl, path, args, tail in cells:
            r = subprocess.run(["wrk", "-t1", "-c16", "-d2s"] + args + [f"http://127.0.0.1:{env.port}{path}"] +
                               (["--"] + tail if tail else []), capture_output=True, text=True)
            m = re.search(r"Requests/sec:\s+([\d.]+)", r.stdout)
            non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", r.stdout)
            results[(row, impl)].append(float(m.group(1)) if m and not non2xx else 0.0)
    print("  | row | mod_auth_jwtk | mod_auth_openidc | ratio |")
    print("  |---|---|---|---|")
    for row in ["RS256 (200 tokens)", "ES256 (200 tokens)", "cached (one token)"]:
        a = statistics.median(results[(row, "jwtk")])
        b = statistics.median(results[(row, "openidc")])
        print(f"  | {row} | {a:.0f} | {b:.0f} | {a / b if b else 0:.2f}x |")
        check(a > 0 and b > 0, f"load {row}: both answered 200 throughout", str(results))
    print(f"  | unchecked (no auth) | {statistics.median(results[('unchecked', 'apache')]):.0f} | | |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--load", type=int, default=0, help="interleaved load rounds beside mod_auth_openidc (0: none)")
    ap.add_argument("--no-valgrind", action="store_true")
    ap.add_argument("--only", choices=["event", "valgrind", "openidc"], help="one part (when working on it)")
    a = ap.parse_args()
    t0 = time.monotonic()
    env = Env(a.work, os.path.abspath(a.module))
    times = []
    if not a.only:
        configuration(env)
    mpms = [("event", True), ("worker", False), ("prefork", False)]
    for mpm, full in [m for m in mpms if a.only is None or a.only == m[0]]:
        t = time.monotonic()
        run_mpm(env, mpm, full)
        times.append(f"{mpm} {time.monotonic() - t:.1f} s")
    if not a.no_valgrind and a.only in (None, "valgrind"):
        t = time.monotonic()
        valgrind(env)
        times.append(f"valgrind {time.monotonic() - t:.1f} s")
    t = time.monotonic()
    if a.only in (None, "openidc"):
        openidc(env, a.load)
    times.append(f"openidc{' and load' if a.load else ''} {time.monotonic() - t:.1f} s")
    before = os.environ.get("JWTK_STAGE_TIMES")
    print(f"stage times: {before + ', ' if before else ''}{', '.join(times)}, apache test {time.monotonic() - t0:.1f} s")
    print(TALLY.line("apache"))
    return 1 if TALLY.failed else 0


if __name__ == "__main__":
    sys.exit(main())
