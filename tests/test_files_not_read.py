"""Files in the input directories that look like archives but are not taken as inputs
(.warc.gz.bad, a renamed .warc.1...) are reported, not passed over in silence ("nothing is lost");
READMEs and licences beside the archives are not. Found by a user on ../shared/corpus/warcs. A .wacz
is an input since issue 26 (its WARC files are read); one that is no WACZ is reported unreadable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from redecode import inputs as expansion
from redecode.job import FILES_NOT_READ_LISTED, run
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = sorted((ROOT / "sample_warcs").glob("*.warc.gz"))[0]


@pytest.mark.parametrize("name,looks", [
    ("a.wacz", True), ("example-bad.warc.gz.bad", True), ("crawl.warc.1", True), ("x.ARC.tmp", True),
    ("index.cdx.gz", True), ("README.md", False), ("expected.jsonl", False), ("LICENSE.txt", False),
    ("archive.txt", False), ("warc.md", False),
])
def test_looks_like_archive(name, looks):
    assert expansion.looks_like_archive(name) is looks
    assert expansion.looks_like_archive(f"/some/dir/{name}") is looks


@pytest.fixture
def inputs(tmp_path) -> Path:
    d = tmp_path / "in"
    (d / "sub").mkdir(parents=True)
    shutil.copy(ARCHIVE, d / ARCHIVE.name)
    for name in ("a.warc.1", "sub/b.warc.gz.bad", "README.md", "sub/notes.txt"):
        (d / name).write_bytes(b"x")
    return d


def test_iter_inputs_and_expand_inputs_report_them(inputs):
    not_read: list[str] = []
    assert expansion.iter_inputs([inputs], not_read) == [str(inputs / ARCHIVE.name)]
    assert not_read == [str(inputs / "a.warc.1"), str(inputs / "sub" / "b.warc.gz.bad")]
    not_read = []
    assert expansion.expand_inputs([str(inputs / "**" / "*")], not_read) == [str(inputs / ARCHIVE.name)]
    assert not_read == [str(inputs / "a.warc.1"), str(inputs / "sub" / "b.warc.gz.bad")]
    # a file named on the command line is read whatever its name: nothing to report
    not_read = []
    assert expansion.iter_inputs([inputs / "a.warc.1"], not_read) == [str(inputs / "a.warc.1")]
    assert not_read == []


def test_a_wacz_that_is_no_wacz_is_reported_unreadable(inputs, tmp_path):
    (inputs / "c.wacz").write_bytes(b"x")
    summary = run([str(inputs)], str(tmp_path / "out"))
    listed = summary.manifest["files_not_read"]
    assert listed["count"] == 3 and str(inputs / "c.wacz") in listed["names"]
    assert [e["path"] for e in listed["unreadable"]] == [str(inputs / "c.wacz")]
    assert "not a zip" in listed["unreadable"][0]["error"] and summary.exit_code == 1


def test_run_manifest_and_cli_note(inputs, tmp_path):
    summary = run([str(inputs)], str(tmp_path / "out"))
    expected = {"count": 2, "names": [str(inputs / "a.warc.1"), str(inputs / "sub" / "b.warc.gz.bad")]}
    assert summary.manifest["files_not_read"] == expected
    assert json.loads((tmp_path / "out" / "_run.json").read_text())["files_not_read"] == expected
    result = CliRunner().invoke(cli, ["run", str(inputs), "--out", str(tmp_path / "out2"), "-q"])
    assert result.exit_code == 0, result.output
    assert "2 file(s) in the inputs were not read" in result.output and "a.warc.1" in result.output


def test_own_output_inside_the_input_directory_is_not_reported(inputs):
    run([str(inputs)], str(inputs / "out"))
    again = run([str(inputs)], str(inputs / "out"))
    assert again.manifest["files_not_read"]["count"] == 2


def test_names_listed_are_capped_count_is_not(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    shutil.copy(ARCHIVE, d / ARCHIVE.name)
    for i in range(FILES_NOT_READ_LISTED + 5):
        (d / f"w{i:04d}.warc.1").write_bytes(b"")
    got = run([str(d)], str(tmp_path / "out")).manifest["files_not_read"]
    assert got["count"] == FILES_NOT_READ_LISTED + 5 and len(got["names"]) == FILES_NOT_READ_LISTED


def test_spark_inline_manifest_has_them(inputs, tmp_path):
    from redecode.spark import run_spark

    summary = run_spark([str(inputs)], str(tmp_path / "out"), master="inline")
    assert summary.manifest["files_not_read"]["count"] == 2


def test_backfill_keeps_the_prior_runs_files_not_read(inputs, tmp_path):
    """A backfill's rows stand for the prior run's inputs: the files that run passed over are still
    not read, and its manifest says so (a fresh user saw 0 where the prior run had 2)."""
    from redecode.backfill import backfill

    prior = run([str(inputs)], str(tmp_path / "prior"), rules="browser-2026.11")
    summary = backfill(str(tmp_path / "prior"), "author-2026.12", str(tmp_path / "bf"))
    assert summary.manifest["files_not_read"] == prior.manifest["files_not_read"]
    assert summary.manifest["files_not_read"]["count"] == 2
