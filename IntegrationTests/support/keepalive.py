"""An HTTP/1.1 client on one keep-alive connection, through http.client: for requests any client would send
(a token, ordinary headers), where reusing the connection is part of what is measured or tested (nginx keeps the
upstream's, a gateway under callgrind counts one connection's requests). Bytes no client would send go through
http_raw instead."""
import http.client


class Client:
    """A keep-alive connection; reconnects when the server closed it (nginx does after error statuses)."""

    def __init__(self, port):
        self.port, self.conn = port, None

    def get(self, path, token=None, headers=None, timeout=10):
        h = dict(headers or {})
        if token is not None:
            h["Authorization"] = "Bearer " + token
        for attempt in (0, 1):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
                self.conn.request("GET", path, headers=h)
                r = self.conn.getresponse()
                body = r.read()
                if r.getheader("Connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                return r.status, dict((k.lower(), v) for k, v in r.getheaders()), body.decode("latin-1")
            except (ConnectionError, http.client.HTTPException, OSError):
                if self.conn:
                    self.conn.close()
                self.conn = None
                if attempt:
                    raise
