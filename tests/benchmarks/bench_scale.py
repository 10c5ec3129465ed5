#!/usr/bin/env python3
"""Benchmark: planning and resume of a run over many small inputs on an S3 server (issue 26).

Starts moto's S3 server in this process (as ``tests/s3_server.py`` does), writes N tiny WARC files
(one response record each, about 1 KB of gzip) under ``s3://scale-in/crawl/``, then measures, each
in a fresh process (``redecode run s3://scale-in/crawl/ --out s3://scale-out/run
--max-part-bytes 134217728 --workers 2``):

1. the first run (planning: one listing of the inputs, tasks of many inputs each; reading; the
   per-input table);
2. a rerun with nothing to do (resume: one listing of the inputs, one of ``_done/``, one read per
   task marker, one listing of the run directory; no request per input);
3. a rerun after one input changed (it and its task are read again).

For each: wall and CPU seconds, the driver's peak RSS, and the S3 requests the server answered,
by kind (LIST, GET, HEAD, PUT, DELETE), counted from the server's request log. Prints a table;
``--markdown`` writes it for docs/operations.md.

Usage (from the repository root; needs moto[server] and the [s3] extra)::

    .venv/bin/python tests/benchmarks/bench_scale.py --inputs 20000 [--inputs 100000] [--workers 2]
"""

from __future__ import annotations

import argparse
import collections
import gzip
import io
import json
import logging
import os
import re
import subprocess
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


class RequestCounter(logging.Handler):
    """Counts the requests moto's server (werkzeug) logs, by kind."""

    LINE = re.compile(r'"(GET|PUT|HEAD|POST|DELETE) (\S+) HTTP')

    def __init__(self) -> None:
        super().__init__()
        self.counts: collections.Counter[str] = collections.Counter()
        self._count_lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        m = self.LINE.search(re.sub(r"\x1b\[[0-9;]*m", "", record.getMessage()))  # (werkzeug colours some)
        if not m:
            return
        method, target = m.groups()
        kind = method
        if method == "GET" and ("list-type=2" in target or "delimiter=" in target):
            kind = "LIST"
        elif method == "POST" and "delete" in target:
            kind = "DELETE"
        with self._count_lock:
            self.counts[kind] += 1

    def take(self) -> dict[str, int]:
        with self._count_lock:
            out = dict(self.counts)
            self.counts.clear()
        return out


def tiny_warc(i: int) -> bytes:
    """One gzip member holding one WARC response record with a small HTML page."""
    body = (f"<html><head><meta charset=\"utf-8\"><title>page {i}</title></head>"
            f"<body><p>Seite {i}: Grüße aus dem Test.</p></body></html>").encode("utf-8")
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.UUID(int=i)}>\r\n"
            f"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: http://example{i}.test/\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n").encode()
    return gzip.compress(head + http + b"\r\n\r\n", mtime=0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, action="append", help="how many inputs (repeatable)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--max-part-bytes", type=int, default=128 << 20)
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args(argv)
    sizes = args.inputs or [20000]

    from moto import server as moto_server

    counter = RequestCounter()
    wlog = logging.getLogger("werkzeug")
    wlog.setLevel(logging.INFO)
    wlog.addHandler(counter)
    wlog.propagate = False
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = dict(os.environ, AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1",
               AWS_ENDPOINT_URL=f"http://{host}:{port}")
    for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "REDECODE_S3_ANON"):
        env.pop(k, None)
    import boto3
    from concurrent.futures import ThreadPoolExecutor

    client = boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], region_name="us-east-1",
                          aws_access_key_id="testing", aws_secret_access_key="testing")
    results = []
    for n in sizes:
        bucket_in, bucket_out = f"scale-in-{n}", f"scale-out-{n}"
        client.create_bucket(Bucket=bucket_in)
        client.create_bucket(Bucket=bucket_out)
        t0 = time.time()
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda i: client.put_object(Bucket=bucket_in, Key=f"crawl/seg-{i // 1000:03d}/in-{i:06d}.warc.gz",
                                                      Body=tiny_warc(i)), range(n)))
        counter.take()
        print(f"[{n}] {n} inputs written in {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
        cmd = [os.path.join(os.path.dirname(sys.executable), "redecode"), "run", f"s3://{bucket_in}/crawl/",
               "--out", f"s3://{bucket_out}/run", "--max-part-bytes", str(args.max_part_bytes),
               "--workers", str(args.workers), "-q", "--json", "-v", "--log-file", f"/tmp/bench-scale-{n}.log"]
        for label in ("first run", "rerun, nothing to do", "rerun, one input changed"):
            if label.startswith("rerun, one"):
                client.put_object(Bucket=bucket_in, Key="crawl/seg-000/in-000007.warc.gz", Body=tiny_warc(10**9))
                counter.take()
            t0 = time.time()
            proc = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], env=env, capture_output=True, text=True)
            wall = time.time() - t0
            phases = _phases(f"/tmp/bench-scale-{n}.log", t0)
            if proc.returncode not in (0,):
                print(proc.stderr[-3000:], file=sys.stderr)
            ru = json.loads(proc.stderr.strip().splitlines()[-1])
            summary = json.loads(proc.stdout) if proc.stdout.strip() else {}
            requests = counter.take()
            row = {"inputs": n, "what": label, "wall_s": round(wall, 1), "cpu_s": round(ru["cpu_s"], 1),
                   "rss_mb": round(ru["maxrss_kb"] / 1024), "requests": requests, **phases,
                   "records": (summary.get("counts") or {}).get("records_seen")}
            results.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    server.stop()
    lines = ["| inputs | run | wall s | CPU s | driver peak RSS MB | S3 requests (LIST / GET / HEAD / PUT / DELETE) |",
             "|---:|---|---:|---:|---:|---|"]
    for r in results:
        q = r["requests"]
        lines.append(f"| {r['inputs']:,} | {r['what']} | {r['wall_s']} | {r['cpu_s']} | {r['rss_mb']} | "
                     f"{q.get('LIST', 0):,} / {q.get('GET', 0):,} / {q.get('HEAD', 0):,} / {q.get('PUT', 0):,} / "
                     f"{q.get('DELETE', 0):,} |")
    print("\n".join(lines))
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write("\n".join(lines) + "\n")
    return 0


def _phases(log_file: str, t0: float) -> dict:
    """Seconds from the start of the run to the end of planning (the inputs listed, shards made),
    of the resume (markers read, inputs compared) and of the manifest, from the run's log."""
    import datetime as dt

    marks = {}
    try:
        lines = open(log_file, encoding="utf-8").read().splitlines()
    except OSError:
        return {}
    for line in lines:
        try:
            when = dt.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()
        except ValueError:
            continue
        if when < t0:
            continue
        if "input(s)," in line and "shard(s) ->" in line:
            marks.setdefault("planned_s", round(when - t0, 1))
        elif "shard(s) complete in" in line:
            marks.setdefault("resumed_s", round(when - t0, 1))
        elif "manifest written" in line:
            marks.setdefault("manifest_s", round(when - t0, 1))
    return marks


#: Runs the command and prints the rusage of it and its children (CPU seconds, peak RSS) as JSON on
#: stderr's last line.
_MEASURE = r"""
import json, os, resource, subprocess, sys
proc = subprocess.run(sys.argv[1:])
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write("\n" + json.dumps({"cpu_s": ru.ru_utime + ru.ru_stime, "maxrss_kb": ru.ru_maxrss}) + "\n")
sys.exit(proc.returncode)
"""


if __name__ == "__main__":
    sys.exit(main())
