"""Memory of a very large record (issue 27): the readers keep no reference to a record's bytes
while its row is made and written, and the part writer does not copy a large text into a joined
buffer. The peak itself is measured by tests/benchmarks/big_records.py (a speed or memory goal is
never a timed test); these pin the mechanisms it relies on and that the rows stay the same."""

from __future__ import annotations

import gc
import gzip
import inspect

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from redecode.archive import iter_records
from redecode.job import process_archive
from redecode.rules import DEFAULT_RULES, RULES
from redecode.schema import COLUMNS
from redecode.writer import DATA_PAGE_VERSION, OWN_BUFFER_BYTES, TEXT_UTF8_SLOT, PartWriter, _string_array


def _record(n: int, body: bytes) -> bytes:
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=windows-1251\r\n\r\n" + body
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{n:012d}>\r\n"
            f"WARC-Date: 2026-11-01T12:00:00Z\r\nWARC-Target-URI: http://example.com/{n}\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(block)}\r\n\r\n")
    return head.encode() + block + b"\r\n\r\n"


def _pages() -> list[bytes]:
    return [("<p>" + "Архивы Интернета " * k + "</p>").encode("cp1251") for k in (3, 5000, 7)]


@pytest.fixture(params=["gzip", "plain"])
def warc(request, tmp_path):
    records = [_record(i, p) for i, p in enumerate(_pages())]
    path = tmp_path / ("a.warc.gz" if request.param == "gzip" else "a.warc")
    path.write_bytes(b"".join(gzip.compress(r) for r in records) if request.param == "gzip" else b"".join(records))
    return str(path)


def _generators_holding(obj) -> list[str]:
    return [r.gi_code.co_name for r in gc.get_referrers(obj) if inspect.isgenerator(r)]


@pytest.mark.parametrize("reader", ["auto", "warcio"])
def test_the_readers_keep_no_reference_to_a_record_they_yielded(warc, reader):
    """While the caller holds a record, no generator of the reading path holds it or its payload:
    the record's bytes go when the caller lets the record go (before the next record is read)."""
    seen = 0
    for record in iter_records(warc, reader=reader):
        if record.payload is None:
            continue
        seen += 1
        assert _generators_holding(record) == []
        assert [type(r).__name__ for r in gc.get_referrers(record.payload)] == ["ArchiveRecord"]
    assert seen == 3


def test_the_job_keeps_no_reference_to_a_record_while_its_row_is_written(warc):
    """The rows process_archive yields (what the part writer takes) come when the record is gone."""
    rows = process_archive(warc, RULES[DEFAULT_RULES], utf8_text=True)
    n = 0
    for row in rows:
        alive = [o for o in gc.get_objects() if type(o).__name__ == "ArchiveRecord" and o.warc_path == warc]
        assert alive == [], "a record is still referenced while its row is handed on"
        assert row[TEXT_UTF8_SLOT] == _pages()[n].decode("cp1251").encode("utf-8")
        n += 1
    assert n == 3


def test_a_large_text_is_its_own_chunk_and_not_copied():
    big = "Ж".encode() * OWN_BUFFER_BYTES
    values = [b"a", None, big, b"bc", big + b"!", None]
    col = _string_array(values)
    assert isinstance(col, pa.ChunkedArray)
    assert col.to_pylist() == [v.decode() if v is not None else None for v in values]
    # the large values' buffers are their bytes objects as they are
    addresses = {pa.py_buffer(big).address, pa.py_buffer(values[4]).address}
    chunk_data = {c.buffers()[2].address for c in col.chunks if len(c) == 1 and c.null_count == 0
                  and c.buffers()[2].size >= OWN_BUFFER_BYTES}
    assert chunk_data == addresses
    small = [b"a", None, b"bc"]
    assert isinstance(_string_array(small), pa.StringArray)
    assert _string_array(small).to_pylist() == ["a", None, "bc"]


def test_a_part_with_large_texts_reads_back_the_same_rows(tmp_path):
    """Rows with texts around OWN_BUFFER_BYTES written in one row group read back as they were
    written, in data pages of DATA_PAGE_VERSION."""
    texts = ["x", None, "é" * OWN_BUFFER_BYTES, "y" * (OWN_BUFFER_BYTES - 1), "z" * OWN_BUFFER_BYTES, "end"]
    path = str(tmp_path / "p.parquet")
    with PartWriter(path, row_group_bytes=1 << 40) as w:
        for i, t in enumerate(texts):
            row = dict.fromkeys(COLUMNS)
            row.update(record_id=f"r{i}", text=t, text_length=None if t is None else len(t), ignored_labels=[],
                       conflict=[])
            w.write(row)
    f = pq.ParquetFile(path)
    assert f.metadata.num_row_groups == 1
    assert f.read(columns=["text"]).column("text").to_pylist() == texts
    assert DATA_PAGE_VERSION == "2.0"
