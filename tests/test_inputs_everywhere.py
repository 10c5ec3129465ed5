"""Every command that reads archives expands its inputs one way (``redecode.inputs``): ``diff
--rules`` takes an ``@LIST`` file as ``run`` does (it took only files, directories and globs)."""

from __future__ import annotations

import json
import os

import pytest
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


@pytest.mark.slow
def test_diff_cli_takes_a_list_file(tmp_path):
    listed = _listing(tmp_path)
    runner = CliRunner()
    by_list = runner.invoke(cli, ["diff", "--rules", "requests-2.32", "--rules", "browser-2026.11", listed, "--json"])
    by_dir = runner.invoke(cli, ["diff", "--rules", "requests-2.32", "--rules", "browser-2026.11", SAMPLE, "--json"])
    assert by_list.exit_code == by_dir.exit_code == 0, by_list.output
    assert json.loads(by_list.stdout) == json.loads(by_dir.stdout)


def test_diff_says_which_inputs_gave_no_record(tmp_path, monkeypatch):
    """diff --rules over an @LIST whose relative lines name no file in the list's folder: the
    closing line says, as run's does, that those inputs could not be read and gave no record, apart
    from an input cut short (the records before the cut are compared) and a damaged one (the records
    after the damage too); was "4 input(s) could not be read to the end; the records read before the
    damage are compared" for files never opened."""
    work = tmp_path / "work"
    (work / "crawl").mkdir(parents=True)
    names = [os.path.basename(p) for p in iter_inputs([SAMPLE]) if p.endswith(".warc.gz")][:2]
    for n in names:
        os.symlink(os.path.join(SAMPLE, n), work / "crawl" / n)
    lists = tmp_path / "lists"
    lists.mkdir()
    broken = os.path.join(HERE, "data", "broken")
    os.symlink(os.path.join(broken, "truncated-member.warc.gz"), lists / "cut.warc.gz")
    os.symlink(os.path.join(broken, "damaged-member.warc.gz"), lists / "damaged.warc.gz")
    listing = lists / "inputs.txt"
    listing.write_text("".join(f"crawl/{n}\n" for n in names) + "cut.warc.gz\ndamaged.warc.gz\n", encoding="utf-8")
    monkeypatch.chdir(work)
    result = CliRunner().invoke(cli, ["diff", "--rules", "requests-2.32", "--rules", "author-2026.12",
                                      f"@{listing}", "--workers", "1"])
    assert result.exit_code == 1, result.output
    assert result.stdout.rstrip().splitlines()[-1] == (
        "2 input(s) could not be read (no record came from them); 1 input(s) could not be read to the end "
        "(the records read before the error are compared); 1 input(s) damaged (the stretches that held no "
        "readable record were skipped, the records after them compared)")
    as_json = json.loads(CliRunner().invoke(cli, ["diff", "--rules", "requests-2.32", "--rules", "author-2026.12",
                                                  f"@{listing}", "--workers", "1", "--json"]).stdout)
    outcomes = {os.path.basename(e["path"]): (e["outcome"], e["records"] > 0) for e in as_json["input_errors"]}
    assert outcomes == {**{n: ("error", False) for n in names}, "cut.warc.gz": ("truncated", True),
                        "damaged.warc.gz": ("damaged", True)}


# ---------------------------------------------------------------------------------------------
# @LIST files: gzip lists (Common Crawl's warc.paths.gz) and --prefix before every line


def test_gzip_list_with_prefix(tmp_path):
    """A list in Common Crawl's form: gzip, lines relative to a base that --prefix supplies."""
    import gzip

    names = [os.path.basename(p) for p in iter_inputs([SAMPLE])]
    listing = tmp_path / "warc.paths.gz"  # its name says nothing: the gzip magic does
    listing.write_bytes(gzip.compress("".join(f"{n}\n" for n in names).encode()))
    assert expand_inputs([f"@{listing}"], list_prefix=SAMPLE + "/") == iter_inputs([SAMPLE])
    plain_name = tmp_path / "paths.txt"
    plain_name.write_bytes(listing.read_bytes())
    assert expand_inputs([f"@{plain_name}"], list_prefix=SAMPLE + "/") == iter_inputs([SAMPLE])
    # without the prefix, relative lines are relative to the list's folder
    assert expand_inputs([f"@{listing}"]) == sorted(str(tmp_path / n) for n in names)


def test_prefix_goes_before_every_line_as_written(tmp_path):
    listing = tmp_path / "l.txt"
    listing.write_text("# comment\n\ncrawl-data/a.warc.gz\n/abs/b.warc.gz\n", encoding="utf-8")
    assert expand_inputs([f"@{listing}"], list_prefix="s3://commoncrawl/") == [
        "s3://commoncrawl//abs/b.warc.gz", "s3://commoncrawl/crawl-data/a.warc.gz"]


@pytest.mark.slow
def test_run_and_diff_cli_take_gzip_lists_and_prefix(tmp_path):
    import gzip

    names = [os.path.basename(p) for p in iter_inputs([SAMPLE])]
    listing = tmp_path / "warc.paths.gz"
    listing.write_bytes(gzip.compress("".join(f"{n}\n" for n in names).encode()))
    runner = CliRunner()
    result = runner.invoke(cli, ["run", f"@{listing}", "--prefix", SAMPLE + "/", "--out", str(tmp_path / "o"),
                                 "--json"])
    assert result.exit_code == 0, result.output
    assert [i["path"] for i in json.loads(result.stdout)["inputs"]] == iter_inputs([SAMPLE])
    by_list = runner.invoke(cli, ["diff", "--rules", "requests-2.32", "--rules", "browser-2026.11",
                                  f"@{listing}", "--prefix", SAMPLE + "/", "--json"])
    by_dir = runner.invoke(cli, ["diff", "--rules", "requests-2.32", "--rules", "browser-2026.11", SAMPLE, "--json"])
    assert by_list.exit_code == by_dir.exit_code == 0, by_list.output
    assert json.loads(by_list.stdout) == json.loads(by_dir.stdout)


def test_a_list_that_is_not_text_is_a_usage_error(tmp_path):
    listing = tmp_path / "l.bin"
    listing.write_bytes(b"\x8b\x00\xffnot a list")
    result = CliRunner().invoke(cli, ["run", f"@{listing}", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "not a list of paths" in result.output and "0x8b" in result.output
    assert not (tmp_path / "o").exists()


def test_relative_lines_written_from_the_current_directory(tmp_path, monkeypatch):
    """An @LIST whose lines are relative to where the command runs, not to the list's folder: a
    warning before any input is read says so (with a line and where it was looked for); each
    input's error names the file looked for, resolved (no "lists/../"); the closing line says the
    inputs gave no row, not that rows before an error were kept; --prefix with the current
    directory reads them."""
    work = tmp_path / "work"
    (work / "crawl").mkdir(parents=True)
    names = [os.path.basename(p) for p in iter_inputs([SAMPLE]) if p.endswith(".warc.gz")][:2]
    for n in names:
        os.symlink(os.path.join(SAMPLE, n), work / "crawl" / n)
    (tmp_path / "lists").mkdir()
    os.symlink(os.path.join(SAMPLE, names[0]), tmp_path / "lists" / "here.warc.gz")  # in the list's folder
    listing = tmp_path / "lists" / "inputs.txt"
    listing.write_text("".join(f"crawl/{n}\n" for n in names) + "./here.warc.gz\n", encoding="utf-8")
    monkeypatch.chdir(work)
    out = str(tmp_path / "out")
    result = CliRunner().invoke(cli, ["run", f"@{listing}", "--out", out, "--workers", "1"])
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == (
        f"redecode: warning: @{listing}: 2 of its 3 relative line(s) name no file in the list's folder "
        f"{tmp_path / 'lists'}, but do from the current directory (line 1, crawl/{names[0]}: no "
        f"{tmp_path / 'lists' / 'crawl' / names[0]}); the relative lines of an @LIST are relative to "
        f"its folder: write absolute paths, or add --prefix {work}/")
    missing = {str(tmp_path / "lists" / "crawl" / n) for n in names}
    errors = [line for line in lines if line.startswith("redecode: error: ") and ": at offset 0: " in line]
    assert {e.split(": at offset 0: ")[0].removeprefix("redecode: error: ") for e in errors} >= missing
    assert not any("/../" in line for line in lines)
    assert lines[-1].startswith("redecode: error: 2 input(s) could not be read (no row came from them); ")
    assert "rows read before the error are kept" not in result.stderr
    outcomes = {i["path"]: i["outcome"] for i in json.loads((tmp_path / "out" / "_run.json").read_text())["inputs"]}
    assert outcomes == {**{m: "error" for m in missing}, str(tmp_path / "lists" / "here.warc.gz"): "complete"}
    fixed = CliRunner().invoke(cli, ["run", f"@{listing}", "--prefix", f"{work}/", "--out", str(tmp_path / "o2"),
                                     "--workers", "1", "--json"])
    assert "relative line" not in fixed.stderr
    outcomes = {i["path"]: i["outcome"] for i in json.loads(fixed.stdout)["inputs"]}
    assert [outcomes[f"{work}/crawl/{n}"] for n in names] == ["complete", "complete"]
