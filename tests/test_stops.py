"""How a run stops (issue 17, cases 4 and 10): a full disk, no inodes left or another OS error
while writing gives one line naming the path and errno and exit 4, nothing half-published, and a
rerun completes; SIGINT and SIGTERM stop within 2 s with one line, remove temporary files, exit
130 and 143, and the rerun finishes the work and says truthfully what it resumed.

The disk-full cases mount a small tmpfs (root only; skipped with the reason elsewhere); the
file-size limit case (RLIMIT_FSIZE: EFBIG) and the in-process cases run everywhere."""

from __future__ import annotations

import errno
import glob
import importlib.util
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode import writer
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_warcs"
_CLI = "import sys; from redecode_jobs.cli import main; sys.argv[0] = 'redecode'; main()"


def _builder():
    spec = importlib.util.spec_from_file_location("make_broken_inputs_stops", ROOT / "tools" / "make_broken_inputs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _cmd(inputs, out, *more: str) -> list[str]:
    return [sys.executable, "-c", _CLI, "run", *map(str, inputs), "--out", str(out), *more]


def _rows(out) -> list[tuple]:
    rows = []
    for part in sorted(glob.glob(os.path.join(out, "*.parquet"))):
        for r in pq.read_table(part).to_pylist():
            rows.append((r["warc_path"], r["warc_offset"], r["status"], r["encoding"], r["text"]))
    return sorted(rows)


def _leftovers(out) -> list[str]:
    return (glob.glob(os.path.join(out, ".tmp-*")) + glob.glob(os.path.join(out, "_done", ".tmp-*"))
            + glob.glob(os.path.join(out, "_staging", "*")))


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("clean") / "out"
    proc = subprocess.run(_cmd([SAMPLES], out, "-q"), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


# ------------------------------------------------------------------------------------------------
# OS errors while writing (case 4)


@pytest.fixture
def tiny_fs(tmp_path):
    """A tmpfs of 200 KiB and 24 inodes at tmp_path/fs (unmounted afterwards)."""
    mount = tmp_path / "fs"
    mount.mkdir()
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a small tmpfs needs root and mount(8)")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k,nr_inodes=24", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _grow(mount: Path) -> None:
    subprocess.run(["mount", "-o", "remount,size=64m,nr_inodes=4096", str(mount)], check=True)


def _one_line_naming(stderr: str, path_part: str, code: int) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, stderr
    assert path_part in lines[0] and f"errno {code}, {errno.errorcode[code]}" in lines[0], stderr
    assert "run the same command again" in lines[0], stderr


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_disk_full(tiny_fs, clean_run, workers):
    out = tiny_fs / "out"
    proc = subprocess.run(_cmd([SAMPLES], out, "-q", "--workers", workers), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 4, proc.stderr
    _one_line_naming(proc.stderr, str(out), errno.ENOSPC)
    assert not _leftovers(out), _leftovers(out)
    for part in glob.glob(os.path.join(out, "*.parquet")):
        pq.read_metadata(part)  # whatever is published is whole
    _grow(tiny_fs)
    proc = subprocess.run(_cmd([SAMPLES], out, "-q"), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert _rows(out) == _rows(clean_run)


@pytest.mark.slow
def test_out_of_inodes(tiny_fs, clean_run):
    # use up the inodes but leave the space: the part files cannot even be created
    filler = tiny_fs / "filler"
    filler.mkdir()
    for i in range(100):
        try:
            (filler / str(i)).touch()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
            break
    out = tiny_fs / "out"
    proc = subprocess.run(_cmd([SAMPLES], out, "-q"), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 4, proc.stderr
    _one_line_naming(proc.stderr, str(out), errno.ENOSPC)
    shutil.rmtree(filler)
    _grow(tiny_fs)  # (the parts need more room than 200 KiB too)
    proc = subprocess.run(_cmd([SAMPLES], out, "-q"), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert _rows(out) == _rows(clean_run)


def _limit_file_size():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (48 * 1024, resource.RLIM_INFINITY))


@pytest.mark.slow
def test_file_size_limit_is_an_os_error(tmp_path, clean_run):
    out = tmp_path / "out"
    proc = subprocess.run(_cmd([SAMPLES], out, "-q"), capture_output=True, text=True, timeout=300,
                          preexec_fn=_limit_file_size)
    assert proc.returncode == 4, proc.stderr
    _one_line_naming(proc.stderr, str(out), errno.EFBIG)
    assert not _leftovers(out)
    proc = subprocess.run(_cmd([SAMPLES], out, "-q"), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert _rows(out) == _rows(clean_run)


def test_disk_full_in_process(tmp_path, monkeypatch):
    # pyarrow's Parquet writer (redecode.writer.open_parquet's) refuses to write a row group as it
    # does when the disk is full
    opened = writer.open_parquet

    class Full:
        def __init__(self, *args, **kwargs):
            self._writer = opened(*args, **kwargs)

        def write_table(self, *args, **kwargs):
            raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")

        def close(self):
            self._writer.close()

    monkeypatch.setattr(writer, "open_parquet", Full)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", str(SAMPLES), "--out", str(out), "-q"])
    assert result.exit_code == 4, result.output
    assert "No space left on device (errno 28, ENOSPC)" in result.output
    assert str(out) in result.output
    assert not _leftovers(out)


def test_exit_codes_are_in_help():
    result = CliRunner().invoke(cli, ["run", "--help"])
    text = " ".join(result.output.split())
    assert "4 the operating system refused to write the output" in text
    assert "5 with --fail-on-failed" in text  # (not 4: the two must differ)
    assert "130/143 stopped by SIGINT/SIGTERM" in text
    # the exit codes' table in the docs (docs/operations.md since the README was cut, issue 18)
    page = " ".join((ROOT / "docs" / "operations.md").read_text(encoding="utf-8").split())
    assert "| 4 | the output could not be written: the operating system refused" in page
    assert "| 5 | `run`/`backfill --fail-on-failed`" in page
    assert "| 130 / 143 | stopped by SIGINT" in page
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "4 the output could not be written" in readme and "5 `--fail-on-failed`" in readme


# ------------------------------------------------------------------------------------------------
# SIGINT and SIGTERM (case 10)


@pytest.fixture(scope="module")
def slow_corpus(tmp_path_factory):
    """Eight archives of 400 records (several seconds of work): time to be interrupted."""
    build = _builder()
    d = tmp_path_factory.mktemp("stops-corpus")
    paths = []
    for seed in range(8):
        path = d / f"crawl-{seed}.warc.gz"
        build.corpus_warc(str(path), 400, seed=seed, body_bytes=6000)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def slow_clean(slow_corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("slow-clean") / "out"
    proc = subprocess.run(_cmd(slow_corpus, out, "-q", "--workers", "1"), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out


def _parts(out) -> int:
    return len(glob.glob(os.path.join(out, "*.parquet")))


@pytest.mark.parametrize("signum,workers,group", [
    (signal.SIGINT, "1", True), (signal.SIGINT, "2", True),  # Ctrl-C: the terminal signals the group
    (signal.SIGTERM, "1", False), (signal.SIGTERM, "2", False),  # kill PID: the parent alone
])
@pytest.mark.slow
def test_signal_stops_within_2s_and_rerun_finishes(slow_corpus, slow_clean, tmp_path, signum, workers, group):
    out = tmp_path / "out"
    proc = subprocess.Popen(_cmd(slow_corpus, out, "--workers", workers), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and _parts(out) < 1:
            time.sleep(0.01)
        if proc.poll() is not None or _parts(out) >= len(slow_corpus) - 1:
            pytest.skip("the run finished before it could be interrupted")
        sent = time.monotonic()
        if group:
            os.killpg(proc.pid, signum)
        else:
            os.kill(proc.pid, signum)
        _, stderr = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + signum, stderr
    assert took < 2.0, f"took {took:.2f} s to stop"
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines == [f"redecode: stopped by {signal.Signals(signum).name}; the shards finished are kept in "
                     f"{out}; run the same command again to finish"], stderr
    assert not _leftovers(out), _leftovers(out)
    for part in glob.glob(os.path.join(out, "*.parquet")):
        pq.read_metadata(part)

    # each archive is one shard: the inputs whose marker is there are complete, the others are not
    complete = len(list((out / "_done").glob("*.json")))
    rerun = subprocess.run(_cmd(slow_corpus, out, "--workers", workers), capture_output=True, text=True,
                           timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert _rows(out) == _rows(slow_clean)
    summary = rerun.stderr.splitlines()[-1]
    if complete:
        assert f"{len(slow_corpus)} inputs ({complete} already complete, skipped;" in summary, summary
    else:
        assert "already complete" not in summary, summary
    counts = json.loads((out / "_run.json").read_text())["counts"]
    want = json.loads((slow_clean / "_run.json").read_text())["counts"]
    assert counts == want
