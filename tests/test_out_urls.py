"""--out given as a URL: file:// is a local directory; other URLs are refused up front by the
commands that write local directories (nothing is created under a directory named "s3:").
Found by a user: `run --out s3://...` with the local executor made ./s3:/... and then failed
with a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from redecode.job import run
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = sorted((ROOT / "sample_warcs").glob("*.warc.gz"))[0]


def test_run_file_url_is_the_local_directory(tmp_path):
    summary = run([str(ARCHIVE)], f"file://{tmp_path}/out")
    assert summary.exit_code == 0
    assert (tmp_path / "out" / "_run.json").exists() and list((tmp_path / "out").glob("*.parquet"))


@pytest.mark.parametrize("command", [
    ["run", str(ARCHIVE), "--out", "s3://bucket/out"],
    ["diff", "--rules", "seed-2026.10", "--rules", "browser-2026.11", str(ARCHIVE), "--out", "s3://bucket/d"],
])
def test_url_out_refused_before_any_work(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 2, result.output
    assert "s3://bucket" in result.output and "local directory" in result.output
    assert list(tmp_path.iterdir()) == []  # no ./s3:/... directory


def test_backfill_url_out_refused(tmp_path, monkeypatch):
    run([str(ARCHIVE)], str(tmp_path / "prior"), rules="seed-2026.10")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["backfill", str(tmp_path / "prior"), "--out", "s3://bucket/bf"])
    assert result.exit_code == 2, result.output
    assert "not a URL" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prior"]


def test_diff_rules_refuses_run_directories(tmp_path):
    run([str(ARCHIVE)], str(tmp_path / "a"))
    result = CliRunner().invoke(cli, ["diff", str(tmp_path / "a"), "--rules", "seed-2026.10",
                                      "--rules", "browser-2026.11"])
    assert result.exit_code == 2, result.output
    assert "is a run directory" in result.output and "without --rules" in result.output


def test_run_spark_inline_file_url_is_the_local_directory(tmp_path):
    from redecode.spark import run_spark

    summary = run_spark([str(ARCHIVE)], f"file://{tmp_path}/out", master="inline")
    assert summary.exit_code == 0
    assert (tmp_path / "out" / "_run.json").exists() and list((tmp_path / "out").glob("*.parquet"))
