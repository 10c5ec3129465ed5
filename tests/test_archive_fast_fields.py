"""redecode.archive: the FastWARC path's WARC field extraction (``_layout_fields``, with its cache of
name sequences) gives what the byte-level reading (``_fast_fields``) gives, on odd header blocks too:
duplicate names in other letter cases, spaces around names, fields missing, values with colons.
Both follow warcio (first value of each name, ASCII case-insensitive, stripped); the identity test
against warcio on every corpus WARC is ``test_archive.py::test_auto_reader_identical_to_warcio``.
"""

from __future__ import annotations

import io

import pytest
from fastwarc.warc import ArchiveIterator

from redecode import archive, warc

HEADS = [
    b"WARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n"
    b"WARC-Target-URI: http://example.com/a:b\r\nContent-Type: application/http; msgtype=response\r\n"
    b"WARC-Payload-Digest: sha1:AAAA\r\n",
    # duplicates in other cases: the first one counts
    b"warc-type: resource\r\nWARC-Type: response\r\nWARC-RECORD-ID: <urn:uuid:2>\r\n"
    b"WARC-Record-ID: <urn:uuid:3>\r\nContent-Type: text/html\r\n",
    # space before the colon, padded values, a field missing, an unknown field
    b"WARC-Type : request\r\nWARC-Record-ID:   <urn:uuid:4>   \r\nX-Other: 1\r\n"
    b"WARC-Date:2026-01-01T00:00:00Z\r\n",
    # the same layout again (served from the cache) with other values
    b"WARC-Type : metadata\r\nWARC-Record-ID:   <urn:uuid:5>\r\nX-Other: 2\r\n"
    b"WARC-Date:2026-02-02T00:00:00Z\r\n",
]


def _warc(head_fields: bytes) -> bytes:
    block = b"hello"
    return b"WARC/1.0\r\n" + head_fields + b"Content-Length: 5\r\n\r\n" + block + b"\r\n\r\n"


@pytest.mark.parametrize("fields", HEADS, ids=range(len(HEADS)))
def test_layout_fields_equal_byte_fields(fields):
    data = _warc(fields)
    (rec,) = list(ArchiveIterator(io.BytesIO(data), parse_http=False))
    buf = io.BytesIO()
    rec.headers.write(buf)
    head = buf.getvalue()
    assert head.isascii()
    want = warc._fast_fields(head, rec.headers.items_bytes)
    assert warc._layout_fields(rec.headers) == want
    assert warc._layout_fields(rec.headers) == want  # cached layout
    assert want["content-length"] == "5"


def test_layout_fields_on_a_file_match_warcio(tmp_path):
    p = tmp_path / "odd.warc"
    p.write_bytes(b"".join(_warc(f) for f in HEADS))
    auto = [r for r in archive.iter_records(str(p))]
    ref = [r for r in archive.iter_records(str(p), reader="warcio")]
    assert auto == ref
    assert [r.record_type for r in auto] == ["response", "resource", "request", "metadata"]
    assert [r.record_id for r in auto] == [f"<urn:uuid:{i}>" for i in (1, 2, 4, 5)]
    assert auto[0].target_uri == "http://example.com/a:b"
