"""Inputs inside the run directory are read, and no part is hidden from a query (issue 25, items 3
and 4).

- item 3: ``--out`` equal to (or a parent of) the inputs' directory: every input is read, even a file
  named on the command line (on main: "0 inputs", exit 0); the run's own files (parts, markers,
  manifest) are never taken for inputs, so a second run into the same directory reads the same
  archives and no part as a raw-response Parquet input.
- item 4: a part's name never starts with ``.`` or ``_`` (DuckDB's glob, Spark and Hive take such
  files for hidden: on main ``query`` saw 14 of 27 rows of a run over ``.crawl.warc.gz``).
"""

from __future__ import annotations

import json
import os
import shutil

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from click.testing import CliRunner

from redecode.archive import iter_records
from redecode.row import ROW_RECORD_TYPES
from redecode.rundir import is_part_name
from redecode_jobs.cli import cli

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "sample_warcs")
ARCHIVE = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")


def _row_records(path: str) -> int:
    return sum(r.record_type in ROW_RECORD_TYPES for r in iter_records(path))


def _run(*args: str):
    result = CliRunner().invoke(cli, ["run", *args, "--workers", "1", "-q"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def _manifest(out) -> dict:
    return json.loads((out / "_run.json").read_text())


def test_a_file_named_inside_out_is_read(tmp_path):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    shutil.copy(ARCHIVE, crawl / "a.warc.gz")
    result = _run(str(crawl / "a.warc.gz"), "--out", str(crawl))
    assert result.exit_code == 0, result.output
    manifest = _manifest(crawl)
    assert [os.path.basename(e["path"]) for e in manifest["inputs"]] == ["a.warc.gz"]
    assert manifest["counts"]["records_seen"] == _row_records(ARCHIVE) > 0


def test_out_equal_to_the_input_directory_reads_its_archives_not_its_parts(tmp_path):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    shutil.copy(ARCHIVE, crawl / "a.warc.gz")
    shutil.copy(os.path.join(SAMPLE, "sample-crawl-00001.warc.gz"), crawl / "b.warc.gz")
    # a raw-response Parquet input of the user's, in the same directory: an input like the others
    pq.write_table(pa.table({"url": ["http://example.com/"], "content_type": ["text/html; charset=utf-8"],
                             "body": [b"<p>caf\xc3\xa9</p>"]}), crawl / "raw.parquet")
    want = _row_records(str(crawl / "a.warc.gz")) + _row_records(str(crawl / "b.warc.gz")) + 1
    for attempt in range(2):  # the second run finds the first one's parts beside the inputs
        result = _run(str(crawl), "--out", str(crawl))
        assert result.exit_code == 0, result.output
        manifest = _manifest(crawl)
        assert sorted(os.path.basename(e["path"]) for e in manifest["inputs"]) == [
            "a.warc.gz", "b.warc.gz", "raw.parquet"], attempt
        assert manifest["counts"]["records_seen"] == want, attempt
        assert manifest["files_not_read"]["count"] == 0, manifest["files_not_read"]


def test_out_equal_to_the_input_directory_in_a_bounded_layout(tmp_path):
    """The same with parts cut to size in partition folders (``part-<task>-<n>.parquet`` under
    ``status=.../``) and the per-input table (``_inputs/``): none is read back as an input."""
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    shutil.copy(ARCHIVE, crawl / "a.warc.gz")
    want = _row_records(ARCHIVE)
    for attempt in range(2):
        result = _run(str(crawl), "--out", str(crawl), "--max-part-rows", "5", "--partition-by", "status")
        assert result.exit_code == 0, result.output
        manifest = _manifest(crawl)
        assert [os.path.basename(e["path"]) for e in manifest["inputs"]] == ["a.warc.gz"], attempt
        assert manifest["counts"]["records_seen"] == want, attempt
        assert manifest["files_not_read"]["count"] == 0, manifest["files_not_read"]
    assert any(p.name.startswith("status=") for p in crawl.iterdir())


def test_out_a_parent_of_the_input_directory(tmp_path):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    shutil.copy(ARCHIVE, crawl / "a.warc.gz")
    result = _run(str(crawl), "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert _manifest(tmp_path)["counts"]["records_seen"] == _row_records(ARCHIVE)


def test_is_run_output():
    from redecode.rundir import is_run_output

    out = "/data/out"
    for name in ("_run.json", "_lock", "_done/x.json", "_staging/a-1/x.parquet", ".tmp-x.parquet.tmp",
                 "a.warc.gz.0123abcd.0000.parquet", ".crawl.warc.gz.0123abcd.0001.parquet", "_running.json",
                 "_inputs/inputs.parquet", "part-0123456789abcdef-00000.parquet",
                 "status=decoded/part-0123456789abcdef-00003.parquet"):
        assert is_run_output(out, f"{out}/{name}"), name
    for name in ("raw.parquet", "a.warc.gz", "sub/a.warc.gz.0123abcd.0000.parquet",
                 "sub/part-0123456789abcdef-00000.parquet", "status=decoded/raw.parquet"):
        assert not is_run_output(out, f"{out}/{name}"), name
    assert not is_run_output(out, "/data/a.warc.gz.0123abcd.0000.parquet")
    assert is_run_output("s3://b/out", "s3://b/out/a.warc.gz.0123abcd.0000.parquet")
    assert not is_run_output("s3://b/out", "s3://b/out2/a.warc.gz.0123abcd.0000.parquet")


def test_no_part_is_hidden(tmp_path):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    names = [".crawl.warc.gz", "_crawl.warc.gz", "..warc.gz", "crawl.warc.gz"]
    for name in names:
        shutil.copy(ARCHIVE, crawl / name)
    out = tmp_path / "out"
    assert _run(*(str(crawl / n) for n in names), "--out", str(out)).exit_code == 0
    parts = sorted(p for p in os.listdir(out) if p.endswith(".parquet"))
    assert len(parts) == len(names)
    assert all(not p.startswith((".", "_")) and is_part_name(p) for p in parts), parts
    per_file = _row_records(ARCHIVE)
    # what DuckDB's glob sees (the queries in docs/queries.md read DIR/*.parquet)
    ((globbed,),) = duckdb.connect().execute(f"SELECT count(*) FROM read_parquet('{out}/*.parquet')").fetchall()
    assert globbed == len(names) * per_file
    result = CliRunner().invoke(cli, ["query", str(out), "SELECT count(*) AS n FROM decodes", "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == str(len(names) * per_file)
