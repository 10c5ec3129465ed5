"""The Spark executor (issue 11): same parts, rows, markers and counts as the local executor.

The Spark test runs ``local[2]`` (Java 17 and pyspark, the ``[spark]`` extra); without them it is
skipped with the reason. The publish protocol tests (retries, killed attempts) need no Spark: they
run the task function exactly as a Spark task runs it.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import time

import pyarrow.parquet as pq
import pytest

from redecode import inputs, job, spark
from redecode.rules import DEFAULT_RULES

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "sample_warcs"))

#: Manifest keys that differ between two runs of the same work (times, executor facts).
_RUN_KEYS = ("started_at", "finished_at", "wall_seconds", "cpu_seconds", "executor")


def rows_by_part(out: str) -> dict[str, list[dict]]:
    """Every part of a run directory, by file name: its rows, in file order (all columns)."""
    return {
        os.path.basename(p): pq.read_table(p).to_pylist() for p in sorted(glob.glob(os.path.join(out, "*.parquet")))
    }


def markers_of(out: str) -> dict[str, dict]:
    found = {}
    for p in sorted(glob.glob(os.path.join(out, "_done", "*.json"))):
        with open(p, encoding="utf-8") as f:
            m = json.load(f)
        found[os.path.basename(p)] = {k: v for k, v in m.items() if k not in ("wall_seconds", "cpu_seconds")}
    return found


def comparable_manifest(out: str) -> dict:
    with open(os.path.join(out, "_run.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    return {k: v for k, v in manifest.items() if k not in _RUN_KEYS}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("local") / "out")
    summary = job.run([SAMPLE], out, workers=1)
    assert summary.exit_code == 0
    return out


def _sample_list(tmp_path) -> str:
    """An ``@list`` file naming the sample inputs, one per line, as the local run expands them."""
    paths = inputs.iter_inputs([SAMPLE])
    listing = tmp_path / "inputs.txt"
    listing.write_text("# the sample crawl\n" + "\n".join(paths) + "\n\n", encoding="utf-8")
    return str(listing)


# ---------------------------------------------------------------------------------------------
# Spark, local[2]


@pytest.fixture(scope="module")
def spark_session():
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install '.[spark]')")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime (Spark needs Java 17)")
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", os.sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("redecode-test")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # a small JVM starts faster on a loaded 2-core machine
        .config("spark.driver.extraJavaOptions", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.slow
def test_spark_local2_equals_local_executor(spark_session, local_run, tmp_path):
    """Issue 11: ``local[2]`` over sample_warcs (given as an ``@list`` file) gives the local
    executor's parts, row for row and column for column, the same markers and the same manifest
    counts; a rerun skips every shard without starting a Spark job."""
    out = str(tmp_path / "spark-out")
    started = time.perf_counter()
    summary = spark.run_spark(["@" + _sample_list(tmp_path)], out, master="local[2]")
    elapsed = time.perf_counter() - started
    assert summary.exit_code == 0
    executor = summary.manifest["executor"]
    assert executor["name"] == "spark" and executor["master"] == "local[2]"
    assert executor["tasks"] == len(rows_by_part(local_run)) == 4  # one task per archive

    expected, got = rows_by_part(local_run), rows_by_part(out)
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert got[name] == expected[name], name
    assert sum(len(r) for r in got.values()) == summary.counts["records_seen"] == 44
    assert markers_of(out) == markers_of(local_run)
    assert comparable_manifest(out) == comparable_manifest(local_run)
    assert not os.path.exists(os.path.join(out, "_staging"))
    assert not glob.glob(os.path.join(out, "**", ".tmp-*"), recursive=True)

    again = spark.run_spark(["@" + _sample_list(tmp_path)], out, master="local[2]")
    assert again.manifest["executor"]["tasks"] == 0
    assert again.manifest["executor"]["shards_skipped"] == 4
    assert again.counts == summary.counts
    assert rows_by_part(out) == got
    print(f"spark local[2] sample run: {elapsed:.1f} s")


# ---------------------------------------------------------------------------------------------
# the publish protocol, without Spark


def _first_shard() -> job.Shard:
    path = inputs.iter_inputs([SAMPLE])[0]
    return job.Shard(path, 0, *job.plan_shards(path)[0])


def test_retried_task_replaces_never_duplicates(local_run, tmp_path):
    """A task retried after it published (the executor died before reporting) writes the same part
    under the same name: one part, the same rows, one marker."""
    out = str(tmp_path / "out")
    os.makedirs(os.path.join(out, "_done"))
    shard = _first_shard()
    first = spark.run_task(shard, out, DEFAULT_RULES, job.DEFAULT_MAX_RECORD_BYTES)
    second = spark.run_task((shard.path, shard.index, shard.start, shard.end), out, DEFAULT_RULES,
                            job.DEFAULT_MAX_RECORD_BYTES)
    assert first["part"] == second["part"]
    parts = rows_by_part(out)
    assert list(parts) == [first["part"]]
    assert parts[first["part"]] == rows_by_part(local_run)[first["part"]]
    assert len(os.listdir(os.path.join(out, "_done"))) == 1
    assert os.listdir(os.path.join(out, "_staging")) == []  # each attempt removes its own staging


def test_killed_attempts_leave_nothing_visible(local_run, tmp_path):
    """An attempt killed while writing leaves files only in its staging directory (or ``.tmp-*``);
    a part without a marker (killed between the two publishes) is redone. The next run cleans up
    and its output equals the local executor's."""
    out = str(tmp_path / "out")
    shard = _first_shard()
    stem = job.part_stem(shard.path, shard.index)
    staging = os.path.join(out, "_staging", stem + "-dead")
    os.makedirs(os.path.join(staging, "_done"))
    with open(os.path.join(staging, ".tmp-" + stem + ".parquet.tmp"), "wb") as f:
        f.write(b"PAR1 half a part")
    os.makedirs(os.path.join(out, "_done"))
    with open(os.path.join(out, ".tmp-" + stem + ".parquet.tmp"), "wb") as f:
        f.write(b"PAR1")
    # published part, marker never written: the shard is not complete
    shutil.copy(os.path.join(local_run, stem + ".parquet"), os.path.join(out, stem + ".parquet"))

    summary = spark.run_spark([SAMPLE], out, master="inline")
    assert summary.manifest["executor"]["tasks"] == 4
    assert rows_by_part(out) == rows_by_part(local_run)
    assert markers_of(out) == markers_of(local_run)
    assert comparable_manifest(out) == comparable_manifest(local_run)
    assert not os.path.exists(os.path.join(out, "_staging"))
    assert not glob.glob(os.path.join(out, "**", ".tmp-*"), recursive=True)


def test_marker_for_other_rules_is_redone(local_run, tmp_path):
    out = str(tmp_path / "out")
    shutil.copytree(local_run, out)
    summary = spark.run_spark([SAMPLE], out, master="inline", rules="seed-2026.10")
    assert summary.manifest["executor"]["tasks"] == 4
    assert {r["rules"] for rows in rows_by_part(out).values() for r in rows} == {"seed-2026.10"}
    summary = spark.run_spark([SAMPLE], out, master="inline", rules="seed-2026.10")
    assert summary.manifest["executor"]["tasks"] == 0


def test_list_file_relative_entries_and_comments(tmp_path):
    from redecode.inputs import expand_inputs

    (tmp_path / "a.warc.gz").write_bytes(b"")
    (tmp_path / "sub").mkdir()
    listing = tmp_path / "sub" / "list.txt"
    listing.write_text("# comment\n../a.warc.gz\n\n/abs/b.warc.gz\ns3://bucket/c.warc.gz\n", encoding="utf-8")
    # a relative line is joined to the list's folder, its .. resolved (the path a message names)
    assert expand_inputs(["@" + str(listing)]) == sorted(
        [str(tmp_path / "a.warc.gz"), "/abs/b.warc.gz", "s3://bucket/c.warc.gz"]
    )


def test_unknown_input_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        spark.run_spark([str(tmp_path / "nothing-*.warc.gz")], str(tmp_path / "out"), master="inline")


def test_sharded_inputs_same_parts_as_local(tmp_path):
    """With archives cut into byte-range shards (64 KiB here), the executor plans the local
    executor's shards and writes the same parts; a rerun with another shard size replaces them
    (no part of the old plan is left to double a record)."""
    local_out, out = str(tmp_path / "local"), str(tmp_path / "spark")
    job.run([SAMPLE], local_out, workers=1, shard_bytes=64 * 1024)
    summary = spark.run_spark([SAMPLE], out, master="inline", shard_bytes=64 * 1024)
    assert summary.manifest["executor"]["tasks"] > 4  # the 236 KB archive is cut
    assert rows_by_part(out) == rows_by_part(local_out)
    assert comparable_manifest(out) == comparable_manifest(local_out)

    spark.run_spark([SAMPLE], out, master="inline")
    whole = str(tmp_path / "whole")
    job.run([SAMPLE], whole, workers=1)
    assert rows_by_part(out) == rows_by_part(whole)


# ---------------------------------------------------------------------------------------------
# backfill and diff --rules on the Spark executor (issue 11: "diff and backfill use the same
# executor option where they scan archives")


def _comparable_backfill(out: str) -> dict:
    manifest = comparable_manifest(out)
    manifest["backfill"] = {k: v for k, v in manifest["backfill"].items() if k != "wall_seconds"}
    return manifest


@pytest.fixture(scope="module")
def local_backfill(local_run, tmp_path_factory):
    """The local executor's backfill of the sample run (browser-2026.11) to requests-2.32."""
    from redecode.backfill import backfill

    out = str(tmp_path_factory.mktemp("backfill-local") / "out")
    summary = backfill(local_run, "requests-2.32", out, workers=1)
    assert summary.exit_code == 0 and summary.stats["rows"] == 44
    assert "executor" not in summary.manifest
    return out


def _check_backfill_equals_local(local_run, local_backfill, out: str, master: str) -> None:
    from redecode.backfill import backfill

    summary = backfill(local_run, "requests-2.32", out, executor="spark", master=master)
    assert summary.exit_code == 0
    assert summary.manifest["executor"]["tasks"] == 4  # one task per prior part
    expected, got = rows_by_part(local_backfill), rows_by_part(out)
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert got[name] == expected[name], name
    assert markers_of(out) == markers_of(local_backfill)
    assert _comparable_backfill(out) == _comparable_backfill(local_backfill)
    assert not os.path.exists(os.path.join(out, "_staging"))
    assert not glob.glob(os.path.join(out, "**", ".tmp-*"), recursive=True)


def test_backfill_inline_equals_local_executor(local_run, local_backfill, tmp_path):
    _check_backfill_equals_local(local_run, local_backfill, str(tmp_path / "out"), "inline")


def test_backfill_spark_local2_equals_local_executor(spark_session, local_run, local_backfill, tmp_path):
    _check_backfill_equals_local(local_run, local_backfill, str(tmp_path / "out"), "local[2]")


def test_backfill_task_retry_replaces_never_duplicates(local_run, local_backfill, tmp_path):
    """A backfill task run twice (a retry after it published) leaves one part with the local
    executor's rows and one marker; leftovers of a killed attempt go at the next backfill."""
    from redecode.backfill import _backfill_task, _load_prior

    out = str(tmp_path / "out")
    os.makedirs(os.path.join(out, "_done"))
    _, markers = _load_prior(local_run)
    marker = markers[0]
    for _ in range(2):
        _backfill_task(local_run, out, "requests-2.32", job.DEFAULT_MAX_RECORD_BYTES, marker)
    assert list(rows_by_part(out)) == [marker["part"]]
    assert rows_by_part(out)[marker["part"]] == rows_by_part(local_backfill)[marker["part"]]
    assert os.listdir(os.path.join(out, "_done")) == [marker["part"][: -len(".parquet")] + ".json"]
    os.makedirs(os.path.join(out, "_staging", "dead-attempt", "_done"))
    from redecode.backfill import backfill

    backfill(local_run, "requests-2.32", out, executor="spark", master="inline")
    assert rows_by_part(out) == rows_by_part(local_backfill)
    assert not os.path.exists(os.path.join(out, "_staging"))


def _diff_outputs(out: str) -> tuple[list[dict], dict]:
    with open(os.path.join(out, "_diff.json"), encoding="utf-8") as f:
        summary = json.load(f)
    summary.pop("out")
    return pq.read_table(os.path.join(out, "diff.parquet")).to_pylist(), summary


@pytest.fixture(scope="module")
def local_diff(tmp_path_factory):
    from redecode.diff import diff_rules

    out = str(tmp_path_factory.mktemp("diff-local") / "out")
    summary = diff_rules([SAMPLE], "requests-2.32", "browser-2026.11", out=out)
    assert summary.records == 44 and summary.changed > 0  # the sample has records to compare
    return out


@pytest.mark.slow
@pytest.mark.parametrize("master", ["inline", "local[2]"])
def test_diff_rules_spark_equals_local_executor(master, local_diff, tmp_path, request):
    """``diff --rules A --rules B`` on Spark (one task per archive) writes the local executor's
    diff.parquet row for row and the same summary."""
    from redecode.diff import diff_rules

    if master != "inline":
        request.getfixturevalue("spark_session")
    out = str(tmp_path / "out")
    summary = diff_rules([SAMPLE], "requests-2.32", "browser-2026.11", out=out, executor="spark", master=master)
    assert summary.records == 44
    assert _diff_outputs(out) == _diff_outputs(local_diff)


@pytest.mark.slow
def test_cli_backfill_and_diff_take_executor(local_run, local_backfill, local_diff, tmp_path):
    """The commands pass --executor/--master through (inline: no Spark needed)."""
    from click.testing import CliRunner

    from redecode_jobs.backfill_cmd import backfill as backfill_cmd
    from redecode_jobs.diff_cmd import diff as diff_cmd

    runner = CliRunner()
    out = str(tmp_path / "bf")
    result = runner.invoke(backfill_cmd, [local_run, "--rules", "requests-2.32", "--out", out,
                                          "--executor", "spark", "--master", "inline", "-q"])
    assert result.exit_code == 0, result.output
    assert rows_by_part(out) == rows_by_part(local_backfill)
    out = str(tmp_path / "diff")
    result = runner.invoke(diff_cmd, ["--rules", "requests-2.32", "--rules", "browser-2026.11", SAMPLE,
                                      "--out", out, "--executor", "spark", "--master", "inline"])
    assert result.exit_code == 0, result.output
    assert _diff_outputs(out) == _diff_outputs(local_diff)
    result = runner.invoke(diff_cmd, [local_run, local_run, "--executor", "spark"])
    assert result.exit_code == 2 and "--rules" in result.output


@pytest.mark.slow
def test_spark_bounded_layout_progress_and_rows(spark_session, local_run, tmp_path, caplog):
    """A bounded, partitioned layout on Spark local[2]: the rows are the local run's; the driver
    reports progress (bytes to the bar, records and bytes per minute to its log) and the per-input
    records as jobs end."""
    import logging

    from redecode.layout import Layout
    from test_layout import _rows_by_id

    out = str(tmp_path / "bounded")
    seen: list[tuple[int, int]] = []
    with caplog.at_level(logging.INFO, logger="redecode.spark"):
        summary = spark.run_spark([SAMPLE], out, master="local[2]", shard_bytes=40_000,
                                  layout=Layout(max_part_rows=7, partition_by="status"),
                                  on_progress=lambda done, total: seen.append((done, total)))
    assert summary.exit_code == 0
    assert _rows_by_id(out) == _rows_by_id(local_run)
    lines = [r.getMessage() for r in caplog.records if "tasks done" in r.getMessage()]
    assert lines and f"{summary.counts['records_total']:,} records" in lines[-1]
    assert seen and seen[-1][0] == seen[-1][1] == summary.counts["bytes_read"]
    assert summary.manifest["executor"]["tasks"] >= 2


@pytest.mark.slow
def test_spark_index_run_equals_local(spark_session, tmp_path):
    """An index's records on Spark local[2] (the shards carry their spans to the Python workers):
    the rows and counts a local run of the same index gives."""
    from redecode.index import read_index
    from test_index import make_cc_index

    warcs = sorted(glob.glob(os.path.join(SAMPLE, "*.warc.gz")))
    rows = make_cc_index.build(warcs, root=SAMPLE)
    index_file = tmp_path / "x.cdxj"
    make_cc_index.write_cdxj([r for r in rows if make_cc_index.selection_key(r) % 2], str(index_file))
    index = read_index(str(index_file), prefix=SAMPLE + "/")
    local, remote = str(tmp_path / "local"), str(tmp_path / "spark")
    a = job.run([], local, index=index)
    b = spark.run_spark([], remote, master="local[2]", index=index)
    assert rows_by_part(local) == rows_by_part(remote)
    assert a.counts == b.counts and b.counts["selected"] == index.selected
