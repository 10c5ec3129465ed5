"""`.warc.lz4` (issue 18, item 2): WARC files compressed with LZ4, one frame per record, as
``fastwarc recompress`` writes them, read through FastWARC with the provenance of ``.warc.gz``:
each record's ``warc_offset`` is where its LZ4 frame starts and ``warc_length`` the frame's bytes,
so the byte range alone gives the record back (checked here with FastWARC's LZ4 decompressor on the
range and warcio parsing what it inflates). A file compressed as one LZ4 stream is refused with the
command that fixes it; a file cut short keeps the records before the cut.

The LZ4 files are made from the sample crawl by FastWARC's own writer (one frame per record, as its
``recompress`` command does).
"""

from __future__ import annotations

import dataclasses
import glob
import io
import os

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from fastwarc.stream_io import Lz4Reader, Lz4Writer
from fastwarc.warc import ArchiveIterator as FastIterator
from warcio.archiveiterator import ArchiveIterator

from redecode import job
from redecode.archive import ArchiveError, INPUT_SUFFIXES, find_record_start, iter_records, read_record_at
from redecode.inputs import iter_inputs
from redecode_jobs.cli import cli

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "sample_warcs"))
GZ = sorted(glob.glob(os.path.join(SAMPLE, "*.warc.gz")))


def recompress(src: str, dest: str, *, per_record: bool = True) -> str:
    """``src`` rewritten as an LZ4 WARC: one frame per record (``finish()`` after each, as
    ``fastwarc recompress`` does), or one stream for all records."""
    with open(dest, "wb") as out:
        writer = Lz4Writer(out)
        for record in FastIterator(src, parse_http=False):
            record.write(writer)
            if per_record:
                writer.finish()
        writer.close()
    return dest


@pytest.fixture(scope="module")
def lz4_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("lz4")
    for path in GZ:
        recompress(path, str(d / os.path.basename(path).replace(".warc.gz", ".warc.lz4")))
    return d


def _fields(record) -> dict:
    d = dataclasses.asdict(record)
    for k in ("warc_path", "offset", "length"):
        d.pop(k)
    return d


def test_suffix_is_an_input_suffix(lz4_dir):
    assert ".warc.lz4" in INPUT_SUFFIXES
    assert [os.path.basename(p) for p in iter_inputs([str(lz4_dir)])] == [
        os.path.basename(p).replace(".gz", ".lz4") for p in GZ]


@pytest.mark.parametrize("gz", GZ, ids=os.path.basename)
def test_records_equal_the_gzip_files(gz, lz4_dir):
    lz4 = str(lz4_dir / os.path.basename(gz).replace(".warc.gz", ".warc.lz4"))
    got = list(iter_records(lz4))
    want = list(iter_records(gz, reader="warcio"))
    assert [_fields(r) for r in got] == [_fields(r) for r in want]
    # the records tile the file: each starts where the one before ends, the last ends at its end
    size = os.path.getsize(lz4)
    assert got[0].offset == 0
    assert all(a.offset + a.length == b.offset for a, b in zip(got, got[1:]))
    assert got[-1].offset + got[-1].length == size


@pytest.mark.parametrize("gz", GZ, ids=os.path.basename)
def test_offset_and_length_give_the_record_back(gz, lz4_dir):
    """The provenance alone (file, offset, length) re-extracts each record: the byte range is one
    LZ4 frame whose content warcio parses as the record with that id."""
    lz4 = str(lz4_dir / os.path.basename(gz).replace(".warc.gz", ".warc.lz4"))
    with open(lz4, "rb") as f:
        data = f.read()
    for record in iter_records(lz4):
        frame = data[record.offset: record.offset + record.length]
        plain = Lz4Reader(io.BytesIO(frame)).read()
        (parsed,) = list(ArchiveIterator(io.BytesIO(plain)))
        assert parsed.rec_headers.get_header("WARC-Record-ID") == record.record_id
        assert read_record_at(lz4, record.offset) == record


def test_run_rows_equal_the_gzip_run(lz4_dir, tmp_path):
    for name, inputs in (("gz", GZ), ("lz4", [str(lz4_dir)])):
        assert job.run(inputs, str(tmp_path / name)).exit_code == 0

    def rows(out):
        found = {}
        for part in glob.glob(str(tmp_path / out / "*.parquet")):
            for r in pq.read_table(part).to_pylist():
                key = r["record_id"]
                for k in ("warc_path", "warc_offset", "warc_length"):
                    r.pop(k)
                found[key] = r
        return found

    gz_rows, lz4_rows = rows("gz"), rows("lz4")
    assert len(lz4_rows) == 39 and lz4_rows == gz_rows  # the three WARCs of the sample crawl


def test_shards_give_the_same_rows(lz4_dir, tmp_path):
    path = str(lz4_dir / "sample-crawl-00000.warc.lz4")
    cut = find_record_start(path, 100_000)
    assert cut is not None and cut >= 100_000
    assert cut in {r.offset for r in iter_records(path)}
    job.run([path], str(tmp_path / "one"))
    summary = job.run([path], str(tmp_path / "cut"), workers=2, shard_bytes=64 * 1024)
    assert len(summary.manifest["inputs"][0]["parts"]) > 1

    def rows(out):
        return sorted((r for p in glob.glob(str(tmp_path / out / "*.parquet")) for r in pq.read_table(p).to_pylist()),
                      key=lambda r: r["warc_offset"])

    assert rows("cut") == rows("one")


def test_one_lz4_stream_is_refused_with_the_fix(tmp_path):
    path = recompress(GZ[0], str(tmp_path / "one-stream.warc.lz4"), per_record=False)
    with pytest.raises(ArchiveError) as info:
        list(iter_records(path))
    assert info.value.offset == 0
    assert "one LZ4 stream, not one LZ4 frame per record" in info.value.message
    assert "fastwarc recompress" in info.value.message
    result = CliRunner().invoke(cli, ["run", path, "--out", str(tmp_path / "o"), "--json"])
    assert result.exit_code == 1
    assert "fastwarc recompress" in result.stderr
    assert '"outcome": "error"' in result.stdout and '"rows": 0' in result.stdout


def test_cut_file_keeps_the_records_before_the_cut(lz4_dir, tmp_path):
    whole = str(lz4_dir / "sample-crawl-00000.warc.lz4")
    records = list(iter_records(whole))
    big = max(records, key=lambda r: r.length)
    cut_at = big.offset + big.length // 2
    path = tmp_path / "cut.warc.lz4"
    with open(whole, "rb") as f:
        path.write_bytes(f.read()[:cut_at])
    got = []
    with pytest.raises(ArchiveError) as info:
        for record in iter_records(str(path)):
            got.append(record)
    assert info.value.offset == big.offset
    before = [r for r in records if r.offset < big.offset]
    assert [_fields(r) for r in got[: len(before)]] == [_fields(r) for r in before]
    assert all(r.error_kind == "truncated" for r in got[len(before):])
