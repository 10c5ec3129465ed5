"""Write ``codings.warc.gz`` and ``codings.warc``: one response per HTTP transfer/content coding.

Run from anywhere: ``python tests/data/warcs/generated/make_codings.py``. Deterministic (gzip mtime 0,
fixed record ids), so the committed files can be checked by re-running. No third-party WARC library:
the records are written byte by byte as ISO 28500 "WARC record" describes them, one gzip member per
record (the ``.gz`` file) or uncompressed.

Every response carries the same page, ``PAGE``, so a test can check that each payload decodes to it.
``EXPECT`` (also written as ``codings.json``) lists what the reader must make of each record.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib

import brotli
import zstandard

HERE = os.path.dirname(os.path.abspath(__file__))

PAGE = (
    b"<!DOCTYPE html>\n<html><head><meta charset=\"windows-1252\"><title>Caf\xe9</title></head>\n"
    b"<body><p>Cr\xe8me br\xfbl\xe9e \x80 5</p>\n" + b"<p>filler line to make it compress</p>\n" * 40 + b"</body></html>\n"
)


def _chunk(data: bytes, size: int = 100) -> bytes:
    out = b""
    for i in range(0, len(data), size):
        part = data[i : i + size]
        out += b"%x;ext=1\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\nX-Trailer: yes\r\n\r\n"


def _raw_deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


BOMB_SIZE = 2 * 1024 * 1024  # inflates to 2 MiB; tests read it with a 1 MiB cap

# name -> (extra HTTP header lines, body as stored, expected: "page" | "prefix" (a leading part of
# the page, with a warning) | error kind)
CASES: list[tuple[str, list[str], bytes, str]] = [
    ("identity", [], PAGE, "page"),
    ("gzip", ["Content-Encoding: gzip"], _gz(PAGE), "page"),
    ("x-gzip", ["Content-Encoding: x-gzip"], _gz(PAGE), "page"),
    ("deflate-zlib", ["Content-Encoding: deflate"], zlib.compress(PAGE, 9), "page"),
    ("deflate-raw", ["Content-Encoding: deflate"], _raw_deflate(PAGE), "page"),
    ("br", ["Content-Encoding: br"], brotli.compress(PAGE), "page"),
    ("zstd", ["Content-Encoding: zstd"], zstandard.ZstdCompressor(level=3).compress(PAGE), "page"),
    ("chunked", ["Transfer-Encoding: chunked"], _chunk(PAGE), "page"),
    ("chunked-gzip", ["Transfer-Encoding: chunked", "Content-Encoding: gzip"], _chunk(_gz(PAGE)), "page"),
    ("gzip-then-br", ["Content-Encoding: gzip, br"], brotli.compress(_gz(PAGE)), "page"),
    ("gzip-then-zstd-two-fields", ["Content-Encoding: gzip", "Content-Encoding: zstd"],
     zstandard.ZstdCompressor().compress(_gz(PAGE)), "page"),
    ("not-gzip", ["Content-Encoding: gzip"], PAGE, "content-encoding"),
    ("cut-gzip", ["Content-Encoding: gzip"], _gz(PAGE * 4)[: len(_gz(PAGE * 4)) // 2], "prefix"),
    ("corrupt-gzip", ["Content-Encoding: gzip"], _gz(PAGE)[:10] + b"\xff" * 64 + _gz(PAGE)[74:], "content-encoding"),
    ("bad-chunks", ["Transfer-Encoding: chunked"], b"10\r\n" + PAGE[:16] + b"\r\nzz\r\n" + PAGE[16:], "chunked"),
    ("gzip-bomb", ["Content-Encoding: gzip"], _gz(b"\0" * BOMB_SIZE), "too-large"),
]


def _record(i: int, name: str, extra: list[str], body: bytes) -> bytes:
    head = "\r\n".join(
        ["HTTP/1.1 200 OK", "Content-Type: text/html; charset=windows-1252", *extra, f"X-Case: {name}"]
    ).encode("ascii") + b"\r\n\r\n"
    block = head + body
    warc_head = (
        "WARC/1.0\r\n"
        "WARC-Type: response\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{i:012d}>\r\n"
        "WARC-Date: 2026-01-01T00:00:00Z\r\n"
        f"WARC-Target-URI: http://example.test/{name}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode("ascii")
    return warc_head + block + b"\r\n\r\n"


def main() -> None:
    records = [_record(i, name, extra, body) for i, (name, extra, body, _) in enumerate(CASES)]
    with open(os.path.join(HERE, "codings.warc"), "wb") as fh:
        fh.write(b"".join(records))
    with open(os.path.join(HERE, "codings.warc.gz"), "wb") as fh:
        for rec in records:
            fh.write(_gz(rec))
    expect = {name: want for name, _, _, want in CASES}
    with open(os.path.join(HERE, "codings.json"), "w") as fh:
        json.dump({"page_sha1": __import__("hashlib").sha1(PAGE).hexdigest(), "bomb_size": BOMB_SIZE,
                   "cases": expect}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
