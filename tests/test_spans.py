"""Reading the records an index selects: ``storage.read_range`` (one ranged read per record) and
``archive.read_records_at`` (an index's spans of one file, made into records by the same builder as
sequential reading), docs/DESIGN.md "The reading path".

What is proved: for every WARC and ARC file of the test data and the shared corpus, reading every
record by its (offset, length) gives exactly the records ``iter_records`` gives, field for field;
a span where no record can be read is reported (``damaged``) and the spans after it are still
read; a length of 0 (warcio's for a file gzipped as one stream) or None (a CDX without lengths)
reads the record as ``read_record_at`` does.
"""

from __future__ import annotations

import io
import glob
import os

import pytest

from redecode import storage
from redecode.archive import ArchiveError, iter_records, read_record_at, read_records_at
from redecode.record import Damage

import shared_paths

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "warcs")
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "sample_warcs"))
SHARED = str(shared_paths.CORPUS / "warcs")
SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".warc.gz.bad")


def _archives(root: str) -> list[str]:
    return sorted(f for f in glob.glob(os.path.join(root, "**", "*"), recursive=True) if f.endswith(SUFFIXES))


def _records(path: str) -> list:
    return _reading(iter_records(path, resync=True))[0]


def _reading(records) -> tuple[list, int | None]:
    """(the records, and the offset of the ArchiveError that ended the reading, or None)."""
    out = []
    try:
        for record in records:
            out.append(record)
    except ArchiveError as exc:
        return out, exc.offset  # the records before the damage are what an index of the file would hold
    return out, None


def _check_spans(path: str) -> None:
    records, cut = _reading(iter_records(path, resync=True))
    if not records:
        pytest.skip(f"{path}: no record")
    stream = read_records_at(path, [(r.offset, r.length) for r in records])
    got, span_cut = _reading(stream)
    assert got == records
    assert stream.damaged == []
    # a file that ends inside its last record: reading its spans says so there, as reading it whole
    # does (other damage ends a whole reading without a record: its spans then read cleanly)
    assert span_cut == (cut if cut is not None and records[-1].offset == cut and records[-1].missing_bytes is not None
                        else None)


@pytest.mark.parametrize("path", _archives(DATA) + _archives(SAMPLE),
                         ids=lambda p: os.path.relpath(p, HERE))
def test_spans_equal_sequential_reading(path):
    _check_spans(path)


@pytest.mark.corpus
def test_spans_equal_sequential_reading_shared():
    files = _archives(SHARED)
    if not files:
        pytest.skip(shared_paths.absent(SHARED))
    for path in files:
        _check_spans(path)


def test_missing_spans_are_reported_and_reading_goes_on(tmp_path):
    path = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")
    records = _records(path)
    size = os.path.getsize(path)
    spans = [(records[0].offset, records[0].length), (records[1].offset + 7, 100),
             (records[2].offset, records[2].length), (size + 10, 500)]
    stream = read_records_at(path, spans)
    got = list(stream)
    assert got == [records[0], records[2]]
    assert [(d.offset, d.length) for d in stream.damaged] == [(records[1].offset + 7, 100), (size + 10, 500)]
    assert "ends before this offset" in stream.damaged[1].error
    assert isinstance(stream.damaged[0], Damage) and stream.damaged[0].error


def test_unknown_length_reads_as_read_record_at():
    path = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")
    records = _records(path)[:5]
    assert list(read_records_at(path, [(r.offset, None) for r in records])) == records
    assert list(read_records_at(path, [(r.offset, 0) for r in records])) == records
    assert [read_record_at(path, r.offset) for r in records] == records


def test_a_file_that_cannot_be_opened(tmp_path):
    missing = str(tmp_path / "gone.warc.gz")
    with pytest.raises(ArchiveError) as ei:
        list(read_records_at(missing, [(123, 456)]))
    assert ei.value.offset == 123 and "cannot open" in ei.value.message


def test_a_length_shorter_than_the_record_fails_the_record():
    """An index whose length cuts a gzip member short: the record's row says truncated (what a
    file cut there gives), never a record made of less than its block."""
    path = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")
    record = next(r for r in _records(path) if r.record_type == "response" and r.length > 2000)
    got = list(read_records_at(path, [(record.offset, record.length // 2)]))
    assert len(got) == 1 and got[0].error_kind == "truncated" and got[0].payload is None


def test_read_range(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(bytes(range(256)) * 4)
    assert storage.read_range(str(p), 10, 5) == bytes(range(10, 15))
    assert storage.read_range(str(p), 1020, 100) == bytes(range(252, 256))
    assert storage.read_range(str(p), 5000, 10) == b""
    assert list(storage.read_ranges(str(p), [(0, 2), (300, 3), (1, 1)])) == [b"\x00\x01", bytes(range(44, 47)), b"\x01"]
    with pytest.raises(ValueError):
        storage.read_range(str(p), -1, 3)
    with pytest.raises(FileNotFoundError):
        storage.read_range(str(tmp_path / "nope"), 0, 3)


def test_a_span_starts_at_its_base():
    """A span read from offset ``base`` is positioned at ``base`` before any seek (its position was
    left unset when a merge put the file_ends property between it and the constructor)."""
    from redecode.warc import _Span

    span = _Span(b"WARC/1.0\r\n", 1000, gz=False)
    assert span.tell() == 1000 and span.read(4) == b"WARC" and span.tell() == 1004
    assert span.seek(0, io.SEEK_END) == 1010 and span.read() == b""


def _gzip_records(path: str) -> list:
    return [r for r in _records(path) if r.length]


def test_gzip_spans_are_read_by_fastwarc_where_their_member_vouches(monkeypatch):
    """A record whose gzip member is exactly header + block + CRLFCRLF (its trailer's CRC-32 and
    size say so) is read by FastWARC, without warcio (issue 26: warcio's Python costs about
    0.25 ms a record, and its import a small selection's 5 ms); the records are the same."""
    from redecode import warc

    path = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")
    records = _gzip_records(path)
    assert len(records) > 5

    def no_warcio(*args, **kwargs):
        raise AssertionError("warcio asked for a record FastWARC vouches for")

    monkeypatch.setattr(warc, "_iter_warcio", no_warcio)
    assert list(read_records_at(path, [(r.offset, r.length) for r in records])) == records


@pytest.mark.parametrize("change", ["into the next member", "a trailer byte", "a block byte", "one byte short"])
def test_spans_fastwarc_cannot_vouch_for_are_warcios(change, tmp_path, monkeypatch):
    """A span that is not one vouching member (the entry's length runs into the next record, a
    damaged trailer or block, a cut member) is read by warcio, as before: the records equal
    warcio's reading of the same bytes."""
    from redecode import warc

    source = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")
    records = _gzip_records(source)
    data = bytearray(open(source, "rb").read())
    spans = []
    for i, r in enumerate(records[:-1]):
        if change == "into the next member":
            spans.append((r.offset, r.length + records[i + 1].length))
        elif change == "one byte short":
            spans.append((r.offset, r.length - 1))
        else:
            spans.append((r.offset, r.length))
            at = r.offset + r.length - 5 if change == "a trailer byte" else r.offset + r.length // 2
            data[at] ^= 0x01
    path = tmp_path / "changed.warc.gz"
    path.write_bytes(bytes(data))
    got = read_records_at(str(path), spans)
    got = (list(got), got.damaged)
    monkeypatch.setattr(warc, "_span_fastwarc", lambda *args: None)
    want = read_records_at(str(path), spans)
    want = (list(want), want.damaged)
    assert got == want


def test_a_file_cut_inside_a_selected_record_raises_after_it(tmp_path):
    """As iter_records: the record the file ends inside is given (cut short, missing_bytes set),
    then ArchiveError at its offset; the spans after it are past the file's end."""
    source = os.path.join(SAMPLE, "sample-crawl-00002.warc.gz")
    records = _gzip_records(source)
    cut = records[-3]
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(open(source, "rb").read()[: cut.offset + cut.length // 2])
    whole = []
    with pytest.raises(ArchiveError) as full_error:
        for record in iter_records(str(path)):
            whole.append(record)
    stream = read_records_at(str(path), [(r.offset, r.length) for r in records])
    got = []
    with pytest.raises(ArchiveError) as span_error:
        for record in stream:
            got.append(record)
    assert got == whole and got[-1].missing_bytes is not None
    assert span_error.value.offset == full_error.value.offset == cut.offset
    assert "cut short" in span_error.value.message and stream.damaged == []
