"""Nothing an archive holds reaches the terminal raw (issue 25, item 12).

A damaged stretch quoted in a message could set the terminal's title and clear its screen
(``ESC ] 0 ; ... BEL``, ``ESC [ 2 J``): every message that quotes an archive's bytes shows control
characters (C0, C1, DEL) and format characters (bidi overrides) as Python escapes, as ``query``
shows them in its tables. The input is ``tests/data/broken/escape-sequences.warc``
(``tools/make_broken_inputs.py``).
"""

from __future__ import annotations

import json
import os

from click.testing import CliRunner

from redecode_jobs.cli import cli

HERE = os.path.dirname(os.path.abspath(__file__))
ESCAPES = os.path.join(HERE, "data", "broken", "escape-sequences.warc")
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def _clean(text: str) -> bool:
    return all(c.isprintable() or c == "\n" for c in text)


def test_run_messages_quote_damaged_bytes_escaped(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", ESCAPES, "--out", str(out), "--workers", "1"])
    assert result.exit_code == 1, result.output
    assert "damaged" in result.stderr and "\\x1b]0;archive says hello\\x07" in result.stderr
    assert not any(c in result.stderr for c in RAW) and _clean(result.stderr), repr(result.stderr)
    manifest = json.loads((out / "_run.json").read_text())
    (entry,) = manifest["inputs"]
    for text in [entry["error"], *(d["error"] for d in entry["damaged"])]:
        assert _clean(text), repr(text)
    # and as query shows the runs view
    shown = CliRunner().invoke(cli, ["query", str(out), "SELECT error FROM runs"])
    assert shown.exit_code == 0 and _clean(shown.stdout + shown.stderr), repr(shown.stdout)


def test_verbose_log_lines_are_printable(tmp_path):
    result = CliRunner().invoke(cli, ["run", "-vv", ESCAPES, "--out", str(tmp_path / "out"), "--workers", "1"])
    assert result.exit_code == 1
    assert _clean(result.stderr), repr(result.stderr)


def test_printable():
    from redecode.logs import printable

    assert printable("plain text, caf\u00e9, \u65e5\u672c") == "plain text, caf\u00e9, \u65e5\u672c"
    assert printable("\x1b]0;t\x07\x1b[2J") == "\\x1b]0;t\\x07\\x1b[2J"
    assert printable("a\u202eb\x9bc\x7f") == "a\\u202eb\\x9bc\\x7f"
    assert printable("line\nnext", keep="\n") == "line\nnext" and printable("line\nnext") == "line\\nnext"
    assert printable("caf\udce9.warc") == "caf\\xe9.warc"  # a file name's byte that is not UTF-8
