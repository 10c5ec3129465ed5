#!/usr/bin/env python3
"""Peak memory of `redecode run` (and baseline B) on a WARC of a few very large records (issue 27).

Usage (from the repository root)::

    .venv/bin/python tests/benchmarks/big_records.py [--sizes 50,200] [--text utf-8|windows-1251]
                                                     [--workdir DIR] [--rows redecode-1w,baseline-b]

Builds (once, cached in WORKDIR) a gzip WARC holding one ``response`` record per size in
``--sizes`` (MB = 10**6 bytes of payload): an HTML page of that many bytes, UTF-8 text by default,
or Cyrillic text in windows-1251 declared in the Content-Type (its UTF-8 text is about twice the
payload); each record is its own gzip member, as in a crawl. Runs each row on it once with
``--max-record-bytes`` raised above the largest record (the default cap, 64 MiB, would make the
large records ``too-large`` rows without reading them) and prints its peak RSS (the largest
process of its tree, from run.py's launcher) beside the bound the issue states: at most 3x the
largest record plus 250 MB. The rows are checked: one decoded row per record, whose text has the
payload's length in characters.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run as bench  # noqa: E402  (this directory's run.py: the launcher that measures peak RSS)

#: The bound of issue 27: peak RSS at most this many times the largest record, plus BOUND_MB.
BOUND_FACTOR = 3
BOUND_MB = 250

_LINE = {
    "utf-8": "<p>Les archives du Web gardent les pages telles qu'elles furent servies, octet par octet.</p>\n",
    "windows-1251": "<p>Архивы Интернета хранят страницы такими, какими их отдал сервер, байт за байтом.</p>\n",
}


def _page(size: int, charset: str) -> bytes:
    line = _LINE[charset].encode(charset)
    head = b"<!doctype html><html><head><title>big page</title></head><body>\n"
    body = line * ((size - len(head)) // len(line) + 1)
    return (head + body)[:size - 1] + b"\n"


def build(path: str, sizes_mb: list[float], charset: str) -> None:
    """Write the WARC: one gzip member per record, streamed (the payloads are not all in memory)."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as out:
        for i, mb in enumerate(sizes_mb):
            payload = _page(int(mb * 1e6), charset)
            http = (f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset={charset}\r\n"
                    f"Content-Length: {len(payload)}\r\n\r\n").encode("ascii")
            head = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Date: 2024-06-01T00:00:0{i}Z\r\n"
                    f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000000{i}>\r\n"
                    f"WARC-Target-URI: https://example.org/big/{i}\r\n"
                    f"Content-Type: application/http; msgtype=response\r\n"
                    f"Content-Length: {len(http) + len(payload)}\r\n\r\n").encode("ascii")
            member = zlib.compressobj(1, zlib.DEFLATED, 31)
            for piece in (head, http, payload, b"\r\n\r\n"):
                for at in range(0, len(piece), 1 << 24):
                    out.write(member.compress(piece[at:at + (1 << 24)]))
            out.write(member.flush())
            del payload
    os.replace(tmp, path)


def check_rows(out: str, sizes_mb: list[float], charset: str) -> str | None:
    """None when the run wrote one decoded row per record with the whole text, else what is wrong."""
    import pyarrow.parquet as pq

    parts = [os.path.join(out, f) for f in os.listdir(out) if f.endswith(".parquet")]
    rows = []
    for p in parts:
        rows += pq.read_table(p, columns=["status", "text_length", "payload_length", "error"]).to_pylist()
    if len(rows) != len(sizes_mb):
        return f"{len(rows)} rows for {len(sizes_mb)} records"
    for r in rows:
        if r["status"] != "decoded":
            return f"a row {r['status']}: {r['error']}"
        # one character per byte in windows-1251; in UTF-8 (some 2-byte letters) fewer, never none
        whole = (r["text_length"] == r["payload_length"] if charset == "windows-1251"
                 else 0 < (r["text_length"] or 0) <= r["payload_length"])
        if not whole:
            return f"text of {r['text_length']} characters for a payload of {r['payload_length']} bytes"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="50,200", help="payload sizes in MB, comma-separated")
    ap.add_argument("--text", default="utf-8", choices=sorted(_LINE))
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "redecode-bench"))
    ap.add_argument("--rows", default="redecode-1w,baseline-b")
    args = ap.parse_args(argv)
    sizes = [float(s) for s in args.sizes.split(",") if s]
    name = f"big-{'-'.join(f'{s:g}' for s in sizes)}mb-{args.text}"
    path = os.path.join(args.workdir, name, "big.warc.gz")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        bench.log(f"building {path} ...")
        build(path, sizes, args.text)
    cap = int(max(sizes) * 1e6 * 1.25) + (1 << 20)
    bound = BOUND_FACTOR * max(sizes) + BOUND_MB
    bench.precompile()
    results = {}
    for row in [r for r in args.rows.split(",") if r]:
        out = os.path.join(args.workdir, name, f"out-{row}")
        if os.path.exists(out):
            import shutil

            shutil.rmtree(out)
        os.makedirs(out)
        cmd, env = bench.row_command(row, [path], out)
        if row.startswith("redecode"):
            cmd += ["--max-record-bytes", str(cap)]
        m = bench.measure(cmd, env=env)
        peak = max([m["maxrss_mb"], *m["child_peaks_mb"]])
        problem = None if m["returncode"] == 0 else f"exit {m['returncode']}: {m['stderr'][-500:]}"
        if problem is None and row.startswith("redecode"):
            problem = check_rows(out, sizes, args.text)
        results[row] = {"peak_mb": round(peak, 1), "cpu_s": round(m["cpu_s"], 2), "problem": problem}
        mark = "" if not row.startswith("redecode") else (
            f" (bound {bound:g} MB: {'met' if peak <= bound else 'NOT met'})")
        print(f"{row}: peak RSS {peak:.0f} MB, CPU {m['cpu_s']:.2f} s{mark}" + (f"; {problem}" if problem else ""),
              flush=True)
    print(json.dumps({"warc": path, "sizes_mb": sizes, "text": args.text, "bound_mb": bound, "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
