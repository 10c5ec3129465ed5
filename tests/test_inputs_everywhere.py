"""Every command that reads archives expands its inputs one way (``redecode.inputs``): ``diff
--rules`` takes an ``@LIST`` file as ``run`` does (it took only files, directories and globs)."""

from __future__ import annotations

import json
import os

from click.testing import CliRunner

from redecode.diff import diff_rules
from redecode.inputs import expand_inputs, iter_inputs
from redecode_jobs.cli import cli

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "sample_warcs"))


def _listing(tmp_path) -> str:
    listing = tmp_path / "inputs.txt"
    listing.write_text("# the sample crawl\n" + "\n".join(iter_inputs([SAMPLE])) + "\n", encoding="utf-8")
    return "@" + str(listing)


def test_diff_rules_takes_a_list_file(tmp_path):
    listed = _listing(tmp_path)
    assert expand_inputs([listed]) == iter_inputs([SAMPLE])
    by_dir = diff_rules([SAMPLE], "seed-2026.10", "browser-2026.11")
    by_list = diff_rules([listed], "seed-2026.10", "browser-2026.11")
    assert by_list.records == by_dir.records > 0
    assert by_list.to_json() == by_dir.to_json()


def test_diff_cli_takes_a_list_file(tmp_path):
    listed = _listing(tmp_path)
    runner = CliRunner()
    by_list = runner.invoke(cli, ["diff", "--rules", "requests-2.32", "--rules", "browser-2026.11", listed, "--json"])
    by_dir = runner.invoke(cli, ["diff", "--rules", "requests-2.32", "--rules", "browser-2026.11", SAMPLE, "--json"])
    assert by_list.exit_code == by_dir.exit_code == 0, by_list.output
    assert json.loads(by_list.stdout) == json.loads(by_dir.stdout)
