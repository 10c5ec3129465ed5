"""WACZ input (issue 26): the WARC files of a WACZ read where they lie in the zip, in full or through
the WACZ's own CDXJ index; rows name the WACZ and the WARC (``CRAWL.wacz#archive/NAME``).

What is proved: pywb's valid_example_1.wacz gives the rows its WARC gives when extracted (every
column but warc_path); through its index, one row per index line, the same rows; a WACZ with no WARC
is reported and makes the run exit 1 (the warning names .wacz among the input types); a WARC stored deflated in the zip still reads (inflated from
its start); backfill re-reads records inside a WACZ; a WACZ changed in place is read again.
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import shutil
import zipfile

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode import storage, wacz
from redecode.archive import iter_records, read_records_at
from redecode.backfill import backfill
from redecode.index import read_index
from redecode.job import run
from redecode_jobs.cli import cli

import shared_paths

WACZS = shared_paths.CORPUS / "warcs" / "pywb" / "waczs"
VALID = WACZS / "valid_example_1.wacz"
INVALID = WACZS / "invalid_example_1.wacz"
MEMBER = "archive/example-collection.warc"


@pytest.fixture
def valid(tmp_path):
    if not VALID.exists():
        pytest.skip(shared_paths.absent(VALID))
    path = tmp_path / "crawl.wacz"
    shutil.copy(VALID, path)
    return str(path)


def _rows(out) -> list[dict]:
    return [r for p in sorted(glob.glob(os.path.join(str(out), "*.parquet"))) for r in pq.read_table(p).to_pylist()]


def _extracted(wacz_path: str, where) -> str:
    target = os.path.join(str(where), "example-collection.warc")
    with zipfile.ZipFile(wacz_path) as zf, open(target, "wb") as fh:
        fh.write(zf.read(MEMBER))
    return target


def test_members_read_where_they_lie(valid, tmp_path):
    member = wacz.member_path(valid, MEMBER)
    assert wacz.warc_members(valid) == [member]
    assert wacz.index_members(valid) == [wacz.member_path(valid, "indexes/index.cdx.gz")]
    with zipfile.ZipFile(valid) as zf:
        data = zf.read(MEMBER)
    assert storage.size(member) == len(data) and storage.exists(member)
    assert storage.read_range(member, 845, 100) == data[845:945]
    assert storage.read_range(member, len(data) - 5, 100) == data[-5:]
    with storage.open_input(member) as fh:
        assert fh.read() == data
    assert not storage.is_plain_file(member) and storage.split_member(member) == (valid, MEMBER)
    records = list(iter_records(member))
    extracted = list(iter_records(_extracted(valid, tmp_path)))
    assert [(r.offset, r.length, r.record_id) for r in records] == [(r.offset, r.length, r.record_id) for r in extracted]
    assert list(read_records_at(member, [(r.offset, r.length) for r in records])) == records


def test_run_in_full_and_through_its_index(valid, tmp_path):
    full, extracted, indexed = tmp_path / "full", tmp_path / "extracted", tmp_path / "indexed"
    summary = run([valid], str(full))
    assert summary.exit_code == 0
    run([_extracted(valid, tmp_path)], str(extracted))
    got, want = _rows(full), _rows(extracted)
    assert [r["warc_path"] for r in got] == [wacz.member_path(valid, MEMBER)] * len(want)
    assert [dict(r, warc_path=None) for r in got] == [dict(r, warc_path=None) for r in want]
    index_summary = run([], str(indexed), index=read_index(valid))
    with zipfile.ZipFile(valid) as zf:
        lines = gzip.decompress(zf.read("indexes/index.cdx.gz")).decode().splitlines()
    offsets = sorted(int(json.loads(line.split(" ", 2)[2])["offset"]) for line in lines)
    assert sorted(r["warc_offset"] for r in _rows(indexed)) == offsets
    by_offset = {r["warc_offset"]: r for r in got}
    assert all(by_offset[r["warc_offset"]] == r for r in _rows(indexed))
    assert index_summary.counts["selected"] == index_summary.counts["read"] == len(lines)


def test_a_wacz_without_warcs_is_reported(tmp_path):
    if not INVALID.exists():
        pytest.skip(shared_paths.absent(INVALID))
    summary = run([str(INVALID)], str(tmp_path / "out"))
    assert summary.exit_code == 1
    (entry,) = summary.manifest["files_not_read"]["unreadable"]
    assert entry["path"] == str(INVALID) and "no WARC file in it" in entry["error"]
    # the command's warning names every input type it takes, a WACZ among them
    result = CliRunner().invoke(cli, ["run", str(INVALID), "--out", str(tmp_path / "cli")])
    assert result.exit_code == 1
    assert "no .warc, .warc.gz, .warc.lz4, .arc, .arc.gz, .parquet or .wacz input found" in result.output


def test_a_deflated_warc_member_still_reads(valid, tmp_path):
    deflated = tmp_path / "deflated.wacz"
    with zipfile.ZipFile(valid) as src, zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    a, b = tmp_path / "a", tmp_path / "b"
    run([valid], str(a))
    run([str(deflated)], str(b))
    assert [dict(r, warc_path=None) for r in _rows(a)] == [dict(r, warc_path=None) for r in _rows(b)]
    member = wacz.member_path(str(deflated), MEMBER)
    with zipfile.ZipFile(deflated) as zf:
        assert storage.read_range(member, 845, 50) == zf.read(MEMBER)[845:895]


def test_backfill_and_a_changed_wacz(valid, tmp_path):
    out = tmp_path / "out"
    run([valid], str(out))
    summary = backfill(str(out), "seed-2026.10", str(tmp_path / "backfilled"))  # (its record is read again)
    assert summary.stats["rows_reread"] > 0 and summary.exit_code == 0
    again = run([valid], str(out))
    assert again.resumed == [wacz.member_path(valid, MEMBER)]
    with zipfile.ZipFile(valid) as src:
        members = {i.filename: src.read(i.filename) for i in src.infolist()}
    extra = members[MEMBER] + gzip.compress(b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:0>\r\n"
                                            b"Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n")
    os.unlink(valid)
    with zipfile.ZipFile(valid, "w", zipfile.ZIP_STORED) as dst:
        for name, data in members.items():
            dst.writestr(name, extra if name == MEMBER else data)
    storage._MEMBERS.clear()  # (a new process would read the zip directory afresh)
    changed = run([valid], str(out))
    assert changed.changed == [wacz.member_path(valid, MEMBER)]
    assert changed.counts["records_seen"] == again.counts["records_seen"] + 1
