"""One HTTP/1.1 exchange written and read byte for byte on a loopback socket.

The harnesses send what HTTP clients would refuse or normalise (NUL bytes, 100 kB headers, repeated or
malformed Authorization lines), so the request is bytes and the response is parsed here, not by http.client.
"""
import re
import socket

_STATUS = re.compile(rb"HTTP/1\.\d (\d{3})")


def request(path, header_lines=(), host=b"test"):
    """A GET with Connection: close and the given header lines (bytes, without their CRLF), as bytes."""
    req = b"GET " + path.encode() + b" HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n"
    for line in header_lines:
        req += line + b"\r\n"
    return req + b"\r\n"


def header_line(name, value):
    """name: value as bytes; str parts are encoded (values as UTF-8, the bytes a client would put there)."""
    return (name if isinstance(name, bytes) else name.encode()) + b": " + \
        (value if isinstance(value, bytes) else value.encode("utf-8"))


def _complete(data):
    """True once data holds a whole response: its Content-Length reached or its last chunk read. Envoy closes
    only after its delayed_close_timeout (1 s) after a local reply, so waiting for the close costs a second."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    low = head.lower()
    if b"\r\ncontent-length:" in low:
        return len(rest) >= int(low.split(b"\r\ncontent-length:")[1].split(b"\r\n")[0])
    return b"chunked" in low and rest.endswith(b"0\r\n\r\n")


def exchange(port, req, timeout, keep_partial=False):
    """Sends req to 127.0.0.1:port and reads one response to its end (or to the close).
    keep_partial=False: any socket error gives None (no answer). keep_partial=True: a reset or timeout while
    reading keeps what arrived (a server that closes hard after answering still answered); a refused
    connection raises."""
    data = b""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(req)
            while True:
                try:
                    chunk = s.recv(65536)
                except (ConnectionResetError, socket.timeout):
                    if keep_partial:
                        break
                    raise
                if not chunk:
                    break
                data += chunk
                if _complete(data):
                    break
    except OSError:
        if keep_partial:
            raise
        return None
    return data


def dechunk(body):
    """The payload of a chunked body."""
    out, rest = b"", body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2:]
    return out


def parse(data, decode_chunks=True):
    """(status, [(name lower-cased, value)], body bytes); status 0 when data is not an HTTP response."""
    head, _, body = (data or b"").partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    m = _STATUS.match(lines[0])
    if not m:
        return 0, [], b""
    headers = []
    for line in lines[1:]:
        k, _, v = line.partition(b":")
        headers.append((k.strip().lower().decode("latin-1"), v.strip().decode("latin-1")))
    if decode_chunks and any(k == "transfer-encoding" and "chunked" in v for k, v in headers):
        body = dechunk(body)
    return int(m.group(1)), headers, body


def header(headers, name):
    """The value of a header in parse()'s list: None when absent, the list of values when repeated."""
    vals = [v for k, v in headers if k == name]
    return vals[0] if len(vals) == 1 else (None if not vals else vals)


def get(port, path, headers=(), timeout=10, host=b"t"):
    """A GET written byte for byte from (name, value) pairs (values HTTP clients would refuse or normalise):
    (status, headers dict with lower-cased names, body text). A reset or timeout after the answer keeps the
    answer. The Apache and HAProxy harnesses' request."""
    req = request(path, [header_line(k, v) for k, v in headers], host=host)
    status, pairs, body = parse(exchange(port, req, timeout, keep_partial=True), decode_chunks=False)
    return status, dict(pairs), body.decode("utf-8", "replace")
