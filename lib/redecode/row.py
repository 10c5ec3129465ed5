"""One archive record -> its output row: status, skip reasons, HTTP and MIME facts, then the rules.

Contract. :func:`record_row` turns a ``response``, ``resource`` or ``revisit`` record
(:data:`ROW_RECORD_TYPES`) into a row dict keyed by :data:`redecode.schema.COLUMNS`. Nothing is
lost: every such record gives exactly one row whose ``status`` is ``decoded``, ``skipped``
(``skip_reason``: ``revisit``, ``http-status``, ``no-payload``, ``not-text``) or ``failed``
(``error_kind`` and ``error``: the archive's ``truncated`` / ``too-large``, HTTP's ``chunked`` /
``content-encoding`` / ``too-large``, ``decode`` for an exception in the decision or the
decoder, which costs that row, never the run, or ``out-of-range`` for a number from the archive
that its column's type cannot hold, such as ``Content-Length: 100000000000000000000``: every
integer column is range-checked against :data:`redecode.schema.INT_RANGES` before the row leaves
here, the value is set to null and the error names it, so one crafted header never costs the part).
A record cut short (:attr:`redecode.record.ArchiveRecord.missing_bytes`) is decided like any other
from the bytes that are there: its status says what became of them (``decoded`` with the partial
text, as a browser shows a page cut short), ``missing_bytes`` how many are missing and ``warning``
that it is cut short. The columns of kind ``record`` are made here, before
any rule is consulted; the ``fact`` and ``decision`` columns by the rules' procedure
(:mod:`redecode.procedures`); the ``derived`` ones, the text's lengths and forms, by
:func:`text_columns` from the text the procedure made and the rules' output options.

HTTP statuses without content (RFC 9110 "Status Codes": 1xx, 204, 205, 304) are skipped; every
other status with a body (redirect and error pages included) is decoded. The MIME type is Fetch's
"extract a MIME type" over the Content-Type values, else MIME Sniffing's "rules for identifying an
unknown MIME type" (:mod:`redecode.mime`); only ``html``, ``xml`` and ``text`` kinds are decoded.

:data:`redecode.rundir.ROW_CODE_VERSION` versions this code (and the archive/http/mime handling it
relies on) in run directories: bump it whenever a change can change a row for the same rules.

Deviations: none.
"""

from __future__ import annotations

import re
from operator import attrgetter

from . import lazy as _lazy
from . import native
from .archive import ArchiveRecord
from .mime import extract_mime_type, sniff_unknown_mime_type, text_kind
from .procedures import DecodedUtf8
from .rules import Rules
from .schema import (
    COLUMN_INDEX,
    COLUMNS,
    FACT_COLUMNS,
    INT_RANGES,
    SCHEMA,
    STATUS_DECODED,
    STATUS_FAILED,
    STATUS_SKIPPED,
)
from .tld import tld_of
from .storage import path_text
from .textforms import grapheme_count, normalize
from .writer import ROW_WIDTH, TEXT_UTF8_KEY, TEXT_UTF8_SLOT

__all__ = ["IDENTITY_NOTE", "IDENTITY_VALIDATION", "NO_CONTENT_STATUSES", "NO_RECORD_TYPE", "ROW_RECORD_TYPES",
           "as_dict", "language_of", "record_row", "record_values", "text_columns"]

#: Record types that give a row (every other type is only counted).
ROW_RECORD_TYPES = frozenset({"response", "resource", "revisit"})
#: Statuses whose responses have no content (RFC 9110: 1xx, 204, 205, 304 are skipped too).
NO_CONTENT_STATUSES = frozenset({204, 205, 304})
#: ``counts.by_record_type`` key of records whose WARC-Type could not be read (an unreadable
#: header) or is empty.
NO_RECORD_TYPE = "(none)"
#: What the ``warning`` of a row decoded from a body that is not in its declared content coding
#: says (rules with ``identity_fallback``; :mod:`redecode.backfill` looks for it).
IDENTITY_NOTE = "decoded as identity: the body is not in that coding and sniffs as text"
#: The ``validation`` of such a row when no check of the rules spoke (a check's own verdict,
#: ``overridden: ...``, ``kept: ...``, ``unresolved: ...``, stands): a browser shows no text for the
#: response, so there was no browser's choice to check.
IDENTITY_VALIDATION = ("identity: a browser shows no text for this response (its Content-Encoding "
                       "does not apply to the stored body); the body is decoded as it is stored")


#: Record columns copied as they are from :class:`redecode.record.ArchiveRecord`: column -> attribute.
_COPIED = {
    "record_id": "record_id", "warc_path": "warc_path", "warc_offset": "offset", "warc_length": "length",
    "target_uri": "target_uri", "warc_date": "warc_date", "http_status": "http_status",
    "payload_digest": "payload_digest", "record_type": "record_type", "warning": "warning",
    "missing_bytes": "missing_bytes",
}
_COPIED_COLUMNS = tuple(_COPIED)
_copied_values = attrgetter(*_COPIED.values())
_fact_values = attrgetter(*FACT_COLUMNS)


def record_row(record: ArchiveRecord, rules: Rules, *, utf8_text: bool = False) -> dict:
    """Turn one ``response``/``resource``/``revisit`` record into its output row (a dict).

    Never raises for bad record content: a payload that cannot be decoded gives a ``failed`` row
    with ``error_kind`` and ``error``; a number that its column cannot hold gives a ``failed``
    row with ``error_kind`` ``out-of-range``. With *utf8_text* (the Parquet writer's rows), a
    decoded row may carry its text only as UTF-8 bytes under :data:`redecode.writer.TEXT_UTF8_KEY`,
    with ``text`` None (:meth:`redecode.procedures.Procedure.decode_utf8`: no ``str`` is built);
    the part written is the same. The same row as :func:`record_values` makes, as a dict.
    """
    return as_dict(record_values(record, rules, utf8_text=utf8_text))


def record_values(record: ArchiveRecord, rules: Rules, *, utf8_text: bool = False) -> list:
    """:func:`record_row`'s row as the Parquet writer takes it, without a dict: a list of
    :data:`redecode.writer.ROW_WIDTH` values, those of :data:`redecode.schema.COLUMNS` in order
    (:data:`redecode.schema.COLUMN_INDEX` gives each column's position), then the text as UTF-8
    bytes or None (:data:`redecode.writer.TEXT_UTF8_SLOT`, what :data:`TEXT_UTF8_KEY` holds in
    the dict). What the job's per-record loop makes (:func:`redecode.job.process_records`)."""
    return _in_range(_row(record, rules, utf8_text))


def as_dict(values: list) -> dict:
    """The dict row (keys :data:`redecode.schema.COLUMNS`, and :data:`TEXT_UTF8_KEY` when the row
    carries its text's UTF-8 bytes) of a row of :func:`record_values`."""
    row = dict(zip(COLUMNS, values))
    raw = values[TEXT_UTF8_SLOT]
    if raw is not None:
        row[TEXT_UTF8_KEY] = raw
    return row


# the positions of the columns this module reads and writes in a row of record_values
_I = COLUMN_INDEX
_RECORD_ID, _WARC_PATH, _CONTENT_TYPE, _MIME_TYPE = _I["record_id"], _I["warc_path"], _I["content_type"], _I["mime_type"]
_PAYLOAD_LENGTH, _RULES, _RULES_DIGEST, _TLD = _I["payload_length"], _I["rules"], _I["rules_digest"], _I["tld"]
_HEADER_CHARSET, _WARNING, _STATUS, _ERROR = _I["header_charset"], _I["warning"], _I["status"], _I["error"]
_ERROR_KIND, _SKIP_REASON, _TEXT, _TEXT_LENGTH = _I["error_kind"], _I["skip_reason"], _I["text"], _I["text_length"]
_TEXT_BYTES, _GRAPHEMES, _NORMALIZED = _I["text_bytes"], _I["grapheme_count"], _I["text_normalized"]
_BROWSER_ENCODING, _VALIDATION, _RAW = _I["browser_encoding"], _I["validation"], TEXT_UTF8_SLOT
_VERDICT, _LANGUAGE, _LANGUAGE_CONFIDENCE = _I["verdict"], _I["language"], _I["language_confidence"]
_COPIED_SLOTS = tuple(_I[c] for c in _COPIED_COLUMNS)
_FACT_SLOTS = tuple(_I[c] for c in FACT_COLUMNS)
_INT_RANGE_SLOTS = tuple((name, _I[name], lowest, highest) for name, (lowest, highest) in INT_RANGES.items())


#: A row of record_values before any column is set: nulls, the list columns empty.
_EMPTY = [None] * ROW_WIDTH
_EMPTY[_I["ignored_labels"]] = ()
_EMPTY[_I["conflict"]] = ()


#: ``(slot, bound)`` of each integer column: every value of magnitude below its bound fits the
#: column's type: the usual row is checked in one call (:func:`_ints_within`).
_INT_BOUNDS = tuple((slot, min(-lo, hi + 1)) for _, slot, lo, hi in _INT_RANGE_SLOTS)


def _ints_within_pure(row: list, bounds: tuple = _INT_BOUNDS) -> bool:
    """Whether every integer column of *row* holds None, 0 or an ``int`` below its bound in
    magnitude (:data:`_INT_BOUNDS`; the compiled twin ``_core.ints_within``); False also for a
    value of another type (then :func:`_in_range` checks each value exactly)."""
    for slot, bound in bounds:
        value = row[slot]
        if value is not None and (type(value) is not int or abs(value) >= bound):
            return False
    return True


def _put_at_pure(row: list, slots: tuple, values: tuple) -> None:
    """``row[slots[i]] = values[i]`` for each i (the compiled twin ``_core.put_at``)."""
    if len(values) < len(slots):
        raise IndexError("fewer values than slots")
    for slot, value in zip(slots, values):
        row[slot] = value


def _put_named_pure(row: list, index: dict, values: dict) -> None:
    """``row[index[name]] = value`` for each item of *values* (the compiled twin
    ``_core.put_named``)."""
    for name, value in values.items():
        row[index[name]] = value


_core = native.core
_ints_within = _core.ints_within if _core is not None else _ints_within_pure
_put_at = _core.put_at if _core is not None else _put_at_pure
_put_named = _core.put_named if _core is not None else _put_named_pure


def _in_range(row: list) -> list:
    """``row``, or, when an integer column holds a value outside its type
    (:data:`redecode.schema.INT_RANGES`), the row failed with ``out-of-range``: each such value
    set to null and named in ``error`` (before any earlier error of the row)."""
    if _ints_within(row, _INT_BOUNDS):
        return row  # (the usual row: every value well inside its type)
    bad = None
    for name, slot, lowest, highest in _INT_RANGE_SLOTS:
        value = row[slot]
        if value is not None and not lowest <= value <= highest:
            bad = bad or []
            bad.append(f"{name} {value} is outside the range of {SCHEMA.field(name).type}")
            row[slot] = None
    if bad is None:
        return row
    message = "; ".join(bad) + " (a number in the record's headers that cannot be stored)"
    if row[_ERROR]:
        message += f"; {row[_ERROR]}"
    row[_RAW] = None
    row[_TEXT] = None
    row[_SKIP_REASON] = None
    return _fail(row, "out-of-range", message)


def _row(record: ArchiveRecord, rules: Rules, utf8_text: bool) -> list:
    row = _EMPTY.copy()
    _put_at(row, _COPIED_SLOTS, _copied_values(record))
    row[_WARC_PATH] = path_text(record.warc_path)  # a file name that is not UTF-8: \xNN escapes
    values = record.content_type_values
    row[_CONTENT_TYPE] = ", ".join(values) if values else None
    row[_PAYLOAD_LENGTH] = len(record.payload) if record.payload is not None else record.payload_length
    row[_RULES], row[_RULES_DIGEST] = _identity(rules)
    row[_TLD] = tld_of(record.target_uri) if record.target_uri else None
    mime, header_charset = extract_mime_type(values or ())
    row[_HEADER_CHARSET] = header_charset
    if mime is not None:
        row[_MIME_TYPE] = mime.essence

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
            row[_WARNING] = f"{row[_WARNING]}; {note}" if row[_WARNING] else note
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
        row[_MIME_TYPE] = sniff_unknown_mime_type(payload)
    kind = text_kind(row[_MIME_TYPE])
    if kind is None:
        return _skip(row, "not-text")

    steps = rules.steps
    content_type = tuple(record.content_type_values or ())
    # (grapheme counts and normalised forms are made from the str: then the text is one)
    utf8_text = utf8_text and not (rules.graphemes or rules.normalize)
    try:
        decision, decoded = steps.decide_and_decode(rules, payload, content_type, record.target_uri, kind,
                                                    utf8_text=utf8_text)
        facts = steps.facts(rules, payload, decision, content_type, record.target_uri, kind)
    except Exception as exc:  # a bug must cost one row, not the run
        return _fail(row, "decode", f"{type(exc).__name__}: {exc}")

    # the declaration columns, whatever the rules (backfill replays decisions from them)
    _put_at(row, _FACT_SLOTS, _fact_values(facts))
    if identity:
        row[_BROWSER_ENCODING] = None  # a browser fails such a response: it shows no text
    row[_STATUS] = STATUS_DECODED
    # the procedure sets the decision columns by name (its fill is the one for dict rows too)
    filled: dict = {}
    steps.fill(filled, decision, decoded)
    _put_named(row, _I, filled)
    if identity and row[_VALIDATION] is None:
        row[_VALIDATION] = IDENTITY_VALIDATION
        row[_VERDICT] = "identity"
    if type(decoded) is DecodedUtf8:
        row[_RAW] = decoded.utf8
    elif (decoded.errors == 0 and decoded.encoding == "UTF-8" and decoded.decoder in ("whatwg", "python:utf-8")
          and not decision.stretches):
        # A valid UTF-8 payload is its own UTF-8 text: hand the writer the bytes (no re-encode;
        # not for a page read in parts, whose stretches another decoder read).
        row[_RAW] = payload[3:] if decoded.bom_removed else payload
    (row[_TEXT], row[_RAW], row[_TEXT_LENGTH], row[_TEXT_BYTES], row[_GRAPHEMES],
     row[_NORMALIZED]) = _derived(row[_TEXT], row[_RAW], row[_TEXT_LENGTH], rules)
    if rules.language and row[_RAW] is not None:
        row[_LANGUAGE], row[_LANGUAGE_CONFIDENCE] = language_of(row[_RAW], text_kind(row[_MIME_TYPE]))
    return row


def _identity(rules: Rules) -> tuple[str, str]:
    """``(rules.name, rules.digest)``, remembered per rule set object (the digest is cached by
    value, which hashes every field of the rules: too slow for every row)."""
    hit = _IDENTITIES.get(id(rules))
    if hit is None or hit[0] is not rules:
        hit = _IDENTITIES[id(rules)] = (rules, rules.name, rules.digest)
    return hit[1], hit[2]


_IDENTITIES: dict[int, tuple[Rules, str, str]] = {}


def text_columns(row: dict, rules: Rules) -> dict:
    """Set *row*'s :data:`redecode.schema.DERIVED_COLUMNS` from its ``text`` and the output options
    of *rules* (:meth:`redecode.rules.Rules.with_outputs`); return *row*. ``text_length``: code
    points; ``text_bytes``: bytes of the UTF-8 the writer stores; ``grapheme_count``
    (:func:`redecode.textforms.grapheme_count`) when ``rules.graphemes``; ``text_normalized``
    (:func:`redecode.textforms.normalize`) in form ``rules.normalize`` when set. NULL otherwise, and
    all NULL for a NULL text. A full decode (:func:`record_row`) and a replayed row
    (:func:`redecode.backfill.replay_row`) both come here, so they agree.

    The text is encoded to UTF-8 here, once, and handed to the writer under
    :data:`redecode.writer.TEXT_UTF8_KEY` (which it would otherwise encode itself), unless the row
    already carries those bytes. A row of :func:`record_row` with ``utf8_text`` may hold its text
    only as those bytes (``text`` None, ``text_length`` set by the procedure's ``fill``): then
    ``text_bytes`` is their length, and the text is decoded from them only if the rules ask for a
    grapheme count or a normalised form (:func:`record_row` does not make such rows then).
    """
    text, raw, length, size, graphemes, normalized = _derived(row["text"], row.get(TEXT_UTF8_KEY),
                                                              row.get("text_length"), rules)
    if text is not row["text"]:
        row["text"] = text  # (decoded from the row's UTF-8 bytes for the output options)
    if raw is not None:
        row[TEXT_UTF8_KEY] = raw
    row["text_length"] = length
    row["text_bytes"] = size
    row["grapheme_count"] = graphemes
    row["text_normalized"] = normalized
    row["language"], row["language_confidence"] = (language_of(raw, text_kind(row.get("mime_type")))
                                                   if rules.language and raw is not None else (None, None))
    return row


def _derived(text: str | None, raw: bytes | None, length: int | None, rules: Rules) -> tuple:
    """``(text, raw, text_length, text_bytes, grapheme_count, text_normalized)`` of a row whose
    text is *text* (str or None) and/or *raw* (its UTF-8 bytes, or None), *length* its length in
    code points when the text is only *raw* (see :func:`text_columns`)."""
    if text is None and raw is not None:
        if not (rules.graphemes or rules.normalize):
            return None, raw, length, len(raw), None, None
        text = raw.decode("utf-8")
    if text is None:
        return None, raw, None, None, None, None
    if raw is None:
        # "replace": as the writer would (a lone surrogate never reaches Parquet as invalid UTF-8)
        raw = text.encode("utf-8", "replace")
    return (text, raw, len(text), len(raw), grapheme_count(text) if rules.graphemes else None,
            normalize(text, rules.normalize) if rules.normalize else None)


#: :func:`language_of` reads the page from its first ``<body`` (or its start), at most
#: :data:`LANGUAGE_SCAN` bytes, with its ``script`` and ``style`` elements and comments left out
#: (a portal's body often opens with kilobytes of them), and gives the identifier the text nodes
#: of the first :data:`LANGUAGE_WINDOW` bytes left (runs between ``>`` and ``<``, or the end, without
#: ``{ } =``, which script and style have: of at least :data:`TEXT_NODE_MIN` characters, or of
#: letters outside ASCII, as the short navigation of a Chinese or Japanese page is, 腾讯网), up to
#: :data:`LANGUAGE_SAMPLE` characters; a page without markup is read as text. CLD2's cost grows
#: with its input (about 90k instructions on 256 characters, 1.5M on 4,096 of HTML), and finding
#: the hidden elements and the text nodes costs a few ``bytes.find`` and one regular-expression
#: pass, without a markup parser.
LANGUAGE_WINDOW = 8192
LANGUAGE_SCAN = 1 << 16
LANGUAGE_SAMPLE = 256
TEXT_NODE_MIN = 12
#: The sample's version, in the rules digest of a run asked for the columns (rules.Rules.versions):
#: 2 from 2026-12-06 (script, style and comments left out; short non-ASCII text nodes; pages
#: without markup); 1 before (not named).
LANGUAGE_SAMPLER = "2"
_SPACES = _lazy.pattern(__name__, "_SPACES", r"\s+")
_TEXT_NODE = _lazy.pattern(__name__, "_TEXT_NODE", r">\s*([^<>{}=\s][^<>{}=]*?)\s*(?:<|\Z)")
#: where what a page hides starts: a script or style element (the name followed by what may end
#: a tag name, or the end), a comment; and the end tags that close those elements
_HIDDEN = _lazy.pattern(__name__, "_HIDDEN", rb"<(?:(script|style)(?=[\t\n\x0c\r />]|\Z)|!--)", re.I)
_END_SCRIPT = _lazy.pattern(__name__, "_END_SCRIPT", rb"</script[^>]*>", re.I)
_END_STYLE = _lazy.pattern(__name__, "_END_STYLE", rb"</style[^>]*>", re.I)


def _visible(data: bytes, limit: int) -> bytes:
    """*data* (markup, UTF-8) with each script and style element and each comment replaced by one
    space (one left open runs to the end), as far as the first *limit* bytes of the result need.
    ASCII-case-insensitive, as HTML's tag names are; a ``<scriptx`` is no script."""
    out: list[bytes] = []
    pos = size = 0
    n = len(data)
    while pos < n and size < limit:
        m = _HIDDEN.search(data, pos)
        if m is None:
            out.append(data[pos:])
            break
        i = m.start()
        out.append(data[pos:i])
        out.append(b" ")
        size += i - pos + 1
        name = m.group(1)
        if name is None:  # a comment
            j = data.find(b"-->", i + 4)
            pos = n if j < 0 else j + 3
        else:
            e = (_END_STYLE if name[1] in b"tT" else _END_SCRIPT).search(data, m.end())
            pos = n if e is None else e.end()
    return b"".join(out)


def language_of(utf8: bytes, kind: str | None) -> tuple[str | None, float | None]:
    """The ``language`` and ``language_confidence`` columns of a text given as UTF-8 bytes (the
    writer's, so a full decode and a replayed row read the same bytes): CLD2
    (:func:`redecode.language.identify`) on a bounded sample of its visible text (see
    :data:`LANGUAGE_WINDOW`); ``(None, None)`` when there is none or CLD2 names no language.
    *kind*: ``html``/``xml`` (text nodes are sampled) or ``text`` (the text itself)."""
    from . import language as _language  # noqa: PLC0415 - only runs asked for the columns

    if kind != "text":
        start = max(utf8.find(b"<body"), 0)
        data = utf8[start:start + LANGUAGE_SCAN]
        if b"<" in data:
            text = _visible(data, LANGUAGE_WINDOW)[:LANGUAGE_WINDOW].decode("utf-8", "ignore")
            parts: list[str] = []
            n = 0
            for m in _TEXT_NODE.finditer(text):
                node = m.group(1)
                if len(node) < TEXT_NODE_MIN and (node.isascii() or not node.isalpha() or len(node) < 2):
                    continue
                parts.append(node)
                n += len(node) + 1
                if n >= LANGUAGE_SAMPLE:
                    break
            text = " ".join(parts)
        else:  # (a page without markup: read as text)
            text = data[:4 * LANGUAGE_SAMPLE].decode("utf-8", "ignore")
    else:
        text = utf8[:4 * LANGUAGE_WINDOW].decode("utf-8", "ignore")[:LANGUAGE_WINDOW]
    text = _SPACES.sub(" ", text).strip()[:LANGUAGE_SAMPLE]
    if not text:
        return None, None
    found = _language.identify(text, markup=False)
    if found.language is None:
        return None, None
    return found.language, found.confidence


def _skip(row: list, reason: str) -> list:
    row[_STATUS] = STATUS_SKIPPED
    row[_SKIP_REASON] = reason
    return row


def _fail(row: list, kind: str, message: str) -> list:
    row[_STATUS] = STATUS_FAILED
    row[_ERROR_KIND] = kind
    row[_ERROR] = message
    return row
