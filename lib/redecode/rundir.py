"""The run directory: parts, completion markers, manifest, lock and staging, for local paths and URLs.

Contract. A run directory ``OUT`` (a local path, or a URL of any fsspec filesystem through
:mod:`redecode.storage`) holds, in the flat layout (the default):

- ``<archive name>.<8 hex>.<shard>.parquet`` (:func:`part_stem`): the rows of one shard of one
  input, in archive order. The 8 hex digits are the start of sha1 of the input path as given, so
  two inputs with the same name in different folders do not collide; the name is deterministic, so
  a redone or retried shard replaces its part and never adds one. It never starts with ``.`` or
  ``_`` (an archive name's leading dots and underscores are left out): DuckDB's, Spark's and Hive's
  globs take such files for hidden, and a query would miss their rows.
- ``_done/<part stem>.json``: the shard's completion marker (its byte range, or with an index the
  digest of the records it selects (``spans``), counts, outcome, rules digest,
  :data:`redecode.row.ROW_CODE_VERSION`, ``max_record_bytes``, the record selection of
  :mod:`redecode.selection` and the row limit the shard was given, and ``input``: the input's
  :func:`redecode.storage.fingerprint` taken before it was read), published after its part.

In a bounded layout (:mod:`redecode.layout`: ``--max-part-bytes``, ``--max-part-rows``,
``--partition-by``) the shards are grouped into tasks (:class:`Task`): a task's rows go to
``[COLUMN=VALUE/]part-<task key>-<n>.parquet`` and its marker ``_done/<task key>.json``
(:func:`task_marker`) holds its parts and the completion marker of each of its shards; one marker per
task, so a rerun reads a few markers for thousands of inputs.

A task (in the flat layout, a shard) is complete iff all its shards' markers are current
(:func:`marker_is_current`), their outcomes ``complete`` (or ``limited``: stopped by ``--limit``),
all its parts exist and its inputs are unchanged (:meth:`RunDirectory.resume`: a local file's
fingerprint; an object's size and ETag from a listing, never a request per object). A task that is
not complete is removed, marker first, then parts, and its shards are done again: an input that
changed (records appended, cut short, replaced) is read again whole, so the directory never holds
rows of two versions of one file; an input whose outcome was ``truncated``, ``damaged`` or ``error``
is read again.

Beside them:

- ``_run.json``: the manifest (:meth:`RunDirectory.manifest`), rewritten at the end of every run
  from all markers: totals, rules, selection, layout, times; the per-input records inline only for
  at most :data:`INPUTS_LISTED` inputs (``input_count`` always).
- ``_inputs/inputs.parquet``: the per-input table (:func:`write_inputs_table`, one row per input: its
  parts, outcome, error, counts), written at the end of every run; while a run goes on, the inputs
  finished so far are written in batches (``_inputs/batch-*.parquet``, :meth:`RunDirectory.record_inputs`),
  which the end of the run replaces. :func:`manifest_inputs` reads the inputs from either.
- ``_lock``: held while a command writes the directory. Locally an ``flock`` on the file (it stays,
  and means nothing by itself; a killed command's lock goes with its process). On an object store
  (no ``flock``) an object created with a conditional PUT (``If-None-Match: *``, as S3 and moto
  support: of two runs, one creates it, the other is refused) holding the run's id, host, pid and
  a heartbeat the run rewrites every :data:`LOCK_HEARTBEAT` seconds; the run removes it at its end.
  A lock whose heartbeat is older than :data:`LOCK_STALE` seconds (its run was killed) is taken
  over by the next run. Every task checks, before it publishes its parts, that the lock still holds
  its run's id, and the run checks it before writing ``_run.json`` (:class:`RemoteLock`), so a run
  that lost its lock stops (:class:`RunDirectoryLocked`) rather than writing over another's work.
- ``_running.json``: written when a run starts its tasks (its id, start time, and the marker each
  task is to write with the inputs it reads) and removed once ``_run.json`` is written: while it is
  there the directory holds an unfinished run (still running, or stopped), which ``query``,
  ``report`` and ``diff`` say (:func:`incomplete`).
- ``.tmp-*.tmp`` (local only, :func:`redecode.storage.temp_path`): files being written (a part or a
  JSON file before its rename; never matched by ``*.parquet``), and
  ``_staging/`` (local only): per-attempt directories of staged shards; both are removed when the
  next command opens the directory. Shards of a remote directory stage in
  ``$TMPDIR/redecode-staging/<pid>-...`` on the machine that runs them: a directory whose process
  is gone (a killed attempt, a Spark task lost with its worker) is removed by the next shard staged
  on that machine and by the run's driver.

Writing is atomic: a part or marker appears under its final name only complete (a temporary
name and ``os.replace`` locally; one PUT on an object store, :func:`redecode.storage.publish_file`).
:func:`publish_task` runs a per-task function into the directory, or, staged, into a private
directory first and then publishes the parts and then the marker: staged tasks are what executors
whose attempts may run twice (Spark's retries and speculation) and remote directories need.

:class:`RunDirectory` is what a command holds while it writes: it takes the lock, cleans up, reads
the markers once, applies the policy for parts made under other rules (or in another layout), and
answers the questions a command asks (which shards are complete, which inputs must be redone whole,
which parts are stale, which inputs earlier runs left) before it writes the manifest.

Deviations: the object-store lock relies on the store honouring ``If-None-Match: *`` (AWS S3 since
2024, moto, MinIO); on a store that ignores it two runs may both create it, and the first check
before publishing stops the one whose id the object does not hold
(``tests/test_s3_faults.py::test_two_runs_into_one_bucket``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import platform
import resource
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, TypeVar

from . import __version__, native, storage
from . import lazy as _lazy
from .dataclass_code import dataclass
from .layout import FLAT, Layout, parse_partition_folder
from .schema import SCHEMA_VERSION, STATUS_DECODED, STATUS_SKIPPED
from .selection import ALL, Selection
from .versions import version as installed_version

# (used where a directory is cleaned up or staged, not by every run: imported then)
shutil = _lazy.module(__name__, "shutil", "shutil")
tempfile = _lazy.module(__name__, "tempfile", "tempfile")

if TYPE_CHECKING:
    from .record import Spans
    from .rules import Rules

__all__ = [
    "FILES_NOT_READ_LISTED",
    "DamagedRunError",
    "FINISHED",
    "LOCK_HEARTBEAT",
    "LOCK_STALE",
    "RUNNING",
    "RemoteLock",
    "check_lock",
    "incomplete",
    "MANIFEST",
    "MARKERS",
    "ROW_CODE_VERSION",
    "RunClock",
    "RunDirectory",
    "RunDirectoryConflict",
    "RunDirectoryLocked",
    "RunSummary",
    "Resume",
    "Shard",
    "ShardCounts",
    "Task",
    "parts_of",
    "publish_task",
    "shard_markers",
    "task_key",
    "task_marker",
    "task_marker_is_valid",
    "dependency_versions",
    "completion_marker",
    "files_not_read",
    "INPUTS_LISTED",
    "INPUTS_TABLE",
    "input_entries",
    "manifest_inputs",
    "write_inputs_table",
    "input_size",
    "input_states",
    "is_part_name",
    "is_run_output",
    "list_parts",
    "lock_directory",
    "marker_is_current",
    "marker_key_of",
    "marker_is_valid",
    "marker_path",
    "part_stem",
    "publish_shard",
    "remade_marker",
    "same_input",
    "stem_of",
    "write_json",
    "write_marker",
]

T = TypeVar("T")
log = logging.getLogger(__name__)

PART_SUFFIX = ".parquet"
MARKERS = "_done"
MANIFEST = "_run.json"
LOCK = "_lock"
#: Shard outcomes a rerun keeps: read to the end, or to the row limit the shard was given
#: (``--limit``). Any other (``truncated``, ``damaged``, ``error``) is read again.
FINISHED = frozenset({"complete", "limited"})
STAGING = "_staging"
RUNNING = "_running.json"
#: Seconds between two heartbeats of a run's lock on an object store (``REDECODE_LOCK_HEARTBEAT``).
LOCK_HEARTBEAT = 60.0
#: Seconds without a heartbeat after which an object store's lock is taken for a killed run's and
#: taken over (``REDECODE_LOCK_STALE``).
LOCK_STALE = 600.0

#: Version of the record -> row code outside the rules (:mod:`redecode.row`: status, skip reasons,
#: and the archive, HTTP and MIME handling it relies on). Bump it whenever a change there can change
#: a row for the same rules; it goes into every completion marker and the manifest, and backfill
#: reads every record again when a prior run's version differs (the rules digest does not cover
#: this code).
ROW_CODE_VERSION = "2026.12.5"  # 2026.12.2: schema 1.3's derived columns (row.text_columns);
#                                 2026.12.3: records cut short keep their text (missing_bytes, schema 1.4),
#                                 records split over gzip members and records right after a block read;
#                                 2026.12.4: schema 1.5's verdict, language, language_confidence;
#                                 2026.12.5: schema 1.6's stretches

#: How many names of files not read ``_run.json`` lists (the count is always complete).
FILES_NOT_READ_LISTED = 100
#: ``_run.json`` lists the inputs inline up to this many; the per-input table always has them.
INPUTS_LISTED = 1000
#: The folder of the per-input table (one row per input: its parts, outcome, counts), beside
#: ``_run.json``: ``inputs.parquet`` at the end of a run, ``batch-*.parquet`` while it goes on.
INPUTS_TABLE = "_inputs"
INPUTS_FILE = "inputs.parquet"
INPUTS_BATCH = "batch-"



class DamagedRunError(Exception):
    """A part of a run directory cannot be read: cut short, damaged, or lacking a column its
    schema version has (changed by another tool), so its rows cannot be trusted. ``str()`` names the
    part and what to do; a command meeting it exits 1 (``exit_code``), as for a damaged input."""

    exit_code = 1

    def __init__(self, part: str, problem: str, missing: bool = False) -> None:
        self.part, self.problem, self.missing = part, problem, missing
        if missing:  # (nothing to remove: a rerun finds the part gone and makes it again)
            advice = "run the same `redecode run` again, which makes that part again"
        else:
            advice = (f"remove the part and its completion marker ({MARKERS}/{marker_key_of(part)}.json) "
                      "and run the same `redecode run` again, which makes that part again")
        super().__init__(f"{part}: {problem}; the run directory is damaged: {advice}")

    def __reduce__(self):  # (it crosses process pools: rebuilt from its arguments)
        return type(self), (self.part, self.problem, self.missing)


class RunDirectoryLocked(RuntimeError):
    """Another process holds the run directory's lock (``OUT/_lock``)."""


class RunDirectoryConflict(RuntimeError):
    """The run directory holds output made under other rules (or by other record -> row code, or
    with another record selection: ``--limit``, ``--sample``). The message names both rule sets
    and the first difference; ``details`` lists every difference (the commands log it at INFO:
    ``-v``)."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


# ---------------------------------------------------------------------------------------------
# shards, parts and markers


@dataclass(frozen=True, slots=True)
class Shard:
    """A byte range ``[start, end)`` of input ``path`` (``end`` None: to the end of the file), the
    ``index``-th of its input's shard plan; or, with ``spans``, the records an index selects in
    it (:class:`redecode.record.Spans`; ``start``/``end`` then where the first starts and the last
    ends)."""

    path: str
    index: int
    start: int
    end: int | None
    spans: Spans | None = None
    #: the listing's entry of the object ``path`` (``size``, ``ETag``...), when a run listed it:
    #: the task then asks the store nothing more about it (:func:`redecode.storage.remember`)
    listed: dict | None = field(default=None, compare=False, hash=False)
    #: the input's fingerprint (:func:`redecode.storage.fingerprint`) taken when this run first read
    #: it, for a whole-file shard that redoes an input whose shards did not meet
    #: (:meth:`RunDirectory.redo_bad_boundaries`): the redo is ``complete`` only when the file still
    #: has that size, so a file cut short (or appended to) while the run read it is ``truncated``
    #: and read again by the next run, not taken whole at its new size
    began: dict | None = field(default=None, compare=False, hash=False)


def part_stem(path: str, shard_index: int) -> str:
    """File stem of the part holding shard ``shard_index`` of input ``path``: ``<archive
    name>.<8 hex of sha1(path)>.<shard:04d>``. In the archive name, a byte that is not UTF-8
    (Python's surrogate escape) and a backslash are written ``%XX``: part names are UTF-8 (for the
    markers that name them) and DuckDB's glob (``DIR/*.parquet``) passes over a name with a
    backslash; leading ``.`` and ``_`` are left out (``.crawl.warc.gz`` gives ``crawl.warc.gz...``;
    a name of nothing else gives ``input...``): globs take such files for hidden. The digest, of
    the exact path, keeps such names apart."""
    digest = hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{_name_for_part(os.path.basename(path)).lstrip('._') or 'input'}.{digest}.{shard_index:04d}"


#: A part's file name as :func:`part_stem` makes it (the archive name, 8 hex, the shard, .parquet;
#: a leading ``.`` or ``_`` too, as versions before issue 25 wrote them).
_PART_FILE = _lazy.pattern(__name__, "_PART_FILE", r".+\.[0-9a-f]{8}\.[0-9]{4,}\.parquet")
#: A bounded layout's part file name (:func:`redecode.layout.part_name`: ``part-<task key>-<n>``).
_TASK_PART_FILE = _lazy.pattern(__name__, "_TASK_PART_FILE", r"part-[0-9a-f]{16}-[0-9]{5,}\.parquet")


def is_run_output(out: str, path: str) -> bool:
    """Whether ``path`` is a file a command writes in run directory ``out``: a part (a name
    :func:`part_stem` makes, directly in ``out``, or a bounded layout's ``part-<task key>-<n>``
    there or in a partition folder ``COLUMN=VALUE/``), anything under ``_done/``, ``_staging/`` or
    ``_inputs/``, a temporary ``.tmp-*`` file, the manifest, the lock or :data:`RUNNING`. Such files
    are never inputs of a run into ``out`` (a run's own parts would be read as raw-response
    Parquet); every other file is, even in ``out`` or below it (``redecode run crawl --out crawl``)."""
    if storage.is_remote(out) or storage.is_remote(path):
        base = out.rstrip("/") + "/"
        if not path.startswith(base):
            return False
        rel = path[len(base):].split("/")
    else:
        rel_path = os.path.relpath(os.path.realpath(path), os.path.realpath(out))
        if rel_path == os.pardir or rel_path.startswith(os.pardir + os.sep):
            return False
        rel = rel_path.split(os.sep)
    if rel[0] in (MARKERS, STAGING, INPUTS_TABLE):
        return True
    name = rel[-1]
    if len(rel) == 2 and parse_partition_folder(rel[0]) is not None:
        return name.startswith(".tmp-") or _TASK_PART_FILE.fullmatch(name) is not None
    if len(rel) != 1:
        return False
    return (name in (MANIFEST, LOCK, RUNNING) or name.startswith(".tmp-") or _PART_FILE.fullmatch(name) is not None
            or _TASK_PART_FILE.fullmatch(name) is not None)


def _name_for_part(name: str) -> str:
    if name.isascii() and "\\" not in name:
        return name
    raw = name.encode("utf-8", "surrogateescape").replace(b"%", b"%25").replace(b"\\", b"%5C")
    text = raw.decode("utf-8", "surrogateescape")
    return "".join(f"%{ord(c) - 0xDC00:02X}" if "\udc80" <= c <= "\udcff" else c for c in text)


def stem_of(part: str) -> str:
    """The stem of a part's file name (its name without ``.parquet``), which names its marker."""
    return part[: -len(PART_SUFFIX)] if part.endswith(PART_SUFFIX) else part


def marker_key_of(part: str) -> str:
    """The key of the completion marker that names ``part`` (a part's name or path): a bounded
    layout's ``[folder/]part-<task key>-<n>.parquet`` is its task's, ``<task key>``; any other part
    its own, :func:`stem_of` its file name."""
    name = part.rpartition("/")[2]
    if _TASK_PART_FILE.fullmatch(name):
        return name[len("part-"):].rsplit("-", 1)[0]
    return stem_of(name)


def marker_path(out: str, stem: str) -> str:
    """Where the completion marker of the part ``stem`` lives in run directory ``out``."""
    return storage.join(out, MARKERS, stem + ".json")


def is_part_name(name: object) -> bool:
    """Whether ``name`` (from a marker or a manifest, which anyone can edit) is a part file name a
    run directory may hold: a ``str`` ending in ``.parquet``, not hidden and not ``.``/``..``,
    either plain or in one Hive-style partition folder ``COLUMN=VALUE/`` of a bounded layout
    (:func:`redecode.layout.parse_partition_folder`). Only such names are ever joined to a run
    directory, so that a crafted ``_done/*.json`` (``"part": "../../x"``) cannot make a command
    read or delete a file outside ``--out``."""
    if not isinstance(name, str) or "\0" in name or (os.sep != "/" and os.sep in name):
        return False
    folder, _, base = name.rpartition("/")
    if folder and ("/" in folder or folder.startswith((".", "_")) or parse_partition_folder(folder) is None):
        return False
    return base.endswith(PART_SUFFIX) and len(base) > len(PART_SUFFIX) and not base.startswith(".")


def marker_is_valid(marker: object, stem: str) -> bool:
    """Whether ``marker``, read from ``_done/<stem>.json``, names its own part: a dict whose
    ``part`` is ``<stem>.parquet`` (:func:`is_part_name`) and whose ``path``, ``shard``, ``start``
    and ``end`` have their types; or a task's marker (:func:`task_marker_is_valid`). Anything else
    is ignored as if there were no marker: its shard is done again and the marker rewritten;
    nothing it names is read or removed."""
    if isinstance(marker, dict) and "shards" in marker:
        return task_marker_is_valid(marker, stem)
    return (
        isinstance(marker, dict)
        and marker.get("part") == stem + PART_SUFFIX
        and is_part_name(marker.get("part"))
        and "/" not in marker.get("part")
        and _shard_fields_valid(marker)
    )


def _shard_fields_valid(marker: object) -> bool:
    return (
        isinstance(marker, dict)
        and isinstance(marker.get("path"), str)
        and isinstance(marker.get("shard"), int)
        and isinstance(marker.get("start"), int)
        and (marker.get("end") is None or isinstance(marker.get("end"), int))
        and isinstance(marker.get("counts"), dict)
    )


def task_marker_is_valid(marker: object, key: str) -> bool:
    """Whether ``marker``, read from ``_done/<key>.json``, is the marker of task ``key`` of a
    bounded layout (:func:`task_marker`): its ``task`` is ``key``, its ``parts`` are part names
    of that task (:func:`is_part_name`, ``part-<key>-...``), its ``shards`` shard markers."""
    if not isinstance(marker, dict) or marker.get("task") != key:
        return False
    parts, shards = marker.get("parts"), marker.get("shards")
    return (
        isinstance(parts, list)
        and all(is_part_name(p) and p.rpartition("/")[2].startswith(f"part-{key}-") for p in parts)
        and isinstance(shards, list)
        and all(_shard_fields_valid(m) for m in shards)
    )


def write_json(path: str, data: dict) -> None:
    """Write *data* as indented, key-sorted JSON to *path* atomically (a marker, a manifest)."""
    storage.write_bytes(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def marker_is_current(marker: dict, shard: Shard, rules_digest: str, max_record_bytes: int | None = None,
                      selection: Selection = ALL) -> bool:
    """Whether a completion ``marker`` proves ``shard`` done for this run: same rules digest, same
    byte range, same record -> row code (:data:`redecode.row.ROW_CODE_VERSION`), same record
    ``selection`` and, when given, the same ``max_record_bytes``. (The caller checks that the part
    it names exists, and, under a limit, that the shard's row limit is the one it would give.)"""
    return (
        marker.get("rules_digest") == rules_digest
        and (marker.get("start"), marker.get("end")) == (shard.start, shard.end)
        and marker.get("spans") == (shard.spans.to_json() if shard.spans is not None else None)
        and marker.get("row_code_version") == ROW_CODE_VERSION
        and marker.get("selection") == selection.to_json()
        and (max_record_bytes is None or marker.get("max_record_bytes") == max_record_bytes)
    )


def completion_marker(shard: Shard, rules: Rules, *, max_record_bytes: int, counts: ShardCounts, size: int,
                      outcome: str, error: str | None, error_offset: int | None, boundary_ok: bool,
                      wall_seconds: float, cpu_seconds: float, selection: Selection = ALL,
                      row_limit: int | None = None, input: dict | None = None,
                      damaged: list[dict] | None = None) -> dict:
    """The completion marker of ``shard``, decoded under ``rules`` (what :func:`write_marker`
    writes and :func:`marker_is_current` checks): its range and part, the input's ``size``
    (bytes), ``outcome`` (``complete``; ``truncated``: rows up to the damage kept; ``damaged``:
    stretches skipped, the records after them read, see ``damaged``; ``error``: nothing readable;
    ``limited``: reading stopped at ``row_limit`` rows) with ``error`` and ``error_offset``, the
    rules, :data:`ROW_CODE_VERSION`, ``max_record_bytes``, the record ``selection`` and the
    ``row_limit`` the shard was given (None: none), ``boundary_ok`` (the shard read exactly up to
    the next one's start), ``counts``, the times (seconds), ``input`` (the input's
    :func:`redecode.storage.fingerprint` before it was read: a rerun reads the input again when it
    differs) and ``damaged`` (``[{"offset", "length", "error"}]``, bytes: stretches that held no
    readable record, skipped to the next record start; for a shard of an index's records, the
    records that could not be read at their offset and length). A shard of an index's records
    also has ``spans`` (:meth:`redecode.record.Spans.to_json`: how many, their bytes, a digest)."""
    marker = {
        "input": input,
        "damaged": list(damaged or ()),
        "path": shard.path,
        "shard": shard.index,
        "start": shard.start,
        "end": shard.end,
        "part": part_stem(shard.path, shard.index) + PART_SUFFIX,
        "rows": counts.records_seen,
        "size": size,
        "outcome": outcome,
        "error": error,
        "error_offset": error_offset,
        "rules": rules.name,
        "rules_digest": rules.digest,
        "row_code_version": ROW_CODE_VERSION,
        "max_record_bytes": max_record_bytes,
        "selection": selection.to_json(),
        "row_limit": row_limit,
        "boundary_ok": boundary_ok,
        "counts": counts.to_json(),
        "wall_seconds": wall_seconds,
        "cpu_seconds": cpu_seconds,
    }
    if shard.spans is not None:
        marker["spans"] = shard.spans.to_json()
    return marker


def remade_marker(marker: dict, rules: Rules, *, counts: ShardCounts, wall_seconds: float,
                  cpu_seconds: float) -> dict:
    """``marker`` for the same shard with its rows made again under ``rules`` by the current row
    code (backfill): the same range, part, size and outcome; new rules, counts and times."""
    out = dict(marker)
    out.update(rules=rules.name, rules_digest=rules.digest, row_code_version=ROW_CODE_VERSION,
               rows=counts.records_seen, counts=counts.to_json(), wall_seconds=wall_seconds,
               cpu_seconds=cpu_seconds)
    return out


def write_marker(out: str, marker: dict) -> None:
    """Publish ``marker`` under ``out/_done/`` (atomically; after the part it names): a shard's
    (``_done/<part stem>.json``) or a task's (``_done/<task key>.json``). ``marker`` gets
    ``part_bytes`` first: ``{part name: size in bytes}`` of the parts it names as they are in
    ``out`` now (a local directory: where they were just written), which a rerun compares with
    the run directory's (:meth:`RunDirectory.resume`: a part cut short or replaced is made again)."""
    marker["part_bytes"] = {part: os.path.getsize(os.path.join(storage.local_path(out), part))
                            for part in parts_of(marker)}
    write_json(marker_path(out, marker["task"] if "shards" in marker else stem_of(marker["part"])), marker)


@dataclass(frozen=True, slots=True)
class Task:
    """Shards whose rows are written together, by one call of the per-task function: ``key``
    names the task's marker (``_done/<key>.json``) and parts. In the flat layout a task is one
    shard and its key the shard's part stem; in a bounded layout (:mod:`redecode.layout`) it is
    consecutive shards and its key :func:`task_key` of them."""

    key: str
    shards: tuple[Shard, ...]


def task_key(shards: tuple[Shard, ...] | list[Shard], layout: Layout) -> str:
    """The key of a bounded layout's task of ``shards``: 16 hex digits of SHA-1 over the shards
    (path, index, range, the digest of their spans) and the layout, so a task planned again from
    the same shards writes the same parts."""
    h = hashlib.sha1(json.dumps(layout.to_json(), sort_keys=True).encode())
    for s in shards:
        h.update(json.dumps([s.path, s.index, s.start, s.end, s.spans.digest if s.spans is not None else None],
                            ensure_ascii=False).encode("utf-8", "surrogateescape"))
    return h.hexdigest()[:16]


def task_marker(task: Task, layout: Layout, parts: list[str], markers: list[dict]) -> dict:
    """The completion marker of ``task`` in a bounded ``layout``: its key, layout, ``parts`` (names
    relative to the run directory, in the order written) and the completion marker of each of its
    shards (:func:`completion_marker`, ``part`` None: the task's parts hold the rows of all of
    them), in task order."""
    return {"task": task.key, "layout": layout.to_json(), "parts": list(parts),
            "shards": [dict(m, part=None) for m in markers]}


def shard_markers(marker: dict) -> list[dict]:
    """The shard markers a published marker stands for: a shard's marker itself, or each shard of
    a task's marker with ``task`` (the key) and ``parts`` (the task's parts) added."""
    if "shards" not in marker:
        return [marker]
    parts = list(marker["parts"])  # (one list for all the task's shards: a task may hold thousands)
    return [dict(m, task=marker["task"], parts=parts, layout=marker.get("layout")) for m in marker["shards"]]


def parts_of(marker: dict) -> list[str]:
    """The part names a shard's (or a task's) marker covers."""
    parts = marker.get("parts")
    if parts is not None:
        return list(parts)
    return [marker["part"]] if marker.get("part") else []


@dataclass(slots=True)
class ShardCounts:
    """Per-shard (and, summed, per-input and per-run) record counts: a marker's ``counts``."""

    records_seen: int = 0  # response/resource/revisit records = rows
    decoded: int = 0
    skipped: int = 0
    failed: int = 0
    records_total: int = 0  # every record, whatever its type
    not_sampled: int = 0  # row records left out by --sample (no row)
    by_record_type: Counter = field(default_factory=Counter)
    by_skip_reason: Counter = field(default_factory=Counter)
    by_error_kind: Counter = field(default_factory=Counter)
    bytes_read: int = 0
    #: records an index selected in the shard (None: not an index's shard) and how many of them
    #: could not be read at their offset and length (no record there, the file cut short or gone)
    selected: int | None = None
    missing: int = 0

    def add_row(self, row: dict) -> None:
        """Count one row (a dict row: its ``status``, ``skip_reason``, ``error_kind``)."""
        self.add_status(row["status"], row["skip_reason"], row["error_kind"])

    def add_status(self, status: str, skip_reason: str | None, error_kind: str | None) -> None:
        """Count one row of *status* (with its *skip_reason* or *error_kind*)."""
        self.records_seen += 1
        if status == STATUS_DECODED:
            self.decoded += 1
        elif status == STATUS_SKIPPED:
            self.skipped += 1
            self.by_skip_reason[skip_reason] += 1
        else:
            self.failed += 1
            self.by_error_kind[error_kind] += 1

    def merge(self, other: ShardCounts) -> None:
        for name in (*_SUMS, "bytes_read", "missing"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.selected is not None:
            self.selected = (self.selected or 0) + other.selected
        for name in _BREAKDOWNS:
            getattr(self, name).update(getattr(other, name))

    def to_json(self) -> dict:
        """The marker's and manifest's ``counts`` (breakdowns sorted by key)."""
        out: dict = {name: getattr(self, name) for name in _SUMS}
        out.update((name, dict(sorted(getattr(self, name).items()))) for name in _BREAKDOWNS)
        out["bytes_read"] = self.bytes_read
        if self.selected is not None:  # (only an index's shards: other markers stay as they were)
            out["selected"], out["read"], out["missing"] = self.selected, self.selected - self.missing, self.missing
        return out

    @classmethod
    def from_json(cls, data: dict) -> ShardCounts:
        """The inverse of :meth:`to_json`; counts missing from an older marker are 0."""
        counts = cls(**{name: data[name] for name in _STATUS_SUMS})
        counts.records_total, counts.bytes_read = data.get("records_total", 0), data.get("bytes_read", 0)
        counts.not_sampled = data.get("not_sampled", 0)
        counts.selected, counts.missing = data.get("selected"), data.get("missing", 0)
        for name in _BREAKDOWNS:
            setattr(counts, name, Counter(data.get(name, {})))
        return counts


_STATUS_SUMS = ("records_seen", "decoded", "skipped", "failed")
_SUMS = (*_STATUS_SUMS, "records_total", "not_sampled")
_BREAKDOWNS = ("by_record_type", "by_skip_reason", "by_error_kind")


def publish_shard(out: str, part: str, work: Callable[[str], T], *, staged: bool, lock_id: str | None = None) -> T:
    """:func:`publish_task` of the flat layout's one-shard task whose part is ``part`` (its marker
    ``_done/<part stem>.json``)."""
    return publish_task(out, stem_of(part), work, staged=staged, lock_id=lock_id)


def publish_task(out: str, key: str, work: Callable[[str], T], *, staged: bool, lock_id: str | None = None) -> T:
    """Run ``work(directory)``, which writes a task's parts and its marker ``_done/<key>.json``
    into the directory it is given, so that they all appear in ``out`` complete, the parts first;
    return what ``work`` returned (the marker: the parts it publishes are :func:`parts_of` it).
    ``lock_id``: the id of the run holding an object store's lock (:class:`RemoteLock`): checked
    before the parts are published (:class:`RunDirectoryLocked` when another run holds it).

    Not ``staged``: ``directory`` is ``out`` itself (a local directory; the part writer and
    :func:`write_json` rename complete files into place, the parts before the marker). ``staged``:
    ``directory`` is a fresh private one (under ``out/_staging`` locally, in ``TMPDIR`` for a
    URL), removed afterwards whatever happens; the parts and then the marker are published under
    ``out`` (:func:`redecode.storage.publish_file`), so two attempts of one task never share a
    temporary file and a retried attempt replaces the parts (their names are deterministic).
    """
    if not staged:
        return work(out)
    staging = _staging_dir(out, key)
    try:
        os.makedirs(os.path.join(staging, MARKERS), exist_ok=True)
        result = work(staging)
        if lock_id is not None:
            check_lock(out, lock_id)
        # parts first: a published marker always names published parts
        for part in parts_of(result):
            folder = part.rpartition("/")[0]
            if folder:
                storage.makedirs(storage.join(out, folder))
            storage.publish_file(os.path.join(staging, part), storage.join(out, part))
        storage.publish_file(os.path.join(staging, MARKERS, key + ".json"), marker_path(out, key))
        return result
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _staging_dir(dest_dir: str, name: str) -> str:
    """A fresh local directory to write files destined for ``dest_dir`` in.

    For a local ``dest_dir`` it is ``dest_dir/_staging/<name>-<random>`` (same filesystem, so
    :func:`redecode.storage.publish_file` is a rename); for a URL a fresh directory under Python's temporary directory
    (``TMPDIR``). The caller removes it.
    """
    if storage.is_remote(dest_dir):
        parent = remote_staging_root()
        remove_stale_staging()
        for _ in range(3):  # (another process may remove the empty root between the two calls)
            os.makedirs(parent, exist_ok=True)
            try:
                return tempfile.mkdtemp(prefix=f"{os.getpid()}-{name}-", dir=parent)
            except FileNotFoundError:
                continue
        return tempfile.mkdtemp(prefix=f"{os.getpid()}-{name}-", dir=parent)
    parent = os.path.join(storage.local_path(dest_dir), STAGING)
    os.makedirs(parent, exist_ok=True)
    return tempfile.mkdtemp(prefix=f"{name}-", dir=parent)


def remote_staging_root() -> str:
    """Where shards of remote run directories stage on this machine: ``$TMPDIR/redecode-staging``."""
    return os.path.join(tempfile.gettempdir(), "redecode-staging")


def remove_stale_staging(*, root_too: bool = False) -> int:
    """Remove the staging directories under :func:`remote_staging_root` whose process is gone (its
    pid, the name's first field, names no live process): what killed attempts left; with
    ``root_too``, the root as well once it is empty. Returns how many were removed."""
    root = remote_staging_root()
    removed = 0
    try:
        names = os.listdir(root)
    except OSError:
        return 0
    for name in names:
        pid = name.split("-", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        removed += 1
    if root_too:
        try:
            os.rmdir(root)
        except OSError:
            pass  # not empty: a live process stages there
    return removed


def _remove_folder(path: str) -> None:
    """Remove the local folder ``path`` and what it holds, ignoring errors, as ``shutil.rmtree``
    with ``ignore_errors`` does; an empty folder (a run's staging once every shard published, the
    usual case) or none at all without importing shutil (4 M instructions in every run)."""
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:  # not empty (or not a folder: rmtree then refuses it too)
        shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's
    return True


# ---------------------------------------------------------------------------------------------
# the object-store lock and the record of an unfinished run


def _setting(name: str, default: float) -> float:
    try:
        return max(float(os.environ[name]), 0.0)
    except (KeyError, ValueError):
        return default


class RemoteLock:
    """The lock of a run directory on an object store (see the module docstring): :meth:`take`,
    :meth:`check`, :meth:`release`. ``run_id``: this run's id (hex), which shards give
    :func:`check_lock` before they publish."""

    def __init__(self, out: str) -> None:
        import uuid  # noqa: PLC0415

        self.out = out
        self.path = storage.join(out, LOCK)
        self.run_id = uuid.uuid4().hex
        self.started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.lost: str | None = None
        self._created = False  # whether this run ever created the lock object (only then release removes it)

    def _body(self) -> bytes:
        return json.dumps({"run_id": self.run_id, "host": platform.node(), "pid": os.getpid(),
                           "started": self.started, "heartbeat": time.time()}).encode()

    def take(self) -> None:
        """Create the lock object (a conditional PUT); take over one whose heartbeat is older than
        :data:`LOCK_STALE`; read it back. Raises :class:`RunDirectoryLocked` when another run holds
        it."""
        try:
            storage.create_bytes(self.path, self._body())
            self._created = True
        except FileExistsError:
            held = read_lock(self.out)
            stale = _setting("REDECODE_LOCK_STALE", LOCK_STALE)
            if (held or {}).get("run_id") != self.run_id:  # (else made by this run's own first attempt)
                if held is not None and time.time() - _heartbeat(held) <= stale:
                    raise RunDirectoryLocked(_locked_message(self.out, held, stale)) from None
                if held is not None:
                    log.warning("%s: taking over the lock of run %s, whose last heartbeat is %s old (a run "
                                "killed before it finished)", self.path, held.get("run_id"), _age(held))
                    storage.remove(self.path)
                try:
                    storage.create_bytes(self.path, self._body())
                    self._created = True
                except FileExistsError:
                    raise RunDirectoryLocked(_locked_message(self.out, read_lock(self.out) or {}, stale)) from None
        self.check()  # a store that ignores If-None-Match: the object tells who won
        self._thread = threading.Thread(target=self._beat, name="redecode-lock-heartbeat", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        every = _setting("REDECODE_LOCK_HEARTBEAT", LOCK_HEARTBEAT)
        while not self._stop.wait(every):
            try:
                held = read_lock(self.out)
                if (held or {}).get("run_id") != self.run_id:
                    self.lost = _taken_message(self.out, held)
                    return
                storage.write_bytes(self.path, self._body())
            except Exception as exc:  # noqa: BLE001 - the next beat tries again; check() decides
                log.debug("%s: heartbeat failed: %s", self.path, exc)

    def check(self) -> None:
        """Raise :class:`RunDirectoryLocked` unless the lock object holds this run's id."""
        if self.lost is not None:
            raise RunDirectoryLocked(self.lost)
        check_lock(self.out, self.run_id)

    def release(self, *, quiet: bool = False) -> None:
        """Stop the heartbeat and remove the lock object when it is still this run's; when that
        fails, warn (only in the debug log when ``quiet``: the run is ending in an error of its
        own, one line)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if not self._created:  # never taken (the store unreachable, or another run's): nothing to remove
            return
        try:
            if (read_lock(self.out) or {}).get("run_id") == self.run_id:
                storage.remove(self.path)
        except Exception as exc:  # noqa: BLE001 - a lock left behind goes stale and is taken over
            (log.debug if quiet else log.warning)("%s: could not remove the lock (%s); the next run takes it over after %d s",
                        self.path, exc, int(_setting("REDECODE_LOCK_STALE", LOCK_STALE)))


def read_lock(out: str) -> dict | None:
    """The object-store lock of run directory ``out`` (its JSON), or None when there is none.
    Its reads go through :func:`redecode.storage.retrying` (transient errors retried, counted); an
    error that outlasts the retries (the endpoint gone) is raised as
    :class:`redecode.storage.OutputError` (exit 4, one line), as the other calls on the output."""
    path = storage.join(out, LOCK)
    try:
        raw = storage.read_bytes(path)
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - the store's client's own errors (botocore's) too
        raise storage.store_error(exc, path) from exc
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def check_lock(out: str, run_id: str) -> None:
    """Raise :class:`RunDirectoryLocked` unless the object-store lock of ``out`` holds ``run_id``
    (what every shard does before it publishes its part)."""
    held = read_lock(out)
    if (held or {}).get("run_id") != run_id:
        raise RunDirectoryLocked(_taken_message(out, held))


def _heartbeat(held: dict) -> float:
    """The time (seconds since the epoch) of a lock's last heartbeat; 0 when it has none (a lock
    that cannot be read is taken for a dead run's)."""
    try:
        return float(held.get("heartbeat") or 0)
    except (TypeError, ValueError):
        return 0.0


def _age(held: dict) -> str:
    try:
        return f"{time.time() - float(held.get('heartbeat')):.0f} s"
    except (TypeError, ValueError):
        return "of unknown age"


def _locked_message(out: str, held: dict, stale: float) -> str:
    return (f"{out} is being written by another redecode run (lock {out}/{LOCK}: run {held.get('run_id')} on "
            f"{held.get('host')}, pid {held.get('pid')}, started {held.get('started')}, last heartbeat "
            f"{_age(held)} ago); wait for it to finish, or stop it. A run killed before it finished leaves its "
            f"lock, which the next run takes over {stale:.0f} s after its last heartbeat (or remove {out}/{LOCK})")


def _taken_message(out: str, held: dict | None) -> str:
    who = (f"run {held.get('run_id')} on {held.get('host')}, pid {held.get('pid')}" if held
           else "no run (it was removed)")
    return (f"{out}: this run's lock ({out}/{LOCK}) is now held by {who}: another run writes this directory; "
            "this run stops without publishing more")


def write_running(out: str, run_id: str, tasks: dict[str, list[str]]) -> None:
    """Record that a run (``run_id``) starts its tasks in ``out`` (:data:`RUNNING`): ``tasks`` maps
    the key of each task's marker (a flat layout's part stem) to the inputs it reads."""
    write_json(storage.join(out, RUNNING), {
        "run_id": run_id, "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(), "pid": os.getpid(), "tasks": dict(sorted(tasks.items()))})


def incomplete(out: str, names: list[str] | None = None) -> str | None:
    """What is unfinished in run directory ``out``, in one sentence, or None: a run that started
    (:data:`RUNNING`) and has not written ``_run.json`` since (still running, or stopped: how many
    of its inputs and tasks have no completion marker; in the flat layout a task is a shard), or
    parts without any ``_run.json``. ``names``: ``out``'s listing, when the caller has it."""
    names = storage.listdir(out) if names is None else names
    if RUNNING in names:
        try:
            running = json.loads(storage.read_bytes(storage.join(out, RUNNING)))
            tasks = {k: [p for p in v if isinstance(p, str)] for k, v in running.get("tasks", {}).items()
                     if isinstance(k, str) and isinstance(v, list)}
        except (OSError, ValueError, AttributeError):
            running, tasks = {}, {}
        done = {n[: -len(".json")] for n in storage.listdir(storage.join(out, MARKERS)) if n.endswith(".json")}
        lacking = [k for k in tasks if k not in done]
        inputs = {p for paths in tasks.values() for p in paths}
        inputs_lacking = {p for k in lacking for p in tasks[k]}
        when = running.get("started") or "an unknown time"
        return (f"{out} holds an unfinished run (started {when}): {len(inputs_lacking)} of the {len(inputs)} inputs "
                f"it was reading ({len(lacking)} of {len(tasks)} shards or tasks) have no completion marker; it is "
                f"still running or was stopped: run the same command again to finish it (the rows here are those "
                f"of the shards finished)")
    if MANIFEST not in names and any(n.endswith(PART_SUFFIX) or parse_partition_folder(n) for n in names):
        return (f"{out} has parts but no {MANIFEST}: a run stopped before it finished; run the same command again "
                "to finish it (the rows here are those of the shards finished)")
    return None


# ---------------------------------------------------------------------------------------------
# the manifest


@functools.cache
def dependency_versions() -> dict[str, str | None]:
    """Versions of Python and of every installed package that can change output (the detector
    engines' from their registry, :data:`redecode.detect.ENGINES`)."""
    from .detect import ENGINES  # noqa: PLC0415

    output_packages = ("warcio", "fastwarc", *(d for d in ENGINES.values() if d), "pyarrow", "brotli", "zstandard",
                       "regex")
    versions: dict[str, str | None] = {"python": platform.python_version(), "warc-redecode": __version__,
                                        # which decoders ran (same output either way): "compiled" or "pure"
                                        "decode-core": native.IMPLEMENTATION}
    for name in output_packages + ("duckdb", "ftfy", "click"):
        versions[name] = installed_version(name)
    return versions


def files_not_read(names: list[str], unreadable: dict[str, str] | None = None) -> dict:
    """The manifest's ``files_not_read``: files that the input directories, globs or prefixes held
    under names that look like archives but are not taken as inputs
    (:func:`redecode.inputs.looks_like_archive`: ``.wacz``, ``.warc.gz.bad``...), and directories
    and files that could not be read, which the run did not read: ``{"count": N, "names": [first
    FILES_NOT_READ_LISTED, sorted], "unreadable": [{"path", "error"}, ...]}`` (every unreadable
    one, sorted; their names are in ``names`` too, and they make the run exit 1; the key only when
    there are some)."""
    unreadable = unreadable or {}
    names = sorted(set(names) | set(unreadable))
    listed: dict = {"count": len(names), "names": names[:FILES_NOT_READ_LISTED]}
    if unreadable:
        listed["unreadable"] = [{"path": p, "error": unreadable[p]} for p in sorted(unreadable)]
    return listed


def _cpu_seconds() -> float:
    self_usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return self_usage.ru_utime + self_usage.ru_stime + children.ru_utime + children.ru_stime


class RunClock:
    """When a command started: ``started_at`` (ISO, UTC, seconds), the wall clock and the CPU
    seconds (this process and its reaped children) at that moment."""

    __slots__ = ("started_at", "wall", "cpu")

    def __init__(self) -> None:
        self.started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.wall = time.perf_counter()
        self.cpu = _cpu_seconds()

    @classmethod
    def start(cls) -> RunClock:
        return cls()

    def wall_seconds(self) -> float:
        return round(time.perf_counter() - self.wall, 3)

    def cpu_seconds(self) -> float:
        return round(_cpu_seconds() - self.cpu, 3)


def input_size(path: str) -> int:
    """Size of an input in bytes, 0 when it cannot be read (its shard then records the error)."""
    try:
        return storage.size(path)
    except OSError:
        return 0


@dataclass(slots=True)
class RunSummary:
    """What a run did: the manifest (also written to ``OUT/_run.json``) and derived facts."""

    manifest: dict
    errors: list[str]
    #: inputs found complete in the run directory: nothing of them was read
    resumed: list[str] = field(default_factory=list)
    #: inputs some of whose shards were complete (a run stopped midway): the rest was read
    partial: list[str] = field(default_factory=list)
    #: inputs read again whole because they changed since their markers were written
    changed: list[str] = field(default_factory=list)
    #: inputs read again because an earlier run found them cut short, damaged or unreadable
    retried: list[str] = field(default_factory=list)
    #: inputs of an index run's selection that its index no longer names: their rows removed
    dropped: list[str] = field(default_factory=list)
    #: inputs read again because a part holding their rows was missing or not as written
    remade: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when every input was read to its end, else 1."""
        return 1 if self.errors else 0

    @property
    def counts(self) -> dict:
        return self.manifest["counts"]


# ---------------------------------------------------------------------------------------------
# a command writing a run directory


class RunDirectory:
    """A run directory opened by a command that writes it (see the module docstring).

    Use as a context manager: :meth:`open` creates ``out`` and ``out/_done``, takes the lock (local
    directories; :class:`RunDirectoryLocked` when another process holds it), removes what killed
    commands left (``.tmp-*`` files, ``_staging/``), reads every marker once (one listing of
    ``_done/``, then one read per marker: a bounded layout has one marker per task, a few for
    thousands of inputs) and applies ``foreign``, the policy for parts made under other rules, by
    another :data:`redecode.row.ROW_CODE_VERSION`, with another record ``selection``
    (:class:`redecode.selection.Selection`) or in another ``layout``
    (:class:`redecode.layout.Layout`): ``"refuse"`` raises :class:`RunDirectoryConflict`
    (``force``: removes those parts and markers instead), ``"redo"`` treats them as not complete
    (their shards are redone, replacing the parts). Leaving the context releases the lock and
    removes the (then empty) staging directory; leaving it with an exception (an interrupt, a
    full disk) also removes the temporary files and staging directories of the shards that were
    being written, so a stopped command leaves only published parts and markers.

    Completion is per task (:class:`Task`: a shard in the flat layout, consecutive shards in a
    bounded one): a task is complete when all its shards are and all its parts are present; a task
    that is not is removed whole (marker first, then parts) and its shards are done again.
    """

    def __init__(self, out: str, rules: Rules, *, force: bool = False, foreign: str = "refuse",
                 selection: Selection = ALL, layout: Layout = FLAT) -> None:
        if foreign not in ("refuse", "redo"):
            raise ValueError(f"foreign must be 'refuse' or 'redo', not {foreign!r}")
        self.out = out
        self.rules = rules
        self.force = force
        self.foreign = foreign
        self.selection = selection
        self.layout = layout
        self.remote = storage.is_remote(out)
        self._lock = None
        self._remote_lock: RemoteLock | None = None
        # task key (a flat layout's: the part stem) -> {"parts": [...], "part_bytes": {part: bytes},
        # "shards": [shard markers]}
        self._tasks: dict[str, dict] = {}
        self._parts: set[str] | None = None  # the directory's parts, listed once (parts())
        self._remote_sizes: dict[str, int] = {}  # (a remote directory: the parts' sizes, from that listing)

    def __enter__(self) -> RunDirectory:
        try:
            self.open()
        except BaseException:
            self.close()  # a refused directory is not left locked
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None and not self.remote and self._lock is not None:
            # stopped (an interrupt, a full disk, a bug): what was being written goes, the shards
            # published stay (the executor has stopped its workers before the exception got here)
            try:
                self._clean()
            except OSError:
                pass
        self.close(failing=exc_type is not None)

    def open(self) -> None:
        storage.makedirs(self.out)
        storage.makedirs(storage.join(self.out, MARKERS))
        if not self.remote:
            self._lock = _lock(self.out)
            self._clean()
        else:
            self._remote_lock = RemoteLock(self.out)
            self._remote_lock.take()
            remove_stale_staging()  # what killed attempts of earlier runs left on this machine
        self._tasks = self._read_tasks()
        foreign = {k: t for k, t in self._tasks.items() if not all(self._ours(m) for m in t["shards"])}
        if foreign and self.foreign == "refuse":
            self._refuse(foreign)

    def _ours(self, marker: dict) -> bool:
        """Whether ``marker`` was made by this command's rules, row code, record selection and
        layout."""
        return (marker.get("rules_digest") == self.rules.digest
                and marker.get("row_code_version") == ROW_CODE_VERSION
                and marker.get("selection") == self.selection.to_json()
                and marker.get("layout") == self.layout.to_json())

    def close(self, *, failing: bool = False) -> None:
        """Release the lock (and, locally, remove the staging left by killed attempts).
        ``failing``: the command is ending in an error, which says all there is to say: a lock
        object that cannot be removed (the store gone) is then left without a warning of its own
        (the next run takes it over once stale, and says so if it must wait)."""
        if not self.remote and self._lock is not None:
            # every shard of this command has published or stopped (the lock keeps other commands
            # out): what is left there is a killed attempt's (a Spark task lost with its worker)
            _remove_folder(os.path.join(self.out, STAGING))
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        if self._remote_lock is not None:
            self._remote_lock.release(quiet=failing)
            self._remote_lock = None
            remove_stale_staging(root_too=True)

    def _clean(self) -> None:
        folders = (self.out, os.path.join(self.out, MARKERS), os.path.join(self.out, INPUTS_TABLE),
                   *self._partition_folders())
        for directory in folders:
            if not os.path.isdir(directory):
                continue
            for name in os.listdir(directory):
                if name.startswith(storage.TMP_PREFIX):
                    os.unlink(os.path.join(directory, name))
        _remove_folder(os.path.join(self.out, STAGING))

    def _partition_folders(self) -> list[str]:
        """The local run directory's partition folders (``COLUMN=VALUE``)."""
        try:
            return [e.path for e in os.scandir(self.out) if e.is_dir() and parse_partition_folder(e.name)]
        except OSError:
            return []

    def _read_tasks(self) -> dict[str, dict]:
        """Every readable marker, as tasks by key: one listing, then one read per marker (32 at a
        time remotely)."""
        names = [n[: -len(".json")] for n in storage.listdir(storage.join(self.out, MARKERS))
                 if n.endswith(".json") and not n.startswith(storage.TMP_PREFIX)]

        def read(stem: str) -> dict | None:
            try:
                return json.loads(storage.read_bytes(marker_path(self.out, stem)))
            except (FileNotFoundError, ValueError):
                return None

        if self.remote and len(names) > 1:
            from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

            with ThreadPoolExecutor(max_workers=32) as pool:
                read_back = list(pool.map(read, names))
        else:
            read_back = [read(name) for name in names]
        # a marker that does not name its own parts is ignored (marker_is_valid): never trusted
        # with a path
        return {stem: _task_of(m) for stem, m in zip(names, read_back) if marker_is_valid(m, stem)}

    def add(self, markers: list[dict]) -> list[dict]:
        """Record the markers of tasks just run (as their per-task function returned them); return
        their shards' markers (:func:`shard_markers`, made once)."""
        out = []
        for marker in markers:
            task = _task_of(marker)
            key = marker["task"] if "shards" in marker else stem_of(marker["part"])
            self._tasks[key] = task
            if self._parts is not None:
                self._parts.update(task["parts"])
            out.extend(task["shards"])
        return out

    def _remove_task(self, key: str) -> None:
        """Remove task ``key``'s marker, then its parts (never a marker without its parts)."""
        task = self._tasks.pop(key, None)
        storage.remove(marker_path(self.out, key))
        for part in (task or {}).get("parts", ()):
            self._remove_part(part)

    def _remove_part(self, part: str) -> None:
        storage.remove(storage.join(self.out, part))
        if self._parts is not None:
            self._parts.discard(part)

    def _refuse(self, foreign: dict[str, dict]) -> None:
        if not self.force:
            rules = self.rules
            shards = [m for t in foreign.values() for m in t["shards"]]
            theirs = sorted({f"{m.get('rules')} ({str(m.get('rules_digest'))[:12]})" for m in shards})
            differences = self._differences(shards)
            first = (f" They differ first in {differences[0]}"
                     + (f", and in {len(differences) - 1} more (-v lists them)" if len(differences) > 1 else "")
                     + "." if differences else "")
            kinds = [what for what, differs in (
                ("other rules", any(m.get("rules_digest") != rules.digest for m in shards)),
                ("another version of this job",
                 any(m.get("row_code_version") != ROW_CODE_VERSION for m in shards)),
                ("another record selection",
                 any(m.get("selection") != self.selection.to_json() for m in shards)),
                ("another layout", any(m.get("layout") != self.layout.to_json() for m in shards))) if differs]
            here = f"{rules.name} ({rules.digest[:12]})"
            if "other rules" in kinds:
                whose = f": {', '.join(theirs)}; this run uses {here}"
            else:
                whose = f", under this run's rules too ({here})"
            raise RunDirectoryConflict(
                f"{self.out} holds {len(foreign)} part(s) made with {' and '.join(kinds)}{whose}.{first} Write to "
                "another --out, or add --force to replace them.",
                details=f"{self.out}: they differ in: {'; '.join(differences)}" if differences else "",
            )
        for key in foreign:
            self._remove_task(key)

    def _differences(self, foreign: list[dict]) -> list[str]:
        """``["procedure (browser here, author there)", ...]``: what differs between this run and
        the parts in the run directory (``foreign``: their shards' markers), most telling first: the
        rule parameters (``procedure`` first), the versions of what they use (from the manifest,
        the last run into it), the record -> row code, the record selection and the layout (from
        the parts' markers)."""
        def shown(v: object) -> str:
            return "none" if v is None else str(v)

        out = []
        try:
            prior = json.loads(storage.read_bytes(storage.join(self.out, MANIFEST)))["rules"]
        except Exception:  # noqa: BLE001 - no manifest or an unreadable one: the markers only
            prior = None
        if isinstance(prior, dict):
            for here, there in ((self.rules.parameters(), prior.get("parameters") or {}),
                                (self.rules.versions(), prior.get("versions") or {})):
                keys = sorted(set(here) | set(there), key=lambda k: (k != "procedure", k))
                out += [f"{k} ({shown(here.get(k))} here, {shown(there.get(k))} there)"
                        for k in keys if here.get(k) != there.get(k)]
        codes = sorted({str(m.get("row_code_version")) for m in foreign} - {ROW_CODE_VERSION})
        if codes:
            out.append(f"row code, the version of this job's record -> row code ({ROW_CODE_VERSION} here, "
                       f"{', '.join(codes)} there)")
        here = self.selection.to_json()
        selections = [Selection.from_json(m.get("selection")) for m in foreign
                      if m.get("selection") != here]
        if selections:
            there = sorted({s.describe() for s in selections})
            out.append(f"record selection ({self.selection.describe()} here, {', '.join(there)} there)")
        layouts = sorted({Layout.from_json(m.get("layout")).describe() for m in foreign
                          if m.get("layout") != self.layout.to_json()})
        if layouts:
            out.append(f"layout ({self.layout.describe()} here, {', '.join(layouts)} there)")
        return out

    # -- questions a command asks --

    def parts(self) -> set[str]:
        """The part names present in the run directory (relative; partition folders searched),
        from one listing (recursive for a bounded layout with partition folders) made the first
        time it is asked; kept up to date with the parts this command removes and adds."""
        if self._parts is None:
            if self.remote:  # (with their sizes, for resume: the same one listing)
                self._remote_sizes = _remote_part_sizes(self.out, partitioned=self.layout.partition_by is not None)
                self._parts = set(self._remote_sizes)
            elif self.layout.partition_by is None:
                self._parts = {n for n in storage.listdir(self.out) if n.endswith(PART_SUFFIX)}
            else:
                self._parts = set(list_parts(self.out))
        return set(self._parts)

    def forget(self, shards: list[Shard]) -> None:
        """Remove every task holding a shard of the inputs of ``shards`` (markers first, then parts):
        ``--force`` writes their rows anew."""
        current = {s.path for s in shards}
        for key in [k for k, t in self._tasks.items() if any(m["path"] in current for m in t["shards"])]:
            self._remove_task(key)

    def drop_other_inputs(self, paths: list[str]) -> list[str]:
        """Remove every task holding a shard of an input not among ``paths`` (markers first, then
        parts; a bounded task's other inputs are then done again); return those inputs, sorted.
        An index run's: its index names every input of its selection, so the directory keeps no
        rows of records the index no longer selects (nor, under ``foreign="redo"``, another
        selection's rows of inputs this one does not read)."""
        current = set(paths)
        gone: set[str] = set()
        for key, task in list(self._tasks.items()):
            others = {m["path"] for m in task["shards"] if m["path"] not in current}
            if others:
                gone |= others
                self._remove_task(key)
        return sorted(gone)

    def complete(self, shards: list[Shard], max_record_bytes: int | None = None) -> dict[tuple[str, int], dict]:
        """The markers of the ``shards`` that are complete, by ``(path, index)``: what a rerun
        skips (:meth:`resume`, whose removals it makes too)."""
        return self.resume(shards, max_record_bytes).markers

    def resume(self, shards: list[Shard], max_record_bytes: int | None = None,
               listed: dict[str, dict] | None = None) -> Resume:
        """What a rerun of ``shards`` may skip, and what it must read again.

        A shard is complete when its marker is current (:func:`marker_is_current`), its outcome
        is in :data:`FINISHED` (``complete``, or ``limited`` by ``--limit``), its task's parts are
        present, each of the size in bytes its marker recorded (``part_bytes``; a marker written
        before sizes were recorded: present), and its input is unchanged since the marker's ``input`` was taken
        (:func:`input_states`: locally size, mtime and the hash of both ends; an object's size and
        ETag from a listing, ``listed`` (path -> the listing's entry, as
        :func:`redecode.inputs.expand_inputs` gives them) or one per folder holding the inputs,
        without reading any object). A task is complete when all its shards are; one that is not
        is removed whole (marker first, then parts), so its shards are done again, and rows of an
        input's old version never sit beside the new ones: an input whose marker's outcome was
        not in :data:`FINISHED` is ``retried`` (cut short, damaged, unreadable; read again even when
        unchanged), one that changed ``changed``, one complete but for a part missing or not as
        written (cut short, replaced, removed by hand) ``remade``.
        """
        plan = {(s.path, s.index): s for s in shards}
        current = {s.path for s in shards}
        candidates = {k: t for k, t in self._tasks.items() if any(m["path"] in current for m in t["shards"])}
        paths = sorted({m["path"] for t in candidates.values() for m in t["shards"] if m["path"] in current})
        now = input_states(paths, listed)
        differ, retried = set(), set()
        for task in candidates.values():
            for m in task["shards"]:
                if m["path"] not in current:
                    continue
                if not same_input(m.get("input"), now.get(m["path"])):
                    differ.add(m["path"])
                if m.get("outcome") not in FINISHED:
                    retried.add(m["path"])
        present = self.parts() if candidates else set()
        sizes = self._part_sizes([p for task in candidates.values() for p in task.get("part_bytes", ())
                                  if p in present])
        found: dict[tuple[str, int], dict] = {}
        remade = set()
        for key, task in candidates.items():
            shards_done = all(
                m.get("outcome") in FINISHED and self._ours(m)
                and (m["path"] not in current
                     or (m["path"] not in differ and (m["path"], m["shard"]) in plan
                         and marker_is_current(m, plan[(m["path"], m["shard"])], self.rules.digest,
                                               max_record_bytes, self.selection)))
                for m in task["shards"])
            parts_whole = all(part in present for part in task["parts"]) and all(
                sizes.get(part) == n for part, n in task.get("part_bytes", {}).items() if part in task["parts"])
            if shards_done and parts_whole:
                found.update(((m["path"], m["shard"]), m) for m in task["shards"] if m["path"] in current)
            else:
                if shards_done:  # (its rows are made again: say so)
                    remade.update(m["path"] for m in task["shards"] if m["path"] in current)
                self._remove_task(key)
        return Resume(found, sorted(differ - retried), sorted(retried), sorted(remade - differ - retried))

    def _part_sizes(self, parts: list[str]) -> dict[str, int | None]:
        """The sizes in bytes of ``parts`` (names relative to the run directory) as they are now:
        a ``stat`` each locally, from the listing :meth:`parts` made remotely; None where one is
        not there."""
        if not parts:
            return {}
        if self.remote:  # (the listing parts() made: a part this command wrote since has no size here)
            self.parts()
            return {part: self._remote_sizes.get(part) for part in parts}
        local = storage.local_path(self.out)
        sizes: dict[str, int | None] = {}
        for part in parts:
            try:
                sizes[part] = os.stat(os.path.join(local, part)).st_size
            except OSError:
                sizes[part] = None
        return sizes

    def redo_bad_boundaries(self, shards: list[Shard], markers: dict[tuple[str, int], dict]
                            ) -> tuple[list[Shard], list[Shard]]:
        """``(shards, to_redo)``: an input cut into several shards whose shards did not meet
        exactly (a marker with ``boundary_ok`` false: a record start faked inside a payload) or did
        not all complete (a later cut may lie inside a damaged record's block) loses its tasks
        (markers first, then parts) and gets one whole-file shard, returned in ``to_redo`` for the
        caller to run with the other shards those tasks held, so that rows never depend on how a
        file was cut. The whole-file shard carries the input's fingerprint from its first shard's
        marker (``began``): a file that changed while the run read it (the reason its shards did not
        meet) is then ``truncated``, never ``complete`` at its new size."""
        counts = Counter(s.path for s in shards)
        bad = {
            s.path
            for s in shards
            if counts[s.path] > 1 and s.spans is None  # (an index's records: no cut to meet)
            and (not markers[(s.path, s.index)].get("boundary_ok", True)
                 or markers[(s.path, s.index)]["outcome"] != "complete")
        }
        if not bad:
            return shards, []
        redo_keys = {_key_of(markers[(s.path, s.index)]) for s in shards if s.path in bad}
        for key in sorted(redo_keys):
            self._remove_task(key)
        kept, redo = [], []
        for s in shards:
            if s.path in bad:
                continue
            if _key_of(markers[(s.path, s.index)]) in redo_keys:
                del markers[(s.path, s.index)]
                redo.append(s)  # (a bounded task shared with a bad input: its other shards too)
            kept.append(s)
        for path in sorted(bad):
            began = None
            for s in sorted((s for s in shards if s.path == path), key=lambda s: s.index):
                # (the first shard's fingerprint: the file as the run first found it)
                began = began or markers[(s.path, s.index)].get("input")
                del markers[(s.path, s.index)]
            whole = Shard(path, 0, 0, None, began=began)
            kept.append(whole)
            redo.append(whole)
        return kept, redo

    def remove_stale_parts(self, paths: list[str], shards: list[Shard]) -> None:
        """Remove parts and markers of these inputs that the current shard plan does not have (left
        by an earlier run with another shard size), and, in a bounded layout, parts no marker names
        (a task stopped before its marker), so the run directory never holds a record twice."""
        if not self.layout.flat:
            named = {p for t in self._tasks.values() for p in t["parts"]}
            for part in self.parts():
                if part not in named and part.rpartition("/")[2].startswith("part-"):
                    self._remove_part(part)
            return
        wanted = {part_stem(s.path, s.index) for s in shards}
        prefixes = {part_stem(p, 0)[: -len("0000")] for p in paths}

        def stale(stem: str) -> bool:
            prefix, _, _index = stem.rpartition(".")
            return prefix + "." in prefixes and stem not in wanted

        for part in self.parts():
            if stale(stem_of(part)):
                self._remove_part(part)
        for stem in [k for k in self._tasks if stale(k)]:
            self._tasks.pop(stem)
            storage.remove(marker_path(self.out, stem))

    def earlier_inputs(self, paths: list[str]) -> tuple[list[str], list[Shard], dict[tuple[str, int], dict]]:
        """``(paths, shards, markers)`` of inputs completed in the directory by earlier commands
        with the same rules but not among ``paths``: they stay, so the manifest lists them too (a
        nightly run adds archives)."""
        current = set(paths)
        present = self.parts()
        shards, markers = [], {}
        for _, task in sorted(self._tasks.items()):
            if not all(p in present for p in task["parts"]):
                continue
            for m in task["shards"]:
                if m.get("path") in current or not self._ours(m):
                    continue
                shard = Shard(m["path"], m["shard"], m["start"], m["end"])
                shards.append(shard)
                markers[(shard.path, shard.index)] = m
        return sorted({s.path for s in shards}), shards, markers

    def manifest(self, paths: list[str], shards: list[Shard], markers: dict[tuple[str, int], dict],
                 clock: RunClock) -> dict:
        """The manifest of ``paths`` made of ``shards`` whose markers are ``markers``: per input its
        parts, outcome, first error and summed counts (:func:`input_entries`); the run's counts,
        rules, versions, layout, working directory (what relative input paths are relative to)
        and times."""
        inputs = input_entries(paths, shards, markers)
        total = ShardCounts()
        for entry in inputs:
            total.merge(ShardCounts.from_json(entry["counts"]))
        rules = self.rules
        manifest = {
            "schema_version": SCHEMA_VERSION,
            "redecode_version": __version__,
            "row_code_version": ROW_CODE_VERSION,
            "rules": {"name": rules.name, "digest": rules.digest, "parameters": rules.parameters(),
                      "versions": rules.versions()},
            # the records taken (--limit, --sample; None: every record), see redecode.selection
            "selection": self.selection.to_json(),
            "dependencies": dependency_versions(),
            # what relative input paths (as given, and as rows' warc_path holds them) are relative to;
            # backfill resolves them against it
            "cwd": os.getcwd(),
            "started_at": clock.started_at,
            "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "wall_seconds": clock.wall_seconds(),
            "cpu_seconds": clock.cpu_seconds(),
            "inputs": inputs,
            "counts": total.to_json(),
        }
        if not self.layout.flat:
            manifest["layout"] = self.layout.to_json()
        return manifest

    @property
    def lock_id(self) -> str | None:
        """The run's id in an object store's lock (shards check it before publishing), else None."""
        return self._remote_lock.run_id if self._remote_lock is not None else None

    def start(self, tasks: list[Task]) -> None:
        """Before ``tasks`` run: record the run as unfinished (:data:`RUNNING`: the marker each
        task writes and the inputs it reads, see :func:`incomplete`) until :meth:`write_manifest`.
        (Their old markers are gone: :meth:`resume` removed every task not complete.)"""
        write_running(self.out, self.lock_id or f"{platform.node()}-{os.getpid()}",
                      {t.key: sorted({s.path for s in t.shards}) for t in tasks})

    def write_manifest(self, manifest: dict) -> None:
        """Write the per-input table (:data:`INPUTS_TABLE`, every entry of ``manifest["inputs"]``,
        replacing the batches written while the run went on), then ``OUT/_run.json``: the
        manifest, with the inputs inline only when there are at most :data:`INPUTS_LISTED` of
        them (else ``inputs`` is null: the table has them); ``input_count`` and ``inputs_table``
        always. An object store's lock is checked first (still this run's); the record of an
        unfinished run (:data:`RUNNING`) is removed last."""
        if self._remote_lock is not None:
            self._remote_lock.check()
        entries = manifest["inputs"]
        write_inputs_table(self.out, INPUTS_FILE, entries)
        for name in storage.listdir(storage.join(self.out, INPUTS_TABLE)):
            if name.startswith(INPUTS_BATCH):
                storage.remove(storage.join(self.out, INPUTS_TABLE, name))
        doc = dict(manifest, input_count=len(entries), inputs_table=f"{INPUTS_TABLE}/{INPUTS_FILE}")
        if len(entries) > INPUTS_LISTED:
            doc["inputs"] = None
        write_json(storage.join(self.out, MANIFEST), doc)
        storage.remove(storage.join(self.out, RUNNING))

    def record_inputs(self, entries: list[dict], clock: RunClock, seq: int) -> None:
        """Write the per-input records of inputs finished so far, ``entries`` (as
        :func:`input_entries` makes them), as batch ``seq`` of this run in the per-input table, as
        shards finish: what a run stopped midway had done is in the table before the manifest."""
        if entries:
            stamp = clock.started_at.replace(":", "").replace("-", "").replace("+", "Z")
            write_inputs_table(self.out, f"{INPUTS_BATCH}{stamp}-{seq:05d}.parquet", entries)


@dataclass(slots=True)
class Resume:
    """:meth:`RunDirectory.resume`'s answer: ``markers`` of the complete shards by ``(path,
    index)``; ``changed`` inputs (removed, to be read again whole), ``retried`` inputs (an
    earlier outcome other than ``complete``) and ``remade`` inputs (done before, but a part
    holding their rows is missing from the run directory or not the size its marker recorded:
    removed, to be read again)."""

    markers: dict[tuple[str, int], dict]
    changed: list[str]
    retried: list[str]
    remade: list[str] = field(default_factory=list)


def input_states(paths: list[str], listed: dict[str, dict] | None = None) -> dict[str, dict | None]:
    """What is known now of each input of ``paths``, to compare with a marker's ``input``
    (:func:`same_input`): a local file's :func:`redecode.storage.fingerprint` (a ``stat`` and two
    64 KiB reads); an object's size and ETag from ``listed`` (the listing the inputs were expanded
    from) or else from one listing per folder holding several of them
    (:func:`redecode.storage.stat_objects`: no request per object). None: not there."""
    out: dict[str, dict | None] = {}
    # (a file inside a WACZ: its fingerprint, the container's stat and the member's CRC-32)
    remote = [p for p in paths if storage.is_remote(p) and storage.split_member(p) is None]
    listed_remote = set(remote)
    for path in paths:
        if path not in listed_remote:
            out[path] = storage.fingerprint(path)
    if remote:
        out.update(storage.stat_objects(remote, listed))
    return out


def same_input(old: dict | None, now: dict | None) -> bool:
    """Whether an input is still the one a marker's ``old`` fingerprint was taken of, by ``now``
    (:func:`input_states`): the same size, and the same ETag when both have one (an object's ETag
    changes with its content; a WACZ member's CRC-32 too when they have one), else the same
    fingerprint (mtime and hash of both ends; a WACZ member's container stat and CRC-32)."""
    if not old or not now or old.get("size") != now.get("size"):
        return False
    tag_old, tag_now = storage.etag_of(old), storage.etag_of(now)
    if tag_old is not None and tag_now is not None:
        return tag_old == tag_now and old.get("crc32") == now.get("crc32")
    return old == now


def _remote_part_sizes(out: str, *, partitioned: bool) -> dict[str, int]:
    """``{part name: size in bytes}`` of the parts in the remote run directory ``out`` (names as
    :func:`list_parts` gives them), from one listing: of ``out`` itself, or recursive when the
    layout has partition folders."""
    if not partitioned:
        return {n: size for n, size in storage.listdir_sizes(out).items()
                if n.endswith(PART_SUFFIX) and size is not None}
    base = out.rstrip("/") + "/"
    return {url[len(base):]: int(entry.get("size") or 0) for url, entry in storage.find_details(out).items()
            if url.startswith(base) and is_part_name(url[len(base):])}


def list_parts(out: str) -> list[str]:
    """The part names in run directory ``out``, relative to it: ``*.parquet`` directly in it and in
    its Hive-style partition folders (``COLUMN=VALUE/``, :mod:`redecode.layout`), not hidden, not
    under ``_`` folders; one recursive listing remotely."""
    found = []
    if storage.is_remote(out):
        base = out.rstrip("/") + "/"
        for url in storage.find(out):
            rel = url[len(base):] if url.startswith(base) else None
            if rel is not None and is_part_name(rel):
                found.append(rel)
        return sorted(found)
    local = storage.local_path(out)
    try:
        entries = sorted(os.scandir(local), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        if entry.is_file() and is_part_name(entry.name):
            found.append(entry.name)
        elif entry.is_dir() and parse_partition_folder(entry.name):
            found.extend(f"{entry.name}/{n}" for n in sorted(os.listdir(entry.path)) if is_part_name(f"{entry.name}/{n}"))
    return found


def input_entries(paths: list[str], shards: list[Shard], markers: dict[tuple[str, int], dict]) -> list[dict]:
    """The manifest's per-input records of ``paths`` made of ``shards`` whose markers are
    ``markers``: ``path``, ``size``, ``parts`` (the parts holding its rows; in a bounded layout
    shared with other inputs), ``part`` (the one, or None), ``outcome``, ``error``,
    ``error_offset``, ``rows``, ``counts``, ``damaged``."""
    inputs = []
    by_path: dict[str, list[Shard]] = {}
    for s in shards:
        by_path.setdefault(s.path, []).append(s)
    for path in paths:
        counts = ShardCounts()
        parts: dict[str, None] = {}
        errors, offsets, damaged = [], [], []
        outcome = "complete"
        size = None
        for shard in by_path.get(path, ()):
            marker = markers[(shard.path, shard.index)]
            size = marker.get("size", size)
            counts.merge(ShardCounts.from_json(marker["counts"]))
            parts.update(dict.fromkeys(parts_of(marker)))
            damaged.extend(marker.get("damaged") or ())
            if marker["outcome"] != "complete":
                outcome = marker["outcome"]
            if marker.get("error"):  # (a shard stopped by --limit is not an error)
                errors.append(marker["error"])
                offsets.append(marker["error_offset"])
        part_list = list(parts)
        inputs.append({
            "path": path,
            "size": size if size is not None else input_size(path),
            "parts": part_list,
            "part": part_list[0] if len(part_list) == 1 else None,
            "outcome": outcome,
            "error": "; ".join(errors) if errors else None,
            "error_offset": offsets[0] if offsets else None,
            "rows": counts.records_seen,
            "counts": counts.to_json(),
            "damaged": damaged,
        })
    return inputs


def _inputs_schema():
    import pyarrow as pa  # noqa: PLC0415

    return pa.schema([
        ("path", pa.string()), ("size", pa.int64()), ("parts", pa.list_(pa.string())), ("part", pa.string()),
        ("outcome", pa.string()), ("error", pa.string()), ("error_offset", pa.int64()), ("rows", pa.int64()),
        ("decoded", pa.int64()), ("skipped", pa.int64()), ("failed", pa.int64()), ("records_total", pa.int64()),
        ("selected", pa.int64()), ("read", pa.int64()), ("missing", pa.int64()), ("bytes_read", pa.int64()),
        ("counts", pa.string()), ("damaged", pa.string()),
    ], metadata={b"redecode.table": b"inputs", b"redecode.schema_version": SCHEMA_VERSION.encode()})


def write_inputs_table(out: str, name: str, entries: list[dict]) -> None:
    """Write ``entries`` (:func:`input_entries`) as ``OUT/_inputs/<name>``: one row per input,
    its counts flattened (``rows``, ``decoded``...; ``counts`` and ``damaged`` also as JSON),
    atomically (locally a temporary name and a rename; remotely one upload). Raises
    :class:`redecode.storage.OutputError`."""
    import pyarrow as pa  # noqa: PLC0415

    from .writer import TableWriter  # noqa: PLC0415

    schema = _inputs_schema()
    rows = []
    for e in entries:
        c = e.get("counts") or {}
        rows.append({
            "path": storage.path_text(e["path"]), "size": e.get("size"), "parts": e.get("parts") or [],
            "part": e.get("part"), "outcome": e.get("outcome"), "error": e.get("error"),
            "error_offset": e.get("error_offset"), "rows": e.get("rows"), "decoded": c.get("decoded"),
            "skipped": c.get("skipped"), "failed": c.get("failed"), "records_total": c.get("records_total"),
            "selected": c.get("selected"), "read": c.get("read"), "missing": c.get("missing"),
            "bytes_read": c.get("bytes_read"), "counts": json.dumps(c, sort_keys=True),
            "damaged": json.dumps(e.get("damaged") or []),
        })
    table = pa.Table.from_pylist(rows, schema=schema)
    folder = storage.join(out, INPUTS_TABLE)
    storage.makedirs(folder)
    if storage.is_remote(out):
        staging = tempfile.mkdtemp(prefix="redecode-inputs-")
        try:
            local = os.path.join(staging, name)
            with TableWriter(local, schema) as writer:
                writer.write_batch(table.to_batches()[0] if table.num_rows else pa.RecordBatch.from_pylist([], schema))
            storage.publish_file(local, storage.join(folder, name))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return
    with TableWriter(os.path.join(storage.local_path(folder), name), schema) as writer:
        for batch in table.to_batches():
            writer.write_batch(batch)


def manifest_inputs(out: str, manifest: dict) -> list[dict]:
    """The per-input records of run directory ``out`` whose ``_run.json`` is ``manifest``: inline
    when it lists them, else from the per-input table (:data:`INPUTS_TABLE`; ``[]`` when there is
    none). The entries are :func:`input_entries`'s."""
    if manifest.get("inputs") is not None:
        return list(manifest["inputs"])
    name = manifest.get("inputs_table") or f"{INPUTS_TABLE}/{INPUTS_FILE}"
    if not isinstance(name, str) or name.startswith(("/", ".")) or ".." in name.split("/"):
        return []
    import pyarrow.parquet as pq  # noqa: PLC0415

    try:
        with storage.open_input(storage.join(out, name)) as fh:
            rows = pq.read_table(fh).to_pylist()
    except FileNotFoundError:
        return []
    return [{"path": r["path"], "size": r["size"], "parts": r["parts"] or [], "part": r["part"],
             "outcome": r["outcome"], "error": r["error"], "error_offset": r["error_offset"], "rows": r["rows"],
             "counts": json.loads(r["counts"] or "{}"), "damaged": json.loads(r["damaged"] or "[]")}
            for r in rows]


def _task_of(marker: dict) -> dict:
    """A published marker as a task: its ``parts``, their sizes as written (``part_bytes``: name ->
    bytes; ``{}`` for a marker written before they were recorded) and its shards' markers."""
    recorded = marker.get("part_bytes")
    part_bytes = ({p: n for p, n in recorded.items() if isinstance(n, int)}
                  if isinstance(recorded, dict) else {})
    return {"parts": parts_of(marker), "part_bytes": part_bytes, "shards": shard_markers(marker)}


def _key_of(marker: dict) -> str:
    """The key of the task a shard's marker belongs to."""
    return marker.get("task") or stem_of(marker["part"])


def _layout_note(layout: Layout) -> str:
    return "" if layout.flat else f", {layout.describe()}"


def lock_directory(out: str):
    """Take the exclusive lock on local directory ``out`` (``OUT/_lock``, ``flock``) that every
    command writing a directory holds; returns the open file (closing it, or leaving it as a
    context manager, releases the lock; so does the process's death). Raises
    :class:`RunDirectoryLocked` when another command (or a worker it left) holds it."""
    return _lock(out)


def _lock(out: str):
    """Take an exclusive lock on ``OUT/_lock``; returns the open file (closing it releases the lock).

    Raises :class:`RunDirectoryLocked` when another run (or a worker it left) holds it."""
    import fcntl  # noqa: PLC0415 - POSIX only, and only for local directories

    fh = open(os.path.join(out, LOCK), "a+")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        raise RunDirectoryLocked(
            f"{out} is being written by another redecode run (lock {out}/_lock); "
            "wait for it to finish, or stop it, then run again"
        ) from None
    return fh
