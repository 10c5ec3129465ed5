"""``redecode query`` is read-only and reads nothing but the run directories (issue 17, case 8):
DuckDB's external access is limited to them, extension installs are off and the configuration is
locked; ``EXPLAIN ANALYZE`` of a write is refused like the write."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from redecode.job import run
from redecode.query import QueryError, execute, open_query, report
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = sorted((ROOT / "sample_warcs").glob("*.warc.gz"))[0]


@pytest.fixture(scope="module")
def setting(tmp_path_factory):
    base = tmp_path_factory.mktemp("sandbox")
    out = base / "out"
    run([str(ARCHIVE)], str(out))
    secret = base / "secret.txt"
    secret.write_text("s3cr3t")
    return base, out, secret


def _digest(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.rglob("*")) if p.is_file()}


def _attempts(base: Path, out: Path, secret: Path) -> list[str]:
    part = next(out.glob("*.parquet"))
    return [
        f"EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{base}/written.csv'",
        f"EXPLAIN COPY (SELECT 1 AS x) TO '{base}/written.csv'",
        f"EXPLAIN ANALYZE COPY (SELECT * FROM decodes) TO '{part}' (FORMAT parquet, USE_TMP_FILE false)",
        f"EXPLAIN (FORMAT json) COPY (SELECT 1 AS x) TO '{base}/written.json'",
        f"COPY (SELECT 1 AS x) TO '{base}/written.csv'",
        f"SELECT * FROM read_text('{secret}')",
        "SELECT * FROM read_text('/etc/passwd')",
        f"SELECT * FROM read_csv('{secret}')",
        "SELECT * FROM glob('/etc/*')",
        f"EXPLAIN ANALYZE SELECT * FROM read_text('{secret}')",
        "INSTALL httpfs",
        "LOAD httpfs",
        "FORCE INSTALL json",
        f"ATTACH '{base}/other.duckdb' AS other",
        "SET enable_external_access = true",
        "RESET enable_external_access",
        "SET lock_configuration = false",
        "SET allowed_directories = ['/']",
        "SET GLOBAL allowed_paths = ['/etc/passwd']",
        "SET autoinstall_known_extensions = true",
        f"SET temp_directory = '{base}'",
        "PRAGMA enable_profiling",
        f"SET profiling_output = '{base}/profile.json'",
        "CREATE TABLE t AS SELECT 1",
        f"EXPORT DATABASE '{base}/export'",
        "SELECT 1; COPY (SELECT 1) TO '/tmp/redecode-written.csv'",
    ]


def test_every_attempt_is_refused_and_nothing_is_written_or_read(setting):
    base, out, secret = setting
    before = _digest(base)
    con = open_query([str(out)])
    try:
        for sql in _attempts(base, out, secret):
            with pytest.raises(QueryError):
                results = execute(con, sql)
                # (an attempt that "worked" must at least not have returned the secret)
                assert "s3cr3t" not in repr([r.rows for r in results]), sql
        # and afterwards, the lock still holds
        with pytest.raises(QueryError, match="Permission|not allowed"):
            execute(con, f"SELECT * FROM read_text('{secret}')")
    finally:
        con.close()
    assert _digest(base) == before
    assert not Path("/tmp/redecode-written.csv").exists()


def test_the_run_directory_reads_as_before(setting):
    base, out, secret = setting
    con = open_query([str(out)])
    try:
        (rows,) = execute(con, "SELECT count(*) FROM decodes")
        (glob_rows,) = execute(con, f"SELECT count(*) FROM '{out}/*.parquet'")  # the README's query
        (runs,) = execute(con, "SELECT count(*) FROM runs")
        (plan,) = execute(con, "EXPLAIN ANALYZE SELECT count(*) FROM decodes")
    finally:
        con.close()
    assert rows.rows[0][0] == glob_rows.rows[0][0] > 0
    assert runs.rows == [(1,)]
    assert plan.rows
    assert report([str(out)]).records == rows.rows[0][0]


@pytest.mark.parametrize("index", range(6))
def test_cli_refuses_with_exit_2(setting, index):
    base, out, secret = setting
    sql = _attempts(base, out, secret)[index]
    result = CliRunner().invoke(cli, ["query", str(out), sql])
    assert result.exit_code == 2, result.output
    assert "s3cr3t" not in result.output and "root:" not in result.output
    assert not (base / "written.csv").exists()


@pytest.mark.slow
def test_html_report_with_a_diff_still_reads(setting, tmp_path):
    pytest.importorskip("altair", reason="the [report] extra")
    base, out, secret = setting
    diff_out = tmp_path / "diff"
    result = CliRunner().invoke(cli, ["diff", str(out), str(out), "--out", str(diff_out)])
    assert result.exit_code == 0, result.output
    html = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", str(out), "--diff", str(diff_out), "-o", str(html)])
    assert result.exit_code == 0, result.output
    assert html.stat().st_size > 0
