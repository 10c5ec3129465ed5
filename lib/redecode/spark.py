"""The Spark executor: the same run as :func:`redecode.job.run`, one Spark task per shard.

The only module that imports :mod:`pyspark` (lazily: importing this module does not need it).

What runs where:

- driver: expand the inputs (:func:`redecode.inputs.expand_inputs`: files, directories, globs,
  URLs, ``@list.txt`` manifest files), plan shards with :func:`redecode.job.plan_shards` (so the
  parts have the same names as the local executor's), skip shards whose completion marker is valid
  (same rules digest and byte range, part present), run the rest as one Spark task each, collect
  the markers the tasks return, redo whole any input whose shards did not meet exactly, remove
  parts of an older shard plan, and write ``_run.json`` with :func:`redecode.job._manifest` (all
  as :func:`redecode.job.run` does; a local run directory takes its lock too).
- task (:func:`run_task`): :func:`redecode.job.process_shard`, exactly as the local executor runs
  it, into a private staging directory, then publish the part and then its marker under their
  final names (:func:`redecode.storage.publish_file`: ``os.replace`` locally, one atomic PUT on
  S3).

Why retries cannot duplicate rows: a shard's part has one deterministic name
(:func:`redecode.job.part_stem`), and it appears under that name only complete (rename or single
PUT). A retried or speculative attempt writes the same rows under the same name, replacing, never
adding. Each attempt stages in its own directory, so two attempts of one shard running at once
(speculation) never write the same temporary file. The marker is published after the part, so a
marker always names a part that exists; a task killed between the two leaves a part without a
marker, which the next run redoes (replacing it). The driver never reads parts, only markers.

Output directory: a local path must be on a filesystem shared by the driver and all executors (it
is, in ``local[N]`` mode); otherwise use a URL (``s3://bucket/run``). Staging for URL outputs goes
to Python's temporary directory of the task (``TMPDIR``, else ``/tmp``; point
``spark.executorEnv.TMPDIR`` at a large local disk: a part is up to ~0.8x its archive's size and
each core holds one).

``master="inline"`` runs the same tasks one after another in this process without Spark: for
remote runs on one machine, tests and debugging.

Deviations from the local executor: ``cpu_seconds`` in the manifest is the driver's plus the sum
of the tasks' (Spark's Python workers are not children of the driver); the manifest gains an
``executor`` block (name, master, Spark version, tasks run, their summed wall and CPU seconds).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import TypeVar

from redecode import job, storage
from redecode.inputs import expand_inputs, outside
from redecode.rules import DEFAULT_RULES, get_rules

__all__ = ["FORWARDED_ENV", "main", "map_tasks", "plan", "run_spark", "run_task", "stage_and_publish"]

T = TypeVar("T")
R = TypeVar("R")

#: Environment variables copied from the driver to the Python workers of the job, so that tasks
#: reach the same object store with the same credentials as the driver (see ``forward_env``).
FORWARDED_ENV = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
    "REDECODE_S3_ANON",
)


# ---------------------------------------------------------------------------------------------
# planning (driver)


def plan(inputs: Iterable[str], *, shard_bytes: int | None = None,
         not_read: list[str] | None = None) -> tuple[list[str], list[job.Shard]]:
    """``(paths, shards)``: inputs expanded as :func:`redecode.inputs.expand_inputs` does, and their
    shards as :func:`redecode.job.plan_shards` cuts them (the local executor's plan). Files the
    inputs held under other names are appended to ``not_read`` when given.

    Raises :class:`FileNotFoundError` for an input that matches nothing.
    """
    paths = expand_inputs(list(inputs), not_read)
    shards = [
        job.Shard(path, index, start, end)
        for path in paths
        for index, (start, end) in enumerate(job.plan_shards(path, shard_bytes=shard_bytes))
    ]
    return paths, shards


def _valid_markers(
    out: str, shards: list[job.Shard], rules_digest: str, max_record_bytes: int | None = None
) -> dict[tuple[str, int], dict]:
    """Markers of complete shards (:func:`redecode.job.marker_is_current`) whose part exists.

    One listing of ``out`` and one of ``out/_done`` (not a request per shard), then one read per
    marker found.
    """
    import json  # noqa: PLC0415
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    done_names = set(storage.listdir(storage.join(out, "_done")))
    part_names = set(storage.listdir(out))
    listed = [s for s in shards if job.part_stem(s.path, s.index) + ".json" in done_names]

    def read(shard: job.Shard) -> dict | None:
        url = storage.join(out, "_done", job.part_stem(shard.path, shard.index) + ".json")
        try:
            return json.loads(storage.read_bytes(url))
        except (FileNotFoundError, ValueError):
            return None

    # remote: one GET per marker, 32 at a time (90,000 markers serially would take half an hour)
    workers = 32 if storage.is_remote(out) and len(listed) > 1 else 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        markers = list(pool.map(read, listed))
    found: dict[tuple[str, int], dict] = {}
    for shard, marker in zip(listed, markers):
        if (
            marker
            and job.marker_is_current(marker, shard, rules_digest, max_record_bytes)
            and marker.get("part") in part_names
        ):
            found[(shard.path, shard.index)] = marker
    return found


def _clean(out: str) -> None:
    """Remove what killed attempts left in a local run directory (remote ones leave nothing)."""
    if storage.is_remote(out):
        return
    for directory in (out, os.path.join(out, "_done")):
        for name in os.listdir(directory):
            if name.startswith(".tmp-"):
                os.unlink(os.path.join(directory, name))
    shutil.rmtree(os.path.join(out, "_staging"), ignore_errors=True)


def _redo_bad_boundaries(
    shards: list[job.Shard], markers: dict[tuple[str, int], dict], out: str
) -> tuple[list[job.Shard], list[job.Shard]]:
    """``(shards, to_redo)``: :func:`redecode.job._redo_bad_boundaries`'s rule, for any ``out``.

    An input cut into several shards whose shards did not meet exactly (a marker with
    ``boundary_ok`` false) or did not all complete loses its parts and markers and gets one
    whole-file shard, returned in ``to_redo`` for the caller to run.
    """
    counts: dict[str, int] = {}
    for s in shards:
        counts[s.path] = counts.get(s.path, 0) + 1
    bad = {
        s.path
        for s in shards
        if counts[s.path] > 1
        and (not markers[(s.path, s.index)].get("boundary_ok", True) or markers[(s.path, s.index)]["outcome"] != "complete")
    }
    if not bad:
        return shards, []
    kept = [s for s in shards if s.path not in bad]
    redo = []
    for path in sorted(bad):
        for s in [s for s in shards if s.path == path]:
            del markers[(s.path, s.index)]
            stem = job.part_stem(path, s.index)
            storage.remove(storage.join(out, "_done", stem + ".json"))  # marker first: never a marker without its part
            storage.remove(storage.join(out, stem + ".parquet"))
        whole = job.Shard(path, 0, 0, None)
        kept.append(whole)
        redo.append(whole)
    return kept, redo


def _remove_stale_parts(out: str, paths: list[str], shards: list[job.Shard]) -> None:
    """:func:`redecode.job._remove_stale_parts` for any ``out``: parts and markers of this run's
    inputs that the current shard plan does not have (an earlier run's other shard size) go, so
    ``OUT/*.parquet`` never holds a record twice."""
    wanted = {job.part_stem(s.path, s.index) for s in shards}
    prefixes = {job.part_stem(p, 0)[: -len("0000")] for p in paths}
    for directory, suffix in ((out, ".parquet"), (storage.join(out, "_done"), ".json")):
        for name in storage.listdir(directory):
            if not name.endswith(suffix):
                continue
            stem = name[: -len(suffix)]
            prefix, _, _index = stem.rpartition(".")
            if prefix + "." in prefixes and stem not in wanted:
                storage.remove(storage.join(directory, name))


# ---------------------------------------------------------------------------------------------
# the task (executor)


def stage_and_publish(out: str, part: str, work: Callable[[str], T]) -> T:
    """Run ``work(staging_dir)``, which writes ``part`` and ``_done/<stem>.json`` into the staging
    directory it is given (as :func:`redecode.job.process_shard` writes into ``out``), then
    publish the part and then the marker under ``out``; return what ``work`` returned.

    The staging directory is private to this call (one per task attempt) and removed afterwards,
    whatever happens. For any per-shard function with the job's layout (``process_shard``,
    backfill's shard function).
    """
    stem = part[: -len(".parquet")] if part.endswith(".parquet") else part
    staging = storage.staging_dir(out, stem)
    try:
        os.makedirs(os.path.join(staging, "_done"), exist_ok=True)
        result = work(staging)
        # part first: a published marker always names a published part
        storage.publish_file(os.path.join(staging, part), storage.join(out, part))
        storage.publish_file(os.path.join(staging, "_done", stem + ".json"), storage.join(out, "_done", stem + ".json"))
        return result
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def run_task(shard: job.Shard | tuple, out: str, rules_name: str, max_record_bytes: int) -> dict:
    """Run one shard the way the local executor does and publish its part, then its marker.

    ``shard``: a :class:`redecode.job.Shard` or its tuple ``(path, index, start, end)``. ``out``: the
    run directory, local (shared) path or URL. Returns the marker dict (as written to
    ``out/_done/<stem>.json``). Errors reading the archive are in the marker (``outcome``); other
    exceptions propagate, so Spark retries the task.
    """
    if not isinstance(shard, job.Shard):
        shard = job.Shard(*shard)
    part = job.part_stem(shard.path, shard.index) + ".parquet"
    return stage_and_publish(out, part, lambda staging: job.process_shard(shard, staging, rules_name, max_record_bytes))


# ---------------------------------------------------------------------------------------------
# Spark


def _spark_session(master: str | None, app_name: str, conf: dict[str, str] | None):
    """``(session, created)``: the active session if there is one, else a new one."""
    try:
        from pyspark.sql import SparkSession  # noqa: PLC0415 - the [spark] extra
    except ImportError as exc:
        raise ImportError("the Spark executor needs the [spark] extra (PySpark, and Java 17+ on the machine); "
                          "there is no PyPI release: install it from the checkout with "
                          "pip install -e '.[spark,s3]'") from exc
    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    if master is None or master.startswith("local"):
        # Python workers of a local master are this interpreter (same venv, same package); a
        # cluster gets its interpreter from spark.pyspark.python (see the README).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    if not sys.stderr.isatty():
        # Spark's console progress bar is a stream of carriage returns in a log file
        builder = builder.config("spark.ui.showConsoleProgress", "false")
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    return builder.getOrCreate(), True


def map_tasks(
    items: list,
    fn: Callable[[object], R],
    *,
    master: str | None = None,
    app_name: str = "redecode",
    spark_conf: dict[str, str] | None = None,
    forward_env: bool = True,
    description: str = "redecode",
) -> tuple[list[R], dict]:
    """``([fn(item) for item in items], executor_info)``, one Spark task per item (one partition
    each, so a failed item is retried alone), or in this process when ``master == "inline"``.

    ``fn`` is pickled with cloudpickle (closures are fine) and must be importable-clean on the
    executors (the package installed there). ``master``, ``spark_conf``, ``forward_env``: see
    :func:`run_spark`. Results come back in the order of ``items``.
    """
    if master == "inline":
        return [fn(item) for item in items], {"name": "inline", "master": "inline"}
    if not items:
        return [], {"name": "spark", "master": master}
    session, created = _spark_session(master, app_name, spark_conf)
    try:
        sc = session.sparkContext
        if forward_env:
            # sc.environment goes with every Python function of jobs built from now on
            for name in FORWARDED_ENV:
                if name in os.environ:
                    sc.environment[name] = os.environ[name]
        sc.setJobDescription(description)
        results = sc.parallelize(items, numSlices=len(items)).map(fn).collect()
        info = {
            "name": "spark",
            "master": sc.master,
            "spark_version": sc.version,
            "default_parallelism": sc.defaultParallelism,
        }
    finally:
        if created:
            session.stop()
    return results, info


def run_spark(
    inputs: list[str],
    out: str,
    *,
    rules: str = DEFAULT_RULES,
    master: str | None = None,
    max_record_bytes: int = job.DEFAULT_MAX_RECORD_BYTES,
    force: bool = False,
    shard_bytes: int | None = None,
    app_name: str = "redecode",
    spark_conf: dict[str, str] | None = None,
    forward_env: bool = True,
    on_error: Callable[[str], None] | None = None,
) -> job.RunSummary:
    """Re-decode every record of ``inputs`` into run directory ``out`` on Spark; return the summary.

    Same inputs, outputs, markers, resume (``force``) and manifest as :func:`redecode.job.run`;
    ``inputs`` and ``out`` may also be URLs (``s3://...``) and ``@list.txt`` manifest files.
    ``master``: a Spark master URL (``local[2]``, ``spark://host:7077``, ``yarn``...), None to take it
    from ``spark-submit`` / the active session (``local[*]`` when there is none), or ``"inline"``
    to run the tasks in this process without Spark. An active SparkSession is reused (and left
    running); one created here is stopped at the end. ``spark_conf``: extra Spark settings for a
    session created here. ``forward_env``: copy :data:`FORWARDED_ENV` (AWS credentials, endpoint,
    region) from the driver's environment to the tasks; set False where executors have their own
    (instance roles).

    Raises :class:`FileNotFoundError` for an input matching nothing, :class:`KeyError` for unknown
    rules, :class:`ImportError` without pyspark (or without fsspec/s3fs for URLs), and Spark's
    error when a task fails for good (shards completed before it keep their markers, so a rerun
    resumes).
    """
    wall_start = time.perf_counter()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    cpu_start = job._cpu_seconds()
    rules_obj = get_rules(rules)
    out = storage.local_path(out)
    not_read: list[str] = []
    paths, shards = plan(inputs, shard_bytes=shard_bytes, not_read=not_read)
    storage.makedirs(out)
    storage.makedirs(storage.join(out, "_done"))
    # a local run directory gets the local executor's lock (flock: one run per directory); an
    # object store has no locks, so two runs into one URL are the caller's to avoid
    lock = None if storage.is_remote(out) else job._lock_run_directory(out)
    try:
        _clean(out)
        markers = {} if force else _valid_markers(out, shards, rules_obj.digest, max_record_bytes)
        todo = [s for s in shards if (s.path, s.index) not in markers]
        rules_name = rules_obj.name

        def task(item, out=out, rules_name=rules_name, max_record_bytes=max_record_bytes):
            return run_task(item, out, rules_name, max_record_bytes)

        def run_shards(batch: list[job.Shard]) -> tuple[list[dict], dict]:
            return map_tasks(
                [(s.path, s.index, s.start, s.end) for s in batch],
                task,
                master=master,
                app_name=app_name,
                spark_conf=spark_conf,
                forward_env=forward_env,
                description=f"redecode {len(batch)} shard(s) -> {out}",
            )

        results, info = run_shards(todo)
        for marker in results:
            markers[(marker["path"], marker["shard"])] = marker
        # as the local executor does: an input whose shards did not meet exactly is redone whole
        shards, redone = _redo_bad_boundaries(shards, markers, out)
        if redone:
            more, _ = run_shards(redone)
            results += more
            for marker in more:
                markers[(marker["path"], marker["shard"])] = marker
        _remove_stale_parts(out, paths, shards)
        if not storage.is_remote(out):
            try:
                os.rmdir(os.path.join(out, "_staging"))  # empty once every task has published
            except OSError:
                pass
    finally:
        if lock is not None:
            lock.close()

    manifest = job._manifest(paths, shards, markers, rules_obj, started_at, wall_start, cpu_start)
    manifest["files_not_read"] = job.files_not_read(outside(not_read, out))
    task_cpu = sum(m.get("cpu_seconds", 0.0) for m in results)
    manifest["cpu_seconds"] = round(manifest["cpu_seconds"] + task_cpu, 3)
    info.update(
        tasks=len(results),
        shards_skipped=len(shards) - len(todo) - len(redone),
        task_wall_seconds=round(sum(m.get("wall_seconds", 0.0) for m in results), 3),
        task_cpu_seconds=round(task_cpu, 3),
    )
    manifest["executor"] = info
    import json  # noqa: PLC0415

    storage.write_bytes(
        storage.join(out, "_run.json"), (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8")
    )
    errors = [entry["error"] for entry in manifest["inputs"] if entry["error"]]
    if on_error:
        for message in errors:
            on_error(message)
    return job.RunSummary(manifest=manifest, errors=errors)


# ---------------------------------------------------------------------------------------------
# spark-submit entry point


def main(argv: list[str] | None = None) -> int:
    """Driver entry point for ``spark-submit``: ``main(["INPUT", ..., "--out", "DIR"])``.

    The same as ``redecode run --executor spark``, for a two-line driver file
    (``import sys; from redecode.spark import main; sys.exit(main())``, see the README) where the
    ``redecode`` console script is not at hand. (Not runnable as ``spark-submit .../spark.py``:
    that would put ``lib/redecode`` first on ``sys.path``, where ``http.py`` shadows the standard
    library's.) The master comes from spark-submit. Prints the counts as JSON on stdout; returns
    the run's exit code.
    """
    import argparse  # noqa: PLC0415
    import json  # noqa: PLC0415

    parser = argparse.ArgumentParser(prog="redecode-spark", description=main.__doc__)
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--rules", default=DEFAULT_RULES)
    parser.add_argument("--master", default=None)
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--max-record-bytes", type=int, default=job.DEFAULT_MAX_RECORD_BYTES)
    args = parser.parse_args(argv)
    summary = run_spark(
        args.inputs,
        args.out,
        rules=args.rules,
        master=args.master,
        force=args.force,
        max_record_bytes=args.max_record_bytes,
        on_error=lambda m: print(f"redecode: error: {m}", file=sys.stderr),
    )
    print(json.dumps({"counts": summary.counts, "executor": summary.manifest["executor"]}, indent=2, sort_keys=True))
    return summary.exit_code

