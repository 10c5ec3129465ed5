"""--out given as a URL: file:// is a local directory. (Other URLs are object storage, written by
every command: tests/test_s3_everywhere.py, which also checks that nothing is created under a
directory named "s3:", as a user once found `run --out s3://...` doing.)"""

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
