"""The re-decode run: archives in, one Parquet part per shard of input plus ``_run.json`` out.

Data flows one way: archive -> record (:mod:`redecode.archive`) -> decision and text
(:mod:`redecode.rules`) -> row (:mod:`redecode.schema`) -> Parquet (:mod:`redecode.writer`).

Run directory layout (``OUT``):

- ``<archive name>.<8 hex>.<shard>.parquet``: the rows of one shard of one input, in archive order.
  The 8 hex digits are the start of sha1 of the input path as given, so two inputs with the same name
  in different folders do not collide. A shard is a byte range of a per-record gzip WARC; shards are
  cut at fixed byte sizes, independent of the worker count, so the same rules on the same bytes give
  the same parts and rows whatever ``workers`` is.
- ``_done/<part stem>.json``: the completion marker of a shard (its counts and outcome), written
  after its part is renamed into place. A shard is complete iff its marker exists, names the same
  rules digest and the part exists. A rerun into the same directory skips complete shards
  (``force=True`` redoes them); a run killed at any moment leaves only ``.tmp-*`` files, which the
  next run removes.
- ``_run.json``: the run manifest, rewritten at the end of every run from all markers.

Nothing is lost: every ``response``, ``resource`` and ``revisit`` record gives exactly one row with
``status`` decoded, skipped (``skip_reason``) or failed (``error_kind``, ``error``); other record types
are counted per type. ``records_seen == decoded + skipped + failed`` for every input and in total.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import gc
import hashlib
import importlib.metadata
import json
import multiprocessing
import os
import platform
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone

from . import __version__, storage
from .archive import ArchiveError, ArchiveRecord, find_record_start, iter_records
from .mime import extract_mime_type, sniff_unknown_mime_type, text_kind
from .rules import BROWSER_RULES, DEFAULT_RULES, Rules, get_rules
from .schema import (
    SCHEMA_VERSION,
    STATUS_DECODED,
    STATUS_FAILED,
    STATUS_SKIPPED,
    empty_row,
)
from .sniff import tld_of
from .writer import TEXT_UTF8_KEY, PartWriter

DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024
ROW_RECORD_TYPES = frozenset({"response", "resource", "revisit"})
#: Version of the record -> row code outside the rules (status, skip reasons, HTTP and archive
#: handling). Bump it whenever a change here, in archive/http/mime, can change a row for the same
#: rules; it goes into every completion marker and the manifest, and backfill reads every record
#: again when a prior run's version differs (the rules digest does not cover this code).
ROW_CODE_VERSION = "2026.12.1"
#: What the ``warning`` of a row decoded from a body that is not in its declared content coding
#: says (rules with ``identity_fallback``; :mod:`redecode.backfill` looks for it).
IDENTITY_NOTE = "decoded as identity: the body is not in that coding and sniffs as text"
#: Statuses whose responses have no content (RFC 9110: 1xx, 204, 205, 304 are skipped too).
NO_CONTENT_STATUSES = frozenset({204, 205, 304})

#: Packages whose version can change the output or the file format; recorded in the manifest.
_OUTPUT_PACKAGES = (
    "warcio",
    "fastwarc",
    "charset-normalizer",
    "chardetng-py",
    "cchardet",
    "pyarrow",
    "brotli",
    "zstandard",
)


@functools.cache
def dependency_versions() -> dict[str, str | None]:
    """Versions of Python and of every installed package that can change output."""
    versions: dict[str, str | None] = {"python": platform.python_version(), "warc-redecode": __version__}
    for name in _OUTPUT_PACKAGES + ("duckdb", "ftfy", "click"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


# ---------------------------------------------------------------------------------------------
# record -> row


def _join_content_type(values: list[str] | None) -> str | None:
    return ", ".join(values) if values else None


def record_row(record: ArchiveRecord, rules: Rules) -> dict:
    """Turn one ``response``/``resource``/``revisit`` record into its output row (a dict).

    Never raises for bad record content: a payload that cannot be decoded gives a ``failed`` row
    with ``error_kind`` and ``error``.
    """
    row = empty_row()
    row.update(
        record_id=record.record_id,
        warc_path=record.warc_path,
        warc_offset=record.offset,
        warc_length=record.length,
        target_uri=record.target_uri,
        warc_date=record.warc_date,
        http_status=record.http_status,
        content_type=_join_content_type(record.content_type_values),
        payload_length=len(record.payload) if record.payload is not None else record.payload_length,
        payload_digest=record.payload_digest,
        record_type=record.record_type,
        warning=record.warning,
        rules=rules.name,
        rules_digest=rules.digest,
        tld=tld_of(record.target_uri) if record.target_uri else None,
    )
    mime, header_charset = extract_mime_type(record.content_type_values or ())
    row["header_charset"] = header_charset
    if mime is not None:
        row["mime_type"] = mime.essence

    if record.record_type == "revisit":
        return _skip(row, "revisit")
    payload = record.payload
    identity = False  # decoded from a body not in its declared content coding
    if record.error_kind:
        if mime is not None and text_kind(mime.essence) is None:
            # A declared non-text payload (an image whose coding failed) is not text either way.
            return _skip(row, "not-text")
        if record.identity_payload is not None and rules.identity_fallback:
            # The header names a content coding the stored body does not carry (a WARC writer
            # kept the field over the decoded body): the author's rules take the body as is.
            payload, identity = record.identity_payload, True
            note = f"{record.error}; {IDENTITY_NOTE}"
            row["warning"] = f"{row['warning']}; {note}" if row["warning"] else note
        else:
            return _fail(row, record.error_kind, record.error or record.error_kind)
    if record.http_status is not None and (record.http_status < 200 or record.http_status in NO_CONTENT_STATUSES):
        # No content by HTTP's definition; every other status with a body (redirect and error
        # pages included) is decoded: it is text the crawl kept, and `http_status` lets a
        # query leave it out.
        return _skip(row, "http-status")
    if not payload:
        return _skip(row, "no-payload")
    if mime is None:
        row["mime_type"] = sniff_unknown_mime_type(payload)
    kind = text_kind(row["mime_type"])
    if kind is None:
        return _skip(row, "not-text")

    content_type = tuple(record.content_type_values or ())
    try:
        decision, decoded = rules.decide_and_decode(payload, content_type=content_type,
                                                    url=record.target_uri, kind=kind)
        # The declaration columns are facts about the bytes, found by the HTML Standard's
        # algorithms whatever the rules: rules that read declarations otherwise (seed's regexes)
        # or not at all (requests) still get them, so that one query finds every record a rule
        # change would touch and backfill can replay a decision without reading the archive.
        # browser_encoding is what the browser rules pick, whatever the rules.
        if rules.procedure == "browser":
            facts, browser_encoding = decision, decision.encoding
        elif rules.procedure == "author":
            facts, browser_encoding = decision, decision.browser_encoding
        else:
            facts = get_rules(BROWSER_RULES).decide(payload, content_type=content_type,
                                                    url=record.target_uri, kind=kind)
            browser_encoding = facts.encoding
    except Exception as exc:  # a bug must cost one row, not the run
        return _fail(row, "decode", f"{type(exc).__name__}: {exc}")

    row.update(
        bom=facts.bom,
        header_charset=facts.header_charset,
        meta_charset=facts.meta_charset,
        meta_offset=facts.meta_offset,
        xml_charset=facts.xml_charset,
        ignored_labels=list(facts.ignored_labels),
        utf8_valid=facts.utf8_valid,
        ascii_only=facts.ascii_only,
        # schema 1.1, for redecode.backfill's replay of the decision (sniff.choose)
        meta_source=facts.meta_source,
        xml_encoding=facts.xml_encoding,
        # schema 1.2; a browser fails a body that is not in its declared coding: no encoding
        browser_encoding=None if identity else browser_encoding,
        validation=decision.validation,
        conflict=list(decision.conflict),
        detector=decision.detector,
        detector_confidence=decision.detector_confidence,
        encoding=decoded.encoding,
        source=decision.source,
        confidence=decision.confidence,
        decoder=decoded.decoder,
        decode_errors=decoded.errors,
        text=decoded.text,
        text_length=len(decoded.text),
        status=STATUS_DECODED,
    )
    if decision.tld is not None:
        row["tld"] = decision.tld
    if decoded.errors == 0 and decoded.encoding == "UTF-8" and decoded.decoder in ("whatwg", "python:utf-8"):
        # A valid UTF-8 payload is its own UTF-8 text: hand the writer the bytes (no re-encode).
        row[TEXT_UTF8_KEY] = payload[3:] if decoded.bom_removed else payload
    return row


def _skip(row: dict, reason: str) -> dict:
    row["status"] = STATUS_SKIPPED
    row["skip_reason"] = reason
    return row


def _fail(row: dict, kind: str, message: str) -> dict:
    row["status"] = STATUS_FAILED
    row["error_kind"] = kind
    row["error"] = message
    return row


@dataclass(slots=True)
class ShardCounts:
    """Per-shard (and, summed, per-input and per-run) record counts."""

    records_seen: int = 0  # response/resource/revisit records = rows
    decoded: int = 0
    skipped: int = 0
    failed: int = 0
    records_total: int = 0  # every record, whatever its type
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

    def merge(self, other: "ShardCounts") -> None:
        for name in ("records_seen", "decoded", "skipped", "failed", "records_total", "bytes_read"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.by_record_type.update(other.by_record_type)
        self.by_skip_reason.update(other.by_skip_reason)
        self.by_error_kind.update(other.by_error_kind)

    def to_json(self) -> dict:
        return {
            "records_seen": self.records_seen,
            "decoded": self.decoded,
            "skipped": self.skipped,
            "failed": self.failed,
            "records_total": self.records_total,
            "by_record_type": dict(sorted(self.by_record_type.items())),
            "by_skip_reason": dict(sorted(self.by_skip_reason.items())),
            "by_error_kind": dict(sorted(self.by_error_kind.items())),
            "bytes_read": self.bytes_read,
        }

    @classmethod
    def from_json(cls, data: dict) -> "ShardCounts":
        return cls(
            records_seen=data["records_seen"],
            decoded=data["decoded"],
            skipped=data["skipped"],
            failed=data["failed"],
            records_total=data.get("records_total", 0),
            by_record_type=Counter(data.get("by_record_type", {})),
            by_skip_reason=Counter(data.get("by_skip_reason", {})),
            by_error_kind=Counter(data.get("by_error_kind", {})),
            bytes_read=data.get("bytes_read", 0),
        )


def process_archive(
    path: str,
    rules: Rules | str = DEFAULT_RULES,
    *,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    start: int = 0,
    end: int | None = None,
    counts: ShardCounts | None = None,
    on_bytes: Callable[[int], None] | None = None,
    boundary: dict | None = None,
) -> Iterator[dict]:
    """Yield one row dict (keys: :data:`redecode.schema.COLUMNS`) per row record of ``path``.

    ``start``/``end`` restrict to records whose offset (bytes) lies in ``[start, end)``. Records of
    other types are only counted in ``counts``. Raises :class:`redecode.archive.ArchiveError` after
    the last readable record when the archive is truncated or corrupt (the rows before it have been
    yielded). When ``boundary`` is a dict, ``boundary["next_offset"]`` is set to the offset of the
    first record at or after ``end`` (None when the file was read to its end).
    """
    if isinstance(rules, str):
        rules = get_rules(rules)
    counts = counts if counts is not None else ShardCounts()
    last = start
    stream = iter_records(path, max_record_bytes=max_record_bytes, start=start, end=end)
    for record in stream:
        counts.records_total += 1
        counts.by_record_type[record.record_type or NO_RECORD_TYPE] += 1
        if record.offset is not None and on_bytes is not None and record.offset > last:
            on_bytes(record.offset - last)
            last = record.offset
        if record.record_type not in ROW_RECORD_TYPES:
            continue
        row = record_row(record, rules)
        counts.add_row(row)
        yield row
    if boundary is not None:
        boundary["next_offset"] = stream.next_offset


#: ``counts.by_record_type`` key of records whose WARC-Type could not be read (an unreadable
#: header) or is empty.
NO_RECORD_TYPE = "(none)"


#: Default shard size (bytes of archive file). Shards are cut at fixed sizes so that the parts and
#: their rows do not depend on the worker count; 16 MiB of gzip WARC is about 50 MB of records,
#: a few seconds of work, so two workers share even a single archive evenly.
DEFAULT_SHARD_BYTES = 16 * 1024 * 1024


def plan_shards(path: str, *, shard_bytes: int | None = None) -> list[tuple[int, int | None]]:
    """Byte ranges ``[(start, end), ...]`` of ``path`` to decode independently (end None: to EOF).

    WARC and ARC files larger than 1.5 shards are cut near every ``shard_bytes`` bytes, at a
    record start found by :func:`redecode.archive.find_record_start`; other inputs are one shard.
    The cuts depend only on the file and ``shard_bytes``, never on the number of workers.
    """
    shard_bytes = shard_bytes or DEFAULT_SHARD_BYTES
    if path.lower().endswith(".parquet") or storage.is_remote(path):
        return [(0, None)]  # a URL: one task per archive (find_record_start reads local files)
    try:
        size = os.path.getsize(path)
    except OSError:
        return [(0, None)]
    if size <= shard_bytes * 3 // 2:
        return [(0, None)]
    cuts = [0]
    target = shard_bytes
    while target < size - shard_bytes // 2:
        try:
            at = find_record_start(path, target)
        except (ArchiveError, OSError):
            at = None
        if at is None:
            break
        if at > cuts[-1]:
            cuts.append(at)
        target = max(at, target) + shard_bytes
    return [(a, b) for a, b in zip(cuts, cuts[1:] + [None])]


# ---------------------------------------------------------------------------------------------
# shards and parts


def part_stem(path: str, shard_index: int) -> str:
    """File stem of the part holding shard ``shard_index`` of input ``path``."""
    digest = hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{os.path.basename(path)}.{digest}.{shard_index:04d}"


@dataclass(frozen=True, slots=True)
class Shard:
    """A byte range ``[start, end)`` of input ``path`` (``end`` None: to the end of the file)."""

    path: str
    index: int
    start: int
    end: int | None


def _marker_path(out: str, stem: str) -> str:
    return os.path.join(out, "_done", stem + ".json")


def _write_json_atomic(path: str, data: dict) -> None:
    tmp = os.path.join(os.path.dirname(path), ".tmp-" + os.path.basename(path))
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def marker_is_current(marker: dict, shard: "Shard", rules_digest: str, max_record_bytes: int | None = None) -> bool:
    """Whether a completion ``marker`` proves ``shard`` done for this run: same rules digest, same
    byte range, same record -> row code (:data:`ROW_CODE_VERSION`) and, when given, the same
    ``max_record_bytes``. (The caller checks that the part it names exists.)"""
    return (
        marker.get("rules_digest") == rules_digest
        and (marker.get("start"), marker.get("end")) == (shard.start, shard.end)
        and marker.get("row_code_version") == ROW_CODE_VERSION
        and (max_record_bytes is None or marker.get("max_record_bytes") == max_record_bytes)
    )


def _read_marker(out: str, shard: "Shard", rules_digest: str, max_record_bytes: int | None = None) -> dict | None:
    """The completion marker of ``shard`` in ``out`` when it is this run's output, else None."""
    stem = part_stem(shard.path, shard.index)
    try:
        with open(_marker_path(out, stem), encoding="utf-8") as f:
            marker = json.load(f)
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    if not marker_is_current(marker, shard, rules_digest, max_record_bytes):
        return None
    if not os.path.exists(os.path.join(out, marker["part"])):
        return None
    return marker


_PROGRESS_QUEUE = None
_FROZEN = False


def _freeze_startup_objects() -> None:
    """Move the objects alive now (modules, tables, rules: what the process started with) out of the
    cyclic garbage collector's view, once per process (:func:`gc.freeze`): otherwise every full
    collection walks them again while rows are built. Measured: -2% instructions on the 20 MB
    benchmark crawl (callgrind). Rows and texts made later are collected as usual."""
    global _FROZEN
    if not _FROZEN:
        _FROZEN = True
        gc.collect()
        gc.freeze()


def _init_worker(queue) -> None:
    global _PROGRESS_QUEUE
    _PROGRESS_QUEUE = queue
    _die_with_parent()


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this worker when its parent dies (prctl PR_SET_PDEATHSIG), so that a
    run killed by the OOM killer or SIGKILL leaves no worker writing into its directory."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)
    except (OSError, AttributeError):
        pass


class RunDirectoryLocked(RuntimeError):
    """Another process holds the run directory's lock (``OUT/_lock``)."""


def _lock_run_directory(out: str):
    """Take an exclusive lock on ``OUT/_lock`` for the duration of a run; returns the open file.

    Raises :class:`RunDirectoryLocked` when another run (or a worker it left) holds it."""
    import fcntl

    fh = open(os.path.join(out, "_lock"), "a+")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        raise RunDirectoryLocked(
            f"{out} is being written by another redecode run (lock {out}/_lock); "
            "wait for it to finish, or stop it, then run again"
        ) from None
    return fh


def process_shard(
    shard: Shard,
    out: str,
    rules_name: str,
    max_record_bytes: int,
    on_bytes: Callable[[int], None] | None = None,
) -> dict:
    """Decode one shard into its part and write its completion marker; return the marker dict.

    A truncated or corrupt archive keeps the rows read so far; its error (file and offset) is in the
    marker's ``error`` and its ``outcome`` is ``truncated``.
    """
    rules = get_rules(rules_name)
    _freeze_startup_objects()
    stem = part_stem(shard.path, shard.index)
    part = stem + ".parquet"
    counts = ShardCounts()
    outcome, error, error_offset = "complete", None, None
    if on_bytes is None and _PROGRESS_QUEUE is not None:
        queue = _PROGRESS_QUEUE
        pending = [0]

        def on_bytes(n: int) -> None:  # batch updates: one queue message per MiB
            pending[0] += n
            if pending[0] >= 1 << 20:
                queue.put(pending[0])
                pending[0] = 0

    started = time.perf_counter()
    cpu_started = time.process_time()
    boundary: dict = {}
    with PartWriter(
        os.path.join(out, part),
        extra_metadata={"redecode.rules": rules.name, "redecode.rules_digest": rules.digest},
    ) as writer:
        try:
            for row in process_archive(
                shard.path,
                rules,
                max_record_bytes=max_record_bytes,
                start=shard.start,
                end=shard.end,
                counts=counts,
                on_bytes=on_bytes,
                boundary=boundary,
            ):
                writer.write(row)
        except ArchiveError as exc:
            # "error": nothing could be read at all (not an archive, unreadable); "truncated":
            # the rows before the damage are kept.
            # Nothing read: no record at all, or the damage is at the file's first record
            # (offset 0: a file gzipped as one stream, a first record with no Content-Length) and
            # no row came before it.
            nothing = shard.start == 0 and (
                counts.records_total == 0 or (exc.offset == 0 and counts.records_seen == 0)
            )
            outcome, error, error_offset = ("error" if nothing else "truncated"), str(exc), exc.offset
        except OSError as exc:
            outcome, error = "error", f"{shard.path}: {exc.strerror or exc}"
    try:
        size = storage.size(shard.path)
    except OSError:  # an input named in an @list that is not there: its marker says so
        size = 0
        if outcome == "complete":
            outcome, error = "error", f"{shard.path}: no such file"
    end = shard.end if shard.end is not None else size
    counts.bytes_read = end - shard.start
    marker = {
        "path": shard.path,
        "shard": shard.index,
        "start": shard.start,
        "end": shard.end,
        "part": part,
        "rows": counts.records_seen,
        "size": size,
        "outcome": outcome,
        "error": error,
        "error_offset": error_offset,
        "rules": rules.name,
        "rules_digest": rules.digest,
        "row_code_version": ROW_CODE_VERSION,  # see ROW_CODE_VERSION (backfill compares it)
        "max_record_bytes": max_record_bytes,
        # The shard read exactly up to the next shard's start (see RecordStream.next_offset). When
        # not (a record start faked inside a payload), or when a shard of a cut file hit damage
        # (a later cut may lie inside a damaged record's block), the run redoes the input as one
        # shard, so that rows never depend on how the file was cut.
        "boundary_ok": shard.end is None
        or (shard.start == 0 and shard.end is None)
        or (outcome == "complete" and boundary.get("next_offset") == shard.end),
        "counts": counts.to_json(),
        "wall_seconds": round(time.perf_counter() - started, 3),
        "cpu_seconds": round(time.process_time() - cpu_started, 3),
    }
    _write_json_atomic(_marker_path(out, stem), marker)
    return marker


# ---------------------------------------------------------------------------------------------
# the run


@dataclass(slots=True)
class RunSummary:
    """What a run did: the manifest (also written to ``OUT/_run.json``) and derived facts."""

    manifest: dict
    errors: list[str]
    #: inputs found complete in the run directory and not redone
    resumed: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when every input was read to its end, else 1."""
        return 1 if self.errors else 0

    @property
    def counts(self) -> dict:
        return self.manifest["counts"]


def _clean_tmp(out: str) -> None:
    for directory in (out, os.path.join(out, "_done")):
        for name in os.listdir(directory):
            if name.startswith(".tmp-"):
                os.unlink(os.path.join(directory, name))


def run(
    inputs: list[str],
    out: str,
    *,
    rules: str = DEFAULT_RULES,
    workers: int | None = 1,
    force: bool = False,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    shard_bytes: int | None = None,
    quiet: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
    on_error: Callable[[str], None] | None = None,
) -> RunSummary:
    """Re-decode every record of ``inputs`` into run directory ``out``; return the summary.

    ``inputs``: files, directories (recursed) and globs of ``.warc``, ``.warc.gz``, ``.arc``,
    ``.arc.gz`` and raw-response ``.parquet``. ``workers``: processes (None: all cores).
    ``on_progress(bytes_done, bytes_total)`` is called as input bytes are consumed;
    ``on_error(message)`` once per input that could not be read to its end.

    ``out`` is a local directory (a ``file://`` URL is taken as its path); for an object-store URL
    use :func:`redecode.spark.run_spark`.

    Raises :class:`FileNotFoundError` for an input that matches no file, :class:`KeyError` for
    unknown rules and :class:`ValueError` for an ``out`` that is a URL of another filesystem.
    """
    out = storage.local_directory(
        out, "the local executor",
        "; to write to a URL use --executor spark (--master 'local[N]' runs it on this machine)")
    wall_start = time.perf_counter()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    cpu_start = _cpu_seconds()
    rules_obj = get_rules(rules)
    not_read: list[str] = []
    paths = _outside(storage.expand_inputs(inputs, not_read), out)
    os.makedirs(os.path.join(out, "_done"), exist_ok=True)
    lock = _lock_run_directory(out)
    try:
        return _run_locked(paths, out, rules, rules_obj, workers, force, max_record_bytes, shard_bytes,
                           on_progress, on_error, started_at, wall_start, cpu_start,
                           _outside(not_read, out))
    finally:
        lock.close()


def _size(path: str) -> int:
    """Size of an input in bytes, 0 when it cannot be read (its shard then records the error)."""
    try:
        return storage.size(path)
    except OSError:
        return 0


#: How many names of files not read ``_run.json`` lists (the count is always complete).
FILES_NOT_READ_LISTED = 100


def files_not_read(names: list[str]) -> dict:
    """The manifest's ``files_not_read``: files that the input directories, globs or prefixes held
    under names that look like archives but are not taken as inputs
    (:func:`redecode.archive.looks_like_archive`: ``.wacz``, ``.warc.gz.bad``...), which the run
    did not read: ``{"count": N, "names": [first FILES_NOT_READ_LISTED, sorted]}``."""
    names = sorted(names)
    return {"count": len(names), "names": names[:FILES_NOT_READ_LISTED]}


def _outside(paths: list[str], out: str) -> list[str]:
    """``paths`` without the files inside the run directory ``out`` (a run's own parts are not
    raw-response inputs when ``redecode run . --out out`` runs twice)."""
    if storage.is_remote(out):
        return paths
    inside = os.path.realpath(out) + os.sep
    return [p for p in paths if storage.is_remote(p) or not os.path.realpath(p).startswith(inside)]


class RunDirectoryConflict(RuntimeError):
    """The run directory holds output made under other rules (or by other record -> row code)."""


def _all_markers(out: str) -> list[dict]:
    markers = []
    directory = os.path.join(out, "_done")
    for name in sorted(os.listdir(directory)):
        if name.endswith(".json") and not name.startswith(".tmp-"):
            try:
                with open(os.path.join(directory, name), encoding="utf-8") as f:
                    markers.append(json.load(f))
            except (OSError, json.JSONDecodeError):
                continue
    return markers


def _check_foreign(out: str, rules: Rules, force: bool) -> None:
    """Refuse (or, with ``force``, remove) output in ``out`` made under other rules or by another
    :data:`ROW_CODE_VERSION`: one run directory holds one rule set's rows, so that its parts, its
    ``_run.json`` and every query over ``out/*.parquet`` agree."""
    foreign = [
        m for m in _all_markers(out)
        if m.get("rules_digest") != rules.digest or m.get("row_code_version") != ROW_CODE_VERSION
    ]
    if not foreign:
        return
    if not force:
        names = sorted({f"{m.get('rules')} ({str(m.get('rules_digest'))[:12]}, row code {m.get('row_code_version')})"
                        for m in foreign})
        raise RunDirectoryConflict(
            f"{out} holds {len(foreign)} part(s) made under other rules or by another version of "
            f"this job: {', '.join(names)}; this run uses {rules.name} ({rules.digest[:12]}, row code "
            f"{ROW_CODE_VERSION}). Write to another --out, or add --force to replace them."
        )
    for m in foreign:
        stem = m["part"][: -len(".parquet")]
        for name in (os.path.join(out, m["part"]), _marker_path(out, stem)):
            if os.path.exists(name):
                os.unlink(name)


def _earlier_inputs(out: str, paths: list[str], rules: Rules) -> tuple[list[str], list[Shard], dict]:
    """Inputs completed in ``out`` by earlier runs with the same rules but not named this time:
    they stay in the directory, so the manifest lists them too (a nightly run adds archives)."""
    current = set(paths)
    shards, markers = [], {}
    for m in _all_markers(out):
        if m.get("path") in current or m.get("rules_digest") != rules.digest:
            continue
        if not os.path.exists(os.path.join(out, m["part"])):
            continue
        shard = Shard(m["path"], m["shard"], m["start"], m["end"])
        shards.append(shard)
        markers[(shard.path, shard.index)] = m
    return sorted({s.path for s in shards}), shards, markers


def _run_locked(paths, out, rules, rules_obj, workers, force, max_record_bytes, shard_bytes,
                on_progress, on_error, started_at, wall_start, cpu_start, not_read=()) -> RunSummary:
    _clean_tmp(out)
    _check_foreign(out, rules_obj, force)

    shards: list[Shard] = []
    for path in paths:
        for index, (start, end) in enumerate(plan_shards(path, shard_bytes=shard_bytes)):
            shards.append(Shard(path, index, start, end))

    markers: dict[tuple[str, int], dict] = {}
    todo: list[Shard] = []
    for shard in shards:
        marker = None if force else _read_marker(out, shard, rules_obj.digest, max_record_bytes)
        if marker is not None:
            markers[(shard.path, shard.index)] = marker
        else:
            todo.append(shard)

    total = sum((s.end if s.end is not None else _size(s.path)) - s.start for s in shards)
    done = sum(m["counts"].get("bytes_read", 0) for m in markers.values())
    if on_progress:
        on_progress(done, total)

    def progress(n: int) -> None:
        nonlocal done
        done += n
        if on_progress:
            on_progress(min(done, total), total)

    def finished(shard: Shard, marker: dict) -> None:
        markers[(shard.path, shard.index)] = marker
        # top up to the shard's size: progress callbacks only see record starts
        seen = marker["counts"]["bytes_read"]
        progress(max(0, seen - shard_progress.pop((shard.path, shard.index), 0)))

    shard_progress: dict[tuple[str, int], int] = {}
    n_workers = workers or os.cpu_count() or 1
    if n_workers <= 1 or len(todo) <= 1:
        for shard in todo:
            key = (shard.path, shard.index)

            def on_bytes(n: int, key=key) -> None:
                shard_progress[key] = shard_progress.get(key, 0) + n
                progress(n)

            finished(shard, process_shard(shard, out, rules, max_record_bytes, on_bytes))
    else:
        # Load detectors, decoder tables and codecs once, here, before the workers fork: they then
        # share them instead of each loading them on its first record. (One process loads them
        # when a record first needs them, if ever.)
        rules_obj.preload()
        _freeze_startup_objects()
        ctx = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
        queue = ctx.Queue()
        with cf.ProcessPoolExecutor(
            max_workers=min(n_workers, len(todo)), mp_context=ctx, initializer=_init_worker, initargs=(queue,)
        ) as pool:
            futures = {pool.submit(process_shard, s, out, rules, max_record_bytes): s for s in todo}
            pending = set(futures)
            streamed = 0
            while pending:
                done_now, pending = cf.wait(pending, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                while not queue.empty():
                    n = queue.get_nowait()
                    streamed += n
                    progress(n)
                for fut in done_now:
                    shard = futures[fut]
                    marker = fut.result()
                    markers[(shard.path, shard.index)] = marker
            # replace streamed estimates by exact shard sizes
            done = sum(m["counts"].get("bytes_read", 0) for m in markers.values())
            if on_progress:
                on_progress(done, total)

    shards = _redo_bad_boundaries(shards, markers, out, rules, max_record_bytes)
    _remove_stale_parts(out, paths, shards)
    earlier_paths, earlier_shards, earlier_markers = _earlier_inputs(out, paths, rules_obj)
    markers.update(earlier_markers)
    manifest = _manifest(paths + earlier_paths, shards + earlier_shards, markers, rules_obj,
                         started_at, wall_start, cpu_start)
    manifest["files_not_read"] = files_not_read(not_read)
    resumed = sorted({s.path for s in shards if s not in todo} - set(earlier_paths))
    _write_json_atomic(os.path.join(out, "_run.json"), manifest)
    errors = [entry["error"] for entry in manifest["inputs"] if entry["error"]]
    if on_error:
        for message in errors:
            on_error(message)
    return RunSummary(manifest=manifest, errors=errors, resumed=resumed)


def _redo_bad_boundaries(shards, markers, out, rules_name, max_record_bytes) -> list[Shard]:
    """Redo as one shard every input whose shards did not meet exactly (see ``boundary_ok``)."""
    counts = Counter(s.path for s in shards)
    bad = {
        s.path
        for s in shards
        if counts[s.path] > 1
        and (
            not markers[(s.path, s.index)].get("boundary_ok", True)
            or markers[(s.path, s.index)]["outcome"] != "complete"
        )
    }
    if not bad:
        return shards
    kept = [s for s in shards if s.path not in bad]
    for path in sorted(bad):
        for s in [s for s in shards if s.path == path]:
            del markers[(s.path, s.index)]
            for name in (_marker_path(out, part_stem(path, s.index)),
                          os.path.join(out, part_stem(path, s.index) + ".parquet")):
                if os.path.exists(name):
                    os.unlink(name)
        whole = Shard(path, 0, 0, None)
        markers[(path, 0)] = process_shard(whole, out, rules_name, max_record_bytes)
        kept.append(whole)
    return kept


def _remove_stale_parts(out: str, paths: list[str], shards: list[Shard]) -> None:
    """Remove parts and markers of this run's inputs that the current shard plan does not have
    (left by an earlier run with another shard size), so ``OUT/*.parquet`` never holds a record
    twice."""
    wanted = {part_stem(s.path, s.index) for s in shards}
    prefixes = {part_stem(p, 0)[: -len("0000")] for p in paths}
    for directory, suffix in ((out, ".parquet"), (os.path.join(out, "_done"), ".json")):
        for name in os.listdir(directory):
            if not name.endswith(suffix):
                continue
            stem = name[: -len(suffix)]
            prefix, _, index = stem.rpartition(".")
            if prefix + "." in prefixes and stem not in wanted:
                os.unlink(os.path.join(directory, name))


def _cpu_seconds() -> float:
    self_usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return self_usage.ru_utime + self_usage.ru_stime + children.ru_utime + children.ru_stime


def _manifest(paths, shards, markers, rules: Rules, started_at, wall_start, cpu_start) -> dict:
    inputs = []
    total = ShardCounts()
    by_path: dict[str, list[Shard]] = {}
    for s in shards:
        by_path.setdefault(s.path, []).append(s)
    for path in paths:
        counts = ShardCounts()
        parts, errors, offsets = [], [], []
        outcome = "complete"
        size = None
        for shard in by_path.get(path, ()):
            marker = markers[(shard.path, shard.index)]
            size = marker.get("size", size)
            counts.merge(ShardCounts.from_json(marker["counts"]))
            parts.append(marker["part"])
            if marker["outcome"] != "complete":
                outcome = marker["outcome"]
                errors.append(marker["error"])
                offsets.append(marker["error_offset"])
        total.merge(counts)
        inputs.append(
            {
                "path": path,
                "size": size if size is not None else _size(path),
                "parts": parts,
                "part": parts[0] if len(parts) == 1 else None,
                "outcome": outcome,
                "error": "; ".join(errors) if errors else None,
                "error_offset": offsets[0] if offsets else None,
                "rows": counts.records_seen,
                "counts": counts.to_json(),
            }
        )
    return {
        "schema_version": SCHEMA_VERSION,
        "redecode_version": __version__,
        "row_code_version": ROW_CODE_VERSION,
        "rules": {"name": rules.name, "digest": rules.digest, "parameters": rules.parameters()},
        "dependencies": dependency_versions(),
        # what relative input paths (as given, and as rows' warc_path holds them) are relative to;
        # backfill resolves them against it
        "cwd": os.getcwd(),
        "started_at": started_at,
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(time.perf_counter() - wall_start, 3),
        "cpu_seconds": round(_cpu_seconds() - cpu_start, 3),
        "inputs": inputs,
        "counts": total.to_json(),
    }
