"""The re-decode run: archives (or the records an index selects) in, Parquet parts plus ``_run.json`` out.

Contract. :func:`run` re-decodes every record of its inputs into a run directory
(:mod:`redecode.rundir`): it expands the inputs (:func:`redecode.inputs.expand_inputs`), plans
shards (:func:`plan_shards`; with an index, :func:`plan_spans` of the files it names), skips the
shards complete in the directory, groups the rest into tasks (:func:`plan_tasks`: one shard each
in the flat layout, consecutive shards in a bounded one, :mod:`redecode.layout`), maps the per-task
function :func:`run_task` over them with an executor (:func:`redecode.executors.map_shards`: local
processes, or Spark through :func:`redecode.spark.run_spark`), redoes whole any input whose shards
did not meet exactly, removes parts of an older shard plan and writes the manifest.

Data flows one way: archive -> record (:mod:`redecode.archive`) -> decision and text
(:mod:`redecode.procedures`) -> row (:mod:`redecode.row`) -> Parquet (:mod:`redecode.writer`).
A shard is a byte range of a WARC or ARC file, or the records an index selects in one
(:class:`redecode.record.Spans`, each read by its offset and length); shards are cut at fixed byte
sizes and tasks grouped by fixed sizes, independent of the worker count, so the same rules on the
same bytes give the same parts and rows whatever the executor. Nothing is lost: ``records_seen == decoded + skipped + failed`` for every input and in
total, and records of other types are counted per type.

A record selection (:mod:`redecode.selection`: ``--sample``, ``--limit``) is applied here: records
a sample leaves out are counted (``not_sampled``) and give no row; under a limit the shards (one
per input) run one after the other, in input order, each given the rows still to take, so the
same records are taken with any executor and worker count.

Deviations: the Spark executor redoes shards made under other rules instead of refusing the run
directory (the local executor refuses unless ``force``), as it always has
(``tests/test_spark.py::test_marker_for_other_rules_is_redone``).
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import TYPE_CHECKING

from . import storage
from .archive import ArchiveError, iter_records, read_records_at, reader_for
from .executors import Executor, Local, map_shards, progress_reporter
from .inputs import expand_inputs
from .record import DEFAULT_MAX_RECORD_BYTES, ArchiveRecord, Spans, synthetic_record_id
from .row import NO_RECORD_TYPE, ROW_RECORD_TYPES, record_row, record_values
from .rules import DEFAULT_RULES, RULES, Rules, as_rules
from .layout import FLAT, Layout, PartSequence
from .rundir import (
    FILES_NOT_READ_LISTED,
    RunClock,
    RunDirectory,
    RunDirectoryConflict,
    RunDirectoryLocked,
    RunSummary,
    Shard,
    ShardCounts,
    Task,
    completion_marker,
    files_not_read,
    input_entries,
    input_size,
    is_run_output,
    part_stem,
    publish_shard,
    publish_task,
    shard_markers,
    task_key,
    task_marker,
    write_marker,
)
from .schema import COLUMN_INDEX
from .selection import ALL, Selection
from .writer import PartWriter

if TYPE_CHECKING:  # (an index is read by the command that has one: redecode.index, not at start-up)
    from .index import Index

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_MAX_RECORD_BYTES", "DEFAULT_SHARD_BYTES", "plan", "plan_shards", "plan_spans", "plan_tasks",
    "measure_task", "process_archive", "process_records", "process_shard", "process_spans", "process_task",
    "read_shard",
    "run", "run_shard", "run_task",
    # the names a run's callers use, from the modules that own them
    "FILES_NOT_READ_LISTED", "NO_RECORD_TYPE", "ROW_RECORD_TYPES", "RunDirectoryConflict", "RunDirectoryLocked",
    "RunSummary", "Shard", "part_stem", "record_row",
]


def process_archive(
    path: str,
    rules: Rules = RULES[DEFAULT_RULES],
    *,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    start: int = 0,
    end: int | None = None,
    counts: ShardCounts | None = None,
    on_bytes: Callable[[int], None] | None = None,
    boundary: dict | None = None,
    utf8_text: bool = False,
    selection: Selection = ALL,
    row_limit: int | None = None,
) -> Iterator[dict | list]:
    """Yield one row (a dict keyed by :data:`redecode.schema.COLUMNS`; with ``utf8_text``, the
    Parquet writer's list of their values, :func:`redecode.row.record_values`) per row record of
    ``path``.

    ``start``/``end`` restrict to records whose offset (bytes) lies in ``[start, end)``. Records of
    other types are only counted in ``counts``. Row records ``selection``'s sample leaves out are
    counted (``not_sampled``) and give no row; ``row_limit``: stop reading after that many rows
    (then ``boundary["limited"]`` is True). Damage is passed over: reading goes on at the next
    record start (``iter_records(resync=True)``). Raises :class:`redecode.archive.ArchiveError`
    after the last readable record when the archive is cut short or damaged with no record after
    the damage (the rows before it have been yielded). When ``boundary`` is a dict,
    ``boundary["next_offset"]`` is set to the offset of the first record at or after ``end`` (None
    when the file was read to its end), and ``boundary["damaged"]`` is the list of
    :class:`redecode.record.Damage` s skipped (filled as they are met, so it is there when
    ``ArchiveError`` is raised too). ``utf8_text``: rows for :class:`redecode.writer.PartWriter`
    (:func:`redecode.row.record_values`: no dict per row, the text as UTF-8 bytes where it comes
    so).
    """
    counts = counts if counts is not None else ShardCounts()
    stream = iter_records(path, max_record_bytes=max_record_bytes, start=start, end=end, resync=True)
    if boundary is not None:
        boundary["damaged"] = stream.damaged
    limited = yield from process_records(stream, rules, path=path, counts=counts, on_bytes=on_bytes,
                                         start=start, utf8_text=utf8_text, selection=selection,
                                         row_limit=row_limit)
    if limited:
        stream.close()
        if boundary is not None:
            boundary["limited"] = True
        return
    if boundary is not None:
        boundary["next_offset"] = stream.next_offset


def process_spans(
    path: str,
    spans: Spans,
    rules: Rules = RULES[DEFAULT_RULES],
    *,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    counts: ShardCounts | None = None,
    on_bytes: Callable[[int], None] | None = None,
    boundary: dict | None = None,
    utf8_text: bool = False,
    selection: Selection = ALL,
    row_limit: int | None = None,
) -> Iterator[dict]:
    """:func:`process_archive` for the records an index selects in ``path``: each read at its
    offset and length (:func:`redecode.archive.read_records_at`) and made into its row by
    :func:`process_records`, so that a record's row is the one a full run gives it. ``counts``
    gets ``selected`` (the spans); ``on_bytes(n)`` is called with each record's length;
    ``boundary["damaged"]`` lists the spans where no record could be read (filled as they are met),
    ``boundary["limited"]`` is True when ``row_limit`` stopped the reading. Raises
    :class:`redecode.archive.ArchiveError` when the file cannot be opened, :class:`OSError` when
    reading it fails."""
    counts = counts if counts is not None else ShardCounts()
    counts.selected = len(spans)
    stream = read_records_at(path, spans, max_record_bytes=max_record_bytes)
    if boundary is not None:
        boundary["damaged"] = stream.damaged

    def measured() -> Iterator[ArchiveRecord]:
        for record in stream:
            if on_bytes is not None:
                on_bytes(record.length)
            yield record

    limited = yield from process_records(measured(), rules, path=path, counts=counts, start=spans.first,
                                         utf8_text=utf8_text, selection=selection, row_limit=row_limit)
    if limited:
        stream.close()
        if boundary is not None:
            boundary["limited"] = True


def process_records(
    records: Iterable[ArchiveRecord],
    rules: Rules,
    *,
    path: str,
    counts: ShardCounts,
    on_bytes: Callable[[int], None] | None = None,
    start: int = 0,
    utf8_text: bool = False,
    selection: Selection = ALL,
    row_limit: int | None = None,
) -> Generator[dict | list, None, bool]:
    """The per-record loop every kind of shard runs: yield one row per row record of ``records``
    (records of one archive ``path``, in file order; a dict, or with ``utf8_text`` the Parquet
    writer's list of values, :func:`redecode.row.record_values`), counting every record in
    ``counts``; records of other types give no row, records ``selection``'s sample leaves out are
    counted (``not_sampled``). ``on_bytes(n)`` is called with the bytes (of the file, from
    ``start``) passed since the last record. Returns (the generator's value) True when it stopped
    after ``row_limit`` rows with a row left unread, else False: after the last row it reads on to
    the next record that would give one, counting the records it passes (a WARC's closing metadata
    record), so that an input whose last row is the limit's is read to its end. Exceptions of
    ``records`` (``ArchiveError``, ``OSError``) propagate.

    The reading-path seam (docs/DESIGN.md, "The reading path"): sequential shards
    (:func:`process_archive`) and any other source of :class:`redecode.record.ArchiveRecord` s
    of one file call this one loop, so their rows are made the same way.
    """
    last = start
    sampled = selection.sample is not None
    full = row_limit is not None and row_limit <= 0
    for record in records:
        row_record = record.record_type in ROW_RECORD_TYPES
        kept = row_record and not (
            sampled and not selection.keeps(record.record_id or synthetic_record_id(path, record.offset)))
        if full and kept:  # a row past the limit: the input is not read to its end
            return True
        counts.records_total += 1
        counts.by_record_type[record.record_type or NO_RECORD_TYPE] += 1
        if record.offset is not None and on_bytes is not None and record.offset > last:
            on_bytes(record.offset - last)
            last = record.offset
        if not row_record:
            continue
        if not kept:
            counts.not_sampled += 1
            continue
        if utf8_text:
            row = record_values(record, rules, utf8_text=True)
            counts.add_status(row[_STATUS], row[_SKIP_REASON], row[_ERROR_KIND])
        else:
            row = record_row(record, rules)
            counts.add_row(row)
        record = None  # (a record of hundreds of MB is not kept while its row is written)
        yield row
        full = row_limit is not None and counts.records_seen >= row_limit
    return False


_STATUS, _SKIP_REASON, _ERROR_KIND = COLUMN_INDEX["status"], COLUMN_INDEX["skip_reason"], COLUMN_INDEX["error_kind"]


#: Default shard size (bytes of archive file). Shards are cut at fixed sizes so that the parts and
#: their rows do not depend on the worker count; 16 MiB of gzip WARC is about 50 MB of records,
#: a few seconds of work, so two workers share even a single archive evenly.
DEFAULT_SHARD_BYTES = 16 * 1024 * 1024


def plan_shards(path: str, *, shard_bytes: int | None = None) -> list[tuple[int, int | None]]:
    """Byte ranges ``[(start, end), ...]`` of ``path`` to decode independently (end None: to EOF).

    Local files larger than 1.5 shards whose reader is ``shardable`` (WARC, ARC) are cut near every
    ``shard_bytes`` bytes, at a record start found by the reader's ``find_record_start``; other
    inputs are one shard. The cuts depend only on the file and ``shard_bytes``, never on the
    number of workers.
    """
    shard_bytes = shard_bytes or DEFAULT_SHARD_BYTES
    if not storage.is_plain_file(path):
        return [(0, None)]  # a URL, a WARC inside a WACZ: one shard (find_record_start reads local files)
    try:
        size = os.path.getsize(path)
        reader = reader_for(path) if size > shard_bytes * 3 // 2 else None
    except OSError:
        return [(0, None)]
    if reader is None or not reader.shardable:
        return [(0, None)]
    cuts = [0]
    target = shard_bytes
    while target < size - shard_bytes // 2:
        try:
            at = reader.find_record_start(path, target)
        except (ArchiveError, OSError):
            at = None
        if at is None:
            break
        if at > cuts[-1]:
            cuts.append(at)
        target = max(at, target) + shard_bytes
    return [(a, b) for a, b in zip(cuts, cuts[1:] + [None])]


def plan_spans(spans: Spans, *, shard_bytes: int | None = None) -> list[Spans]:
    """An index's records in one file (``spans``) cut into consecutive runs of at most
    ``shard_bytes`` bytes of records each (at least one record a run), each read by one shard: a
    file with many records selected is read in parallel as a large file is cut into byte ranges.
    The cuts depend only on the spans and ``shard_bytes``."""
    shard_bytes = shard_bytes or DEFAULT_SHARD_BYTES
    out, start, taken = [], 0, 0
    for i, (_, length) in enumerate(spans):
        if taken and taken + (length or 0) > shard_bytes:
            out.append(spans[start:i])
            start, taken = i, 0
        taken += length or 0
    out.append(spans[start:])
    return out


def plan(inputs: list[str], out: str, *, shard_bytes: int | None = None,
         not_read: list[str] | None = None, unreadable: dict[str, str] | None = None,
         list_prefix: str | None = None, whole_files: bool = False,
         index: Index | None = None, listed: dict[str, dict] | None = None) -> tuple[list[str], list[Shard]]:
    """``(paths, shards)``: ``inputs`` expanded (:func:`redecode.inputs.expand_inputs`, with
    ``list_prefix`` before every ``@LIST`` line) without the files a run writes in the run
    directory ``out`` (:func:`redecode.rundir.is_run_output`: its parts, markers, manifest...; any
    other file in it or below it is read), and their shards (:func:`plan_shards`; one per input
    with ``whole_files``, as a run under ``--limit`` reads them). Files the inputs held under other names are appended to
    ``not_read``, directories and files that could not be read added to ``unreadable`` (path ->
    error). Raises :class:`FileNotFoundError` for an input that matches nothing.

    With ``index`` (:func:`redecode.index.read_index`; then ``inputs`` must be empty): the files
    the index names, unlisted and unchecked (a missing one fails its own shards), each with the
    records selected in it (:func:`plan_spans`; one shard per file with ``whole_files``)."""
    if index is not None:
        if inputs:
            raise ValueError("give INPUT... or --index, not both (an index names the files it selects records of)")
        paths = [path for path, _ in index.files]
        shards = [Shard(path, i, part.first, part.end, part)
                  for path, spans in index.files
                  for i, part in enumerate([spans] if whole_files else plan_spans(spans, shard_bytes=shard_bytes))]
        return paths, shards
    paths = [p for p in expand_inputs(inputs, not_read, unreadable, list_prefix=list_prefix, listed=listed)
             if not is_run_output(out, p)]
    known = listed or {}
    shards = [Shard(path, index, start, end, listed=known.get(path))
              for path in paths
              for index, (start, end) in enumerate([(0, None)] if whole_files
                                                   else plan_shards(path, shard_bytes=shard_bytes))]
    return paths, shards


# ---------------------------------------------------------------------------------------------
# one shard


def read_shard(
    shard: Shard,
    write: Callable[[dict | list], None],
    rules: Rules,
    max_record_bytes: int,
    on_bytes: Callable[[int], None] | None = None,
    selection: Selection = ALL,
    row_limit: int | None = None,
) -> dict:
    """Decode one shard, handing each row to ``write(row)`` (a part's writer; the row is the
    writer's list of values, :func:`redecode.row.record_values`), and return its
    completion marker (:func:`redecode.rundir.completion_marker`; ``part`` its part in the flat
    layout). ``on_bytes(n)``: progress, bytes (default: the executor's
    :func:`redecode.executors.progress_reporter`). ``selection``'s sample is applied; reading
    stops after ``row_limit`` rows (outcome ``limited``).

    A truncated or corrupt archive keeps the rows read so far; its error (file and offset) is in the
    marker's ``error`` and its ``outcome`` is ``truncated``. Damage with readable records after it
    is skipped (the stretches in the marker's ``damaged``, the first in ``error`` and
    ``error_offset``): the outcome is ``damaged``, or ``truncated`` when the file is also cut short. Whatever goes wrong while *reading*
    (the archive, the file system under it, or a bug in a reader) is the shard's outcome, so it
    costs this input only; an error *writing* ``out`` (:class:`redecode.storage.OutputError`: disk
    full...) propagates (raised by ``write``).
    """
    counts = ShardCounts()
    outcome, error, error_offset = "complete", None, None
    if on_bytes is None:
        on_bytes = progress_reporter()
    started = time.perf_counter()
    cpu_started = time.process_time()
    boundary: dict = {}
    if shard.listed is not None:
        storage.remember(shard.path, shard.listed)
    # before reading: a rerun compares it with the file then, and reads the file again if it changed
    # (even while this shard was being read)
    fingerprint = storage.fingerprint(shard.path)
    if shard.began is not None:
        # a redo of an input whose shards did not meet: the file is compared with what it was when
        # the run first read it (cut short since, it must not be taken whole at its new size)
        fingerprint = shard.began
    # an object's size and ETag as the fingerprint took them serve the reading (no more HEADs);
    # the size is asked again after it, to tell an object replaced while it was read
    with storage.known_while_read(shard.path, fingerprint if shard.began is None else None):
        if shard.spans is not None:
            rows = process_spans(shard.path, shard.spans, rules, max_record_bytes=max_record_bytes, counts=counts,
                                 on_bytes=on_bytes, boundary=boundary, selection=selection, row_limit=row_limit,
                                 utf8_text=True)
        else:
            rows = process_archive(shard.path, rules, max_record_bytes=max_record_bytes, start=shard.start,
                                   end=shard.end, counts=counts, on_bytes=on_bytes, boundary=boundary,
                                   selection=selection, row_limit=row_limit, utf8_text=True)
        while True:
            try:
                row = next(rows)
            except StopIteration:
                if boundary.get("limited"):
                    outcome = "limited"
                break
            except ArchiveError as exc:
                if shard.spans is not None:
                    # the file could not be opened (none of its records read: "error"), or it ends
                    # inside a record the index selects ("truncated": the rows before it and its
                    # own are kept, the spans after it lie past the file's end)
                    outcome = "truncated" if counts.records_total else "error"
                    error, error_offset = str(exc), exc.offset
                    break
                # "error": nothing could be read at all (not an archive, unreadable); "truncated":
                # the rows before the damage are kept.
                # Nothing read: no record at all, or the damage is at the file's first record
                # (offset 0: a file gzipped as one stream, a first record with no Content-Length) and
                # no row came before it.
                nothing = shard.start == 0 and (
                    counts.records_total == 0 or (exc.offset == 0 and counts.records_seen == 0)
                )
                outcome, error, error_offset = ("error" if nothing else "truncated"), str(exc), exc.offset
                break
            except OSError as exc:  # reading the input (EIO, a file gone from under us)
                outcome, error = "error", f"{shard.path}: {exc.strerror or exc}"
                break
            except Exception as exc:  # noqa: BLE001 - a reader's bug must cost this input, not the run
                outcome, error = "error", (f"{shard.path}: unexpected error while reading "
                                           f"({type(exc).__name__}: {exc}); please report it")
                break
            write(row)  # outside the try: an error writing the part is not the input's
    damaged = [d.to_json() for d in boundary.get("damaged", ())]
    if shard.spans is not None:
        # every record read was at a span; a span gave no record when it could not be read there
        counts.missing = (len(shard.spans) - counts.records_total if outcome in ("error", "truncated")
                          else len(damaged))
    if damaged and outcome in ("complete", "limited") and shard.spans is not None:
        first = damaged[0]
        outcome, error_offset = "damaged", first["offset"]
        error = (f"{shard.path}: {len(damaged)} of {len(shard.spans)} records the index selects could not be "
                 f"read at their offset and length (see damaged); the first, at offset {first['offset']}: "
                 f"{first['error']}")
    elif damaged and outcome in ("complete", "limited"):
        # damage passed over is an error of the input even when --limit stopped it afterwards (the
        # rerun reads it again, as any input not read cleanly)
        first = damaged[0]
        more = f" ({len(damaged)} damaged stretches in all, see damaged)" if len(damaged) > 1 else ""
        outcome, error_offset = "damaged", first["offset"]
        went_on = ("reading went on at this record, no byte skipped" if first["length"] == 0 else  # (swallowed)
                   f"{first['length']} bytes skipped, reading went on at offset {first['offset'] + first['length']}")
        error = f"{shard.path}: at offset {first['offset']}: {first['error']}; {went_on}{more}"
    try:
        size = storage.size(shard.path)
    except OSError:  # an input named in an @list that is not there: its marker says so
        size = 0
        if outcome == "complete":
            outcome, error = "error", f"{shard.path}: no such file"
    then = fingerprint.get("size") if fingerprint else None
    if outcome in ("complete", "limited") and then is not None and size != then:
        # What was read is the file only when its size when reading began and now are the same
        # (the readers also check that they reached that size): cut short or appended to while it
        # was read, it is read again by the next run.
        outcome, error_offset = "truncated", min(size, then)
        began = "this run first read it" if shard.began is not None else "reading began"
        error = (f"{shard.path}: the file changed while it was read ({then} bytes when {began}, {size} "
                 f"now): run again to read it whole")
    end = shard.end if shard.end is not None else size
    counts.bytes_read = shard.spans.bytes if shard.spans is not None else end - shard.start
    marker = completion_marker(
        shard, rules, max_record_bytes=max_record_bytes, counts=counts, size=size, outcome=outcome,
        error=error, error_offset=error_offset,
        # The shard read exactly up to the next shard's start (see RecordStream.next_offset). When
        # not (a record start faked inside a payload), or when a shard of a cut file hit damage
        # (a later cut may lie inside a damaged record's block), the run redoes the input as one
        # shard, so that rows never depend on how the file was cut.
        boundary_ok=(shard.end is None or shard.spans is not None
                     or (outcome == "complete" and boundary.get("next_offset") == shard.end)),
        wall_seconds=round(time.perf_counter() - started, 3),
        cpu_seconds=round(time.process_time() - cpu_started, 3),
        input=fingerprint,
        damaged=damaged,
        selection=selection, row_limit=row_limit,
    )
    log.info("%s [%s, %s): %s, %d rows (%d decoded, %d skipped, %d failed) in %.1f s", shard.path, shard.start,
             "end" if shard.end is None else shard.end, outcome, counts.records_seen, counts.decoded,
             counts.skipped, counts.failed, marker["wall_seconds"])
    return marker


def process_shard(
    shard: Shard,
    out: str,
    rules: Rules,
    max_record_bytes: int,
    on_bytes: Callable[[int], None] | None = None,
    selection: Selection = ALL,
    row_limit: int | None = None,
) -> dict:
    """Decode one shard into its part in directory ``out`` (the flat layout's
    ``<archive name>.<8 hex>.<shard>.parquet``) and write its completion marker there, after the
    part; return the marker (:func:`read_shard`, whose arguments these are)."""
    with PartWriter(
        os.path.join(out, part_stem(shard.path, shard.index) + ".parquet"),
        extra_metadata=_part_metadata(rules),
    ) as writer:
        marker = read_shard(shard, writer.write, rules, max_record_bytes, on_bytes, selection, row_limit)
    write_marker(out, marker)
    return marker


def process_task(
    task: Task,
    out: str,
    rules: Rules,
    max_record_bytes: int,
    layout: Layout = FLAT,
    on_bytes: Callable[[int], None] | None = None,
    selection: Selection = ALL,
    row_limit: int | None = None,
) -> dict:
    """Decode one task's shards into directory ``out`` and write its completion marker there,
    after its parts; return the marker. The flat ``layout``: :func:`process_shard` of its one
    shard. A bounded one (:mod:`redecode.layout`): the shards' rows, in task order, through one
    :class:`redecode.layout.PartSequence` (parts cut to size, partition folders), and the task's
    marker (:func:`redecode.rundir.task_marker`: the parts and each shard's marker)."""
    if layout.flat:
        (shard,) = task.shards
        return process_shard(shard, out, rules, max_record_bytes, on_bytes, selection, row_limit)
    with PartSequence(out, task.key, layout, extra_metadata=_part_metadata(rules)) as parts:
        markers = [read_shard(shard, parts.write, rules, max_record_bytes, on_bytes, selection, row_limit)
                   for shard in task.shards]
        names = parts.close()
    marker = task_marker(task, layout, names, markers)
    write_marker(out, marker)
    return marker


def _part_metadata(rules: Rules) -> dict[str, str]:
    return {"redecode.rules": rules.name, "redecode.rules_digest": rules.digest}


def run_task(task: Task, *, out: str, rules: Rules, max_record_bytes: int, staged: bool,
             selection: Selection = ALL, row_limit: int | None = None, layout: Layout = FLAT,
             lock_id: str | None = None) -> dict:
    """The per-task function every executor runs: :func:`process_task` (with ``layout``,
    ``selection`` and ``row_limit``), published into run directory ``out``
    (:func:`redecode.rundir.publish_task`: staged for executors whose attempts may run twice and for
    URLs; ``lock_id``: the run's id in an object store's lock, checked before publishing). Returns
    the task's marker (a shard's in the flat layout), with ``storage_retries`` on it (a bounded
    layout's: on its first shard's): the transient errors of a remote store the task retried
    (:func:`redecode.storage.retrying`; not in the published marker). Errors reading the archives
    are in the markers (``outcome``); other exceptions propagate (Spark retries the task)."""
    with storage.counting_retries() as retries:
        marker = publish_task(out, task.key,
                              lambda directory: process_task(task, directory, rules, max_record_bytes, layout,
                                                             selection=selection, row_limit=row_limit),
                              staged=staged, lock_id=lock_id)
    (marker["shards"][0] if marker.get("shards") else marker)["storage_retries"] = retries.count
    return marker


def run_shard(shard: Shard, *, out: str, rules: Rules, max_record_bytes: int, staged: bool,
              selection: Selection = ALL, row_limit: int | None = None, lock_id: str | None = None) -> dict:
    """The per-shard function every executor runs: :func:`process_shard` (with ``selection`` and
    ``row_limit``), published into run directory ``out`` (:func:`redecode.rundir.publish_shard`:
    staged for executors whose attempts may run twice and for URLs; ``lock_id``: the run's id in an
    object store's lock, checked before publishing). Returns the marker dict, with
    ``storage_retries``: the transient errors of a remote store the shard retried
    (:func:`redecode.storage.retrying`). Errors reading the archive are in the marker
    (``outcome``); other exceptions propagate (Spark retries the task)."""
    with storage.counting_retries() as retries:
        marker = publish_shard(out, part_stem(shard.path, shard.index) + ".parquet",
                               lambda directory: process_shard(shard, directory, rules, max_record_bytes,
                                                               selection=selection, row_limit=row_limit),
                               staged=staged, lock_id=lock_id)
    marker["storage_retries"] = retries.count
    return marker


# ---------------------------------------------------------------------------------------------
# the run


def run(
    inputs: list[str],
    out: str,
    *,
    rules: Rules | str = DEFAULT_RULES,
    workers: int | None = 1,
    force: bool = False,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    shard_bytes: int | None = None,
    quiet: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
    on_error: Callable[[str], None] | None = None,
    executor: Executor | None = None,
    selection: Selection = ALL,
    list_prefix: str | None = None,
    index: Index | None = None,
    layout: Layout = FLAT,
) -> RunSummary:
    """Re-decode every record of ``inputs`` into run directory ``out``; return the summary.

    ``layout`` (:class:`redecode.layout.Layout`: ``--max-part-bytes``, ``--max-part-rows``,
    ``--partition-by``): how the rows are cut into parts; the default is one part per shard. Any
    other groups consecutive shards into tasks (:func:`plan_tasks`) whose rows are written as parts
    of a bounded size, in Hive-style partition folders; a run directory holds one layout.

    ``index`` (:func:`redecode.index.read_index`; ``inputs`` then empty): re-decode only the records
    it selects, each read by its offset and length, grouped per file in offset order (shards of
    :func:`plan_spans`); the rows are those a full run gives these records. The selection is then
    ``selection`` with ``index``; the manifest gets ``index`` (its sources, ``where``, entries and
    records selected) and the counts ``selected``, ``read`` and ``missing`` (not read: no record at
    the offset and length, or the file gone).

    ``inputs``: files, directories (recursed), globs, URLs and ``@LIST`` files of archives
    (:func:`redecode.inputs.expand_inputs`; ``list_prefix`` is prepended to every ``@LIST``
    line). ``rules``: a :class:`redecode.rules.Rules`, or the name of a shipped one (looked up once,
    here). ``executor``: default the local one with ``workers`` processes (None: all cores), which
    preloads the rules before forking. ``selection``: the records taken (``--sample``,
    ``--limit``, :mod:`redecode.selection`; default all), recorded in every marker and in the
    manifest. ``on_progress(done, total)`` is called as input bytes are consumed (local executor;
    under a limit, rows written out of the limit); ``on_error(message)`` once per input that could
    not be read to its end.

    ``out`` is a local directory (a ``file://`` URL is taken as its path) or a URL (``s3://...``):
    each shard is then staged on local disk and published part first, marker second
    (:func:`redecode.rundir.publish_shard`), with any executor.

    Raises :class:`FileNotFoundError` for an input that matches nothing, :class:`KeyError` for
    unknown rules, :class:`ValueError` for an ``out`` that is a URL the executor cannot write,
    :class:`redecode.rundir.RunDirectoryLocked`, :class:`redecode.rundir.RunDirectoryConflict`
    (output of other rules or of another selection in ``out``, local executor, without ``force``).
    """
    with storage.counting_retries() as retries:
        return _run(inputs, out, rules=rules, workers=workers, force=force, max_record_bytes=max_record_bytes,
                    shard_bytes=shard_bytes, on_progress=on_progress, on_error=on_error, executor=executor,
                    selection=selection, list_prefix=list_prefix, index=index, layout=layout, retries=retries)


def _run(inputs, out, *, rules, workers, force, max_record_bytes, shard_bytes, on_progress, on_error, executor,
         selection, list_prefix, index, layout, retries) -> RunSummary:
    clock = RunClock.start()
    rules = as_rules(rules)
    if index is not None:
        # what selects the records is the selection's identity (redecode.selection)
        selection = selection.with_index(index.given or index.sources, index.where, index.prefix)
    executor = executor or Local(workers, prepare=rules.preload)
    out = storage.local_path(out)
    if storage.is_remote(out) and not executor.writes_urls:
        raise ValueError(f"--out {out}: this executor writes a local directory, not a URL")
    limited = selection.limit is not None
    not_read: list[str] = []
    unreadable: dict[str, str] = {}
    listed: dict[str, dict] = {}
    paths, shards = plan(inputs, out, shard_bytes=shard_bytes, not_read=not_read, unreadable=unreadable,
                         list_prefix=list_prefix, whole_files=limited, index=index, listed=listed)
    log.info("%d input(s), %d shard(s) -> %s", len(paths), len(shards), out)
    for url, entry in listed.items():
        storage.remember(url, entry)  # (the sizes and ETags the listing gave: no HEAD for them)
    local = isinstance(executor, Local)
    with RunDirectory(out, rules, force=force, foreign="refuse" if local else "redo", selection=selection,
                      layout=layout) as rd:
        if force:
            rd.forget(shards)
        # an index names every input of its selection: those it no longer names (its content
        # changed) leave the directory, which holds exactly the index's records
        dropped = rd.drop_other_inputs(paths) if index is not None else []
        if dropped:
            log.info("%d input(s) the index no longer names: their rows removed from %s", len(dropped), out)
        state = rd.resume(shards, max_record_bytes, listed) if not force else None
        markers = state.markers if state is not None else {}
        task_fn = functools.partial(run_task, out=out, rules=rules, max_record_bytes=max_record_bytes,
                                    staged=executor.staged or storage.is_remote(out), selection=selection,
                                    layout=layout, lock_id=rd.lock_id)
        sizes = {url: int(entry.get("size") or 0) for url, entry in listed.items()}
        if limited:
            all_paths = paths
            rd.start(plan_tasks([s for s in shards if (s.path, s.index) not in markers], layout, group=False))
            shards, results, skipped = _run_in_order(shards, markers, task_fn, executor, selection.limit,
                                                     on_progress, out, layout, rd)
            paths = sorted({s.path for s in shards})
            todo, redone = results, []
            tasks_run = len(results)
            rd.remove_stale_parts(all_paths, shards)  # parts of inputs a limit no longer reaches
        else:
            todo = [s for s in shards if (s.path, s.index) not in markers]
            tasks = plan_tasks(todo, layout, shard_bytes=shard_bytes, sizes=sizes)
            rd.start(tasks)
            log.info("%d shard(s) complete in %s, %d to do in %d task(s)", len(shards) - len(todo), out, len(todo),
                     len(tasks))
            progress = _progress(shards, markers, on_progress)
            batches = _InputBatches(rd, shards, markers, clock)
            done_tasks = map_shards(task_fn, tasks, executor, on_progress=progress,
                                    description=f"redecode {len(todo)} shard(s) -> {out}", on_result=batches)
            # (what is still pending goes into the table the manifest writes next)
            results = _record(rd, done_tasks, markers)
            # an input whose shards did not meet exactly is redone whole
            shards, redone = rd.redo_bad_boundaries(shards, markers)
            if redone:
                log.info("%d shard(s) redone (an input cut into shards that did not meet is read as one)",
                         len(redone))
            more_tasks = plan_tasks(redone, layout, shard_bytes=shard_bytes, sizes=sizes)
            more = map_shards(task_fn, more_tasks, executor,
                              description=f"redecode {len(redone)} shard(s) -> {out}")
            results += _record(rd, more, markers)
            tasks_run = len(done_tasks) + len(more)
            skipped = len(shards) - len(todo) - len(redone)
            if progress is not None:
                progress(None)
            rd.remove_stale_parts(paths, shards)
        earlier_paths, earlier_shards, earlier_markers = rd.earlier_inputs(all_paths if limited else paths)
        markers.update(earlier_markers)
        manifest = rd.manifest(paths + earlier_paths, shards + earlier_shards, markers, clock)
        manifest["files_not_read"] = files_not_read([p for p in not_read if not is_run_output(out, p)],
                                                    unreadable)
        if index is not None:
            manifest["index"] = index.to_json()
        if limited:
            manifest["selection"]["inputs_not_reached"] = files_not_read(sorted(set(all_paths) - set(paths)))
        # transient errors of a remote store retried, by the shards and by this process
        manifest["storage_retries"] = retries.count + sum(m.get("storage_retries", 0) for m in results)
        if executor.info is not None:
            task_cpu = sum(m.get("cpu_seconds", 0.0) for m in results)
            manifest["cpu_seconds"] = round(manifest["cpu_seconds"] + task_cpu, 3)
            manifest["executor"] = dict(
                executor.info,
                tasks=tasks_run,
                shards_skipped=skipped,
                task_wall_seconds=round(sum(m.get("wall_seconds", 0.0) for m in results), 3),
                task_cpu_seconds=round(task_cpu, 3),
            )
        rd.write_manifest(manifest)
        log.info("manifest written: %s", storage.join(out, "_run.json"))
    read_now = {m["path"] for m in results}
    done = {(m["path"], m["shard"]) for m in results}
    skipped_paths = {s.path for s in shards if (s.path, s.index) not in done}
    errors = [entry["error"] for entry in manifest["inputs"] if entry["error"]]
    # a directory or file the inputs held that could not be read: the run did not read everything
    errors += [f"{entry['path']}: {entry['error']}" for entry in manifest["files_not_read"].get("unreadable", ())]
    if on_error:
        for message in errors:
            on_error(message)
    return RunSummary(
        manifest=manifest, errors=errors,
        resumed=sorted(skipped_paths - read_now - set(earlier_paths)),  # nothing of them read now
        # a run stopped midway: some shards were done (an input remade is said so instead)
        partial=sorted((skipped_paths & read_now) - set(state.remade if state is not None else ())),
        changed=list(state.changed) if state is not None else [],
        retried=list(state.retried) if state is not None else [],
        dropped=dropped,
        remade=list(state.remade) if state is not None else [],
    )


def _run_in_order(shards: list[Shard], markers: dict, task_fn, executor: Executor, limit: int,
                  on_progress: Callable[[int, int], None] | None, out: str, layout: Layout,
                  rd: RunDirectory) -> tuple[list[Shard], list[dict], int]:
    """Run ``shards`` (one per input, each its own task) one after the other, each given the rows
    still to take out of ``limit``, until ``limit`` rows are written; a shard with a current marker
    made with the same row limit is not run again. Returns ``(shards reached, markers of the
    shards run, shards skipped as complete)``; ``markers`` gets every reached shard's marker."""
    remaining = limit
    reached: list[Shard] = []
    results: list[dict] = []
    skipped = 0
    if on_progress is not None:
        on_progress(0, limit)
    for shard in shards:
        if remaining <= 0:
            break
        key = (shard.path, shard.index)
        marker = markers.get(key)
        if marker is not None and marker.get("row_limit") == remaining:
            skipped += 1
        else:
            (task,) = plan_tasks([shard], layout, group=False)
            done = map_shards(functools.partial(task_fn, row_limit=remaining), [task], executor,
                              description=f"redecode {shard.path} (at most {remaining} rows) -> {out}")
            (marker,) = _record(rd, done, markers)
            results.append(marker)
        reached.append(shard)
        remaining -= marker["rows"]
        if on_progress is not None:
            on_progress(limit - max(remaining, 0), limit)
    for key in [k for k in markers if k[0] not in {s.path for s in reached}]:
        del markers[key]
    return reached, results, skipped


class _Overlay(dict):
    """A dict of new entries over a base dict read through (no copy of the base)."""

    def __init__(self, base: dict) -> None:
        super().__init__()
        self.base = base

    def __missing__(self, key):
        return self.base[key]

    def __contains__(self, key) -> bool:
        return super().__contains__(key) or key in self.base


class _InputBatches:
    """``on_result`` of a run's map: as tasks finish, the per-input records of the inputs all of
    whose shards are done go to the per-input table in batches
    (:meth:`redecode.rundir.RunDirectory.record_inputs`: at least :attr:`EVERY` inputs, or
    :attr:`SECONDS` after the last batch), so that a run stopped midway has its finished inputs
    listed before the manifest is written."""

    EVERY = 1000
    SECONDS = 60.0

    def __init__(self, rd: RunDirectory, shards: list[Shard], markers: dict, clock: RunClock) -> None:
        self.rd, self.clock = rd, clock
        self.shards: dict[str, list[Shard]] = {}
        for s in shards:
            self.shards.setdefault(s.path, []).append(s)
        self.markers = _Overlay(markers)  # (the run's markers so far, and those of the tasks since)
        self.pending: list[dict] = []
        self.seq = 0
        self.last = time.monotonic()

    def __call__(self, _index: int, marker: dict) -> None:
        paths = set()
        for m in shard_markers(marker):
            self.markers[(m["path"], m["shard"])] = m
            paths.add(m["path"])
        for path in sorted(paths):
            shards = self.shards.get(path, ())
            if shards and all((s.path, s.index) in self.markers for s in shards):
                self.pending += input_entries([path], list(shards), self.markers)
        if len(self.pending) >= self.EVERY or (self.pending and time.monotonic() - self.last >= self.SECONDS):
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.rd.record_inputs(self.pending, self.clock, self.seq)
            self.seq += 1
            self.pending = []
        self.last = time.monotonic()


def measure_task(marker: dict) -> tuple[int, int]:
    """``(records, bytes)`` a task's marker says were read (its shards' ``records_total`` and
    ``bytes_read``): what the progress of a Spark run counts (:class:`redecode.executors.Spark`'s
    ``measure``)."""
    shards = shard_markers(marker)
    return (sum(m["counts"].get("records_total", 0) for m in shards),
            sum(m["counts"].get("bytes_read", 0) for m in shards))


def _record(rd: RunDirectory, done: list[dict], markers: dict) -> list[dict]:
    """The shard markers of the tasks ``done`` (their markers, as the per-task function returned
    them), recorded in ``rd`` and in ``markers`` (by ``(path, shard)``)."""
    shard_list = rd.add(done)
    markers.update(((m["path"], m["shard"]), m) for m in shard_list)
    return shard_list


def plan_tasks(shards: list[Shard], layout: Layout, *, shard_bytes: int | None = None,
               sizes: dict[str, int] | None = None, group: bool = True) -> list[Task]:
    """The tasks ``shards`` are run in: in the flat ``layout`` one per shard (its key the shard's
    part stem); in a bounded one, consecutive shards (in the order given, input order) up to
    :meth:`redecode.layout.Layout.task_bytes` of input each (an index's records count their
    lengths; a whole file its size, from ``sizes`` (URL -> bytes, a listing's) or the local file
    system, else as much as a task takes) and :data:`TASK_SHARDS` shards, so that many small inputs
    share a task and its parts, each task keyed by :func:`redecode.rundir.task_key`. ``group`` False: one task per shard
    (a run under ``--limit`` runs them one by one)."""
    if layout.flat:
        return [Task(part_stem(s.path, s.index), (s,)) for s in shards]
    budget = layout.task_bytes(shard_bytes or DEFAULT_SHARD_BYTES)
    groups: list[list[Shard]] = []
    taken = 0
    for shard in shards:
        n = _shard_bytes(shard, sizes or {}, budget)
        if not groups or not group or taken + n > budget or len(groups[-1]) >= TASK_SHARDS:
            groups.append([])
            taken = 0
        groups[-1].append(shard)
        taken += n
    return [Task(task_key(g, layout), tuple(g)) for g in groups]


#: Shards a task of a bounded layout holds at most (:func:`plan_tasks`): thousands of tiny inputs
#: still make tasks to run in parallel, and a changed input reads at most this many again.
TASK_SHARDS = 1000


def _shard_bytes(shard: Shard, sizes: dict[str, int], budget: int) -> int:
    """Bytes of input ``shard`` reads, as far as known without a request (see :func:`plan_tasks`)."""
    if shard.spans is not None:
        return shard.spans.bytes
    if shard.end is not None:
        return shard.end - shard.start
    if shard.path in sizes:
        return max(sizes[shard.path] - shard.start, 0)
    if not storage.is_remote(shard.path):
        try:
            return max(storage.size(storage.local_path(shard.path)) - shard.start, 0)
        except (OSError, ValueError):
            return 0
    return budget


def _progress(shards: list[Shard], markers: dict, on_progress: Callable[[int, int], None] | None):
    """The executor's progress callback for ``on_progress(done, total)`` (bytes), or None: called
    with the bytes each shard reports, and with None at the end (then the exact total done)."""
    if on_progress is None:
        return None
    whole = [s.path for s in shards if s.spans is None and s.end is None]
    # objects' sizes from a listing (the run's, or one per folder): no request per input
    remote = [p for p in whole if storage.is_remote(p) and storage.split_member(p) is None]
    sizes = {p: (e or {}).get("size", 0) for p, e in storage.stat_objects(remote).items()} if remote else {}
    total = sum(s.spans.bytes if s.spans is not None
                else (s.end if s.end is not None else sizes.get(s.path) or input_size(s.path)) - s.start
                for s in shards)
    done = sum(m["counts"].get("bytes_read", 0) for m in markers.values())
    on_progress(done, total)

    def progress(n: int | None) -> None:
        nonlocal done
        if n is None:  # the end: every marker's exact byte count
            done = sum(m["counts"].get("bytes_read", 0) for m in markers.values())
        else:
            done += n
        on_progress(min(done, total), total)

    return progress
