"""Backfill of a prior run given relative input paths, from another working directory.

The prior run records its working directory in ``_run.json`` (``cwd``); backfill reads the inputs
there, and its output names them exactly as the prior run (and a full run from that directory) did.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from redecode.backfill import BackfillError, backfill
from redecode.job import run

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_warcs"


def _rows(run_dir: Path) -> list[dict]:
    rows: list[dict] = []
    for part in sorted(run_dir.glob("*.parquet")):
        rows += pq.read_table(part).to_pylist()
    return sorted(rows, key=lambda r: (r["warc_path"], r["warc_offset"]))


@pytest.fixture
def crawl_dir(tmp_path) -> Path:
    crawl = tmp_path / "crawl"
    (crawl / "warcs").mkdir(parents=True)
    for p in sorted(SAMPLE.glob("*.warc.gz")):
        shutil.copy(p, crawl / "warcs" / p.name)
    return crawl


def test_relative_inputs_are_found_from_another_directory(crawl_dir, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(crawl_dir)
    run(["warcs"], str(tmp_path / "prior"), rules="seed-2026.10")
    run(["warcs"], str(tmp_path / "full"), rules="browser-2026.11")
    prior_manifest = json.loads((tmp_path / "prior" / "_run.json").read_text())
    assert prior_manifest["cwd"] == str(crawl_dir)
    assert all(not Path(e["path"]).is_absolute() for e in prior_manifest["inputs"])

    monkeypatch.chdir(elsewhere)  # the relative paths mean nothing here
    summary = backfill(str(tmp_path / "prior"), "browser-2026.11", str(tmp_path / "bf"))
    assert summary.manifest["backfill"]["rows_reread"] > 0  # inputs were read again, from crawl/
    got, want = _rows(tmp_path / "bf"), _rows(tmp_path / "full")
    assert got == want  # warc_path included: "warcs/...", as the prior run named them
    manifest = json.loads((tmp_path / "bf" / "_run.json").read_text())
    assert manifest["cwd"] == str(crawl_dir)
    assert manifest["files_not_read"] == {"count": 0, "names": []}
    assert sorted(p.name for p in (tmp_path / "bf").glob("*.parquet")) == \
        sorted(p.name for p in (tmp_path / "full").glob("*.parquet"))


def test_missing_relative_input_names_both_places(crawl_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(crawl_dir)
    run(["warcs"], str(tmp_path / "prior"), rules="seed-2026.10")
    shutil.rmtree(crawl_dir / "warcs")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BackfillError, match=r"neither in .*crawl \(where the prior run ran\) nor here"):
        backfill(str(tmp_path / "prior"), "browser-2026.11", str(tmp_path / "bf"))
