"""Targeted re-decode after a rules update: a prior run directory + new rules -> the new run directory.

Contract. ``backfill(prior_dir, rules, out)`` writes into ``out`` exactly the run directory that
``redecode run --rules RULES`` over the prior run's inputs would write (same parts, same rows, every
column; same completion markers but for timings), reading the archive again only for the records
whose row can differ (``tests/test_backfill.py`` compares it with a full run for every ordered pair
of shipped rule sets). Each prior row is handled by the first case that applies:

0. **Other row code**: a shard whose marker names another :data:`redecode.rundir.ROW_CODE_VERSION`
   (or none) is read again in full; the record -> row code is not covered by the rules digest.
1. **Same rules** (the row's ``rules_digest`` is the new rules'): copied as is.
2. **Decided before any rule** (:func:`replay_row`): ``skipped`` rows and ``failed`` rows whose
   ``error_kind`` is not ``decode``: copied, with ``rules`` and ``rules_digest`` updated.
3. **Decoded rows the new rules' procedure replays** from the row
   (:meth:`redecode.procedures.Procedure.replay`: the decision from the stored declaration facts,
   the text when :mod:`redecode.equivalence` proves the new decoder gives the prior text).
4. **Everything else** (not replayable, a ``failed``/``decode`` row, a prior row made by rules this
   code no longer knows by digest): read again at ``warc_path`` + ``warc_offset``
   and ``warc_length`` (:func:`redecode.archive.read_records_at`: one ranged read per record) and
   made by :func:`redecode.row.record_row`.

A replayed row's derived columns (the text's lengths and normalised form) are made from its text by
:func:`redecode.row.text_columns`, as a full decode makes them. The prior run's output options
(``run --normalize``, ``--graphemes``: its manifest's rules parameters) are carried over to rules
given without any (:meth:`redecode.rules.Rules.with_outputs`).

The shards are mapped with an executor (:func:`redecode.executors.map_shards`) and written with the
run-directory protocol (:mod:`redecode.rundir`). ``OUT/_run.json`` gets a ``backfill`` section:
``bytes_read`` is the sum of ``warc_length`` over re-read records, ``bytes_full_run`` the sum of the
input sizes, what a full run reads.

Deviations:

- The prior run's ``--max-record-bytes`` is not in its manifest; backfill assumes the one it is
  given (default the job's) and copies ``too-large`` rows as they are.
- Inputs must still be at the prior ``warc_path`` (relative paths: relative to the prior run's
  working directory, its manifest's ``cwd``, else this one); a missing input raises
  :class:`BackfillError` (``tests/test_backfill_paths.py``).
"""

from __future__ import annotations

import functools
import heapq
import itertools
import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import field

import pyarrow as pa
import pyarrow.parquet as pq

from . import storage
from .archive import ArchiveError, read_records_at
from .dataclass_code import dataclass
from .executors import TaskFailed, make_executor, map_shards
from .layout import Layout, PartSequence, parse_partition_folder
from .record import DEFAULT_MAX_RECORD_BYTES
from .row import IDENTITY_NOTE, IDENTITY_VALIDATION, record_row, text_columns
from .rules import Rules, as_rules, known_rules
from .rundir import (
    MANIFEST,
    DamagedRunError,
    ROW_CODE_VERSION,
    RunClock,
    RunDirectory,
    RunSummary,
    Shard,
    ShardCounts,
    Task,
    files_not_read,
    is_part_name,
    list_parts,
    manifest_inputs,
    marker_is_valid,
    marker_key_of,
    marker_path,
    publish_shard,
    publish_task,
    remade_marker,
    shard_markers,
    stem_of,
    task_marker,
    write_marker,
)
from .selection import Selection
from .schema import (
    SCHEMA_VERSION,
    STATUS_DECODED,
    STATUS_FAILED,
    STATUS_SKIPPED,
    SchemaVersionError,
    check_schema_version,
    columns_of,
)
from .writer import PartWriter

__all__ = ["BackfillError", "BackfillSummary", "backfill", "replay_row"]

#: Columns a prior part must have for its decisions to be replayed (schema 1.1: meta_source,
#: xml_encoding; 1.2: browser_encoding, which every row carries whatever the rules); older parts
#: are still backfilled, but every decoded row is read again.
REPLAY_COLUMNS = ("meta_source", "xml_encoding", "browser_encoding")


class BackfillError(RuntimeError):
    """The prior run directory cannot be backfilled (missing manifest, part or input; unreadable
    schema). The message names what is missing."""


@dataclass(slots=True)
class BackfillSummary(RunSummary):
    """What a backfill did: a :class:`redecode.job.RunSummary` whose manifest (``OUT/_run.json``)
    has a ``backfill`` section, and the errors of inputs not read to their end in the prior run
    (``errors``: :attr:`exit_code` is 1 when there are any) and in an earlier run into the output
    directory, whose inputs the manifest still lists (``earlier_errors``: not this backfill's)."""

    earlier_errors: list[str] = field(default_factory=list)

    @property
    def stats(self) -> dict:
        return self.manifest["backfill"]

    def describe(self) -> str:
        """One line, e.g. ``re-read 412 of 5,835 records, 11.2% of the bytes a full run reads``."""
        s = self.stats
        return (
            f"re-read {s['rows_reread']:,} of {s['rows']:,} records, "
            f"{100 * s['bytes_fraction']:.1f}% of the bytes a full run reads "
            f"({s['bytes_read']:,} of {s['bytes_full_run']:,} bytes); copied {s['rows_copied']:,}"
        )


# ---------------------------------------------------------------------------------------------
# replaying a row


def replay_row(row: dict, old: Rules, new: Rules, *, replayable: bool) -> dict | None:
    """The row ``record_row(record, new)`` would give, made from the prior *row* (made by *old*),
    or None when the record must be read again. *replayable*: the row has the schema 1.1 replay
    columns. Statuses made before any rule is consulted are copied; a decoded row's decision
    columns come from the new rules' procedure (:meth:`redecode.procedures.Procedure.replay`), its
    derived columns from its text (:func:`redecode.row.text_columns`; the prior row's where the text
    and the output options are the same)."""
    status = row["status"]
    if bool(old.identity_fallback) != bool(new.identity_fallback) and (
            (status == STATUS_FAILED and row.get("error_kind") == "content-encoding")
            or IDENTITY_NOTE in (row.get("warning") or "")):
        return None  # the body may be text in no coding: one rule set decodes it, the other fails
    if status == STATUS_SKIPPED or (status == STATUS_FAILED and row.get("error_kind") != "decode"):
        out = dict(row)
        out["rules"], out["rules_digest"] = new.name, new.digest
        return out
    if status != STATUS_DECODED or not replayable:
        return None
    columns = new.steps.replay(row, old, new)
    if columns is None:
        return None
    out = dict(row)
    out.update(columns, rules=new.name, rules_digest=new.digest)
    if out["validation"] is None and IDENTITY_NOTE in (row.get("warning") or ""):
        out["validation"] = IDENTITY_VALIDATION  # as record_row gives a body decoded as identity
        out["verdict"] = "identity"
    if old.outputs() == new.outputs() and out["text"] == row["text"] and row.get("text_bytes") is not None:
        # The same text under the same output options (and Unicode data: both digests are this
        # code's): the prior derived columns are the new ones, grapheme clusters included.
        return out
    return text_columns(out, new)


# ---------------------------------------------------------------------------------------------
# one shard


def _backfill_shard(prior_dir: str, marker: dict, out: str, new: Rules,
                    max_record_bytes: int, base: str | None = None, prior_outputs: dict | None = None
                    ) -> tuple[dict, dict]:
    """Write the new part and marker of one prior shard into directory *out*; return ``(marker,
    stats)``. *base*: the prior run's working directory, against which relative input paths are
    resolved (see :func:`_locate`); *prior_outputs*: the prior run's output options
    (:func:`_prior_outputs`), with which its rows' rules are looked up."""
    started, cpu_started = time.perf_counter(), time.process_time()
    read_from = _locate(marker["path"], base)  # every row of the shard is a record of this input
    part_path = storage.join(prior_dir, marker["part"])
    source, pf = _open_part(part_path)
    with source:
        return _backfill_part(pf, part_path, marker, out, new, max_record_bytes, read_from, started, cpu_started,
                              prior_outputs)


def _prior_rows(pf: pq.ParquetFile, part_path: str) -> Iterator[list[dict]]:
    """The rows of a prior part, 2048 at a time; a row group that does not decode (a byte flipped
    in a page: a decompression error, invalid UTF-8) raises :class:`redecode.rundir.DamagedRunError`."""
    batches = pf.iter_batches(batch_size=2048)
    while True:
        try:
            batch = next(batches, None)
            rows = batch.to_pylist() if batch is not None else None
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise DamagedRunError(part_path, f"cannot be read ({' '.join(str(exc).split())})") from None
        if rows is None:
            return
        yield rows


def _open_part(part_path: str, part: str = "") -> tuple:
    """``(open file, pyarrow.parquet.ParquetFile)`` of a prior part, after checking what can be
    checked without reading its rows: a footer that reads, a schema version this code knows, every
    column of that version (:func:`redecode.schema.columns_of`; but the one a partition folder of
    ``part``, its name in the run directory, names). Raises
    :class:`redecode.rundir.DamagedRunError` or :class:`BackfillError` (an unknown schema)."""
    try:
        source = storage.open_input(part_path)  # a URL: ranged reads of the footer and row groups
    except OSError as exc:
        raise BackfillError(f"prior part {part_path} cannot be read: {exc}") from None
    try:
        pf = pq.ParquetFile(source)
        version = check_schema_version(pf.schema_arrow.metadata, part_path)
    except SchemaVersionError as exc:
        source.close()
        raise BackfillError(str(exc)) from None
    except (OSError, ValueError, pa.ArrowException) as exc:
        source.close()
        raise DamagedRunError(part_path, f"cannot be read ({' '.join(str(exc).split())})") from None
    folder = part.rpartition("/")[0]
    named = parse_partition_folder(folder) if folder else None
    missing = [c for c in columns_of(version)
               if c not in pf.schema_arrow.names and (named is None or c != named[0])]
    if missing:
        source.close()
        raise DamagedRunError(part_path, f"lacks column(s) {', '.join(missing)}, which its schema version "
                                         f"{version} has (renamed or removed by another tool)")
    return source, pf


def _backfill_part(pf: pq.ParquetFile, part_path: str, marker: dict, out: str, new: Rules, max_record_bytes: int,
                   read_from: str, started: float, cpu_started: float, prior_outputs: dict | None
                   ) -> tuple[dict, dict]:
    """The body of :func:`_backfill_shard` over the open prior part ``pf``."""
    version = _version(pf, part_path)
    replayable = all(c in pf.schema_arrow.names for c in REPLAY_COLUMNS)
    counts = _status_counts_reset(marker)
    stats = {"rows": 0, "rows_copied": 0, "rows_reread": 0, "bytes_read": 0, "prior_schema": version,
             "prior_row_code": marker.get("row_code_version")}
    rows = (row for batch in _prior_rows(pf, part_path) for row in batch)
    with PartWriter(
        os.path.join(out, marker["part"]),
        extra_metadata={"redecode.rules": new.name, "redecode.rules_digest": new.digest},
    ) as writer:
        for _, new_row in _remake(rows, new, stats, replayable=replayable,
                                  same_code=marker.get("row_code_version") == ROW_CODE_VERSION,
                                  prior_outputs=prior_outputs, max_record_bytes=max_record_bytes,
                                  locate=lambda _path: read_from):
            counts.add_row(new_row)
            writer.write(new_row)
    new_marker = remade_marker(marker, new, counts=counts, wall_seconds=round(time.perf_counter() - started, 3),
                               cpu_seconds=round(time.process_time() - cpu_started, 3))
    write_marker(out, new_marker)
    return new_marker, stats


def _version(pf: pq.ParquetFile, part_path: str) -> str:
    try:
        return check_schema_version(pf.schema_arrow.metadata, part_path)
    except SchemaVersionError as exc:
        raise BackfillError(str(exc)) from None


def _status_counts_reset(marker: dict) -> ShardCounts:
    """A shard marker's counts with the status counts at 0: they are recomputed from the new rows;
    the rest (record types, bytes, an index's selected and missing) are facts of the archive and
    carry over."""
    counts = ShardCounts.from_json(marker["counts"])
    counts.records_seen = counts.decoded = counts.skipped = counts.failed = 0
    counts.by_skip_reason.clear()
    counts.by_error_kind.clear()
    return counts


def _remake(rows: Iterator[dict], new: Rules, stats: dict, *, replayable: bool, same_code: bool,
            prior_outputs: dict | None, max_record_bytes: int, locate) -> Iterator[tuple[dict, dict]]:
    """``(prior row, new row)`` for each prior row of ``rows`` (in record order), 2048 at a time:
    copied, replayed (:func:`replay_row`), or, when neither can be, its record read again
    (:func:`_reread`, the rows of one input together; ``locate(warc_path)``: where to read it). Rows
    made by another version of the job's record -> row code (``same_code`` False: status, skips,
    HTTP handling are not covered by the rules digest) are all read again. ``stats`` gets the
    counts of rows copied and re-read and the bytes re-read."""
    while True:
        batch = list(itertools.islice(rows, 2048))
        if not batch:
            return
        made: list[dict | None] = []
        for row in batch:
            for c in REPLAY_COLUMNS + ("validation", "verdict"):
                row.setdefault(c, None)
            new_row = None
            if not same_code:
                pass
            elif row["rules_digest"] == new.digest and replayable:
                new_row = row
            else:
                old = known_rules(row["rules"], row["rules_digest"], **(prior_outputs or {}))
                if old is not None:
                    new_row = replay_row(row, old, new, replayable=replayable)
            made.append(new_row)
        # the rows that cannot be replayed: their records read again, one ranged read each, the
        # rows of one input together, in the file's order
        reread = [r for r, m in zip(batch, made) if m is None]
        again = iter([new_row for _, group in itertools.groupby(reread, key=lambda r: r["warc_path"])
                      for rows_of in [list(group)]
                      for new_row in _reread(rows_of, new, max_record_bytes, locate(rows_of[0]["warc_path"]))])
        for row, new_row in zip(batch, made):
            stats["rows"] += 1
            if new_row is None:
                new_row = next(again)
                stats["rows_reread"] += 1
                stats["bytes_read"] += row["warc_length"] or 0
            else:
                stats["rows_copied"] += 1
            yield row, new_row


# ---------------------------------------------------------------------------------------------
# one task of a bounded layout


def _backfill_bounded(prior_dir: str, marker: dict, out: str, new: Rules, max_record_bytes: int,
                      base: str | None = None, prior_outputs: dict | None = None) -> tuple[dict, dict]:
    """Write the new parts and marker of one prior task of a bounded layout (:mod:`redecode.layout`)
    into directory *out*; return ``(marker, stats)``. The task's prior parts (in every partition
    folder, the folder's column given back to each row) are merged into record order (the order of
    the task's shards, then the offset), which is the order a run with the new rules writes them
    in, so the new parts are cut where that run cuts them."""
    started, cpu_started = time.perf_counter(), time.process_time()
    layout = Layout.from_json(marker.get("layout"))
    shards = marker["shards"]
    position: dict[str, list[tuple[int, int]]] = {}
    for i, m in enumerate(shards):
        position.setdefault(m["path"], []).append((m["start"], i))
    sources, iterators, versions, replayable = [], [], set(), True
    try:
        for part in marker["parts"]:
            part_path = storage.join(prior_dir, part)
            source, pf = _open_part(part_path, part)
            sources.append(source)
            versions.add(_version(pf, part_path))
            replayable = replayable and all(c in pf.schema_arrow.names for c in REPLAY_COLUMNS)
            iterators.append(_part_rows(pf, part, part_path))

        def order(row: dict) -> tuple[int, int]:
            at = position.get(row["warc_path"]) or [(0, len(shards))]
            shard = max((i for start, i in at if start <= row["warc_offset"]), default=at[0][1])
            return shard, row["warc_offset"]

        counts = [_status_counts_reset(m) for m in shards]
        stats = {"rows": 0, "rows_copied": 0, "rows_reread": 0, "bytes_read": 0,
                 "prior_schema": min(versions) if versions else SCHEMA_VERSION,
                 "prior_row_code": shards[0].get("row_code_version") if shards else ROW_CODE_VERSION}
        merged = heapq.merge(*iterators, key=order)
        same_code = all(m.get("row_code_version") == ROW_CODE_VERSION for m in shards)
        with PartSequence(out, marker["task"], layout,
                          extra_metadata={"redecode.rules": new.name, "redecode.rules_digest": new.digest}) as seq:
            for row, new_row in _remake(merged, new, stats, replayable=replayable, same_code=same_code,
                                        prior_outputs=prior_outputs, max_record_bytes=max_record_bytes,
                                        locate=lambda path: _locate(path, base)):
                counts[order(row)[0]].add_row(new_row)
                seq.write(new_row)
            parts = seq.close()
    finally:
        for source in sources:
            source.close()
    wall, cpu = round(time.perf_counter() - started, 3), round(time.process_time() - cpu_started, 3)
    remade = [remade_marker(m, new, counts=c, wall_seconds=wall if i == 0 else 0.0, cpu_seconds=cpu if i == 0 else 0.0)
              for i, (m, c) in enumerate(zip(shards, counts))]
    task = Task(marker["task"], ())
    new_marker = task_marker(task, layout, parts, remade)
    write_marker(out, new_marker)
    return new_marker, stats


def _part_rows(pf: pq.ParquetFile, part: str, part_path: str) -> Iterator[dict]:
    """The rows of a prior part, with the column its partition folder names (if any) given back
    (a page that does not decode: :class:`redecode.rundir.DamagedRunError`, :func:`_prior_rows`)."""
    folder = part.rpartition("/")[0]
    named = parse_partition_folder(folder) if folder else None
    for batch in _prior_rows(pf, part_path):
        for row in batch:
            if named is not None:
                row[named[0]] = named[1]
            yield row


def _backfill_task(prior_dir: str, out: str, rules: Rules | str, max_record_bytes: int,
                   marker: dict, base: str | None = None, *, staged: bool = True,
                   prior_outputs: dict | None = None, lock_id: str | None = None) -> tuple[dict, dict]:
    """The per-task function of a backfill: :func:`_backfill_shard` (a flat layout's shard) or
    :func:`_backfill_bounded` (a bounded layout's task) published into *out*
    (:func:`redecode.rundir.publish_task`; ``staged``, as executors whose attempts may run twice
    need, a retried attempt replaces the parts under their names, never adds rows). ``rules``: a
    rule set or its name (a task's entry point). ``lock_id``: the run's id in an object store's lock,
    checked before publishing."""
    new = as_rules(rules)
    if "shards" in marker:
        result: list = []

        def work(directory: str) -> dict:
            result[:] = [_backfill_bounded(prior_dir, marker, directory, new, max_record_bytes, base, prior_outputs)]
            return result[0][0]

        publish_task(out, marker["task"], work, staged=staged, lock_id=lock_id)
        return result[0]
    result = []

    def work_shard(directory: str) -> dict:
        result[:] = [_backfill_shard(prior_dir, marker, directory, new, max_record_bytes, base, prior_outputs)]
        return result[0][0]

    publish_shard(out, marker["part"], work_shard, staged=staged, lock_id=lock_id)
    return result[0]


def _absolute(path: str) -> str:
    """A local path made absolute; a URL as it is."""
    return path if storage.is_remote(path) else os.path.abspath(path)


def _locate(path: str, base: str | None) -> str:
    """Where to read input *path* of a prior run: a relative path is taken relative to *base*,
    the directory the prior run ran in (its manifest's ``cwd``), when it exists there, else
    relative to the current directory; absolute paths and URLs as they are."""
    return storage.locate(path, (base,))


def _reread(rows: list[dict], new: Rules, max_record_bytes: int, read_from: str | None = None) -> Iterator[dict]:
    """The rows of *rows*' records (rows of one input, in its order) under rules *new*, read
    again from the input at *read_from* (default: the rows' ``warc_path``) by their offsets and
    lengths (:func:`redecode.archive.read_records_at`: one ranged read each); each new row keeps
    its prior ``warc_path``. Raises :class:`BackfillError` for a record that cannot be read."""
    if not rows:
        return
    path = rows[0]["warc_path"]
    stream = read_records_at(read_from or path, [(r["warc_offset"], r["warc_length"]) for r in rows],
                             max_record_bytes=max_record_bytes)
    for row in rows:
        try:
            record = next(stream, None)
        except (ArchiveError, OSError) as exc:
            raise _cannot_reread(row, exc) from None
        if stream.damaged or record is None:
            damage = stream.damaged[0] if stream.damaged else None
            raise _cannot_reread(row, damage.error if damage else "no record there")
        new_row = record_row(record, new)
        new_row["warc_path"] = row["warc_path"]  # as the prior run (and a full run from its directory) names it
        yield new_row


def _cannot_reread(row: dict, why: object) -> BackfillError:
    return BackfillError(
        f"cannot read the record at offset {row['warc_offset']} of {row['warc_path']} again ({why}); "
        "backfill needs the prior run's inputs at the same paths"
    )


# ---------------------------------------------------------------------------------------------
# the backfill


def _load_prior(prior_dir: str) -> tuple[dict, list[dict]]:
    manifest_path = storage.join(prior_dir, MANIFEST)
    try:
        manifest = json.loads(storage.read_bytes(manifest_path))
    except FileNotFoundError:
        raise BackfillError(f"{prior_dir} is not a finished run directory: no _run.json") from None
    except json.JSONDecodeError as exc:
        raise BackfillError(f"{manifest_path}: not JSON ({exc})") from None
    version = str(manifest.get("schema_version", ""))
    if not version or version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise BackfillError(
            f"{manifest_path}: schema version {version or '(none)'}; this redecode backfills "
            f"{SCHEMA_VERSION.split('.')[0]}.x outputs. Run `redecode run` on the archives instead"
        )
    markers = []
    entries = manifest_inputs(prior_dir, manifest)
    manifest["inputs"] = entries  # (a large run's are in its per-input table)
    bounded = not Layout.from_json(manifest.get("layout")).flat
    present = set(list_parts(prior_dir)) if bounded else set(storage.listdir(prior_dir))
    tasks: set[str] = set()
    for entry in entries:
        for part in entry.get("parts") or ([entry["part"]] if entry.get("part") else []):
            if not is_part_name(part):
                raise BackfillError(f"{manifest_path}: {part!r} is not a part file name; the manifest "
                                    "has been edited or damaged. Run `redecode run` on the archives instead")
            if part not in present:
                raise BackfillError(f"{prior_dir}: part {part} named in _run.json is missing")
            source, _ = _open_part(storage.join(prior_dir, part), part)  # a damaged part: before --out is made
            source.close()
            stem = marker_key_of(part) if bounded else stem_of(part)
            if stem in tasks:
                continue
            tasks.add(stem)
            mpath = marker_path(prior_dir, stem)
            try:
                marker = json.loads(storage.read_bytes(mpath))
            except FileNotFoundError:
                raise BackfillError(f"{prior_dir}: completion marker {mpath} of {part} is missing") from None
            if not marker_is_valid(marker, stem) or (bounded and "shards" not in marker):
                raise BackfillError(f"{mpath}: not the completion marker of {part} (edited or damaged); "
                                    "run `redecode run` on the archives instead")
            markers.append(marker)
        if not storage.exists(_locate(entry["path"], manifest.get("cwd"))):
            where = (f"neither in {manifest['cwd']} (where the prior run ran) nor here"
                     if manifest.get("cwd") and not os.path.isabs(entry["path"]) else "not there")
            raise BackfillError(
                f"input {entry['path']} of {prior_dir} is {where}; backfill reads it again for the "
                "records whose result can change"
            )
    return manifest, markers


def _prior_outputs(manifest: dict) -> dict:
    """The output options (:meth:`redecode.rules.Rules.with_outputs` keywords) a prior run was made
    with, from its manifest's rules parameters (absent: none)."""
    params = (manifest.get("rules") or {}).get("parameters") or {}
    return {"normalize": params.get("normalize"), "graphemes": bool(params.get("graphemes")),
            "language": bool(params.get("language"))}


def backfill(
    prior_dir: str,
    rules: Rules | str,
    out: str,
    *,
    workers: int | None = 1,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    executor: str = "local",
    master: str | None = None,
    force: bool = False,
) -> BackfillSummary:
    """Write into run directory *out* what ``redecode run --rules RULES`` over the inputs of
    run directory *prior_dir* would write, re-reading only records whose row can change (see the
    module docstring). *rules*: a rule set or the name of a shipped one (looked up once, here);
    rules without output options get the prior run's (``run --normalize``, ``--graphemes``).
    ``workers``: processes over the prior shards (None: all cores). ``executor``: ``"local"``
    (processes, ``workers``) or ``"spark"``: one task per prior shard through
    :func:`redecode.executors.map_shards` with ``master`` (a Spark master URL, None for
    spark-submit's, ``"inline"`` for this process without Spark); each task stages its part and
    marker and publishes them (:func:`redecode.rundir.publish_shard`), so a retried task replaces
    its part, never adds rows. *out* (and *prior_dir*, and the inputs) must then be on a filesystem
    every executor sees (they are in ``local[N]``). The manifest then gains an ``executor`` block.

    Returns a :class:`BackfillSummary`; ``OUT/_run.json`` is the job's manifest plus a
    ``backfill`` section (``prior_dir``, ``prior_rules``, ``rows``, ``rows_reread``,
    ``rows_copied``, ``bytes_read`` (sum of ``warc_length`` of re-read records, bytes),
    ``bytes_full_run`` (sum of input sizes, bytes), ``bytes_fraction``, ``wall_seconds``).

    *out* follows ``redecode run``'s rules for a run directory: when it already holds parts made
    under other rules (or by another :data:`redecode.rundir.ROW_CODE_VERSION`),
    :class:`redecode.rundir.RunDirectoryConflict` is raised and nothing is written, unless ``force``
    (those parts are then removed); parts of other inputs made under the same rules stay and are
    listed in the manifest, as after a run that adds archives.

    Raises :class:`BackfillError` (prior directory incomplete, of an unknown schema major version,
    input missing), :class:`redecode.rundir.DamagedRunError` for a prior part cut short, damaged or
    lacking a column (its footer and columns are checked before ``out`` is made; a damaged page is
    met while its rows are read: an ``out`` this call made is then removed), :class:`KeyError` for
    unknown rules, :class:`redecode.rundir.RunDirectoryLocked`,
    :class:`redecode.rundir.RunDirectoryConflict`,
    :class:`ValueError` for an unknown ``executor``, :class:`ImportError` for ``"spark"`` without
    pyspark (unless ``master="inline"``).
    """
    runner = make_executor(executor, workers=workers, master=master)
    clock = RunClock.start()
    new = as_rules(rules)
    prior_dir, out = storage.local_path(prior_dir).rstrip("/") or "/", storage.local_path(out)
    if _absolute(prior_dir) == _absolute(out.rstrip("/") or "/"):
        raise BackfillError("--out must differ from the prior run directory")
    manifest, markers = _load_prior(prior_dir)
    prior_outputs = _prior_outputs(manifest)
    if not (new.normalize or new.graphemes or new.language):
        new = new.with_outputs(**prior_outputs)
    base = manifest.get("cwd")
    # the prior run's record selection (--limit, --sample): the output is what `run` with it gives
    selection = Selection.from_json(manifest.get("selection"))
    staged = runner.staged or storage.is_remote(out)
    layout = Layout.from_json(manifest.get("layout"))
    created = not storage.exists(out)
    try:
        return _backfill_into(prior_dir, out, manifest, markers, new, runner, clock, prior_outputs, base,
                              selection, staged, layout, force=force, max_record_bytes=max_record_bytes)
    except (DamagedRunError, TaskFailed) as exc:
        if created and getattr(exc, "exit_code", 1) == DamagedRunError.exit_code:
            # a prior part found damaged while its rows were read (a page; its footer is checked
            # before --out is made): nothing of this output can be finished, and it was this
            # command's alone
            _remove_tree(out)
        raise


def _remove_tree(out: str) -> None:
    """Remove directory ``out`` and everything in it (local, or every object under a URL)."""
    if not storage.is_remote(out):
        shutil.rmtree(out, ignore_errors=True)
        return
    for url in storage.find(out):
        storage.remove(url)


def _backfill_into(prior_dir, out, manifest, markers, new, runner, clock, prior_outputs, base, selection, staged,
                   layout, *, force, max_record_bytes) -> BackfillSummary:
    """The body of :func:`backfill` once the prior run is loaded and checked: the output directory
    opened, the prior tasks remade into it, the manifest written."""
    with RunDirectory(out, new, force=force, foreign="refuse", selection=selection, layout=layout) as rd:
        # a task on another machine (or in a Spark worker's directory) needs absolute paths
        where = (_absolute(prior_dir), _absolute(out)) if runner.staged else (prior_dir, out)
        rd.start([Task(m["task"], tuple(Shard(s["path"], s["shard"], s["start"], s["end"]) for s in m["shards"]))
                  if "shards" in m else Task(stem_of(m["part"]), (Shard(m["path"], m["shard"], m["start"], m["end"]),))
                  for m in markers])
        shard_fn = functools.partial(_backfill_task, *where, new, max_record_bytes, base=base, staged=staged,
                                     prior_outputs=prior_outputs, lock_id=rd.lock_id)
        done = map_shards(shard_fn, markers, runner,
                          description=f"redecode backfill {len(markers)} task(s) -> {out}")
        rd.add([marker for marker, _ in done])
        new_markers = {(m["path"], m["shard"]): m for marker, _ in done for m in shard_markers(marker)}
        results = {key: pair for key, pair in enumerate(done)}
        paths = [entry["path"] for entry in manifest["inputs"]]
        shards = [Shard(m["path"], m["shard"], m["start"], m["end"]) for m in new_markers.values()]
        rd.remove_stale_parts(paths, shards)
        # inputs completed in *out* earlier under the same rules stay, and so in the manifest
        earlier_paths, earlier_shards, earlier_markers = rd.earlier_inputs(paths)
        new_markers.update(earlier_markers)
        run_manifest = rd.manifest(paths + earlier_paths, shards + earlier_shards, new_markers, clock)
        ours = set(paths)  # (a set once: 100,000 inputs are compared with it)
        full = sum(e["size"] for e in run_manifest["inputs"] if e["path"] in ours)
        stats = {"rows": 0, "rows_copied": 0, "rows_reread": 0, "bytes_read": 0}
        prior_schemas, prior_codes = set(), set()
        for _, s in results.values():
            for k in stats:
                stats[k] += s[k]
            prior_schemas.add(s["prior_schema"])
            prior_codes.add(str(s["prior_row_code"]))
        # A backfill lists no inputs of its own: its rows stand for the prior run's inputs, so the
        # files that run's listing passed over are still not read (and still reported).
        run_manifest["files_not_read"] = manifest.get("files_not_read") or files_not_read([])
        if manifest.get("selection"):
            run_manifest["selection"] = manifest["selection"]  # (inputs_not_reached included)
        if base:
            run_manifest["cwd"] = base  # the inputs' relative paths are still the prior run's
        run_manifest["backfill"] = {
            "prior_dir": _absolute(prior_dir),
            "prior_rules": manifest.get("rules"),
            "prior_schema_versions": sorted(prior_schemas),
            # "None": made before ROW_CODE_VERSION existed; such shards are read again in full.
            "prior_row_code_versions": sorted(prior_codes),
            **stats,
            "bytes_full_run": full,
            "bytes_fraction": round(stats["bytes_read"] / full, 6) if full else 0.0,
            "max_record_bytes": max_record_bytes,
            "wall_seconds": clock.wall_seconds(),
        }
        if runner.info is not None:
            run_manifest["executor"] = dict(
                runner.info, tasks=len(done),
                task_cpu_seconds=round(sum(m.get("cpu_seconds", 0.0) for m in new_markers.values()), 3))
        rd.write_manifest(run_manifest)
    # only the prior run's inputs are this backfill's: an input cut short in an earlier run into
    # *out* is that run's (still listed, as it was)
    ours = set(paths)
    errors = [entry["error"] for entry in run_manifest["inputs"] if entry["error"] and entry["path"] in ours]
    earlier = [entry["error"] for entry in run_manifest["inputs"] if entry["error"] and entry["path"] not in ours]
    return BackfillSummary(manifest=run_manifest, errors=errors, earlier_errors=earlier)
