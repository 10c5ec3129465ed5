"""Odd file systems and odd names (issue 17, cases 3 and 6): unreadable directories and files are
reported in ``files_not_read`` (exit 1); symlinks are followed once, with loop detection; any byte
file name is accepted and recorded losslessly; a raw-response Parquet with a column of the wrong
type is that input's error, not a traceback.

Permission cases run the command in a user namespace of its own (``unshare -U``), where root
meets file permissions as their owner does (skipped where unshare is not allowed)."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode import inputs as expansion
from redecode.job import run
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
ARCHIVES = sorted((ROOT / "sample_warcs").glob("*.warc.gz"))
_CLI = "import sys; from redecode_jobs.cli import main; sys.argv[0] = 'redecode'; main()"


def _rows_per_path(out: Path) -> dict[str, int]:
    with duckdb.connect() as con:
        return dict(con.execute(f"SELECT warc_path, count(*) FROM '{out}/*.parquet' GROUP BY ALL").fetchall())


_COUNTS: dict[Path, int] = {}


def _records(archive: Path) -> int:
    """Rows of an archive by itself (a run into a directory of its own)."""
    if archive not in _COUNTS:
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            _COUNTS[archive] = run([str(archive)], d + "/out").manifest["counts"]["records_seen"]
    return _COUNTS[archive]


@pytest.fixture
def tree(tmp_path) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    shutil.copy(ARCHIVES[0], d / "a.warc.gz")
    return d


# ------------------------------------------------------------------------------------------------
# unreadable directories and files (case 3)


def _unprivileged(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    """Run the CLI where file permissions apply to this user (root: in a new user namespace)."""
    cmd = [sys.executable, "-c", _CLI, *args]
    if os.geteuid() == 0:
        if shutil.which("unshare") is None:
            pytest.skip("root needs unshare(1) to meet file permissions")
        probe = subprocess.run(["unshare", "-U", "true"], capture_output=True, text=True)
        if probe.returncode != 0:
            pytest.skip(f"unshare -U is not allowed here: {probe.stderr.strip()}")
        cmd = ["unshare", "-U", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_unreadable_directory_is_reported_and_exits_1(tree, tmp_path):
    locked = tree / "locked"
    locked.mkdir()
    shutil.copy(ARCHIVES[1], locked / "b.warc.gz")
    locked.chmod(0)
    out = tmp_path / "out"
    try:
        proc = _unprivileged(["run", str(tree), "--out", str(out), "-q"], tmp_path)
    finally:
        locked.chmod(0o755)
    assert proc.returncode == 1, proc.stderr
    manifest = json.loads((out / "_run.json").read_text())
    listed = manifest["files_not_read"]
    assert str(locked) in listed["names"]
    assert listed["unreadable"] == [{"path": str(locked),
                                     "error": "cannot read directory: Permission denied (errno 13, EACCES)"}]
    assert f"{locked}: cannot read directory: Permission denied (errno 13, EACCES)" in proc.stderr
    assert [e["path"] for e in manifest["inputs"]] == [str(tree / "a.warc.gz")]


def test_unreadable_file_in_a_directory_is_reported(tree, tmp_path):
    secret = tree / "secret.warc.gz"
    shutil.copy(ARCHIVES[1], secret)
    secret.chmod(0)
    out = tmp_path / "out"
    proc = _unprivileged(["run", str(tree), "--out", str(out), "-q"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    listed = json.loads((out / "_run.json").read_text())["files_not_read"]
    assert listed["unreadable"] == [{"path": str(secret),
                                     "error": "cannot read file: Permission denied (errno 13, EACCES)"}]


def test_unreadable_directory_in_process(tree, monkeypatch):
    """The same without permissions: the listing of one directory fails."""
    locked = tree / "locked"
    locked.mkdir()
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(locked))
        return real(path)

    monkeypatch.setattr(expansion.os, "scandir", scandir)
    unreadable: dict[str, str] = {}
    not_read: list[str] = []
    assert expansion.expand_inputs([str(tree)], not_read, unreadable) == [str(tree / "a.warc.gz")]
    assert unreadable == {str(locked): "cannot read directory: Permission denied (errno 13, EACCES)"}
    assert not_read == [str(locked)]


@pytest.mark.parametrize("pattern", ["{d}/**/*.warc.gz", "{d}/*/**/*.warc.gz"])
def test_unreadable_directory_under_a_recursive_glob(tree, monkeypatch, pattern):
    """A directory a ``**`` glob would look into is reported; a hidden one it passes over is not
    (a glob that matches a directory, such as ``DIR/**`` matching ``DIR/``, walks it whole, as a
    directory argument is walked)."""
    locked, hidden = tree / "locked", tree / ".hidden"
    locked.mkdir()
    hidden.mkdir()
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) in (str(locked), str(hidden)):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    (tree / "sub").mkdir()
    shutil.copy(ARCHIVES[1], tree / "sub" / "b.warc.gz")
    wanted = sorted(glob.glob(pattern.format(d=tree), recursive=True))  # the locked one is empty
    monkeypatch.setattr(expansion.os, "scandir", scandir)
    unreadable: dict[str, str] = {}
    not_read: list[str] = []
    assert expansion.expand_inputs([pattern.format(d=tree)], not_read, unreadable) == wanted
    assert unreadable == {str(locked): "cannot read directory: Permission denied (errno 13, EACCES)"}
    assert not_read == [str(locked)]


# ------------------------------------------------------------------------------------------------
# symlinks (case 3)


def test_symlinked_subdirectory_is_followed(tree, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(ARCHIVES[1], elsewhere / "b.warc.gz")
    (tree / "linked").symlink_to(elsewhere, target_is_directory=True)
    out = tmp_path / "out"
    summary = run([str(tree)], str(out))
    assert summary.exit_code == 0
    assert [e["path"] for e in summary.manifest["inputs"]] == [str(tree / "a.warc.gz"),
                                                             str(tree / "linked" / "b.warc.gz")]


@pytest.mark.parametrize("pattern", ["{d}/**/*.warc.gz", "{d}/**", "{d}"])
def test_symlink_loops_are_walked_once(tree, tmp_path, pattern):
    sub = tree / "sub"
    sub.mkdir()
    shutil.copy(ARCHIVES[1], sub / "b.warc.gz")
    (sub / "up").symlink_to(tree, target_is_directory=True)  # a loop
    (tree / "again").symlink_to(sub, target_is_directory=True)  # and a second way into sub
    (sub / "self").symlink_to(sub, target_is_directory=True)  # and another loop
    (tree / "same.warc.gz").symlink_to(tree / "a.warc.gz")  # one file, two names
    arg = pattern.format(d=tree)
    # in a subprocess: with two loops, a glob that follows them does not end
    proc = subprocess.run([sys.executable, "-c", "import sys, json; from redecode.inputs import expand_inputs; "
                           "print(json.dumps(expand_inputs(sys.argv[1:])))", arg],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    assert sorted(os.path.realpath(p) for p in found) == [str(tree / "a.warc.gz"), str(sub / "b.warc.gz")]
    assert len(found) == 2


def test_a_loop_in_a_run_reads_each_record_once(tree, tmp_path):
    (tree / "loop").symlink_to(tree, target_is_directory=True)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", f"{tree}/**/*.warc.gz", "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert sum(_rows_per_path(out).values()) == _records(ARCHIVES[0])


def test_recursive_glob_matches_like_glob(tmp_path):
    """Without links, the loop-safe ``**`` matches exactly what glob.glob(recursive=True) does."""
    for rel in ("a.warc.gz", "x/b.warc.gz", "x/y/c.warc", "x/.hidden/d.warc.gz", ".e.warc.gz", "x/y/z/f.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"")
    for pattern in ("**", "**/*.warc.gz", "x/**", "x/**/*.warc", "**/y/*", "*/**/c.*", "**/.hidden/*"):
        full = f"{tmp_path}/{pattern}"
        assert expansion._recursive_glob(full) == sorted(glob.glob(full, recursive=True)), pattern


# ------------------------------------------------------------------------------------------------
# names (case 6)


def test_a_file_name_that_is_not_utf8(tree, tmp_path):
    raw = os.fsencode(str(tree)) + b"/caf\xe9-\xff.warc.gz"
    shutil.copy(ARCHIVES[1], raw)
    name = os.fsdecode(raw)  # how Python holds it: surrogate escapes
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", str(tree), "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "_run.json").read_text())
    assert [e["path"] for e in manifest["inputs"]] == sorted([str(tree / "a.warc.gz"), name])
    assert "\\udce9" in (out / "_run.json").read_text()  # the exact bytes, as JSON escapes
    entry = next(e for e in manifest["inputs"] if e["path"] == name)
    assert entry["part"].startswith("caf%E9-%FF.warc.gz.")
    shown = str(tree) + "/caf\\xe9-\\xff.warc.gz"
    assert entry["rows"] == _records(ARCHIVES[1]) > 0
    assert _rows_per_path(out) == {str(tree / "a.warc.gz"): _records(ARCHIVES[0]), shown: entry["rows"]}
    with duckdb.connect() as con:
        assert con.execute(f"SELECT count(*) FROM '{out}/*.parquet'").fetchone()[0] == manifest["counts"]["records_seen"]
    result = CliRunner().invoke(cli, ["query", str(out), "SELECT path FROM runs ORDER BY path", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [r["path"] for r in json.loads(result.output)] == sorted([str(tree / "a.warc.gz"), shown])
    again = run([str(tree)], str(out))  # the marker of such a name resumes
    assert again.resumed == sorted([str(tree / "a.warc.gz"), name])


def test_a_backslash_in_a_name_stays_visible_to_duckdb(tree, tmp_path):
    shutil.copy(ARCHIVES[1], tree / "back\\slash.warc.gz")
    out = tmp_path / "out"
    summary = run([str(tree)], str(out))
    with duckdb.connect() as con:
        seen = con.execute(f"SELECT count(*) FROM '{out}/*.parquet'").fetchone()[0]
    assert seen == summary.manifest["counts"]["records_seen"]


@pytest.mark.parametrize("column,values,wanted", [
    ("content_type", pa.array([5], pa.int64()), "string"),
    ("url", pa.array([1], pa.int64()), "string"),
    ("body", pa.array([1.5]), "binary (or string)"),
])
def test_raw_response_parquet_of_the_wrong_type_is_that_inputs_error(tree, tmp_path, column, values, wanted):
    table = {"url": ["http://example.com/"], "content_type": ["text/html"], "body": [b"<p>hello"]}
    table[column] = values
    bad = tree / "bad.parquet"
    pq.write_table(pa.table(table), bad)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", str(tree), "--out", str(out), "-q"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    manifest = json.loads((out / "_run.json").read_text())
    outcomes = {Path(e["path"]).name: (e["outcome"], e["error"]) for e in manifest["inputs"]}
    assert outcomes["a.warc.gz"] == ("complete", None)
    assert outcomes["bad.parquet"][0] == "error"
    assert f"column {column} is {values.type}, not {wanted}" in outcomes["bad.parquet"][1]
