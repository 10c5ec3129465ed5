"""Start-up (issue 27): `redecode --version` and `redecode --help` import no decoder, detector,
pyarrow or duckdb; a run imports a detector only when a record first needs one.

The fast answers must be the click group's own: `--version` is answered before click is imported
(redecode_jobs.console), and the group's help lists its commands from a table (cli.SUMMARIES)
instead of importing every command module.
"""

from __future__ import annotations

import gzip
import importlib
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from redecode_jobs.cli import SUBCOMMANDS, SUMMARIES, LazyGroup, cli

#: What start-up must not load for `--version` and `--help`: the decision and its decoders, the
#: detectors, the archive readers, pyarrow and duckdb.
HEAVY = ("redecode.decode", "redecode.detect", "redecode.sniff", "redecode.validate", "redecode.warc",
         "redecode._core", "pyarrow", "duckdb", "chardetng_py", "cchardet", "charset_normalizer",
         "fastwarc", "warcio", "ftfy")
DETECTORS = ("chardetng_py", "cchardet", "charset_normalizer")
#: The decision and its decoders, which a run imports when it first decides a record: a rule set's
#: digest does not need them (redecode.params, redecode.tld, redecode.procedures).
DECISION = ("redecode.decode", "redecode.equivalence", "redecode.prescan", "redecode.sniff",
            "redecode.stretches", "redecode.validate")


def _modules_after(argv: list[str], tmp_path) -> tuple[str, set[str]]:
    """Run the console script's main() with *argv* in a fresh interpreter: (stdout, the modules
    loaded when it ended)."""
    code = (
        "import atexit, json, sys\n"
        "listing = sys.argv[1]\n"
        "atexit.register(lambda: open(listing, 'w').write(json.dumps(sorted(sys.modules))))\n"
        "sys.argv = ['redecode'] + sys.argv[2:]\n"
        "from redecode_jobs.console import main\n"
        "main()\n"
    )
    listing = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", code, str(listing), *argv], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, set(json.loads(listing.read_text()))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_version_is_clicks_answer_and_imports_nothing_heavy(tmp_path):
    out, modules = _modules_after(["--version"], tmp_path)
    assert out == CliRunner().invoke(cli, ["--version"]).output
    assert _loaded(modules, HEAVY) == []
    assert "click" not in modules  # answered before the command line is parsed


def test_group_help_imports_no_command(tmp_path):
    out, modules = _modules_after(["--help"], tmp_path)
    assert _loaded(modules, HEAVY) == []
    assert not any(m.startswith("redecode_jobs.") and m.endswith("_cmd") for m in modules)
    for name in SUBCOMMANDS:
        assert f"  {name} " in out


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_summary_is_the_commands_first_paragraph(name):
    module, attribute = SUBCOMMANDS[name].split(":")
    command = getattr(importlib.import_module(module), attribute)
    first = command.help.split("\n\n")[0]
    assert " ".join(SUMMARIES[name].split()) == " ".join(first.split())


def test_group_help_is_what_the_commands_give(monkeypatch):
    # the listing from the table is click's listing from the imported commands, at every width
    for width in (40, 80, 120):
        fast = CliRunner().invoke(cli, ["--help"], terminal_width=width).output
        monkeypatch.setattr(LazyGroup, "format_commands", LazyGroup.__mro__[1].format_commands)
        slow = CliRunner().invoke(cli, ["--help"], terminal_width=width).output
        monkeypatch.undo()
        assert fast == slow


def _empty_warc(path) -> None:
    block = b"software: test\r\n"
    record = (b"WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Date: 2024-06-01T00:00:00Z\r\n"
              b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000000>\r\n"
              b"Content-Length: %d\r\n\r\n%s\r\n\r\n" % (len(block), block))
    path.write_bytes(gzip.compress(record))


def test_a_run_without_records_loads_no_detector_and_no_decision(tmp_path):
    warc = tmp_path / "empty.warc.gz"
    _empty_warc(warc)
    _out, modules = _modules_after(["run", str(warc), "--out", str(tmp_path / "out"), "--quiet"], tmp_path)
    assert _loaded(modules, DETECTORS) == []
    assert _loaded(modules, DECISION) == []
    assert "importlib.metadata" not in modules  # versions are read from the installed metadata files
    # the part and the per-input table are written by pyarrow's file writer (redecode.writer):
    # pyarrow.parquet would import pyarrow.fs, every remote file system and ssl
    assert "pyarrow.parquet" not in modules and "pyarrow.fs" not in modules
    assert (tmp_path / "out" / "_run.json").exists()
