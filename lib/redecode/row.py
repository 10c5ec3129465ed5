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

from operator import attrgetter

from .archive import ArchiveRecord
from .mime import extract_mime_type, sniff_unknown_mime_type, text_kind
from .procedures import DecodedUtf8
from .rules import Rules
from .schema import FACT_COLUMNS, INT_RANGES, SCHEMA, STATUS_DECODED, STATUS_FAILED, STATUS_SKIPPED, empty_row
from .sniff import tld_of
from .storage import path_text
from .textforms import grapheme_count, normalize
from .writer import TEXT_UTF8_KEY

__all__ = ["IDENTITY_NOTE", "IDENTITY_VALIDATION", "NO_CONTENT_STATUSES", "NO_RECORD_TYPE", "ROW_RECORD_TYPES", "record_row",
           "text_columns"]

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
    the part written is the same.
    """
    return _in_range(_row(record, rules, utf8_text))


def _in_range(row: dict) -> dict:
    """``row``, or, when an integer column holds a value outside its type
    (:data:`redecode.schema.INT_RANGES`), the row failed with ``out-of-range``: each such value
    set to null and named in ``error`` (before any earlier error of the row)."""
    bad = None
    for name, (lowest, highest) in _INT_RANGE_ITEMS:
        value = row[name]
        if value is not None and not lowest <= value <= highest:
            bad = bad or []
            bad.append(f"{name} {value} is outside the range of {SCHEMA.field(name).type}")
            row[name] = None
    if bad is None:
        return row
    message = "; ".join(bad) + " (a number in the record's headers that cannot be stored)"
    if row["error"]:
        message += f"; {row['error']}"
    row.pop(TEXT_UTF8_KEY, None)
    row["text"] = None
    row["skip_reason"] = None
    return _fail(row, "out-of-range", message)


_INT_RANGE_ITEMS = tuple(INT_RANGES.items())


def _row(record: ArchiveRecord, rules: Rules, utf8_text: bool) -> dict:
    row = empty_row()
    row.update(zip(_COPIED_COLUMNS, _copied_values(record)))
    row["warc_path"] = path_text(record.warc_path)  # a file name that is not UTF-8: \xNN escapes
    values = record.content_type_values
    row["content_type"] = ", ".join(values) if values else None
    row["payload_length"] = len(record.payload) if record.payload is not None else record.payload_length
    row["rules"] = rules.name
    row["rules_digest"] = rules.digest
    row["tld"] = tld_of(record.target_uri) if record.target_uri else None
    mime, header_charset = extract_mime_type(values or ())
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
    row.update(zip(FACT_COLUMNS, _fact_values(facts)))
    if identity:
        row["browser_encoding"] = None  # a browser fails such a response: it shows no text
    row["status"] = STATUS_DECODED
    steps.fill(row, decision, decoded)
    if identity and row["validation"] is None:
        row["validation"] = IDENTITY_VALIDATION
    if type(decoded) is DecodedUtf8:
        row[TEXT_UTF8_KEY] = decoded.utf8
    elif (decoded.errors == 0 and decoded.encoding == "UTF-8" and decoded.decoder in ("whatwg", "python:utf-8")
          and not decision.stretches):
        # A valid UTF-8 payload is its own UTF-8 text: hand the writer the bytes (no re-encode;
        # not for a page read in parts, whose stretches another decoder read).
        row[TEXT_UTF8_KEY] = payload[3:] if decoded.bom_removed else payload
    return text_columns(row, rules)


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
    text = row["text"]
    raw = row.get(TEXT_UTF8_KEY)
    if text is None and raw is not None:
        if not (rules.graphemes or rules.normalize):
            row["text_bytes"] = len(raw)
            row["grapheme_count"] = row["text_normalized"] = None
            return row
        text = row["text"] = raw.decode("utf-8")
    if text is None:
        row["text_length"] = row["text_bytes"] = row["grapheme_count"] = row["text_normalized"] = None
        return row
    if raw is None:
        # "replace": as the writer would (a lone surrogate never reaches Parquet as invalid UTF-8)
        raw = row[TEXT_UTF8_KEY] = text.encode("utf-8", "replace")
    row["text_length"] = len(text)
    row["text_bytes"] = len(raw)
    row["grapheme_count"] = grapheme_count(text) if rules.graphemes else None
    row["text_normalized"] = normalize(text, rules.normalize) if rules.normalize else None
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
