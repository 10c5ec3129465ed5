"""Every record accounted for on the reading path (issue 25, items 1, 2, 5, 6 and 7).

Real archives from public test suites (copied under ``tests/data/warcs/`` with their licences) and
files built here. Expected values come from the files' bytes (offsets found by searching them,
blocks inflated with zlib, lengths from the WARC headers), never from the code under test.

- item 1: a Content-Length over the record cap (70 MiB) on a short block never hides the records
  after it, and a file that ends inside such a record is cut short, not complete;
- item 2: an input cut short while it is read is ``truncated`` (exit 1), and read again by the
  next run, even when it is restored as it was, also when it was read in shards and redone whole;
- item 5: a version line right after a block (no blank line between) starts the next record;
- item 6: a record whose header and body are two gzip members is read across them;
- item 7: a record cut short keeps the text that is there, with ``missing_bytes`` and a warning.
"""

from __future__ import annotations

import json
import os
import re
import zlib

import pytest

from redecode.archive import ArchiveError, iter_records
from redecode.record import DEFAULT_MAX_RECORD_BYTES

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "warcs")
LINK_EXTRACTION = os.path.join(DATA, "webarchive-commons", "link-extraction-test.warc")
CLIPPED = os.path.join(DATA, "resiliparse", "clipped.warc.gz")
WRONG_CHUNKS = os.path.join(DATA, "warcio", "example-wrong-chunks.warc.gz")
SPACE_IN_URL = os.path.join(DATA, "warcio", "example-space-in-url.arc")
READERS = ("auto", "warcio")
OVER_CAP = 70 * 1024 * 1024


def _read(path: str, **kw):
    """(records, the ArchiveError that ended the reading or None, damaged stretches)."""
    stream = iter_records(path, resync=True, **kw)
    records = []
    try:
        for record in stream:
            records.append(record)
    except ArchiveError as exc:
        return records, exc, stream.damaged
    return records, None, stream.damaged


def _run(inputs: list[str], out: str, *extra: str):
    from click.testing import CliRunner

    from redecode_jobs.cli import cli

    result = CliRunner().invoke(cli, ["run", *inputs, "--out", out, "--workers", "1", "--quiet", *extra])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.stderr
    with open(os.path.join(out, "_run.json"), encoding="utf-8") as f:
        return result, json.load(f)


def _rows(out: str) -> list[dict]:
    import glob

    import pyarrow.parquet as pq

    return [r for p in sorted(glob.glob(os.path.join(out, "*.parquet"))) for r in pq.read_table(p).to_pylist()]


def _record(record_id: str, block: bytes, content_length: int | None = None) -> bytes:
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: {record_id}\r\n"
            f"WARC-Date: 2026-11-01T12:00:00Z\r\nWARC-Target-URI: http://example.com/{record_id[10:18]}\r\n"
            f"Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(block) if content_length is None else content_length}\r\n\r\n")
    return head.encode() + block + b"\r\n\r\n"


def _page(text: str) -> bytes:
    return (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
            + f"<!doctype html><p>{text}</p>".encode())


def _id(n: int) -> str:
    return f"<urn:uuid:00000000-0000-4000-8000-{n:012d}>"


# -- item 1: a length over the cap -------------------------------------------------------------


def test_over_cap_length_hides_no_record(tmp_path):
    """A record claims 70 MiB (over the 64 MiB cap) and has a 100-byte block: the three records
    after it are inside what it claims. On main they vanished and the input was complete."""
    records = [_record(_id(0), _page("first")), _record(_id(1), _page("claims 70 MiB"), OVER_CAP)]
    records += [_record(_id(n), _page(f"record {n}")) for n in (2, 3, 4)]
    data = b"".join(records)
    path = tmp_path / "over-cap.warc"
    path.write_bytes(data)
    starts = [m.start() for m in re.finditer(rb"WARC/1\.0\r\n", data)]
    assert OVER_CAP > DEFAULT_MAX_RECORD_BYTES
    for reader in READERS:
        got, err, damaged = _read(str(path), reader=reader)
        assert err is None, (reader, err)
        assert [r.offset for r in got] == starts, reader
        assert got[1].error_kind == "truncated" and f"offset {starts[2]}" in got[1].error
        assert got[1].missing_bytes is None  # it claimed too much: nothing of it is missing
        assert [r.error_kind for r in got[2:]] == [None, None, None]
        assert [d.offset for d in damaged] == [starts[2]]  # the input is damaged: exit 1
    result, manifest = _run([str(path)], str(tmp_path / "out"))
    assert result.exit_code == 1 and manifest["inputs"][0]["outcome"] == "damaged"
    assert sorted(r["record_id"] for r in _rows(str(tmp_path / "out"))) == [_id(n) for n in range(5)]


def test_over_cap_length_at_the_end_is_cut_short(tmp_path):
    """The last record claims 70 MiB and the file ends after its 100-byte block: cut short (exit
    1; on main: complete, exit 0), and the record keeps its text (item 7)."""
    block = _page("the file ends here")
    data = _record(_id(0), _page("first")) + _record(_id(1), block, OVER_CAP)[:-4]
    path = tmp_path / "over-cap-end.warc"
    path.write_bytes(data)
    result, manifest = _run([str(path)], str(tmp_path / "out"))
    entry = manifest["inputs"][0]
    assert result.exit_code == 1 and entry["outcome"] == "truncated", entry
    assert entry["error_offset"] == data.index(b"WARC/1.0", 1)
    last = [r for r in _rows(str(tmp_path / "out")) if r["record_id"] == _id(1)][0]
    assert last["status"] == "decoded" and last["text"] == "<!doctype html><p>the file ends here</p>"
    assert last["missing_bytes"] == OVER_CAP - len(block)


def test_over_cap_block_that_swallows_records_is_scanned_beyond_what_is_kept(tmp_path):
    """A 2 MiB block over a 1 MiB cap whose Content-Length also covers the next record: the record
    start seen in the part not kept (past the 1 MiB read for the HTTP head) is read on its own."""
    filler = b"x" * (2 * 1024 * 1024)
    big = _page("big") + filler
    after = _record(_id(1), _page("inside the claim"))
    data = _record(_id(0), big, len(big) + 4 + len(after) - 10) + after + _record(_id(2), _page("last"))
    path = tmp_path / "swallow.warc"
    path.write_bytes(data)
    starts = [m.start() for m in re.finditer(rb"WARC/1\.0\r\nWARC-Type", data)]
    for reader in READERS:
        got, err, damaged = _read(str(path), reader=reader, max_record_bytes=1024 * 1024)
        assert err is None and [r.offset for r in got] == starts, (reader, err)
        assert got[0].error_kind == "truncated" and f"offset {starts[1]}" in got[0].error
        assert [r.error_kind for r in got[1:]] == [None, None]


# -- item 2: cut short while being read --------------------------------------------------------


def _many_records(path, n: int = 400) -> list[int]:
    """A .warc of ``n`` records of about 4 KB (larger than the readers' buffers); their offsets."""
    offsets, chunks, at = [], [], 0
    for i in range(n):
        rec = _record(_id(i), _page(f"record {i} " + "lorem ipsum " * 330))
        offsets.append(at)
        chunks.append(rec)
        at += len(rec)
    path.write_bytes(b"".join(chunks))
    return offsets


@pytest.mark.parametrize("reader", ["auto", "warcio", "fastwarc"])
def test_file_cut_at_a_record_boundary_while_read_is_not_complete(tmp_path, reader):
    path = tmp_path / "shrinks.warc"
    offsets = _many_records(path)
    cut = offsets[len(offsets) // 2]
    got = []
    with pytest.raises(ArchiveError) as exc:
        for record in iter_records(str(path), reader=reader, resync=True):
            if not got:
                os.truncate(path, cut)  # another process cuts the file while it is read
            got.append(record)
    assert "cut short while being read" in exc.value.message
    assert len(got) < len(offsets)


def test_run_over_a_file_cut_while_read_is_truncated_and_read_again(tmp_path):
    """The input is cut at a record boundary while the run reads it, then restored byte for byte
    with its modification time: the outcome is truncated (exit 1), and the next run reads it again
    (on main: complete with half the rows, and the rerun skipped the restored file)."""
    from redecode import job
    from redecode.rules import DEFAULT_RULES, RULES
    from redecode.rundir import Shard

    path = tmp_path / "shrinks.warc"
    offsets = _many_records(path)
    whole = path.read_bytes()
    stat = os.stat(path)
    out = tmp_path / "out"
    (out / "_done").mkdir(parents=True)
    cut_done = []

    def on_bytes(n: int) -> None:
        if not cut_done:
            os.truncate(path, offsets[len(offsets) // 2])
            cut_done.append(n)

    marker = job.process_shard(Shard(str(path), 0, 0, None), str(out), RULES[DEFAULT_RULES],
                               DEFAULT_MAX_RECORD_BYTES, on_bytes=on_bytes)
    assert cut_done and marker["outcome"] == "truncated", marker
    assert marker["rows"] < len(offsets)
    path.write_bytes(whole)  # restored as it was, modification time too
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    result, manifest = _run([str(path)], str(out))
    assert result.exit_code == 0, result.stderr
    entry = manifest["inputs"][0]
    assert entry["outcome"] == "complete" and entry["rows"] == len(offsets)
    assert "read again" in result.stderr or result.exit_code == 0


def test_run_over_a_file_that_changed_size_while_read_is_truncated(tmp_path, monkeypatch):
    """The size when the run started and the size now must equal the bytes read: a file that grew
    while it was read is read again by the next run."""
    from redecode import job
    from redecode.rules import DEFAULT_RULES, RULES
    from redecode.rundir import Shard

    path = tmp_path / "grows.warc"
    _many_records(path, 20)
    extra = _record(_id(999), _page("appended while the file was read"))
    out = tmp_path / "out"
    (out / "_done").mkdir(parents=True)
    appended = []

    def on_bytes(n: int) -> None:
        if not appended:
            with open(path, "ab") as f:
                f.write(extra)
            appended.append(n)

    marker = job.process_shard(Shard(str(path), 0, 0, None), str(out), RULES[DEFAULT_RULES],
                               DEFAULT_MAX_RECORD_BYTES, on_bytes=on_bytes)
    assert appended and marker["outcome"] == "truncated", marker
    assert "changed while" in marker["error"] or "cut short while" in marker["error"], marker["error"]


def test_sharded_input_cut_while_read_is_not_complete_after_its_redo(tmp_path, monkeypatch):
    """Item 2 as a user met it: a .warc.gz read in several shards with one worker is cut (at a gzip
    member boundary) while the run reads it; a shard reports it truncated, the input is redone as
    one shard (its shards did not meet), and that redo must compare the file with the size it had
    when the run first read it: ``truncated``, exit 1, and the next run reads it again (on main:
    the redo read the now-short file, ``complete``, exit 0, half the rows, and the rerun skipped
    it)."""
    import gzip

    from redecode import job

    path = tmp_path / "shrinks.warc.gz"
    members, offsets, at = [], [], 0
    for i in range(400):
        member = gzip.compress(_record(_id(i), _page(f"record {i} " + os.urandom(1500).hex())), mtime=0)
        offsets.append(at)
        members.append(member)
        at += len(member)
    whole = b"".join(members)
    path.write_bytes(whole)
    shard_bytes = len(whole) // 7
    assert len(job.plan_shards(str(path), shard_bytes=shard_bytes)) > 2
    cut = offsets[len(offsets) // 2]  # a gzip member boundary
    real = job.process_archive
    cuts = []

    def cut_before_the_second_shard(p, *args, start=0, **kwargs):
        if start > 0 and not cuts:
            os.truncate(path, cut)  # another process cuts the file while the run reads it
            cuts.append(start)
        return real(p, *args, start=start, **kwargs)

    monkeypatch.setattr(job, "process_archive", cut_before_the_second_shard)
    monkeypatch.setattr(job, "DEFAULT_SHARD_BYTES", shard_bytes)  # (16 MiB cut the user's 115 MB in 7)
    out = str(tmp_path / "out")
    result, manifest = _run([str(path)], out)
    assert cuts, "the file was not cut while read"
    entry = manifest["inputs"][0]
    assert entry["outcome"] == "truncated", entry
    assert result.exit_code == 1, result.stderr
    assert str(len(whole)) in entry["error"], entry["error"]  # the size when the run began
    monkeypatch.setattr(job, "process_archive", real)
    path.write_bytes(whole)  # restored: the next run reads it again, whole
    result, manifest = _run([str(path)], out)
    assert result.exit_code == 0, result.stderr
    entry = manifest["inputs"][0]
    assert entry["outcome"] == "complete" and entry["rows"] == len(offsets), entry


# -- item 5: a version line right after a block ------------------------------------------------


def test_version_line_right_after_a_block_starts_a_record():
    """webarchive-commons' link-extraction-test.warc: the Content-Length of
    ``poor_html5.html`` counts its closing CRLFCRLF, so ``fb-video.html``'s version line follows
    the block directly. On main the resync skipped 1,514 bytes and that record had no row."""
    data = open(LINK_EXTRACTION, "rb").read()
    starts = [m.start() for m in re.finditer(rb"WARC/1\.0\r\n", data)]
    fb_video = data.index(b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://www.example.com/fb-video.html")
    assert fb_video in starts and data[fb_video - 4:fb_video] == b"\r\n\r\n"  # no blank line of its own
    for reader in READERS + ("fastwarc",):
        got, err, damaged = _read(LINK_EXTRACTION, reader=reader)
        assert err is None and damaged == [], (reader, err, damaged)
        assert [r.offset for r in got] == starts, reader
        (rec,) = [r for r in got if r.offset == fb_video]
        assert rec.target_uri == "http://www.example.com/fb-video.html" and rec.error_kind is None


# -- item 6: a record over two gzip members ----------------------------------------------------


def _members(path: str) -> list[tuple[int, bytes]]:
    """(offset, inflated bytes) of each gzip member of the file (RFC 1952), by zlib."""
    data = open(path, "rb").read()
    out, at = [], 0
    while at < len(data):
        d = zlib.decompressobj(31)
        text = d.decompress(data[at:])
        out.append((at, text))
        at = len(data) - len(d.unused_data)
    return out


def test_record_split_over_gzip_members_is_read():
    """warcio's example-wrong-chunks.warc.gz: member 1 holds the WARC header and the HTTP head,
    member 2 the body, member 3 the CRLFCRLF and a request record. On main the row said "record
    block cut short: 343 of 1613 bytes present"."""
    (o1, m1), (o2, m2), (o3, m3) = _members(WRONG_CHUNKS)
    head_end = m1.index(b"\r\n\r\n") + 4
    clen = int(re.search(rb"Content-Length: (\d+)", m1[:head_end]).group(1))
    block = (m1[head_end:] + m2)[:clen]  # member 2 ends with the block and a blank line
    assert (m1[head_end:] + m2)[clen:] == b"\n" and m3.startswith(b"\r\n\r\nWARC/1.0")
    body = block[block.index(b"\r\n\r\n") + 4:]
    for reader in READERS:
        got, err, damaged = _read(WRONG_CHUNKS, reader=reader)
        assert err is None and damaged == [], (reader, err)
        assert [(r.offset, r.record_type) for r in got] == [(o1, "response"), (o3, "request")]
        assert got[0].payload == body and got[0].missing_bytes is None and got[0].length == o3
        assert "2 gzip members" in got[0].warning


# -- item 7: a record cut short keeps its text -------------------------------------------------


def test_cut_short_gzip_record_keeps_its_text(tmp_path):
    """resiliparse's clipped.warc.gz ends inside its only member: the row is decoded with the
    text that inflated, ``missing_bytes`` = Content-Length minus the block there, a warning; the
    input is cut short (exit 1)."""
    ((_, inflated),) = _members_partial(CLIPPED)
    head_end = inflated.index(b"\r\n\r\n") + 4
    clen = int(re.search(rb"Content-Length: (\d+)", inflated[:head_end]).group(1))
    present = len(inflated) - head_end
    assert (present, clen) == (75207, 88275)
    for reader in READERS:
        got, err, _ = _read(CLIPPED, reader=reader)
        (rec,) = got
        assert rec.error_kind is None and rec.missing_bytes == clen - present
        assert "cut short" in rec.warning and rec.payload
        assert isinstance(err, ArchiveError) and err.offset == 0
    result, manifest = _run([CLIPPED], str(tmp_path / "out"))
    (row,) = _rows(str(tmp_path / "out"))
    assert result.exit_code == 1 and manifest["inputs"][0]["outcome"] == "truncated"
    assert row["status"] == "decoded" and row["missing_bytes"] == 13068 and len(row["text"]) > 70000
    assert "Chance the Rapper" in row["text"]
    # the report lists it with the failed and truncated records, its warning as the error
    from redecode.report import collect

    listed = collect(str(tmp_path / "out")).sections["failed"].rows
    assert len(listed) == 1 and "record block cut short: 75207 of 88275 bytes present" in listed[0][4]


def _members_partial(path: str) -> list[tuple[int, bytes]]:
    """Like :func:`_members`, for a file whose last member is cut short (what inflates of it)."""
    data = open(path, "rb").read()
    d = zlib.decompressobj(31)
    return [(0, d.decompress(data))]


def test_cut_short_arc_record_keeps_its_text(tmp_path):
    """warcio's example-space-in-url.arc: the last record declares 1,591 bytes and the file holds
    1,579 of them."""
    data = open(SPACE_IN_URL, "rb").read()
    line_start = data.rindex(b"\nhttp://example.com/") + 1
    line_end = data.index(b"\n", line_start) + 1
    declared = int(data[line_start:line_end].split()[-1])
    present = len(data) - line_end
    assert (present, declared) == (1579, 1591)
    for reader in READERS:
        got, err, _ = _read(SPACE_IN_URL, reader=reader)
        rec = got[-1]
        assert rec.error_kind is None and rec.missing_bytes == declared - present and rec.payload
        assert isinstance(err, ArchiveError) and err.offset == rec.offset
    _, manifest = _run([SPACE_IN_URL], str(tmp_path / "out"))
    (row,) = [r for r in _rows(str(tmp_path / "out")) if r["missing_bytes"] is not None]
    assert row["status"] == "decoded" and row["missing_bytes"] == 12 and row["text"]
