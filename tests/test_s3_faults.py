"""Object storage in trouble, and two runs into one bucket (issue 25, items 8 and 13).

A moto S3 server (``tests/s3_server.py``) behind a proxy that answers chosen requests itself, as a
store or a network in trouble does (503 ``SlowDown``, a connection dropped). On main:

- two runs into one ``s3://`` out both exited 0 and one run's output was gone (the lock was local
  only); here the second is refused (exit 2) while the first holds the lock, a killed run's lock is
  taken over once its heartbeat is stale, and a run whose lock was taken stops before publishing;
- a driver killed before ``_run.json`` left a run that ``query`` read without a word; here
  ``query``, ``report`` and ``diff`` warn and say how many inputs it lacks;
- a connection lost mid-run ended in a botocore traceback, exit 1, part files left in the temp
  directory; here one line, exit 4, nothing left, and the rerun finishes;
- no retry of our own: here SlowDown is retried with backoff and the closing line counts it;
- (item 13) a killed attempt's staging directory was never cleaned; here the next shard staged on
  that machine, or the driver, removes it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("s3fs", reason="the [s3] extra (fsspec, s3fs) is not installed")
pytest.importorskip("moto.server", reason="moto[server] (the [test] extra) is not installed")

from click.testing import CliRunner  # noqa: E402

from redecode import rundir, storage  # noqa: E402
from redecode_jobs.cli import cli  # noqa: E402

from s3_server import SAMPLE, faulty_s3, s3  # noqa: E402,F401 - the fixtures

ROOT = Path(__file__).resolve().parent.parent
_CLI = "import sys; from redecode_jobs.cli import main; sys.argv[0] = 'redecode'; main()"


def invoke(*args: str):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _json(url: str) -> dict:
    return json.loads(storage.read_bytes(url))


def _lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """TMPDIR of this test alone (where shards of a bucket stage)."""
    import tempfile

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return tmp


def test_slowdown_is_retried_with_backoff_and_counted(faulty_s3, private_tmp):
    faulty_s3.fail(3, method="PUT", contains=".parquet")  # S3: "Please reduce your request rate"
    result = invoke("run", SAMPLE, "--out", "s3://run-out/slow", "--workers", "1")
    faulty_s3.heal()
    assert result.exit_code == 0, result.output
    assert faulty_s3.failed >= 3
    assert "(3 transient storage errors retried)" in result.stderr, result.stderr
    manifest = _json("s3://run-out/slow/_run.json")
    assert manifest["storage_retries"] == 3 and len(manifest["inputs"]) == 4
    assert all(e["outcome"] == "complete" for e in manifest["inputs"])


def test_slowdown_reading_inputs_from_the_store_is_retried(faulty_s3, private_tmp):
    """Inputs in a bucket: the listing they are expanded from (and their sizes and ETags told by
    it) and the ranged reads of the archives meet SlowDown too; each is retried and counted."""
    faulty_s3.fail(2, method="GET", contains="list-type")  # ListObjectsV2
    faulty_s3.fail(2, method="GET", contains="sample-crawl-00001")  # the ranged GETs of one input
    result = invoke("run", "s3://arc-in/crawl/", "--out", "s3://run-out/slow-in", "--workers", "1")
    faulty_s3.heal()
    assert result.exit_code == 0, result.output
    manifest = _json("s3://run-out/slow-in/_run.json")
    assert manifest["storage_retries"] == 4, manifest["storage_retries"]
    assert all(e["outcome"] == "complete" for e in manifest["inputs"]) and manifest["inputs"]


@pytest.mark.slow
def test_connection_lost_mid_run(faulty_s3, private_tmp, monkeypatch):
    monkeypatch.setenv("REDECODE_RETRIES", "2")
    faulty_s3.fail(-1, method="PUT", contains=".parquet", action="drop")  # every part upload
    result = invoke("run", SAMPLE, "--out", "s3://run-out/lost", "--workers", "1")
    faulty_s3.heal()
    assert result.exit_code == 4, result.output
    lines = _lines(result.stderr)
    assert "Traceback" not in result.output and len(lines) == 1, result.stderr
    assert lines[0].startswith("redecode: error: cannot write s3://run-out/lost/") and "errno 5, EIO" in lines[0]
    assert "run the same command again" in lines[0]
    assert list(private_tmp.rglob("*")) == [], list(private_tmp.rglob("*"))  # no part left on local disk
    assert storage.read_bytes("s3://run-out/lost/_running.json")  # the run is unfinished, and says so
    again = invoke("run", SAMPLE, "--out", "s3://run-out/lost", "--workers", "1")
    assert again.exit_code == 0, again.output
    assert len(_json("s3://run-out/lost/_run.json")["inputs"]) == 4
    assert not storage.exists("s3://run-out/lost/_running.json")
    assert not storage.exists("s3://run-out/lost/_lock")


def test_two_runs_into_one_bucket(s3, private_tmp, monkeypatch):
    out = "s3://run-out/two"
    other = {"run_id": "another-run", "host": "elsewhere", "pid": 1, "started": "2026-12-01T00:00:00+00:00",
             "heartbeat": time.time()}
    storage.create_bytes(f"{out}/_lock", json.dumps(other).encode())  # a run holds it, alive
    refused = invoke("run", SAMPLE, "--out", out, "--workers", "1")
    assert refused.exit_code == 2, refused.output
    assert "is being written by another redecode run" in refused.stderr and "another-run" in refused.stderr
    assert not storage.exists(f"{out}/_run.json") and _json(f"{out}/_lock")["run_id"] == "another-run"
    # the holder was killed: once its heartbeat is stale, the lock is taken over
    monkeypatch.setenv("REDECODE_LOCK_STALE", "0")
    taken = invoke("run", SAMPLE, "--out", out, "--workers", "1")
    assert taken.exit_code == 0, taken.output
    assert "taking over the lock of run another-run" in taken.stderr
    assert len(_json(f"{out}/_run.json")["inputs"]) == 4 and not storage.exists(f"{out}/_lock")


def test_a_run_whose_lock_was_taken_stops_before_publishing(s3, private_tmp, monkeypatch):
    """Another run took the lock over while this one ran (it looked dead): this one publishes no
    more parts and no _run.json; exit 2."""
    from redecode import job

    out = "s3://run-out/taken"
    real = job.process_shard

    def taken_over(*args, **kwargs):
        storage.write_bytes(f"{out}/_lock", json.dumps({"run_id": "the-other-run", "host": "h", "pid": 2,
                                                        "heartbeat": time.time()}).encode())
        return real(*args, **kwargs)

    monkeypatch.setattr(job, "process_shard", taken_over)
    result = invoke("run", SAMPLE, "--out", out, "--workers", "1")
    assert result.exit_code == 2, result.output
    assert "is now held by run the-other-run" in result.stderr
    assert not storage.exists(f"{out}/_run.json")
    assert [n for n in storage.listdir(out) if n.endswith(".parquet")] == []
    assert _json(f"{out}/_lock")["run_id"] == "the-other-run"  # not removed: it is not this run's


def test_endpoint_gone_mid_run_is_exit_4_with_one_line(s3, private_tmp, monkeypatch):
    """The endpoint killed mid-run (item 8(c) as a user met it): the next call on the store is the
    lock's check before a shard publishes (publish_task -> check_lock -> read_lock); after the
    retries it ends in one line and exit 4, as every other call on the output does (on main:
    "unexpected error (EndpointConnectionError ...); please report it", exit 1)."""
    import socket

    from redecode import job

    out = "s3://run-out/gone"
    with socket.socket() as sock:  # a port nothing listens on: the endpoint is gone
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    real = job.process_shard

    def endpoint_killed(*args, **kwargs):
        marker = real(*args, **kwargs)
        monkeypatch.setenv("AWS_ENDPOINT_URL", dead)  # (a new client: fsspec keys them by options)
        return marker

    monkeypatch.setenv("REDECODE_RETRIES", "2")
    monkeypatch.setenv("REDECODE_RETRY_WAIT", "0.01")
    monkeypatch.setattr(job, "process_shard", endpoint_killed)
    result = invoke("run", SAMPLE, "--out", out, "--workers", "1")
    assert result.exit_code == 4, result.output
    lines = _lines(result.stderr)
    assert "Traceback" not in result.output and len(lines) == 1, result.stderr
    assert lines[0].startswith(f"redecode: error: cannot write {out}/_lock") and "errno 5, EIO" in lines[0], lines
    assert "EndpointConnectionError" in lines[0] and "run the same command again" in lines[0], lines
    assert list(private_tmp.rglob("*")) == [], list(private_tmp.rglob("*"))  # no part left on local disk


def test_store_unreachable_anywhere_in_a_run_is_exit_4(tmp_path, monkeypatch):
    """Whatever call on the store meets the endpoint gone past the retries (here: the manifest's
    write, its client's own EndpointConnectionError, not an OSError), the command ends in one line
    and exit 4, not "unexpected error ...; please report it" and exit 1."""
    from botocore.exceptions import EndpointConnectionError

    def gone(*args, **kwargs):
        raise EndpointConnectionError(endpoint_url="http://127.0.0.1:9/run-out/x/_run.json")

    monkeypatch.setattr(rundir.RunDirectory, "write_manifest", gone)
    result = invoke("run", SAMPLE, "--out", tmp_path / "out", "--workers", "1")
    assert result.exit_code == 4, result.output
    lines = _lines(result.stderr)
    assert len(lines) == 1 and "the object store stayed unreachable after the retries" in lines[0], result.stderr
    assert "EndpointConnectionError" in lines[0] and "run the same command again" in lines[0]


def test_a_lock_never_taken_is_not_said_to_be_left(monkeypatch, caplog):
    """The store unreachable from the start: the run never created its lock object, so ending
    says nothing of a lock it "could not remove" (a fresh user's #25 recheck saw that warning
    before the one error line), and touches the store no more."""
    calls = []

    def gone(*args, **kwargs):
        calls.append(args)
        raise ConnectionError("endpoint gone")

    monkeypatch.setattr(rundir.storage, "create_bytes", gone)
    monkeypatch.setattr(rundir, "read_lock", gone)
    lock = rundir.RemoteLock("s3://bucket/out")
    with pytest.raises(ConnectionError):
        lock.take()
    with caplog.at_level("DEBUG", logger="redecode"):
        lock.release()
    assert len(calls) == 1 and not [r for r in caplog.records if "lock" in r.getMessage()]


@pytest.fixture(scope="module")
def slow_corpus(tmp_path_factory):
    """Four archives of 400 records: time for a run to be killed midway."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_broken_inputs_faults", ROOT / "tools" / "make_broken_inputs.py")
    build = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = build
    spec.loader.exec_module(build)
    d = tmp_path_factory.mktemp("faults-corpus")
    paths = []
    for seed in range(4):
        path = d / f"crawl-{seed}.warc.gz"
        build.corpus_warc(str(path), 400, seed=seed, body_bytes=6000)
        paths.append(str(path))
    return paths


@pytest.mark.slow
def test_driver_killed_before_run_json(s3, slow_corpus, tmp_path):
    """SIGKILL once the first part is in the bucket: query, report and diff warn that the run is
    unfinished and how many inputs it lacks; the rerun (once the dead run's lock is stale) finishes
    and the warning goes."""
    out = "s3://run-out/killed"
    env = dict(os.environ, REDECODE_LOCK_HEARTBEAT="1")
    proc = subprocess.Popen([sys.executable, "-c", _CLI, "run", *slow_corpus, "--out", out, "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if any(n.endswith(".parquet") for n in storage.listdir(out)):
                break
            time.sleep(0.05)
        if proc.poll() is not None:
            pytest.skip("the run finished before it could be killed")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    parts = [n for n in storage.listdir(out) if n.endswith(".parquet")]
    assert parts and not storage.exists(f"{out}/_run.json")
    query = invoke("query", out, "SELECT count(*) AS n FROM decodes")
    assert query.exit_code == 0, query.output
    (warning,) = [line for line in _lines(query.stderr) if "warning" in line]
    # (a part is published before its marker: the kill may fall between them, and that shard is
    # then not finished)
    lacking = len(slow_corpus) - len([n for n in storage.listdir(f"{out}/_done") if n.endswith(".json")])
    assert f"holds an unfinished run" in warning and f"{lacking} of the {len(slow_corpus)} inputs" in warning, warning
    report = invoke("report", out, "-o", tmp_path / "r.html")
    assert report.exit_code == 0 and "holds an unfinished run" in report.stderr, report.output
    diff = invoke("diff", out, out)
    assert diff.exit_code == 0 and "holds an unfinished run" in diff.stderr, diff.output
    # the killed run's lock stays until it is stale (no heartbeat for REDECODE_LOCK_STALE seconds)
    assert invoke("run", *slow_corpus, "--out", out, "--workers", "1").exit_code == 2
    again = subprocess.run([sys.executable, "-c", _CLI, "run", *slow_corpus, "--out", out, "--workers", "1"],
                           capture_output=True, text=True, timeout=600, env=dict(env, REDECODE_LOCK_STALE="0"))
    assert again.returncode == 0, again.stderr
    quiet = invoke("query", out, "SELECT count(*) AS n FROM decodes")
    assert quiet.exit_code == 0 and "warning" not in quiet.stderr, quiet.stderr


@pytest.mark.slow
def test_local_run_killed_is_reported_too(slow_corpus, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", _CLI, "run", *slow_corpus, "--out", str(out), "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and not list(out.glob("*.parquet")):
            time.sleep(0.02)
        if proc.poll() is not None:
            pytest.skip("the run finished before it could be killed")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    query = invoke("query", out, "SELECT count(*) FROM decodes")
    assert query.exit_code == 0 and "holds an unfinished run" in query.stderr, query.stderr


@pytest.mark.slow
def test_bounded_layout_run_killed_is_reported(slow_corpus, tmp_path):
    """The same in a bounded layout (parts cut to size, in partition folders, one marker per task):
    the warning counts the inputs of the tasks without a marker, and the rerun finishes."""
    out = tmp_path / "out"
    args = ["run", *slow_corpus, "--out", str(out), "--workers", "1", "--max-part-rows", "50",
            "--partition-by", "status"]
    proc = subprocess.Popen([sys.executable, "-c", _CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and not list(out.glob("status=*/*.parquet")):
            time.sleep(0.02)
        if proc.poll() is not None:
            pytest.skip("the run finished before it could be killed")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    running = json.loads((out / "_running.json").read_text())
    done = {p.stem for p in (out / "_done").glob("*.json")}
    lacking = {path for key, paths in running["tasks"].items() if key not in done for path in paths}
    assert lacking, running
    query = invoke("query", out, "SELECT count(*) FROM decodes")
    assert query.exit_code == 0, query.output
    (warning,) = [line for line in _lines(query.stderr) if "warning" in line]
    assert f"{len(lacking)} of the {len(slow_corpus)} inputs" in warning, warning
    again = invoke(*args)
    assert again.exit_code == 0, again.output
    assert not (out / "_running.json").exists()
    quiet = invoke("query", out, "SELECT count(*) FROM decodes")
    assert quiet.exit_code == 0 and "warning" not in quiet.stderr, quiet.stderr


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_killed_attempts_staging_is_removed(s3, private_tmp, tmp_path):
    """A Spark attempt killed while it staged its shard (here: a directory named by a pid that is
    gone, with a partial part) is removed by the next shard staged on this machine; a local run
    directory's _staging/ left by one goes at the end of the next run."""
    from redecode import job
    from redecode.rules import DEFAULT_RULES, RULES
    from redecode.rundir import Shard, remote_staging_root

    leftover = Path(remote_staging_root()) / f"{_dead_pid()}-crawl.warc.gz.0123abcd.0000-xyz"
    leftover.mkdir(parents=True)
    (leftover / "crawl.warc.gz.0123abcd.0000.parquet").write_bytes(b"PAR1 partial")
    alive = Path(remote_staging_root()) / f"{os.getpid()}-other.warc.gz.0123abcd.0000-abc"  # a live attempt's
    alive.mkdir()
    path = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")
    job.run_shard(Shard(path, 0, 0, None), out="s3://run-out/staging", rules=RULES[DEFAULT_RULES],
                  max_record_bytes=1 << 26, staged=True)
    assert not leftover.exists() and alive.exists()
    alive.rmdir()
    # a local run directory: _staging/ of a killed attempt goes when the next command finishes
    out = tmp_path / "out"
    (out / "_staging" / "crawl.warc.gz.0123abcd.0000-xyz").mkdir(parents=True)
    result = invoke("run", path, "--out", out, "--executor", "spark", "--master", "inline")
    assert result.exit_code == 0, result.output
    assert not (out / "_staging").exists()


@pytest.mark.slow
def test_spark_attempt_killed_while_staging_leaves_nothing(s3, slow_corpus, private_tmp):
    """Item 13 as it happens: a Spark task's Python worker killed (SIGKILL) while its shard stages
    on local disk; Spark runs the attempt again (``local[1,2]``: two attempts a task), the run
    completes, and no staging directory is left (on main the killed attempt's, with its partial
    part, stayed for good)."""
    pytest.importorskip("pyspark", reason="the [spark] extra is not installed")
    import shutil

    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java 17+")
    out = "s3://run-out/spark-killed"
    root = private_tmp / "redecode-staging"
    proc = subprocess.Popen([sys.executable, "-c", _CLI, "run", *slow_corpus, "--out", out, "--executor", "spark",
                             "--master", "local[1,2]", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=dict(os.environ, TMPDIR=str(private_tmp)))
    killed = None
    try:
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline and killed is None:
            for staging in (root.iterdir() if root.is_dir() else ()):
                if any(staging.rglob("*.tmp")) or any(staging.rglob("*.parquet")):  # a part being written
                    killed = int(staging.name.split("-", 1)[0])
                    os.kill(killed, signal.SIGKILL)
                    break
            time.sleep(0.01)
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if killed is None:
        pytest.skip("no attempt was caught staging")
    assert proc.returncode == 0, stderr
    assert not root.exists() or list(root.iterdir()) == [], list(root.rglob("*"))
    manifest = _json(f"{out}/_run.json")
    assert [e["outcome"] for e in manifest["inputs"]] == ["complete"] * len(slow_corpus)
    assert manifest["executor"]["tasks"] == len(slow_corpus)
    assert not storage.exists(f"{out}/_running.json") and not storage.exists(f"{out}/_lock")


@pytest.mark.slow
def test_connection_lost_under_spark(faulty_s3, private_tmp, monkeypatch):
    """The same with Spark's tasks: the task's error reaches the command as one line and exit 4."""
    pytest.importorskip("pyspark", reason="the [spark] extra is not installed")
    import shutil

    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java 17+")
    monkeypatch.setenv("REDECODE_RETRIES", "1")
    faulty_s3.fail(-1, method="PUT", contains=".parquet", action="drop")
    result = invoke("run", os.path.join(SAMPLE, "sample-crawl-00000.warc.gz"), "--out", "s3://run-out/lost-spark",
                    "--executor", "spark", "--master", "local[1]")
    faulty_s3.heal()
    assert result.exit_code == 4, result.output
    lines = _lines(result.stderr)
    assert "Traceback" not in result.output and lines, result.stderr
    assert lines[-1].startswith("redecode: error: cannot write s3://run-out/lost-spark/"), result.stderr
