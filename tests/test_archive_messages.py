"""Input errors say what is wrong in the project's words, not warcio's exception class."""

from __future__ import annotations

import os

import pytest

from redecode.archive import ArchiveError, iter_records

BROKEN = os.path.join(os.path.dirname(__file__), "data", "broken")


def _error(path: str) -> ArchiveError:
    with pytest.raises(ArchiveError) as info:
        for _ in iter_records(path):
            pass
    return info.value


def test_garbage_where_a_record_should_start():
    exc = _error(os.path.join(BROKEN, "garbage-between.warc"))
    assert "no WARC record starts here" in str(exc)
    assert "this is not a WARC record" in str(exc)  # the line found there, quoted
    assert "ArchiveLoadFailed" not in str(exc) and "Invalid WARC record" not in str(exc)


def test_arc_with_a_cut_record(tmp_path):
    # an ARC whose second record header is cut to its date: warcio's "Unknown archive format"
    header = b"filedesc://x.arc 0.0.0.0 20080430204825 text/plain 76\n1 0 test\nURL IP-address Archive-date Content-type Archive-length\n"
    body = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nhi"
    rec = b"http://example.com/ 1.2.3.4 20080430204825 text/html %d\n" % len(body) + body + b"\n"
    path = tmp_path / "cut.arc"
    path.write_bytes(header.replace(b"76", str(len(header.split(b"\n", 1)[1])).encode()) + b"\n" + rec + b"20080430204825\n")
    exc = _error(str(path))
    assert "no WARC or ARC record starts here" in str(exc), str(exc)
    assert "(its first line: 20080430204825)" in str(exc) and "ArchiveLoadFailed" not in str(exc)


def test_raw_response_parquet_column_problems(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    missing = tmp_path / "missing.parquet"
    pq.write_table(pa.table({"url": ["http://a/"], "body": [b"x"]}), missing)
    assert "lacks column(s) content_type" in str(_error(str(missing)))
    numbers = tmp_path / "numbers.parquet"
    pq.write_table(pa.table({"url": ["http://a/"], "content_type": ["text/html"], "body": [1]}), numbers)
    assert "column body is int64, not binary (or string)" in str(_error(str(numbers)))


@pytest.mark.parametrize("into", [1, 5, 20])
def test_a_file_cut_inside_a_record_header_says_so(tmp_path, into):
    """Not 'no WARC record starts here ... the record before has a wrong Content-Length': the
    record before is whole, the file just ends inside this record's header."""
    src = os.path.join(os.path.dirname(__file__), "data", "warcs", "warcio", "example.warc")
    with open(src, "rb") as f:
        data = f.read()
    second = data.index(b"WARC/1.0", 1)
    cut = tmp_path / "cut.warc"
    cut.write_bytes(data[: second + into])
    exc = _error(str(cut))
    assert exc.offset == second
    # (20 bytes in, warcio has a header without Content-Length: that message says "cut short" too)
    assert "cut short" in str(exc) and "wrong Content-Length" not in str(exc), str(exc)


def test_bytes_that_are_not_text_are_quoted_short_and_escaped(tmp_path):
    """An offset inside a gzip member (an index's wrong offset) finds compressed bytes where a record
    should start: the message quotes a short escaped prefix of them, never hundreds of raw bytes."""
    import zlib

    path = tmp_path / "binary.warc"
    body = b"software: test\r\n"
    first = (b"WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n"
             b"WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Type: application/warc-fields\r\n"
             b"Content-Length: %d\r\n\r\n" % len(body) + body + b"\r\n\r\n")
    garbage = b"R\x00\xff\xad" + zlib.compress(bytes(range(256)) * 40).replace(b"\n", b"")
    path.write_bytes(first + garbage + b"\r\n" + first)
    exc = _error(str(path))
    message = str(exc)
    assert "no WARC record starts here" in message, message
    quoted = message.split("its first bytes (not text): ", 1)[1]
    assert quoted.startswith("R\\x00\\xff\\xad") and quoted.isascii() and quoted.isprintable()
    assert len(quoted.split("...")[0]) <= 40 and len(message) < 300, message
