#!/usr/bin/env python3
"""Build the small broken archives in ``tests/data/broken/`` (issue "Bad input never stops the job").

Deterministic: the same bytes on every run and every machine (fixed record ids and dates, gzip
members written with ``zlib`` at a fixed level and a zero mtime, seeded randomness only). Valid
records are written with warcio's :class:`~warcio.warcwriter.WARCWriter`; the broken parts are
hand-made bytes, because no writer produces them on purpose.

Usage::

    python tools/make_broken_inputs.py            # (re)write tests/data/broken/
    python tools/make_broken_inputs.py --out DIR  # write elsewhere (the determinism test does this)

Besides the archives it writes ``README.md`` (one line per file: what it tests and what the job
must do) and ``expected.json`` (per file: the record ids that must have a row, the byte offsets that
matter, and whether the input is cut short). ``tests/test_broken_inputs.py`` reads ``expected.json``.
The expectations are written here, from the WARC 1.1 / HTTP / Encoding standards and issue 10, never
from the output of the job.

Inputs too big to commit (10 MB adversarial payloads, a SIGKILL crash-test corpus) are generated at
test time by :func:`big_payload_warc` and friends into ``tmp_path``.
"""

from __future__ import annotations

import argparse
import gzip as _gzip  # noqa: F401  (documented: we do NOT use gzip.compress, whose header has mtime)
import io
import json
import os
import random
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, os.pardir, "tests", "data", "broken")

DATE = "2026-11-01T12:00:00Z"
_NS = uuid.UUID("6f1c1a0e-6a52-4a3e-9d0e-2b8a6b1e0b10")

MIB = 1024 * 1024
#: Size of the "100 MB record" payload, in bytes (decimal 100 MB: above the 64 MiB default cap).
BIG_RECORD_BYTES = 100_000_000
#: Inflated size of the gzip bomb's payload, in bytes (above the 64 MiB default cap).
BOMB_INFLATED_BYTES = 80 * MIB


def rid(name: str, n: int) -> str:
    """The WARC-Record-ID of record ``n`` of broken input ``name`` (deterministic uuid5)."""
    return f"<urn:uuid:{uuid.uuid5(_NS, f'{name}/{n}')}>"


def gz(data: bytes) -> bytes:
    """One gzip member with a fixed header (mtime 0, no name, OS byte 255 from zlib)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return c.compress(data) + c.flush()


def gz_stream(chunks, level: int = 9) -> bytes:
    """One gzip member of the concatenation of ``chunks`` (an iterable of bytes), streamed."""
    c = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = [c.compress(chunk) for chunk in chunks]
    out.append(c.flush())
    return b"".join(out)


def http_block(body: bytes, headers: list[tuple[bytes, bytes]] | None = None,
               status: bytes = b"HTTP/1.1 200 OK") -> bytes:
    """An HTTP/1.1 response message (hand-made bytes, headers copied verbatim)."""
    if headers is None:
        headers = [(b"Content-Type", b"text/html; charset=utf-8")]
    lines = [status] + [k + b": " + v for k, v in headers]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def warc_record(record_id: str, block: bytes, *, record_type: str = "response",
                uri: str = "http://example.com/", version: bytes = b"WARC/1.0",
                content_type: str = "application/http; msgtype=response",
                content_length: int | None = None, extra: list[tuple[str, str]] = ()) -> bytes:
    """A WARC record by hand: header, block, and the two CRLFs. ``content_length`` may lie."""
    cl = len(block) if content_length is None else content_length
    head = [
        version.decode(),
        f"WARC-Type: {record_type}",
        f"WARC-Record-ID: {record_id}",
        f"WARC-Date: {DATE}",
        f"WARC-Target-URI: {uri}",
        *(f"{k}: {v}" for k, v in extra),
        f"Content-Type: {content_type}",
        f"Content-Length: {cl}",
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + block + b"\r\n\r\n"


def warcio_response(record_id: str, body: bytes, *, uri: str = "http://example.com/",
                    headers: list[tuple[str, str]] | None = None, compress: bool = False) -> bytes:
    """A valid response record written by warcio's WARCWriter (digests included)."""
    if headers is None:
        headers = [("Content-Type", "text/html; charset=utf-8")]
    headers = headers + [("Content-Length", str(len(body)))]
    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=compress)
    rec = writer.create_warc_record(
        uri, "response", payload=io.BytesIO(body), length=len(body),
        http_headers=StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1"),
        warc_headers_dict={"WARC-Record-ID": record_id, "WARC-Date": DATE},
    )
    writer.write_record(rec)
    return buf.getvalue()


def page(text: str, charset: str = "utf-8") -> bytes:
    return (f"<!doctype html><html><head><title>t</title></head>"
            f"<body><p>{text}</p></body></html>").encode(charset)


# ---------------------------------------------------------------------------------------------
# Each builder returns (bytes, expectation dict). Expectation keys (all optional):
#   rows:        {record_id: {"status": [...allowed], "error_kind": [...allowed], ...}} rows that
#                MUST exist (value {} = any status)
#   maybe_rows:  record ids that may or may not have a row (unreadable parts)
#   cut_short:   True (input must end in an ArchiveError, exit 1), False (must not), or "either"
#   error_offset_min / error_offset_max: where the ArchiveError offset must lie when there is one
#   other_records: records of other WARC types (no row, counted in the manifest)
# ---------------------------------------------------------------------------------------------


@dataclass
class Spec:
    name: str
    tests: str
    expect: str
    build: Callable[[str], tuple[bytes, dict]]
    meta: dict = field(default_factory=dict)


def b_truncated_member(name):
    members = [gz(warcio_response(rid(name, i), page(f"record {i}"))) for i in range(3)]
    whole = b"".join(members)
    third = len(members[0]) + len(members[1])
    cut = third + len(members[2]) // 2
    return whole[:cut], {
        "rows": {rid(name, 0): {"status": ["decoded"]}, rid(name, 1): {"status": ["decoded"]}},
        "maybe_rows": [rid(name, 2)],
        "cut_short": True,
        "error_offset_min": third, "error_offset_max": cut,
    }


def b_garbage_between(name):
    a = warcio_response(rid(name, 0), page("before the garbage"))
    junk = b"\x00\x01\x02 this is not a WARC record\r\nGARBAGE: yes\r\n\r\n\xff\xfe" * 3
    b = warcio_response(rid(name, 1), page("after the garbage"))
    return a + junk + b, {
        # reading resynchronises at the next WARC/1.0 version line (issue 17): record 1 is read,
        # and the input is damaged (exit 1) with the garbage's offset
        "rows": {rid(name, 0): {"status": ["decoded"]}, rid(name, 1): {"status": ["decoded"]}},
        "cut_short": True,
        "error_offset_min": len(a), "error_offset_max": len(a),
    }


def b_damaged_member(name):
    members = [gz(warcio_response(rid(name, i), page(f"record {i}"))) for i in range(3)]
    second = len(members[0])
    data = bytearray(b"".join(members))
    data[second + len(members[1]) // 2] ^= 0xFF  # one byte of the second member's deflate data
    return bytes(data), {
        # each record is its own gzip member: the damaged one is skipped (issue 17), the third read
        "rows": {rid(name, 0): {"status": ["decoded"]}, rid(name, 2): {"status": ["decoded"]}},
        "maybe_rows": [rid(name, 1)],
        "cut_short": True,
        "error_offset_min": second, "error_offset_max": second,
    }


def b_cl_larger(name):
    body = page("content-length says 40 bytes more than the block has")
    a = warc_record(rid(name, 0), http_block(body), content_length=len(http_block(body)) + 40)
    b = warcio_response(rid(name, 1), page("second"))
    c = warcio_response(rid(name, 2), page("third"))
    return a + b + c, {
        # record 0 swallows the first 36 bytes of record 1's header: 0 has a row, 1 is damaged.
        "rows": {rid(name, 0): {}},
        "maybe_rows": [rid(name, 1), rid(name, 2)],
        "cut_short": "either",
        "error_offset_min": len(a) - 4, "error_offset_max": len(a) + len(b),
        "if_not_cut_short_rows": [rid(name, 2)],
    }


def b_cl_swallows(name):
    a_body = page("content-length covers the next record and ends 10 bytes before its end")
    a_block = http_block(a_body)
    b = warcio_response(rid(name, 1), page("swallowed record"))
    c = warcio_response(rid(name, 2), page("third"))
    # A's block runs over its own CRLFCRLF and all of B but B's last 10 bytes and CRLFCRLF, so
    # the reader finds one stray line ("/html>" ...) where the separator should be, then C.
    lie = len(a_block) + 4 + len(b) - 4 - 10
    a = warc_record(rid(name, 0), a_block, content_length=lie)
    data = a + b + c
    # a's declared record (header + lie bytes) ends 10 bytes + CRLFCRLF before C
    a_end = len(a) - len(a_block) - 4 + lie
    return data, {
        "rows": {rid(name, 0): {}},
        "maybe_rows": [rid(name, 1), rid(name, 2)],
        # WARC 1.1 "record": every record ends in CRLFCRLF. Here one does not: the reader must not
        # carry on silently past a record it has lost.
        "cut_short": "either",
        "error_offset_min": 0, "error_offset_max": len(data),
        "if_not_cut_short_rows": [rid(name, 1), rid(name, 2)],
        "a_declared_end": a_end,
    }


def b_cl_larger_at_end(name):
    a = warcio_response(rid(name, 0), page("first"))
    body = page("last record: content-length promises 200 more bytes than the file has")
    b = warc_record(rid(name, 1), http_block(body), content_length=len(http_block(body)) + 200)
    b = b[:-4]  # the file ends inside the block, as a crawl cut off mid-write does
    return a + b, {
        "rows": {rid(name, 0): {"status": ["decoded"]}},
        "maybe_rows": [rid(name, 1)],
        "cut_short": True,
        "error_offset_min": len(a), "error_offset_max": len(a) + len(b),
    }


def b_cl_smaller(name):
    body = page("content-length says 30 bytes less than the block has")
    blk = http_block(body)
    a = warc_record(rid(name, 0), blk, content_length=len(blk) - 30)
    b = warcio_response(rid(name, 1), page("second"))
    return a + b, {
        "rows": {rid(name, 0): {}},
        "maybe_rows": [rid(name, 1)],
        "cut_short": "either",
        "error_offset_min": len(a) - 4 - 30, "error_offset_max": len(a),
        "if_not_cut_short_rows": [rid(name, 1)],
    }


def _chunked_headers():
    return [(b"Content-Type", b"text/html; charset=utf-8"), (b"Transfer-Encoding", b"chunked")]


def b_bad_chunked(name):
    good_body = page("valid chunked control record")
    good = b"%x\r\n" % len(good_body) + good_body + b"\r\n0\r\n\r\n"
    bad_size = b"zz\r\n" + page("chunk size is not hex") + b"\r\n0\r\n\r\n"
    body2 = page("chunk size 0x1000 but the body ends early")
    short = b"1000\r\n" + body2
    body3 = page("first chunk fine")
    bad_later = b"%x\r\n" % len(body3) + body3 + b"\r\nnot-hex\r\nmore\r\n0\r\n\r\n"
    recs = [
        warc_record(rid(name, 0), http_block(bad_size, _chunked_headers())),
        warc_record(rid(name, 1), http_block(short, _chunked_headers())),
        warc_record(rid(name, 2), http_block(good, _chunked_headers())),
        warc_record(rid(name, 3), http_block(bad_later, _chunked_headers())),
    ]
    # A first size line that is not hex: some writers store the de-chunked body and keep the
    # header, so reading the body as is (warcio's fallback) is as right as failing.
    allowed = {"status": ["decoded", "failed"], "error_kind": ["chunked", None]}
    return b"".join(recs), {
        "rows": {rid(name, 0): allowed,
                 # a capture cut before the last-chunk: what arrived is the page (browsers show it)
                 rid(name, 1): dict(allowed, text=body2.decode()),
                 rid(name, 2): {"status": ["decoded"], "text": good_body.decode()},
                 # RFC 9112 "Chunked Transfer Coding": a malformed chunk-size line after valid
                 # chunks makes the message invalid
                 rid(name, 3): {"status": ["failed"], "error_kind": ["chunked"]}},
        "cut_short": False,
    }


def b_not_gzip(name):
    enc = [(b"Content-Type", b"text/html; charset=utf-8")]
    body = page("this says gzip but is plain html")
    trunc = gz(page("a real gzip stream cut in half") * 20)
    recs = [
        warc_record(rid(name, 0), http_block(body, enc + [(b"Content-Encoding", b"gzip")])),
        warc_record(rid(name, 1), http_block(trunc[: len(trunc) // 2],
                                             enc + [(b"Content-Encoding", b"gzip")])),
        warc_record(rid(name, 2), http_block(b"\x00\x01not brotli\xff" * 8,
                                             enc + [(b"Content-Encoding", b"br")])),
        warc_record(rid(name, 3), http_block(gz(page("control: real gzip")),
                                             enc + [(b"Content-Encoding", b"gzip")])),
    ]
    failed = {"status": ["failed"], "error_kind": ["content-encoding"]}
    # A gzip stream cut short: browsers render what inflated (Chromium and Firefox do not require
    # the gzip trailer), so a decoded prefix is right, as is a failed row; a wrong text is not.
    cut = {"status": ["failed", "decoded"], "error_kind": ["content-encoding", None],
           "text_prefix_of": (page("a real gzip stream cut in half") * 20).decode()}
    return b"".join(recs), {
        "rows": {rid(name, 0): failed, rid(name, 1): cut, rid(name, 2): failed,
                 rid(name, 3): {"status": ["decoded"], "text": page("control: real gzip").decode()}},
        # The author's-text rules (identity_fallback): a body that is not in its declared coding
        # and sniffs as text (MIME Sniffing: no binary data byte) is taken as is, with a warning;
        # the br record holds binary data bytes, so it still fails.
        "author_rows": {rid(name, 0): {"status": ["decoded"],
                                       "text": page("this says gzip but is plain html").decode()}},
        "cut_short": False,
    }


def b_gzip_bomb(name):
    def chunks():
        yield b"<!doctype html><html><body>"
        block = b"A" * MIB
        for _ in range(BOMB_INFLATED_BYTES // MIB):
            yield block
    bomb = gz_stream(chunks())
    enc = [(b"Content-Type", b"text/html; charset=utf-8"), (b"Content-Encoding", b"gzip")]
    recs = [
        gz(warc_record(rid(name, 0), http_block(bomb, enc))),
        gz(warc_record(rid(name, 1), http_block(gz(page("after the bomb")), enc))),
    ]
    return b"".join(recs), {
        "rows": {rid(name, 0): {"status": ["failed"], "error_kind": ["too-large"]},
                 rid(name, 1): {"status": ["decoded"], "text": page("after the bomb").decode()}},
        "cut_short": False,
        "payload_compressed_bytes": len(bomb),
    }


def b_coding_bombs(name):
    """Bombs in the other content codings (and a double gzip): each inflates to 80 MiB."""
    import brotli
    import zstandard

    big = b"<!doctype html><html><body>" + b"A" * BOMB_INFLATED_BYTES
    codings = [
        (b"br", brotli.compress(big, quality=5)),
        (b"zstd", zstandard.ZstdCompressor(level=3, write_content_size=False).compress(big)),
        (b"deflate", zlib.compress(big, 9)),
        (b"gzip, gzip", gz(gz(big))),
    ]
    del big
    recs = [gz(warc_record(rid(name, i), http_block(payload, [
        (b"Content-Type", b"text/html"), (b"Content-Encoding", coding)])))
        for i, (coding, payload) in enumerate(codings)]
    recs.append(gz(warc_record(rid(name, 9), http_block(
        zstandard.ZstdCompressor(level=3).compress(page("zstd control")),
        [(b"Content-Type", b"text/html; charset=utf-8"), (b"Content-Encoding", b"zstd")]))))
    too_large = {"status": ["failed"], "error_kind": ["too-large"]}
    return b"".join(recs), {
        "rows": {**{rid(name, i): too_large for i in range(len(codings))},
                 rid(name, 9): {"status": ["decoded"], "text": page("zstd control").decode()}},
        "cut_short": False,
        # brotli's and zstd's output may change with their versions: compare by behaviour only
        "version_dependent_bytes": True,
    }


def b_big_record(name):
    head = http_block(b"", [(b"Content-Type", b"text/html; charset=utf-8")])
    opening = b"<!doctype html><html><body>"
    filler = b"<p>lorem ipsum dolor sit amet</p>\n"  # 34 bytes
    n = (BIG_RECORD_BYTES - len(opening)) // len(filler)
    tail = b"x" * (BIG_RECORD_BYTES - len(opening) - n * len(filler))
    block_len = len(head) + BIG_RECORD_BYTES
    header = warc_record(rid(name, 0), b"", content_length=block_len)[:-4]  # header only

    def chunks():
        yield header + head + opening
        many = filler * (MIB // len(filler))
        left = n
        while left:
            k = min(left, MIB // len(filler))
            yield many if k == MIB // len(filler) else filler * k
            left -= k
        yield tail + b"\r\n\r\n"
    rec0 = gz_stream(chunks(), level=9)
    rec1 = gz(warcio_response(rid(name, 1), page("after the big record")))
    return rec0 + rec1, {
        # 100 MB > 64 MiB: over the default cap the record fails as too-large; with a larger cap it
        # would decode. Either way the next record is read.
        "rows": {rid(name, 0): {"status": ["failed"], "error_kind": ["too-large"]},
                 rid(name, 1): {"status": ["decoded"], "text": page("after the big record").decode()}},
        "cut_short": False,
        "payload_bytes": BIG_RECORD_BYTES,
    }


def b_bad_http_headers(name):
    body = page("header bytes")
    recs = [
        warc_record(rid(name, 0), http_block(body, [
            (b"Content-Type", b"text/html; charset=utf-8"), (b"X-Nul", b"a\x00b\x00c")])),
        warc_record(rid(name, 1), http_block(body, [
            (b"Content-Type", b"text/html; charset=\xe9t\xe9"), (b"X-Name", b"caf\xc3\xa9 \xff")])),
        warc_record(rid(name, 2), http_block(body, [
            (b"Content-Type", b"text/html; charset=utf-8"), (b"X-Long", b"a" * MIB)])),
        warc_record(rid(name, 3), http_block(body, [
            (b"Content-\x00Type", b"text/html"), (b"\xc3\xa9", b"x")])),
    ]
    any_ok = {"status": ["decoded", "failed"], "error_kind": [None, "http-parse"]}
    return b"".join(gz(r) for r in recs), {
        "rows": {
            rid(name, 0): {"status": ["decoded"], "text": body.decode()},
            # Fetch "extract a MIME type": the charset label "\xe9t\xe9" names no encoding, so it
            # is ignored; the page still decodes.
            rid(name, 1): {"status": ["decoded"], "text": body.decode()},
            # 1 MB header line: a browser refuses it (Chromium: 256 KiB), so a failed http-parse
            # row is as right as a decoded one; what is wrong is a crash or a lost row.
            rid(name, 2): any_ok,
            rid(name, 3): any_ok,
        },
        "cut_short": False,
    }


def b_no_http_headers(name):
    body = page("a response record whose block is HTML without HTTP headers")
    recs = [
        warc_record(rid(name, 0), body),
        warc_record(rid(name, 1), page("resource record: text/html without HTTP headers"),
                    record_type="resource", uri="http://example.com/resource.html",
                    content_type="text/html; charset=utf-8"),
        warc_record(rid(name, 2), b""),
    ]
    return b"".join(recs), {
        "rows": {
            rid(name, 0): {"status": ["failed", "decoded"], "error_kind": ["http-parse", None]},
            rid(name, 1): {"status": ["decoded"],
                           "text": page("resource record: text/html without HTTP headers").decode()},
            # an empty block has no HTTP message at all
            rid(name, 2): {"status": ["skipped", "failed"],
                           "error_kind": [None, "http-parse", "no-payload"]},
        },
        "cut_short": False,
    }


def b_warc_017(name):
    recs = [
        warc_record(rid(name, 0), http_block(page("WARC/0.17 record")), version=b"WARC/0.17"),
        warc_record(rid(name, 1), http_block(page("WARC/0.18 record")), version=b"WARC/0.18"),
    ]
    return b"".join(recs), {
        "rows": {rid(name, 0): {"status": ["decoded"], "text": page("WARC/0.17 record").decode()},
                 rid(name, 1): {"status": ["decoded"], "text": page("WARC/0.18 record").decode()}},
        "cut_short": False,
    }


def _arc_bytes():
    filedesc_body = (b"1 0 redecode-broken-inputs\n"
                     b"URL IP-address Archive-date Content-type Archive-length\n")
    out = [b"filedesc://broken.arc 0.0.0.0 20261101120000 text/plain %d\n" % len(filedesc_body)
           + filedesc_body + b"\n"]
    for i in range(2):
        blk = http_block(page(f"ARC record {i}"),
                         [(b"Content-Type", b"text/html; charset=utf-8")]).replace(b"\r\n", b"\n")
        out.append(b"http://example.com/arc%d.html 93.184.216.34 20261101120000 text/html %d\n"
                   % (i, len(blk)) + blk + b"\n")
    return out


def b_arc(name):
    return b"".join(_arc_bytes()), {
        "rows_by_uri": {f"http://example.com/arc{i}.html": {"status": ["decoded"],
                                                           "text": page(f"ARC record {i}").decode()}
                        for i in range(2)},
        "cut_short": False,
    }


def b_arc_gz(name):
    return b"".join(gz(r) for r in _arc_bytes()), b_arc(name)[1]


def b_arc_no_blank_lines(name):
    """An ARC v1 file whose records follow each other with no newline between some of them (as
    Heritrix wrote webarchive-commons' IAH-20080430204825-00000-blackbook-truncated.arc): the
    declared lengths say where each record ends, as the Java ARC readers read them."""
    filedesc_body = (b"1 0 redecode-broken-inputs\n"
                     b"URL IP-address Archive-date Content-type Archive-length\n")  # (no newline after it)
    out = [b"filedesc://arc-no-blank-lines.arc 0.0.0.0 20261101120000 text/plain %d\n" % len(filedesc_body)
           + filedesc_body]
    for i in range(3):
        blk = http_block(page(f"ARC record {i}, no blank line"),
                         [(b"Content-Type", b"text/html; charset=utf-8")]).replace(b"\r\n", b"\n")
        out.append(b"http://example.com/nb%d.html 93.184.216.34 2026110112000%d text/html %d\n"
                   % (i, i, len(blk)) + blk + (b"\n" if i == 1 else b""))  # only the second has one
    return b"".join(out), {
        "rows_by_uri": {f"http://example.com/nb{i}.html": {"status": ["decoded"],
                                                          "text": page(f"ARC record {i}, no blank line").decode()}
                        for i in range(3)},
        "cut_short": False,
    }


def b_revisit(name):
    a = warcio_response(rid(name, 0), page("original"))
    http = http_block(b"", [(b"Content-Type", b"text/html; charset=utf-8")])
    b = warc_record(rid(name, 1), http, record_type="revisit", extra=[
        ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"),
        ("WARC-Refers-To", rid(name, 0)),
        ("WARC-Payload-Digest", "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    ])
    req = warc_record(rid(name, 2), b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
                      record_type="request", content_type="application/http; msgtype=request")
    return a + b + req, {
        "rows": {rid(name, 0): {"status": ["decoded"], "text": page("original").decode()},
                 rid(name, 1): {"status": ["skipped"], "skip_reason": ["revisit"]}},
        "no_rows": [rid(name, 2)],
        "cut_short": False,
    }


def b_duplicate_ids(name):
    same = rid(name, 0)
    a = warcio_response(same, page("first copy"))
    b = warcio_response(same, page("second copy, same record id"))
    return a + b, {
        "duplicate_id": same, "rows_with_id": 2, "offsets": [0, len(a)],
        "texts": [page("first copy").decode(), page("second copy, same record id").decode()],
        "cut_short": False,
    }


def b_meta_cut(name):
    bodies = [
        b'<html><head><meta charset="shift_jis',
        b"<html><head><meta charset=shift_jis",
        b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-125',
        b"<html><head><meta",
        b"<",
    ]
    plain = [(b"Content-Type", b"text/html")]
    recs = [warc_record(rid(name, i), http_block(b, plain)) for i, b in enumerate(bodies)]
    return b"".join(recs), {
        "rows": {rid(name, i): {"status": ["decoded"], "text": b.decode("ascii")}
                 for i, b in enumerate(bodies)},
        "cut_short": False,
    }


def b_binary_as_html(name):
    rnd = random.Random(10)
    data = bytes(rnd.getrandbits(8) for _ in range(4096))
    recs = [warc_record(rid(name, 0), http_block(data, [(b"Content-Type", b"text/html")])),
            warc_record(rid(name, 1), http_block(data, [(b"Content-Type",
                                                         b"text/html; charset=utf-8")]))]
    return b"".join(recs), {
        "rows": {rid(name, 0): {"status": ["decoded"]},
                 rid(name, 1): {"status": ["decoded"], "decode_errors_min": 1}},
        # The author's-text rules weigh the declared UTF-8 (hundreds of U+FFFD) against the
        # candidates that decode cleanly: random bytes have no author's text, any clean one is as
        # good, so only the status is expected.
        "author_rows": {rid(name, 1): {"status": ["decoded"]}},
        "cut_short": False,
    }


def b_empty(name):
    return b"", {"rows": {}, "cut_short": False}


def b_not_an_archive(name):
    return b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, {
        "rows": {}, "cut_short": True, "error_offset_min": 0, "error_offset_max": 0,
    }


#: A Content-Length over the default record cap of 64 MiB (issue 25, item 1: 70 MiB).
OVER_CAP = 70 * MIB


def b_over_cap_length(name):
    a = warcio_response(rid(name, 0), page("before the record that claims 70 MiB"))
    blk = http_block(page("Content-Length claims 70 MiB, over the cap; the block is this page"))
    b = warc_record(rid(name, 1), blk, content_length=OVER_CAP)
    c = warcio_response(rid(name, 2), page("after it: inside what record 1 claims"))
    d = warcio_response(rid(name, 3), page("the last record"))
    return a + b + c + d, {
        # issue 25, item 1: a claim over the cap must not hide the records after it. Record 1's
        # claim swallows records 2 and 3 (WARC 1.1: a record ends at Content-Length): it fails,
        # and they are read at their own offsets; the input is damaged (exit 1).
        "rows": {rid(name, 0): {"status": ["decoded"], "text": page("before the record that claims 70 MiB").decode()},
                 rid(name, 1): {"status": ["failed"], "error_kind": ["truncated"]},
                 rid(name, 2): {"status": ["decoded"], "text": page("after it: inside what record 1 claims").decode()},
                 rid(name, 3): {"status": ["decoded"], "text": page("the last record").decode()}},
        "cut_short": True,
        "error_offset_min": len(a), "error_offset_max": len(a) + len(b),
    }


def b_over_cap_length_gz(name):
    body = page("Content-Length claims 70 MiB, over the cap; the gzip member holds this page")
    blk = http_block(body)
    recs = [warcio_response(rid(name, 0), page("before")),
            warc_record(rid(name, 1), blk, content_length=OVER_CAP),
            warcio_response(rid(name, 2), page("after"))]
    return b"".join(gz(r) for r in recs), {
        # the record's member ends after its page, and the next member starts a record: the block
        # is short (the claim lies), its bytes are all there: decoded, missing_bytes says how many
        # bytes the claim lacks (issue 25, items 1 and 7); the records after it are read (exit 0,
        # as for any Content-Length larger than a gzip member)
        "rows": {rid(name, 0): {"status": ["decoded"]},
                 rid(name, 1): {"status": ["decoded"], "text": body.decode(),
                                "missing_bytes": OVER_CAP - len(blk)},
                 rid(name, 2): {"status": ["decoded"], "text": page("after").decode()}},
        "cut_short": False,
    }


def b_over_cap_at_end(name):
    a = warcio_response(rid(name, 0), page("first"))
    body = page("the last record claims 70 MiB and the file ends after this page")
    blk = http_block(body)
    b = warc_record(rid(name, 1), blk, content_length=OVER_CAP)[:-4]
    return a + b, {
        # issue 25, item 1: a file that ends inside a record claimed over the cap is cut short
        # (exit 1), not complete; the record keeps the text that is there (item 7)
        "rows": {rid(name, 0): {"status": ["decoded"]},
                 rid(name, 1): {"status": ["decoded"], "text": body.decode(), "missing_bytes": OVER_CAP - len(blk)}},
        "cut_short": True,
        "error_offset_min": len(a), "error_offset_max": len(a),
    }


def _prose(seed: int, words: int) -> str:
    """Seeded words that do not compress to nothing (the cut of a gzip member lands in the body)."""
    rnd = random.Random(seed)
    vocab = ["archive", "record", "block", "member", "payload", "text", "bytes", "crawl", "page",
             "encoding", "decode", "length", "offset", "header", "gzip", "Zeichen", "caf\u00e9"]
    return " ".join(rnd.choice(vocab) + str(rnd.randrange(1000)) for _ in range(words))


def b_cut_in_body(name):
    bodies = [page(f"record {i}: " + _prose(i, 400)) for i in range(3)]
    recs = [warcio_response(rid(name, i), bodies[i]) for i in range(3)]
    cut = len(recs[0]) + len(recs[1]) + len(recs[2]) - 4 - 500  # 500 bytes of record 2's block gone
    return b"".join(recs)[:cut], {
        # issue 25, item 7: the cut record keeps the text that is there, marked by missing_bytes
        # and a warning; the input is cut short (exit 1)
        "rows": {rid(name, 0): {"status": ["decoded"], "text": bodies[0].decode()},
                 rid(name, 1): {"status": ["decoded"], "text": bodies[1].decode()},
                 rid(name, 2): {"status": ["decoded"], "text": bodies[2][:-500].decode(),
                                "missing_bytes": 500}},
        "cut_short": True,
        "error_offset_min": len(recs[0]) + len(recs[1]), "error_offset_max": len(recs[0]) + len(recs[1]),
    }


def b_cut_in_body_gz(name):
    bodies = [page(f"record {i}: " + _prose(10 + i, 400)) for i in range(3)]
    members = [gz(warcio_response(rid(name, i), bodies[i])) for i in range(3)]
    third = len(members[0]) + len(members[1])
    cut = third + len(members[2]) * 3 // 4  # inside the deflate data of the body
    return b"".join(members)[:cut], {
        # issue 25, item 7: what inflated of the cut member is kept (a prefix of the page)
        "rows": {rid(name, 0): {"status": ["decoded"], "text": bodies[0].decode()},
                 rid(name, 1): {"status": ["decoded"], "text": bodies[1].decode()},
                 rid(name, 2): {"status": ["decoded"], "text_prefix_of": bodies[2].decode(),
                                "text_min_chars": 200, "missing_bytes_min": 1}},
        "cut_short": True,
        "error_offset_min": third, "error_offset_max": third,
    }


def b_cut_in_http_head(name):
    a = warcio_response(rid(name, 0), page("first"))
    b = warcio_response(rid(name, 1), page("the file ends inside this record's HTTP head"))
    head_end = b.index(b"\r\n\r\n") + 4  # the WARC header
    return a + b[: head_end + 20], {
        # nothing of the payload is there: failed (truncated), never the HTTP head taken for text
        "rows": {rid(name, 0): {"status": ["decoded"]},
                 rid(name, 1): {"status": ["failed"], "error_kind": ["truncated"]}},
        "cut_short": True,
        "error_offset_min": len(a), "error_offset_max": len(a),
    }


def b_no_blank_line(name):
    body = page("this record's Content-Length counts the CRLFCRLF after its block")
    blk = http_block(body)
    # webarchive-commons' link-extraction-test.warc: the next version line follows at once
    a = warc_record(rid(name, 0), blk, content_length=len(blk) + 4)
    b = warcio_response(rid(name, 1), page("the record right after it"))
    c = warcio_response(rid(name, 2), page("third"))
    return a + b + c, {
        # issue 25, item 5: the version line right after the block starts record 1 (FastWARC reads
        # it so; warcio skips it as a stray line and loses the record)
        "rows": {rid(name, 0): {"status": ["decoded"]},
                 rid(name, 1): {"status": ["decoded"], "text": page("the record right after it").decode()},
                 rid(name, 2): {"status": ["decoded"], "text": page("third").decode()}},
        "cut_short": False,
    }


def b_split_over_members(name):
    body = page("this record's header and its body are two gzip members")
    rec = warcio_response(rid(name, 0), body)[:-4]
    split = rec.index(b"\r\n\r\n", rec.index(b"\r\n\r\n") + 4) + 4  # after the HTTP head
    nxt = warcio_response(rid(name, 1), page("the record after it"))
    # warcio's example-wrong-chunks.warc.gz: header + HTTP head, body, then CRLFCRLF + next record
    return gz(rec[:split]) + gz(rec[split:]) + gz(b"\r\n\r\n" + nxt), {
        # issue 25, item 6: read across the members (gzip's concatenation is the file, RFC 1952)
        "rows": {rid(name, 0): {"status": ["decoded"], "text": body.decode()},
                 rid(name, 1): {"status": ["decoded"], "text": page("the record after it").decode()}},
        "cut_short": False,
    }


def b_escape_sequences(name):
    a = warcio_response(rid(name, 0), page("before the escape sequences"))
    # terminal control sequences (set the window title, clear the screen, a C1 CSI, bidi override)
    junk = b"\x1b]0;archive says hello\x07\x1b[2J\x1b[31mred\x9b2J\xe2\x80\xae\r\n"
    b = warcio_response(rid(name, 1), page("after them"))
    return a + junk + b, {
        # issue 25, item 12: the damaged stretch is quoted in the message, escaped (never raw bytes
        # on the terminal); the record after it is read
        "rows": {rid(name, 0): {"status": ["decoded"]},
                 rid(name, 1): {"status": ["decoded"], "text": page("after them").decode()}},
        "cut_short": True,
        "error_offset_min": len(a), "error_offset_max": len(a),
        "message_has": "\\x1b]0;archive says hello\\x07",
    }


SPECS: list[Spec] = [
    Spec("truncated-member.warc.gz", "a .warc.gz whose file ends inside its third gzip member",
         "rows for records 0-1; input cut short (exit 1); error names the third member's offset",
         b_truncated_member),
    Spec("garbage-between.warc", "garbage bytes between two records",
         "rows for records 0 and 1 (found by resynchronising); damaged (exit 1) at the garbage offset",
         b_garbage_between),
    Spec("damaged-member.warc.gz", "a .warc.gz with one byte flipped in its second gzip member",
         "rows for records 0 and 2; the second member damaged (exit 1) at its offset",
         b_damaged_member),
    Spec("content-length-larger.warc", "a Content-Length 40 bytes larger than the block, mid-file",
         "row for record 0; the damaged record 1 and later ones read or an error with offset",
         b_cl_larger),
    Spec("content-length-swallows.warc",
         "a Content-Length that covers the next record and ends one line short of the one after",
         "row for record 0; record 1 read, or an error (never exit 0 with record 1 lost)",
         b_cl_swallows),
    Spec("content-length-larger-at-end.warc",
         "the last record's Content-Length runs past the end of the file",
         "row for record 0; cut short (exit 1) with the last record's offset", b_cl_larger_at_end),
    Spec("content-length-smaller.warc", "a Content-Length 30 bytes smaller than the block",
         "row for record 0; record 1 read, or an error naming the leftover bytes' offset",
         b_cl_smaller),
    Spec("bad-chunked.warc", "chunked: non-hex first size; short last chunk; bad later size",
         "a row each; bad size after good chunks fails (chunked); the valid control decodes",
         b_bad_chunked),
    Spec("not-gzip.warc", "Content-Encoding gzip that is plain HTML / a cut gzip / bad br",
         "failed rows (content-encoding); a cut gzip may decode its prefix; the control decodes",
         b_not_gzip),
    Spec("gzip-bomb.warc.gz", "a ~80 KB gzip payload that inflates to 80 MiB",
         "failed row, error_kind too-large, memory bounded; the next record decodes", b_gzip_bomb),
    Spec("coding-bombs.warc.gz", "br, zstd, deflate and 'gzip, gzip' payloads inflating to 80 MiB",
         "failed rows, error_kind too-large, memory bounded; a zstd control decodes",
         b_coding_bombs),
    Spec("big-record.warc.gz", "a 100 MB text/html record (one ~100 KB gzip member)",
         "failed row, error_kind too-large (over 64 MiB), memory bounded; next record decodes",
         b_big_record),
    Spec("bad-http-headers.warc.gz", "HTTP headers with NUL bytes, non-ASCII bytes, a 1 MB line",
         "a row each; NUL / non-ASCII header values do not stop decoding", b_bad_http_headers),
    Spec("no-http-headers.warc", "a response record without HTTP headers; resource; empty block",
         "a row each; the resource record decodes", b_no_http_headers),
    Spec("warc-0.17.warc", "WARC/0.17 and WARC/0.18 records", "both decode", b_warc_017),
    Spec("broken.arc", "an ARC v1 file (filedesc + 2 responses)", "both responses decode", b_arc),
    Spec("broken.arc.gz", "the same ARC, one gzip member per record", "both responses decode",
         b_arc_gz),
    Spec("arc-no-blank-lines.arc", "an ARC v1 file without newlines between most records",
         "every response decodes, read by the declared lengths", b_arc_no_blank_lines),
    Spec("revisit.warc", "a response, its revisit, and a request",
         "response decoded, revisit skipped (revisit), request counted but no row", b_revisit),
    Spec("duplicate-ids.warc", "two records with the same WARC-Record-ID",
         "two rows, told apart by warc_offset", b_duplicate_ids),
    Spec("meta-cut.warc", "payloads ending inside a <meta> tag",
         "each decodes (an unfinished meta is not a declaration)", b_meta_cut),
    Spec("binary-as-html.warc", "4 KB of random bytes served as text/html",
         "decoded (with U+FFFD where the bytes are not text)", b_binary_as_html),
    Spec("empty.warc", "a zero-byte file", "no rows, exit 0", b_empty),
    Spec("not-an-archive.warc", "a PNG-like file named .warc",
         "no rows; cut short (exit 1) with offset 0", b_not_an_archive),
    Spec("over-cap-length.warc", "a Content-Length of 70 MiB (over the cap) on a short block, mid-file",
         "that record failed (truncated); the records its claim covers read (damaged, exit 1)",
         b_over_cap_length),
    Spec("over-cap-length.warc.gz", "a Content-Length of 70 MiB on a short block in its own gzip member",
         "decoded with missing_bytes; the records after it read (exit 0)", b_over_cap_length_gz),
    Spec("over-cap-at-end.warc", "the last record claims 70 MiB and the file ends after its block",
         "its text kept, missing_bytes set; cut short (exit 1), not complete", b_over_cap_at_end),
    Spec("cut-in-body.warc", "a .warc that ends 500 bytes before the end of its last block",
         "the cut record decoded with the text there, missing_bytes 500; cut short (exit 1)", b_cut_in_body),
    Spec("cut-in-body.warc.gz", "a .warc.gz that ends inside the deflate data of its last member",
         "the cut record decoded with what inflated, missing_bytes set; cut short (exit 1)", b_cut_in_body_gz),
    Spec("cut-in-http-head.warc", "a .warc that ends inside a record's HTTP head",
         "that record failed (truncated), no text; cut short (exit 1)", b_cut_in_http_head),
    Spec("no-blank-line.warc", "a Content-Length that counts the CRLFCRLF: the next version line follows the block",
         "every record read (exit 0)", b_no_blank_line),
    Spec("split-over-members.warc.gz", "a record whose header and body are two gzip members",
         "read across the members; the next record read (exit 0)", b_split_over_members),
    Spec("escape-sequences.warc", "terminal escape sequences (title, clear screen, CSI, bidi) between records",
         "the message quotes them escaped (no control character on stderr); the next record read",
         b_escape_sequences),
]


# ------------------------------ test-time generators (not committed) ------------------------------

def big_payload_warc(path: str, payload_head: bytes, unit: bytes, total_bytes: int,
                     *, content_type: bytes = b"text/html", record_id: str | None = None) -> None:
    """Write one response record whose payload is ``payload_head`` + ``unit`` repeated to
    ``total_bytes`` bytes (plain .warc, streamed: memory stays at one MiB of buffer)."""
    n = (total_bytes - len(payload_head)) // len(unit)
    payload_len = len(payload_head) + n * len(unit)
    head = http_block(b"", [(b"Content-Type", content_type)])
    header = warc_record(record_id or rid(os.path.basename(path), 0), b"",
                         content_length=len(head) + payload_len)[:-4]
    per = max(1, MIB // len(unit))
    with open(path, "wb") as f:
        f.write(header + head + payload_head)
        left = n
        block = unit * per
        while left:
            k = min(left, per)
            f.write(block if k == per else unit * k)
            left -= k
        f.write(b"\r\n\r\n")


def corpus_warc(path: str, n_records: int, *, seed: int, body_bytes: int = 4000) -> list[str]:
    """A valid multi-record .warc.gz (one member per record) for crash/resume tests; returns ids."""
    rnd = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "caf\u00e9", "na\u00efve", "\u65e5\u672c"]
    ids = []
    with open(path, "wb") as f:
        for i in range(n_records):
            text = " ".join(rnd.choice(words) for _ in range(body_bytes // 6))
            charset = ["utf-8", "windows-1252", "shift_jis"][i % 3]
            body = page(text, "utf-8").decode().encode(charset, "replace")
            r = rid(f"{os.path.basename(path)}-{seed}", i)
            ids.append(r)
            f.write(gz(warcio_response(r, body, uri=f"http://example.com/{seed}/{i}",
                                       headers=[("Content-Type", f"text/html; charset={charset}")])))
    return ids


def build(out: str) -> dict:
    """Write every broken input, README.md and expected.json into ``out``; return expected."""
    os.makedirs(out, exist_ok=True)
    expected = {}
    for spec in SPECS:
        data, exp = spec.build(spec.name)
        with open(os.path.join(out, spec.name), "wb") as f:
            f.write(data)
        exp.update({"tests": spec.tests, "expect": spec.expect, "size": len(data)})
        expected[spec.name] = exp
    with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    lines = [
        "# Broken inputs",
        "",
        "Generated by `tools/make_broken_inputs.py` (deterministic; rerun it to rebuild, never edit",
        "by hand). Written for this project; Apache-2.0 like the rest of the repository. Per-file",
        "expectations, read by `tests/test_broken_inputs.py`, are in `expected.json`.",
        "",
        "Not committed, generated at test time: 10 MB payloads of `<` and of `<meta ` repeated",
        "(`big_payload_warc`), and a multi-archive corpus for the SIGKILL crash test (`corpus_warc`).",
        "",
        "| file | bytes | what it tests | what the job must do |",
        "|---|---:|---|---|",
    ]
    for spec in SPECS:
        lines.append(f"| `{spec.name}` | {expected[spec.name]['size']:,} | {spec.tests} "
                     f"| {spec.expect} |")
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return expected


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: tests/data/broken)")
    args = ap.parse_args()
    expected = build(args.out)
    total = sum(e["size"] for e in expected.values())
    print(f"wrote {len(expected)} inputs, {total:,} bytes, to {os.path.normpath(args.out)}")


if __name__ == "__main__":
    main()
