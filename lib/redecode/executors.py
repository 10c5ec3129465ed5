"""The executor seam: map a per-shard function over shards, on this machine or on Apache Spark.

Contract. ``map_shards(fn, items, executor)`` returns ``[fn(item) for item in items]``, in the
order of ``items``, computed by the executor:

- :class:`Local`: this machine. ``workers`` processes (None: all cores; fork on Linux, spawn on
  macOS), at most one per item; the items run in this process when ``workers`` is 1 or there is
  at most one item. ``prepare()`` runs once in this process before workers start (so they share
  what it loads, copy-on-write). Workers die with the parent (Linux ``PR_SET_PDEATHSIG``), so a
  command killed by the OOM killer leaves no worker writing. Workers ignore SIGINT (Ctrl-C reaches
  the terminal's whole process group), from their fork on (SIGINT is blocked while they are made):
  the parent decides. When anything stops the parent's map
  (an item's exception, ``KeyboardInterrupt``, a SIGTERM turned into an exception by the
  command), it kills the workers at once (SIGKILL) and waits for them before the exception goes
  on, so nothing writes into the run directory after :func:`map_shards` has returned or raised,
  and the caller can remove what they were writing.
- :class:`Spark`: one Spark task per item (one partition each, so a failed item is retried
  alone), results collected to the driver; the active SparkSession is reused (and left running),
  one created here is stopped at the end. ``master="inline"`` runs the items in this process
  without Spark (remote runs on one machine, tests, debugging). The only module that imports
  :mod:`pyspark` (when a Spark executor first maps).

``fn`` must be picklable: a module-level function or a :func:`functools.partial` of one (Spark
pickles it with cloudpickle, and the package must be installed on its executors). An exception in
``fn`` propagates (Spark retries the task first). ``fn`` may report progress with
:func:`progress_reporter` (bytes, summed by ``on_progress`` in this process; not on Spark).

Every process, before its first item, moves the objects alive at start-up (modules, tables, rule
sets) out of the cyclic garbage collector's view (:func:`gc.freeze`): otherwise every full
collection walks them again while rows are built (measured: -2% instructions, callgrind).

``executor.info`` describes it for a run manifest (None for :class:`Local`); ``staged`` says
whether its attempts must stage their output before publishing it (Spark: retried and speculative
attempts of one item may run at once); ``writes_urls`` whether a run directory may be a URL (both
executors': a URL run directory is always staged).

Deviations: none.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["FORWARDED_ENV", "SPARK_JOBS", "Executor", "Local", "Spark", "make_executor", "map_shards",
           "progress_line", "progress_reporter"]

T = TypeVar("T")
R = TypeVar("R")

#: Environment variables copied from the driver to the Python workers of a Spark job, so that tasks
#: reach the same object store with the same credentials as the driver, and retry its transient
#: errors as the driver does (:mod:`redecode.storage`; see ``forward_env``).
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
    "REDECODE_RETRIES",
    "REDECODE_RETRY_WAIT",
)


class Executor:
    """Where :func:`map_shards` runs the items (see the module docstring)."""

    #: a manifest's ``executor`` block (None: the local executor writes none)
    info: dict | None = None
    #: whether attempts stage their output before publishing it
    staged: bool = False
    #: whether a run directory may be a URL
    writes_urls: bool = False

    def map(self, fn: Callable[[T], R], items: Sequence[T], on_progress: Callable[[int], None] | None,
            description: str, on_result: Callable[[int, R], None] | None = None) -> list[R]:
        raise NotImplementedError


def map_shards(fn: Callable[[T], R], items: Sequence[T], executor: Executor, *,
               on_progress: Callable[[int], None] | None = None, description: str = "redecode",
               on_result: Callable[[int, R], None] | None = None) -> list[R]:
    """``[fn(item) for item in items]`` computed by ``executor``, in the order of ``items``.

    ``on_progress(n)`` is called in this process with the bytes ``fn`` reports through
    :func:`progress_reporter` (local executor only). ``on_result(i, result)`` is called in this
    process as each item's result arrives (``i`` its index in ``items``; in the order they finish;
    on Spark, as each of the jobs the items are cut into ends). ``description`` names the work
    (Spark's job description).
    """
    return executor.map(fn, list(items), on_progress, description, on_result)


def make_executor(kind: str, *, workers: int | None = 1, master: str | None = None,
                  prepare: Callable[[], None] | None = None) -> Executor:
    """The executor a command's ``--executor``/``--workers``/``--master`` name: ``"local"``
    (:class:`Local` with ``workers`` and ``prepare``) or ``"spark"`` (:class:`Spark` with
    ``master``). ``ValueError`` for another kind."""
    if kind == "local":
        return Local(workers, prepare=prepare)
    if kind == "spark":
        return Spark(master)
    raise ValueError(f"unknown executor {kind!r}: 'local' or 'spark'")


# ---------------------------------------------------------------------------------------------
# progress and start-up, in every process

_reporter: Callable[[int], None] | None = None
_frozen = False


def progress_reporter() -> Callable[[int], None] | None:
    """Where the item running in this process reports progress (bytes), or None."""
    return _reporter


def _freeze_startup_objects() -> None:
    global _frozen
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()


def _init_worker(queue) -> None:
    global _reporter
    _die_with_parent()
    import signal  # noqa: PLC0415

    # Ctrl-C: the parent stops the run and kills the workers; a worker that raised
    # KeyboardInterrupt itself would only add a traceback per worker to stderr
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # (blocked from the fork until now)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if queue is not None:
        pending = [0]

        def report(n: int) -> None:  # batch updates: one queue message per MiB
            pending[0] += n
            if pending[0] >= 1 << 20:
                queue.put(pending[0])
                pending[0] = 0

        _reporter = report


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this worker when its parent dies (prctl PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # noqa: PLC0415
        import signal  # noqa: PLC0415

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)
    except (OSError, AttributeError):
        pass


def _in_this_process(fn: Callable[[T], R], items: list[T], on_progress: Callable[[int], None] | None,
                     on_result: Callable[[int, R], None] | None = None) -> list[R]:
    global _reporter
    _freeze_startup_objects()
    before, _reporter = _reporter, on_progress
    try:
        results = []
        for i, item in enumerate(items):
            results.append(fn(item))
            if on_result is not None:
                on_result(i, results[-1])
        return results
    finally:
        _reporter = before


# ---------------------------------------------------------------------------------------------
# this machine


class Local(Executor):
    """Processes on this machine (see the module docstring). A run directory may be a URL: each
    shard is then staged on local disk and published (:func:`redecode.rundir.publish_shard`)."""

    writes_urls = True

    def __init__(self, workers: int | None = 1, *, prepare: Callable[[], None] | None = None) -> None:
        self.workers = workers
        self.prepare = prepare
        self._prepared = False

    def map(self, fn, items, on_progress, description, on_result=None):
        n = self.workers or os.cpu_count() or 1
        if n <= 1 or len(items) <= 1:
            return _in_this_process(fn, items, on_progress, on_result)
        if self.prepare is not None and not self._prepared:
            # Load detectors, decoder tables and codecs once, here, before the workers fork: they
            # then share them instead of each loading them on its first record.
            self.prepare()
            self._prepared = True
        import concurrent.futures as cf  # noqa: PLC0415 - (only here: a one-worker run never needs them)
        import multiprocessing  # noqa: PLC0415

        _freeze_startup_objects()
        ctx = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
        queue = ctx.Queue() if on_progress is not None else None
        results: list = [None] * len(items)
        pool = cf.ProcessPoolExecutor(max_workers=min(n, len(items)), mp_context=ctx,
                                      initializer=_init_worker, initargs=(queue,))
        try:
            # The workers are made by the first submit. A Ctrl-C that reaches the process group
            # after a worker's fork and before its initializer ignores SIGINT would raise
            # KeyboardInterrupt in it (a traceback on stderr, seen under heavy load): SIGINT is
            # blocked in this thread while they are made, so each starts with it blocked until it
            # ignores it; here a SIGINT that came meanwhile is delivered when it is unblocked.
            masked = _sigint_blocked()
            try:
                futures = {pool.submit(fn, item): i for i, item in enumerate(items)}
            finally:
                _restore_mask(masked)
            pending = set(futures)
            while pending:
                done, pending = cf.wait(pending, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                while queue is not None and not queue.empty():
                    on_progress(queue.get_nowait())
                for fut in done:
                    results[futures[fut]] = fut.result()
                    if on_result is not None:
                        on_result(futures[fut], results[futures[fut]])
        except BaseException:
            _kill_workers(pool)
            raise
        pool.shutdown(wait=True)
        return results


def _sigint_blocked():
    """Block SIGINT in this thread; returns the signal mask before (None where there is none)."""
    import signal  # noqa: PLC0415

    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _restore_mask(mask) -> None:
    """Set this thread's signal mask back to ``mask`` (what :func:`_sigint_blocked` returned)."""
    if mask is not None:
        import signal  # noqa: PLC0415

        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _kill_workers(pool: cf.ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: cancel what has not started, SIGKILL the workers (a shard half written
    is the caller's to remove) and reap them. (``ProcessPoolExecutor.shutdown`` alone waits for
    the running items to finish: seconds to minutes.)"""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        try:
            process.kill()
        except (OSError, ValueError):
            pass
    for process in processes:
        try:
            process.join(5)
        except (OSError, ValueError, AssertionError):
            pass
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    except Exception:  # noqa: BLE001 - a broken pool is what killing it makes
        pass


# ---------------------------------------------------------------------------------------------
# Spark


class Spark(Executor):
    """One Spark task per item, or this process for ``master="inline"``. ``master``: a Spark
    master URL (``local[2]``, ``spark://host:7077``, ``yarn``...), None for spark-submit's or the
    active session's (``local[*]`` when there is none). ``app_name`` and ``conf`` (extra Spark
    settings) apply to a session created here. ``forward_env``: copy :data:`FORWARDED_ENV` (AWS
    credentials, endpoint, region) from the driver's environment to the tasks; set False where
    executors have their own (instance roles). ``measure(result) -> (records, bytes)``: what an
    item's result says it did, summed by Spark accumulators as tasks end: the driver's progress
    (``on_progress`` gets the bytes; its log gets :func:`progress_line` every
    ``progress_seconds`` and at the end). The items are run as :data:`SPARK_JOBS` jobs of
    consecutive items, submitted together, so ``on_result`` hears of results as each job ends."""

    staged = True
    writes_urls = True

    def __init__(self, master: str | None = None, *, app_name: str = "redecode",
                 conf: dict[str, str] | None = None, forward_env: bool = True,
                 measure: Callable[[object], tuple[int, int]] | None = None, progress_seconds: float = 60.0) -> None:
        self.master = master
        self.app_name = app_name
        self.conf = conf
        self.forward_env = forward_env
        self.measure = measure
        self.progress_seconds = progress_seconds
        self.info = None

    def map(self, fn, items, on_progress, description, on_result=None):
        # ``info`` describes the first map's executor (a run that redoes shards maps twice)
        if self.master == "inline":
            if self.info is None:
                self.info = {"name": "inline", "master": "inline"}
            return _in_this_process(fn, items, None, on_result)
        if not items:
            if self.info is None:
                self.info = {"name": "spark", "master": self.master}
            return []
        session, created = _spark_session(self.master, self.app_name, self.conf)
        try:
            sc = session.sparkContext
            if self.forward_env:
                # sc.environment goes with every Python function of jobs built from now on
                for name in FORWARDED_ENV:
                    if name in os.environ:
                        sc.environment[name] = os.environ[name]
            try:
                results = _spark_map(sc, fn, items, on_progress, description, on_result, self.measure,
                                     self.progress_seconds)
            except Exception as exc:
                raise _task_error(exc) from exc
            if self.info is None:
                self.info = {
                    "name": "spark",
                    "master": sc.master,
                    "spark_version": sc.version,
                    "default_parallelism": sc.defaultParallelism,
                }
        finally:
            if created:
                session.stop()
        return results


class TaskFailed(Exception):
    """A Spark job failed because a task raised one of this package's errors that a command gives
    an exit code of its own (:data:`TASK_ERRORS`): its message, and that ``exit_code``. Spark
    reports a task's exception as text (the Python traceback inside a Java one)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


#: Exceptions of a task -> a command's exit code (the output could not be written: 4; the run
#: directory is another run's: 2; a prior run's part is damaged: 1).
TASK_ERRORS = {"redecode.storage.OutputError": 4, "redecode.rundir.RunDirectoryLocked": 2,
               "redecode.rundir.DamagedRunError": 1}


def _task_error(exc: Exception) -> Exception:
    """A failed Spark job's exception, as :class:`TaskFailed` when a task raised one of
    :data:`TASK_ERRORS` (the last one named in the text Spark reports), else as it is."""
    text = str(exc)
    found = None
    for name, code in TASK_ERRORS.items():
        at = text.rfind(name + ": ")
        if at >= 0 and (found is None or at > found[0]):
            found = (at, name, code)
    if found is None:
        return exc
    at, name, code = found
    return TaskFailed(text[at + len(name) + 2:].splitlines()[0].strip(), code)


#: Jobs a Spark map's items are cut into (consecutive items each, submitted at once: Spark's FIFO
#: scheduler runs their tasks in item order and keeps every core busy), so that results reach the
#: driver (``on_result``) as each job ends, not all at the very end.
SPARK_JOBS = 16


def _spark_map(sc, fn, items, on_progress, description, on_result, measure, every: float) -> list:
    """``fn`` over ``items`` as Spark tasks (see :class:`Spark`), with progress on the driver:
    each task adds its result's ``measure(result)`` (``(records, bytes)``) to two accumulators,
    which the driver reads as tasks end: ``on_progress(bytes)`` gets the bytes, and every
    ``every`` seconds the driver's log gets a line (:func:`progress_line`) of records and bytes
    done and their rates per minute."""
    import concurrent.futures as cf  # noqa: PLC0415
    import logging  # noqa: PLC0415
    import time  # noqa: PLC0415

    log = logging.getLogger("redecode.spark")
    records = sc.accumulator(0)
    nbytes = sc.accumulator(0)

    def task(item):
        _freeze_startup_objects()
        result = fn(item)
        if measure is not None:
            r, b = measure(result)
            records.add(r)
            nbytes.add(b)
        return result

    size = -(-len(items) // min(SPARK_JOBS, len(items)))
    chunks = [(start, items[start:start + size]) for start in range(0, len(items), size)]

    def job(start: int, chunk: list) -> tuple[int, list]:
        sc.setJobDescription(f"{description} [{start + 1}-{start + len(chunk)} of {len(items)}]")
        return start, sc.parallelize(chunk, numSlices=len(chunk)).map(task).collect()

    results: list = [None] * len(items)
    started = last_log = time.monotonic()
    reported = 0
    logged = (0, 0)
    done_items = 0
    pending: set = set()

    def _drain() -> None:
        nonlocal pending, reported, last_log, logged, done_items
        while pending:
            finished, pending = cf.wait(pending, timeout=1.0, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                start, got = fut.result()  # (a failed job: Spark's error, the others are cancelled)
                for i, result in enumerate(got):
                    results[start + i] = result
                    if on_result is not None:
                        on_result(start + i, result)
                done_items += len(got)
            now_records, now_bytes = records.value, nbytes.value
            if on_progress is not None and now_bytes > reported:
                on_progress(now_bytes - reported)
                reported = now_bytes
            now = time.monotonic()
            if measure is not None and (now - last_log >= every or not pending):
                minutes = max(now - last_log, 1e-9) / 60
                log.info("%s", progress_line(done_items, len(items), now_records, now_bytes,
                                             (now_records - logged[0]) / minutes, (now_bytes - logged[1]) / minutes,
                                             now - started))
                last_log, logged = now, (now_records, now_bytes)

    with cf.ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        pending = {pool.submit(job, start, chunk) for start, chunk in chunks}
        try:
            _drain()
        except BaseException:
            sc.cancelAllJobs()  # a job failed for good (or the driver is stopped): the others go too
            raise
    return results


def progress_line(done: int, total: int, records: int, nbytes: int, records_per_minute: float,
                  bytes_per_minute: float, seconds: float) -> str:
    """The driver's progress line: ``12 of 40 tasks done in 3.0 min: 1,234,567 records, 5.6 GB of
    input; 412,000 records and 1.9 GB per minute`` (GB = 10**9 bytes)."""
    return (f"{done} of {total} tasks done in {seconds / 60:.1f} min: {records:,} records, "
            f"{nbytes / 1e9:.1f} GB of input; {records_per_minute:,.0f} records and "
            f"{bytes_per_minute / 1e9:.2f} GB per minute")


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
        # cluster gets its interpreter from spark.pyspark.python (docs/operations.md, "On a Spark cluster").
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
