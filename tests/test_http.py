"""redecode.http: HTTP/1.x response heads, chunked transfer coding, content codings with a cap.

Expected values come from RFC 9112 / RFC 9110 and the coding RFCs (the bytes are produced here with
the reference encoders: zlib, gzip, brotli, zstandard), never from the code under test.
"""

from __future__ import annotations

import gzip
import random
import time
import zlib

import brotli
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from redecode.http import (
    DEFAULT_MAX_BYTES,
    decode_body,
    decode_content,
    dechunk,
    header_values,
    parse_response_head,
)

PAGE = b"<!doctype html><title>caf\xe9</title>" + b"<p>hello world</p>\n" * 200


# ---------------------------------------------------------------- head


def test_status_line_and_headers():
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-A: 1\r\n\r\nBODY"
    head = parse_response_head(block)
    assert head.version == "HTTP/1.1"
    assert head.status == 200
    assert head.reason == "OK"
    assert head.headers == [("Content-Type", "text/html"), ("X-A", "1")]
    assert block[head.head_length :] == b"BODY"
    assert head.terminated


@pytest.mark.parametrize(
    "line, status, reason",
    [
        (b"HTTP/1.0 302", 302, ""),  # pywb missing-status-text.warc
        (b"HTTP/1.0 302 ", 302, ""),
        (b"HTTP/1.1 404 Not Found", 404, "Not Found"),
        (b"HTTP/1.1 200 Very  OK ", 200, "Very  OK"),
        (b"HTTP/1.1 abc", None, "abc"),
        (b"HTTP/1.1", None, ""),
    ],
)
def test_status_line_variants(line, status, reason):
    head = parse_response_head(line + b"\r\nA: b\r\n\r\n")
    assert (head.status, head.reason) == (status, reason)
    assert head.headers == [("A", "b")]


def test_http09_block_is_all_body():
    assert parse_response_head(b"<html>no head</html>") is None
    assert parse_response_head(b"") is None


def test_repeated_headers_kept_in_order():
    head = parse_response_head(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\n"
        b"content-type: text/html; charset=utf-8\r\nSet-Cookie: b=2\r\n\r\n"
    )
    assert header_values(head.headers, "Content-Type") == ["text/html", "text/html; charset=utf-8"]
    assert header_values(head.headers, "SET-COOKIE") == ["a=1", "b=2"]
    assert [k for k, _ in head.headers] == ["Content-Type", "Set-Cookie", "content-type", "Set-Cookie"]


def test_obs_fold_joined_with_space():
    head = parse_response_head(b"HTTP/1.1 200 OK\r\nX-Long: one\r\n  two\r\n\tthree\r\nY: z\r\n\r\n")
    assert head.headers == [("X-Long", "one two three"), ("Y", "z")]


def test_nul_and_non_ascii_bytes_kept_as_latin1():
    head = parse_response_head(b"HTTP/1.1 200 OK\r\nX-Bin: a\x00b\xe9\xff\r\nCaf\xe9: v\r\n\r\n")
    assert head.headers == [("X-Bin", "a\x00b\xe9\xff"), ("Caf\xe9", "v")]
    # lossless: latin-1 re-encoding gives the bytes back
    assert head.headers[0][1].encode("latin-1") == b"a\x00b\xe9\xff"


def test_megabyte_header_line_survives():
    value = b"x" * (1024 * 1024)
    block = b"HTTP/1.1 200 OK\r\nX-Big: " + value + b"\r\nContent-Type: text/plain\r\n\r\nbody"
    t0 = time.process_time()
    head = parse_response_head(block)
    assert time.process_time() - t0 < 1.0
    assert head.headers[0] == ("X-Big", value.decode())
    assert header_values(head.headers, "content-type") == ["text/plain"]
    assert block[head.head_length :] == b"body"


def test_lf_only_and_stray_cr():
    head = parse_response_head(b"HTTP/1.0 200 OK\nA: 1\nB: 2\n\nbody")
    assert head.headers == [("A", "1"), ("B", "2")]
    assert head.head_length == len(b"HTTP/1.0 200 OK\nA: 1\nB: 2\n\n")
    # "\r\r\n" line ends (pywb missing-status-text.warc): the CR is not part of the value
    head = parse_response_head(b"HTTP/1.0 302\r\r\nLocation: /x\r\r\n\r\r\n")
    assert head.headers == [("Location", "/x")]


def test_body_bytes_that_look_like_a_blank_line_are_not_the_head_end():
    block = b"HTTP/1.1 200 OK\r\nA: 1\r\n\r\nline\n\nmore"
    head = parse_response_head(block)
    assert block[head.head_length :] == b"line\n\nmore"


def test_unterminated_head():
    head = parse_response_head(b"HTTP/1.1 200 OK\r\nA: 1\r\nB: 2")
    assert not head.terminated
    assert head.headers == [("A", "1"), ("B", "2")]
    assert head.head_length == len(b"HTTP/1.1 200 OK\r\nA: 1\r\nB: 2")


def test_line_without_colon_dropped():
    head = parse_response_head(b"HTTP/1.1 200 OK\r\ngarbage line\r\nA: 1\r\n\r\n")
    assert head.headers == [("A", "1")]


# ---------------------------------------------------------------- chunked


def _chunked(data: bytes, size: int = 7) -> bytes:
    out = b""
    for i in range(0, len(data), size):
        part = data[i : i + size]
        out += b"%X\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def test_dechunk_roundtrip():
    assert dechunk(_chunked(PAGE)) == (PAGE, None, True)


def test_dechunk_extensions_and_trailers():
    body = b"5;name=value\r\nhello\r\n6 ; x\r\n world\r\n0\r\nTrailer: v\r\n\r\n"
    assert dechunk(body) == (b"hello world", None, True)


def test_dechunk_truncated_keeps_what_arrived():
    full = _chunked(PAGE)
    data, err, was = dechunk(full[: len(full) // 2])
    assert err is None and was
    assert PAGE.startswith(data) and len(data) > len(PAGE) // 3


def test_dechunk_first_line_not_hex_means_not_chunked():
    assert dechunk(PAGE) == (PAGE, None, False)


def test_dechunk_bad_later_size_is_error():
    data, err, was = dechunk(b"5\r\nhello\r\nzz\r\nmore\r\n0\r\n\r\n")
    assert data is None and was
    assert "chunk-size" in err


def test_decode_body_chunked_error_kind():
    res = decode_body(b"5\r\nhello\r\nzz\r\n", [("Transfer-Encoding", "chunked")])
    assert (res.payload, res.error_kind) == (None, "chunked")


def test_decode_body_not_chunked_fallback_warns():
    res = decode_body(PAGE, [("Transfer-Encoding", "chunked")])
    assert res.payload == PAGE and res.error_kind is None and "not chunked" in res.warning


# ---------------------------------------------------------------- content codings


def _raw_deflate(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


ENCODERS = {
    "gzip": lambda d: gzip.compress(d, mtime=0),
    "x-gzip": lambda d: gzip.compress(d, mtime=0),
    "deflate": zlib.compress,
    "br": brotli.compress,
    "zstd": lambda d: zstandard.ZstdCompressor().compress(d),
}


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_content_coding_roundtrip(coding):
    res = decode_content(ENCODERS[coding](PAGE), coding)
    assert (res.payload, res.error_kind, res.warning) == (PAGE, None, None)


def test_content_deflate_raw():
    assert decode_content(_raw_deflate(PAGE), "deflate").payload == PAGE


def test_content_gzip_extra_members_ignored():
    # Chromium's GzipSourceStream ignores bytes after the first member (STATE_IGNORING_EXTRA_BYTES)
    data = gzip.compress(PAGE[:100], mtime=0) + gzip.compress(PAGE[100:], mtime=0)
    assert decode_content(data, "gzip").payload == PAGE[:100]


def test_content_zstd_streamed_frame_without_size():
    cobj = zstandard.ZstdCompressor().compressobj()
    data = cobj.compress(PAGE) + cobj.flush()
    assert decode_content(data, "zstd").payload == PAGE


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate", "br", "zstd"])
def test_content_not_encoded_is_error(coding):
    # Decision: a payload that is not in the declared coding is an error (failed row), as Chromium
    # fails the response with ERR_CONTENT_DECODING_FAILED; warcio would pass the bytes through.
    res = decode_content(PAGE, coding)
    assert res.payload is None and res.error_kind == "content-encoding", res


@pytest.mark.parametrize("coding", ["gzip", "deflate", "zstd"])
def test_content_corrupt_is_error(coding):
    good = ENCODERS[coding](PAGE)
    keep = {"gzip": 10, "deflate": 2, "zstd": 6}[coding]
    bad = good[:keep] + bytes(b ^ 0x5A for b in good[keep : keep + 40]) + good[keep + 40 :]
    res = decode_content(bad, coding)
    assert res.payload is None and res.error_kind == "content-encoding", res


def test_content_br_corrupt_is_error():
    rnd = random.Random(7)
    text = " ".join(rnd.choice(["alpha", "beta", "gamma", "delta", "caf\u00e9"]) + str(rnd.randrange(999))
                    for _ in range(3000)).encode("utf-8")
    good = brotli.compress(text)
    bad = good[: len(good) // 2] + b"\xff" * 200
    res = decode_content(bad, "br")
    # br has no checksum: damage is noticed as an error or as a stream without its end, never silently
    assert res.error_kind == "content-encoding" or (res.payload is not None and "ends early" in res.warning)
    assert decode_content(b"\x00\x01not brotli\xff" * 8, "br").error_kind == "content-encoding"


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd"])
def test_content_truncated_keeps_partial(coding):
    # a capture cut short (WARC-Truncated, crawler size limits): keep what arrived, as Chromium shows it
    data = ENCODERS[coding](PAGE * 20)
    res = decode_content(data[: len(data) // 2], coding)
    assert res.error_kind is None, res
    assert (PAGE * 20).startswith(res.payload) and "ends early" in res.warning


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd"])
def test_content_bomb_over_cap_is_too_large(coding):
    bomb = ENCODERS[coding](b"\0" * (3 * 1024 * 1024))
    assert len(bomb) < 64 * 1024
    res = decode_content(bomb, coding, max_bytes=1024 * 1024)
    assert res.payload is None and res.error_kind == "too-large"


def test_content_exactly_at_cap_is_fine():
    res = decode_content(gzip.compress(b"a" * 4096, mtime=0), "gzip", max_bytes=4096)
    assert res.payload == b"a" * 4096


def test_default_cap_is_64_mib():
    assert DEFAULT_MAX_BYTES == 64 * 1024 * 1024


@pytest.mark.parametrize("coding", ["compress", "null", "none", "utf-8"])
def test_unknown_coding_passes_through_with_a_warning(coding):
    """Chromium passes a body whose coding it does not know through unchanged
    (URLRequestHttpJob::SetUpSourceStream: "Unknown encoding type. Pass through raw response
    body."), so a JPEG sent with ``Content-Encoding: null`` is still an image, not a failure."""
    res = decode_content(PAGE, coding)
    assert res.payload == PAGE and res.error_kind is None
    assert coding in res.warning


def test_decode_body_orders():
    # Content-Encoding lists codings in the order applied: remove them in reverse (RFC 9110)
    body = brotli.compress(gzip.compress(PAGE, mtime=0))
    assert decode_body(body, [("Content-Encoding", "gzip, br")]).payload == PAGE
    body = zstandard.ZstdCompressor().compress(gzip.compress(PAGE, mtime=0))
    hdrs = [("Content-Encoding", "gzip"), ("Content-Encoding", "zstd")]
    assert decode_body(body, hdrs).payload == PAGE
    # chunked is removed first, then the content coding
    body = _chunked(gzip.compress(PAGE, mtime=0))
    hdrs = [("Transfer-Encoding", "chunked"), ("Content-Encoding", "GZIP")]
    assert decode_body(body, hdrs).payload == PAGE
    # a transfer coding before chunked ("gzip, chunked") is removed after dechunking
    assert decode_body(body, [("Transfer-Encoding", "gzip, chunked")]).payload == PAGE
    # identity is no coding
    assert decode_body(PAGE, [("Content-Encoding", "identity")]).payload == PAGE


def test_decode_body_cap_applies_to_plain_body():
    res = decode_body(b"x" * 100, [], max_bytes=99)
    assert res.error_kind == "too-large"


# ---------------------------------------------------------------- totality


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_parse_head_total(data):
    head = parse_response_head(b"HTTP/1.1 " + data)
    assert 0 <= head.head_length <= len(data) + 9


@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=400),
    st.lists(st.sampled_from(["gzip", "deflate", "br", "zstd", "chunked", "identity", "x"]), max_size=3),
)
def test_decode_body_total(data, codings):
    hdrs = [("Transfer-Encoding", "chunked")] if "chunked" in codings else []
    hdrs += [("Content-Encoding", c) for c in codings if c != "chunked"]
    res = decode_body(data, hdrs, max_bytes=10_000)
    assert (res.payload is None) == (res.error_kind is not None)
    assert res.payload is None or len(res.payload) <= 10_000
