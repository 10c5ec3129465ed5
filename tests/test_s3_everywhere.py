"""Object storage everywhere (issue 18, item 3), against the moto S3 server of ``s3_server``:
``run --out s3://`` with the local executor (staged on local disk, published part then marker),
``query``, ``report``, ``backfill`` and ``diff`` on ``s3://`` run directories, and a Common Crawl
style list of WARCs in a bucket (``@.../warc.paths.gz --prefix s3://commoncrawl/``).

Each remote result is compared with the same command on local directories.
"""

from __future__ import annotations

import glob
import io
import json
import os

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

pytest.importorskip("s3fs", reason="s3fs not installed (pip install '.[s3]')")
pytest.importorskip("moto.server", reason="moto[server] not installed (pip install 'moto[server]')")

from redecode import job, storage  # noqa: E402
from redecode.backfill import backfill  # noqa: E402
from redecode.diff import diff_runs  # noqa: E402
from redecode.query import execute, open_query, report  # noqa: E402
from redecode.selection import Selection  # noqa: E402
from redecode_jobs.cli import cli  # noqa: E402
from s3_server import CC_PATHS, SAMPLE, cc_key, s3  # noqa: E402,F401 - s3 is the fixture

_TIMES = ("started_at", "finished_at", "wall_seconds", "cpu_seconds")


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def local_parts(out: str) -> dict[str, list[dict]]:
    return {os.path.basename(p): pq.read_table(p).to_pylist() for p in sorted(glob.glob(os.path.join(out, "*.parquet")))}


def s3_parts(url: str) -> dict[str, list[dict]]:
    return {name: pq.read_table(io.BytesIO(storage.read_bytes(storage.join(url, name)))).to_pylist()
            for name in storage.listdir(url) if name.endswith(".parquet")}


def s3_json(url: str) -> dict:
    return json.loads(storage.read_bytes(url))


def no_times(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in _TIMES}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("local") / "out")
    assert job.run([SAMPLE], out).exit_code == 0
    return out


@pytest.fixture(scope="module")
def s3_run(s3, local_run):
    """The sample crawl run by the local executor (2 workers) into a bucket."""
    url = "s3://run-out/local-executor"
    assert job.run([SAMPLE], url, workers=2).exit_code == 0
    return url


# ---------------------------------------------------------------------------------------------
# run --out s3:// with the local executor


@pytest.mark.slow
def test_run_local_executor_to_bucket_equals_local(s3_run, local_run):
    expected = local_parts(local_run)
    assert s3_parts(s3_run) == expected
    assert sorted(storage.listdir(s3_run)) == sorted([*expected, "_done", "_inputs", "_run.json"])  # nothing staged left
    for name in storage.listdir(storage.join(s3_run, "_done")):
        with open(os.path.join(local_run, "_done", name), encoding="utf-8") as f:
            local = json.load(f)
        assert no_times(s3_json(storage.join(s3_run, "_done", name))) == no_times(local)
    with open(os.path.join(local_run, "_run.json"), encoding="utf-8") as f:
        assert no_times(s3_json(storage.join(s3_run, "_run.json"))) == no_times(json.load(f))
    again = job.run([SAMPLE], s3_run)
    assert sorted(again.resumed) == sorted(e["path"] for e in again.manifest["inputs"])


def test_run_cli_to_bucket_writes_nothing_local(s3, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    os.mkdir(tmp_path / "tmp")
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR is read again
    result = invoke("run", SAMPLE, "--out", "s3://run-out/cli", "--workers", "1", "--limit", "8", "--sample", "0.5")
    assert result.exit_code == 0, result.output
    assert "8 records" in result.stderr and "-> s3://run-out/cli" in result.stderr
    assert sorted(os.listdir(tmp_path)) == ["tmp"] and os.listdir(tmp_path / "tmp") == []  # staging removed
    m = s3_json("s3://run-out/cli/_run.json")
    assert m["counts"]["records_seen"] == 8 and m["selection"]["sample"] == 0.5


def test_common_crawl_list_from_a_bucket(s3, local_run):
    """A Common Crawl style list in a bucket: gzip, lines relative to the bucket, --prefix gives
    the bucket; --limit takes the first rows of the first WARCs."""
    result = invoke("run", f"@{CC_PATHS}", "--prefix", "s3://commoncrawl/", "--limit", "10",
                    "--out", "s3://run-out/cc", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["counts"]["records_seen"] == 10
    rows = sorted((r for rows in s3_parts("s3://run-out/cc").values() for r in rows),
                  key=lambda r: (r["warc_path"], r["warc_offset"]))
    local = sorted((r for name, rows in local_parts(local_run).items() if ".warc.gz." in name for r in rows),
                   key=lambda r: (r["warc_path"], r["warc_offset"]))[:10]
    assert [e["path"] for e in summary["inputs"]] == sorted(
        {f"s3://commoncrawl/{cc_key(r['warc_path'])}" for r in local})
    assert [{**r, "warc_path": os.path.basename(r["warc_path"])} for r in rows] == [
        {**r, "warc_path": os.path.basename(r["warc_path"])} for r in local]


# ---------------------------------------------------------------------------------------------
# query, report, diff, backfill on s3:// run directories


@pytest.mark.slow
def test_query_a_bucket_run(s3_run, local_run):
    def strip(rep):
        data = rep.to_json()
        data.pop("runs")
        for section in data["sections"].values():
            for row in section["rows"]:
                row.pop("run", None)
            # (sections order by counts; rows tied on them come in DuckDB's scan order)
            section["rows"] = sorted(section["rows"], key=repr)
        return data

    assert strip(report(s3_run)) == strip(report(local_run))
    con = open_query([s3_run])
    try:
        (result,) = execute(con, "SELECT count(*) AS n, count(DISTINCT run) AS runs, min(run) AS run FROM decodes")
        inputs = execute(con, "SELECT count(*) FROM runs")[0].rows[0][0]
    finally:
        con.close()
    assert result.rows == [(44, 1, s3_run)] and inputs == 4
    cli_result = invoke("query", s3_run, "SELECT status, count(*) AS n FROM decodes GROUP BY ALL ORDER BY ALL",
                        "--format", "csv")
    assert cli_result.exit_code == 0, cli_result.output
    assert cli_result.stdout.splitlines() == ["status,n", "decoded,38", "skipped,6"]
    missing = invoke("query", "s3://run-out/no-such-run")
    assert missing.exit_code == 2 and "s3://run-out/no-such-run: no such run directory" in missing.output


def test_query_on_a_bucket_run_stays_confined(s3_run, tmp_path):
    """The query sandbox (issue 17) holds for a bucket run: DuckDB reads the run's parts through
    the registered fsspec filesystem and nothing else, in the bucket, in other buckets or on disk."""
    from redecode.query import QueryError

    secret = tmp_path / "secret.txt"
    secret.write_text("s3cr3t")
    storage.write_bytes("s3://run-out/beside/x.csv", b"a\n1\n")
    con = open_query([s3_run])
    try:
        (rows,) = execute(con, f"SELECT count(*) FROM '{s3_run}/*.parquet'")
        assert rows.rows == [(44,)]
        for sql in (f"SELECT * FROM read_text('{secret}')",
                    "SELECT * FROM read_csv('s3://run-out/beside/x.csv')",
                    "SELECT * FROM read_text('s3://arc-in/list.txt')",
                    f"SELECT * FROM read_csv('{s3_run}-other/x.csv')",
                    f"COPY (SELECT 1 AS x) TO '{s3_run}/written.csv'",
                    "SET allowed_directories = ['s3://']"):
            with pytest.raises(QueryError, match="Permission|not allowed|locked|read-only"):
                execute(con, sql)
    finally:
        con.close()
    assert "written.csv" not in storage.listdir(s3_run)


@pytest.mark.slow
def test_report_from_and_to_a_bucket(s3_run, tmp_path):
    pytest.importorskip("altair", reason="the [report] extra (altair) is not installed")
    diff_url = "s3://run-out/diff-browser"
    result = invoke("diff", "--rules", "requests-2.32", "--rules", "browser-2026.11", SAMPLE, "--out", diff_url)
    assert result.exit_code == 0, result.output
    assert sorted(storage.listdir(diff_url)) == ["_diff.json", "diff.parquet"]
    local_html = tmp_path / "r.html"
    result = invoke("report", s3_run, "--diff", diff_url, "-o", str(local_html))
    assert result.exit_code == 0, result.output
    page = local_html.read_text(encoding="utf-8")
    assert "s3://run-out/local-executor" in page and "requests-2.32" in page
    result = invoke("report", s3_run, "-o", "s3://run-out/report.html", "-q")
    assert result.exit_code == 0, result.output
    assert storage.read_bytes("s3://run-out/report.html").startswith(b"<!DOCTYPE html>")


@pytest.mark.slow
def test_diff_two_bucket_runs(s3, s3_run, local_run, tmp_path, monkeypatch):
    seed_url = "s3://run-out/seed"
    job.run([SAMPLE], seed_url, rules="seed-2026.10")
    seed_local = str(tmp_path / "seed")
    job.run([SAMPLE], seed_local, rules="seed-2026.10")
    remote = diff_runs(seed_url, s3_run, out="s3://run-out/diff-runs")
    local = diff_runs(seed_local, local_run, out=str(tmp_path / "d"))
    assert remote.categories == local.categories and remote.changed > 0
    assert remote.mojibake_fixed == local.mojibake_fixed
    got = pq.read_table(io.BytesIO(storage.read_bytes("s3://run-out/diff-runs/diff.parquet"))).to_pylist()
    want = pq.read_table(str(tmp_path / "d" / "diff.parquet")).to_pylist()
    assert got == want
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    result = invoke("diff", seed_url, s3_run, "--json", "--out", "s3://run-out/diff-cli")
    assert result.exit_code == 0 and json.loads(result.stdout)["changed"] == local.changed
    assert sorted(storage.listdir("s3://run-out/diff-cli")) == ["_diff.json", "diff.parquet"]
    assert os.listdir(workdir) == []  # nothing written here (no ./s3:/...)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["bucket-to-bucket", "bucket-to-local", "local-to-bucket"])
def test_backfill_with_bucket_run_directories(s3, where, tmp_path, monkeypatch):
    prior = {"bucket-to-bucket": "s3://run-out/bf-prior-a", "bucket-to-local": "s3://run-out/bf-prior-b",
             "local-to-bucket": str(tmp_path / "prior")}[where]
    out = {"bucket-to-bucket": "s3://run-out/bf-a", "bucket-to-local": str(tmp_path / "bf"),
           "local-to-bucket": "s3://run-out/bf-c"}[where]
    full = str(tmp_path / "full")
    job.run([SAMPLE], prior, rules="seed-2026.10")
    job.run([SAMPLE], full, rules="browser-2026.11")
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    result = invoke("backfill", prior, "--rules", "browser-2026.11", "--out", out, "--json")
    assert result.exit_code == 0, result.output
    assert os.listdir(workdir) == []  # nothing written here (no ./s3:/...)
    stats = json.loads(result.stdout)["backfill"]
    assert 0 < stats["rows_reread"] < stats["rows"]
    assert stats["prior_dir"] == (prior if "://" in prior else os.path.abspath(prior))
    got = s3_parts(out) if "://" in out else local_parts(out)
    assert got == local_parts(full)


@pytest.mark.slow
def test_backfill_of_a_limited_run_is_the_limited_run(s3, tmp_path):
    prior, out, full = "s3://run-out/limited-prior", "s3://run-out/limited-bf", str(tmp_path / "full")
    job.run([SAMPLE], prior, rules="seed-2026.10", selection=Selection(limit=9))
    job.run([SAMPLE], full, rules="browser-2026.11", selection=Selection(limit=9))
    summary = backfill(prior, "browser-2026.11", out)
    assert s3_parts(out) == local_parts(full)
    with open(os.path.join(full, "_run.json"), encoding="utf-8") as f:
        assert summary.manifest["selection"] == json.load(f)["selection"]
    again = backfill(prior, "browser-2026.11", out)  # the selection is the prior's: not a conflict
    assert again.counts == summary.counts
