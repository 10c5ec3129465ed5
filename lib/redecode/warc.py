"""WARC and ARC files: ISO 28500 WARC 1.0/1.1 (and the 0.17 draft) and IA ARC v1, plain or gzip per record.

Contract. :class:`WarcReader` and :class:`ArcReader` (registered in :data:`redecode.archive.READERS`)
give the records of a file in file order as :class:`redecode.record.ArchiveRecord` s, with the HTTP
message parsed and the payload's codings removed (:mod:`redecode.http`); cut it into ranges
(``find_record_start``, ``records(start=, end=)``); and read one record again at its offset
(``read_at``, warcio's "offset + length" random access). The only module that imports warcio and
fastwarc (and isal, optional, for the gzip CRC-32).

Readers (``mode``). ``auto`` (the default) reads WARC files with FastWARC and checks each record it
returns against the bytes of the file: the record must have a Content-Length and header lines that
FastWARC writes back byte for byte; for ``.warc.gz`` the record must be exactly one gzip member (its
trailer's ISIZE and CRC-32 are those of header + block + CRLFCRLF, and the next record starts with a
gzip magic), for uncompressed WARC the record's header must be the file's bytes and the block must
be followed only by blank lines up to the next ``WARC/`` or the end of the file. A record that fails
the check (and one followed by blank lines other than CRLFCRLF whose block holds what looks like
another record's start, see ``_tail_check``), and any FastWARC error, is read by warcio instead
(from that record's offset, primed as warcio reading from the start would be); after it FastWARC
takes over again (at most 16 times per file, then warcio reads the rest), unless warcio found the
record damaged or stopped. So the records, and the final error if any, are always those warcio
reads (``test_archive.py::test_auto_reader_identical_to_warcio``, every WARC of the corpus and
mutated files). ARC files, URLs (ranged reads) and reading at an offset go to warcio directly.
``warcio`` uses warcio only; ``fastwarc`` FastWARC only, unchecked (for benchmarks and the identity
test).

Offsets and lengths follow warcio's indexer (CDX ``offset``/``length``), see
:class:`redecode.record.ArchiveRecord`.

Memory is bounded: blocks are read with a cap; a record whose block is larger is reported with
``error_kind="too-large"`` after parsing only its first bytes (for the HTTP head). The rest of such a
block is read through and counted, not kept, so a Content-Length over the cap never hides what
follows it: a block shorter than it claims is a record cut short, and a record start inside it
(``_EMBEDDED_RECORD``) is a record it swallowed, read on its own (issue 25, item 1;
``test_records_kept.py::test_over_cap_*``).

Records cut short (a block shorter than its Content-Length: the file ends inside it, or its gzip
member ends first and the next member starts a record) keep the bytes that are there: the payload is
decoded from them, :attr:`redecode.record.ArchiveRecord.missing_bytes` says how many are missing and
``warning`` says so, unless the bytes end inside the HTTP head, or the block was claimed over the cap
and is larger than the first bytes kept (``error_kind="truncated"``, no payload), or its gzip data is
damaged (bytes inflated before a deflate error cannot be trusted). When the file ends inside the
record the iteration raises ``ArchiveError`` at its offset after yielding it. A file cut short while
it is read (it ends before the size it had when reading began, maybe at a record boundary) raises
``ArchiveError`` where it ends (``test_records_kept.py::test_file_cut_*``).

Deviations (each pinned by the tests named):

- ARC records get WARC-like headers from warcio (``WARC-Date`` in ISO form from the 14-digit ARC
  date) and a deterministic ``record_id`` (:func:`redecode.record.synthetic_record_id`) in place of
  warcio's random one (``test_archive.py::test_arc_ids_deterministic``).
- ARC records are read by their declared lengths, as the Java ARC readers (webarchive-commons'
  ``ARCReader``) read them: a record header line right after a block, with no newline between,
  starts the next record, where warcio would skip it as a stray line and stop at the record after
  (Heritrix's ``IAH-20080430204825-00000-blackbook-truncated.arc``: warcio reads 1 record, we read
  9; ``test_archive.py::test_arc_without_blank_lines_*``).
- ``target_uri`` gets warcio's repairs in both readers: ``<...>`` brackets removed (a wget 1.19 bug)
  and spaces percent-encoded (``test_archive.py::test_target_uri_repairs``).
- Where warcio ends quietly although the file is cut short or damaged (a block shorter than its
  Content-Length at the end of the file, a last gzip member that does not end, a gzip data error, a
  record without Content-Length, bytes after the last record that are not blank lines), the record
  is yielded cut short (above: its bytes kept where they can be, else ``error_kind="truncated"``)
  and the iteration then raises ``ArchiveError`` naming its offset. A short block followed by more
  records (a Content-Length larger than the block inside a gzip member) only marks that record
  (``missing_bytes``; ``test_archive.py::test_truncated_*``).
- A block that ends with its gzip member before its Content-Length goes on in the next member when
  that member does not start a record (a writer that split one record over members: RFC 1952 makes
  a file's members one stream), with a ``warning``; warcio stops at the second member (warcio's
  ``example-wrong-chunks.warc.gz``: header and HTTP head in one member, the body in the next;
  ``test_records_kept.py::test_record_split_over_gzip_members_is_read``). A gzip member that starts
  with blank lines (the CRLFCRLF of the record before) is read from its first record line, as
  FastWARC reads it; warcio reads an empty record there and stops.
- A version line right after a block (``WARC/1.0`` with no blank line before it: a Content-Length
  that counts the record's closing CRLFCRLF) starts the next record, as FastWARC reads it; warcio
  skips it as a stray line and stops (webarchive-commons' ``link-extraction-test.warc``;
  ``test_records_kept.py::test_version_line_right_after_a_block_starts_a_record``).
- warcio skips the first line after a block even when it is not blank (a Content-Length that is
  wrong). We look at what it skipped (``_tail_check``): when the block holds the start of another
  record (a Content-Length that swallows the next record), that record is failed as ``truncated``
  and the iteration ends with ``ArchiveError`` at the swallowed record's offset, rather than losing
  it silently; when bytes that are not blank lines were skipped (a Content-Length smaller than the
  block, or garbage after it) the record gets a ``warning`` naming how many bytes were ignored. Other
  blank lines than CRLFCRLF (LF-only, extra or missing) stay tolerated, as in warcio
  (``test_archive_content_length.py``).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import logging
import os
import re
import struct
import sys
import zlib
from collections.abc import Callable, Iterator

from fastwarc.warc import ArchiveIterator as _FastIterator

from . import http as _http
from . import lazy as _lazy
from . import native, storage
from .dataclass_code import dataclass
from .record import ArchiveError, ArchiveRecord, Head, Reader, RecordStream, synthetic_record_id

try:  # ISA-L's CRC-32 (same values as zlib.crc32, ~3x faster); optional
    from isal.isal_zlib import crc32 as _crc32
except ImportError:  # pragma: no cover - depends on the environment
    _crc32 = zlib.crc32

__all__ = ["ArcReader", "Lz4WarcReader", "WarcReader"]

_HEAD_PREFIX = 4 * 1024 * 1024  # bytes read from a too-large block to parse its HTTP head
_PAYLOAD_TYPES = frozenset({"response", "resource", "revisit"})
_WANTED = (
    "warc-type", "warc-record-id", "warc-target-uri", "warc-date", "warc-payload-digest", "content-type",
    "content-length",
)
_WANTED_B = {n.encode(): n for n in _WANTED}
_WANTED_SET = frozenset(_WANTED)
_WANTED_KEYS = tuple((n, f"\r\n{n}:", len(n) + 3) for n in _WANTED)
_HTTP_TYPES = frozenset({"response", "revisit"})

# warcio logs "Replacing spaces in invalid WARC-Target-URI" for every such record; the repair is
# documented above, a log line per record is noise on the job's stderr. Unless the logger was
# configured before (redecode.logs.configure at -vv lets it speak).
_warcio_log = logging.getLogger("warcio.recordloader")
if _warcio_log.level == logging.NOTSET:
    _warcio_log.setLevel(logging.ERROR)
log = logging.getLogger(__name__)



@dataclass(slots=True)
class _Raw:
    """A record as a reader delivers it, before HTTP parsing."""

    offset: int
    length: int
    fields: dict[str, str]  # lowercased WARC field name -> first value (decoded, stripped), _WANTED only
    content_length: int  # declared block length (bytes)
    block: bytes | None  # None when not read (non-payload record types)
    block_complete: bool  # False when only a prefix was read (too large)
    is_arc: bool
    cut: str | None = None  # why the record cannot be used (no payload), beyond a short block
    warning: str | None = None  # a tolerated oddity of the record's extent (see _tail_check)
    #: bytes of the block there when the record is cut short (fewer than ``content_length``, or all
    #: of them when the file ends inside its gzip member), else None; ``block`` holds them when
    #: ``block_complete``
    present: int | None = None
    #: the file ends inside this record (why): the iteration raises ArchiveError after yielding it
    ends_file: str | None = None


def _wanted_fields(headers: list[tuple[str, str]]) -> dict[str, str]:
    """Lowercased name -> first value, for the WARC fields a record needs."""
    d: dict[str, str] = {}
    for k, v in headers:
        lk = k.lower()
        if lk in _WANTED and lk not in d:
            d[lk] = v
    return d


def _target_uri(uri: str | None) -> str | None:
    # warcio's ArcWarcRecordLoader._ensure_target_uri_format, applied to both readers alike.
    if uri is not None and uri.startswith("<") and uri.endswith(">"):
        uri = uri[1:-1]
    if uri is not None and " " in uri:
        uri = uri.replace(" ", "%20")
    return uri


_new_record = ArchiveRecord.__new__


def _record(path: str, offset: int, length: int, record_type: str, record_id: str | None,
            target_uri: str | None, warc_date: str | None, payload_length: int,
            payload_digest: str | None, warning: str | None) -> ArchiveRecord:
    """``ArchiveRecord(warc_path=path, ..., content_type_values=[], http_status=None,
    http_headers=None, payload=None)`` with every other field its default, without the keyword
    call (a dict of keywords per record): each slot set once
    (``test_archive.py::test_record_factory_is_the_dataclass``)."""
    rec = _new_record(ArchiveRecord)
    rec.warc_path = path
    rec.offset = offset
    rec.length = length
    rec.record_type = record_type
    rec.record_id = record_id
    rec.target_uri = target_uri
    rec.warc_date = warc_date
    rec.content_type_values = []
    rec.http_status = None
    rec.http_headers = None
    rec.payload = None
    rec.payload_length = payload_length
    rec.payload_digest = payload_digest
    rec.error_kind = None
    rec.error = None
    rec.warning = warning
    rec.is_http = False
    rec.identity_payload = None
    rec.missing_bytes = None
    return rec


#: The compiled core's ``http_head`` (:func:`redecode.http.parse_response_head`'s twin, its
#: result as a tuple), or None; and its ``http_head_facts``.
_core_head = native.core.http_head if native.core is not None else None
_head_facts = native.core.http_head_facts if native.core is not None else None


def _head_facts_pure(headers: list[tuple[str, str]]) -> tuple[list[str], bool]:
    """``(the Content-Type values in order, whether a Content-Encoding or Transfer-Encoding field
    is present)`` of an HTTP head's fields (names compared case-insensitively): one pass for what
    ``_http.header_values`` / ``decode_body`` would each look for (the compiled twin
    ``_core.http_head_facts``)."""
    ctv = []
    coded = False
    for k, v in headers:
        lk = k.lower()
        if lk == "content-type":
            ctv.append(v)
        elif lk == "content-encoding" or lk == "transfer-encoding":
            coded = True
    return ctv, coded


def _build(path: str, raw: _Raw, cap: int) -> ArchiveRecord:
    h = raw.fields
    get = h.get
    rtype = get("warc-type") or ""  # (field values are stripped)
    record_id = synthetic_record_id(path, raw.offset) if raw.is_arc else get("warc-record-id")
    uri = get("warc-target-uri")
    if uri and (uri[0] == "<" or " " in uri):
        uri = _target_uri(uri)
    rec = _record(path, raw.offset, raw.length, rtype, record_id, uri, get("warc-date"), raw.content_length,
                  get("warc-payload-digest"), raw.warning)
    warc_ct = get("content-type")
    if raw.present is not None:
        rec.missing_bytes = max(raw.content_length - raw.present, 0)
        if rec.missing_bytes == 0:
            note = ("record cut short after its block: the file ends inside its gzip member (no byte of the "
                    "block missing)")
            rec.warning = f"{rec.warning}; {note}" if rec.warning else note
    if raw.cut:
        rec.error_kind = "truncated"
        rec.error = raw.cut
        return rec
    if rtype not in _PAYLOAD_TYPES or raw.block is None:
        if warc_ct:
            rec.content_type_values = [warc_ct]
        return rec
    block = raw.block
    head = None  # (version, status, reason, headers, head_length, terminated) of the HTTP head
    if rtype in _HTTP_TYPES:
        if _core_head is not None and type(block) is bytes:
            head = _core_head(block)  # (parse_response_head without its HttpHead)
        else:
            hh = _http.parse_response_head(block)
            if hh is not None:
                head = (hh.version, hh.status, hh.reason, hh.headers, hh.head_length, hh.terminated)
    body_start = 0
    coded = False  # a Content-Encoding or Transfer-Encoding field is present
    if head is not None:
        rec.is_http = True
        rec.http_status = head[1]
        rec.http_headers = headers = head[3]
        rec.content_type_values, coded = (_head_facts or _head_facts_pure)(headers)
        body_start = head[4]
    elif warc_ct and not warc_ct.lower().startswith("application/http"):
        rec.content_type_values = [warc_ct]
    rec.payload_length = max(raw.content_length - body_start, 0)
    if not raw.block_complete:
        rec.error_kind = "too-large"
        rec.error = f"record block of {raw.content_length} bytes is over the cap of {cap} bytes"
        return rec
    if len(block) < raw.content_length:
        # Cut short (the file ends inside the record, or its gzip member ends early): the payload is
        # what is there, unless the bytes end inside the HTTP head (nothing of the body is there).
        rec.payload_length = max(len(block) - body_start, 0)
        rec.missing_bytes = missing = raw.content_length - len(block)
        if rtype in _HTTP_TYPES and (
            (head is not None and not head[5]) or (head is None and _is_http_block(warc_ct))
        ):
            rec.error_kind = "truncated"
            rec.error = (f"record block cut short inside its HTTP head: {len(block)} of "
                         f"{raw.content_length} bytes present")
            return rec
        note = (f"record block cut short: {len(block)} of {raw.content_length} bytes present, {missing} "
                f"missing; the payload is what is there")
        rec.warning = f"{rec.warning}; {note}" if rec.warning else note
    body = block[body_start:] if body_start else block
    if head is None or not body or (not coded and len(body) <= cap):
        rec.payload = body  # (decode_body would return it as it is)
        return rec
    res = _http.decode_body(body, head[3], max_bytes=cap)
    rec.payload = res.payload
    rec.error_kind = res.error_kind
    rec.error = res.error
    rec.identity_payload = res.identity
    if res.warning:
        rec.warning = f"{rec.warning}; {res.warning}" if rec.warning else res.warning
    return rec


def _is_http_block(warc_ct: str | None) -> bool:
    """Whether a WARC record's Content-Type says its block is an HTTP message."""
    return (warc_ct or "").lower().startswith("application/http")


def _read_block(read, content_length: int, cap: int) -> tuple[bytes, bool]:
    """Read a block through ``read(n)``: whole when it fits the cap, else a prefix for the HTTP head."""
    want = content_length if content_length <= cap else min(cap, _HEAD_PREFIX)
    first = read(want)
    if len(first) >= want or not first:  # the usual case: one read gives it all
        return first, content_length <= cap
    parts: list[bytes] = [first]
    got = len(first)
    while got < want:
        b = read(want - got)
        if not b:
            break
        parts.append(b)
        got += len(b)
    return b"".join(parts), content_length <= cap


# --------------------------------------------------------------------------------------------
# warcio


@contextlib.contextmanager
def _without_fsspec():
    """warcio imports fsspec when it is installed (the [s3] extra), only for its own ``open`` of
    file names, which this module never calls; importing it costs about 0.1 G instructions (a run
    of a few records read by offset, issue 26's 2% selection, pays it whole). While warcio is
    imported, fsspec looks absent unless something imported it already; :mod:`redecode.storage`
    imports it when a URL needs it, as before."""
    if "fsspec" in sys.modules:
        yield
        return
    sys.modules["fsspec"] = None  # type: ignore[assignment] - "import fsspec" raises ImportError
    try:
        yield
    finally:
        if sys.modules.get("fsspec", 0) is None:
            del sys.modules["fsspec"]


@functools.cache
def _quiet_warcio_iterator():
    """warcio's ArchiveIterator without its direct writes to sys.stderr (class built on first use:
    warcio costs start-up that the FastWARC path never needs)."""
    with _without_fsspec():
        from warcio.archiveiterator import ArchiveIterator as _WarcioIterator
        from warcio.bufferedreaders import DecompressingBufferedReader as _DecompressingBufferedReader

    class _QuietReader(_DecompressingBufferedReader):
        """warcio's reader, keeping the inflate error it would write to sys.stderr in ``inflate_error``.

        ``_decompress`` is warcio 1.8.1's (Apache-2.0) with the message stored instead of printed.
        """

        inflate_error: str | None = None

        def _decompress(self, data):
            if self.decompressor and data:
                try:
                    data = self.decompressor.decompress(data)
                except Exception as e:
                    # first read: not compressed after all (warcio's behaviour)
                    if self.num_block_read == 0:
                        if self.decomp_type == "deflate":
                            self._init_decomp("deflate_alt")
                            data = self._decompress(data)
                        else:
                            self.decompressor = None
                    else:
                        self.inflate_error = str(e)
                        return b""
            return data


    class _QuietWarcioIterator(_WarcioIterator):
        """warcio's ArchiveIterator without its direct writes to sys.stderr.

        ``_consume_blanklines`` is warcio 1.8.1's (Apache-2.0), minus the warning it prints when a record
        is not followed by blank lines; the count stays in ``err_count``. The reader is ``_QuietReader``.
        With ``arc_lines`` (ARC files), a first line after the block that is an ARC record header
        line is the next record's, as the Java ARC readers read it (webarchive-commons'
        ``ARCReader``: the declared length, then the next header line, blank lines or not); warcio
        would skip it and lose that record.
        """

        #: ARC file: a header line right after a block starts the next record
        arc_lines: bool = False

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            # nothing has been read yet: swap in the reader that does not print
            self.reader = _QuietReader(self.fh, block_size=self.reader.block_size)

        #: after each record: the bytes warcio skipped after its block (blank lines, and a first line
        #: that is not blank), and whether that first line was not blank (warcio's ``err_count`` case)
        gap: bytes = b""
        gap_odd: bool = False

        def _consume_blanklines(self):
            empty_size = 0
            first_line = True
            lines: list[bytes] = []
            self.gap_odd = False
            while True:
                line = self.reader.readline()
                if len(line) == 0:
                    self.gap = b"".join(lines)
                    return None, empty_size
                stripped = line.rstrip()
                if first_line and stripped and self.arc_lines and _ARC_HEADER_LINE.match(line):
                    self.gap = b""
                    return line, empty_size
                if (first_line and not self.arc_lines and self.reader.decompressor is None
                        and _VERSION_LINE.fullmatch(line)):
                    # a version line right after the block: the next record, with no blank line
                    # between (webarchive-commons' link-extraction-test.warc: a Content-Length that
                    # counts the CRLFCRLF); warcio would skip it as a stray line and lose the record
                    self.gap = b""
                    return line, empty_size
                if len(stripped) == 0 or first_line:
                    empty_size += len(line)
                    lines.append(line)
                    if len(stripped) != 0:
                        self.err_count += 1
                        self.gap_odd = True
                    first_line = False
                    continue
                self.gap = b"".join(lines)
                return line, empty_size

        def _next_record(self, next_line):
            if next_line is None and self.reader.decompressor is not None:
                # a gzip member that starts with blank lines (the CRLFCRLF of the record before, in
                # a writer that split records over members, as warcio's example-wrong-chunks):
                # skip them, as FastWARC does, where warcio would read an empty record and stop
                line = self.reader.readline()
                skipped = 0
                while line and not line.strip() and skipped < _MAX_GAP:
                    skipped += len(line)
                    line = self.reader.readline()
                next_line = line or None
            return super()._next_record(next_line)

    return _QuietWarcioIterator


def _ends_inside_header(fh, where: int) -> bool:
    """Whether an uncompressed file ends, less than 64 KiB after ``where``, before a blank line:
    a record header cut short by the end of the file (warcio calls that an invalid record)."""
    try:
        fh.seek(where)
        tail = fh.read(1 << 16)
        at_end = not fh.read(1)
    except OSError:
        return False
    return at_end and bool(tail) and b"\n\r\n" not in tail and b"\n\n" not in tail


def _member_damage(fh, where: int) -> str | None:
    """What is wrong with the gzip member at ``where`` of a ``.warc.gz`` that warcio could not read
    (when a block of it does not inflate, warcio takes its bytes for an uncompressed record and
    quotes them as its first line): ``"damaged gzip member (...: <zlib's error>)"`` when inflating
    it (RFC 1952) fails, within its first 64 MiB; None when the bytes there are not a gzip member
    or it inflates (then warcio's message, which quotes what it inflates to, says more)."""
    try:
        fh.seek(where)
        data = fh.read(1 << 20)
    except OSError:
        return None
    if data[:2] != b"\x1f\x8b":
        return None
    d = zlib.decompressobj(31)
    read = len(data)
    try:
        d.decompress(data, 1 << 20)  # (the output is not kept)
        pending = d.unconsumed_tail
        while not d.eof:
            if not pending:
                pending = fh.read(1 << 20) if read < 64 << 20 else b""
                read += len(pending)
                if not pending:
                    return None  # the file ends inside the member (or it is huge): warcio's word
            d.decompress(pending, 1 << 20)  # (the output is not kept)
            pending = d.unconsumed_tail
    except zlib.error as exc:
        return f"damaged gzip member (it does not inflate: {exc})"
    return None


def _warcio_message(exc: BaseException) -> str:
    msg = " ".join(str(exc).split()) or type(exc).__name__
    if "non-chunked gzip" in msg:
        # warcio's own text is long and ends before its advice; say what to do.
        return ("the file is one gzip stream, not one gzip member per record (a WARC gzipped "
                "as a whole); records cannot be located by offset in it. Recompress it with "
                "`warcio recompress IN.warc.gz OUT.warc.gz` and run on OUT")
    if len(msg) > 300:  # warcio quotes the offending line, which can be binary and long
        msg = msg[:300] + "..."
    for prefix, meaning in _WARCIO_MEANINGS:
        if msg.startswith(prefix):
            line = msg[len(prefix):].strip()
            if line.startswith("[") and line.endswith("]"):  # warcio shows ARC lines split in a list
                try:
                    line = " ".join(str(part) for part in ast.literal_eval(line))
                except (ValueError, SyntaxError):
                    pass
            return f"{meaning} ({_quoted_line(line)})"
    return f"{msg} ({type(exc).__name__})"


#: At most this many characters of the line quoted where a record should start: text, and (fewer)
#: bytes that are not text (a gzip member's compressed bytes, where an offset points inside one).
_QUOTED_TEXT, _QUOTED_BINARY = 120, 40
_ESCAPE_OR_CHAR = re.compile(r"\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\.|.", re.S)


def _quoted_line(line: str) -> str:
    """``its first line: LINE`` for the line warcio quotes where a record should start, shown
    ASCII-escaped (``\\xNN``; warcio's quote escapes some bytes already) and short: text to
    :data:`_QUOTED_TEXT` characters, bytes that are not text (any escape in it) to
    :data:`_QUOTED_BINARY`, as ``its first bytes (not text): ...``; cut ends in ``...``."""
    escaped = line.encode("ascii", "backslashreplace").decode("ascii")
    escaped = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in escaped)
    binary = "\\x" in escaped or "\\u" in escaped
    most = _QUOTED_BINARY if binary else _QUOTED_TEXT
    if len(escaped) > most or line.endswith("..."):
        kept, size = [], 0
        for piece in _ESCAPE_OR_CHAR.findall(escaped):  # (never half an escape)
            size += len(piece)
            if size > most:
                break
            kept.append(piece)
        escaped = "".join(kept).rstrip(".") + "..."
    return f"its first bytes (not text): {escaped}" if binary else f"its first line: {escaped}"


#: warcio's messages for bytes where a record should start, and what they mean for a user.
_WARCIO_MEANINGS = (
    ("Invalid WARC record, first line:",
     "no WARC record starts here: damaged bytes, or the record before has a wrong Content-Length"),
    ("Unknown archive format, first line:",
     "no WARC or ARC record starts here: damaged bytes, or the record before has a wrong length"),
)


def _check_tail(path: str, end: int, expected: int | None = None) -> None:
    """Raise ArchiveError when bytes after the last record read are more than blank lines, or when
    the file ends before the ``expected`` size it had when reading began.

    warcio ends quietly when the last gzip member is cut before it inflates to anything, or when it
    finds an empty record; the bytes it did not read mean the file was cut short or is damaged. A
    file cut short while it is read ends early, maybe at a record boundary.
    """
    size = storage.size(path)
    if expected is not None and end < expected and size < expected:
        raise ArchiveError(path, end, _SHRUNK.format(end=end, expected=expected))
    if end >= size:
        return
    with storage.open_input(path) as fh:
        fh.seek(end)
        tail = fh.read(_MAX_GAP + 1)
    if tail[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(31)
        try:
            text = d.decompress(tail, _MAX_GAP)
            ok = d.eof and not d.unused_data and len(tail) <= _MAX_GAP
        except zlib.error:
            ok, text = False, b""
    else:
        ok, text = len(tail) <= _MAX_GAP, tail
    if not (ok and text.strip(b" \t\r\n") == b""):
        raise ArchiveError(
            path,
            end,
            f"the archive is cut short or damaged here: {size - end} bytes that are not a complete record",
        )


_EMBEDDED_RECORD = _lazy.pattern(__name__, "_EMBEDDED_RECORD", rb"\n\r?\n(WARC/[0-9]+\.[0-9]+\r?\n[!-9;-~]+:)")
_SCAN_OVERLAP = 256  # bytes of a block kept between the reads _drain scans (a record start across them)

#: A file that ends before the size it had when reading began.
_SHRUNK = ("the file ends at offset {end} but held {expected} bytes when reading began: it was cut short "
           "while being read (run again to read it whole)")


def _drain(read, total: int, carry: bytes, base: int) -> tuple[int, int | None, bytes]:
    """Read and drop up to ``total`` bytes of a block through ``read(n)``, 1 MiB at a time (the part
    of a block over the cap, not kept: memory stays bounded). ``carry``: the block's last bytes
    before them, ``base``: the block offset of the first byte read. Returns ``(bytes there were,
    the block offset of the first record start seen (_EMBEDDED_RECORD) or None, the new carry)``."""
    seen = 0
    found = None
    while seen < total:
        b = read(min(total - seen, 1 << 20))
        if not b:
            break
        if found is None:
            data = carry + b
            if b"WARC/" in data:
                m = _EMBEDDED_RECORD.search(data)
                if m is not None:
                    found = base + seen - len(carry) + m.start(1)
            carry = data[-_SCAN_OVERLAP:]
        seen += len(b)
    return seen, found, carry


def _member_goes_on(reader, fh) -> bool:
    """After a block that ended with its gzip member before its Content-Length: whether the next
    member goes on with the block (it inflates, to bytes that do not start a record after blank
    lines), as when a writer split one record over several members (warcio's
    example-wrong-chunks.warc.gz: header in one member, body in the next). Then warcio's
    ``reader`` is moved into that member. ``fh``: the file under the reader (its position is kept)."""
    dec = reader.decompressor
    if (dec is None or not getattr(dec, "eof", False) or reader.inflate_error is not None
            or reader.starting_data or not reader.empty()):
        return False
    raw = dec.unused_data
    if len(raw) < 4096:
        here = fh.tell()
        raw += fh.read(4096)
        fh.seek(here)
    try:
        head = zlib.decompressobj(31).decompress(raw, 256)
    except zlib.error:
        return False
    rest = head.lstrip(b"\r\n")
    if not rest or rest.startswith(b"WARC/"):
        return False
    if not reader.read_next_member():
        reader.set_decomp(reader.decomp_type)  # the member ended with a read: the next one starts afresh
    return True


def _tail_check(
    block: bytes, clen: int, gap: bytes, gap_odd: bool, block_start: int | None, embedded: int | None = None
) -> tuple[str | None, str | None, int | None]:
    """What the bytes after a block that are not exactly CRLFCRLF (ISO 28500 section 4) mean.

    ``gap`` the bytes warcio skipped after the block (blank lines, and a first line that is not
    blank when ``gap_odd``); ``block_start`` the block's file offset (uncompressed files) or None.
    Returns ``(cut, warning, lost)``: ``cut`` when the block holds the start of another record (a
    Content-Length that swallows the record after it: reading stops with ArchiveError, that record
    would be lost silently otherwise), with ``lost`` its file offset (uncompressed files); else
    ``warning`` when bytes that are not blank lines were skipped (a
    Content-Length shorter than the block, or garbage after it); else neither (LF-only or extra blank
    lines, tolerated as warcio does). ``embedded``: where (bytes into the block) a record start was
    seen in a part of the block not in ``block`` (over the cap: :func:`_drain`), or None.
    """
    m = _EMBEDDED_RECORD.search(block)
    at = m.start(1) if m is not None else embedded
    if at is not None:
        lost = None if block_start is None else block_start + at
        where = f"offset {lost}" if lost is not None else f"byte {at} of the block"
        return (
            f"Content-Length {clen} runs past the end of this record: its block holds the start of "
            f"another record (at {where})",
            None,
            lost,
        )
    if gap_odd:
        return None, (
            f"Content-Length {clen} is shorter than the record block (or bytes that are not a record "
            f"follow it); {len(gap)} bytes before the next record ignored"
        ), None
    return None, None, None


def _iter_warcio(
    path: str,
    start: int,
    cap: int,
    is_arc: bool,
    limit: int | None = None,
    ends: list[int] | None = None,
    size: int | None = None,
    span: _Span | None = None,
) -> Iterator[_Raw]:
    """Records from ``start`` on via warcio; raises ArchiveError where warcio stops with an error.

    ``ends``, when given, gets the position after each record (blank lines included) appended
    before the record is yielded: where the next record starts. ``size``: the file's size when
    reading it began (default: now; with ``span``, where its bytes end); a file that ends before it
    was cut short while being read. ``span``: the file's bytes from ``start`` on as already read
    (:func:`_read_span`), instead of opening ``path``.
    """
    if size is None:
        size = span.end if span is not None else storage.size(path)
    with span if span is not None else storage.open_input(path) as fh:
        gz = span.gz if span is not None else fh.read(2) == b"\x1f\x8b"
        fh.seek(start)
        it = _quiet_warcio_iterator()(fh, no_record_parse=True, arc2warc=is_arc)
        if gz and start:
            # Read as warcio reading from 0 would: its reads are blocks at multiples of block_size,
            # and the member at ``start`` first sees the rest of the block it begins in. (warcio
            # takes a member whose first inflate fails for uncompressed data, so where the block
            # ends decides how a damaged member reads.)
            bs = it.reader.block_size
            boundary = -(-start // bs) * bs
            if boundary > start:
                it.reader.starting_data = fh.read(boundary - start)
        if not is_arc:
            # as warcio does after the first record of a WARC file: later records must be WARC too
            # (without this, a line of garbage between records can pass for an ARC header)
            it.known_format = "warc"
        else:
            it.arc_lines = True
        count = 0
        last_offset = start
        end_pos = start  # where the last record read ended (blank lines after it included)
        while limit is None or count < limit:
            where = it.offset
            try:
                record = next(it, None)
                if record is None:
                    _check_tail(path, end_pos, size if span is None else None)
                    return
                where = it.offset
                fields = _wanted_fields([(k.strip(), v.strip()) for k, v in record.rec_headers.headers])
                rtype = fields.get("warc-type", "").strip()
                clen = record.length if isinstance(record.length, int) and record.length > 0 else 0
                block: bytes | None = None
                complete = True
                present = clen  # bytes of the block there
                embedded: int | None = None  # a record start seen in the part of the block not kept
                members = 1  # gzip members the block was read from
                if rtype in _PAYLOAD_TYPES or not is_arc:
                    # other types' blocks too: the tail check looks into them
                    read = record.raw_stream.read
                    block, complete = _read_block(read, clen, cap)
                    present = len(block)
                    carry = block[-_SCAN_OVERLAP:]
                    while True:
                        if not complete and present < clen:
                            # over the cap: count the rest (a short block hides no record), and
                            # look in it for a record start (a Content-Length that swallows records)
                            seen, found, carry = _drain(read, clen - present, carry, present)
                            present += seen
                            if embedded is None:
                                embedded = found
                        if present >= clen or not gz or not _member_goes_on(it.reader, fh):
                            break
                        members += 1  # the block goes on in the next gzip member
                        if complete:
                            more, _ = _read_block(read, clen - present, cap)
                            block += more
                            present = len(block)
                    if not complete and present == len(block):
                        complete = True  # the prefix read is all the block there is: it is held
                it.read_to_end(record)
                offset, length = it.member_info
                last_offset = offset
                end_pos = it.offset
                plain = it.reader.decompressor is None
                cut = None
                ends_file = None
                short = block is not None and present < clen
                dec = it.reader.decompressor
                if it.reader.inflate_error is not None:
                    # warcio stops reading here: the rest of the file is out of its reach (and the
                    # bytes inflated before the error cannot be trusted: no text is kept)
                    cut = f"gzip data error in this record's member: {it.reader.inflate_error}"
                elif dec is not None and not getattr(dec, "eof", True) and not it.next_line:
                    # the input ended inside this gzip member: what inflated is kept
                    ends_file = "the file ends inside this record's gzip member"
                    short = block is not None
                elif not is_arc and record.rec_headers.get_header("Content-Length") is None:
                    cut = "WARC record without a Content-Length field (cut short in its header, or damaged)"
                warning = None
                lost: int | None = None  # where a record swallowed by this one starts
                block_start = offset + length - present if plain else None
                if cut is None and short and present < clen:
                    # A block shorter than its Content-Length: the file (or the block's last gzip
                    # member) ends first. When it holds another record's start, the Content-Length
                    # swallowed that record; else the record is cut short: its bytes are kept.
                    if complete and ends_file is None and block.endswith(b"\r\n\r\n"):
                        # the record's closing blank lines (ISO 28500 section 4), not its block
                        block = block[:-4]
                        present -= 4
                    if not is_arc:
                        cut, _, lost = _tail_check(block, clen, b"", False, block_start, embedded)
                        if cut is not None and lost is None:
                            lost = it.offset  # gzip: the member after this one
                    if cut is None and not complete:
                        cut = (f"record block cut short: {present} of {clen} bytes present (a block "
                               f"claimed over the cap of {cap} bytes is not kept)")
                    if ends_file is None and lost is None and end_pos >= size:
                        ends_file = f"record block cut short: {present} of {clen} bytes present"
                if cut is None and ends_file is None and not is_arc and it.gap != b"\r\n\r\n" and present >= clen:
                    cut, warning, lost = _tail_check(block, clen, it.gap, it.gap_odd, block_start, embedded)
                    if cut is not None and lost is None:
                        lost = it.offset  # gzip: the member after this one
                if (span is not None and not span.file_ends and cut is None
                        and (ends_file is not None or (short and lost is None))):
                    # the bytes an index entry gives end inside the record: its offset or length is
                    # wrong (or the file changed since it was indexed); nothing says the archive
                    # lacks the rest, and a record is never made of less than its block here
                    cut = (f"record cut short by the length its index entry gives: {present} of its block's "
                           f"{clen} bytes in it (the entry's offset or length is wrong, or the file changed)")
                    short, ends_file = False, None
                if members > 1:
                    split = (f"the record is split over {members} gzip members (ISO 28500 Annex D: one "
                             f"record per member); read across them")
                    warning = f"{warning}; {split}" if warning else split
                if rtype not in _PAYLOAD_TYPES:
                    block = None
                if length < 0:
                    # warcio measures a gzip that is not one member per record as a negative length;
                    # the record has no extent of its own, so say "unknown" (0)
                    length = 0
            except ArchiveError:
                raise
            except Exception as exc:  # warcio raises many kinds; all mean "cannot read on"
                if where < last_offset:  # warcio's position inside a non-per-record gzip
                    where = last_offset
                if not gz and not is_arc and _ends_inside_header(fh, where):
                    raise ArchiveError(path, where, "the file ends inside the header of the record "
                                                    "here (the archive is cut short)") from None
                damage = _member_damage(fh, where) if gz else None
                raise ArchiveError(path, where, damage or _warcio_message(exc)) from None
            count += 1
            if ends is not None:
                ends.append(end_pos)
            # (a block that swallowed records is not cut short: it claimed too much, nothing is missing)
            yield _Raw(offset, length, fields, clen, block, complete, is_arc, cut, warning,
                       present if short and lost is None else None, ends_file)
            if lost is not None:
                # the records after this one are not where warcio would look for them: stop here
                raise ArchiveError(
                    path,
                    lost,
                    f"a record here is inside the block of the record at offset {offset}, whose "
                    f"Content-Length ({clen}) runs past its end",
                )


# --------------------------------------------------------------------------------------------
# FastWARC, checked against the file's bytes


class _Diverged(Exception):
    """FastWARC's record at ``offset`` is not what warcio would read: hand over from there."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


def _decode_field(name: bytes, value: bytes) -> str:
    """A WARC field value as warcio decodes it: the line as UTF-8, else the whole line as ISO-8859-1."""
    try:
        name.decode("utf-8")
        return value.decode("utf-8").strip()
    except UnicodeDecodeError:
        return value.decode("latin-1").strip()


#: The compiled core's ``warc_fields`` (the fast branch of _fast_fields, tests/test_core.py), or None.
_warc_fields = native.core.warc_fields if native.core is not None else None


def _fast_fields(head: bytes, items_of) -> dict[str, str]:
    """The wanted fields of a FastWARC record (first value of each name, names ASCII case-insensitive).

    ``head`` is the header block as FastWARC writes it back (its lines as read, CRLF-terminated);
    the fields are cut out of it with string searches. A head that is not ASCII, or that names a
    wanted field in an unusual way (space before the colon), goes field by field through
    ``items_of()`` (FastWARC's ``items_bytes``), decoded as warcio does.
    """
    if head.isascii():
        text = head.decode("ascii")
        low = text.lower()
        out: dict[str, str] = {}
        for lname, key, skip in _WANTED_KEYS:
            i = low.find(key)
            if i >= 0:
                i += skip
                out[lname] = text[i : text.find("\r\n", i)].strip()
            elif lname in low:
                break  # named, but not as "\r\nname:": the slow way
        else:
            return out
    out = {}
    for k, v in items_of():
        lk = _WANTED_B.get(k.strip().lower())
        if lk is not None and lk not in out:
            out[lk] = _decode_field(k, v)
    return out


_LAYOUTS: dict[tuple[str, ...], tuple[tuple[str, int], ...]] = {}
_MAX_LAYOUTS = 4096


def _layout_fields(hdrs) -> dict[str, str]:
    """``_fast_fields`` for an ASCII header block, from FastWARC's own lists of names and values.

    A writer puts the same field names in the same order in most records: which positions hold the
    wanted fields (first of each name, ASCII case-insensitive, names stripped as warcio does) is
    worked out once per sequence of names and cached (at most ``_MAX_LAYOUTS`` sequences).
    """
    names = tuple(hdrs.keys())
    layout = _LAYOUTS.get(names)
    if layout is None:
        at: dict[str, int] = {}
        for i, k in enumerate(names):
            lk = k.strip().lower()
            if lk in _WANTED_SET and lk not in at:
                at[lk] = i
        layout = tuple(at.items())
        if len(_LAYOUTS) < _MAX_LAYOUTS:
            _LAYOUTS[names] = layout
    values = hdrs.values()
    return {lk: values[i].strip() for lk, i in layout}


def _crc_rest(read, crc: int, seen: int, total: int) -> tuple[int, int]:
    """Continue a CRC-32 over the rest of a block read through ``read(n)``, 1 MiB at a time."""
    while seen < total:
        b = read(min(total - seen, 1 << 20))
        if not b:
            break
        crc = _crc32(b, crc)
        seen += len(b)
    return crc, seen


_MAX_GAP = 64 * 1024  # bytes of blank lines tolerated between uncompressed records


def _member_is_record(fd: int, start: int, end: int, head: bytes, clen: int) -> bool:
    """The slow check for a gzip member whose size is not header + block + CRLFCRLF: inflate it and compare.

    True when ``[start, end)`` is one gzip member holding exactly the header FastWARC parsed (as
    FastWARC writes it back), the block, and nothing after it but blank lines, which warcio skips,
    and the block holds no other record's start (see ``_tail_check``).
    """
    expected = len(head) + clen
    data = os.pread(fd, end - start, start)
    d = zlib.decompressobj(31)
    try:
        member = d.decompress(data, expected + _MAX_GAP)
    except zlib.error:
        return False
    if not d.eof or d.unused_data:
        return False
    return (
        len(member) >= expected
        and member.startswith(head)
        and member[expected:].strip(b" \t\r\n") == b""
        and _EMBEDDED_RECORD.search(member, len(head), expected) is None
    )


def _iter_fastwarc(path: str, cap: int, checked: bool, start: int = 0, size: int | None = None) -> Iterator[_Raw]:
    """Records via FastWARC from byte ``start`` (a record start) on.

    With ``checked``, raises _Diverged at the first record warcio could read otherwise. ``size``:
    the file's size when reading it began (default: now); a file that ends before it was cut short
    while being read (checked: warcio says where).
    """
    if size is None:
        size = storage.size(path)
    fd = os.open(path, os.O_RDONLY)
    source = None
    try:
        with storage.open_input(path) as probe:
            gz = probe.read(2) == b"\x1f\x8b"
        # the record not yet yielded (its extent is known when the next one starts), its header
        # bytes as FastWARC writes them back, its Content-Length, and (gzip) the CRC-32 so far
        pending: tuple[_Raw, bytes, int, int | None] | None = None
        resume = start
        buf = io.BytesIO()  # reused for each record's header bytes

        def no_record_inside(raw: _Raw, head: bytes) -> bool:
            # For a block followed by blank lines other than CRLFCRLF: warcio's reading (and
            # _tail_check) accepts it quietly unless the block holds another record's start.
            block = raw.block
            if block is None:
                if raw.content_length > cap:
                    return False  # not at hand: let warcio read it
                block = os.pread(fd, raw.content_length, raw.offset + len(head))
            elif not raw.block_complete:
                return False
            return _EMBEDDED_RECORD.search(block) is None

        def finish(nxt: int) -> _Raw:
            raw, head, clen, crc = pending
            expected = len(head) + clen
            if gz:
                # One gzip member per record: the member ends where the next record starts, and its
                # trailer (RFC 1952: CRC-32, then ISIZE = uncompressed size mod 2**32) is that of
                # header + block + CRLFCRLF. The CRC catches a damaged member FastWARC reads through
                # but warcio's zlib rejects.
                tail = os.pread(fd, 10, nxt - 8) if nxt - 8 >= raw.offset else b""
                ok = nxt > raw.offset and len(tail) >= 8 and (nxt == size or tail[8:10] == b"\x1f\x8b")
                if ok:
                    t_crc, t_size = struct.unpack("<II", tail[:8])
                    if t_size == (expected + 4) & 0xFFFFFFFF:
                        ok = crc is None or t_crc == _crc32(b"\r\n\r\n", crc)
                    else:
                        ok = _member_is_record(fd, raw.offset, nxt, head, clen)
                raw.length = nxt - raw.offset
            else:
                # The block ends at offset + header + Content-Length; warcio then skips blank lines
                # and the next record must start on a line of its own. Bytes that are not blank
                # go to warcio (_tail_check: a warning, or a swallowed record).
                end = raw.offset + expected
                gap = nxt - end
                ok = 0 <= gap <= _MAX_GAP and os.pread(fd, len(head), raw.offset) == head
                if ok:
                    region = os.pread(fd, gap + 5, end)
                    ok = region[:gap].strip(b" \t\r\n") == b""
                    if nxt < size:
                        ok = ok and gap > 0 and region[gap - 1 : gap] == b"\n" and region[gap:] == b"WARC/"
                    if ok and region[:gap] != b"\r\n\r\n":
                        ok = no_record_inside(raw, head)
                raw.length = expected
            if checked and not ok:
                raise _Diverged(raw.offset)
            return raw

        if start or not _utf8(path):
            # FastWARC reports stream_pos from the file object's position, so offsets stay absolute
            # (and a file name that is not UTF-8 makes FastWARC panic: it gets the open file)
            source = storage.open_input(path)
            source.seek(start)
            it = iter(_FastIterator(source, parse_http=False, fsspec_args=False))
        else:
            it = iter(_FastIterator(path, parse_http=False, fsspec_args=False))
        while True:
            try:
                rec = next(it, None)
                if rec is None:
                    break
                pos = rec.stream_pos
                if pending is not None:
                    resume = pos  # the record now being read starts here
                    done = [finish(pos)]
                    pending = None
                    yield done.pop()  # (this frame keeps no reference to the record's bytes)
                hdrs = rec.headers
                # the header block as FastWARC writes it back (version line, each field line as
                # read, CRLF-terminated, then CRLF): what the record's bytes are checked against. A
                # line break inside a field means FastWARC read LF-only lines as one field (jwarc
                # fold.warc).
                buf.seek(0)
                buf.truncate()
                hdrs.write(buf)
                head = buf.getvalue()
                # the compiled core reads plain header blocks (see _fast_fields); else as below
                fields = _warc_fields(head, _WANTED, len(hdrs) + 2) if _warc_fields is not None else None
                if fields is not None:
                    pass
                elif head.count(b"\n") != len(hdrs) + 2:
                    if checked:
                        raise _Diverged(pos)
                    fields = _fast_fields(b"\x80", hdrs.items_bytes)  # field by field
                elif head.isascii():
                    fields = _layout_fields(hdrs)
                else:
                    fields = _fast_fields(head, hdrs.items_bytes)
                clen = rec.content_length
                if checked and "content-length" not in fields:
                    raise _Diverged(pos)  # warcio reads such a record to the end of the file
                rtype = fields.get("warc-type", "")  # (values are stripped)
                block: bytes | None = None
                complete = True
                crc = None
                if rtype in _PAYLOAD_TYPES:
                    block, complete = _read_block(rec.reader.read, clen, cap)
                    if complete and len(block) < clen and checked:
                        raise _Diverged(pos)  # a short block: let warcio say what it makes of it
                if checked and gz:
                    crc = _crc32(block, _crc32(head)) if block else _crc32(head)
                    seen = len(block) if block else 0
                    if seen < clen:
                        # a block not kept (other record types, too large): stream it for the CRC
                        crc, seen = _crc_rest(rec.reader.read, crc, seen, clen)
                        if seen < clen:
                            raise _Diverged(pos)
                raw = _Raw(pos, 0, fields, clen, block, complete, False)
                if block is not None and complete and len(block) < clen:
                    # (unchecked: FastWARC reads gzip members as one stream, so its stream ended)
                    raw.present = len(block)
                    raw.ends_file = f"record block cut short: {len(block)} of {clen} bytes present"
                pending = (raw, head, clen, crc)
                block = None  # (raw holds it; _read lets it go once the record is built)
            except _Diverged:
                raise
            except Exception as exc:  # FastWARC raises OSError/ValueError on bad input
                if checked:
                    # the unchecked record, else the one being read, goes to warcio
                    raise _Diverged(pending[0].offset if pending else resume) from None
                where = pending[0].offset if pending else resume
                raise ArchiveError(path, where, f"{exc} (FastWARC)") from None
        if os.fstat(fd).st_size < size:
            # cut short while being read: FastWARC may have stopped at a record boundary
            if checked:
                raise _Diverged(pending[0].offset if pending else resume)
            raise ArchiveError(path, pending[0].offset if pending else resume,
                               _SHRUNK.format(end=os.fstat(fd).st_size, expected=size))
        if pending is not None:
            yield finish(size)
        elif checked and start < size:
            raise _Diverged(start)  # bytes that gave no record at all: warcio says what they are
    finally:
        os.close(fd)
        if source is not None:
            source.close()


def _utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_MAX_HANDOVERS = 16  # FastWARC -> warcio hand-overs per file before warcio keeps the rest


def _is_record_start(path: str, pos: int, gz: bool) -> bool:
    with storage.open_input(path) as fh:
        fh.seek(pos)
        head = fh.read(5)
    return head[:2] == b"\x1f\x8b" if gz else head == b"WARC/"


def _iter_warc_auto(path: str, cap: int, start: int = 0) -> Iterator[_Raw]:
    """FastWARC, checked; warcio for each record FastWARC cannot vouch for, then FastWARC again.

    After ``_MAX_HANDOVERS`` hand-overs (a file whose records are all odd) warcio reads the rest.
    """
    size = storage.size(path)  # when reading began: a file cut short while being read is told
    with storage.open_input(path) as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    handovers = 0
    while True:
        try:
            yield from _iter_fastwarc(path, cap, checked=True, start=start, size=size)
            return
        except _Diverged as d:
            diverged = d.offset
        handovers += 1
        log.debug("%s: the record at offset %d goes to warcio (FastWARC cannot vouch for it; hand-over %d)",
                  path, diverged, handovers)
        ends: list[int] = []
        wit = _iter_warcio(path, diverged, cap, is_arc=False, ends=ends, size=size)
        for raw in wit:
            yield raw
            end = ends[-1]
            if (
                handovers <= _MAX_HANDOVERS
                and raw.cut is None  # after a cut or damaged record warcio stops; so must we
                and raw.ends_file is None
                and end > raw.offset
                and _is_record_start(path, end, gz)
            ):
                wit.close()
                start = end
                break
        else:
            return  # warcio read to the end (or raised ArchiveError)



# --------------------------------------------------------------------------------------------
# the readers


def _read(p: str, raws: Iterator[_Raw], stream: RecordStream, cap: int, end: int | None) -> Iterator[ArchiveRecord]:
    """Records built from ``raws`` up to ``end``; the final error of a file cut short."""
    truncated: tuple[int, str | None] | None = None  # (offset, error) of the last record when truncated
    for raw in raws:
        if end is not None and raw.offset >= end:
            stream.next_offset = raw.offset
            raws.close()
            return
        record = _build(p, raw, cap)
        truncated = (record.offset, record.error) if record.error_kind == "truncated" else None
        # Only the record holds its bytes while the caller works on it (this frame keeps no
        # reference to it or its block while suspended): a record of hundreds of MB is freed when
        # the caller lets it go, before the next one is read (issue 27's memory bound).
        raw.block = None
        box = [record]
        record = None
        yield box.pop()
        if raw.ends_file is not None:
            raws.close()
            raise ArchiveError(p, raw.offset, f"the archive is cut short or damaged here: {raw.ends_file}")
    # A short block followed by more records is a lying Content-Length inside a gzip member (the
    # record alone is flagged); a short last block means the file itself was cut short.
    if truncated is not None:
        raise ArchiveError(p, truncated[0], f"the archive is cut short or damaged here: {truncated[1]}")


_ARC_LINE = _lazy.pattern(__name__, "_ARC_LINE", rb"\S+ \S+ \d{14} \S+ \d+\r?\n")
_VERSION_LINE = _lazy.pattern(__name__, "_VERSION_LINE", rb"WARC/[0-9]+\.[0-9]+\r?\n")  # a WARC record's first line (ISO 28500 section 5.2)
#: An ARC record header line, version 1 (URL IP-address Archive-date Content-type Archive-length)
#: or 2 (more fields between the type and the length), as the whole line.
_ARC_HEADER_LINE = _lazy.pattern(__name__, "_ARC_HEADER_LINE", rb"\S+ \S+ \d{14}(?: \S*)+ \d+\r?\n\Z")


def _find_record_start(p: str, pos: int, is_arc: bool, loose: bool = False) -> int | None:
    """``.warc.gz`` / ``.arc.gz``: a gzip member whose first bytes inflate to ``WARC/`` or an ARC
    header line; uncompressed WARC: ``WARC/`` after an empty line (``loose``, for a resync after
    damage: a version line ``WARC/<digits>.<digits>`` and its line end anywhere, since garbage
    before it need not end in a line break); uncompressed ARC: an ARC header line after a newline.
    Each candidate is confirmed by reading one record there."""
    size = os.path.getsize(p)
    if pos <= 0:
        return 0
    with open(p, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
        window = 1 << 20
        at = pos
        while at < size:
            # start a little early (the newline before a record) and overlap the next window, so a
            # pattern at or across a window edge is not missed
            base = max(at - 4, 0)
            fh.seek(base)
            data = fh.read(window + 4096)
            for cand in _candidates(data, base, gz, is_arc, loose):
                if cand < pos:
                    continue
                if _confirm(p, cand, is_arc):
                    return cand
            at += window
    return None


def _candidates(data: bytes, base: int, gz: bool, is_arc: bool, loose: bool = False) -> Iterator[int]:
    if gz:
        i = data.find(b"\x1f\x8b\x08")
        while i >= 0:
            try:
                head = zlib.decompressobj(31).decompress(data[i : i + 4096], 1024)
            except zlib.error:
                head = b""
            if head.startswith(b"WARC/") or (is_arc and _ARC_LINE.match(head)):
                yield base + i
            i = data.find(b"\x1f\x8b\x08", i + 1)
    elif is_arc:
        for m in re.finditer(rb"\n(?=\S+ \S+ \d{14} \S+ \d+\r?\n)", data):
            yield base + m.end()
    elif loose:
        for m in _VERSION_LINE.finditer(data):
            yield base + m.start()
    else:
        if base == 0 and data.startswith(b"WARC/"):
            yield 0
        i = data.find(b"\nWARC/")
        while i >= 0:
            # after the empty line that ends the record before (CRLF or bare LF line ends)
            if i >= 1 and (data[i - 1 : i + 1] == b"\n\n" or data[max(i - 2, 0) : i + 1] == b"\n\r\n"):
                yield base + i + 1
            i = data.find(b"\nWARC/", i + 1)


def _confirm(path: str, offset: int, is_arc: bool) -> bool:
    """Whether warcio reads a record at ``offset`` of the local file ``path``. A WARC record that
    the checked FastWARC reading vouches for (:func:`_iter_fastwarc`: warcio would read the same
    record there) is one without asking warcio, whose import (with ``email``, ``six``, ``bz2``,
    ``lzma``: about 15 ms) a run that cuts its input into shards otherwise pays for this alone."""
    if not is_arc:
        raws = _iter_fastwarc(path, _HEAD_PREFIX, checked=True, start=offset)
        try:
            for _ in raws:
                return True
        except _Diverged:
            pass  # FastWARC cannot vouch for it: warcio says
        finally:
            raws.close()
    return _confirm_warcio(path, offset, is_arc)


def _confirm_warcio(path: str, offset: int, is_arc: bool) -> bool:
    """Whether warcio reads a record at ``offset`` of ``path`` (its first 4 MiB of block)."""
    try:
        for _ in _iter_warcio(path, offset, _HEAD_PREFIX, is_arc=is_arc, limit=1):
            return True
    except ArchiveError:
        return False
    return False


def _read_at(p: str, offset: int, cap: int, is_arc: bool) -> ArchiveRecord:
    for raw in _iter_warcio(p, offset, cap, is_arc=is_arc, limit=1):
        return _build(p, raw, cap)
    raise ArchiveError(p, offset, "no record at this offset")


class _Span(storage.PositionedRaw):
    """The bytes of a file from ``base`` on, as one ranged read gave them, read like the file
    itself (positions are the file's; nothing before ``base``, the end of ``data`` is the end of
    the file). ``gz``: whether the file is gzip (its first two bytes are RFC 1952's magic);
    ``file_ends``: whether the file itself ends there (else the bytes stop where an index entry's
    length does), or a function that says so (called once, when asked)."""

    def __init__(self, data: bytes, base: int, gz: bool, file_ends: bool | Callable[[], bool] = False) -> None:
        super().__init__()
        self._data, self._base, self.gz, self._file_ends = data, base, gz, file_ends
        self._pos = base

    @property
    def file_ends(self) -> bool:
        """Whether the file ends where the bytes read do."""
        if callable(self._file_ends):
            self._file_ends = bool(self._file_ends())
        return self._file_ends

    @property
    def end(self) -> int:
        """The position after the last byte read (the end of the file, as far as it is known)."""
        return self._base + len(self._data)

    def _end(self) -> int:
        return self._base + len(self._data)

    def _first(self) -> int:
        return self._base

    def read(self, n: int | None = -1) -> bytes:
        i = self._pos - self._base
        j = len(self._data) if n is None or n < 0 else min(i + n, len(self._data))
        out = self._data[i:j] if j > i else b""
        self._pos += len(out)
        return out

    def readinto(self, b) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)


def _read_span(p: str, offset: int, data: bytes, cap: int, is_arc: bool, gz: bool,
               file_ends: bool | Callable[[], bool] = False) -> ArchiveRecord:
    """The record at ``offset`` of ``p`` from ``data``, the file's bytes from ``offset`` on as one
    ranged read gave them (at least the record; for an uncompressed file, the bytes after it up to
    the next record's first line too, which warcio reads to find where the record ends): what
    :func:`_read_at` reads there, without opening the file. ``gz``: whether the file is gzip;
    ``file_ends``: whether the file ends where ``data`` does (see :meth:`redecode.record.Reader.read_span`)."""
    raw = _span_fastwarc(offset, data, cap) if gz and not is_arc else None
    if raw is not None:
        return _build(p, raw, cap)
    for raw in _iter_warcio(p, offset, cap, is_arc=is_arc, limit=1, span=_Span(data, offset, gz, file_ends)):
        return _build(p, raw, cap)
    raise ArchiveError(p, offset, "no record at this offset")


def _span_fastwarc(offset: int, data: bytes, cap: int) -> _Raw | None:
    """The record a ranged read of a gzip WARC file gave (*data*: the bytes from *offset* on, as
    an index entry's offset and length delimit them), read by FastWARC where its bytes vouch
    that warcio would read the same record, else None (:func:`_read_span` then asks warcio).

    They vouch when *data* is one gzip member (RFC 1952) that inflates to exactly the header
    block as FastWARC writes it back, the record's block and CRLFCRLF: its trailer's CRC-32 and
    size (ISIZE) are those of these bytes, FastWARC reads the block whole (within *cap*) and
    finds no other record after it. That is the proof :func:`_iter_fastwarc` takes of a record in
    a whole file (its ``finish``), here with the member's end given by the index entry instead of
    by the next record's start. Anything else (a damaged or cut member, several members, a
    record over the cap, an odd header block) goes to warcio, which says what it makes of it.
    Index-driven runs read each record this way: warcio costs about 0.25 ms of Python per record
    (and 5 ms to import) where FastWARC costs a few microseconds (issue 26)."""
    if len(data) < 18 or data[:2] != b"\x1f\x8b":
        return None
    try:
        it = iter(_FastIterator(io.BytesIO(data), parse_http=False, fsspec_args=False))
        rec = next(it, None)
        if rec is None or rec.stream_pos != 0:
            return None
        hdrs = rec.headers
        buf = io.BytesIO()
        hdrs.write(buf)
        head = buf.getvalue()
        fields = _warc_fields(head, _WANTED, len(hdrs) + 2) if _warc_fields is not None else None
        if fields is None:
            if head.count(b"\n") != len(hdrs) + 2:
                return None
            fields = _layout_fields(hdrs) if head.isascii() else _fast_fields(head, hdrs.items_bytes)
        if "content-length" not in fields:
            return None
        clen = rec.content_length
        block: bytes | None = None
        if fields.get("warc-type", "") in _PAYLOAD_TYPES:
            block, complete = _read_block(rec.reader.read, clen, cap)
            if not complete or len(block) < clen:
                return None
            crc = _crc32(block, _crc32(head))
        else:
            crc, seen = _crc_rest(rec.reader.read, _crc32(head), 0, clen)
            if seen < clen:
                return None
        if next(it, None) is not None:
            return None
    except Exception:  # noqa: BLE001 - FastWARC raises OSError/ValueError on bad input: warcio reads it
        return None
    t_crc, t_size = struct.unpack("<II", data[-8:])
    if t_size != (len(head) + clen + 4) & 0xFFFFFFFF or t_crc != _crc32(b"\r\n\r\n", crc):
        return None
    return _Raw(offset, len(data), fields, clen, block, True, False)


# --------------------------------------------------------------------------------------------
# LZ4 WARC files: FastWARC only (warcio does not read LZ4)

#: LZ4 Frame Format "Magic Number" (0x184D2204, little-endian), which starts every frame.
_LZ4_MAGIC = b"\x04\x22\x4d\x18"
_LZ4_ONE_STREAM = (
    "the file is one LZ4 stream, not one LZ4 frame per record (FastWARC puts record {n} at offset "
    "{pos}, where no LZ4 frame starts); records cannot be located by offset in it. Recompress it with "
    "`fastwarc recompress IN.warc.lz4 OUT.warc.lz4` (one frame per record) and run on OUT"
)


class _FrameStarts:
    """A binary file FastWARC reads through, noting where LZ4 frames start.

    FastWARC gives an LZ4 record's ``stream_pos`` as the offset of the frame it starts in; that is
    the record's own offset only when each record is a frame of its own. The positions of the
    frame magics in the bytes read say whether it is. ``starts`` holds the absolute positions seen
    (a payload byte sequence equal to the magic can add a false one, which FastWARC then never
    reports, as a record starts only where a frame does)."""

    def __init__(self, fh, start: int) -> None:
        self._fh = fh
        self._pos = start
        self._tail = b""
        self.starts: list[int] = []

    def read(self, n: int = -1) -> bytes:
        data = self._fh.read(n)
        if data:
            scan = self._tail + data
            base = self._pos - len(self._tail)
            i = scan.find(_LZ4_MAGIC)
            while i >= 0:
                self.starts.append(base + i)
                i = scan.find(_LZ4_MAGIC, i + 1)
            self._tail = scan[-3:]
            self._pos += len(data)
        return data

    def tell(self) -> int:
        return self._fh.tell()

    def seek(self, offset: int, whence: int = 0) -> int:  # FastWARC reads forward only
        raise OSError("not seekable")

    def close(self) -> None:
        pass

    def next_start(self, after: int) -> int | None:
        """The first frame start seen after ``after``, or None."""
        later = [p for p in self.starts if p > after]
        return min(later) if later else None

    def forget_before(self, pos: int) -> None:
        self.starts = [p for p in self.starts if p >= pos]


def _fields_of(hdrs, buf: io.BytesIO) -> dict[str, str]:
    """The wanted fields of a FastWARC record's header map (as :func:`_iter_fastwarc` reads them)."""
    buf.seek(0)
    buf.truncate()
    hdrs.write(buf)
    head = buf.getvalue()
    if head.count(b"\n") != len(hdrs) + 2:
        return _fast_fields(b"\x80", hdrs.items_bytes)  # field by field
    if head.isascii():
        return _layout_fields(hdrs)
    return _fast_fields(head, hdrs.items_bytes)


def _iter_lz4(path: str, cap: int, start: int = 0, limit: int | None = None) -> Iterator[_Raw]:
    """Records of an LZ4 WARC (one LZ4 frame per record) via FastWARC, from byte ``start`` (a frame
    start) on; at most ``limit`` records.

    Offsets are the records' frame starts and lengths the bytes up to the next record's frame (the
    end of the file for the last one): what warcio's indexer gives for one gzip member per record.
    A record FastWARC places where no frame starts means the file is one LZ4 stream: ArchiveError
    (nothing can be located by offset in such a file). A record whose block ends early is yielded
    cut (``truncated``) and the iteration raises ArchiveError at its offset; so does a record
    FastWARC cannot read.
    """
    size = storage.size(path)
    with storage.open_input(path) as fh:
        fh.seek(start)
        frames = _FrameStarts(fh, start)
        it = iter(_FastIterator(frames, parse_http=False, fsspec_args=False))
        buf = io.BytesIO()
        pending: _Raw | None = None
        count = read = 0  # records yielded, records FastWARC gave
        while limit is None or count < limit:
            try:
                rec = next(it, None)
            except Exception as exc:  # FastWARC raises OSError/ValueError on bad input
                where = (frames.next_start(pending.offset) if pending else start) or size
                if pending is not None:
                    pending.length = where - pending.offset
                    yield pending
                raise ArchiveError(path, where, "the record here cannot be read (the file is cut short or "
                                                f"damaged): {exc} (FastWARC)") from None
            if rec is None:
                break
            read += 1
            pos = rec.stream_pos
            if pos not in frames.starts or (pending is not None and pos <= pending.offset):
                raise ArchiveError(path, pending.offset if pending else start,
                                   _LZ4_ONE_STREAM.format(n=read, pos=pos))
            if pending is not None:
                pending.length = pos - pending.offset
                count += 1
                yield pending
                if limit is not None and count >= limit:
                    return
            frames.forget_before(pos)
            fields = _fields_of(rec.headers, buf)
            clen = rec.content_length
            rtype = fields.get("warc-type", "")
            cut = None
            block: bytes | None = None
            complete = True
            try:
                if rtype in _PAYLOAD_TYPES:
                    block, complete = _read_block(rec.reader.read, clen, cap)
                    got = len(block) if complete else clen
                else:
                    got = _read_through(rec.reader.read, clen)
            except Exception as exc:
                got, cut = -1, f"the file ends inside this record's LZ4 frame ({exc})"
            if cut is None and got < clen and (rtype not in _PAYLOAD_TYPES or not complete):
                cut = f"record block cut short: {got} of {clen} bytes present"
            if cut is not None:
                block = None
            pending = _Raw(pos, 0, fields, clen, block, complete, False, cut)
            if cut is None and block is not None and complete and len(block) < clen:
                pending.present = len(block)  # the file ends inside the record: what is there is kept
                pending.ends_file = f"record block cut short: {len(block)} of {clen} bytes present"
            if cut is not None:
                pending.length = size - pos
                yield pending
                raise ArchiveError(path, pos, f"the archive is cut short or damaged here: {cut}")
        if limit is None and storage.size(path) < size:
            # cut short while being read: FastWARC may have stopped at a frame boundary
            raise ArchiveError(path, pending.offset if pending is not None else start,
                               _SHRUNK.format(end=storage.size(path), expected=size))
        if pending is not None and (limit is None or count < limit):
            pending.length = size - pending.offset
            yield pending


def _read_through(read, total: int) -> int:
    """Read and drop a block of ``total`` bytes through ``read(n)``; the bytes there were."""
    seen = 0
    while seen < total:
        b = read(min(total - seen, 1 << 20))
        if not b:
            break
        seen += len(b)
    return seen


def _lz4_record_start(path: str, pos: int) -> int | None:
    """The first LZ4 frame start at or after ``pos`` where FastWARC reads a WARC record."""
    if pos <= 0:
        return 0
    with storage.open_input(path) as fh:
        at = pos
        while True:
            fh.seek(at)
            data = fh.read((1 << 20) + 3)
            if not data:
                return None
            i = data.find(_LZ4_MAGIC)
            while i >= 0:
                cand = at + i
                try:
                    for raw in _iter_lz4(path, _HEAD_PREFIX, cand, limit=1):
                        if raw.offset == cand:
                            return cand
                except ArchiveError:
                    pass
                i = data.find(_LZ4_MAGIC, i + 1)
            if len(data) <= 3:
                return None
            at += len(data) - 3


class WarcReader(Reader):
    """ISO 28500 WARC files, plain or gzip per record (``mode``: see the module docstring)."""

    kind = "WARC"
    suffixes = (".warc", ".warc.gz")
    shardable = True
    reads_spans = True

    def sniff(self, head: Head) -> bool:
        # An empty file is a WARC file without records; a gzip stream that does not inflate is
        # left to the reader to report.
        return head.plain is None or not head.plain or head.plain.startswith(b"WARC/")

    def records(self, path: str, stream: RecordStream, *, cap: int, mode: str, start: int,
                end: int | None) -> Iterator[ArchiveRecord]:
        if mode == "warcio" or not storage.is_plain_file(path):
            # a URL or a file inside a WACZ: warcio over ranged reads (the FastWARC check preads a
            # local file descriptor)
            raws = _iter_warcio(path, start, cap, is_arc=False)
        elif mode == "fastwarc":
            raws = _iter_fastwarc(path, cap, checked=False, start=start)
        else:
            raws = _iter_warc_auto(path, cap, start)
        return _read(path, raws, stream, cap, end)

    def find_record_start(self, path: str, pos: int) -> int | None:
        return _find_record_start(path, pos, is_arc=False)

    def find_resync_point(self, path: str, pos: int) -> int | None:
        # uncompressed: the next WARC/<version> line that warcio parses as a record (garbage
        # before it need not end in a line break); gzip: the next member that starts a record
        return _find_record_start(path, pos, is_arc=False, loose=True)

    def read_at(self, path: str, offset: int, *, cap: int) -> ArchiveRecord:
        return _read_at(path, offset, cap, is_arc=False)

    def read_span(self, path: str, offset: int, data: bytes, *, cap: int, gz: bool,
                  file_ends: bool | Callable[[], bool] = False) -> ArchiveRecord:
        return _read_span(path, offset, data, cap, is_arc=False, gz=gz, file_ends=file_ends)


class ArcReader(Reader):
    """IA ARC v1 files, plain or gzip per record, read by warcio (any ``mode``)."""

    kind = "ARC"
    suffixes = (".arc", ".arc.gz")
    shardable = True
    reads_spans = True

    def sniff(self, head: Head) -> bool:
        return head.plain is not None and head.plain.startswith(b"filedesc:")

    def sniff_name(self, name: str) -> bool:
        return name.endswith(self.suffixes)

    def records(self, path: str, stream: RecordStream, *, cap: int, mode: str, start: int,
                end: int | None) -> Iterator[ArchiveRecord]:
        return _read(path, _iter_warcio(path, start, cap, is_arc=True), stream, cap, end)

    def find_record_start(self, path: str, pos: int) -> int | None:
        return _find_record_start(path, pos, is_arc=True)

    def read_at(self, path: str, offset: int, *, cap: int) -> ArchiveRecord:
        return _read_at(path, offset, cap, is_arc=True)

    def read_span(self, path: str, offset: int, data: bytes, *, cap: int, gz: bool,
                  file_ends: bool | Callable[[], bool] = False) -> ArchiveRecord:
        return _read_span(path, offset, data, cap, is_arc=True, gz=gz, file_ends=file_ends)


class Lz4WarcReader(Reader):
    """WARC files compressed with LZ4, one LZ4 frame per record (what ``fastwarc recompress``
    writes), read by FastWARC whatever the ``mode`` (warcio does not read LZ4). Offsets and lengths
    are those of the records' frames, so ``read_at`` reads one record by its offset as for
    ``.warc.gz``. A file compressed as one LZ4 stream is refused with the command that fixes it
    (see :func:`_iter_lz4`)."""

    kind = "LZ4 WARC"
    suffixes = (".warc.lz4",)
    shardable = True

    def sniff(self, head: Head) -> bool:
        return head.raw.startswith(_LZ4_MAGIC)

    def records(self, path: str, stream: RecordStream, *, cap: int, mode: str, start: int,
                end: int | None) -> Iterator[ArchiveRecord]:
        return _read(path, _iter_lz4(path, cap, start), stream, cap, end)

    def find_record_start(self, path: str, pos: int) -> int | None:
        return _lz4_record_start(path, pos)

    def read_at(self, path: str, offset: int, *, cap: int) -> ArchiveRecord:
        raws = _iter_lz4(path, cap, offset, limit=1)
        try:
            for raw in raws:
                if raw.offset != offset:
                    break
                return _build(path, raw, cap)
        except ArchiveError as exc:
            if exc.offset != offset:
                raise
            raise ArchiveError(path, offset, f"no record at this offset: {exc.message}") from None
        finally:
            raws.close()
        raise ArchiveError(path, offset, "no record at this offset")
