"""What every archive reader gives and the protocol a reader implements.

Contract. A reader (one class per input kind, registered in :data:`redecode.archive.READERS`)
turns one file into :class:`ArchiveRecord` s, in file order, with the HTTP message parsed and the
payload's transfer and content codings removed, and can cut the file into ranges and read one
record again by its offset (warcio/CDX "offset + length" random access,
``warcio extract FILE OFFSET``). Units are bytes, except for kinds whose records have no byte
offset (raw-response Parquet: the row index; see the reader).

- :class:`Reader`: ``sniff`` (the file's first bytes, :class:`Head`), ``sniff_name`` (the name
  alone, for files no reader's bytes-sniff takes), ``records`` (iterate a range), ``find_record_start``,
  ``read_at``, ``read_span`` (a record from the bytes one ranged read gave), ``shardable`` and
  ``suffixes``.
- :class:`RecordStream`: the iterator :func:`redecode.archive.iter_records` returns, with
  ``next_offset`` for range reads and ``damaged`` (:class:`Damage`) for the stretches a reading
  that resyncs after damage skipped.
- :class:`ArchiveError`: a file that cannot be read to its end; raised after the last readable
  record, naming the file and the offset.
- :class:`Spans`: the records an index selects in one file, ``(offset, length)`` pairs in offset
  order, packed (what :func:`redecode.archive.read_records_at` reads and a run's shard carries).

Deviations: none (this module holds no algorithm).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from array import array
from collections.abc import Callable, Iterable, Iterator

from .dataclass_code import dataclass
from .logs import printable

__all__ = [
    "DEFAULT_MAX_RECORD_BYTES",
    "MODES",
    "ArchiveError",
    "ArchiveRecord",
    "Damage",
    "Head",
    "Reader",
    "RecordStream",
    "Spans",
    "synthetic_record_id",
]

DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Default cap on a record block and on its decoded payload, in bytes (64 MiB)."""

#: The ``mode`` every reader accepts (the ``reader`` argument of :func:`redecode.archive.iter_records`):
#: ``auto``, or one library forced (``warcio``, ``fastwarc``); kinds read one way only ignore it.
MODES = ("auto", "warcio", "fastwarc")


class ArchiveError(Exception):
    """An archive could not be read to its end.

    ``path`` (as given), ``offset`` (bytes: where the unreadable record starts, or the row index for
    Parquet), ``message`` (what went wrong, :func:`redecode.logs.printable`: the bytes of a damaged
    stretch it quotes cannot drive a terminal). ``str()`` gives one line naming all three, the path
    printable too.
    """

    def __init__(self, path: str, offset: int, message: str) -> None:
        message = printable(message)
        super().__init__(path, offset, message)
        self.path = path
        self.offset = offset
        self.message = message

    def __str__(self) -> str:
        return f"{printable(self.path)}: at offset {self.offset}: {self.message}"


@dataclass(slots=True, kw_only=True)
class ArchiveRecord:
    """One archive record with its HTTP message parsed and its payload decoded.

    Units are bytes. ``warc_path`` the path as given; ``offset``/``length`` locate the record in the
    file (warcio's indexer: for a gzip-per-record file the offset of the gzip member and its
    compressed length; for an uncompressed file the offset of ``WARC/`` and the length of the
    record without the CRLFCRLF after it; for raw-response Parquet the row index and the body's
    length); ``record_type`` the WARC-Type value; ``warc_date`` as in the
    header; ``content_type_values`` the HTTP ``Content-Type`` field values in order for records with
    an HTTP message, else the WARC ``Content-Type`` (``[]`` when absent or ``application/http``);
    ``http_status``/``http_headers`` from the HTTP head (None without one); ``payload`` the HTTP body
    with transfer and content codings removed (for resource records, the block), None for
    warcinfo/request/metadata/other records and whenever ``error_kind`` is set;
    ``payload_length`` the body as stored (before decoding), from Content-Length when the block was
    not read whole; ``payload_digest`` the WARC-Payload-Digest value; ``error_kind`` one of
    ``too-large``, ``chunked``, ``content-encoding``, ``truncated`` with ``error`` the message;
    ``warning`` a tolerated oddity (a content-coded stream that ends early, a body declared chunked
    that is not, bytes other than blank lines between the block and the next record: a
    Content-Length shorter than the block);
    ``is_http`` True when an HTTP response head was parsed from the block; ``identity_payload``
    the body as stored when its content coding failed because the body is not in that coding and
    sniffs as text (:attr:`redecode.http.BodyResult.identity`; ``error_kind`` is still
    ``content-encoding``; rules with ``identity_fallback`` decode it), else None.
    ``missing_bytes`` (bytes): for a record cut short (a block shorter than its Content-Length: the
    file ends inside it, or its gzip member ends before it), how many bytes of the block the archive
    lacks; the payload is then what is there (decoded as usual, a ``warning`` says it is cut short)
    unless the bytes there end inside the HTTP head or cannot be held (``error_kind``
    ``truncated``). 0 when the block is whole but the file ends inside the record's gzip member
    (its trailer or closing CRLFCRLF missing). None for a whole record.
    """

    warc_path: str
    offset: int
    length: int
    record_type: str
    record_id: str | None
    target_uri: str | None
    warc_date: str | None
    content_type_values: list[str]
    http_status: int | None
    http_headers: list[tuple[str, str]] | None
    payload: bytes | None
    payload_length: int
    payload_digest: str | None
    error_kind: str | None = None
    error: str | None = None
    warning: str | None = None
    is_http: bool = False
    identity_payload: bytes | None = None
    missing_bytes: int | None = None


def synthetic_record_id(path: str, offset: int) -> str:
    """A deterministic WARC-Record-ID (``<urn:uuid:...>``, UUID5/SHA-1) from the file's base name and
    the record offset, for records that have none of their own (ARC, raw-response Parquet)."""
    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{os.path.basename(path)}#{offset}')}>"


@dataclass(frozen=True, slots=True)
class Damage:
    """A stretch of an archive that held no readable record and was skipped (a damaged gzip
    member, garbage between records...): ``offset`` (bytes) where reading failed (the
    :class:`ArchiveError`'s offset), ``length`` (bytes) from there to the next record start, where
    reading went on (0 when a record starts right there: one swallowed by the Content-Length of
    the record before, read on its own, at its own offset, which may lie before where reading
    failed), ``error`` the reader's message."""

    offset: int
    length: int
    error: str

    def to_json(self) -> dict:
        """``{"offset", "length", "error"}``, as the completion markers and ``_run.json`` hold it."""
        return {"offset": self.offset, "length": self.length, "error": self.error}


class RecordStream(Iterator[ArchiveRecord]):
    """The iterator :func:`redecode.archive.iter_records` returns.

    ``next_offset``: after the iteration stopped at ``end``, the offset of the first record not
    yielded (at or after ``end``, or where reading would have gone on after damage); None while
    iterating and when the file was read to its end. A caller that splits a file into ranges checks
    that each range's ``next_offset`` is the next range's ``start``: then the ranges together read
    exactly the records of the whole file. ``damaged``: the :class:`Damage` s skipped so far, in
    file order (only when reading resyncs, ``iter_records(resync=True)``).
    """

    __slots__ = ("_gen", "next_offset", "damaged")

    def __init__(self, records: Callable[[RecordStream], Iterator[ArchiveRecord]]) -> None:
        """``records(stream)``: the generator of the records, given this stream to set
        ``next_offset`` and ``damaged`` on."""
        self.next_offset: int | None = None
        self.damaged: list[Damage] = []
        self._gen = records(self)

    def __iter__(self) -> RecordStream:
        return self

    def __next__(self) -> ArchiveRecord:
        return next(self._gen)

    def close(self) -> None:
        self._gen.close()


class Head:
    """The first bytes of a file, as the readers' ``sniff`` sees them: ``raw`` (up to 4096 bytes as
    stored), ``plain`` (``raw`` inflated when it starts with the gzip magic, up to 64 bytes; None
    when that inflate fails; ``raw`` itself otherwise) and ``name`` (the path, lower-cased)."""

    __slots__ = ("raw", "plain", "name")

    def __init__(self, raw: bytes, plain: bytes | None, name: str) -> None:
        self.raw, self.plain, self.name = raw, plain, name


class Reader:
    """One input kind. A subclass sets :attr:`kind` and :attr:`suffixes` (and :attr:`shardable`)
    and implements the methods; one instance of it is registered in
    :data:`redecode.archive.READERS`, whose order is the order of
    :data:`redecode.inputs.INPUT_SUFFIXES`.

    ``cap`` everywhere is the cap on a record's block and decoded payload, in bytes: a larger
    record is yielded with ``error_kind="too-large"`` (memory stays bounded by it). Methods raise
    :class:`ArchiveError` for unreadable bytes and :class:`OSError` for a file that cannot be
    opened.
    """

    #: The kind's name in messages (``WARC``, ``ARC``, ``Parquet``).
    kind: str = ""
    #: File name endings (lower case) that input expansion picks up in directories and globs.
    suffixes: tuple[str, ...] = ()
    #: Whether a run may cut one file of this kind into ranges read in parallel (then
    #: :meth:`find_record_start` and ``records(start=, end=)`` must work on it).
    shardable: bool = False

    def sniff(self, head: Head) -> bool:
        """Whether a file whose first bytes are ``head`` is of this kind (the bytes decide, never
        the name: no two readers may claim the same bytes)."""
        raise NotImplementedError

    def sniff_name(self, name: str) -> bool:
        """Whether the lower-cased name alone claims a file whose bytes no reader took."""
        return False

    def records(self, path: str, stream: RecordStream, *, cap: int, mode: str, start: int,
                end: int | None) -> Iterator[ArchiveRecord]:
        """Every record of ``path`` that starts at or after ``start`` (a record start) and before
        ``end`` (None: the end of the file), in file order; sets ``stream.next_offset`` when it
        stops at ``end``. ``mode``: one of :data:`MODES`."""
        raise NotImplementedError

    def find_record_start(self, path: str, pos: int) -> int | None:
        """The first offset at or after ``pos`` where a record seems to start, or None."""
        raise NotImplementedError

    def find_resync_point(self, path: str, pos: int) -> int | None:
        """Where reading may go on after damage: the first offset at or after ``pos`` where a record
        starts that can be read, or None. By default :meth:`find_record_start`; a reader may look
        for a looser start (after garbage, a record need not follow an empty line)."""
        return self.find_record_start(path, pos)

    def read_at(self, path: str, offset: int, *, cap: int) -> ArchiveRecord:
        """The one record that starts at ``offset``, equal to what :meth:`records` yields for it."""
        raise NotImplementedError

    #: Whether :meth:`read_span` makes a record from bytes already read (an index's spans are then
    #: one ranged read each); else it reads the record itself, by :meth:`read_at`.
    reads_spans: bool = False

    def read_span(self, path: str, offset: int, data: bytes, *, cap: int, gz: bool,
                  file_ends: bool | Callable[[], bool] = False) -> ArchiveRecord:
        """The record that starts at ``offset``, equal to :meth:`read_at`'s, made from ``data``:
        the file's bytes from ``offset`` on, as one ranged read gave them (the record's length as
        an index gives it; for a file that is not gzip, ``gz`` False, up to
        :data:`redecode.archive.SPAN_SLACK` bytes more, where the next record's first line is).
        ``file_ends``: the file ends where ``data`` does (or a function that says so, called only
        for a record that runs past ``data``): a record cut
        short there is the archive's (its text kept, ``missing_bytes``); else a record that runs
        past ``data`` is cut short by its index entry and fails (``truncated``).
        By default the record is read again by :meth:`read_at` (``data`` unused)."""
        return self.read_at(path, offset, cap=cap)


class Spans:
    """The records an index selects in one file: ``(offset, length)`` pairs (bytes; ``length``
    None when the index gives none), in increasing offset order, without repeats, packed in two
    arrays of 64-bit integers (16 bytes a record: a selection of millions of records fits a
    driver's memory, and a shard carrying them pickles small). Iterating gives the pairs;
    ``len`` the count; :attr:`digest` identifies the selection (a completion marker records it);
    :attr:`bytes` is the sum of the known lengths. Immutable and hashable; equal when the pairs are.
    """

    __slots__ = ("_offsets", "_lengths", "_digest")

    def __init__(self, offsets: array, lengths: array) -> None:
        """``offsets``/``lengths``: ``array("q")`` of equal length, offsets increasing, lengths
        ``-1`` where unknown (use :meth:`of` for pairs). ``ValueError`` otherwise."""
        if len(offsets) != len(lengths):
            raise ValueError("offsets and lengths differ in number")
        if any(b <= a for a, b in zip(offsets, offsets[1:])):
            raise ValueError("span offsets must increase (sorted, without repeats)")
        self._offsets, self._lengths = offsets, lengths
        self._digest: str | None = None

    @classmethod
    def of(cls, pairs: Iterable[tuple[int, int | None]]) -> Spans:
        """Spans from ``(offset, length)`` pairs, sorted by offset, the first of a repeated offset
        kept."""
        seen: dict[int, int] = {}
        for offset, length in pairs:
            seen.setdefault(int(offset), -1 if length is None else int(length))
        keys = sorted(seen)
        return cls(array("q", keys), array("q", (seen[k] for k in keys)))

    def __len__(self) -> int:
        return len(self._offsets)

    def __iter__(self) -> Iterator[tuple[int, int | None]]:
        for offset, length in zip(self._offsets, self._lengths):
            yield offset, (None if length < 0 else length)

    def __getitem__(self, index: slice) -> Spans:
        if not isinstance(index, slice):
            raise TypeError("Spans take slices only")
        return Spans(self._offsets[index], self._lengths[index])

    @property
    def first(self) -> int:
        """The first offset (0 for no spans)."""
        return self._offsets[0] if self._offsets else 0

    @property
    def end(self) -> int:
        """Where the last span ends (its offset plus its length, or its offset when unknown)."""
        if not self._offsets:
            return 0
        return self._offsets[-1] + max(self._lengths[-1], 0)

    @property
    def bytes(self) -> int:
        """The sum of the known lengths (bytes)."""
        return sum(n for n in self._lengths if n > 0)

    @property
    def digest(self) -> str:
        """SHA-1 (hex) of the pairs as little-endian 64-bit integers, offsets then lengths."""
        if self._digest is None:
            h = hashlib.sha1(_little(self._offsets))
            h.update(_little(self._lengths))
            self._digest = h.hexdigest()
        return self._digest

    def to_json(self) -> dict:
        """``{"count", "bytes", "digest"}``: what a completion marker records about them."""
        return {"count": len(self), "bytes": self.bytes, "digest": self.digest}

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Spans) and self._offsets == other._offsets
                and self._lengths == other._lengths)

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        return f"Spans({len(self)} records from offset {self.first}, {self.bytes} bytes)"

    def __reduce__(self):
        return (Spans, (self._offsets, self._lengths))


def _little(values: array) -> bytes:
    if array("q", [1]).tobytes()[0] == 1:
        return values.tobytes()
    swapped = array("q", values)  # pragma: no cover - big-endian machines
    swapped.byteswap()
    return swapped.tobytes()
