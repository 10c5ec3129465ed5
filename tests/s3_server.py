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
