"""The Spark executor's front door: a run on Apache Spark, one task per shard, and its spark-submit driver.

Contract. :func:`run_spark` is :func:`redecode.job.run` with a :class:`redecode.executors.Spark`
executor: the same inputs, plan, per-shard function (:func:`redecode.job.run_shard`), markers,
resume, manifest and parts (identical rows, ``tests/test_spark.py``), plus ``inputs`` and ``out``
as URLs (``s3://...``) and an ``executor`` block in the manifest. :func:`run_task` is one task as
Spark runs it; :func:`main` the ``spark-submit`` driver. The publish protocol (why retries cannot
duplicate rows) is :mod:`redecode.rundir`'s; pyspark is imported by :mod:`redecode.executors`.

Output directory: a local path must be on a filesystem shared by the driver and all executors (it
is, in ``local[N]`` mode); otherwise use a URL. Staging for URL outputs goes to the task's
temporary directory (``TMPDIR``; docs/operations.md, "Object storage").

Deviations from the local executor: ``cpu_seconds`` in the manifest is the driver's plus the sum
of the tasks' (Spark's Python workers are not children of the driver); the manifest gains an
``executor`` block (name, master, Spark version, tasks run, their summed wall and CPU seconds);
parts made under other rules are redone rather than refused.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from redecode.executors import FORWARDED_ENV, Spark
from redecode.index import Index
from redecode.layout import FLAT, Layout
from redecode.job import measure_task, run, run_shard
from redecode.record import DEFAULT_MAX_RECORD_BYTES
from redecode.rules import DEFAULT_RULES, Rules, as_rules
from redecode.rundir import RunSummary, Shard
from redecode.selection import ALL, Selection

__all__ = ["FORWARDED_ENV", "main", "run_spark", "run_task"]


def run_task(shard: Shard | tuple, out: str, rules: Rules | str, max_record_bytes: int) -> dict:
    """Run one shard as a Spark task does and publish its part, then its marker; return the marker.

    ``shard``: a :class:`redecode.rundir.Shard` or its tuple ``(path, index, start, end)``. ``out``:
    the run directory, local (shared) path or URL. ``rules``: a rule set or its name. Errors reading
    the archive are in the marker (``outcome``); other exceptions propagate, so Spark retries.
    """
    if not isinstance(shard, Shard):
        shard = Shard(*shard)
    return run_shard(shard, out=out, rules=as_rules(rules), max_record_bytes=max_record_bytes, staged=True)


def run_spark(
    inputs: list[str],
    out: str,
    *,
    rules: Rules | str = DEFAULT_RULES,
    master: str | None = None,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    force: bool = False,
    shard_bytes: int | None = None,
    app_name: str = "redecode",
    spark_conf: dict[str, str] | None = None,
    forward_env: bool = True,
    on_error: Callable[[str], None] | None = None,
    selection: Selection = ALL,
    list_prefix: str | None = None,
    index: Index | None = None,
    layout: Layout = FLAT,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Re-decode every record of ``inputs`` into run directory ``out`` on Spark; return the summary.

    :func:`redecode.job.run` with :class:`redecode.executors.Spark` (``master``, ``app_name``,
    ``spark_conf``, ``forward_env`` as there; ``master="inline"`` runs the tasks in this process
    without Spark); ``selection``, ``list_prefix``, ``index``, ``layout`` and ``on_progress`` as for
    ``run``. Raises what ``run`` raises, :class:`ImportError` without pyspark (or without
    fsspec/s3fs for URLs), and Spark's error when a task fails for good (shards completed before
    it keep their markers, so a rerun resumes).
    """
    executor = Spark(master, app_name=app_name, conf=spark_conf, forward_env=forward_env, measure=measure_task)
    return run(inputs, out, rules=rules, force=force, max_record_bytes=max_record_bytes,
               shard_bytes=shard_bytes, on_error=on_error, executor=executor, selection=selection,
               list_prefix=list_prefix, index=index, layout=layout, on_progress=on_progress)


# ---------------------------------------------------------------------------------------------
# spark-submit entry point


def main(argv: list[str] | None = None) -> int:
    """Driver entry point for ``spark-submit``: ``main(["INPUT", ..., "--out", "DIR"])`` or
    ``main(["--index", "INDEX", "--prefix", "s3://commoncrawl/", "--where", "SQL", "--out", "DIR"])``,
    with ``--max-part-bytes``, ``--max-part-rows`` and ``--partition-by`` for the layout.

    The same as ``redecode run --executor spark``, for a two-line driver file
    (``import sys; from redecode.spark import main; sys.exit(main())``, see docs/operations.md) where the
    ``redecode`` console script is not at hand. (Not runnable as ``spark-submit .../spark.py``:
    that would put ``lib/redecode`` first on ``sys.path``, where ``http.py`` shadows the standard
    library's.) The master comes from spark-submit. Prints the counts as JSON on stdout; returns
    the run's exit code.
    """
    import argparse  # noqa: PLC0415
    import json  # noqa: PLC0415

    parser = argparse.ArgumentParser(prog="redecode-spark", description=main.__doc__)
    parser.add_argument("inputs", nargs="*")
    parser.add_argument("--out", required=True)
    parser.add_argument("--rules", default=DEFAULT_RULES)
    parser.add_argument("--master", default=None)
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--max-record-bytes", type=int, default=DEFAULT_MAX_RECORD_BYTES)
    parser.add_argument("--normalize", choices=("NFC", "NFKC"), default=None)
    parser.add_argument("--graphemes", action="store_true")
    parser.add_argument("--language", action="store_true")
    parser.add_argument("--index", action="append", default=[])
    parser.add_argument("--where", default=None)
    parser.add_argument("--prefix", default=None)
    parser.add_argument("--max-part-bytes", type=int, default=None)
    parser.add_argument("--max-part-rows", type=int, default=None)
    parser.add_argument("--partition-by", default=None)
    args = parser.parse_args(argv)
    if bool(args.inputs) == bool(args.index):
        parser.error("give INPUT... or --index INDEX (not both)")
    index = None
    if args.index:
        from redecode.index import read_index  # noqa: PLC0415

        index = read_index(args.index, prefix=args.prefix, where=args.where)
    summary = run_spark(
        args.inputs,
        args.out,
        rules=as_rules(args.rules).with_outputs(normalize=args.normalize, graphemes=args.graphemes,
                                                language=args.language),
        master=args.master,
        force=args.force,
        max_record_bytes=args.max_record_bytes,
        on_error=lambda m: print(f"redecode: error: {m}", file=sys.stderr),
        list_prefix=args.prefix,
        index=index,
        layout=Layout(args.max_part_bytes, args.max_part_rows, args.partition_by),
    )
    print(json.dumps({"counts": summary.counts, "executor": summary.manifest["executor"]}, indent=2, sort_keys=True))
    return summary.exit_code

