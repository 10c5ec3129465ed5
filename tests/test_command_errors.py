"""Every command gives the README's exit codes, one line and no traceback, for the errors a user can
cause or meet (issue 25, items 9 and 10).

- item 9: a prior run with a part cut short, a byte flipped in its footer or in a data page, or a
  column renamed by another tool: ``query``, ``report``, ``diff`` and ``backfill`` exit 1 with one
  line naming the part (on main: DuckDB/OSError/KeyError tracebacks, or silent NULLs for the
  renamed column), and ``backfill`` leaves no output directory (checked before it makes one; a
  damaged page, met while the rows are read: the directory it made is removed); a full disk under ``diff --out``
  and ``report -o`` is exit 4 (on main: 1); SIGTERM while DuckDB works under ``diff --out`` is the
  stop's exit 143 and line (on main: "RuntimeError: Query interrupted", exit 1).
- item 10: ``query`` whose output cannot be written (``> file`` on a full disk) exits 4 and says
  so (on main: 73,728 of 1,486,981 bytes written, exit 0, nothing said); so do ``diff``, ``rules``
  and every ``--json`` when a file under ``> file`` reaches a full disk or ``ulimit -f`` midway.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_warcs"
_CLI = "import sys; from redecode_jobs.cli import main; sys.argv[0] = 'redecode'; main()"


def _redecode(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _CLI, *map(str, args)], capture_output=True, text=True,
                          timeout=600, **kw)


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    out = tmp_path_factory.mktemp("good") / "run"
    result = CliRunner().invoke(cli, ["run", str(SAMPLES), "--out", str(out), "--workers", "1", "-q"])
    assert result.exit_code == 0, result.output
    return out


def _part(run: Path) -> Path:
    """The run's largest part (the sample crawl's file with the most text)."""
    return max(run.glob("*.parquet"), key=lambda p: p.stat().st_size)


def _cut(part: Path) -> None:
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])


def _flip_footer(part: Path) -> None:
    data = bytearray(part.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")  # Parquet: the footer's length, then PAR1
    at = len(data) - 8 - footer  # the start of the FileMetaData (Thrift compact protocol)
    data[at:at + 16] = bytes(b ^ 0xFF for b in data[at:at + 16])
    part.write_bytes(bytes(data))


def _flip_page(part: Path) -> None:
    """Bytes flipped in the middle of the zstd-compressed text column (the footer stays whole)."""
    meta = pq.ParquetFile(part).metadata
    group = meta.row_group(0)
    (chunk,) = [group.column(i) for i in range(group.num_columns) if group.column(i).path_in_schema == "text"]
    assert chunk.compression == "ZSTD"
    data = bytearray(part.read_bytes())
    at = chunk.data_page_offset + chunk.total_compressed_size // 2
    data[at:at + 8] = bytes(b ^ 0x5A for b in data[at:at + 8])
    part.write_bytes(bytes(data))


def _rename_column(part: Path) -> None:
    table = pq.read_table(part)
    metadata = pq.read_schema(part).metadata
    table = table.rename_columns(["encoding_x" if c == "encoding" else c for c in table.column_names])
    pq.write_table(table.replace_schema_metadata(metadata), part)


DAMAGE = {"cut": _cut, "footer": _flip_footer, "page": _flip_page, "renamed": _rename_column}


@pytest.fixture(params=sorted(DAMAGE))
def damaged(request, good, tmp_path):
    run = tmp_path / f"damaged-{request.param}"
    shutil.copytree(good, run)
    part = _part(run)
    DAMAGE[request.param](part)
    return request.param, run, part


def _one_line(result, *needles: str) -> str:
    stderr = result.stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, stderr
    for needle in needles:
        assert needle in lines[0], stderr
    return lines[0]


@pytest.mark.slow
def test_query_report_diff_backfill_on_a_damaged_run(damaged, good, tmp_path):
    kind, run, part = damaged
    # the page flip breaks the text column only: what does not read it still works
    sql = "SELECT count(*), count(encoding), max(length(text)) FROM decodes"
    commands = {
        "query": ["query", run, sql],
        "diff": ["diff", good, run],
        "diff-reversed": ["diff", run, good],
        "backfill": ["backfill", run, "--rules", "browser-2026.11", "--out", tmp_path / "bf", "--workers", "1"],
    }
    if kind != "page":
        commands["report"] = ["report", run, "-o", tmp_path / "report.html"]
    for name, args in commands.items():
        result = _redecode(*args)
        assert result.returncode == 1, (name, result.stderr)
        _one_line(result, "redecode: error:", part.name, "damaged")
        if name == "backfill":
            assert not (tmp_path / "bf").exists(), "backfill left an output directory"
        shutil.rmtree(tmp_path / "bf", ignore_errors=True)
    assert not (tmp_path / "report.html").exists()


def test_a_damaged_part_of_a_bounded_layout_names_its_task_marker(tmp_path):
    """In a bounded layout (parts cut to size, in partition folders) a part's marker is its task's,
    ``_done/<task key>.json``: the message names that one, and doing what it says mends the run."""
    run = tmp_path / "run"
    args = ["run", str(SAMPLES), "--out", str(run), "--workers", "1", "-q", "--max-part-rows", "10",
            "--partition-by", "status"]
    assert CliRunner().invoke(cli, args).exit_code == 0
    part = max(run.glob("status=*/*.parquet"), key=lambda p: p.stat().st_size)
    _cut(part)
    result = _redecode("query", run, "SELECT count(*) FROM decodes")
    assert result.returncode == 1, result.stderr
    line = _one_line(result, "redecode: error:", part.name, "damaged")
    marker = line.split("completion marker (")[1].split(")")[0]
    assert (run / marker).is_file() and marker != f"_done/{part.stem}.json", line
    part.unlink()
    (run / marker).unlink()
    assert CliRunner().invoke(cli, args).exit_code == 0
    assert _redecode("query", run, "SELECT count(*) FROM decodes").returncode == 0


def test_report_of_a_run_whose_text_page_is_damaged_still_works(good, tmp_path):
    """The report reads the provenance columns only: a damaged text page does not concern it."""
    run = tmp_path / "run"
    shutil.copytree(good, run)
    _flip_page(_part(run))
    result = _redecode("report", run, "-o", tmp_path / "r.html")
    assert result.returncode == 0, result.stderr


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))


@pytest.mark.slow
def test_full_disk_under_diff_out_and_report_is_exit_4(good, tmp_path):
    other = tmp_path / "other"
    assert CliRunner().invoke(cli, ["run", str(SAMPLES), "--out", str(other), "--rules", "browser-2026.11",
                                    "--workers", "1", "-q"]).exit_code == 0
    out = tmp_path / "d"
    result = _redecode("diff", good, other, "--out", out, "-q", preexec_fn=_limit_file_size)
    assert result.returncode == 4, result.stderr
    _one_line(result, str(out), f"errno {errno.EFBIG}, EFBIG", "run the same command again")
    assert not [n for n in os.listdir(out) if n.startswith(".tmp-")]
    page = tmp_path / "report.html"
    result = _redecode("report", good, "-o", page, preexec_fn=_limit_file_size)
    assert result.returncode == 4, result.stderr
    _one_line(result, str(page), f"errno {errno.EFBIG}, EFBIG")
    assert not page.exists() and not list(tmp_path.glob(".tmp-*"))


def test_sigterm_while_duckdb_works_under_diff_out(good, tmp_path, monkeypatch):
    """DuckDB turns the exception a signal handler raises into its own "Query interrupted": the
    command still stops as a SIGTERM does (exit 143, one line), not with that error."""
    import duckdb

    from redecode import diff

    real = diff._write

    def interrupted(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGTERM)  # the handler raises inside "DuckDB"
            raise AssertionError("the signal handler did not run")
        except KeyboardInterrupt:
            raise duckdb.InterruptException("INTERRUPT Error: Interrupted!") from None

    monkeypatch.setattr(diff, "_write", interrupted)
    result = CliRunner().invoke(cli, ["diff", str(good), str(good), "--out", str(tmp_path / "d")])
    assert result.exit_code == 143, (result.output, result.exception)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("redecode: stopped by SIGTERM"), result.stderr
    monkeypatch.setattr(diff, "_write", real)

    def query_interrupted(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            raise AssertionError("the signal handler did not run")
        except KeyboardInterrupt:
            raise RuntimeError("Query interrupted") from None

    monkeypatch.setattr(diff, "_write", query_interrupted)
    result = CliRunner().invoke(cli, ["diff", str(good), str(good), "--out", str(tmp_path / "d2")])
    assert result.exit_code == 143, (result.output, result.exception)


@pytest.mark.slow
def test_query_output_that_cannot_be_written(good):
    """stdout on a full disk (/dev/full: every write fails with ENOSPC): exit 4 and one line."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    for fmt in ("table", "csv", "json"):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([sys.executable, "-c", _CLI, "query", str(good), "SELECT * FROM decodes",
                                   "--format", fmt], stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
        assert proc.returncode == 4, (fmt, proc.stderr)
        _one_line(proc, "cannot write <stdout>", f"errno {errno.ENOSPC}, ENOSPC")
    with open("/dev/full", "w") as full:  # the standard report, too
        proc = subprocess.run([sys.executable, "-c", _CLI, "query", str(good)], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    assert proc.returncode == 4, proc.stderr


def _limit_file_size_to(limit: int):
    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))  # (Python ignores SIGXFSZ)
    return preexec


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ("query", "{good}", "SELECT * FROM decodes"),
    ("query", "{good}", "SELECT * FROM decodes", "--format", "csv"),
    ("query", "{good}", "SELECT * FROM decodes", "--format", "json"),
    ("query", "{good}"),  # the standard report
    ("diff", "{good}", "{good}"),
    ("diff", "{good}", "{good}", "--json"),
    ("rules",),
    ("rules", "--json"),
], ids=lambda a: " ".join(a).replace("{good}", "DIR"))
def test_stdout_to_a_file_that_reaches_the_size_limit(good, tmp_path, args):
    """Item 10 as a user met it: ``redecode query out "select * from decodes" > q.txt`` on a full
    tmpfs, or under ``ulimit -f``, where the operating system takes the first part of a large write
    and refuses the rest (ENOSPC, EFBIG; not /dev/full, which takes nothing): exit 4 and one line,
    for every command that prints data (on main: exit 0, the bytes that fit, nothing said; Python's
    buffered stdout returned the short count and dropped the rest)."""
    args = [a.replace("{good}", str(good)) for a in args]
    whole = _redecode(*args)
    assert whole.returncode == 0, whole.stderr
    size = len(whole.stdout.encode("utf-8"))
    limit = min(1024, size // 2)  # the output does not fit, and the first write is taken in part
    target = tmp_path / "out.txt"
    with open(target, "wb") as f:
        proc = subprocess.run([sys.executable, "-c", _CLI, *args], stdout=f, stderr=subprocess.PIPE, text=True,
                              timeout=600, preexec_fn=_limit_file_size_to(limit))
    assert target.stat().st_size == limit  # (what the limit let through)
    assert proc.returncode == 4, proc.stderr
    _one_line(proc, "cannot write <stdout>", f"errno {errno.EFBIG}, EFBIG")


def test_locked_output_is_one_line_and_exit_2(good, tmp_path):
    """An output directory another command is writing (its lock held): ``run`` and ``backfill``
    refuse with one line and exit 2, not click's ``Usage:``/``Try --help`` form (the command line
    was right)."""
    from redecode.rundir import lock_directory

    out = tmp_path / "busy"
    out.mkdir()
    with lock_directory(str(out)):  # another command holds it
        for args in (["run", str(SAMPLES), "--out", str(out), "--workers", "1", "-q"],
                     ["backfill", str(good), "--rules", "browser-2026.11", "--out", str(out), "-q"]):
            result = CliRunner().invoke(cli, args)
            assert result.exit_code == 2, (args, result.output, result.exception)
            line = _one_line(result, "redecode: error: ")
            assert "Usage:" not in result.stderr and "--help" not in result.stderr, result.stderr
            assert "locked" in line or "being written" in line or "another" in line, line


def test_not_an_output_of_redecode_run_is_one_line_and_exit_2(good, tmp_path):
    """A directory of Parquet another tool wrote: ``query``, ``report`` and ``diff`` say it is not
    an output of ``redecode run`` in one line, exit 2, without click's ``Usage:`` lines."""
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    pq.write_table(pa.table({"a": [1]}), foreign / "x.parquet")
    for args in (["query", foreign, "SELECT count(*) FROM decodes"], ["query", foreign],
                 ["report", foreign, "-o", tmp_path / "r.html"], ["diff", foreign, good]):
        result = CliRunner().invoke(cli, [str(a) for a in args])
        assert result.exit_code == 2, (args, result.output, result.exception)
        assert "Usage:" not in result.stderr and "Try " not in result.stderr, result.stderr
        errors = [line for line in result.stderr.splitlines() if line.startswith("redecode: error: ")]
        assert len(errors) == 1 and "not an output of `redecode run`" in errors[0], result.stderr


def test_no_traceback_without_vv_but_with_it(good, tmp_path, monkeypatch):
    """An error no command expects (a bug) is one line and exit 1; -vv adds the traceback."""
    from redecode import query

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(query, "format_result", broken)
    monkeypatch.setattr("redecode_jobs.query_cmd.format_result", broken)
    result = CliRunner().invoke(cli, ["query", str(good), "SELECT 1"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "unexpected error (KeyError: 'a bug'); please report it" in result.stderr
    verbose = CliRunner().invoke(cli, ["query", "-vv", str(good), "SELECT 1"])
    assert verbose.exit_code == 1 and "Traceback" in verbose.stderr


def _run_again_mends(run: Path) -> None:
    """The same ``redecode run`` again says it read the input whose part was not as written, and
    the run directory then holds every row of the sample crawl (44)."""
    again = CliRunner().invoke(cli, ["run", str(SAMPLES), "--out", str(run), "--workers", "1"])
    assert again.exit_code == 0, again.output
    assert "1 with a part missing or damaged in --out, read again" in again.output
    counted = _redecode("query", run, "SELECT count(*) AS n FROM decodes", "--format", "csv")
    assert counted.returncode == 0 and counted.stdout.split() == ["n", "44"], counted


def test_a_run_missing_a_part_is_damaged_not_short(good, tmp_path):
    """A part removed by hand (its marker and _run.json still name it): ``query``, ``report`` and
    ``diff`` exit 1 with one line naming it, instead of answering without its rows (on main:
    ``count(*)`` 39 of 44, exit 0); ``backfill`` refuses it; running the same ``redecode run``
    again makes the part again, as the line says."""
    run = tmp_path / "run"
    shutil.copytree(good, run)
    part = _part(run)
    part.unlink()
    commands = {
        "query": ["query", run, "SELECT count(*) FROM decodes"],
        "report": ["report", run, "-o", tmp_path / "report.html"],
        "diff": ["diff", good, run],
        "diff-reversed": ["diff", run, good],
    }
    for name, args in commands.items():
        result = _redecode(*args)
        assert result.returncode == 1, (name, result.stderr)
        line = _one_line(result, "redecode: error:", part.name, "not there", "damaged")
        assert "run the same `redecode run` again" in line and "remove the part" not in line, line
    backfill = _redecode("backfill", run, "--rules", "browser-2026.11", "--out", tmp_path / "bf", "--workers", "1")
    assert backfill.returncode != 0 and part.name in backfill.stderr
    assert not (tmp_path / "bf").exists()
    _run_again_mends(run)


def test_a_cut_part_is_mended_by_running_again(good, tmp_path):
    """The completion marker records its part's size: the same ``redecode run`` again finds the
    part cut short and makes it again (no marker to remove by hand), and the rows are whole."""
    run = tmp_path / "run"
    shutil.copytree(good, run)
    _cut(_part(run))
    assert _redecode("query", run, "SELECT count(*) FROM decodes").returncode == 1
    _run_again_mends(run)


def test_an_unfinished_run_missing_a_part_is_read_as_it_is(good, tmp_path):
    """A run under way (or stopped: _running.json) may have removed a part it is making again:
    a query says the run is unfinished and reads what is there."""
    run = tmp_path / "run"
    shutil.copytree(good, run)
    _part(run).unlink()
    (run / "_running.json").write_text('{"started": "2026-12-06T00:00:00Z", "tasks": {}}')
    result = _redecode("query", run, "SELECT count(*) AS n FROM decodes", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert "unfinished run" in result.stderr and int(result.stdout.split()[1]) < 44


def test_a_part_copied_over_another_is_damaged_not_counted_twice(good, tmp_path):
    """Another part copied over one (its rows counted twice, the part's own missing: on main
    ``count(*)`` 43 of 44, exit 0): ``query``, ``report`` and ``diff`` exit 1 naming it and the
    part whose rows it holds; the same ``redecode run`` again makes it again (its size is not the
    one its marker recorded)."""
    run = tmp_path / "run"
    shutil.copytree(good, run)
    victim = _part(run)
    other = min(run.glob("*.parquet"), key=lambda p: p.stat().st_size)
    shutil.copyfile(other, victim)
    for args in (["query", run, "SELECT count(*) FROM decodes"], ["report", run, "-o", tmp_path / "r.html"],
                 ["diff", good, run]):
        result = _redecode(*args)
        assert result.returncode == 1, (args, result.stderr)
        _one_line(result, "redecode: error:", victim.name, f"written as '{other.name}'", "damaged")
    _run_again_mends(run)


def test_a_renamed_part_outside_a_run_directory_is_read(good, tmp_path):
    """A part copied out of its run directory under another name is a Parquet file like any other:
    ``query`` reads it (the name check is for run directories, whose markers name their parts)."""
    copy = tmp_path / "renamed.parquet"
    shutil.copyfile(_part(good), copy)
    result = _redecode("query", copy, "SELECT count(*) AS n FROM decodes", "--format", "csv")
    assert result.returncode == 0 and int(result.stdout.split()[1]) > 0, result.stderr
