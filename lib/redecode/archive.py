"""Archive reading: the table of readers, one per input kind, and the entry points over it.

Contract. :data:`READERS` registers one :class:`redecode.record.Reader` per input kind (WARC, LZ4
WARC and ARC in :mod:`redecode.warc`, raw-response Parquet in :mod:`redecode.rawparquet`); a new input kind
is one reader class and one line here. A file's kind is sniffed from its first bytes
(:func:`reader_for`), never from its name, except that a file whose bytes no reader takes may be
claimed by its name (ARC files without a ``filedesc:`` line).

| need | function |
|---|---|
| every record of a file, or of a byte range of it | :func:`iter_records` |
| warcio/CDX "offset + length" random access (``warcio extract FILE OFFSET``) | :func:`read_record_at` |
| the records an index (or a prior run) selects in one file: one ranged read each | :func:`read_records_at` |
| where to cut a file into ranges read in parallel | :func:`find_record_start`, :func:`reader_for` (``shardable``) |
| go on after a damaged record (the job's reading) | :func:`iter_records` with ``resync=True`` |
| the file name endings input expansion takes | :data:`INPUT_SUFFIXES` |

Errors: :class:`redecode.record.ArchiveError` (path, offset, message) after the last readable
record of a file cut short or damaged, and at once for a file that cannot be opened.

Resync (``iter_records(resync=True)``, what ``redecode run`` reads with). Every record of a
``.warc.gz`` is its own gzip member, so one damaged member need not cost the records after it:
where a reader raises :class:`ArchiveError` at offset E, reading goes on at the reader's
:meth:`~redecode.record.Reader.find_resync_point` strictly after the start of the last record read
(not only after E: a record whose Content-Length claims too much holds the true next record in its
block, before E; such a record is then a :class:`redecode.record.Damage` of length 0 at its own
offset): for gzip files the next member that inflates to a record start and that warcio reads, for
uncompressed WARC the next ``WARC/<version>`` line that warcio parses as a record header, for
``.warc.lz4`` the next LZ4 frame FastWARC reads a record from. The
stretch skipped is recorded as a :class:`redecode.record.Damage` (offset, length, error) in
``RecordStream.damaged``; when no record start follows (the file is cut short), the error is
raised as without resync. Only readers that can cut files into ranges (``shardable``: WARC, LZ4
WARC, ARC) resync, and only in local files (a URL is read as without resync: finding a record start reads
the file's bytes around it). The place found is a record warcio reads, so garbage never becomes a row; but inside a
damaged stretch a record stored in another record's payload (an archive inside a page) would be
taken for one, as a cut between ranges can be (warcio reading on from the damage would have
stopped there instead).

Deviations: none here; the readers list theirs.
"""

from __future__ import annotations

import functools
import os
import zlib
from collections.abc import Iterator

from . import storage
from .rawparquet import ParquetReader
from .record import (
    DEFAULT_MAX_RECORD_BYTES,
    MODES,
    ArchiveError,
    ArchiveRecord,
    Damage,
    Head,
    Reader,
    RecordStream,
)
from .warc import ArcReader, Lz4WarcReader, WarcReader

__all__ = [
    "DEFAULT_MAX_RECORD_BYTES",
    "INPUT_SUFFIXES",
    "READERS",
    "ArchiveError",
    "ArchiveRecord",
    "Damage",
    "RecordStream",
    "find_record_start",
    "iter_records",
    "read_at_fallback",
    "read_record_at",
    "read_records_at",
    "reader_for",
]

#: The readers, one per input kind; their order is the order of :data:`INPUT_SUFFIXES` (and of
#: the kinds in messages). No two readers' ``sniff`` may take the same bytes.
READERS: tuple[Reader, ...] = (WarcReader(), Lz4WarcReader(), ArcReader(), ParquetReader())

#: File name endings :func:`redecode.inputs.expand_inputs` picks up inside directories and globs.
INPUT_SUFFIXES: tuple[str, ...] = tuple(s for r in READERS for s in r.suffixes)

#: The reader for bytes no reader recognises, when a record is asked for at an offset or a record
#: start is searched for (warcio then says what it finds there); reading such a file from its
#: start is refused (:func:`iter_records`).
read_at_fallback: Reader = READERS[0]

_UNKNOWN = "not a WARC (plain, gzip or LZ4), ARC or Parquet file (it does not start with 'WARC/')"


#: Bytes of a file read to sniff its kind (:func:`reader_for`).
HEAD_BYTES = 4096


def reader_for(path: str | os.PathLike[str]) -> Reader | None:
    """The reader of ``path``'s kind, sniffed from its first 4096 bytes (inflated when gzip), then,
    when no reader takes the bytes, from its name; None when neither says. Raises :class:`OSError`
    when the file cannot be opened."""
    p = os.fspath(path)
    with storage.open_input(p) as fh:
        raw = fh.read(HEAD_BYTES)
    return _sniff(p, raw)


def _sniff(p: str, raw: bytes) -> Reader | None:
    """The reader that takes a file named ``p`` whose first bytes are ``raw`` (see
    :func:`reader_for`)."""
    plain: bytes | None = raw
    if raw[:2] == b"\x1f\x8b":
        try:
            plain = zlib.decompressobj(31).decompress(raw, 64)
        except zlib.error:
            plain = None
    head = Head(raw, plain, p.lower())
    for reader in READERS:
        if reader.sniff(head):
            return reader
    for reader in READERS:
        if reader.sniff_name(head.name):
            return reader
    return None


def iter_records(
    path: str | os.PathLike[str],
    *,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    reader: str = "auto",
    start: int = 0,
    end: int | None = None,
    resync: bool = False,
) -> RecordStream:
    """Every record of one archive, in file order (warcinfo, request, metadata... included).

    ``path``: a file of any kind in :data:`READERS` (the kind is sniffed from the bytes, not the
    name). ``max_record_bytes`` caps the block read and the decoded payload of each record.
    ``reader``: one of :data:`redecode.record.MODES` (``auto``, ``warcio`` or ``fastwarc``, see
    :mod:`redecode.warc`); ``ValueError`` for another. Streams: memory is bounded by the cap, not
    the file size.

    ``start``/``end`` (bytes; rows for Parquet) read a range: ``start`` must be where a record starts
    (0, an ``offset`` seen before, or what ``find_record_start`` found), and the records yielded are
    those that start before ``end`` (the last one is read whole even if it runs past ``end``); see
    ``RecordStream.next_offset``.

    ``resync``: go on after damage at the next record that can be read (see the module docstring);
    the stretches skipped are in ``RecordStream.damaged``, and ``ArchiveError`` is raised only when
    no record follows the damage.

    Raises ``ArchiveError(path, offset, message)`` after the last readable record when the file is
    truncated or corrupt, and at once when it cannot be opened.
    """
    p = os.fspath(path)

    def records(stream: RecordStream) -> Iterator[ArchiveRecord]:
        if reader not in MODES:
            raise ValueError(f"reader must be 'auto', 'warcio' or 'fastwarc', not {reader!r}")
        try:
            kind = reader_for(p)
        except OSError as exc:
            raise ArchiveError(p, start, f"cannot open: {exc.strerror or exc}") from None
        if kind is None:
            raise ArchiveError(p, 0, _UNKNOWN)
        if not (resync and kind.shardable and storage.is_plain_file(p)):
            yield from kind.records(p, stream, cap=max_record_bytes, mode=reader, start=start, end=end)
            return
        segment = start
        while True:
            last = None  # offset of the last record yielded from this segment
            try:
                for record in kind.records(p, stream, cap=max_record_bytes, mode=reader, start=segment, end=end):
                    last = record.offset
                    box = [record]
                    record = None  # (not kept by this frame while the caller works on it: a record
                    yield box.pop()  # may be hundreds of MB, freed when the caller lets it go)
                return
            except ArchiveError as exc:
                # Strictly after the start of the last record read (of the segment's start when none
                # was), so every resync moves forward; not only after the error: a record whose
                # Content-Length claims too much holds the true next record in its block, before
                # where reading failed.
                floor = (last if last is not None else segment) + 1
                try:
                    resume = kind.find_resync_point(p, floor)
                except (ArchiveError, OSError):
                    resume = None
                if resume is None:
                    raise  # nothing readable after it: the file is cut short there
                if resume < exc.offset:
                    # a record inside the block of the one before, read on its own
                    stream.damaged.append(Damage(resume, 0, (
                        f"a record here is inside the block of the record at offset {last}, whose "
                        f"Content-Length runs past it; then at offset {exc.offset}: {exc.message}")))
                else:
                    stream.damaged.append(Damage(exc.offset, resume - exc.offset, exc.message))
                if end is not None and resume >= end:
                    stream.next_offset = resume
                    return
                segment = resume

    return RecordStream(records)


def find_record_start(path: str | os.PathLike[str], pos: int) -> int | None:
    """The first offset at or after ``pos`` (bytes; rows for Parquet) where a record seems to start.

    For splitting a file into ranges read in parallel (``iter_records(start=, end=)``); what a
    record start looks like is the reader's (:meth:`redecode.record.Reader.find_record_start`),
    confirmed by reading one record there. A record start can still be faked by an archive stored
    inside a record's payload: compare ``RecordStream.next_offset`` of the range before. Returns
    None when there is none before the end of the file; raises :class:`OSError` for a file that
    cannot be opened.
    """
    p = os.fspath(path)
    return (reader_for(p) or read_at_fallback).find_record_start(p, pos)


def read_record_at(
    path: str | os.PathLike[str],
    offset: int,
    *,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
) -> ArchiveRecord:
    """Read the one record that starts at ``offset`` (bytes; the row index for Parquet).

    Seeks to the gzip member or the uncompressed record and reads only that record, so a record
    found by ``iter_records`` can be read again from its ``warc_path`` and ``offset``. The result
    equals what ``iter_records`` yielded for it. Raises ``ArchiveError`` when no record can be read
    there.
    """
    p = os.fspath(path)
    try:
        kind = reader_for(p)
    except OSError as exc:
        raise ArchiveError(p, offset, f"cannot open: {exc.strerror or exc}") from None
    return (kind or read_at_fallback).read_at(p, offset, cap=max_record_bytes)


#: Bytes read after a record's length in a file that is not gzip (:func:`read_records_at`): warcio
#: finds where an uncompressed record ends by reading the blank lines after its block up to the next
#: record's first line, as when it reads the file; in a gzip file the member holds them.
SPAN_SLACK = 64 * 1024


def read_records_at(
    path: str | os.PathLike[str],
    spans,
    *,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
) -> RecordStream:
    """The records at ``spans`` of one file: ``(offset, length)`` pairs (bytes, as an index gives
    them: CDX ``offset``/``length``, Common Crawl's ``warc_record_offset``/``warc_record_length``;
    ``length`` None or 0 when the index has none), in the order given (increasing offsets: remote
    ranges close together then share a GET).

    Each record is one ranged read (:func:`redecode.storage.read_ranges`: a local ``pread``, an
    HTTP/S3 range request) of its length, made into a record by the file's reader from those
    bytes (:meth:`redecode.record.Reader.read_span`; a record without a length, and readers that
    cannot, by :meth:`~redecode.record.Reader.read_at`). A record read so equals what
    :func:`iter_records` and :func:`read_record_at` give for it. ``max_record_bytes`` as there.

    A span where no record can be read (no record starts there, the file ends before it or inside
    it with nothing to read) gives no record: it is appended to the stream's ``damaged`` as a
    :class:`Damage` (offset, length, the reason) and reading goes on with the next span. Raises
    :class:`ArchiveError` (at the first span's offset) when the file cannot be opened; after
    yielding a record the file ends inside (cut short: its ``missing_bytes`` set), at that
    record's offset, as :func:`iter_records` does (the spans after it lie past the file's end);
    and :class:`OSError` when reading it fails midway.
    """
    p = os.fspath(path)
    spans = list(spans)

    def records(stream: RecordStream) -> Iterator[ArchiveRecord]:
        if not spans:
            return
        try:
            head = storage.read_range(p, 0, HEAD_BYTES)
        except OSError as exc:
            raise ArchiveError(p, spans[0][0], f"cannot open: {exc.strerror or exc}") from None
        kind = _sniff(p, head) or read_at_fallback
        gz = head[:2] == b"\x1f\x8b"
        size: list[int] = []

        def reaches_end(end: int) -> bool:
            if not size:
                size.append(storage.size(p))
            return end >= size[0]

        slack = 0 if gz else SPAN_SLACK
        # a length of 0 is no extent (warcio's for a file gzipped as one stream): read_at there
        ranged = [(offset, length + slack) for offset, length in spans if kind.reads_spans and length]
        data = storage.read_ranges(p, ranged) if ranged else iter(())
        for offset, length in spans:
            try:
                if kind.reads_spans and length:
                    got = next(data)
                    if not got:
                        raise ArchiveError(p, offset, "no record here: the file ends before this offset")
                    # the file ends where the bytes do when the read gave fewer than asked, or when
                    # they reach its size (asked only of a record that runs past them)
                    ends = True if len(got) < length + slack else functools.partial(reaches_end, offset + len(got))
                    record = kind.read_span(p, offset, got, cap=max_record_bytes, gz=gz, file_ends=ends)
                else:
                    record = kind.read_at(p, offset, cap=max_record_bytes)
            except ArchiveError as exc:
                # (where an index says a record is: its entry may be what is wrong)
                stream.damaged.append(Damage(offset, length or 0, f"{exc.message} (or the index entry's offset or "
                                                                 "length is wrong, or the file changed since it "
                                                                 "was indexed)"))
                continue
            yield record
            if record.missing_bytes is not None and reaches_end(record.offset + record.length):
                # the file itself ends inside this record (its bytes kept, as reading the whole
                # file keeps them): the archive is cut short here, as iter_records says of it
                raise ArchiveError(p, offset, "the archive is cut short or damaged here: the file ends inside "
                                              "this record")

    return RecordStream(records)
