"""Completion markers are never trusted with a path (issue 17, case 9): a crafted
``_done/*.json`` whose ``part`` leaves ``--out`` makes no command read or delete anything outside
it; the shard it claims is done again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from redecode import rundir
from redecode.backfill import BackfillError, backfill
from redecode.job import run
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = sorted((ROOT / "sample_warcs").glob("*.warc.gz"))[0]


@pytest.mark.parametrize("name,ok", [
    ("a.warc.gz.12345678.0000.parquet", True), ("../../x", False), ("../x.parquet", False),
    ("/etc/x.parquet", False), ("sub/x.parquet", False), (".parquet", False), (".hidden.parquet", False),
    ("x.json", False), (None, False), (["x.parquet"], False), ("x\0.parquet", False),
])
def test_is_part_name(name, ok):
    assert rundir.is_part_name(name) is ok


def _crafted(tmp_path: Path, victim: Path, *, other_rules: bool) -> Path:
    """A run directory of ARCHIVE whose marker names ``victim`` (outside the directory) as its part."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copy(ARCHIVE, inputs / ARCHIVE.name)
    out = tmp_path / "deep" / "out"
    run([str(inputs)], str(out))
    marker_file = next((out / "_done").glob("*.json"))
    marker = json.loads(marker_file.read_text())
    marker["part"] = "../../" + victim.name
    if other_rules:
        marker["rules_digest"] = "0" * 64
        marker["rules"] = "someone-else"
    marker_file.write_text(json.dumps(marker))
    return out


@pytest.mark.parametrize("other_rules", [True, False])
def test_force_never_deletes_outside_out(tmp_path, other_rules):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    out = _crafted(tmp_path, victim, other_rules=other_rules)
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "in"), "--out", str(out), "--force", "-q"])
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "keep me"
    # the crafted marker was ignored and its shard done again: the directory is whole
    manifest = json.loads((out / "_run.json").read_text())
    assert [e["outcome"] for e in manifest["inputs"]] == ["complete"]
    assert manifest["counts"]["records_seen"] > 0
    for marker_file in (out / "_done").glob("*.json"):
        assert rundir.is_part_name(json.loads(marker_file.read_text())["part"])


def test_rerun_without_force_redoes_the_shard_of_a_crafted_marker(tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    out = _crafted(tmp_path, victim, other_rules=False)
    summary = run([str(tmp_path / "in")], str(out))
    assert victim.read_text() == "keep me"
    assert summary.resumed == []  # the crafted marker proves nothing
    assert summary.manifest["inputs"][0]["part"] == summary.manifest["inputs"][0]["parts"][0]
    assert rundir.is_part_name(summary.manifest["inputs"][0]["part"])


def test_backfill_refuses_a_manifest_naming_parts_outside(tmp_path):
    victim = tmp_path / "precious.parquet"
    victim.write_text("keep me")
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copy(ARCHIVE, inputs / ARCHIVE.name)
    prior = tmp_path / "prior"
    run([str(inputs)], str(prior))
    manifest = json.loads((prior / "_run.json").read_text())
    manifest["inputs"][0]["parts"] = ["../precious.parquet"]
    manifest["inputs"][0]["part"] = "../precious.parquet"
    (prior / "_run.json").write_text(json.dumps(manifest))
    with pytest.raises(BackfillError, match="not a part file name"):
        backfill(str(prior), "browser-2026.11", str(tmp_path / "new"))
    assert victim.read_text() == "keep me"
