"""``redecode repair`` stops and resumes like ``run`` (issue 25, item 11).

On main, a repair stopped by SIGTERM exited 143 with nothing said, left ``.tmp`` files, and every
rerun was refused ("already holds output"): no resume. Here: one line and exit 143 (130 for
SIGINT), no temporary file left, and the same command again finishes the work, skipping the inputs
finished, with the rows of an uninterrupted repair.
"""

from __future__ import annotations

import glob
import json
import os
import signal
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

_CLI = "import sys; from redecode_jobs.cli import main; sys.argv[0] = 'redecode'; main()"
WORDS = ["café", "naïve", "Grüße", "façade", "São Paulo", "crème brûlée", "Ærøskøbing", "jalapeño"]


def _cmd(inputs, out, *more: str) -> list[str]:
    return [sys.executable, "-c", _CLI, "repair", *map(str, inputs), "--text-col", "t", "--out", str(out), *more]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Twelve text-only priors of 3,000 rows each: UTF-8 read as windows-1252 (a few seconds of
    ftfy per file)."""
    d = tmp_path_factory.mktemp("repair-in")
    paths = []
    for n in range(12):
        texts = [" ".join(WORDS[(i + k) % len(WORDS)] for k in range(12)).encode("utf-8").decode("cp1252", "replace")
                 + f" #{n}-{i}" for i in range(3000)]
        path = d / f"prior-{n:02d}.parquet"
        pq.write_table(pa.table({"t": texts}), path, row_group_size=500)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def clean(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("repair-clean") / "out"
    proc = subprocess.run(_cmd(inputs, out, "--workers", "1", "-q"), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out


def _rows(out) -> list[tuple]:
    rows = []
    for part in sorted(glob.glob(os.path.join(out, "*.parquet"))):
        rows += [(r["source_path"], r["source_row"], r["text"], r["status"]) for r in pq.read_table(part).to_pylist()]
    return sorted(rows)


def _leftovers(out) -> list[str]:
    return glob.glob(os.path.join(out, ".tmp-*")) + glob.glob(os.path.join(out, "_done", ".tmp-*"))


@pytest.mark.slow
@pytest.mark.parametrize("signum,workers", [(signal.SIGTERM, "1"), (signal.SIGTERM, "2"), (signal.SIGINT, "2")])
def test_repair_stopped_says_so_and_resumes(inputs, clean, tmp_path, signum, workers):
    out = tmp_path / "out"
    proc = subprocess.Popen(_cmd(inputs, out, "--workers", workers), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and not glob.glob(os.path.join(out, "*.parquet")):
            time.sleep(0.01)
        if proc.poll() is not None or len(glob.glob(os.path.join(out, "*.parquet"))) >= len(inputs) - 1:
            pytest.skip("the repair finished before it could be stopped")
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)  # Ctrl-C: the terminal signals the group
        else:
            os.kill(proc.pid, signum)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + signum, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines == [f"redecode: stopped by {signal.Signals(signum).name}; the inputs finished are kept in {out}; "
                     "run the same command again to finish"], stderr
    assert not _leftovers(out), _leftovers(out)
    finished = len(glob.glob(os.path.join(out, "_done", "*.json")))
    rerun = subprocess.run(_cmd(inputs, out, "--workers", workers), capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    if finished:
        assert f"{len(inputs)} inputs ({finished} already complete, skipped)" in rerun.stderr, rerun.stderr
    assert _rows(out) == _rows(clean)
    manifest = json.loads((out / "_repair.json").read_text())
    assert manifest["counts"] == json.loads((clean / "_repair.json").read_text())["counts"]


def test_changed_input_is_repaired_again(inputs, tmp_path):
    """A resume trusts a finished input only while it is the file that was repaired."""
    from redecode.repair import repair

    first, second = tmp_path / "a.parquet", tmp_path / "b.parquet"
    for path in (first, second):
        pq.write_table(pq.read_table(inputs[0]).slice(0, 10), path)
    out = tmp_path / "out"
    repair([str(first), str(second)], str(out), text_col="t")
    pq.write_table(pq.read_table(inputs[1]).slice(0, 12), second)  # replaced: 12 other rows
    again = repair([str(first), str(second)], str(out), text_col="t")
    assert again.resumed == [str(first)]
    assert again.manifest["counts"]["rows"] == 22
