"""The run directory: parts, completion markers, manifest, lock and staging, for local paths and URLs.

Contract. A run directory ``OUT`` (a local path, or a URL of any fsspec filesystem through
:mod:`redecode.storage`) holds:

- ``<archive name>.<8 hex>.<shard>.parquet`` (:func:`part_stem`): the rows of one shard of one
  input, in archive order. The 8 hex digits are the start of sha1 of the input path as given, so
  two inputs with the same name in different folders do not collide; the name is deterministic, so
  a redone or retried shard replaces its part and never adds one.
- ``_done/<part stem>.json``: the shard's completion marker (its byte range, counts, outcome, rules
  digest, :data:`redecode.row.ROW_CODE_VERSION`, ``max_record_bytes``, the record selection of
  :mod:`redecode.selection` and the row limit the shard was given, and ``input``: the input's
  :func:`redecode.storage.fingerprint` taken before it was read), published after its part. A
  shard is complete iff its marker is current (:func:`marker_is_current`), its outcome is
  ``complete`` (or ``limited``: stopped by ``--limit``), its part exists and its input's
  fingerprint is unchanged (:meth:`RunDirectory.resume`). An input whose fingerprint changed
  (records appended, cut short, replaced) loses all its parts and markers, markers first, before it
  is read again whole, so the directory never holds rows of two versions of one file; an input
  whose outcome was ``truncated``, ``damaged`` or ``error`` is read again.
- ``_run.json``: the manifest (:meth:`RunDirectory.manifest`), rewritten at the end of every run
  from all markers.
- ``_lock`` (local only): held (``flock``) while a command writes the directory; it stays, and
  means nothing by itself.
- ``.tmp-*.tmp`` (local only, :func:`redecode.storage.temp_path`): files being written (a part or a
  JSON file before its rename; never matched by ``*.parquet``), and
  ``_staging/`` (local only): per-attempt directories of staged shards; both are removed when the
  next command opens the directory.

Writing is atomic: a part or marker appears under its final name only complete (a temporary
name and ``os.replace`` locally; one PUT on an object store, :func:`redecode.storage.publish_file`).
:func:`publish_shard` runs a per-shard function into the directory, or, staged, into a private
directory first and then publishes the part and then the marker: staged shards are what executors
whose attempts may run twice (Spark's retries and speculation) and remote directories need.

:class:`RunDirectory` is what a command holds while it writes: it takes the lock, cleans up, reads
the markers once, applies the policy for parts made under other rules, and answers the questions a
command asks (which shards are complete, which inputs must be redone whole, which parts are stale,
which inputs earlier runs left) before it writes the manifest.

Deviations: none. Object stores have no locks: two runs into one URL are the caller's to avoid.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import resource
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, TypeVar

from . import __version__, native, storage
from .schema import SCHEMA_VERSION, STATUS_DECODED, STATUS_SKIPPED
from .selection import ALL, Selection
from .versions import version as installed_version

if TYPE_CHECKING:
    from .rules import Rules

__all__ = [
    "FILES_NOT_READ_LISTED",
    "FINISHED",
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
    "dependency_versions",
    "completion_marker",
    "files_not_read",
    "input_size",
    "is_part_name",
    "marker_is_current",
    "marker_is_valid",
    "marker_path",
    "part_stem",
    "publish_shard",
    "remade_marker",
    "stem_of",
    "write_json",
    "write_marker",
]

T = TypeVar("T")

PART_SUFFIX = ".parquet"
MARKERS = "_done"
MANIFEST = "_run.json"
LOCK = "_lock"
#: Shard outcomes a rerun keeps: read to the end, or to the row limit the shard was given
#: (``--limit``). Any other (``truncated``, ``damaged``, ``error``) is read again.
FINISHED = frozenset({"complete", "limited"})
STAGING = "_staging"

#: Version of the record -> row code outside the rules (:mod:`redecode.row`: status, skip reasons,
#: and the archive, HTTP and MIME handling it relies on). Bump it whenever a change there can change
#: a row for the same rules; it goes into every completion marker and the manifest, and backfill
#: reads every record again when a prior run's version differs (the rules digest does not cover
#: this code).
ROW_CODE_VERSION = "2026.12.2"  # 2026.12.2: schema 1.3's derived columns (row.text_columns)

#: How many names of files not read ``_run.json`` lists (the count is always complete).
FILES_NOT_READ_LISTED = 100



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
    ``index``-th of its input's shard plan."""

    path: str
    index: int
    start: int
    end: int | None


def part_stem(path: str, shard_index: int) -> str:
    """File stem of the part holding shard ``shard_index`` of input ``path``: ``<archive
    name>.<8 hex of sha1(path)>.<shard:04d>``. In the archive name, a byte that is not UTF-8
    (Python's surrogate escape) and a backslash are written ``%XX``: part names are UTF-8 (for the
    markers that name them) and DuckDB's glob (``DIR/*.parquet``) passes over a name with a
    backslash; the digest, of the exact path, keeps such names apart."""
    digest = hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{_name_for_part(os.path.basename(path))}.{digest}.{shard_index:04d}"


def _name_for_part(name: str) -> str:
    if name.isascii() and "\\" not in name:
        return name
    raw = name.encode("utf-8", "surrogateescape").replace(b"%", b"%25").replace(b"\\", b"%5C")
    text = raw.decode("utf-8", "surrogateescape")
    return "".join(f"%{ord(c) - 0xDC00:02X}" if "\udc80" <= c <= "\udcff" else c for c in text)


def stem_of(part: str) -> str:
    """The stem of a part's file name (its name without ``.parquet``), which names its marker."""
    return part[: -len(PART_SUFFIX)] if part.endswith(PART_SUFFIX) else part


def marker_path(out: str, stem: str) -> str:
    """Where the completion marker of the part ``stem`` lives in run directory ``out``."""
    return storage.join(out, MARKERS, stem + ".json")


def is_part_name(name: object) -> bool:
    """Whether ``name`` (from a marker or a manifest, which anyone can edit) is a plain part file
    name: a ``str`` ending in ``.parquet``, without a directory separator, not hidden and not
    ``.``/``..``. Only such names are ever joined to a run directory, so that a crafted
    ``_done/*.json`` (``"part": "../../x"``) cannot make a command read or delete a file outside
    ``--out``."""
    return (
        isinstance(name, str)
        and name.endswith(PART_SUFFIX)
        and len(name) > len(PART_SUFFIX)
        and "/" not in name
        and os.sep not in name
        and "\0" not in name
        and not name.startswith(".")
    )


def marker_is_valid(marker: object, stem: str) -> bool:
    """Whether ``marker``, read from ``_done/<stem>.json``, names its own part: a dict whose
    ``part`` is ``<stem>.parquet`` (:func:`is_part_name`) and whose ``path``, ``shard``, ``start``
    and ``end`` have their types. Anything else is ignored as if there were no marker: its shard is
    done again and the marker rewritten; nothing it names is read or removed."""
    return (
        isinstance(marker, dict)
        and marker.get("part") == stem + PART_SUFFIX
        and is_part_name(marker.get("part"))
        and isinstance(marker.get("path"), str)
        and isinstance(marker.get("shard"), int)
        and isinstance(marker.get("start"), int)
        and (marker.get("end") is None or isinstance(marker.get("end"), int))
        and isinstance(marker.get("counts"), dict)
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
    readable record, skipped to the next record start)."""
    return {
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
    """Publish ``marker`` under ``out/_done/`` (atomically; after the part it names)."""
    write_json(marker_path(out, stem_of(marker["part"])), marker)


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

    def add_row(self, row: dict) -> None:
        self.records_seen += 1
        status = row["status"]
        if status == STATUS_DECODED:
            self.decoded += 1
        elif status == STATUS_SKIPPED:
            self.skipped += 1
            self.by_skip_reason[row["skip_reason"]] += 1
        else:
            self.failed += 1
            self.by_error_kind[row["error_kind"]] += 1

    def merge(self, other: ShardCounts) -> None:
        for name in (*_SUMS, "bytes_read"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in _BREAKDOWNS:
            getattr(self, name).update(getattr(other, name))

    def to_json(self) -> dict:
        """The marker's and manifest's ``counts`` (breakdowns sorted by key)."""
        out: dict = {name: getattr(self, name) for name in _SUMS}
        out.update((name, dict(sorted(getattr(self, name).items()))) for name in _BREAKDOWNS)
        out["bytes_read"] = self.bytes_read
        return out

    @classmethod
    def from_json(cls, data: dict) -> ShardCounts:
        """The inverse of :meth:`to_json`; counts missing from an older marker are 0."""
        counts = cls(**{name: data[name] for name in _STATUS_SUMS})
        counts.records_total, counts.bytes_read = data.get("records_total", 0), data.get("bytes_read", 0)
        counts.not_sampled = data.get("not_sampled", 0)
        for name in _BREAKDOWNS:
            setattr(counts, name, Counter(data.get(name, {})))
        return counts


_STATUS_SUMS = ("records_seen", "decoded", "skipped", "failed")
_SUMS = (*_STATUS_SUMS, "records_total", "not_sampled")
_BREAKDOWNS = ("by_record_type", "by_skip_reason", "by_error_kind")


def publish_shard(out: str, part: str, work: Callable[[str], T], *, staged: bool) -> T:
    """Run ``work(directory)``, which writes ``part`` and ``_done/<stem>.json`` into the directory
    it is given, so that both appear in ``out`` complete, the part first; return what ``work``
    returned.

    Not ``staged``: ``directory`` is ``out`` itself (a local directory; the part writer and
    :func:`write_json` rename complete files into place, the part before the marker). ``staged``:
    ``directory`` is a fresh private one (under ``out/_staging`` locally, in ``TMPDIR`` for a
    URL), removed afterwards whatever happens; the
    part and then the marker are published under ``out`` (:func:`redecode.storage.publish_file`), so
    two attempts of one shard never share a temporary file and a retried attempt replaces the part.
    """
    if not staged:
        return work(out)
    stem = stem_of(part)
    staging = _staging_dir(out, stem)
    try:
        os.makedirs(os.path.join(staging, MARKERS), exist_ok=True)
        result = work(staging)
        # part first: a published marker always names a published part
        storage.publish_file(os.path.join(staging, part), storage.join(out, part))
        storage.publish_file(os.path.join(staging, MARKERS, stem + ".json"), marker_path(out, stem))
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
        return tempfile.mkdtemp(prefix=f"redecode-{name}-")
    parent = os.path.join(storage.local_path(dest_dir), STAGING)
    os.makedirs(parent, exist_ok=True)
    return tempfile.mkdtemp(prefix=f"{name}-", dir=parent)


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
    commands left (``.tmp-*`` files, ``_staging/``), reads every marker once and applies
    ``foreign``, the policy for parts made under other rules, by another
    :data:`redecode.row.ROW_CODE_VERSION` or with another record ``selection``
    (:class:`redecode.selection.Selection`): ``"refuse"`` raises :class:`RunDirectoryConflict`
    (``force``: removes those parts and markers instead), ``"redo"`` treats them as not complete
    (their shards are redone, replacing the parts). Leaving the context releases the lock and
    removes the (then empty) staging directory; leaving it with an exception (an interrupt, a
    full disk) also removes the temporary files and staging directories of the shards that were
    being written, so a stopped command leaves only published parts and markers.
    """

    def __init__(self, out: str, rules: Rules, *, force: bool = False, foreign: str = "refuse",
                 selection: Selection = ALL) -> None:
        if foreign not in ("refuse", "redo"):
            raise ValueError(f"foreign must be 'refuse' or 'redo', not {foreign!r}")
        self.out = out
        self.rules = rules
        self.force = force
        self.foreign = foreign
        self.selection = selection
        self.remote = storage.is_remote(out)
        self._lock = None
        self._markers: dict[str, dict] = {}  # marker file stem -> marker, as read at open

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
        self.close()

    def open(self) -> None:
        storage.makedirs(self.out)
        storage.makedirs(storage.join(self.out, MARKERS))
        if not self.remote:
            self._lock = _lock(self.out)
            self._clean()
        self._markers = self._read_markers()
        foreign = {s: m for s, m in self._markers.items() if not self._ours(m)}
        if foreign and self.foreign == "refuse":
            self._refuse(foreign)

    def _ours(self, marker: dict) -> bool:
        """Whether ``marker`` was made by this command's rules, row code and record selection."""
        return (marker.get("rules_digest") == self.rules.digest
                and marker.get("row_code_version") == ROW_CODE_VERSION
                and marker.get("selection") == self.selection.to_json())

    def close(self) -> None:
        if not self.remote:
            try:
                os.rmdir(os.path.join(self.out, STAGING))  # empty once every staged shard has published
            except OSError:
                pass
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _clean(self) -> None:
        for directory in (self.out, os.path.join(self.out, MARKERS)):
            for name in os.listdir(directory):
                if name.startswith(storage.TMP_PREFIX):
                    os.unlink(os.path.join(directory, name))
        shutil.rmtree(os.path.join(self.out, STAGING), ignore_errors=True)

    def _read_markers(self) -> dict[str, dict]:
        """Every readable marker, by file stem: one listing, then one read per marker (32 at a
        time remotely: 90,000 markers read one by one would take half an hour)."""
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
        # a marker that does not name its own part is ignored (marker_is_valid): never trusted
        # with a path
        return {stem: m for stem, m in zip(names, read_back) if marker_is_valid(m, stem)}

    def _refuse(self, foreign: dict[str, dict]) -> None:
        if not self.force:
            rules = self.rules
            theirs = sorted({f"{m.get('rules')} ({str(m.get('rules_digest'))[:12]})" for m in foreign.values()})
            differences = self._differences(foreign)
            first = (f" They differ first in {differences[0]}"
                     + (f", and in {len(differences) - 1} more (-v lists them)" if len(differences) > 1 else "")
                     + "." if differences else "")
            kinds = [what for what, differs in (
                ("other rules", any(m.get("rules_digest") != rules.digest for m in foreign.values())),
                ("another version of this job",
                 any(m.get("row_code_version") != ROW_CODE_VERSION for m in foreign.values())),
                ("another record selection",
                 any(m.get("selection") != self.selection.to_json() for m in foreign.values()))) if differs]
            raise RunDirectoryConflict(
                f"{self.out} holds {len(foreign)} part(s) made with {' and '.join(kinds)}: "
                f"{', '.join(theirs)}; this run uses {rules.name} ({rules.digest[:12]}).{first} Write to "
                "another --out, or add --force to replace them.",
                details=f"{self.out}: they differ in: {'; '.join(differences)}" if differences else "",
            )
        for stem, m in foreign.items():
            storage.remove(storage.join(self.out, m["part"]))
            storage.remove(marker_path(self.out, stem_of(m["part"])))
            del self._markers[stem]

    def _differences(self, foreign: dict[str, dict]) -> list[str]:
        """``["procedure (browser here, author there)", ...]``: what differs between this run and
        the parts in the run directory, most telling first: the rule parameters (``procedure``
        first), the versions of what they use (from the manifest, the last run into it), the
        record -> row code and the record selection (from the parts' markers)."""
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
        codes = sorted({str(m.get("row_code_version")) for m in foreign.values()} - {ROW_CODE_VERSION})
        if codes:
            out.append(f"row code, the version of this job's record -> row code ({ROW_CODE_VERSION} here, "
                       f"{', '.join(codes)} there)")
        here = self.selection.to_json()
        selections = [Selection.from_json(m.get("selection")) for m in foreign.values()
                      if m.get("selection") != here]
        if selections:
            there = sorted({s.describe() for s in selections})
            out.append(f"record selection ({self.selection.describe()} here, {', '.join(there)} there)")
        return out

    # -- questions a command asks --

    def complete(self, shards: list[Shard], max_record_bytes: int | None = None) -> dict[tuple[str, int], dict]:
        """The markers of the ``shards`` that are complete, by ``(path, index)``: what a rerun
        skips (:meth:`resume`, whose removals it makes too)."""
        return self.resume(shards, max_record_bytes).markers

    def resume(self, shards: list[Shard], max_record_bytes: int | None = None) -> Resume:
        """What a rerun of ``shards`` may skip, and what it must read again.

        A shard is complete when its marker is current (:func:`marker_is_current`), its outcome
        is in :data:`FINISHED` (``complete``, or ``limited`` by ``--limit``), its part is present and the input's :func:`redecode.storage.fingerprint`
        equals the marker's ``input`` (size, mtime and the hash of both ends: a file that grew,
        shrank or was rewritten is read again; a marker without it, from an older version, proves
        nothing). An input whose fingerprint differs from any of its markers' loses all its parts
        and markers here (markers first), so that it is read again whole and rows of its old
        version never sit beside the new ones: it is ``retried`` when a marker's outcome was not
        in :data:`FINISHED` (cut short, damaged, unreadable; such an input is read again even when
        unchanged), else ``changed``.
        """
        parts = set(storage.listdir(self.out))
        candidates: dict[tuple[str, int], dict] = {}
        for shard in shards:
            marker = self._markers.get(part_stem(shard.path, shard.index))
            if marker is not None:
                candidates[(shard.path, shard.index)] = marker
        paths = sorted({path for path, _ in candidates})
        now = dict(zip(paths, _fingerprints(paths)))
        differ = {path for (path, _), m in candidates.items() if now[path] is None or m.get("input") != now[path]}
        retried = sorted({path for (path, _), m in candidates.items() if m.get("outcome") not in FINISHED})
        changed = sorted(differ - set(retried))
        if differ:
            self._remove_inputs(sorted(differ))
        found: dict[tuple[str, int], dict] = {}
        for shard in shards:
            marker = candidates.get((shard.path, shard.index))
            if (marker is not None and shard.path not in differ and marker.get("outcome") in FINISHED
                    and marker_is_current(marker, shard, self.rules.digest, max_record_bytes, self.selection)
                    and marker.get("part") in parts):
                found[(shard.path, shard.index)] = marker
        return Resume(found, changed, retried)

    def _remove_inputs(self, paths: list[str]) -> None:
        """Remove every marker, then every part, of the inputs ``paths`` (any shard index)."""
        prefixes = {part_stem(p, 0)[: -len("0000")] for p in paths}
        for directory, suffix in ((storage.join(self.out, MARKERS), ".json"), (self.out, PART_SUFFIX)):
            for name in storage.listdir(directory):
                stem = name[: -len(suffix)] if name.endswith(suffix) else None
                if stem is not None and stem.rpartition(".")[0] + "." in prefixes:
                    storage.remove(storage.join(directory, name))
        for stem in [s for s in self._markers if s.rpartition(".")[0] + "." in prefixes]:
            del self._markers[stem]

    def redo_bad_boundaries(self, shards: list[Shard], markers: dict[tuple[str, int], dict]
                            ) -> tuple[list[Shard], list[Shard]]:
        """``(shards, to_redo)``: an input cut into several shards whose shards did not meet
        exactly (a marker with ``boundary_ok`` false: a record start faked inside a payload) or did
        not all complete (a later cut may lie inside a damaged record's block) loses its parts and
        markers and gets one whole-file shard, returned in ``to_redo`` for the caller to run, so
        that rows never depend on how a file was cut."""
        counts = Counter(s.path for s in shards)
        bad = {
            s.path
            for s in shards
            if counts[s.path] > 1
            and (not markers[(s.path, s.index)].get("boundary_ok", True)
                 or markers[(s.path, s.index)]["outcome"] != "complete")
        }
        if not bad:
            return shards, []
        kept = [s for s in shards if s.path not in bad]
        redo = []
        for path in sorted(bad):
            for s in [s for s in shards if s.path == path]:
                del markers[(s.path, s.index)]
                stem = part_stem(path, s.index)
                storage.remove(marker_path(self.out, stem))  # marker first: never a marker without its part
                storage.remove(storage.join(self.out, stem + PART_SUFFIX))
            whole = Shard(path, 0, 0, None)
            kept.append(whole)
            redo.append(whole)
        return kept, redo

    def remove_stale_parts(self, paths: list[str], shards: list[Shard]) -> None:
        """Remove parts and markers of these inputs that the current shard plan does not have (left
        by an earlier run with another shard size), so ``OUT/*.parquet`` never holds a record
        twice."""
        wanted = {part_stem(s.path, s.index) for s in shards}
        prefixes = {part_stem(p, 0)[: -len("0000")] for p in paths}
        for directory, suffix in ((self.out, PART_SUFFIX), (storage.join(self.out, MARKERS), ".json")):
            for name in storage.listdir(directory):
                if not name.endswith(suffix):
                    continue
                stem = name[: -len(suffix)]
                prefix, _, _index = stem.rpartition(".")
                if prefix + "." in prefixes and stem not in wanted:
                    storage.remove(storage.join(directory, name))

    def earlier_inputs(self, paths: list[str]) -> tuple[list[str], list[Shard], dict[tuple[str, int], dict]]:
        """``(paths, shards, markers)`` of inputs completed in the directory by earlier commands
        with the same rules but not among ``paths``: they stay, so the manifest lists them too (a
        nightly run adds archives)."""
        current = set(paths)
        parts = set(storage.listdir(self.out))
        shards, markers = [], {}
        for _, m in sorted(self._markers.items()):
            if m.get("path") in current or not self._ours(m) or m.get("part") not in parts:
                continue
            shard = Shard(m["path"], m["shard"], m["start"], m["end"])
            shards.append(shard)
            markers[(shard.path, shard.index)] = m
        return sorted({s.path for s in shards}), shards, markers

    def manifest(self, paths: list[str], shards: list[Shard], markers: dict[tuple[str, int], dict],
                 clock: RunClock) -> dict:
        """The manifest of ``paths`` made of ``shards`` whose markers are ``markers``: per input its
        parts, outcome, first error and summed counts; the run's counts, rules, versions, working
        directory (what relative input paths are relative to) and times."""
        inputs = []
        total = ShardCounts()
        by_path: dict[str, list[Shard]] = {}
        for s in shards:
            by_path.setdefault(s.path, []).append(s)
        for path in paths:
            counts = ShardCounts()
            parts, errors, offsets, damaged = [], [], [], []
            outcome = "complete"
            size = None
            for shard in by_path.get(path, ()):
                marker = markers[(shard.path, shard.index)]
                size = marker.get("size", size)
                counts.merge(ShardCounts.from_json(marker["counts"]))
                parts.append(marker["part"])
                damaged.extend(marker.get("damaged") or ())
                if marker["outcome"] != "complete":
                    outcome = marker["outcome"]
                if marker.get("error"):  # (a shard stopped by --limit is not an error)
                    errors.append(marker["error"])
                    offsets.append(marker["error_offset"])
            total.merge(counts)
            inputs.append(
                {
                    "path": path,
                    "size": size if size is not None else input_size(path),
                    "parts": parts,
                    "part": parts[0] if len(parts) == 1 else None,
                    "outcome": outcome,
                    "error": "; ".join(errors) if errors else None,
                    "error_offset": offsets[0] if offsets else None,
                    "rows": counts.records_seen,
                    "counts": counts.to_json(),
                    "damaged": damaged,
                }
            )
        rules = self.rules
        return {
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

    def write_manifest(self, manifest: dict) -> None:
        """Write ``OUT/_run.json``."""
        write_json(storage.join(self.out, MANIFEST), manifest)


@dataclass(slots=True)
class Resume:
    """:meth:`RunDirectory.resume`'s answer: ``markers`` of the complete shards by ``(path,
    index)``; ``changed`` inputs (removed, to be read again whole) and ``retried`` inputs (an
    earlier outcome other than ``complete``)."""

    markers: dict[tuple[str, int], dict]
    changed: list[str]
    retried: list[str]


def _fingerprints(paths: list[str]) -> list[dict | None]:
    """:func:`redecode.storage.fingerprint` of each path (32 at a time for URLs)."""
    if any(storage.is_remote(p) for p in paths) and len(paths) > 1:
        from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

        with ThreadPoolExecutor(max_workers=32) as pool:
            return list(pool.map(storage.fingerprint, paths))
    return [storage.fingerprint(p) for p in paths]


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
