"""A loopback HTTP server on a thread for the harnesses' key servers (JWKS) and echo upstreams.

The test gives one function, answer(request) -> (status, headers dict, body bytes), where request is the
http.server handler (its .path and .headers); Content-Length is added here. Errors of clients that hang up
(gateways giving up on a fetch) are not printed: the gateway side counts them.
"""
import http.server
import json
import socket
import threading


def serve(answer, tls=None, protocol="HTTP/1.1"):
    """Starts the server on 127.0.0.1, a free port (server.server_address[1]); tls: (certificate, key) files;
    protocol "HTTP/1.0" closes every connection after its answer (nginx/driver.py's key server)."""
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = protocol

        def do_GET(self):
            status, headers, body = answer(self)
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    class Quiet(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass
    srv = Quiet(("127.0.0.1", 0), Handler)
    if tls:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*tls)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def json_answer(body, status=200):
    """An answer's triple for a JSON document (bytes)."""
    return status, {"Content-Type": "application/json"}, body


def echo_headers(req):
    """An echo upstream's answer: the request headers it got as JSON, names lower-cased, each name's values as a
    list in the order they came (a forged copy beside the gateway's shows as a second value)."""
    seen = {}
    for k, v in req.headers.raw_items():
        seen.setdefault(k.lower(), []).append(v)
    return json_answer(json.dumps(seen).encode())


def free_port():
    """A port free on 127.0.0.1 now (for servers that take their port from the command line)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
