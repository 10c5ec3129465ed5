"""The S3 server the object-storage tests share: moto in server mode on 127.0.0.1 (a free port),
credentials and endpoint given the standard way (AWS_* environment variables).

Import the fixture into a test module (``from s3_server import s3``) after skipping without s3fs
and moto[server]. Buckets (module scope, one server per module):

- ``s3://arc-in/crawl/``: the sample crawl's files, and ``s3://arc-in/list.txt`` naming them
  (relative lines);
- ``s3://commoncrawl/``: the sample crawl's WARCs laid out as Common Crawl publishes a crawl
  (``crawl-data/CC-MAIN-2026-44/segments/<segment>/warc/<name>``) with the crawl's list of WARCs,
  gzip, lines relative to the bucket (``crawl-data/CC-MAIN-2026-44/warc.paths.gz``);
- ``s3://run-out/``: empty, for outputs.
"""

from __future__ import annotations

import gzip
import os

import pytest

from redecode import inputs, storage

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "sample_warcs"))
CC_CRAWL = "crawl-data/CC-MAIN-2026-44"
CC_PATHS = f"s3://commoncrawl/{CC_CRAWL}/warc.paths.gz"


def cc_key(path: str) -> str:
    """The key (in bucket ``commoncrawl``) the sample WARC ``path`` has in the Common Crawl layout."""
    name = os.path.basename(path)
    return f"{CC_CRAWL}/segments/1761000000000.{name[13:18]}/warc/{name}"


@pytest.fixture(scope="module")
def s3():
    """The server and its buckets (see the module docstring); yields the s3fs filesystem."""
    from moto import server as moto_server

    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    mp = pytest.MonkeyPatch()
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "REDECODE_S3_ANON"):
        mp.delenv(name, raising=False)
    mp.setenv("AWS_ACCESS_KEY_ID", "testing")
    mp.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
    mp.setenv("AWS_ENDPOINT_URL", f"http://{host}:{port}")
    import boto3  # moto's dependency; s3fs's mkdir sends a LocationConstraint us-east-1 refuses

    client = boto3.client("s3", endpoint_url=f"http://{host}:{port}", region_name="us-east-1")
    for bucket in ("arc-in", "run-out", "commoncrawl"):
        client.create_bucket(Bucket=bucket)
    fs, _ = storage.filesystem("s3://arc-in")
    names = []
    for path in inputs.iter_inputs([SAMPLE]):
        name = os.path.basename(path)
        fs.put_file(path, f"arc-in/crawl/{name}")
        names.append(name)
        if name.endswith(".warc.gz"):
            fs.put_file(path, f"commoncrawl/{cc_key(path)}")
    fs.pipe_file("arc-in/list.txt", "".join(f"crawl/{n}\n" for n in names).encode())
    warcs = [p for p in inputs.iter_inputs([SAMPLE]) if p.endswith(".warc.gz")]
    fs.pipe_file(CC_PATHS[len("s3://"):], gzip.compress("".join(f"{cc_key(p)}\n" for p in warcs).encode()))
    yield fs
    mp.undo()
    server.stop()


class FaultyProxy:
    """An HTTP proxy in front of an S3 server that answers chosen requests itself, as a store or a
    network in trouble does: ``slowdown`` (503 with S3's ``SlowDown`` error), ``drop`` (the
    connection closed without an answer: a connection lost). Everything else is passed on.

    ``fail(times, method=None, contains=None, action="slowdown")`` adds a rule: the next ``times``
    requests (every one with ``times=-1``) whose method and path match; ``heal()`` removes them;
    ``failed`` counts the requests answered so. ``url`` is the endpoint to give clients."""

    def __init__(self, target: str) -> None:
        import http.client
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import urlsplit

        target_host, target_port = urlsplit(target).hostname, urlsplit(target).port
        proxy = self
        self.rules: list[list] = []
        self.failed = 0
        self._lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                action = proxy._match(self.command, self.path)
                if action == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                if action == "slowdown":
                    payload = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
                               b"<Message>Please reduce your request rate.</Message></Error>")
                    self.send_response(503)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(payload)
                    return
                conn = http.client.HTTPConnection(target_host, target_port, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection",)}
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                conn.close()

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _match(self, method: str, path: str) -> str | None:
        with self._lock:
            for rule in self.rules:
                want_method, contains, remaining, action = rule
                if (want_method is None or want_method == method) and (contains is None or contains in path):
                    if remaining == 0:
                        continue
                    if remaining > 0:
                        rule[2] -= 1
                    self.failed += 1
                    return action
        return None

    def fail(self, times: int, method: str | None = None, contains: str | None = None,
             action: str = "slowdown") -> None:
        with self._lock:
            self.rules.append([method, contains, times, action])

    def heal(self) -> None:
        with self._lock:
            self.rules.clear()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(scope="module")
def faulty_s3(s3):
    """The S3 server of :func:`s3` behind a :class:`FaultyProxy` (the clients' endpoint), retries
    made quick (``REDECODE_RETRY_WAIT``); yields the proxy."""
    proxy = FaultyProxy(os.environ["AWS_ENDPOINT_URL"])
    mp = pytest.MonkeyPatch()
    mp.setenv("AWS_ENDPOINT_URL", proxy.url)
    mp.setenv("REDECODE_RETRY_WAIT", "0.01")
    yield proxy
    mp.undo()
    proxy.close()
