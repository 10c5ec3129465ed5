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
   (:func:`redecode.archive.read_record_at`) and made by :func:`redecode.row.record_row`.

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
import json
import os
import time
from dataclasses import dataclass

import pyarrow.parquet as pq

from . import storage
from .archive import ArchiveError, read_record_at
from .executors import make_executor, map_shards
from .record import DEFAULT_MAX_RECORD_BYTES
from .row import IDENTITY_NOTE, IDENTITY_VALIDATION, record_row, text_columns
from .rules import Rules, as_rules, known_rules
from .rundir import (
    MANIFEST,
    ROW_CODE_VERSION,
    RunClock,
    RunDirectory,
    RunSummary,
    Shard,
    ShardCounts,
    files_not_read,
    is_part_name,
    marker_is_valid,
    marker_path,
    publish_shard,
    remade_marker,
    stem_of,
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
    has a ``backfill`` section, and the errors of inputs not read to their end in the prior run."""

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
    try:
        source = storage.open_input(part_path)  # a URL: ranged reads of the footer and row groups
        pf = pq.ParquetFile(source)
    except (OSError, ValueError) as exc:
        raise BackfillError(f"prior part {part_path} cannot be read: {exc}") from None
    with source:
        return _backfill_part(pf, part_path, marker, out, new, max_record_bytes, read_from, started, cpu_started,
                              prior_outputs)


def _backfill_part(pf: pq.ParquetFile, part_path: str, marker: dict, out: str, new: Rules, max_record_bytes: int,
                   read_from: str, started: float, cpu_started: float, prior_outputs: dict | None
                   ) -> tuple[dict, dict]:
    """The body of :func:`_backfill_shard` over the open prior part ``pf``."""
    try:
        version = check_schema_version(pf.schema_arrow.metadata, part_path)
    except SchemaVersionError as exc:
        raise BackfillError(str(exc)) from None
    names = set(pf.schema_arrow.names)
    replayable = all(c in names for c in REPLAY_COLUMNS)
    # Rows made by another version of the job's record -> row code (status, skips, HTTP handling;
    # not covered by the rules digest) may differ under the same rules: read them all again.
    same_code = marker.get("row_code_version") == ROW_CODE_VERSION
    counts = ShardCounts.from_json(marker["counts"])
    # Status counts are recomputed from the rows; the rest (record types, bytes) are facts of the
    # archive and carry over.
    counts.records_seen = counts.decoded = counts.skipped = counts.failed = 0
    counts.by_skip_reason.clear()
    counts.by_error_kind.clear()
    stats = {"rows": 0, "rows_copied": 0, "rows_reread": 0, "bytes_read": 0, "prior_schema": version,
             "prior_row_code": marker.get("row_code_version")}
    with PartWriter(
        os.path.join(out, marker["part"]),
        extra_metadata={"redecode.rules": new.name, "redecode.rules_digest": new.digest},
    ) as writer:
        for batch in pf.iter_batches(batch_size=2048):
            for row in batch.to_pylist():
                for c in REPLAY_COLUMNS + ("validation",):
                    row.setdefault(c, None)
                stats["rows"] += 1
                new_row = None
                if not same_code:
                    pass
                elif row["rules_digest"] == new.digest and replayable:
                    new_row = row
                else:
                    old = known_rules(row["rules"], row["rules_digest"], **(prior_outputs or {}))
                    if old is not None:
                        new_row = replay_row(row, old, new, replayable=replayable)
                if new_row is None:
                    new_row = _reread(row, new, max_record_bytes, read_from)
                    stats["rows_reread"] += 1
                    stats["bytes_read"] += row["warc_length"] or 0
                else:
                    stats["rows_copied"] += 1
                counts.add_row(new_row)
                writer.write(new_row)
    new_marker = remade_marker(marker, new, counts=counts, wall_seconds=round(time.perf_counter() - started, 3),
                               cpu_seconds=round(time.process_time() - cpu_started, 3))
    write_marker(out, new_marker)
    return new_marker, stats


def _backfill_task(prior_dir: str, out: str, rules: Rules | str, max_record_bytes: int,
                   marker: dict, base: str | None = None, *, staged: bool = True,
                   prior_outputs: dict | None = None) -> tuple[dict, dict]:
    """The per-shard function of a backfill: :func:`_backfill_shard` published into *out*
    (:func:`redecode.rundir.publish_shard`; ``staged``, as executors whose attempts may run twice
    need, a retried attempt replaces the part under its one name, never adds rows). ``rules``: a
    rule set or its name (a task's entry point)."""
    new = as_rules(rules)
    return publish_shard(out, marker["part"],
                         lambda directory: _backfill_shard(prior_dir, marker, directory, new, max_record_bytes, base,
                                                           prior_outputs),
                         staged=staged)


def _absolute(path: str) -> str:
    """A local path made absolute; a URL as it is."""
    return path if storage.is_remote(path) else os.path.abspath(path)


def _locate(path: str, base: str | None) -> str:
    """Where to read input *path* of a prior run: a relative path is taken relative to *base*,
    the directory the prior run ran in (its manifest's ``cwd``), when it exists there, else
    relative to the current directory; absolute paths and URLs as they are."""
    if base and not os.path.isabs(path) and not storage.is_remote(path):
        there = os.path.join(base, path)
        if os.path.exists(there):
            return there
    return path


def _reread(row: dict, new: Rules, max_record_bytes: int, read_from: str | None = None) -> dict:
    """The row of *row*'s record under rules *new*, read again from the input at *read_from*
    (default: the row's ``warc_path``); the new row keeps the prior ``warc_path``."""
    path, offset = row["warc_path"], row["warc_offset"]
    try:
        record = read_record_at(read_from or path, offset, max_record_bytes=max_record_bytes)
    except (ArchiveError, OSError) as exc:
        raise BackfillError(
            f"cannot read the record at offset {offset} of {path} again ({exc}); backfill needs "
            "the prior run's inputs at the same paths"
        ) from None
    new_row = record_row(record, new)
    new_row["warc_path"] = path  # as the prior run (and a full run from its directory) names it
    return new_row


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
    present = set(storage.listdir(prior_dir))
    for entry in manifest.get("inputs", []):
        for part in entry.get("parts") or ([entry["part"]] if entry.get("part") else []):
            if not is_part_name(part):
                raise BackfillError(f"{manifest_path}: {part!r} is not a part file name; the manifest "
                                    "has been edited or damaged. Run `redecode run` on the archives instead")
            mpath = marker_path(prior_dir, stem_of(part))
            try:
                marker = json.loads(storage.read_bytes(mpath))
            except FileNotFoundError:
                raise BackfillError(f"{prior_dir}: completion marker {mpath} of {part} is missing") from None
            if not marker_is_valid(marker, stem_of(part)):
                raise BackfillError(f"{mpath}: not the completion marker of {part} (edited or damaged); "
                                    "run `redecode run` on the archives instead")
            if part not in present:
                raise BackfillError(f"{prior_dir}: part {part} named in _run.json is missing")
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
    return {"normalize": params.get("normalize"), "graphemes": bool(params.get("graphemes"))}


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
    input missing), :class:`KeyError` for unknown rules, :class:`redecode.rundir.RunDirectoryLocked`,
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
    if not (new.normalize or new.graphemes):
        new = new.with_outputs(**prior_outputs)
    base = manifest.get("cwd")
    # the prior run's record selection (--limit, --sample): the output is what `run` with it gives
    selection = Selection.from_json(manifest.get("selection"))
    staged = runner.staged or storage.is_remote(out)
    with RunDirectory(out, new, force=force, foreign="refuse", selection=selection) as rd:
        # a task on another machine (or in a Spark worker's directory) needs absolute paths
        where = (_absolute(prior_dir), _absolute(out)) if runner.staged else (prior_dir, out)
        shard_fn = functools.partial(_backfill_task, *where, new, max_record_bytes, base=base, staged=staged,
                                     prior_outputs=prior_outputs)
        done = map_shards(shard_fn, markers, runner,
                          description=f"redecode backfill {len(markers)} shard(s) -> {out}")
        results = {(m["path"], m["shard"]): result for m, result in zip(markers, done)}
        paths = [entry["path"] for entry in manifest["inputs"]]
        shards = [Shard(m["path"], m["shard"], m["start"], m["end"]) for m in markers]
        new_markers = {k: v[0] for k, v in results.items()}
        rd.remove_stale_parts(paths, shards)
        # inputs completed in *out* earlier under the same rules stay, and so in the manifest
        earlier_paths, earlier_shards, earlier_markers = rd.earlier_inputs(paths)
        new_markers.update(earlier_markers)
        run_manifest = rd.manifest(paths + earlier_paths, shards + earlier_shards, new_markers, clock)
        full = sum(e["size"] for e in run_manifest["inputs"] if e["path"] in set(paths))
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
                task_cpu_seconds=round(sum(r[0].get("cpu_seconds", 0.0) for r in results.values()), 3))
        rd.write_manifest(run_manifest)
    errors = [entry["error"] for entry in run_manifest["inputs"] if entry["error"]]
    return BackfillSummary(manifest=run_manifest, errors=errors)
