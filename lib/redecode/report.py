"""The HTML report: charts of a run's provenance (and of a diff), in one self-contained file.

The only module that imports :mod:`altair` (Vega-Altair, which writes Vega-Lite specifications) and
:mod:`vl_convert` (vl-convert-python, which ships the Vega, Vega-Lite and Vega-Embed JavaScript that
the page inlines); both come with the ``[report]`` extra and are imported only by :func:`render_html`,
so the data side (:func:`collect`) works without them.

Two halves:

:func:`collect` (data)
    runs the SQL of every section (:data:`RUN_SECTIONS`, :data:`DIFF_SECTIONS`) over the views of
    :func:`redecode.query.open_query` (``decodes``, ``runs``; the ``decodes`` view holds
    :data:`~redecode.schema.PROVENANCE_COLUMNS` only, so the report never reads ``text``), plus a
    view ``diff`` over ``DIFF_DIR/diff.parquet`` (:data:`redecode.diff.DIFF_SCHEMA`) when a diff
    is given. Run directories are found and read by :func:`redecode.query.load_run` (through
    ``open_query``); no other module opens them. The records listed for review are read again
    from their archives (``warc_path``, ``warc_offset``) and decoded under each competing reading
    (:func:`redecode.review.review_texts`): the only texts the report shows besides a diff's
    excerpts. Returns a :class:`ReportData` of plain Python rows.
:func:`render_html` (page)
    one Vega-Lite chart per ``chart`` section that has rows, built with Altair, embedded as JSON
    in ``<script type="application/json">`` elements and drawn by Vega-Embed (SVG renderer) from
    the JavaScript inlined in the page's head; above each chart a caption (:func:`caption`) whose
    numbers are sums over the same rows, which the chart also writes beside its marks (the text
    layers named :data:`TOTALS`); under it a ``<details>`` table holds the rows as text. Axes of
    counts have whole-number ticks (:func:`count_ticks`). A ``records`` section (the failed and
    truncated records) is a table of its first :data:`MAX_RECORDS_LISTED` rows, their number, and
    the ``redecode query`` line that lists them all (:func:`query_line`); under each record listed
    for review, its text under each competing reading side by side (the differing words, the
    first differing character marked), or why the archive could not be read. The diff's examples
    are an HTML table, old and new excerpt side by side. After the charts are drawn, the page's script
    checks that the machine has a font for every character it shows (a character that draws as
    the box of an unassigned code point has none) and, where one lacks, says which characters and
    what to install.

Self-contained: the page loads nothing from anywhere (no CDN, no web font, no data file); its
Content-Security-Policy (``default-src 'none'``; scripts and styles inline only, images only from
``data:``/``blob:`` URLs, which Vega-Embed's "Save as PNG" makes) has the browser refuse any fetch a
later Vega version might try.
Safety: every text from the data (paths, URLs, labels, excerpts, error messages) is HTML-escaped,
characters that are not printable (controls, bidi overrides, lone surrogates) are shown as visible
escapes (``\\n``, ``\\u202e``); JSON inside ``<script>`` has ``<``, ``>`` and ``&`` written as
``\\u003c``, ``\\u003e``, ``\\u0026``, so no text can close the script element.

Units: ``records`` counts rows of ``decodes`` (records), ``replacement_chars`` U+FFFD characters
(``decode_errors``), ``confidence`` the detector engine's own 0..1 value (see docs/columns.md under the
column table: not a probability, engines do not compare).
"""

from __future__ import annotations

import datetime as _dt
import decimal
import html
import json
import math
import os
import shlex
from collections.abc import Sequence
from dataclasses import field

from . import __version__, storage
from . import review as _review
from .dataclass_code import dataclass
from .diff import (CATEGORIES, CHANGED_CATEGORIES, DIFF_FILE, EXCERPT_AFTER, EXCERPT_BEFORE, SUMMARY_FILE,
                   input_errors_line)
from .query import MANIFEST_NAME, NOTHING_SHOWN, QueryError, Result, load_run, open_query, sql_string, use_storage
from .query import visible as _visible
from .row import IDENTITY_NOTE
from .schema import PROVENANCE_COLUMNS
from .sniff import SOURCES

#: What the row's warning for a body decoded as identity holds (the report reads no text).
IDENTITY_PREFIX = IDENTITY_NOTE.split(":")[0]

__all__ = [
    "EXTRA_HINT",
    "MAX_INPUTS_SHOWN",
    "MAX_RECORDS_LISTED",
    "MAX_TLDS_SHOWN",
    "DIFF_SECTIONS",
    "RUN_SECTIONS",
    "TOTALS",
    "Caption",
    "DiffInfo",
    "ReportData",
    "ReportError",
    "RunInfo",
    "Section",
    "caption",
    "collect",
    "count_ticks",
    "query_line",
    "render_html",
    "visible",
    "write_report",
]

#: What to install when the charting libraries are missing.
EXTRA_HINT = "the HTML report needs the [report] extra: pip install 'warc-redecode[report]'"

#: Top-level domains given a row of their own in the TLD x encoding chart; the rest are "(other)".
MAX_TLDS_SHOWN = 30
#: Languages given a row of their own in the encodings-by-language chart (the others are summed).
MAX_LANGUAGES_SHOWN = 30
#: Inputs given a bar of their own in the per-input chart (those not read to the end first).
MAX_INPUTS_SHOWN = 40
#: Characters of a table cell shown before it is cut in the middle (the full text is its tooltip).
MAX_CELL = 160
#: Records listed in a table of records (failed and truncated records); the section's
#: ``redecode query`` line lists them all.
MAX_RECORDS_LISTED = 50

#: The diff format this report reads (``redecode.diff_version`` of diff.parquet, major part).
_DIFF_MAJOR = "1"


class ReportError(ValueError):
    """A diff directory cannot be read, or the output path cannot be written."""


@dataclass(frozen=True, slots=True)
class Section:
    """One section of the report: its key, title, the question it answers, and its SQL.

    ``view`` is the view the SQL reads (``decodes``, ``runs`` or ``diff``); the SQL reads
    provenance columns only. ``kind`` is ``chart`` (a Vega-Lite chart over the rows, the rows as a
    table under it, and a caption whose numbers are sums over the same rows) or ``records`` (a
    table of records, at most :data:`MAX_RECORDS_LISTED`, its last column ``records`` the number of
    all such records; ``query`` is the SQL that lists every one of them, with the same ``WHERE``
    and order, shown as a ``redecode query`` line to copy).
    """

    key: str
    title: str
    question: str
    sql: str
    view: str
    kind: str = "chart"
    query: str | None = None


# The failed and truncated records: the rows whose record failed (status failed, error_kind says
# how), any row that carries an error_kind, and the records cut short whose text is kept
# (missing_bytes; their warning says how much is there).
_FAILED_WHERE = "status = 'failed' OR error_kind IS NOT NULL OR missing_bytes IS NOT NULL"
_FAILED_COLUMNS = "target_uri, warc_path, warc_offset, error_kind, coalesce(error, warning) AS error"

# The decisions for a person to review: where the author's-text rules were not sure (their
# verdict, as data since schema 1.5, else validation's first word): no reading decoded cleanly
# (unresolved), another encoding than a browser's was chosen (overridden, always tentative), or the
# browser's choice was kept although a competing reading read close to it (kept, tentative).
_REVIEW_WHERE = ("status = 'decoded' AND (coalesce(verdict, split_part(validation, ':', 1)) = 'unresolved' "
                 "OR (coalesce(verdict, split_part(validation, ':', 1)) IN ('overridden', 'kept') "
                 "AND confidence = 'tentative'))")
_REVIEW_COLUMNS = ("target_uri, warc_path, warc_offset, browser_encoding, encoding, "
                   "coalesce(verdict, split_part(validation, ':', 1)) AS verdict, validation")
_FAILED_ORDER = "warc_path, warc_offset"
# What redecode.review.review_texts reads of a record listed for review (the section's columns and
# the BOM, the Python decoder and the stretches read in parts).
_REVIEW_TEXT_COLUMNS = "warc_path, warc_offset, browser_encoding, encoding, validation, bom, decoder, stretches"

# The encoding as shown: the WHATWG name, or the Python decoder in parentheses where the rules used
# a codec with no Encoding Standard equivalent (seed and requests rules; see the column docs).
_ENCODING = "coalesce(encoding, '(' || coalesce(decoder, 'no decoder') || ')')"

_ERROR_BUCKETS = (
    # (label, lower bound inclusive); an upper bound is the next row's lower bound
    ("0", 0), ("1-9", 1), ("10-99", 10), ("100-999", 100), ("1000+", 1000),
)


def _bucket_sql() -> str:
    whens = " ".join(
        f"WHEN decode_errors >= {lo} THEN '{label}'" for label, lo in reversed(_ERROR_BUCKETS)
    )
    return f"CASE WHEN decode_errors IS NULL THEN 'unknown' {whens} END"


#: The charts over the run directories, in page order.
RUN_SECTIONS: tuple[Section, ...] = (
    Section(
        key="status",
        title="Records by status and reason",
        question="How many records were decoded, skipped (and why) or failed (and how)?",
        sql="SELECT status, coalesce(skip_reason, error_kind, status) AS reason, count(*) AS records "
            "FROM decodes GROUP BY ALL ORDER BY status, records DESC, reason",
        view="decodes",
    ),
    Section(
        key="failed",
        title="Failed and truncated records",
        question="Which records could not be decoded, and why? Each record's URL (target_uri), the "
                 "input it is in (warc_path) and where it starts there (warc_offset: bytes; the row "
                 "number in a raw-response Parquet), the kind of error (error_kind) and the error.",
        sql=f"SELECT {_FAILED_COLUMNS}, count(*) OVER () AS records FROM decodes "
            f"WHERE {_FAILED_WHERE} ORDER BY {_FAILED_ORDER} LIMIT {MAX_RECORDS_LISTED}",
        view="decodes",
        kind="records",
        query=f"SELECT {_FAILED_COLUMNS} FROM decodes WHERE {_FAILED_WHERE} ORDER BY {_FAILED_ORDER}",
    ),
    Section(
        key="encodings",
        title="Encodings by deciding step",
        question="Which encodings were used, and which step of the rules chose each (source)?",
        sql=f"SELECT {_ENCODING} AS encoding, coalesce(source, '(none)') AS source, "
            "count(*) AS records, sum(decode_errors) AS replacement_chars "
            "FROM decodes WHERE status = 'decoded' GROUP BY ALL ORDER BY records DESC, encoding, source",
        view="decodes",
    ),
    Section(
        key="detector",
        title="Detector answers and their confidence",
        question="Which encodings came from the detector (source = detector), and how sure was it? "
                 "Each circle is an encoding at one confidence value, its size the number of records.",
        sql=f"SELECT {_ENCODING} AS encoding, coalesce(detector, '(none)') AS detector, "
            "round(detector_confidence, 4) AS confidence, count(*) AS records, "
            "count_if(decode_errors > 0) AS records_with_errors, sum(decode_errors) AS replacement_chars "
            "FROM decodes WHERE status = 'decoded' AND source = 'detector' "
            "GROUP BY ALL ORDER BY records DESC, encoding, confidence, detector",
        view="decodes",
    ),
    Section(
        key="overrides",
        title="Where the rules checked the browser's choice: overridden, kept, unresolved, or no browser text",
        question="Which records did the rules decode with another encoding than a browser would "
                 "(overridden: browser_encoding -> encoding), which did they check and keep (kept: "
                 "the same encoding on both sides, the text a browser shows), where did no reading "
                 "decode cleanly (unresolved: the browser's choice stands, tentative), and which does a "
                 "browser show no text for (identity: a body not in its declared content coding, "
                 "decoded as stored; browser_encoding is null)? The colour is the verdict column (the word "
                 "before the colon in validation, for runs made before it; (none): nothing checked, as in rule "
                 "sets that check nothing); rule sets that follow the browser have no such rows.",
        sql=f"SELECT coalesce(browser_encoding, {sql_string(NOTHING_SHOWN)}) || ' -> ' || {_ENCODING} AS change, "
            # the verdict column (schema 1.5); runs written before it say it only in validation's first word
            "coalesce(verdict, split_part(validation, ':', 1), '(none)') AS verdict, "
            "count(*) AS records, "
            "sum(decode_errors) AS replacement_chars FROM decodes WHERE status = 'decoded' "
            "AND (validation IS NOT NULL "
            "OR (browser_encoding IS NOT NULL AND encoding IS DISTINCT FROM browser_encoding) "
            f"OR (browser_encoding IS NULL AND contains(warning, {sql_string(IDENTITY_PREFIX)}))) "
            "GROUP BY ALL ORDER BY records DESC, change, verdict",
        view="decodes",
    ),
    Section(
        key="errors",
        title="Decode errors: records by number of U+FFFD inserted",
        question="How many decoded records needed replacement characters, and how many?",
        sql=f"SELECT {_bucket_sql()} AS errors, {_ENCODING} AS encoding, count(*) AS records, "
            "sum(decode_errors) AS replacement_chars "
            "FROM decodes WHERE status = 'decoded' GROUP BY ALL ORDER BY errors, records DESC, encoding",
        view="decodes",
    ),
    Section(
        key="errors_by_encoding",
        title="Decode errors by encoding",
        question="Which encodings' decoders inserted U+FFFD, in how many records? "
                 "(encodings with errors only)",
        sql=f"SELECT {_ENCODING} AS encoding, count(*) AS records, "
            "count_if(decode_errors > 0) AS records_with_errors, sum(decode_errors) AS replacement_chars "
            "FROM decodes WHERE status = 'decoded' GROUP BY ALL HAVING sum(decode_errors) > 0 "
            "ORDER BY replacement_chars DESC, records DESC, encoding",
        view="decodes",
    ),
    Section(
        key="tld",
        title="Top-level domain x encoding",
        question=f"Which encodings do the pages of each top-level domain use? (the {MAX_TLDS_SHOWN} "
                 "domains with most decoded records; the others are summed as (other))",
        sql="WITH t AS (SELECT coalesce(tld, '(none)') AS tld, "
            f"{_ENCODING} AS encoding, decode_errors FROM decodes WHERE status = 'decoded'), "
            "top AS (SELECT tld FROM t GROUP BY tld ORDER BY count(*) DESC, tld "
            f"LIMIT {MAX_TLDS_SHOWN}) "
            "SELECT CASE WHEN tld IN (SELECT tld FROM top) THEN tld ELSE '(other)' END AS tld, encoding, "
            "count(*) AS records, sum(decode_errors) AS replacement_chars FROM t "
            "GROUP BY ALL ORDER BY tld, encoding",
        view="decodes",
    ),
    Section(
        key="languages",
        title="Encodings by language",
        question=f"Which encodings do the pages of each language use? (the language column, which runs "
                 f"made with run --language have: CLD2 on a sample of the visible text; the "
                 f"{MAX_LANGUAGES_SHOWN} languages with most decoded records, the others summed as "
                 "(other); (none): CLD2 named no language)",
        sql="WITH t AS (SELECT coalesce(language, '(none)') AS language, "
            f"{_ENCODING} AS encoding, decode_errors FROM decodes WHERE status = 'decoded' "
            "AND (SELECT count(language) FROM decodes) > 0), "
            "top AS (SELECT language FROM t GROUP BY language ORDER BY count(*) DESC, language "
            f"LIMIT {MAX_LANGUAGES_SHOWN}) "
            "SELECT CASE WHEN language IN (SELECT language FROM top) THEN language ELSE '(other)' END "
            "AS language, encoding, count(*) AS records, sum(decode_errors) AS replacement_chars FROM t "
            "GROUP BY ALL ORDER BY language, encoding",
        view="decodes",
    ),
    Section(
        key="review",
        title="For review: the decisions the rules were not sure of",
        question="Which decoded records should a person check? Those where no reading decoded cleanly "
                 "(unresolved), where the rules chose another encoding than a browser would "
                 "(overridden: browser_encoding -> encoding) and where they kept the browser's choice "
                 "although a competing reading came close (kept, confidence tentative). validation "
                 "names every reading the rules weighed, with the language each reads as; under each "
                 "record, its text under the chosen reading and under those it was weighed against "
                 "(browser_encoding, the encodings validation names), side by side: the words where "
                 "they first differ, read again from the archive.",
        sql=f"SELECT {_REVIEW_COLUMNS}, count(*) OVER () AS records FROM decodes "
            f"WHERE {_REVIEW_WHERE} ORDER BY warc_path, warc_offset LIMIT {MAX_RECORDS_LISTED}",
        view="decodes",
        kind="records",
        query=f"SELECT {_REVIEW_COLUMNS} FROM decodes WHERE {_REVIEW_WHERE} ORDER BY warc_path, warc_offset",
    ),
    Section(
        key="outcomes",
        title="Inputs by outcome",
        question="Was every input read to its end (complete), read past damaged stretches "
                 "(damaged), cut short (truncated), or not read at all (error)? From _run.json.",
        sql="SELECT coalesce(outcome, '(none)') AS outcome, count(*) AS inputs, "
            "sum(coalesce(rows, 0)) AS rows FROM runs GROUP BY ALL ORDER BY inputs DESC, outcome",
        view="runs",
    ),
    Section(
        key="inputs",
        title="Records per input",
        question=f"What became of each input's records? (the first {MAX_INPUTS_SHOWN} inputs: those not "
                 "read to the end first, then by path)",
        # inputs: 1 on an input's row; on the row that sums the others (summed), their number
        sql="WITH i AS (SELECT CASE WHEN (SELECT count(DISTINCT run) FROM runs) > 1 THEN run || ': ' || path "
            "ELSE path END AS input, coalesce(outcome, '(none)') AS outcome, "
            "coalesce(decoded, 0) AS decoded, coalesce(skipped, 0) AS skipped, "
            "coalesce(failed, 0) AS failed, error_offset, error, "
            "row_number() OVER (ORDER BY outcome = 'complete', run, path) AS n FROM runs) "
            "SELECT input, outcome, decoded, skipped, failed, error_offset, error, inputs, summed FROM ("
            f"SELECT *, 1 AS inputs, false AS summed FROM i WHERE n <= {MAX_INPUTS_SHOWN} "
            "UNION ALL SELECT '(' || count(*) || ' other input' || CASE WHEN count(*) = 1 THEN ')' ELSE 's)' END, "
            "CASE WHEN count(DISTINCT outcome) = 1 THEN min(outcome) ELSE '(several)' END, "
            "sum(decoded), sum(skipped), sum(failed), NULL, NULL, max(n), count(*), true "
            f"FROM i WHERE n > {MAX_INPUTS_SHOWN} HAVING count(*) > 0) ORDER BY n",
        view="runs",
    ),
)

_KIND = ("CASE WHEN mojibake_fixed THEN 'mojibake fixed' "
         "WHEN category = 'encoding-changed' AND text_equal THEN 'label only (same text)' "
         "ELSE 'other change' END")

#: The charts over a diff directory (``redecode diff ... --out DIFF_DIR``), in page order.
DIFF_SECTIONS: tuple[Section, ...] = (
    Section(
        key="diff_categories",
        title="Changed records by category",
        question="What changed between the old and the new decode, and was it a fix "
                 "(the old text was mojibake of the new)?",
        sql=f"SELECT category, {_KIND} AS kind, count(*) AS records FROM diff "
            "WHERE category <> 'unchanged' GROUP BY ALL ORDER BY category, kind",
        view="diff",
    ),
    Section(
        key="diff_transitions",
        title="Encoding transitions (old -> new)",
        question="Which encoding did the new decode use where the old one used another?",
        sql="SELECT coalesce(old_encoding, '(none)') AS old_encoding, "
            "coalesce(new_encoding, '(none)') AS new_encoding, count(*) AS records, "
            "count_if(mojibake_fixed) AS mojibake_fixed FROM diff WHERE category = 'encoding-changed' "
            "GROUP BY ALL ORDER BY records DESC, old_encoding, new_encoding",
        view="diff",
    ),
)

_EXAMPLE_COLUMNS = (
    "category", "target_uri", "warc_path", "warc_offset", "old_status", "new_status", "old_reason",
    "new_reason", "old_encoding", "new_encoding", "old_source", "new_source", "old_decode_errors",
    "new_decode_errors", "text_equal", "diff_offset", "old_excerpt", "new_excerpt", "mojibake_fixed",
    "mojibake_check",
)


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A run directory as the report's header shows it (from its ``_run.json``, when it has one)."""

    path: str
    rules: str | None
    rules_digest: str | None
    redecode_version: str | None
    started_at: str | None
    finished_at: str | None
    inputs: int | None  # None: no manifest
    parts: int
    #: the directory the run ran in (its manifest's ``cwd``): relative input paths are relative to it
    cwd: str | None = None


@dataclass(frozen=True, slots=True)
class DiffInfo:
    """A diff directory: what was compared, the count per category (every one of
    :data:`redecode.diff.CATEGORIES`, zeros included), the examples shown, and the inputs the diff
    could not read to the end (from ``_diff.json``)."""

    path: str
    old: str | None
    new: str | None
    records: int
    categories: dict[str, int]
    mojibake_fixed: int
    label_only: int
    examples: list[dict]
    input_errors: list[dict] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return sum(self.categories[c] for c in CHANGED_CATEGORIES)


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything the page shows, as plain rows: ``sections`` maps a :class:`Section` key to its
    :class:`redecode.query.Result` (rows of Python values); ``counts`` the records per status."""

    runs: tuple[RunInfo, ...]
    records: int
    counts: dict[str, int]
    sections: dict[str, Result]
    diff: DiffInfo | None = None
    created_at: str = ""
    #: for each row of ``sections["review"]``, in order: its texts under the competing readings
    #: (:class:`redecode.review.ReviewTexts`); empty when ``collect(..., review_texts=False)``.
    review: tuple = ()


# --------------------------------------------------------------------------------------------
# Data


def _plain(value):
    """A JSON-ready value: Decimal -> int/float, NaN -> None, dates -> ISO text."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _result(con, sql: str, title: str | None = None) -> Result:
    rel = con.execute(sql)
    columns = tuple(d[0] for d in rel.description)
    rows = [tuple(_plain(v) for v in row) for row in rel.fetchall()]
    return Result(columns=columns, rows=rows, title=title, sql=sql)


def _run_info(path: str) -> RunInfo:
    run = load_run(path)
    m = run.manifest or {}
    rules = m.get("rules") or {}
    return RunInfo(
        path=path,
        rules=rules.get("name"),
        rules_digest=rules.get("digest"),
        redecode_version=m.get("redecode_version"),
        started_at=m.get("started_at"),
        finished_at=m.get("finished_at"),
        inputs=(m["input_count"] if isinstance(m.get("input_count"), int) else len(m.get("inputs") or ())
                ) if run.manifest is not None else None,
        parts=len(run.parts),
        cwd=m.get("cwd"),
    )


def _sql_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _attach_diff(con, path: str) -> tuple[str | None, str | None, list[dict]]:
    """Create the view ``diff`` over ``path/diff.parquet`` on *con*; return (old, new, input errors).

    Raises :class:`ReportError` when *path* is not the ``--out`` of ``redecode diff`` or its
    diff.parquet is of a diff format this code does not know.
    """
    path = storage.local_path(path)
    if storage.is_remote(path):
        path = path.rstrip("/")
        names = storage.listdir(path)
    elif os.path.isdir(path):
        names = os.listdir(path)
    else:
        raise ReportError(f"--diff {path}: no such directory (give the --out DIR of `redecode diff`)")
    parquet = storage.join(path, DIFF_FILE)
    if DIFF_FILE not in names:
        raise ReportError(
            f"--diff {path}: not a diff directory (no {DIFF_FILE}); give the --out DIR of "
            "`redecode diff OLD NEW --out DIR`")
    use_storage(con, [parquet])
    try:
        meta = {
            bytes(k).decode("utf-8", "replace"): bytes(v).decode("utf-8", "replace")
            for k, v in con.execute(
                "SELECT key, value FROM parquet_kv_metadata(?)", [parquet]).fetchall()
        }
    except Exception as exc:  # noqa: BLE001 - duckdb's error types stay inside the query layer
        raise ReportError(f"{parquet}: cannot read: {exc}") from exc
    version = meta.get("redecode.diff_version")
    if version is None or version.split(".")[0] != _DIFF_MAJOR:
        raise ReportError(
            f"{parquet}: not written by `redecode diff` (diff version {version or 'missing'}; "
            f"this report reads version {_DIFF_MAJOR}.x)")
    con.execute(f"CREATE VIEW diff AS SELECT * FROM read_parquet({_sql_literal(parquet)})")
    old, new, errors = meta.get("redecode.diff_old"), meta.get("redecode.diff_new"), []
    summary_path = storage.join(path, SUMMARY_FILE)
    if SUMMARY_FILE in names:
        try:
            summary = json.loads(storage.read_bytes(summary_path))
        except (OSError, ValueError) as exc:
            raise ReportError(f"{summary_path}: cannot read the diff summary: {exc}") from exc
        old, new = summary.get("old", old), summary.get("new", new)
        errors = list(summary.get("input_errors") or ())
    return old, new, errors


def _diff_info(con, path: str, old, new, input_errors, examples: int, changed: Result) -> DiffInfo:
    """The diff's head: the changed records per category and kind from *changed*, the rows of the
    ``diff_categories`` chart (so that the head, the chart and its caption agree: one query), the
    unchanged ones from the count of all records; and the examples."""
    records = int(con.execute("SELECT count(*) FROM diff").fetchone()[0])
    by_category = {c: 0 for c in CATEGORIES}
    by_kind: dict[str, int] = {}
    for category, kind, n in changed.rows:
        by_category[category] = by_category.get(category, 0) + int(n)
        by_kind[kind] = by_kind.get(kind, 0) + int(n)
    by_category["unchanged"] = records - sum(by_category.values())
    order = ", ".join(_sql_literal(c) for c in CATEGORIES)
    ex = _result(
        con,
        f"SELECT {', '.join(_EXAMPLE_COLUMNS)} FROM ("
        f"  SELECT *, row_number() OVER (PARTITION BY category "
        "     ORDER BY mojibake_fixed DESC NULLS LAST, warc_path, warc_offset) AS n "
        "  FROM diff WHERE category <> 'unchanged') "
        f"WHERE n <= {int(examples)} "
        f"ORDER BY list_position([{order}], category), n",
    )
    return DiffInfo(
        path=path, old=old, new=new, records=records, categories=by_category,
        mojibake_fixed=by_kind.get("mojibake fixed", 0), label_only=by_kind.get("label only (same text)", 0),
        examples=[dict(zip(ex.columns, row)) for row in ex.rows],
        input_errors=input_errors,
    )


def collect(runs: Sequence[str] | str, *, diff: str | None = None, examples: int = 5,
            review_texts: bool = True) -> ReportData:
    """The report's data: every section's rows over *runs* (run directories or single parts), and
    over the diff directory *diff* (the ``--out`` of ``redecode diff``) when given.

    *examples*: changed records shown per diff category. Reads provenance columns only, never
    ``text``; with *review_texts* (the default) each record listed for review (at most
    :data:`MAX_RECORDS_LISTED`) is read again from its archive and decoded under its competing
    readings (:func:`redecode.review.review_texts`; an archive that cannot be read is said in
    its place, never raised). Raises :class:`redecode.query.QueryError` (no such run directory, not a run
    directory), :class:`redecode.schema.SchemaVersionError` (a part of an unknown schema major
    version) and :class:`ReportError` (a bad diff directory).
    """
    if isinstance(runs, str):
        runs = [runs]
    runs = list(runs)
    if not runs:
        raise QueryError("no run directory given")
    infos = tuple(_run_info(r) for r in runs)
    # the connection reads nothing but the runs' parts and the diff's table (query.open_query)
    diff_table = []
    if diff is not None:  # (as _attach_diff names it: a URL without its trailing slash)
        where = storage.local_path(diff)
        diff_table = [storage.join(where.rstrip("/") if storage.is_remote(where) else where, DIFF_FILE)]
    con = open_query(runs, columns=PROVENANCE_COLUMNS, also_read=diff_table)
    try:
        diff_info = None
        sections = list(RUN_SECTIONS)
        if diff is not None:
            old, new, errors = _attach_diff(con, diff)
            sections += DIFF_SECTIONS
        results = {s.key: _result(con, s.sql, s.title) for s in sections}
        # the head's counts are the status chart's rows, summed: one query for both
        counts = {"decoded": 0, "skipped": 0, "failed": 0}
        for status, _reason, n in results["status"].rows:
            counts[status] = counts.get(status, 0) + int(n)
        if diff is not None:
            diff_info = _diff_info(con, diff, old, new, errors, examples, results["diff_categories"])
        texts = (_review_texts(con, results["review"], tuple(i.cwd for i in infos))
                 if review_texts else ())
    finally:
        con.close()
    return ReportData(
        runs=infos, records=sum(counts.values()), counts={str(k): int(v) for k, v in counts.items()},
        sections=results, diff=diff_info, review=texts,
        created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    )


def _review_texts(con, review: Result, bases: tuple = ()) -> tuple:
    """For each row of the review section, its texts under the competing readings: the columns
    :func:`redecode.review.review_texts` reads, fetched for the same records (matched on the
    section's columns: rows alike there are one record decided alike), then the records read
    (relative paths relative to the runs' directories *bases*, as the runs were given them)."""
    if not review.rows:
        return ()
    rows = con.execute(
        f"SELECT DISTINCT {_REVIEW_TEXT_COLUMNS} FROM (SELECT {_REVIEW_TEXT_COLUMNS} FROM decodes "
        f"WHERE {_REVIEW_WHERE} ORDER BY warc_path, warc_offset LIMIT {MAX_RECORDS_LISTED})").fetchall()
    names = [c.strip() for c in _REVIEW_TEXT_COLUMNS.split(",")]
    by_key = {}
    for values in rows:
        r = dict(zip(names, values))
        by_key.setdefault((r["warc_path"], r["warc_offset"], r["browser_encoding"], r["encoding"],
                           r["validation"]), r)
    at = {c: review.columns.index(c) for c in ("warc_path", "warc_offset", "browser_encoding", "encoding",
                                                "validation")}
    done: dict = {}
    out = []
    for row in review.rows:
        key = tuple(row[at[c]] for c in ("warc_path", "warc_offset", "browser_encoding", "encoding", "validation"))
        if key not in done:
            r = by_key.get(key)
            done[key] = (_review.review_texts(r, bases=bases) if r is not None
                         else _review.ReviewTexts(error="the record's row was not found again"))
        out.append(done[key])
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Charts (Altair)


def _altair():
    try:
        import altair as alt  # noqa: PLC0415 - the [report] extra
    except ImportError as exc:
        raise ImportError(f"{EXTRA_HINT} ({exc})") from exc
    return alt


def _vega_bundle(alt) -> str:
    """The Vega + Vega-Lite + Vega-Embed JavaScript (one script exposing ``vegaEmbed``) for the
    Vega-Lite version Altair writes, from vl-convert-python (offline: the JS ships in its wheel)."""
    try:
        import vl_convert  # noqa: PLC0415 - the [report] extra
    except ImportError as exc:
        raise ImportError(f"{EXTRA_HINT} ({exc})") from exc
    major, minor = alt.SCHEMA_VERSION.lstrip("v").split(".")[:2]
    if f"{major}.{minor}" not in vl_convert.get_vegalite_versions():
        raise ImportError(
            f"vl-convert-python has no JavaScript for Vega-Lite {major}.{minor}, the version Altair "
            f"{alt.__version__} writes: pip install -U vl-convert-python altair")
    bundle = vl_convert.javascript_bundle(vl_version=f"v{major}_{minor}")
    # Inlined in a <script> element: the HTML parser ends it at the first "</script" and treats
    # "<!--" specially; the bundle has neither (checked here rather than patched, as a change
    # to minified code could break it).
    lowered = bundle.lower()
    if "</script" in lowered or "<!--" in lowered:
        raise RuntimeError("the vl-convert JavaScript bundle cannot be inlined in a <script> element")
    return bundle


_STATUS_COLORS = {"decoded": "#4c9a5b", "skipped": "#9e9e9e", "failed": "#d1495b"}
_OUTCOME_COLORS = {"complete": "#4c9a5b", "limited": "#7a9cc6", "damaged": "#d8b33a", "truncated": "#e89c3a",
                   "error": "#d1495b", "(none)": "#9e9e9e"}
_KIND_COLORS = {"mojibake fixed": "#4c9a5b", "label only (same text)": "#9ecae1",
                "other change": "#e89c3a"}
_WIDTH = 620
#: The name of the text layers that write a chart's counts beside its marks (SVG class
#: ``<name>_marks``): the numbers a chart's caption sums (:data:`_CAPTIONS`).
TOTALS = "totals"


def count_ticks(top: int | float | None) -> list[int]:
    """The ticks of an axis of counts (records, inputs) whose largest value is *top*: whole
    numbers from 0, in steps of 1, 2 or 5 times a power of ten, at most 8 steps, the last at or
    above *top* (a count axis never shows 0.5, nor the same label twice)."""
    top = max(int(math.ceil(top or 0)), 1)
    step = 1
    while True:
        for m in (1, 2, 5):
            if top <= 8 * step * m:
                step *= m
                last = -(-top // step) * step
                return list(range(0, last + 1, step))
        step *= 10


def _counts(alt, field: str, title: str, top, channel: str = "x"):
    """An x (or y) channel of counts: the explicit whole-number ticks of :func:`count_ticks`, the
    scale ending at the last tick."""
    ticks = count_ticks(top)
    enc = alt.X if channel == "x" else alt.Y
    return enc(field, title=title, scale=alt.Scale(domain=[0, ticks[-1]], nice=False, zero=True),
               axis=alt.Axis(values=ticks, format="d"))


def _totals(rows, key: str, value: str = "records") -> dict:
    """The sum of *value* per value of *key* over *rows*."""
    out: dict = {}
    for r in rows:
        out[r[key]] = out.get(r[key], 0) + (r.get(value) or 0)
    return out


def _values(result: Result) -> list[dict]:
    """A section's rows as chart data: dicts, every text made visible (:func:`visible`), since Vega
    draws labels as given and a bidi override or a newline in a label would change how it reads."""
    return [{c: visible(v) if isinstance(v, str) else v for c, v in zip(result.columns, row)}
            for row in result.rows]


def _scale(alt, colors: dict[str, str], present: Sequence[str]):
    domain = [k for k in colors if k in present] + sorted(set(present) - set(colors))
    return alt.Scale(domain=domain, range=[colors.get(k, "#777777") for k in domain])


def _chart_status(alt, rows):
    reasons = sorted({r["reason"] for r in rows}, key=lambda r: (r != "decoded", r))
    palette = ["#e15759", "#f28e2b", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]
    others = iter(palette * 4)
    colors = [_STATUS_COLORS["decoded"] if r == "decoded" else next(others) for r in reasons]
    top = max(_totals(rows, "status").values(), default=0)
    base = alt.Chart(alt.Data(values=rows))
    bars = base.mark_bar().encode(
        y=alt.Y("status:N", title=None, sort=list(_STATUS_COLORS)),
        x=_counts(alt, "sum(records):Q", "records", top),
        color=alt.Color("reason:N", title="reason", scale=alt.Scale(domain=reasons, range=colors)),
        order=alt.Order("records:Q", sort="descending"),
        tooltip=["status:N", "reason:N", alt.Tooltip("records:Q", title="records")],
    )
    totals = base.mark_text(align="left", dx=4, fontSize=11, color="#333").encode(
        y=alt.Y("status:N", sort=list(_STATUS_COLORS)), x="sum(records):Q", text="sum(records):Q",
    ).properties(name=TOTALS)
    return alt.layer(bars, totals).properties(width=_WIDTH)


def _by_records(rows, key="encoding") -> list[str]:
    """The values of *key* in *rows*, most records first (ties by value): a chart's sort order."""
    totals = _totals(rows, key)
    return sorted(totals, key=lambda k: (-totals[k], k))


def _chart_encodings(alt, rows):
    present = {r["source"] for r in rows}
    sources = [s for s in SOURCES if s in present] + sorted(present - set(SOURCES))
    order = _by_records(rows)
    top = max(_totals(rows, "encoding").values(), default=0)
    base = alt.Chart(alt.Data(values=rows))
    bars = base.mark_bar().encode(
        y=alt.Y("encoding:N", title=None, sort=order),
        x=_counts(alt, "sum(records):Q", "decoded records", top),
        color=alt.Color("source:N", title="source (deciding step)",
                        scale=alt.Scale(domain=sources, scheme="tableau10")),
        order=alt.Order("source_rank:Q"),
        tooltip=["encoding:N", "source:N", alt.Tooltip("records:Q"),
                 alt.Tooltip("replacement_chars:Q", title="U+FFFD")],
    ).transform_calculate(
        source_rank=f"indexof({json.dumps(sources)}, datum.source)"
    )
    totals = base.mark_text(align="left", dx=4, fontSize=11, color="#333").encode(
        y=alt.Y("encoding:N", sort=order), x="sum(records):Q", text="sum(records):Q",
    ).properties(name=TOTALS)
    return alt.layer(bars, totals).properties(width=_WIDTH)


def _chart_detector(alt, rows):
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X("confidence:Q", title="detector_confidence (the engine's own 0..1 measure)",
                scale=alt.Scale(domain=[0, 1], padding=16),
                axis=alt.Axis(values=[i / 10 for i in range(11)], format=".1f")),
        y=alt.Y("encoding:N", title=None, sort=_by_records(rows)),
        yOffset=alt.YOffset("detector:N"),
    )
    top = max((r["records"] for r in rows), default=1)
    points = base.mark_circle(opacity=0.75, stroke="#333", strokeWidth=0.5).encode(
        size=alt.Size("records:Q", title="records", scale=alt.Scale(domain=[0, top], range=[0, 700]),
                      legend=alt.Legend(format="d", values=sorted({1, max(1, top // 2), top}))),
        color=alt.Color("detector:N", title="detector",
                        legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=900)),
        tooltip=["encoding:N", "detector:N", alt.Tooltip("confidence:Q", format=".4~f"),
                 "records:Q", alt.Tooltip("records_with_errors:Q", title="records with U+FFFD"),
                 alt.Tooltip("replacement_chars:Q", title="U+FFFD")],
    )
    # the count beside each circle, on the side away from the nearer end of the axis
    right = base.transform_filter("datum.confidence <= 0.5").mark_text(
        align="left", dx=16, fontSize=11).encode(text="records:Q").properties(name=TOTALS)
    left = base.transform_filter("datum.confidence > 0.5").mark_text(
        align="right", dx=-16, fontSize=11).encode(text="records:Q").properties(name=TOTALS + "_left")
    return alt.layer(points, right, left).properties(width=_WIDTH)


def _chart_overrides(alt, rows):
    order = _by_records(rows, "change")
    top = max(_totals(rows, "change").values(), default=0)
    base = alt.Chart(alt.Data(values=rows))
    bars = base.mark_bar().encode(
        y=alt.Y("change:N", title="browser_encoding -> encoding", sort=order,
                axis=alt.Axis(labelLimit=320)),
        x=_counts(alt, "sum(records):Q", "decoded records", top),
        color=alt.Color("verdict:N", title="verdict (validation)", scale=alt.Scale(scheme="tableau10")),
        tooltip=["change:N", "verdict:N", "records:Q",
                 alt.Tooltip("replacement_chars:Q", title="U+FFFD")],
    )
    totals = base.mark_text(align="left", dx=4, fontSize=11, color="#333").encode(
        y=alt.Y("change:N", sort=order), x="sum(records):Q", text="sum(records):Q",
    ).properties(name=TOTALS)
    return alt.layer(bars, totals).properties(width=_WIDTH - 200)


def _chart_errors(alt, rows):
    buckets = [label for label, _ in _ERROR_BUCKETS]
    if any(r["errors"] == "unknown" for r in rows):
        buckets.append("unknown")
    top = max(_totals(rows, "errors").values(), default=0)
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X("errors:N", title="U+FFFD inserted in the record", sort=buckets,
                scale=alt.Scale(domain=buckets), axis=alt.Axis(labelAngle=0)),
        y=_counts(alt, "sum(records):Q", "decoded records", top, channel="y"),
    )
    bars = base.mark_bar().encode(
        color=alt.Color("encoding:N", title="encoding", scale=alt.Scale(scheme="tableau20")),
        tooltip=["errors:N", "encoding:N", "records:Q",
                 alt.Tooltip("replacement_chars:Q", title="U+FFFD")],
    )
    totals = base.mark_text(dy=-7, fontSize=11).encode(
        text=alt.Text("sum(records):Q")).properties(name=TOTALS)
    return alt.layer(bars, totals).properties(width=_WIDTH, height=220)


def _chart_errors_by_encoding(alt, rows):
    top = max((r["records_with_errors"] for r in rows), default=0)
    order = [r["encoding"] for r in sorted(rows, key=lambda r: (-r["records_with_errors"], r["encoding"]))]
    base = alt.Chart(alt.Data(values=rows)).encode(y=alt.Y("encoding:N", title=None, sort=order))
    bars = base.mark_bar(color="#d1495b").encode(
        x=_counts(alt, "records_with_errors:Q", "records with U+FFFD", top),
        tooltip=["encoding:N", alt.Tooltip("records_with_errors:Q", title="records with U+FFFD"),
                 alt.Tooltip("records:Q", title="decoded records"),
                 alt.Tooltip("replacement_chars:Q", title="U+FFFD inserted")],
    )
    totals = base.mark_text(align="left", dx=4, fontSize=11, color="#333").encode(
        x="records_with_errors:Q", text="records_with_errors:Q").properties(name=TOTALS)
    return alt.layer(bars, totals).properties(width=_WIDTH)


def _heatmap(alt, rows, *, x: str, y: str, x_title: str, y_title: str, y_sort, x_sort):
    # The colour scale runs from 0 to the last count tick, as the count axes do: every tick the
    # legend labels lies on its gradient (a scale of the data's own extent drew the ticks outside
    # it, onto the legend's title, and a single value, 3, drew 1, 2 and 3 on one spot).
    ticks = count_ticks(max((r["records"] for r in rows), default=0))
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X(f"{x}:N", title=x_title, sort=x_sort, axis=alt.Axis(labelAngle=-40, orient="top")),
        y=alt.Y(f"{y}:N", title=y_title, sort=y_sort),
    )
    tooltip = [f"{y}:N", f"{x}:N"] + [f"{c}:Q" for c in rows[0] if c not in (x, y)]
    rects = base.mark_rect().encode(
        color=alt.Color("records:Q", title="records",
                        scale=alt.Scale(scheme="blues", domain=[0, ticks[-1]], nice=False, zero=True),
                        legend=alt.Legend(format="d", values=ticks[1:])),
        tooltip=tooltip,
    )
    text = base.mark_text(fontSize=11).encode(
        text="records:Q",
        color=alt.condition(f"datum.records > {ticks[-1] / 2}", alt.value("white"), alt.value("black")),
    ).properties(name=TOTALS)
    return (rects + text).properties(width={"step": 34}, height={"step": 20})


def _chart_tld(alt, rows):
    tlds = _by_records(rows, "tld")
    if "(other)" in tlds:  # the sum of the rest goes last
        tlds = [t for t in tlds if t != "(other)"] + ["(other)"]
    return _heatmap(alt, rows, x="encoding", y="tld", x_title="encoding", y_title="TLD",
                    y_sort=tlds, x_sort=_by_records(rows))


def _chart_languages(alt, rows):
    languages = _by_records(rows, "language")
    if "(other)" in languages:  # the sum of the rest goes last
        languages = [t for t in languages if t != "(other)"] + ["(other)"]
    return _heatmap(alt, rows, x="encoding", y="language", x_title="encoding", y_title="language",
                    y_sort=languages, x_sort=_by_records(rows))


def _chart_outcomes(alt, rows):
    present = [r["outcome"] for r in rows]
    top = max((r["inputs"] for r in rows), default=0)
    base = alt.Chart(alt.Data(values=rows)).encode(y=alt.Y("outcome:N", title=None, sort=list(_OUTCOME_COLORS)))
    bars = base.mark_bar().encode(
        x=_counts(alt, "inputs:Q", "inputs", top),
        color=alt.Color("outcome:N", scale=_scale(alt, _OUTCOME_COLORS, present), legend=None),
        tooltip=["outcome:N", "inputs:Q", alt.Tooltip("rows:Q", title="rows written")],
    )
    totals = base.mark_text(align="left", dx=4, fontSize=11, color="#333").encode(
        x="inputs:Q", text="inputs:Q").properties(name=TOTALS)
    return alt.layer(bars, totals).properties(width=_WIDTH)


def _chart_inputs(alt, rows):
    rows = [r for r in rows if not r["summed"]]  # (the inputs not drawn: the caption counts them)
    order = [r["input"] for r in rows]
    stacked = [dict(r, total=r["decoded"] + r["skipped"] + r["failed"]) for r in rows]
    top = max((r["total"] for r in stacked), default=0)
    base = alt.Chart(alt.Data(values=stacked))
    bars = base.transform_fold(
        ["decoded", "skipped", "failed"], as_=["status", "records"]
    ).mark_bar().encode(
        y=alt.Y("input:N", title=None, sort=order, axis=alt.Axis(labelLimit=320)),
        x=_counts(alt, "records:Q", "records", top),
        color=alt.Color("status:N", title="status", scale=_scale(alt, _STATUS_COLORS, list(_STATUS_COLORS)),
                        legend=alt.Legend(orient="bottom", direction="horizontal")),
        order=alt.Order("status:N", sort="ascending"),
        tooltip=["input:N", "outcome:N", "status:N", "records:Q"],
    )
    width = _WIDTH - 200
    totals = base.mark_text(align="left", dx=4, fontSize=11, color="#333").encode(
        y=alt.Y("input:N", sort=order), x=alt.X("total:Q"), text="total:Q",
    ).properties(name=TOTALS)
    # each input's outcome in a column right of the plot (the counts end the bars)
    marks = base.mark_text(align="left", fontSize=11).encode(
        y=alt.Y("input:N", sort=order),
        x=alt.value(width + 48),
        text="outcome:N",
        color=alt.Color("outcome:N", scale=_scale(alt, _OUTCOME_COLORS, [r["outcome"] for r in rows]),
                        legend=None),
        tooltip=["input:N", "outcome:N", "error_offset:Q", "error:N"],
    )
    return alt.layer(bars, totals, marks).resolve_scale(color="independent").properties(width=width)


def _chart_diff_categories(alt, rows):
    present = [c for c in CHANGED_CATEGORIES if any(r["category"] == c for r in rows)]
    top = max(_totals(rows, "category").values(), default=0)
    base = alt.Chart(alt.Data(values=rows))
    bars = base.mark_bar().encode(
        y=alt.Y("category:N", title=None, sort=present),
        x=_counts(alt, "sum(records):Q", "records", top),
        color=alt.Color("kind:N", title="kind", scale=_scale(alt, _KIND_COLORS, [r["kind"] for r in rows])),
        tooltip=["category:N", "kind:N", "records:Q"],
    )
    totals = base.mark_text(align="left", dx=4, fontSize=11, color="#333").encode(
        y=alt.Y("category:N", sort=present), x="sum(records):Q", text="sum(records):Q",
    ).properties(name=TOTALS)
    return alt.layer(bars, totals).properties(width=_WIDTH)


def _chart_diff_transitions(alt, rows):
    return _heatmap(alt, rows, x="new_encoding", y="old_encoding", x_title="new encoding",
                    y_title="old encoding", y_sort=_by_records(rows, "old_encoding"),
                    x_sort=_by_records(rows, "new_encoding"))


_BUILDERS = {
    "status": _chart_status,
    "encodings": _chart_encodings,
    "detector": _chart_detector,
    "overrides": _chart_overrides,
    "errors": _chart_errors,
    "errors_by_encoding": _chart_errors_by_encoding,
    "tld": _chart_tld,
    "languages": _chart_languages,
    "outcomes": _chart_outcomes,
    "inputs": _chart_inputs,
    "diff_categories": _chart_diff_categories,
    "diff_transitions": _chart_diff_transitions,
}


# --------------------------------------------------------------------------------------------
# Captions: a chart's numbers in words, summed over the rows the chart draws (the same Result)


@dataclass(frozen=True, slots=True)
class Caption:
    """A chart's caption: ``total``, the number the chart's count labels (the :data:`TOTALS`
    layers) add up to, and the words that follow it (plain text)."""

    total: int
    text: str


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def _listed(totals: dict, order: Sequence[str] | None = None) -> str:
    keys = list(order) if order is not None else sorted(totals, key=lambda k: (-totals[k], str(k)))
    return ", ".join(f"{totals[k]:,} {visible(k)}" for k in keys if k in totals)


def _caption_status(rows) -> Caption:
    by = _totals(rows, "status")
    total = sum(by.values())
    order = [s for s in _STATUS_COLORS if s in by] + sorted(set(by) - set(_STATUS_COLORS))
    return Caption(total, f"{'record' if total == 1 else 'records'}: {_listed(by, order)}.")


def _caption_encodings(rows) -> Caption:
    total = sum(r["records"] for r in rows)
    return Caption(total, f"decoded {'record' if total == 1 else 'records'} in "
                          f"{_n(len({r['encoding'] for r in rows}), 'encoding')}, chosen by "
                          f"{_n(len({r['source'] for r in rows}), 'deciding step')}.")


def _caption_detector(rows) -> Caption:
    total = sum(r["records"] for r in rows)
    with_errors = sum(r["records_with_errors"] or 0 for r in rows)
    return Caption(total, f"{'record' if total == 1 else 'records'} decided by the detector, in "
                          f"{_n(len({r['encoding'] for r in rows}), 'encoding')}; "
                          f"{with_errors:,} of them with U+FFFD.")


def _caption_overrides(rows) -> Caption:
    total = sum(r["records"] for r in rows)
    return Caption(total, f"decoded {'record' if total == 1 else 'records'} by verdict: "
                          f"{_listed(_totals(rows, 'verdict'))}.")


def _caption_errors(rows) -> Caption:
    total = sum(r["records"] for r in rows)
    with_errors = sum(r["records"] for r in rows if r["errors"] not in ("0", "unknown"))
    chars = sum(r["replacement_chars"] or 0 for r in rows)
    return Caption(total, f"decoded {'record' if total == 1 else 'records'}, {with_errors:,} of them "
                          f"with U+FFFD ({chars:,} U+FFFD in all).")


def _caption_errors_by_encoding(rows) -> Caption:
    total = sum(r["records_with_errors"] for r in rows)
    chars = sum(r["replacement_chars"] or 0 for r in rows)
    return Caption(total, f"{'record' if total == 1 else 'records'} with U+FFFD, in "
                          f"{_n(len(rows), 'encoding')} ({chars:,} U+FFFD inserted in all).")


def _caption_tld(rows) -> Caption:
    total = sum(r["records"] for r in rows)
    return Caption(total, f"decoded {'record' if total == 1 else 'records'}: "
                          f"{_n(len({r['tld'] for r in rows}), 'top-level domain row')} x "
                          f"{_n(len({r['encoding'] for r in rows}), 'encoding')}.")


def _caption_languages(rows) -> Caption:
    total = sum(r["records"] for r in rows)
    return Caption(total, f"decoded {'record' if total == 1 else 'records'}: "
                          f"{_n(len({r['language'] for r in rows}), 'language row')} x "
                          f"{_n(len({r['encoding'] for r in rows}), 'encoding')}.")


def _caption_outcomes(rows) -> Caption:
    by = _totals(rows, "outcome", "inputs")
    total = sum(by.values())
    order = [o for o in _OUTCOME_COLORS if o in by] + sorted(set(by) - set(_OUTCOME_COLORS))
    return Caption(total, f"{'input' if total == 1 else 'inputs'}: {_listed(by, order)}.")


def _caption_inputs(rows) -> Caption:
    drawn = [r for r in rows if not r["summed"]]
    total = sum(r["decoded"] + r["skipped"] + r["failed"] for r in drawn)
    text = f"{'record' if total == 1 else 'records'} in {_n(len(drawn), 'input')}"
    for r in rows:
        if r["summed"]:
            held = r["decoded"] + r["skipped"] + r["failed"]
            what = "of several outcomes" if r["outcome"] == "(several)" else f"all {visible(r['outcome'])}"
            text = (f"{text} drawn (those not read to the end first, then by path); the other "
                    f"{_n(r['inputs'], 'input')} ({what}, {_n(held, 'record')}) are not drawn: the data's "
                    "last row sums them")
    return Caption(total, text + ".")


def _caption_diff_categories(rows) -> Caption:
    total = sum(r["records"] for r in rows)
    return Caption(total, f"changed {'record' if total == 1 else 'records'}: "
                          f"{_listed(_totals(rows, 'kind'), [k for k in _KIND_COLORS])}.")


def _caption_diff_transitions(rows) -> Caption:
    total = sum(r["records"] for r in rows)
    fixed = sum(r["mojibake_fixed"] or 0 for r in rows)
    return Caption(total, f"{'record' if total == 1 else 'records'} with another encoding in the new "
                          f"decode, {fixed:,} of them mojibake fixed.")


#: A chart's caption from its rows (sections without one have none).
_CAPTIONS = {
    "status": _caption_status,
    "encodings": _caption_encodings,
    "detector": _caption_detector,
    "overrides": _caption_overrides,
    "errors": _caption_errors,
    "errors_by_encoding": _caption_errors_by_encoding,
    "tld": _caption_tld,
    "languages": _caption_languages,
    "outcomes": _caption_outcomes,
    "inputs": _caption_inputs,
    "diff_categories": _caption_diff_categories,
    "diff_transitions": _caption_diff_transitions,
}


def caption(section: Section, result: Result) -> Caption | None:
    """The caption of *section*'s chart: its numbers summed over *result*, the rows the chart
    draws (one query for both), or None for a section without rows or without a caption."""
    fn = _CAPTIONS.get(section.key)
    if fn is None or not result.rows:
        return None
    return fn([dict(zip(result.columns, row)) for row in result.rows])


#: What a section with no rows says instead of a chart.
_EMPTY = {
    "status": "No records.",
    "failed": "No record failed or was cut short.",
    "encodings": "No decoded records.",
    "detector": "No decision came from the detector.",
    "overrides": "The rules checked no record against the browser's choice, and every decoded record "
                 "has the encoding a browser would use (or the parts predate the browser_encoding "
                 "column).",
    "errors": "No decoded records.",
    "errors_by_encoding": "No decoder inserted a U+FFFD.",
    "tld": "No decoded records.",
    "languages": "No record has a language: the runs were made without run --language (or before "
                 "schema 1.5, which added the column).",
    "review": "No decision to review: the rules were sure of every one (or checked none).",
    "outcomes": f"No inputs (or no {MANIFEST_NAME}).",
    "inputs": f"No inputs (or no {MANIFEST_NAME}).",
    "diff_categories": "No record changed.",
    "diff_transitions": "No record changed its encoding.",
}


# --------------------------------------------------------------------------------------------
# HTML


def visible(text) -> str:
    """*text* (None: empty) as :func:`redecode.query.visible` shows it: every character that is not
    printable text (controls, format characters such as bidi overrides, the line and paragraph
    separators, lone surrogates) written as a Python-style escape (``\\n``, ``\\x00``,
    ``\\u202e``), so that none of them can change how the page reads; the space separators
    (U+3000, U+00A0) as they are. Not HTML-escaped: see :func:`_esc`."""
    return _visible("" if text is None else str(text))


def _cut(text: str, limit: int = MAX_CELL) -> str:
    """*text* cut in the middle to *limit* characters, marked with '…' (keeps a path's file name)."""
    if len(text) <= limit:
        return text
    head = (limit - 1) * 2 // 3
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


def _esc(value, limit: int | None = MAX_CELL) -> str:
    """A cell's value as HTML: made visible (:func:`visible`), cut to *limit*, escaped; a cut value
    keeps its full text as the ``title`` tooltip."""
    if value is None:
        return '<span class="null">NULL</span>'
    if isinstance(value, float):
        value = f"{value:.4g}"
    elif isinstance(value, (list, tuple)):
        value = "[" + ", ".join("NULL" if v is None else str(v) for v in value) + "]"
    text = visible(value)
    if limit is not None and len(text) > limit:
        return f'<span title="{html.escape(text)}">{html.escape(_cut(text, limit))}</span>'
    return html.escape(text)


def _script_json(value) -> str:
    """*value* as JSON that is safe inside a ``<script>`` element: ``<``, ``>``, ``&`` (and the JS
    line separators) escaped as ``\\uXXXX``, non-ASCII as escapes too (lone surrogates included)."""
    text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _table(result: Result) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in result.columns)
    body = "".join(
        "<tr>" + "".join(
            f'<td class="num">{_esc(v)}</td>' if isinstance(v, (int, float)) and not isinstance(v, bool)
            else f"<td>{_esc(v)}</td>" for v in row) + "</tr>"
        for row in result.rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _excerpt(text, offset, before: int) -> str:
    """An excerpt (HTML) with the first differing character marked; *before*: characters of the
    excerpt before that character."""
    if text is None:
        return '<span class="null">(no text)</span>'
    if offset is None:
        return _esc(text, None)
    at = min(offset, before)
    head, ch, tail = text[:at], text[at:at + 1], text[at + 1:]
    mark = f"<mark>{_esc(ch, None)}</mark>" if ch else '<mark class="end">(end)</mark>'
    return f"{_esc(head, None)}{mark}{_esc(tail, None)}"


def _examples(info: DiffInfo) -> str:
    if not info.examples:
        return '<p class="empty">No changed record.</p>'
    rows = []
    for e in info.examples:
        def side(p):
            what = [visible(e[f"{p}_status"] or "absent")]
            if e[f"{p}_reason"]:
                what.append(visible(e[f"{p}_reason"]))
            if e[f"{p}_encoding"] or e[f"{p}_source"]:
                what.append(f"{visible(e[f'{p}_encoding'] or '?')} ({visible(e[f'{p}_source'] or '?')})")
            if e[f"{p}_decode_errors"]:
                what.append(f"{e[f'{p}_decode_errors']} U+FFFD")
            return html.escape(", ".join(what))

        verdict = ""
        if e["mojibake_fixed"]:
            verdict = f'<span class="fixed">mojibake fixed ({html.escape(str(e["mojibake_check"]))})</span>'
        elif e["category"] == "encoding-changed" and e["text_equal"]:
            verdict = '<span class="same">same text</span>'
        where = f"{visible(e['warc_path'])} @ {e['warc_offset']}"
        rows.append(
            "<tr>"
            f"<td>{html.escape(e['category'])}<br>{verdict}</td>"
            f"<td class=\"uri\">{_esc(e['target_uri'], 90)}<br><small>{_esc(where, 90)}</small></td>"
            f"<td><small>{side('old')}</small><div class=\"ex\">"
            f"{_excerpt(e['old_excerpt'], e['diff_offset'], EXCERPT_BEFORE)}</div></td>"
            f"<td><small>{side('new')}</small><div class=\"ex\">"
            f"{_excerpt(e['new_excerpt'], e['diff_offset'], EXCERPT_BEFORE)}</div></td>"
            "</tr>"
        )
    return (
        '<table class="examples"><thead><tr><th>category</th><th>record</th><th>old</th>'
        f"<th>new</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:1080px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:17px;margin:0 0 4px}
section{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:14px 18px;margin:14px 0}
p.q{color:#555;margin:0 0 10px}p.empty{color:#777;font-style:italic}
.meta{color:#555}.kpi{display:flex;gap:12px;flex-wrap:wrap;margin:10px 0}
.kpi div{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:6px 12px}
.kpi b{display:block;font-size:20px}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0}
th,td{border-bottom:1px solid #eee;padding:3px 8px;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.null{color:#aaa}details{margin-top:6px}summary{cursor:pointer;color:#555}
nav a{margin-right:10px}
table.examples{table-layout:fixed;width:100%}
table.examples td:nth-child(1){width:13%}table.examples td:nth-child(2){width:21%}
td.uri{overflow-wrap:anywhere}
.ex{font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere;
background:#f6f6f6;padding:4px 6px;border-radius:4px;margin-top:3px}
mark{background:#ffd54f}mark.end{background:#eee;color:#777}
.fixed{color:#2e7d32;font-size:12px}.same{color:#1565c0;font-size:12px}
.chart{min-height:40px}
p.caption{margin:0 0 8px}p.caption b.total{font-size:15px}
pre.cmd{background:#f6f6f6;border:1px solid #e3e3e3;border-radius:4px;padding:6px 8px;margin:4px 0 8px;
white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}
table.records{table-layout:fixed;width:100%}table.records td{overflow-wrap:anywhere}
table.records th:nth-child(1){width:28%}table.records th:nth-child(2){width:24%}
table.records th:nth-child(3){width:9%}table.records th:nth-child(4){width:11%}
table.records th{overflow-wrap:anywhere}
#review table.records th:nth-child(1){width:18%}#review table.records th:nth-child(2){width:13%}
#review table.records th:nth-child(3){width:8%}#review table.records th:nth-child(4){width:10%}
#review table.records th:nth-child(5){width:9%}#review table.records th:nth-child(6){width:8%}
#review table.records th:nth-child(7){width:34%}
tr.readings td{padding:2px 8px 10px}div.sides{display:flex;gap:8px}
.reading{flex:1 1 0;min-width:0}.reading small{color:#555}.reading .ex{margin-top:2px}
p.unread{color:#777;font-style:italic;margin:0}
p.note{background:#fff8e1;border:1px solid #f0d080;border-radius:6px;padding:8px 12px}
"""

# Draws every chart: the specs are JSON in <script type="application/json" class="vl-spec">
# elements; a chart's container gets data-rendered="ok" (or "error") when Vega-Embed is done.
_EMBED_JS = """
(function () {
  "use strict";
  var options = {renderer: "svg",
                 actions: {export: true, source: false, compiled: false, editor: false}};
  var drawn = [];
  document.querySelectorAll("script.vl-spec").forEach(function (node) {
    var target = document.getElementById(node.getAttribute("data-target"));
    drawn.push(vegaEmbed(target, JSON.parse(node.textContent), options).then(function () {
      target.setAttribute("data-rendered", "ok");
    }).catch(function (err) {
      target.setAttribute("data-rendered", "error");
      target.textContent = "This chart could not be drawn: " + err;
      console.error(err);
    }));
  });
  Promise.allSettled(drawn).then(checkFonts);

  // Characters this machine has no font for are drawn as the font's empty box (.notdef), the same
  // box as a code point no font has (U+0378, unassigned): when a character of the page draws
  // exactly that box, the note under the header says which characters and what to install.
  function checkFonts() {
    var note = document.getElementById("font-note");
    var seen = new Set(), chars = [];
    document.querySelectorAll(".ex, td, svg text").forEach(function (e) {
      for (var ch of e.textContent) {
        if (ch.codePointAt(0) > 0x2ff && /\\S/u.test(ch) && !seen.has(ch)) { seen.add(ch); chars.push(ch); }
      }
    });
    var missing = [];
    if (chars.length) {
      var canvas = document.createElement("canvas");
      canvas.width = canvas.height = 48;
      var ctx = canvas.getContext("2d", {willReadFrequently: true});
      var family = getComputedStyle(document.querySelector(".ex") || document.body).fontFamily;
      var draw = function (ch) {
        ctx.clearRect(0, 0, 48, 48);
        ctx.font = "28px " + family;
        ctx.textBaseline = "top";
        ctx.fillText(ch, 6, 6);
        return ctx.getImageData(0, 0, 48, 48).data.join(",");
      };
      var box = draw("\\u0378");
      missing = chars.filter(function (ch) { return draw(ch) === box; });
    }
    note.setAttribute("data-checked", String(chars.length));
    note.setAttribute("data-missing", String(missing.length));
    if (!missing.length) return;
    var scripts = [["Han", "Han (Chinese, Japanese, Korean)", "cjk"], ["Hiragana", "Hiragana", "cjk"],
      ["Katakana", "Katakana", "cjk"], ["Hangul", "Hangul", "cjk"], ["Bopomofo", "Bopomofo", "cjk"],
      ["Thai", "Thai"], ["Arabic", "Arabic"], ["Hebrew", "Hebrew"], ["Devanagari", "Devanagari"],
      ["Bengali", "Bengali"], ["Tamil", "Tamil"], ["Georgian", "Georgian"], ["Armenian", "Armenian"],
      ["Ethiopic", "Ethiopic"], ["Khmer", "Khmer"], ["Myanmar", "Myanmar"]];
    var named = [], cjk = false, other = false;
    missing.forEach(function (ch) {
      // (Script_Extensions: CJK punctuation such as U+3001 belongs to Han, Hiragana... too)
      var hit = scripts.find(function (s) {
        return new RegExp("\\\\p{Script_Extensions=" + s[0] + "}", "u").test(ch);
      });
      var wide = /[\\u3000-\\u303f\\uff00-\\uffef]/u.test(ch);  // CJK punctuation, full/half-width forms
      if (hit) { if (named.indexOf(hit[1]) < 0) named.push(hit[1]); if (hit[2]) cjk = true; else other = true; }
      else if (wide) { cjk = true; }
      else { other = true; }
    });
    var fonts = [];
    if (cjk) fonts.push("fonts-noto-cjk");
    if (other) fonts.push("fonts-noto-core");
    note.querySelector(".n").textContent = String(missing.length);
    note.querySelector(".chars").textContent = missing.slice(0, 12).join(" ") + (missing.length > 12 ? " \\u2026" : "");
    note.querySelector(".scripts").textContent = named.length ? " (" + named.join(", ") + ")" : "";
    note.querySelector(".fonts").textContent = fonts.join(" ");
    note.hidden = false;
  }
})();
"""

# No fetch of any kind: Vega compiles its expressions with Function() (hence 'unsafe-eval');
# vega-embed adds a <style>; its "Save as PNG/SVG" makes data: and blob: URLs.
_CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
        "img-src data: blob:")


def query_line(sql: str, runs: Sequence[str]) -> str:
    """The ``redecode query`` command line that runs *sql* over *runs* (the first as DIRECTORY,
    the others as ``--run``) and shows every value whole (``--expanded``: each row as ``column
    value`` lines, wrapped at the terminal's width, never cut), each path quoted for a POSIX shell,
    the SQL in double quotes (it holds none of the characters a shell treats specially there:
    checked)."""
    if any(c in sql for c in '"$`\\!'):
        raise ValueError(f"SQL with a character special in double quotes: {sql!r}")
    first, *more = runs
    return " ".join(["redecode", "query", shlex.quote(first), *(f"--run {shlex.quote(r)}" for r in more),
                     "--expanded", f'"{sql}"'])


def _caption_html(section: Section, result: Result) -> str:
    c = caption(section, result)
    if c is None:
        return ""
    return (f'<p class="caption" data-total="{c.total}"><b class="total">{c.total:,}</b> '
            f"{html.escape(c.text)}</p>")


#: What a records section's query line shows whole that its table may cut.
_WHOLE = {"failed": "error", "review": "validation"}


def _records_html(section: Section, result: Result, runs: Sequence[str], texts: Sequence = ()) -> str:
    """A ``records`` section: how many, the ``redecode query`` line that lists them all, and the
    first :data:`MAX_RECORDS_LISTED` as a table; *texts*: for each row, its texts under the
    competing readings (:class:`redecode.review.ReviewTexts`), shown in a row under it."""
    parts = [f'<section id="{section.key}" data-records="{section.key}"><h2>{html.escape(section.title)}</h2>',
             f'<p class="q">{html.escape(section.question)}</p>']
    if not result.rows:
        parts.append(f'<p class="empty">{html.escape(_EMPTY[section.key])}</p></section>')
        return "".join(parts)
    at = result.columns.index("records")
    total = int(result.rows[0][at])
    shown = len(result.rows)
    which = (f"all {shown:,} listed below" if shown == total
             else f"the first {shown:,} listed below, by input and offset")
    parts.append(f'<p class="caption" data-total="{total}"><b class="total">{total:,}</b> '
                 f"{'record' if total == 1 else 'records'} ({which}). Every one of them, with the "
                 f"whole {_WHOLE.get(section.key, 'row')}, in a terminal:</p>")
    parts.append(f'<pre class="cmd"><code>{html.escape(query_line(section.query or "", runs))}</code></pre>')
    columns = [c for c in result.columns if c != "records"]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        '<tr class="record">' + "".join(
            f'<td class="num">{_esc(v)}</td>' if isinstance(v, int) and not isinstance(v, bool)
            else f"<td>{_esc(v)}</td>" for c, v in zip(result.columns, row) if c != "records") + "</tr>"
        + (_readings_html(texts[i], len(columns)) if i < len(texts) else "")
        for i, row in enumerate(result.rows))
    parts.append(f'<table class="records"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')
    parts.append("</section>")
    return "".join(parts)


def _readings_html(texts, span: int) -> str:
    """The row under a record listed for review: its text under each competing reading, side by
    side (:class:`redecode.review.ReviewTexts`), or why there is none."""
    if texts.error is not None:
        inner = f'<p class="unread">No text: {_esc(texts.error, 300)}</p>'
    else:
        boxes = []
        for r in texts.readings:
            role = {"chosen": "chosen", "whole": "read whole", "browser": "the browser's"}.get(r.role, "weighed")
            what = [f"<b>{_esc(r.name, 40)}</b> ({role}{', in parts' if r.in_parts else ''})"]
            if r.errors:
                what.append(f"{r.errors:,} U+FFFD")
            if r.note:
                what.append(_esc(r.note, 120))
            if r.excerpt is None:
                ex = '<span class="null">(no text)</span>'
            else:
                ex = ("…" if r.at > 0 else "") + _excerpt(r.excerpt, r.mark, r.mark or 0)
            boxes.append(f'<div class="reading" data-encoding="{html.escape(r.name)}" '
                         f'data-role="{html.escape(r.role)}"><small>{", ".join(what)}</small>'
                         f'<div class="ex">{ex}</div></div>')
        inner = f'<div class="sides">{"".join(boxes)}</div>'
    return f'<tr class="readings"><td colspan="{span}">{inner}</td></tr>'


def _section_html(alt, section: Section, result: Result, runs: Sequence[str] = (),
                  texts: Sequence = ()) -> str:
    if section.kind == "records":
        return _records_html(section, result, runs, texts)
    parts = [f'<section id="{section.key}"><h2>{html.escape(section.title)}</h2>',
             f'<p class="q">{html.escape(section.question)}</p>']
    if result.rows:
        spec = _BUILDERS[section.key](alt, _values(result)).to_dict()
        parts.append(_caption_html(section, result))
        parts.append(f'<div class="chart" id="chart-{section.key}" data-chart="{section.key}"></div>')
        parts.append(f'<script type="application/json" class="vl-spec" data-target="chart-{section.key}">'
                     f"{_script_json(spec)}</script>")
        n = len(result.rows)
        parts.append(f"<details><summary>Data ({n} row{'' if n == 1 else 's'})</summary>"
                     f"{_table(result)}</details>")
    else:
        parts.append(f'<p class="empty">{html.escape(_EMPTY[section.key])}</p>')
    parts.append("</section>")
    return "".join(parts)


#: Shown (by the page's script) when characters of the page have no font on the machine.
_FONT_NOTE = (
    '<p id="font-note" class="note" hidden><b class="n"></b> characters on this page have no font on '
    'this machine and show as empty boxes: <span class="chars"></span><span class="scripts"></span>. '
    "The text in the run is intact (<code>redecode query</code> prints it); install a font for them "
    "(Debian and Ubuntu: <code>apt-get install <span class=\"fonts\"></span></code>) and reload "
    "the page.</p>"
)


def _runs_html(data: ReportData) -> str:
    rows = []
    for r in data.runs:
        rows.append(
            f"<tr><td>{_esc(r.path)}</td><td>{_esc(r.rules)}</td>"
            f"<td><code>{_esc((r.rules_digest or '')[:12] or None)}</code></td>"
            f"<td class=\"num\">{'no ' + MANIFEST_NAME if r.inputs is None else r.inputs}</td>"
            f"<td class=\"num\">{r.parts}</td><td>{_esc(r.finished_at)}</td></tr>"
        )
    return ("<table><thead><tr><th>run</th><th>rules</th><th>digest</th><th>inputs</th>"
            f"<th>parts</th><th>finished</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _diff_html(alt, data: ReportData) -> str:
    info = data.diff
    assert info is not None
    head = (f'<section id="diff"><h2>Diff: {_esc(info.old)} &rarr; {_esc(info.new)}</h2>'
            f'<p class="q">{_esc(info.path)}: {info.records} records compared, {info.changed} changed '
            f"({info.label_only} of them only in the encoding label, with the same text), "
            f"{info.mojibake_fixed} mojibake fixed.</p>")
    cats = "".join(f"<div>{html.escape(c)}<b>{n}</b></div>" for c, n in info.categories.items())
    head += f'<div class="kpi">{cats}</div>'
    if info.input_errors:
        items = "".join(f"<li>{_esc(e.get('path'))}: {_esc(e.get('error'), 400)}</li>"
                        for e in info.input_errors)
        head += f"<p>{html.escape(input_errors_line(info.input_errors))}:</p><ul>{items}</ul>"
    head += "</section>"
    body = "".join(_section_html(alt, s, data.sections[s.key], [r.path for r in data.runs])
                   for s in DIFF_SECTIONS)
    ex = ('<section id="diff_examples"><h2>Changed records, old and new text side by side</h2>'
          '<p class="q">The first changed records of each category (mojibake fixes first); the '
          f"excerpts start up to {EXCERPT_BEFORE} characters before the first difference (marked) "
          f"and run up to {EXCERPT_AFTER} characters from it; a record with text on one side only "
          "shows the start of that text, (no text) a side without; characters that are not printable "
          "are shown as escapes.</p>"
          f"{_examples(info)}</section>")
    return head + body + ex


def render_html(data: ReportData) -> str:
    """The report page (one HTML document, UTF-8) for *data*.

    Raises :class:`ImportError` (with :data:`EXTRA_HINT`) when Altair or vl-convert-python is
    missing.
    """
    alt = _altair()
    bundle = _vega_bundle(alt)
    title = "redecode report: " + ", ".join(visible(r.path) for r in data.runs)
    c = data.counts
    inputs = sum(r.inputs or 0 for r in data.runs)
    kpis = "".join(
        f"<div>{label}<b>{value}</b></div>"
        for label, value in (("records", data.records), ("decoded", c.get("decoded", 0)),
                             ("skipped", c.get("skipped", 0)), ("failed", c.get("failed", 0)),
                             ("inputs", inputs))
    )
    sections = [s for s in RUN_SECTIONS]
    nav = "".join(f'<a href="#{s.key}">{html.escape(s.title.split(":")[0])}</a>' for s in sections)
    if data.diff is not None:
        nav += '<a href="#diff">Diff</a>'
    runs = [r.path for r in data.runs]
    body = "".join(_section_html(alt, s, data.sections[s.key], runs, data.review if s.key == "review" else ())
                   for s in sections)
    if data.diff is not None:
        body += _diff_html(alt, data)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(_cut(title, 200))}</title><style>{_CSS}</style>"
        f"<script>/* Vega, Vega-Lite and Vega-Embed for Vega-Lite {html.escape(alt.SCHEMA_VERSION)} "
        f"(inlined from vl-convert-python) */\n{bundle}\n</script></head><body><main>"
        f"<h1>warc-redecode report</h1>"
        f'<p class="meta">Made {html.escape(data.created_at)} by warc-redecode {html.escape(__version__)} '
        "from the provenance columns (never the text column; the records listed for review are read "
        "again from their archives). Hover a mark for its numbers; each chart's "
        "data is in the table under it.</p>"
        f"{_runs_html(data)}<div class=\"kpi\">{kpis}</div><nav>{nav}</nav>{_FONT_NOTE}"
        f"{body}</main><script>{_EMBED_JS}</script></body></html>\n"
    )


def _check_output(output: str) -> str:
    output = storage.local_path(output)
    if storage.is_remote(output):
        return output
    if os.path.isdir(output):
        raise ReportError(f"-o {output}: is a directory; name the HTML file to write")
    parent = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(parent):
        raise ReportError(f"-o {output}: no such directory {parent}")
    return output


def write_report(runs: Sequence[str] | str, output: str, *, diff: str | None = None,
                 examples: int = 5) -> ReportData:
    """Collect the data (:func:`collect`), render the page (:func:`render_html`) and write it to
    *output*: a local file (written under a temporary name, then renamed) or a URL (one upload,
    :func:`redecode.storage.write_bytes`). *runs* and *diff* may be URLs too.

    Raises what :func:`collect` and :func:`render_html` raise, :class:`ReportError` for an
    *output* that is a directory or in a directory that does not exist (checked first), and
    :class:`redecode.storage.OutputError` when the operating system refuses to write it (nothing is
    left under its name or a temporary one).
    """
    output = _check_output(output)
    data = collect(runs, diff=diff, examples=examples)
    page = render_html(data)
    if storage.is_remote(output):
        storage.write_bytes(output, page.encode("utf-8"))
        return data
    tmp = os.path.join(os.path.dirname(os.path.abspath(output)), f".tmp-{os.path.basename(output)}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, output)
    except OSError as exc:  # disk full, quota...: the command's exit 4 (redecode.storage.OutputError)
        raise storage.output_error(exc, output) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return data
