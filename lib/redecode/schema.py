"""The output schema: one row per ``response``, ``resource`` and ``revisit`` record.

The first 23 columns are the job's required columns (issue "The re-decode job end to end"), in that
order; the provenance columns of the issue "Browser-exact encoding decisions" follow. Units: every
``*_offset`` / ``*_length`` column is in **bytes**; ``text_length`` is in **characters** (Unicode
code points), ``text_bytes`` in bytes of UTF-8, ``grapheme_count`` in extended grapheme clusters
(see :mod:`redecode.textforms`). ``encoding`` is always a WHATWG encoding name (Encoding Standard, "names and labels"),
never a Python codec name; the codec actually used is in ``decoder``.

``SCHEMA_VERSION`` is stored in every Parquet file's key-value metadata under
``redecode.schema_version``; readers (diff, backfill, query) refuse files whose major version they do
not know. Bump the major version when a column is removed or changes meaning, the minor version when
one is added.
"""

from __future__ import annotations

import pyarrow as pa

SCHEMA_VERSION = "1.6"  # the columns each minor version added: COLUMNS_ADDED
SCHEMA_VERSION_KEY = b"redecode.schema_version"
#: The key of a part's Parquet metadata that holds its own file name (bytes, as the file system
#: spells it): a part found under another name (another part copied or renamed over it) is
#: refused by the commands that read a run directory (:func:`redecode.query.check_part_versions`).
PART_NAME_KEY = b"redecode.part"

#: Column kinds (the third element of each :data:`_FIELDS` entry): who makes the column.
#: ``record``: the record -> row code (:mod:`redecode.row`), before any rule is consulted (archive,
#: HTTP and MIME facts, the row's status); ``fact``: the declarations the HTML Standard's algorithms
#: find in the payload whatever the rules (:meth:`redecode.procedures.Procedure.facts`);
#: ``decision``: the rules' procedure (:meth:`~redecode.procedures.Procedure.fill`), and so its
#: replay (:meth:`~redecode.procedures.Procedure.replay`) must give each; ``derived``: a function of
#: the row's ``text`` and the rules' output options (its lengths and its normalised form), made by
#: :func:`redecode.row.text_columns` after the procedure, for a full decode and a replay alike;
#: ``rules``: the rules' identity.
RECORD, FACT, DECISION, DERIVED, RULES = "record", "fact", "decision", "derived", "rules"

#: Row status values.
STATUS_DECODED = "decoded"
STATUS_SKIPPED = "skipped"
STATUS_FAILED = "failed"

#: The type of the ``stretches`` column: a list of ``{offset, length, encoding}``.
STRETCHES_TYPE = pa.list_(pa.struct([("offset", pa.int64()), ("length", pa.int64()), ("encoding", pa.string())]))

_FIELDS: list[tuple[str, pa.DataType, str, str]] = [
    # -- required columns, in the order of the job issue --
    ("record_id", pa.string(), RECORD, "WARC-Record-ID (or a deterministic id for ARC/Parquet inputs)"),
    ("warc_path", pa.string(), RECORD, "input archive path as given to the job"),
    ("warc_offset", pa.int64(), RECORD, "bytes: start of the record (its gzip member) in warc_path; for a raw-response Parquet input, the row number"),
    ("warc_length", pa.int64(), RECORD, "bytes: length of the record in the file (compressed for .gz); for a raw-response Parquet input, the body's length"),
    ("target_uri", pa.string(), RECORD, "WARC-Target-URI"),
    ("warc_date", pa.string(), RECORD, "WARC-Date as written in the record"),
    ("http_status", pa.int32(), RECORD, "HTTP status code, null without HTTP headers"),
    ("content_type", pa.string(), RECORD, "Content-Type header value(s), joined by ', '"),
    ("mime_type", pa.string(), RECORD, "MIME type essence (Fetch 'extract a MIME type', else sniffed)"),
    ("payload_length", pa.int64(), RECORD, "bytes: payload after transfer and content codings are removed"),
    ("payload_digest", pa.string(), RECORD, "WARC-Payload-Digest"),
    ("bom", pa.string(), FACT, "BOM found: UTF-8, UTF-16BE, UTF-16LE or null"),
    ("header_charset", pa.string(), FACT, "raw charset parameter of Content-Type"),
    ("meta_charset", pa.string(), FACT, "raw label of the <meta> declaration the browser's prescan or head scan finds, whatever the rules, character references decoded as the browser reads them (a label naming no encoding is in ignored_labels instead)"),
    ("encoding", pa.string(), DECISION, "WHATWG encoding name used to decode (NULL when rules that decode with Python codecs used one with no WHATWG equivalent; see decoder)"),
    ("source", pa.string(), DECISION, "deciding step: bom, transport, prescan, head-scan, xml-declaration, "
                            "utf8-valid, detector, default; validated when the author's-text rules "
                            "overrode that step (see validation); parts when they read the page in "
                            "parts (see stretches)"),
    ("confidence", pa.string(), DECISION, "HTML Standard confidence: certain, tentative, irrelevant"),
    ("decode_errors", pa.int64(), DECISION, "number of U+FFFD the decoder inserted"),
    ("text", pa.string(), DECISION, "decoded text, without BOM"),
    ("status", pa.string(), RECORD, "decoded, skipped or failed"),
    ("error", pa.string(), RECORD, "error message for failed rows"),
    ("rules", pa.string(), RULES, "rules name, e.g. author-2026.12"),
    ("rules_digest", pa.string(), RULES, "sha256 of the rules' parameters and versions"),
    # -- provenance and bookkeeping --
    ("record_type", pa.string(), RECORD, "WARC-Type: response, resource or revisit"),
    ("meta_offset", pa.int64(), FACT, "bytes: offset of the <meta> that declared meta_charset"),
    ("xml_charset", pa.string(), FACT, "raw encoding label of the XML declaration"),
    ("ignored_labels", pa.list_(pa.string()), FACT, "labels seen that named no encoding"),
    ("conflict", pa.list_(pa.string()), DECISION, "declarations that disagree with the decision, 'where:label'"),
    ("detector", pa.string(), DECISION, "detector name@version when detection ran"),
    ("detector_confidence", pa.float64(), DECISION, "the detector engine's own confidence 0..1, not a probability: "
                                          "0.99/0.01 chardetng's yes/no assessment, 0.3333/0.6667/1 the "
                                          "share of engines agreeing (cascade, majority), 1 - chaos for "
                                          "charset-normalizer; see under this table"),
    ("tld", pa.string(), RECORD, "top-level domain of target_uri"),
    ("decoder", pa.string(), DECISION, "decoder used: 'whatwg' or 'python:<codec>'"),
    ("skip_reason", pa.string(), RECORD, "not-text, revisit, no-payload, http-status, ..."),
    ("error_kind", pa.string(), RECORD, "content-encoding, too-large, chunked, truncated, decode, "
                                "out-of-range (a number from the archive that no column can hold), ..."),
    ("warning", pa.string(), RECORD, "a tolerated oddity of the record, e.g. a gzip stream that ends early "
                             "(the decoded prefix is kept)"),
    ("utf8_valid", pa.bool_(), FACT, "payload is valid UTF-8 (when examined)"),
    ("ascii_only", pa.bool_(), FACT, "payload is pure ASCII (when examined)"),
    ("text_length", pa.int64(), DERIVED, "characters (Unicode code points) in text"),
    # -- 1.1: what redecode.backfill needs to replay the browser decision from a row --
    ("meta_source", pa.string(), FACT, "step that found the meta in meta_charset: prescan or head-scan"),
    ("xml_encoding", pa.string(), FACT, "WHATWG encoding the XML declaration names (also the label-less "
                                  "UTF-16 '<?x' patterns); null for none or an unknown label"),
    # -- 1.2: the author's-text rules --
    ("browser_encoding", pa.string(), FACT, "WHATWG encoding the browser rules (browser-2026.11) pick for "
                                      "this record, whatever the rules: where it differs from "
                                      "encoding, a browser showed other text (null where a browser "
                                      "shows no text: a body not in its declared content coding)"),
    ("validation", pa.string(), DECISION, "author's-text rules: why a declaration, default or detector answer "
                                "was overridden ('overridden: ...'), kept against disagreeing "
                                "evidence ('kept: ...') or could not be checked ('unresolved: ...'); "
                                "'identity: ...' for a body a browser shows nothing for (not in its "
                                "declared content coding, decoded as stored; see warning) that no "
                                "check spoke about; null when nothing spoke against it"),
    # -- 1.3: the other two lengths, and the normalised text on request (redecode.textforms) --
    ("text_bytes", pa.int64(), DERIVED, "bytes: length of text in UTF-8 (as stored)"),
    ("grapheme_count", pa.int64(), DERIVED, "extended grapheme clusters in text (Unicode UAX #29); NULL "
                                            "unless the run was asked for them (run --graphemes)"),
    ("text_normalized", pa.string(), DERIVED, "text in the normalization form the run was asked for (run "
                                              "--normalize NFC or NFKC; form and Unicode version in "
                                              "_run.json's rules); NULL when not asked"),
    # -- 1.4: records cut short keep the text that is there --
    ("missing_bytes", pa.int64(), RECORD, "bytes: how much of the record's block its archive lacks (the "
                                          "file ends inside the record, or its gzip member ends before "
                                          "its Content-Length); the text is what is there and warning "
                                          "says so; 0 when only the record's gzip trailer is missing; "
                                          "NULL for a whole record"),
    # -- 1.5: language as evidence (issue 30) --
    ("verdict", pa.string(), DECISION, "author's-text rules: the outcome of the check that validation explains: "
                                       "overridden, kept or unresolved (validation's first word, as data), "
                                       "identity for a body decoded as stored (a browser shows no text); "
                                       "null when nothing was checked"),
    ("language", pa.string(), DERIVED, "language of text (ISO 639-1 where one exists, else ISO 639-3), "
                                       "identified by CLD2 on 256 characters of its visible text; NULL "
                                       "unless the run was asked for it (run --language), and where "
                                       "CLD2 finds none"),
    ("language_confidence", pa.float64(), DERIVED, "0..1: CLD2's share of that sample in that language, "
                                                   "halved when it calls the answer unreliable; not a "
                                                   "probability; NULL with language"),
    # -- 1.6: pages in two encodings (issue 29; redecode.stretches) --
    ("stretches", STRETCHES_TYPE, DECISION, "author's-text rules from author-2026.12.3 on: the stretches of a page "
                                            "read in parts (source parts), each read with another "
                                            "encoding than encoding: offset and length in bytes of the "
                                            "payload (a BOM included) and the encoding that reads it; "
                                            "empty for a page read whole"),
]

#: Column name -> description (used by docs/columns.md, generated, and ``redecode query``).
COLUMN_DOCS: dict[str, str] = {name: doc for name, _, _, doc in _FIELDS}

REQUIRED_COLUMNS: tuple[str, ...] = tuple(name for name, _, _, _ in _FIELDS[:23])

#: Columns that never hold run timestamps or anything else that may differ between replays.
COLUMNS: tuple[str, ...] = tuple(name for name, _, _, _ in _FIELDS)

#: Column name -> its position in :data:`COLUMNS` (and in a row of :func:`redecode.row.record_values`).
COLUMN_INDEX: dict[str, int] = {name: i for i, name in enumerate(COLUMNS)}

#: The columns each minor version of the schema added (1.0 has the others): a part of version 1.N
#: holds those of 1.0 to 1.N, and a reader takes the later ones as NULL.
COLUMNS_ADDED: dict[str, tuple[str, ...]] = {
    "1.1": ("meta_source", "xml_encoding"),
    "1.2": ("browser_encoding", "validation"),
    "1.3": ("text_bytes", "grapheme_count", "text_normalized"),
    "1.4": ("missing_bytes",),
    "1.5": ("verdict", "language", "language_confidence"),
    "1.6": ("stretches",),
}


def columns_of(version: str) -> tuple[str, ...]:
    """The columns a part of schema ``version`` (``"1.3"``) holds, in :data:`COLUMNS` order: all of
    them for this version or a later minor one; those its version had for an earlier one (a part
    lacking one of these was changed by another tool: its rows cannot be trusted)."""
    try:
        minor = int(version.split(".")[1])
    except (IndexError, ValueError):
        minor = 0
    later = {c for v, added in COLUMNS_ADDED.items() if int(v.split(".")[1]) > minor for c in added}
    return tuple(c for c in COLUMNS if c not in later)


#: Column name -> kind (:data:`RECORD`, :data:`FACT`, :data:`DECISION`, :data:`DERIVED`, :data:`RULES`).
COLUMN_KINDS: dict[str, str] = {name: kind for name, _, kind, _ in _FIELDS}
#: The columns the rules' procedure fills and its replay must give (kind :data:`DECISION`).
DECISION_COLUMNS: tuple[str, ...] = tuple(c for c, k in COLUMN_KINDS.items() if k == DECISION)
#: The declaration facts found whatever the rules (kind :data:`FACT`).
FACT_COLUMNS: tuple[str, ...] = tuple(c for c, k in COLUMN_KINDS.items() if k == FACT)
#: The columns a row's text and the rules' output options determine (kind :data:`DERIVED`).
DERIVED_COLUMNS: tuple[str, ...] = tuple(c for c, k in COLUMN_KINDS.items() if k == DERIVED)

#: Integer columns -> the inclusive range ``(lowest, highest)`` of their Arrow type: a value outside
#: cannot be written (:func:`redecode.row.record_row` fails such a row with ``out-of-range``).
INT_RANGES: dict[str, tuple[int, int]] = {
    name: (-(1 << (typ.bit_width - 1)), (1 << (typ.bit_width - 1)) - 1)
    for name, typ, _, _ in _FIELDS
    if pa.types.is_signed_integer(typ)
}

#: Columns holding a whole text (large: not dictionary-encoded, no statistics).
TEXT_COLUMNS: tuple[str, ...] = ("text", "text_normalized")

#: Provenance columns: everything except the texts (the query layer reads only these by default).
PROVENANCE_COLUMNS: tuple[str, ...] = tuple(c for c in COLUMNS if c not in TEXT_COLUMNS)

SCHEMA = pa.schema(
    [pa.field(name, typ, nullable=True, metadata={b"doc": doc.encode()}) for name, typ, _, doc in _FIELDS],
    metadata={SCHEMA_VERSION_KEY: SCHEMA_VERSION.encode()},
)


def empty_row() -> dict:
    """A row dict with every column set to None (lists to empty tuples)."""
    row = dict.fromkeys(COLUMNS)
    row["ignored_labels"] = ()
    row["conflict"] = ()
    row["stretches"] = ()
    return row


class SchemaVersionError(ValueError):
    """A Parquet file was written with a schema this version cannot read."""


class NoSchemaVersionError(SchemaVersionError):
    """A Parquet file has no schema version at all: it was not written by ``redecode run``."""


def check_schema_version(metadata: dict[bytes, bytes] | None, path: str) -> str:
    """Return the schema version stored in a Parquet file's key-value ``metadata``.

    Raises :class:`SchemaVersionError` naming ``path`` and what is missing when the file has a
    major version this code does not know, :class:`NoSchemaVersionError` (a subclass) when it has
    no version (not written by this project).
    """
    if not metadata or SCHEMA_VERSION_KEY not in metadata:
        raise NoSchemaVersionError(
            f"{path}: no {SCHEMA_VERSION_KEY.decode()} in the Parquet metadata; "
            "not an output of `redecode run` (re-run it to produce one)"
        )
    version = metadata[SCHEMA_VERSION_KEY].decode()
    if version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise SchemaVersionError(
            f"{path}: schema version {version}, this redecode reads {SCHEMA_VERSION.split('.')[0]}.x; "
            "re-run `redecode run` on the archives to produce a current output"
        )
    return version
