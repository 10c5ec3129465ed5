"""The commands agree with each other (issue 18 item 7): -q/-v/--log-file on every command, one
--workers default, tables that fit the terminal, and --fail-on-failed's exit code.

The width checks run the real command in a pseudo-terminal (stdout is a terminal there, as for a
user), with ``COLUMNS`` set as a terminal sets it; piped output is never cut to a width.
"""

from __future__ import annotations

import json
import os
import pty
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from wcwidth import wcswidth

from redecode.query import MIN_COLUMN_WIDTH, MIN_CUT_WIDTH, render_table
from redecode.report import RUN_SECTIONS, query_line
from redecode_jobs.cli import SUBCOMMANDS, cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_warcs"
COMMANDS = sorted(SUBCOMMANDS)


def _params(command: str) -> dict:
    return {p.name: p for p in cli.get_command(None, command).params}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_quiet_verbose_and_log_file(command):
    params = _params(command)
    assert {"quiet", "verbose", "log_file"} <= set(params), sorted(params)
    assert params["quiet"].opts == ["-q", "--quiet"] and params["quiet"].is_flag
    assert params["verbose"].opts == ["-v", "--verbose"] and params["verbose"].count
    assert params["quiet"].help, f"{command} -q says nothing about what it leaves out"


def test_one_workers_default():
    """Every command that reads archives in parallel uses all cores unless told otherwise."""
    with_workers = [c for c in COMMANDS if "workers" in _params(c)]
    assert set(with_workers) == {"run", "diff", "backfill", "repair"}
    for command in with_workers:
        p = _params(command)["workers"]
        assert p.default is None, (command, p.default)
        assert "[default: all cores]" in p.help, (command, p.help)


@pytest.mark.parametrize("command", ["run", "backfill"])
def test_fail_on_failed_is_documented(command):
    params = _params(command)
    assert "fail_on_failed" in params
    result = CliRunner().invoke(cli, [command, "--help"], terminal_width=200)
    assert "5 with --fail-on-failed" in " ".join(result.output.split())


# ------------------------------------------------------------------ tables fit a width


def _wide_rows():
    long_uri = "https://www.example.co.jp/" + "very/long/path/" * 8 + "index.html?query=" + "x" * 40
    return [("encoding-changed", long_uri, "windows-1252", "Shift_JIS", True, "\u00e3\u0081\u0093" * 30,
             "\u3053\u3093\u306b\u3061\u306f" * 12),
            ("text-changed", "http://a.ru/", "windows-1251", "KOI8-R", None, "old\ntext", "new text"),
            ("only-new", None, None, "UTF-8", False, None, "x")]


COLUMNS7 = ("category", "target_uri", "old_encoding", "new_encoding", "mojibake_fixed", "old_excerpt",
            "new_excerpt")


@pytest.mark.parametrize("width", range(12, 241, 3))
def test_no_table_line_wider_than_the_width(width):
    text = render_table(COLUMNS7, _wide_rows(), width=width, cut_at_end=("old_excerpt",))
    assert max(wcswidth(line) for line in text.splitlines()) <= width, text


def test_table_form_when_it_fits_expanded_below():
    """Scanning widths: expanded below one width, a table from there on, with its headers whole,
    every row on one line, and no cut cell under MIN_CUT_WIDTH columns."""
    forms = []
    for width in range(40, 400):
        text = render_table(COLUMNS7, _wide_rows(), width=width)
        lines = text.splitlines()
        assert max(map(wcswidth, lines)) <= width
        expanded = lines[0].startswith("-[ row 1 ]")
        forms.append(expanded)
        if not expanded:
            assert lines[0].split() == list(COLUMNS7)  # headers are never cut
            assert len(lines) == 2 + len(_wide_rows())
            for cell in lines[2].split("  "):
                if "…" in cell:
                    # (a two-column character that would end past the limit leaves one column out)
                    assert wcswidth(cell.strip()) >= MIN_CUT_WIDTH - 1, cell
    switch = forms.index(False)
    assert switch > 0 and not any(forms[switch:]), "expanded below one width, a table above it"


def test_floors_fit_but_cells_too_narrow_show_expanded():
    width = sum(max(len(c), MIN_COLUMN_WIDTH) for c in COLUMNS7) + 2 * (len(COLUMNS7) - 1)
    assert render_table(COLUMNS7, _wide_rows(), width=width).startswith("-[ row 1 ]")


def test_narrower_than_the_headers_shows_rows_expanded():
    text = render_table(COLUMNS7, _wide_rows(), width=40)
    lines = text.splitlines()
    assert lines[0].startswith("-[ row 1 ]") and sum(line.startswith("-[ row ") for line in lines) == 3
    assert lines[1].split()[0] == "category" and lines[1].split()[1] == "encoding-changed"
    assert max(map(wcswidth, lines)) <= 40


def test_without_a_width_nothing_changes():
    rows = [("a", "b" * 50), ("c", None)]
    assert render_table(("x", "y"), rows) == render_table(("x", "y"), rows, width=None)
    assert render_table(("x", "y"), rows, width=1000) == render_table(("x", "y"), rows)
    assert render_table(("x", "y"), rows).splitlines()[2] == "a  " + "b" * 50


def test_wide_characters_take_two_columns():
    rows = [("日本語エンコードテスト" * 3, "ok")]
    text = render_table(("title", "n"), rows, width=30)
    assert max(map(wcswidth, text.splitlines())) <= 30
    assert "日本語" in text and text.splitlines()[2].endswith("ok")


def test_space_separators_are_shown_as_they_are():
    """U+3000 (ideographic space), U+00A0 and the other space separators are printable text: shown
    as they are in a table, not as \\u3000; controls and line separators stay escaped."""
    text = render_table(("excerpt",), [("\u6771\u4eac\u3000\u5927\u962a\u00a0x",), ("a\nb\u2028c\x00",)])
    assert text.splitlines()[2:] == ["\u6771\u4eac\u3000\u5927\u962a\u00a0x", "a\\nb\\u2028c\\x00"]


def test_cut_at_end_keeps_the_start():
    text = render_table(("excerpt",), [("abcdefghij" * 10,)], max_width=20, cut_at_end=("excerpt",))
    assert text.splitlines()[2] == "abcdefghijabcdefghi…"
    text = render_table(("excerpt",), [("abcdefghij" * 10,)], max_width=20)
    assert text.splitlines()[2] == "abcdefg…ijabcdefghij"  # in the middle: start and end kept


def _in_terminal(args: list[str], columns: int, cwd: Path, stderr: list | None = None) -> tuple[int, str]:
    """Run ``redecode ARGS`` with stdout on a pseudo-terminal of *columns* columns; returns the
    exit code and what the terminal showed (``\\r\\n`` as ``\\n``); *stderr* gets what went there."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "50"}
    proc = subprocess.Popen([str(Path(sys.executable).with_name("redecode")), *args],
                            stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
    os.close(slave)
    chunks: list[bytes] = []

    def drain():
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the other side closed
                break
            if not data:
                break
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    _, err = proc.communicate(timeout=600)
    reader.join(timeout=60)
    os.close(master)
    assert not err.strip() or proc.returncode != 0 or b"Traceback" not in err, err.decode()
    if stderr is not None:
        stderr.append(err.decode())
    return proc.returncode, b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("consistency") / "run"
    result = CliRunner().invoke(cli, ["run", str(SAMPLE), "--out", str(out), "-q", "--workers", "1"])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("columns", [60, 100])
@pytest.mark.parametrize("which", ["diff", "query-report", "query-sql", "rules"])
def test_terminal_output_fits_the_terminal(which, columns, sample_run, tmp_path):
    args = {
        "diff": ["diff", "--rules", "requests-2.32", "--rules", "author-2026.12", str(SAMPLE), "--workers", "1"],
        "query-report": ["query", str(sample_run)],
        "query-sql": ["query", str(sample_run), "SELECT warc_path, target_uri, encoding, source, confidence, "
                      "validation FROM decodes"],
        "rules": ["rules"],
    }[which]
    code, shown = _in_terminal(args, columns, tmp_path)
    assert code == 0, shown
    lines = shown.splitlines()
    assert len(lines) > 5
    too_wide = [line for line in lines if wcswidth(line) > columns]  # terminal columns: CJK take two
    assert not too_wide, too_wide[:3]


def test_piped_output_is_not_cut(sample_run):
    """Without a terminal (a pipe, a file) no width applies: a script gets the whole table."""
    result = CliRunner().invoke(cli, ["query", str(sample_run), "SELECT repeat('x', 50) AS wide, 1 AS n"],
                                env={"COLUMNS": "20"})
    assert result.exit_code == 0
    assert "x" * 50 in result.output


BROKEN = ROOT / "tests" / "data" / "broken"


@pytest.fixture(scope="module")
def broken_run(tmp_path_factory):
    """The committed broken inputs under the browser rules: records failed with errors of up to
    about 110 characters (record blocks over the cap, Content-Lengths that swallow a record).
    The inputs are read from a copy in a short folder of their own: the tables below show each
    record's path, so their width must not depend on where the checkout is (a checkout 5
    characters deeper made the widest row 251 columns)."""
    short = Path(tempfile.mkdtemp(prefix="rd-"))
    try:
        shutil.copytree(BROKEN, short / "broken")
        out = tmp_path_factory.mktemp("broken") / "run"
        result = CliRunner().invoke(cli, ["run", str(short / "broken"), "--out", str(out), "-q", "--workers", "1",
                                          "--rules", "browser-2026.11"])
        assert result.exit_code == 1, result.output
        yield out
    finally:
        shutil.rmtree(short, ignore_errors=True)


def _failed(run) -> list[dict]:
    import pyarrow.parquet as pq

    section = next(s for s in RUN_SECTIONS if s.key == "failed")
    rows = [r for part in sorted(Path(run).glob("*.parquet")) for r in pq.read_table(part).to_pylist()
            if r["status"] == "failed" or r["error_kind"] is not None]
    assert len(rows) > 10 and max(len(r["error"]) for r in rows) > 100, "the fixture has long errors"
    return section, rows


def _squeezed(text: str) -> str:
    return "".join(text.split())


def test_a_wide_terminal_shows_what_fits_whole(broken_run, tmp_path):
    """In a terminal 250 columns wide the failed records' table fits without a cut: every error is
    whole (each cell was cut to 60 characters: "record block of 1000000…es is over the cap")."""
    section, rows = _failed(broken_run)
    err: list[str] = []
    code, shown = _in_terminal(["query", str(broken_run), section.query], 250, tmp_path, err)
    assert code == 0, shown
    assert max(map(wcswidth, shown.splitlines())) <= 250
    assert "…" not in shown and err == [""]
    for r in rows:
        assert r["error"] in shown
    # narrower, cells are cut: stderr says so, and how to see them whole
    code, shown = _in_terminal(["query", str(broken_run), section.query], 120, tmp_path, err)
    assert "…" in shown and err[1] == ("redecode: cells were cut to fit the terminal (marked …): -x shows every "
                                       "value whole, and piped output is never cut\n")
    code, shown = _in_terminal(["query", str(broken_run), section.query, "-q"], 120, tmp_path, err)
    assert err[2] == ""


@pytest.mark.parametrize("columns", [60, 100, 250])
def test_the_report_s_query_line_shows_every_error_whole(broken_run, columns, tmp_path):
    """The report's failed-records section gives a `redecode query` line that shows "every one of
    them, with the whole error, in a terminal": run as written, in terminals of several widths, it
    fits the terminal and shows every error whole (wrapped, never cut)."""
    section, rows = _failed(broken_run)
    line = query_line(section.query, [str(broken_run)])
    args = shlex.split(line)
    assert args[:2] == ["redecode", "query"]
    code, shown = _in_terminal(args[1:], columns, tmp_path)
    assert code == 0, shown
    assert max(map(wcswidth, shown.splitlines())) <= columns
    assert "…" not in shown
    for r in rows:
        assert _squeezed(r["error"]) in _squeezed(shown), r["error"]
        assert _squeezed(r["target_uri"]) in _squeezed(shown)


def test_piped_cells_are_whole(broken_run):
    """Piped, no cell is cut, however long: a query's cells (each was cut to 60 characters, piped or
    not), the list elements in them, and the URLs of diff's Examples table."""
    section, rows = _failed(broken_run)
    result = CliRunner().invoke(cli, ["query", str(broken_run), section.query], env={"COLUMNS": "40"})
    assert result.exit_code == 0
    assert "…" not in result.output
    for r in rows:
        assert r["error"] in result.output
    result = CliRunner().invoke(cli, ["query", str(broken_run), "SELECT [repeat('y', 90)] AS l, repeat('x', 300) AS x"])
    assert "y" * 90 in result.output and "x" * 300 in result.output


def test_diff_examples_piped_keep_whole_urls(tmp_path):
    from redecode.diff import CATEGORIES, DiffSummary, format_summary

    url = "https://www.example.co.jp/" + "very/long/path/" * 8 + "index.html"
    example = {"category": "encoding-changed", "target_uri": url, "old_encoding": "windows-1252",
               "new_encoding": "Shift_JIS", "mojibake_fixed": True, "old_excerpt": "a" * 60, "new_excerpt": "b" * 60}
    summary = DiffSummary(old="a", new="b", records=1, categories={c: 0 for c in CATEGORIES} | {"encoding-changed": 1}, mojibake_fixed=1,
                          encoding_transitions=[], by_source=[], by_tld=[], examples=[example])
    assert url in format_summary(summary)
    assert "a" * 60 in format_summary(summary)
    fitted = format_summary(summary, width=100)
    assert max(map(wcswidth, fitted.splitlines())) <= 100 and url not in fitted
    expanded = format_summary(summary, width=100, expanded=True)
    assert max(map(wcswidth, expanded.splitlines())) <= 100
    assert _squeezed(url) in _squeezed(expanded)


def test_expanded_values_wrap_and_are_never_cut():
    rows = _wide_rows()
    for width in range(30, 200, 7):
        text = render_table(COLUMNS7, rows, width=width, expanded=True)
        lines = text.splitlines()
        assert max(map(wcswidth, lines)) <= width, width
        assert "…" not in text
        assert sum(line.startswith("-[ row ") for line in lines) == len(rows)
        for row in rows:
            for value in row:
                if isinstance(value, str):  # (controls shown escaped: \n, \x81)
                    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in value)
                    assert _squeezed(shown) in _squeezed(text), (width, value)
    # without a width (piped): one line per value
    text = render_table(COLUMNS7, rows, expanded=True)
    assert text.splitlines()[1:6] == [f"{c:<14}  {v}" for c, v in zip(COLUMNS7, [*rows[0][:4], "True"])]


# ------------------------------------------------------------------ -q and --fail-on-failed


@pytest.mark.slow
def test_diff_quiet_prints_nothing_but_keeps_the_exit_code(sample_run, tmp_path):
    runner = CliRunner()
    args = ["diff", "--rules", "requests-2.32", "--rules", "author-2026.12", str(SAMPLE), "--workers", "1"]
    loud = runner.invoke(cli, [*args, "--check"])
    quiet = runner.invoke(cli, [*args, "--check", "-q", "--out", str(tmp_path / "d")])
    assert loud.exit_code == quiet.exit_code == 3  # the two rule sets disagree on the sample
    assert loud.stdout.strip() and quiet.stdout == ""
    assert (tmp_path / "d" / "diff.parquet").exists()
    as_json = runner.invoke(cli, [*args, "-q", "--json"])
    assert json.loads(as_json.stdout)["records"] > 0  # --json is asked for: it prints


@pytest.mark.parametrize("command", ["query", "rules", "report"])
def test_quiet_commands_write_nothing_on_stderr(command, sample_run, tmp_path):
    args = {"query": ["query", str(sample_run)], "rules": ["rules"],
            "report": ["report", str(sample_run), "-o", str(tmp_path / "r.html")]}[command]
    result = CliRunner().invoke(cli, [*args, "-q"])
    if command == "report" and result.exit_code == 2 and "[report]" in result.output:
        pytest.skip("the [report] extra is not installed")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_fail_on_failed(tmp_path):
    """Every record too large for --max-record-bytes fails: exit 5 with the flag (4 is an output
    the operating system refused to write), 0 without; a run that decoded records exits 0 with the
    flag."""
    warc = str(SAMPLE / "sample-crawl-00000.warc.gz")
    runner = CliRunner()
    failing = ["run", warc, "--max-record-bytes", "10", "--workers", "1"]
    without = runner.invoke(cli, [*failing, "--out", str(tmp_path / "a")])
    assert without.exit_code == 0, without.output
    manifest = json.loads((tmp_path / "a" / "_run.json").read_text())
    assert manifest["counts"]["decoded"] == 0 and manifest["counts"]["failed"] > 0
    flagged = runner.invoke(cli, [*failing, "--out", str(tmp_path / "b"), "--fail-on-failed", "-q"])
    assert flagged.exit_code == 5
    assert ("redecode: error: every record that was not skipped failed "
            f"({manifest['counts']['failed']} failed, none decoded)") in flagged.stderr
    fine = runner.invoke(cli, ["run", warc, "--out", str(tmp_path / "c"), "--fail-on-failed", "-q", "--workers", "1"])
    assert fine.exit_code == 0, fine.output
    back = runner.invoke(cli, ["backfill", str(tmp_path / "a"), "--rules", "browser-2026.11", "--out",
                               str(tmp_path / "d"), "--fail-on-failed", "-q", "--workers", "1"])
    assert back.exit_code == 5, back.output
