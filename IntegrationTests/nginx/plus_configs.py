"""NGINX Plus-style configurations (plus-configs/*.conf), each run in a real nginx with ngx_http_jwtk_module and
checked against the verdicts NGINX Plus documents for it.

A configuration is an http-level fragment (servers, maps, upstreams) written from NGINX Plus's documentation
(https://nginx.org/en/docs/http/ngx_http_auth_jwt_module.html, the admin guide "Configuring JWT Authentication")
and kjdev/nginx-auth-jwt's Plus-compatible usage, with these placeholders:

    @PORT@     the port its server listens on        @DIR@      the directory holding its key files
    @BACKEND@  an upstream answering 200 "backend"   @IDP@      host:port of a JWKS server (the IdP stand-in)

and comment lines the runner reads (one per line, "# " then the word):

    # feature: TEXT                  which Plus documentation feature it exercises (required)
    # key NAME ALG [kid=K|nokid] [noalg] [bytes=N]
                                     a key: HS256 (bytes=N of secret, 32 by default), RS256, PS256, ES256,
                                     ES384, EdDSA; JWE keys (jwe.py): dir (a 256-bit key, for A256GCM) or
                                     RSA-OAEP-256 (RSA-2048, A256GCM content)
    # file PATH NAME[,NAME...] [pem] a key file under @DIR@: a JWKS of those keys' public JWKs (a JWE key's
                                     private JWK), or one PEM key (a JWE key's private key)
    # serve PATH NAME[,NAME...]      the JWKS server answers PATH with that JWKS
    # expect [until=WORK|differs=WHAT] METHOD PATH [token=NAME] [claims=JSON] [signer=NAME] [kid=K|nokid]
             [jwe=NAME] [encrypted=NAME] [zip] [jwealg=RSA1_5] [via=cookie:N|arg:N|header:N] [h=Name:Value ...]
             -> STATUS [resp=Name:Value ...]
                                     a request and the verdict; a token's default claims are iss, sub, iat and
                                     exp (+1 h), claims=JSON adds to them (null removes one); jwe=NAME wraps the
                                     JWS in a JWE (nested), encrypted=NAME encrypts the claims themselves; zip: a
                                     "zip": "DEF" JWE; jwealg: the JWE's key management (RSA1_5)
    # until WORK: REASON             the whole configuration needs work not done yet (a branch, a named task)
    # refused: TEXT                  a configuration the module refuses on purpose (fail closed; docs/NGINX.md
                                     says why): `nginx -t` must fail with an [emerg] line holding TEXT (one
                                     line per TEXT; all must be there); no request is made

A check marked "until" is expected to fail until that work lands: it runs, and is reported as SKIP with
the reason (and "now passes: remove the marker" once it does), never counted as passed or failed. A check
marked "differs" is what NGINX Plus does where the module deliberately differs (docs/NGINX.md names the
reason): it runs and is reported as SKIP the same way.
"""

import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import driver  # noqa: E402
from driver import JWKS, check, free_port  # noqa: E402
from jwe import DirKey, RsaOaepKey  # noqa: E402
from mint import Key, token  # noqa: E402

from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa  # noqa: E402

CONFIGS = os.path.join(HERE, "plus-configs")


def skip(name, why):
    driver.skip(name, why)


def make_key(name, alg, opts):
    kid = None if "nokid" in opts else opts.get("kid", name)
    if alg == "dir":
        return DirKey(kid)
    if alg == "RSA-OAEP-256":
        return RsaOaepKey(kid)
    if alg == "HS256":
        private = os.urandom(int(opts.get("bytes", 32)))
    elif alg in ("RS256", "PS256"):
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    elif alg == "ES256":
        private = ec.generate_private_key(ec.SECP256R1())
    elif alg == "ES384":
        private = ec.generate_private_key(ec.SECP384R1())
    elif alg == "EdDSA":
        private = ed25519.Ed25519PrivateKey.generate()
    else:
        raise ValueError(f"unknown key type {alg}")
    return Key(kid, alg, private)


def public_jwk(key, opts):
    j = key.jwk()
    if j.get("kid") is None:
        j.pop("kid", None)
    if "noalg" in opts:
        j.pop("alg", None)
        j.pop("use", None)
    return j


class Config:
    def __init__(self, path):
        self.path, self.name = path, os.path.basename(path)
        self.text = open(path).read()
        self.feature, self.until = None, None
        self.keys, self.key_opts, self.files, self.serve, self.expects = {}, {}, [], [], []
        self.refused = []
        for line in self.text.splitlines():
            m = re.match(r"# (feature|key|file|serve|expect|until|refused)\b:?\s*(.*)$", line)
            if not m:
                continue
            word, rest = m.group(1), m.group(2).strip()
            if word == "feature":
                self.feature = rest
            elif word == "until":
                branch, _, reason = rest.partition(":")
                self.until = (branch.strip(), reason.strip())
            elif word == "key":
                parts = rest.split()
                opts = dict(p.split("=", 1) if "=" in p else (p, True) for p in parts[2:])
                self.key_opts[parts[0]] = opts
                self.keys[parts[0]] = make_key(parts[0], parts[1], opts)
            elif word == "file":
                parts = rest.split()
                self.files.append((parts[0], parts[1].split(","), "pem" in parts[2:]))
            elif word == "serve":
                parts = rest.split()
                self.serve.append((parts[0], parts[1].split(",")))
            elif word == "expect":
                self.expects.append(rest)
            elif word == "refused":
                self.refused.append(rest)
        if not self.feature:
            raise ValueError(f"{self.name}: no '# feature:' line")

    def jwks(self, names):
        return json.dumps({"keys": [public_jwk(self.keys[n], self.key_opts[n]) for n in names]})


def make_token(cfg, spec):
    now = int(time.time())
    claims = {"iss": "https://idp.example.com", "sub": "user-1", "iat": now - 10, "exp": now + 3600}
    for k, v in json.loads(spec.get("claims", "{}")).items():
        if isinstance(v, str) and re.fullmatch(r"now[+-]\d+", v):
            v = now + int(v[3:])
        if v is None:
            claims.pop(k, None)
        else:
            claims[k] = v
    if "encrypted" in spec:
        return cfg.keys[spec["encrypted"]].encrypt(json.dumps(claims, separators=(",", ":")).encode(),
                                                   zip_="zip" in spec, alg=spec.get("jwealg"))
    key = cfg.keys[spec["token"]]
    header = {"alg": key.alg, "typ": "JWT"}
    kid = spec.get("kid", key.kid)
    if kid is not None and spec.get("kid") != "nokid" and "nokid" not in spec:
        header["kid"] = kid
    signer = cfg.keys[spec["signer"]] if "signer" in spec else None
    jws = token(key, claims, header=header, sign_with=signer)
    if "jwe" in spec:
        return cfg.keys[spec["jwe"]].encrypt(jws.encode(), cty="JWT", zip_="zip" in spec, alg=spec.get("jwealg"))
    return jws


def parse_expect(line):
    """METHOD PATH words (no spaces inside a word: JSON without spaces) -> STATUS resp=Name:Value (a value
    runs to the next " resp=")."""
    left, _, right = line.partition("->")
    words = left.split()
    spec = {"until": None, "h": []}
    if words[0].startswith("until="):
        spec["until"] = words.pop(0)[6:]
    elif words[0].startswith("differs="):
        spec["until"] = "!" + words.pop(0)[8:]
    spec["method"], spec["path"] = words[0], words[1]
    for w in words[2:]:
        k, _, v = w.partition("=")
        if k == "h":
            spec["h"].append(v.split(":", 1))
        elif k == "nokid":
            spec["nokid"] = True
        else:
            spec[k] = v
    status, _, rest = right.strip().partition(" ")
    spec["status"] = int(status)
    spec["resp"] = [r[5:].split(":", 1) for r in re.split(r"\s+(?=resp=)", rest.strip()) if r.startswith("resp=")]
    return spec


def request(ngx, cfg, spec):
    headers = {k: v for k, v in spec["h"]}
    path = spec["path"]
    tok = make_token(cfg, spec) if "token" in spec or "encrypted" in spec else None
    via = spec.get("via", "bearer")
    if tok is not None:
        if via == "bearer":
            headers["Authorization"] = "Bearer " + tok
        elif via.startswith("cookie:"):
            headers["Cookie"] = f"{via[7:]}={tok}"
        elif via.startswith("arg:"):
            path += ("&" if "?" in path else "?") + f"{via[4:]}={tok}"
        elif via.startswith("header:"):
            headers[via[7:]] = tok
    body = "x" if spec["method"] in ("POST", "PUT") else None
    return ngx.get(path, headers=headers, method=spec["method"], body=body)


def run_config(a, work, path, Ngx, conf, backend, nginx_t):
    cfg = Config(path)
    w = os.path.join(work, cfg.name.rsplit(".", 1)[0])
    os.makedirs(w, exist_ok=True)
    os.chmod(w, 0o755)
    for rel, names, pem in cfg.files:
        full = os.path.join(w, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(cfg.keys[names[0]].pem() if pem else cfg.jwks(names).encode())
    idp = JWKS("{}")
    idp.bodies = {p: cfg.jwks(names) for p, names in cfg.serve}
    port, bport, probe = free_port(), free_port(), free_port()
    body = "\n".join(ln for ln in cfg.text.splitlines())
    body = body.replace("@PORT@", str(port)).replace("@DIR@", w).replace("@BACKEND@", f"127.0.0.1:{bport}") \
               .replace("@IDP@", f"127.0.0.1:{idp.port}")
    text = conf(a, w, "\n".join([backend(bport), f"  server {{ listen 127.0.0.1:{probe}; "
                                                 "location = /__up { return 204; } }", body]))
    label = f"plus {cfg.name} ({cfg.feature[:70]})"
    print(f"-- {cfg.name}: {cfg.feature}")
    results = []
    ngx = None
    try:
        rc, out = nginx_t(w, text)
        if cfg.refused:
            emerg = " ".join(ln.split("[emerg]")[-1].strip() for ln in out.splitlines() if "[emerg]" in ln)
            missing = [t for t in cfg.refused if t not in emerg]
            results.append((rc == 1 and bool(emerg) and not missing, f"{label}: nginx -t refuses it, saying why",
                            f"rc={rc} missing {missing}: {emerg[-300:] or out.strip()[-300:]}",
                            cfg.until[0] if cfg.until else None))
        elif rc != 0:
            emerg = [ln for ln in out.splitlines() if "[emerg]" in ln] or [out.strip()[-300:]]
            results.append((False, f"{label}: nginx -t", emerg[0].split("[emerg]")[-1].strip(),
                            cfg.until[0] if cfg.until else None))
        else:
            results.append((True, f"{label}: nginx -t", "", cfg.until[0] if cfg.until else None))
            ngx = Ngx(w, text, probe)
            ngx.port = port
            for line in cfg.expects:
                spec = parse_expect(line)
                until = spec["until"] or (cfg.until[0] if cfg.until else None)
                try:
                    st, h, _ = request(ngx, cfg, spec)
                except Exception as e:  # noqa: BLE001
                    st, h = f"error {e.__class__.__name__}", {}
                # resp=Name: (empty) asserts the header is absent, as nginx sends no empty add_header
                ok = st == spec["status"] and all((h.get(k.lower()) or "") == v for k, v in spec["resp"])
                results.append((ok, f"{cfg.name}: {line}", f"got {st} {[(k, h.get(k.lower())) for k, _ in spec['resp']]}",
                                until))
    finally:
        if ngx is not None:
            rc = ngx.stop()
            results.append((rc == 0 and not ngx.bad_lines(), f"{cfg.name}: clean exit, no crash",
                            "\n".join(ngx.bad_lines())[:300], cfg.until[0] if cfg.until else None))
        idp.server.shutdown()
    reason = cfg.until[1] if cfg.until else ""
    for ok, name, detail, until in results:
        if until and until.startswith("!"):
            why = f"a documented difference from NGINX Plus (docs/NGINX.md): {until[1:]}"
            skip(name, why + ("; now passes: remove the marker" if ok else f"; {detail[:160]}"))
        elif until:
            why = f"expected to fail until {until} lands{': ' + reason if reason else ''}"
            skip(name, why + ("; now passes: remove the marker" if ok else f"; {detail[:160]}"))
        else:
            check(ok, name, detail)


def run(a, work, Ngx, conf, backend, nginx_t, only=None):
    names = sorted(n for n in os.listdir(CONFIGS) if n.endswith(".conf"))
    for n in names:
        if only and not re.search(only, n):
            continue
        try:
            run_config(a, work, os.path.join(CONFIGS, n), Ngx, conf, backend, nginx_t)
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            check(False, f"plus {n}: ran", f"{e.__class__.__name__}: {e}")
