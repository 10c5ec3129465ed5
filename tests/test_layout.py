"""The bounded output layout (issue 26): --max-part-bytes / --max-part-rows cut parts to a size
(parts of many small inputs merged, a large input's rows split), --partition-by writes Hive-style
folders that DuckDB, Spark and pyarrow datasets read as they are; resume, --force, backfill, query,
diff and report work on it; the per-input table and a small _run.json.

What is proved: the rows of a bounded run, read back through each reader, are exactly the flat
run's rows (every column, the partition column given back by the folder); parts keep to their
bounds; a rerun does nothing, a changed input re-reads its task only, a stopped task's parts never
show; the folder names follow Hive's escaping (every escaped character, null, booleans).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode import layout as layout_mod
from redecode import rundir
from redecode.backfill import backfill
from redecode.job import RunDirectoryConflict, run
from redecode.layout import FLAT, HIVE_NULL, Layout, parse_partition_folder, partition_folder
from redecode.query import execute, open_query
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "sample_warcs")


def _parts(out) -> list[str]:
    return rundir.list_parts(str(out))


def _rows_by_id(out) -> dict[str, dict]:
    """Every row of a run directory, the partition column given back by its folder."""
    rows = {}
    for part in _parts(out):
        folder = part.rpartition("/")[0]
        named = parse_partition_folder(folder) if folder else None
        for row in pq.read_table(os.path.join(str(out), part)).to_pylist():
            if named:
                row[named[0]] = named[1]
            rows[row["record_id"]] = row
    return rows


@pytest.fixture(scope="module")
def flat(tmp_path_factory):
    out = tmp_path_factory.mktemp("flat") / "out"
    assert run([SAMPLE], str(out)).exit_code == 0
    return out


# ------------------------------------------------------------------ folder names


def test_partition_folder_escapes_as_hive_does():
    # Hive's FileUtils.escapePathName: these characters and the controls as %XX, upper-case hex
    for ch in '"#%\'*/:=?\\{[]^' + "".join(map(chr, range(0x20))) + "\x7f":
        name = partition_folder("encoding", f"a{ch}b")
        assert name == f"encoding=a%{ord(ch):02X}b"
        assert parse_partition_folder(name) == ("encoding", f"a{ch}b")
    for ch in "-_.~ ,;!$&()+@é€":
        assert partition_folder("encoding", f"a{ch}b") == f"encoding=a{ch}b"
    assert partition_folder("encoding", None) == partition_folder("encoding", "") == f"encoding={HIVE_NULL}"
    assert parse_partition_folder(f"encoding={HIVE_NULL}") == ("encoding", None)
    assert partition_folder("utf8_valid", True) == "utf8_valid=true"
    assert parse_partition_folder("utf8_valid=false") == ("utf8_valid", False)
    assert parse_partition_folder("http_status=404") == ("http_status", 404)
    assert parse_partition_folder("text=x") is None and parse_partition_folder("_done") is None


def test_layout_checks_its_values():
    with pytest.raises(ValueError):
        Layout(max_part_bytes=0)
    with pytest.raises(ValueError, match="cannot partition by 'text'"):
        Layout(partition_by="text")
    assert FLAT.flat and FLAT.to_json() is None and Layout.from_json(None) == FLAT
    assert Layout.from_json(Layout(max_part_rows=5).to_json()) == Layout(max_part_rows=5)


@pytest.mark.parametrize("name,ok", [
    ("encoding=UTF-8/part-0123456789abcdef-00000.parquet", True), ("encoding=x/../y.parquet", False),
    ("_done/x.parquet", False), ("text=x/y.parquet", False), ("encoding=a/b/c.parquet", False),
    ("encoding=a/.x.parquet", False), ("..=x/y.parquet", False),
])
def test_part_names_in_folders(name, ok):
    assert rundir.is_part_name(name) is ok


# ------------------------------------------------------------------ runs


def test_small_inputs_share_a_part_and_rows_equal_the_flat_run(flat, tmp_path):
    out = tmp_path / "out"
    summary = run([SAMPLE], str(out), layout=Layout(max_part_bytes=64 << 20))
    assert summary.exit_code == 0
    assert len(_parts(out)) == 1 and len(os.listdir(out / "_done")) == 1  # one task, one part
    assert _rows_by_id(out) == _rows_by_id(flat)
    entries = summary.manifest["inputs"]
    assert {e["path"] for e in entries} == {e["path"] for e in json.loads((flat / "_run.json").read_text())["inputs"]}
    assert all(e["parts"] == _parts(out) for e in entries)
    assert summary.manifest["layout"] == {"max_part_bytes": 64 << 20, "max_part_rows": None, "partition_by": None}


def test_parts_keep_to_their_bounds(flat, tmp_path):
    out = tmp_path / "rows"
    run([SAMPLE], str(out), layout=Layout(max_part_rows=4))
    counts = [pq.ParquetFile(os.path.join(out, p)).metadata.num_rows for p in _parts(out)]
    assert max(counts) <= 4 and sum(counts) == len(_rows_by_id(flat)) and len(counts) >= 11
    assert _rows_by_id(out) == _rows_by_id(flat)
    out = tmp_path / "bytes"
    limit = 60_000
    run([SAMPLE], str(out), layout=Layout(max_part_bytes=limit))
    for part in _parts(out):
        # closed once it reaches the limit or its next row group would pass it: past the limit by
        # less than one row group
        meta = pq.ParquetFile(os.path.join(out, part)).metadata
        largest = max(sum(meta.row_group(i).column(j).total_compressed_size for j in range(meta.num_columns))
                      for i in range(meta.num_row_groups))
        assert os.path.getsize(os.path.join(out, part)) < limit + largest, part
    assert len(_parts(out)) > 1 and _rows_by_id(out) == _rows_by_id(flat)


@pytest.fixture(scope="module")
def partitioned(tmp_path_factory):
    out = tmp_path_factory.mktemp("partitioned") / "out"
    assert run([SAMPLE], str(out), layout=Layout(max_part_bytes=1 << 20, partition_by="encoding")).exit_code == 0
    return out


def test_partition_folders_leave_the_column_out(flat, partitioned):
    parts = _parts(partitioned)
    assert all("/" in p for p in parts)
    folders = {p.split("/")[0] for p in parts}
    encodings = {r["encoding"] for r in _rows_by_id(flat).values()}
    assert folders == {partition_folder("encoding", e) for e in encodings}
    assert all("encoding" not in pq.read_schema(os.path.join(partitioned, p)).names for p in parts)
    assert _rows_by_id(partitioned) == _rows_by_id(flat)


def test_duckdb_and_pyarrow_read_the_folders_as_they_are(flat, partitioned):
    import duckdb
    import pyarrow.dataset as ds

    want = sorted((r["record_id"], r["encoding"], r["text"]) for r in _rows_by_id(flat).values())
    con = duckdb.connect()
    # (COLUMN=VALUE folders only: _inputs/inputs.parquet is the per-input table, not rows)
    got = con.execute(f"SELECT record_id, encoding, text FROM read_parquet('{partitioned}/*=*/*.parquet', "
                      "hive_partitioning = true)").fetchall()
    assert sorted(got) == want
    table = ds.dataset(str(partitioned), format="parquet", partitioning="hive",
                       exclude_invalid_files=True).to_table(columns=["record_id", "encoding", "text"])
    assert sorted(tuple(r.values()) for r in table.to_pylist()) == want


@pytest.mark.slow
def test_spark_reads_the_folders_as_they_are(flat, partitioned):
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install '.[spark]')")
    import sys

    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    try:
        got = spark.read.parquet(str(partitioned)).select("record_id", "encoding", "text").collect()
    finally:
        spark.stop()
    want = sorted((r["record_id"], r["encoding"], r["text"]) for r in _rows_by_id(flat).values())
    assert sorted(tuple(r) for r in got) == want


def test_query_diff_and_report_read_both_layouts(flat, partitioned, tmp_path):
    con = open_query([str(flat), str(partitioned)])
    (result,) = execute(con, "SELECT run, count(*), count(encoding), count(DISTINCT encoding) FROM decodes "
                             "GROUP BY run ORDER BY run")
    assert [row[1:] for row in result.rows] == [result.rows[0][1:]] * 2
    (runs,) = execute(con, "SELECT count(*) FROM runs")
    assert runs.rows[0][0] == 2 * len(json.loads((flat / "_run.json").read_text())["inputs"])
    result = CliRunner().invoke(cli, ["diff", str(flat), str(partitioned)])
    assert result.exit_code == 0 and ", 0 changed" in result.output, result.output
    from redecode.report import collect

    data = collect([str(partitioned)])
    assert data.runs[0].parts == len(_parts(partitioned))


@pytest.mark.slow
def test_rerun_force_and_a_changed_input(tmp_path):
    inputs = tmp_path / "in"
    shutil.copytree(SAMPLE, inputs)
    out = tmp_path / "out"
    lay = Layout(max_part_bytes=20_000, partition_by="encoding")
    first = run([str(inputs)], str(out), layout=lay, shard_bytes=20_000)
    before = {p: os.path.getmtime(os.path.join(out, p)) for p in _parts(out)}
    tasks = sorted(os.listdir(out / "_done"))
    assert len(tasks) > 1  # small task budget: several tasks
    again = run([str(inputs)], str(out), layout=lay, shard_bytes=20_000)
    assert len(again.resumed) == len(first.manifest["inputs"])
    assert {p: os.path.getmtime(os.path.join(out, p)) for p in _parts(out)} == before
    # a stopped task's parts without its marker are removed, never read
    stray = out / "encoding=UTF-8" / "part-00000000deadbeef-00000.parquet"
    shutil.copy(os.path.join(out, _parts(out)[0]), stray)
    run([str(inputs)], str(out), layout=lay, shard_bytes=20_000)
    assert not stray.exists()
    # one input changes: its task is redone, the others stay
    victim = sorted(inputs.glob("*.warc.gz"))[-1]
    data = victim.read_bytes()
    victim.write_bytes(data + data[: 1000])  # (records appended: a bit of the file again)
    third = run([str(inputs)], str(out), layout=lay, shard_bytes=20_000)
    assert third.changed == [str(victim)]
    assert len(third.resumed) >= 1
    rows = _rows_by_id(out)
    assert len(rows) == sum(e["rows"] for e in third.manifest["inputs"])
    forced = run([str(inputs)], str(out), layout=lay, force=True, shard_bytes=20_000)
    assert forced.resumed == [] and _rows_by_id(out) == rows


def test_a_directory_holds_one_layout(tmp_path):
    out = tmp_path / "out"
    run([SAMPLE], str(out))
    with pytest.raises(RunDirectoryConflict, match="another layout"):
        run([SAMPLE], str(out), layout=Layout(max_part_rows=10))
    run([SAMPLE], str(out), layout=Layout(max_part_rows=10), force=True)
    assert all(p.startswith("part-") for p in _parts(out))


def test_crafted_task_marker_names_nothing_outside(tmp_path):
    out = tmp_path / "out"
    run([SAMPLE], str(out), layout=Layout(max_part_rows=100))
    (marker_file,) = (out / "_done").glob("*.json")
    marker = json.loads(marker_file.read_text())
    victim = tmp_path / "victim.parquet"
    victim.write_bytes(b"keep me")
    marker["parts"] = ["../victim.parquet"]
    marker_file.write_text(json.dumps(marker))
    summary = run([SAMPLE], str(out), layout=Layout(max_part_rows=100))
    assert victim.read_bytes() == b"keep me" and summary.resumed == []


def test_backfill_gives_the_run_of_the_new_rules(partitioned, tmp_path):
    a, b = tmp_path / "backfilled", tmp_path / "run"
    backfill(str(partitioned), "browser-2026.11", str(a))
    run([SAMPLE], str(b), rules="browser-2026.11", layout=Layout(max_part_bytes=1 << 20, partition_by="encoding"))
    assert _parts(a) == _parts(b)
    for part in _parts(a):
        assert pq.read_table(os.path.join(a, part)).to_pylist() == pq.read_table(os.path.join(b, part)).to_pylist()


def test_index_run_in_a_bounded_layout(tmp_path):
    from redecode.index import read_index

    warc = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")
    index = tmp_path / "x.cdxj"
    from test_index import make_cc_index

    make_cc_index.write_cdxj(make_cc_index.index_rows(warc, warc), str(index))
    out = tmp_path / "out"
    summary = run([], str(out), index=read_index(str(index)), layout=Layout(max_part_rows=3, partition_by="status"))
    assert summary.exit_code == 0 and summary.counts["selected"] == summary.counts["read"] > 0
    assert {p.split("/")[0] for p in _parts(out)} <= {"status=decoded", "status=skipped", "status=failed"}


def test_inputs_table_and_a_small_manifest(flat, tmp_path, monkeypatch):
    table = pq.read_table(flat / "_inputs" / "inputs.parquet").to_pylist()
    manifest = json.loads((flat / "_run.json").read_text())
    assert [(r["path"], r["rows"], r["outcome"]) for r in table] == \
        [(e["path"], e["rows"], e["outcome"]) for e in manifest["inputs"]]
    assert manifest["input_count"] == len(table) and manifest["inputs_table"] == "_inputs/inputs.parquet"
    monkeypatch.setattr(rundir, "INPUTS_LISTED", 2)
    out = tmp_path / "out"
    run([SAMPLE], str(out))
    small = json.loads((out / "_run.json").read_text())
    assert small["inputs"] is None and small["input_count"] == len(table)
    assert rundir.manifest_inputs(str(out), small) == manifest["inputs"]
    (result,) = execute(open_query(str(out)), "SELECT count(*), sum(rows) FROM runs")
    assert result.rows[0] == (len(table), sum(r["rows"] for r in table))


def test_cli_options(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", SAMPLE, "--out", str(out), "--max-part-rows", "5",
                                      "--partition-by", "status"])
    assert result.exit_code == 0, result.output
    assert {p.split("/")[0] for p in _parts(out)} <= {"status=decoded", "status=skipped", "status=failed"}
    result = CliRunner().invoke(cli, ["run", SAMPLE, "--out", str(tmp_path / "o2"), "--partition-by", "text"])
    assert result.exit_code == 2 and "text" in result.output
    assert layout_mod.PARTITION_COLUMNS[0] in CliRunner().invoke(cli, ["run", "--help"]).output


def test_inputs_are_recorded_as_tasks_finish(tmp_path, monkeypatch):
    """A run stopped midway (here: its fourth task fails) has the inputs it finished in the
    per-input table's batches; the next run's manifest replaces them."""
    from redecode import job
    from redecode.executors import Local, map_shards

    got = []
    assert map_shards(lambda x: x * 2, [1, 2, 3], Local(1), on_result=lambda i, r: got.append((i, r))) == [2, 4, 6]
    assert got == [(0, 2), (1, 4), (2, 6)]
    monkeypatch.setattr(job._InputBatches, "EVERY", 1)
    real = job.process_task
    finished = []

    def failing(task, *args, **kwargs):
        if any(s.path.endswith("00002.warc.gz") for s in task.shards):
            raise RuntimeError("stopped")
        marker = real(task, *args, **kwargs)
        finished.extend(s.path for s in task.shards)
        return marker

    monkeypatch.setattr(job, "process_task", failing)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="stopped"):
        run([SAMPLE], str(out), layout=Layout(max_part_rows=50), shard_bytes=60_000)
    batches = sorted((out / "_inputs").glob("batch-*.parquet"))
    recorded = [r["path"] for b in batches for r in pq.read_table(b).to_pylist()]
    assert len(batches) >= 2 and sorted(recorded) == sorted(set(finished)) and not (out / "_run.json").exists()
    monkeypatch.setattr(job, "process_task", real)
    summary = run([SAMPLE], str(out), layout=Layout(max_part_rows=50), shard_bytes=60_000)
    assert set(recorded) <= set(summary.resumed) | set(summary.partial)
    assert sorted(p.name for p in (out / "_inputs").iterdir()) == ["inputs.parquet"]
