#!/usr/bin/env python3
"""A loopback HTTP server for the JWTKernelRemote tests.

Started by the tests as a subprocess; binds 127.0.0.1 on a free port and prints
"PORT <n>" on stdout. Controlled through stdin, one JSON command per line, each
answered with one JSON line on stdout:

  {"cmd": "set", "path": "/jwks", "route": {...}}   -> {"ok": true}
  {"cmd": "log"}                                     -> {"counts": {path: n}, "requests": [[path, if_none_match], ...]}
  {"cmd": "reset_log"}                               -> {"ok": true}
  {"cmd": "hs256", "secret": s, "header": h, "claims": c} -> {"token": t}  (HS256 with Python's hmac:
                                                        an implementation independent of the kernel)

A route: status (200), body (text), headers ({name: value}), etag (answers 304 to a
matching If-None-Match), mode: "normal" | "hang" (sleep `seconds` before answering) |
"close_mid" (announce the full length, send half the body, close) | "drip" (one
byte every `seconds`) | "big" (a `size`-byte JSON body). With `--tls CERT KEY` it
serves HTTPS. The server exits when
stdin closes, so it never outlives the test process.
"""
import base64
import hashlib
import hmac
import json
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

routes = {}
log = []
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        inm = self.headers.get("If-None-Match")
        with lock:
            log.append([path, inm])
            route = dict(routes.get(path, {"status": 404, "body": "{}"}))
        mode = route.get("mode", "normal")
        status = route.get("status", 200)
        body = route.get("body", "").encode()
        headers = dict(route.get("headers", {}))
        etag = route.get("etag")
        if mode == "big":
            size = route.get("size", 5 * 1024 * 1024)
            body = b'{"keys":[' + b" " * max(0, size - 11) + b"]}"
        if mode == "hang":
            time.sleep(route.get("seconds", 30))
        if etag is not None and inm == etag and status == 200:
            self.send_response(304)
            self.send_header("ETag", etag)
            for k, v in headers.items():
                if k.lower() == "cache-control":
                    self.send_header(k, v)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(status)
        if "Content-Type" not in headers:
            headers["Content-Type"] = "application/json"
        if etag is not None:
            headers["ETag"] = etag
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            if mode == "close_mid":
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
            elif mode == "drip":
                for i in range(len(body)):
                    self.wfile.write(body[i : i + 1])
                    self.wfile.flush()
                    time.sleep(route.get("seconds", 0.5))
            else:
                self.wfile.write(body)
        except OSError:
            self.close_connection = True


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hs256(secret, header, claims):
    signing_input = b64url(header.encode()) + "." + b64url(claims.encode())
    mac = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(mac)


def serve_commands(server):
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        command = json.loads(line)
        with lock:
            if command["cmd"] == "set":
                routes[command["path"]] = command["route"]
                answer = {"ok": True}
            elif command["cmd"] == "log":
                counts = {}
                for path, _ in log:
                    counts[path] = counts.get(path, 0) + 1
                answer = {"counts": counts, "requests": list(log)}
            elif command["cmd"] == "reset_log":
                log.clear()
                answer = {"ok": True}
            elif command["cmd"] == "hs256":
                answer = {"token": hs256(command["secret"], command["header"], command["claims"])}
            else:
                answer = {"error": "unknown command"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    server.shutdown()


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        # HTTPS with the given certificate and key (the tests make a throwaway self-signed pair).
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    threading.Thread(target=serve_commands, args=(server,), daemon=True).start()
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
