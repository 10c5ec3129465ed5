"""Compare two decodes of the same records: what a rule change changes, and whether it is a fix.

The only modules that import :mod:`duckdb` are this one and :mod:`redecode.query`; ftfy is used
through :mod:`redecode.mojibake`.

Three forms, one result (a diff table with :data:`DIFF_SCHEMA` and a :class:`DiffSummary`):

- :func:`diff_runs` (``redecode diff OLD NEW``): two run directories (or single parts) of
  ``redecode run``. Records are matched on (``warc_path``, ``warc_offset``); records left unmatched
  on both sides are then matched on ``record_id`` (the same archive read from another path).
- :func:`diff_runs` with ``external=ExternalOld(...)`` (``--old-key`` / ``--old-text``): OLD is any
  Parquet with a record key and a text column (for example text a ``requests`` pipeline stored);
  only status (text present or not) and text can be compared, encodings are unknown.
- :func:`diff_rules` (``redecode diff --rules A --rules B INPUT...``): both rule sets over the same
  archives in one pass: each record is read once and turned into a row by each rule set; no run
  output is written.

Each record falls in exactly one category (:data:`CATEGORIES`), checked in this order:
``only-old`` / ``only-new`` (no match); ``status-changed`` (``status``, ``skip_reason`` or
``error_kind`` differ); ``encoding-changed`` (both decoded, other ``encoding``; the text may or may
not differ, see ``text_equal``); ``text-changed`` (same encoding, other text: a decoder change);
``unchanged``.

A changed record with text on one side only (``status-changed``: decoded on one side, failed or
skipped on the other; ``only-old``, ``only-new``) has that side's excerpt: the first
:data:`EXCERPT_START` characters of its text (``diff_offset`` null: nothing to compare); the other
side's is null.

For records whose text changed, :func:`compare_texts` gives the first differing character
(``diff_offset``, in characters), an excerpt of each side around it, and ``mojibake_fixed``: the old
text was mojibake of the new one, because either re-encoding the old text with the old codec and
decoding the bytes with the new decoder gives the new text (``mojibake_check = 'reencode'``) and
the old text looks worse (ftfy's ``badness`` higher, or more U+FFFD and C1 controls: two readings
of the same bytes are always each other's re-encoding, so the check alone cannot tell a fix from
damage), or ``ftfy`` repairs the old text into the new one (``'ftfy'``). A re-encoding that does
not look better is ``mojibake_check = 'reinterpreted'`` and not counted as fixed.

Deviations: none from the issue. The "old codec" of a row decoded by a WHATWG decoder is the closest
Python codec of its WHATWG encoding (:data:`PYTHON_CODECS`); re-encoding maps U+0080..U+009F to the
single byte of the same value for the windows-125x/ISO-8859 codecs, as the WHATWG single-byte
decoders produce those code points for bytes Python's cp125x leave undefined.
"""

from __future__ import annotations

import codecs
import dataclasses
import datetime as _dt
import functools
import json
import logging
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

from . import mojibake, storage
from .dataclass_code import dataclass
from .query import (sql_string, check_part_versions, check_parts_present, load_run, parquet_source, reading_parts,
                    render_table, use_storage, wrap)
from .schema import COLUMNS, NoSchemaVersionError

if TYPE_CHECKING:
    from .rules import Rules

log = logging.getLogger(__name__)

__all__ = [
    "CATEGORIES",
    "CHANGED_CATEGORIES",
    "COMPARE",
    "DIFF_SCHEMA",
    "DIFF_FILE",
    "PYTHON_CODECS",
    "DiffError",
    "DiffSummary",
    "ExternalOld",
    "TextComparison",
    "compare_texts",
    "diff_runs",
    "diff_rules",
    "format_summary",
    "python_codec",
]

DIFF_VERSION = "1.1"  # 1.1: the excerpt of a side with text where the other has none

#: ``diff_runs(compare=...)`` -> the output column whose texts are compared.
COMPARE = {"text": "text", "normalized": "text_normalized"}
DIFF_FILE = "diff.parquet"
SUMMARY_FILE = "_diff.json"

CATEGORIES = ("unchanged", "encoding-changed", "text-changed", "status-changed", "only-old", "only-new")
CHANGED_CATEGORIES = CATEGORIES[1:]

#: Characters of context before / after the first differing character in an excerpt.
EXCERPT_BEFORE = 20
EXCERPT_AFTER = 40
#: Characters of a text shown where the other side has none: the start of the text.
EXCERPT_START = EXCERPT_BEFORE + EXCERPT_AFTER

DIFF_SCHEMA = pa.schema(
    [
        ("category", pa.string()),
        ("matched_on", pa.string()),  # 'offset', 'record_id', 'key' (external) or null (unmatched)
        ("warc_path", pa.string()),
        ("warc_offset", pa.int64()),
        ("record_id", pa.string()),
        ("target_uri", pa.string()),
        ("tld", pa.string()),
        ("old_status", pa.string()),
        ("new_status", pa.string()),
        ("old_reason", pa.string()),  # skip_reason or error_kind
        ("new_reason", pa.string()),
        ("old_encoding", pa.string()),
        ("new_encoding", pa.string()),
        ("old_source", pa.string()),
        ("new_source", pa.string()),
        ("old_decoder", pa.string()),
        ("new_decoder", pa.string()),
        ("old_decode_errors", pa.int64()),
        ("new_decode_errors", pa.int64()),
        ("old_rules", pa.string()),
        ("new_rules", pa.string()),
        ("text_equal", pa.bool_()),
        ("diff_offset", pa.int64()),  # characters
        ("old_excerpt", pa.string()),
        ("new_excerpt", pa.string()),
        ("mojibake_fixed", pa.bool_()),
        ("mojibake_check", pa.string()),  # 'reencode', 'reinterpreted', 'ftfy' or null
    ]
)

#: WHATWG encoding name -> the closest Python codec, for re-encoding text a WHATWG decoder produced.
#: None: no Python codec round-trips it (replacement, x-user-defined is handled separately).
PYTHON_CODECS: dict[str, str | None] = {
    "UTF-8": "utf-8",
    "IBM866": "cp866",
    "ISO-8859-2": "iso8859_2",
    "ISO-8859-3": "iso8859_3",
    "ISO-8859-4": "iso8859_4",
    "ISO-8859-5": "iso8859_5",
    "ISO-8859-6": "iso8859_6",
    "ISO-8859-7": "iso8859_7",
    "ISO-8859-8": "iso8859_8",
    "ISO-8859-8-I": "iso8859_8",
    "ISO-8859-10": "iso8859_10",
    "ISO-8859-13": "iso8859_13",
    "ISO-8859-14": "iso8859_14",
    "ISO-8859-15": "iso8859_15",
    "ISO-8859-16": "iso8859_16",
    "KOI8-R": "koi8_r",
    "KOI8-U": "koi8_u",
    "macintosh": "mac_roman",
    "windows-874": "cp874",
    "windows-1250": "cp1250",
    "windows-1251": "cp1251",
    "windows-1252": "cp1252",
    "windows-1253": "cp1253",
    "windows-1254": "cp1254",
    "windows-1255": "cp1255",
    "windows-1256": "cp1256",
    "windows-1257": "cp1257",
    "windows-1258": "cp1258",
    "x-mac-cyrillic": "mac_cyrillic",
    # The WHATWG GBK decoder is the gb18030 decoder (Encoding Standard, "GBK").
    "GBK": "gb18030",
    "gb18030": "gb18030",
    "Big5": "big5hkscs",
    "EUC-JP": "euc_jp",
    "ISO-2022-JP": "iso2022_jp",
    "Shift_JIS": "cp932",
    "EUC-KR": "cp949",
    "UTF-16BE": "utf-16-be",
    "UTF-16LE": "utf-16-le",
    "replacement": None,
    "x-user-defined": None,
}

#: Codecs tried for the re-encode check when the old side's codec is unknown (external Parquet):
#: what ``requests`` (ISO-8859-1 as latin-1) and most legacy pipelines used.
DEFAULT_OLD_CODECS = ("latin-1", "cp1252")

# Single-byte codecs whose undefined bytes the WHATWG decoders (and latin-1) map to U+0080..U+009F.
_C1_PASSTHROUGH = {"cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257",
                   "cp1258", "cp874"}


class DiffError(ValueError):
    """The diff cannot be made (bad input, unknown column or rules)."""


class MissingColumnsError(DiffError):
    """OLD (any Parquet) lacks a key or text column named by :class:`ExternalOld`."""


@dataclass(frozen=True, slots=True)
class ExternalOld:
    """OLD as any Parquet: ``path`` (a file, a glob or a directory of ``*.parquet``), ``text`` the
    column with the old text, ``key`` pairs (old column, new column) to match records on, ``codec``
    the Python codec the old pipeline decoded with (None: try :data:`DEFAULT_OLD_CODECS`)."""

    path: str
    key: tuple[tuple[str, str], ...] = (("record_id", "record_id"),)
    text: str = "text"
    codec: str | None = None


# --------------------------------------------------------------------------------------------
# Per-record text comparison


def python_codec(decoder: str | None, encoding: str | None) -> str | None:
    """The Python codec that produced a row's text: ``python:<codec>`` decoders name it; a WHATWG
    decoder maps its encoding through :data:`PYTHON_CODECS`. None when unknown."""
    if decoder and decoder.startswith("python:"):
        return decoder.split(":", 1)[1] or None
    if encoding is None:
        return None
    return PYTHON_CODECS.get(encoding)


def _normal_codec(codec: str) -> str:
    try:
        return codecs.lookup(codec).name
    except LookupError:
        return codec


def _reencode(text: str, codec: str) -> bytes | None:
    """*text* encoded with *codec*, or None when it has characters the codec cannot encode.

    For the windows-125x codecs, U+0080..U+009F become the byte of the same value: that is where
    the WHATWG decoders and Python's latin-1 put the bytes cp125x leaves undefined (0x81, 0x8D...).
    """
    name = _normal_codec(codec)
    try:
        return text.encode(name)
    except UnicodeEncodeError:
        if name not in _C1_PASSTHROUGH:
            return None
    except LookupError:
        return None
    out = bytearray()
    for ch in text:
        try:
            out += ch.encode(name)
        except UnicodeEncodeError:
            if 0x80 <= ord(ch) <= 0x9F:
                out.append(ord(ch))
            else:
                return None
    return bytes(out)


def _decode_with(data: bytes, decoder: str | None, encoding: str | None) -> str | None:
    """Decode *data* the way the new side did: its Python codec, or the WHATWG decoder."""
    if decoder and decoder.startswith("python:"):
        try:
            return data.decode(decoder.split(":", 1)[1], errors="replace")
        except LookupError:
            return None
    if encoding is None:
        return None
    try:  # the project's WHATWG decoder when present; the closest Python codec otherwise
        from .decode import decode as whatwg_decode  # noqa: PLC0415

        return whatwg_decode(data, encoding, bom_sniff=False).text
    except ImportError:
        pass
    except Exception:  # noqa: BLE001 - an unknown encoding name: fall back below
        pass
    codec = PYTHON_CODECS.get(encoding)
    if codec is None:
        return None
    return data.decode(codec, errors="replace")


def first_difference(a: str, b: str) -> int | None:
    """Index (characters) of the first character where *a* and *b* differ; None if equal."""
    if a == b:
        return None
    n = min(len(a), len(b))
    lo, step = 0, 4096
    while lo < n and a[lo : lo + step] == b[lo : lo + step]:
        lo += step
    for i in range(lo, min(lo + step, n)):
        if a[i] != b[i]:
            return i
    return n


@dataclass(frozen=True, slots=True)
class TextComparison:
    """How two texts differ: ``offset`` (characters), excerpts, and the mojibake verdict."""

    offset: int | None
    old_excerpt: str | None
    new_excerpt: str | None
    mojibake_fixed: bool
    mojibake_check: str | None


def compare_texts(
    old: str,
    new: str,
    *,
    old_codecs: Sequence[str],
    new_decoder: str | None,
    new_encoding: str | None,
) -> TextComparison:
    """Compare *old* and *new* text of one record.

    *old_codecs*: Python codecs the old text may have been decoded with (one for a run row, a few
    candidates for external text). The re-encode check runs first (cheap, exact); ftfy (full
    ``fix_text``, then encoding fixes only) runs when it fails.
    """
    offset = first_difference(old, new)
    if offset is None:
        return TextComparison(None, None, None, False, None)
    lo = max(0, offset - EXCERPT_BEFORE)
    old_ex = old[lo : offset + EXCERPT_AFTER]
    new_ex = new[lo : offset + EXCERPT_AFTER]
    for codec in old_codecs:
        data = _reencode(old, codec)
        if data is None:
            continue
        again = _decode_with(data, new_decoder, new_encoding)
        # The old decode kept a BOM as text (requests does); the new text never has one.
        if again is not None and (again == new or (again[:1] == "\ufeff" and again[1:] == new)):
            if _looks_worse(old, new):
                return TextComparison(offset, old_ex, new_ex, True, "reencode")
            return TextComparison(offset, old_ex, new_ex, False, "reinterpreted")
    try:
        # ftfy's full fix_text first, then its encoding fixes only (mojibake.ENCODING_FIXES): the
        # cosmetic fixes (curly quotes, widths, ligatures, line breaks, NFC) would change text a
        # correct decode also contains and hide a real fix.
        if mojibake.fix_text(old) == new or mojibake.fix_encoding(old) == new:
            return TextComparison(offset, old_ex, new_ex, True, "ftfy")
    except Exception:  # noqa: BLE001 - ftfy failing on odd text is "not shown to be mojibake"
        pass
    return TextComparison(offset, old_ex, new_ex, False, None)


_NOT_TEXT = re.compile("[\ufffd\x80-\x9f]")


def _looks_worse(old: str, new: str) -> bool:
    """Whether *old* looks more like mojibake than *new*: ftfy's ``badness`` (sequences that are
    typical of text decoded with the wrong codec) is higher, or it holds more U+FFFD and C1
    controls, or more case flips inside words of non-ASCII letters (a lower-case letter followed
    by an upper-case one: KOI8-R read as windows-1251, "рТЙЧЕФ", and back)."""
    try:
        if mojibake.badness(old) > mojibake.badness(new):
            return True
    except Exception:  # noqa: BLE001 - ftfy failing on odd text decides nothing
        pass
    bad_old, bad_new = len(_NOT_TEXT.findall(old)), len(_NOT_TEXT.findall(new))
    if bad_old != bad_new:
        return bad_old > bad_new
    return _case_flips(old) > _case_flips(new)


def _case_flips(text: str, limit: int = 4096) -> int:
    """Lower-case non-ASCII letters followed by an upper-case letter, in the first *limit*
    characters."""
    t = text[:limit]
    return sum(1 for a, b in zip(t, t[1:]) if a > "\x7f" and a.islower() and b.isupper())


# --------------------------------------------------------------------------------------------
# Summary


@dataclass(frozen=True, slots=True)
class DiffSummary:
    """Counts of a diff. ``categories`` has every category of :data:`CATEGORIES` (zeros included);
    the lists are rows as dicts, largest first; ``examples`` are up to N changed records."""

    old: str
    new: str
    records: int
    categories: dict[str, int]
    mojibake_fixed: int
    encoding_transitions: list[dict]
    by_source: list[dict]
    by_tld: list[dict]
    examples: list[dict]
    input_errors: list[dict] = field(default_factory=list)
    out: str | None = None
    #: ``encoding-changed`` records whose text is the same under both encodings (a label change
    #: only, e.g. an ASCII page now called windows-1252 instead of UTF-8)
    label_only: int = 0
    #: what the texts compared were: ``text``, or ``normalized`` (``text_normalized``)
    compare: str = "text"

    @property
    def changed(self) -> int:
        return sum(self.categories[c] for c in CHANGED_CATEGORIES)

    @property
    def text_changed(self) -> int:
        """Changed records whose text (or status, or presence) differs: :attr:`changed` minus
        :attr:`label_only`."""
        return self.changed - self.label_only

    def exit_code(self, *, check: bool, check_text: bool = False) -> int:
        """1 when an input could not be read to its end; with *check*, 3 when anything changed;
        with *check_text*, 3 when a text changed (label-only changes allowed); else 0."""
        if self.input_errors:
            return 1
        if (check and self.changed) or (check_text and self.text_changed):
            return 3
        return 0

    def to_json(self) -> dict:
        return {
            "old": self.old,
            "new": self.new,
            "records": self.records,
            "changed": self.changed,
            "label_only": self.label_only,
            "text_changed": self.text_changed,
            "categories": self.categories,
            "mojibake_fixed": self.mojibake_fixed,
            "encoding_transitions": self.encoding_transitions,
            "by_source": self.by_source,
            "by_tld": self.by_tld,
            "examples": self.examples,
            "input_errors": self.input_errors,
            "out": self.out,
            "compare": self.compare,
        }


def _dicts(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict]:
    rel = con.execute(sql)
    cols = [d[0] for d in rel.description]
    return [dict(zip(cols, row)) for row in rel.fetchall()]


def summarize(
    table: pa.Table, *, old: str, new: str, examples: int = 10, input_errors=(), out=None
) -> DiffSummary:
    """The :class:`DiffSummary` of a diff *table* (:data:`DIFF_SCHEMA`)."""
    con = duckdb.connect(":memory:")
    try:
        con.register("d", table)
        counts = dict(con.execute("SELECT category, count(*) FROM d GROUP BY ALL").fetchall())
        categories = {c: int(counts.get(c, 0)) for c in CATEGORIES}
        changed = "category <> 'unchanged'"
        mojibake = con.execute(f"SELECT count_if(mojibake_fixed) FROM d WHERE {changed}").fetchone()[0]
        label_only = con.execute(
            "SELECT count(*) FROM d WHERE category = 'encoding-changed' AND text_equal"
        ).fetchone()[0]
        transitions = _dicts(
            con,
            "SELECT old_encoding, new_encoding, count(*) AS records, "
            "count_if(mojibake_fixed) AS mojibake_fixed FROM d WHERE category = 'encoding-changed' "
            "GROUP BY ALL ORDER BY records DESC, old_encoding, new_encoding",
        )
        by_source = _dicts(
            con,
            "SELECT old_source, new_source, category, count(*) AS records FROM d "
            f"WHERE {changed} GROUP BY ALL "
            "ORDER BY records DESC, old_source NULLS FIRST, new_source NULLS FIRST, category",
        )
        by_tld = _dicts(
            con,
            "SELECT tld, count(*) AS records, count_if(category <> 'unchanged') AS changed, "
            "count_if(mojibake_fixed) AS mojibake_fixed FROM d GROUP BY ALL "
            "HAVING count_if(category <> 'unchanged') > 0 ORDER BY changed DESC, tld NULLS FIRST",
        )
        ex = _dicts(
            con,
            "SELECT category, target_uri, warc_path, warc_offset, old_encoding, new_encoding, "
            "old_source, new_source, old_decode_errors, new_decode_errors, mojibake_fixed, "
            "old_excerpt, new_excerpt FROM d "
            f"WHERE {changed} ORDER BY mojibake_fixed DESC, category, warc_path, warc_offset "
            f"LIMIT {int(examples)}",
        )
    finally:
        con.close()
    return DiffSummary(
        old=old,
        new=new,
        records=table.num_rows,
        categories=categories,
        mojibake_fixed=int(mojibake or 0),
        encoding_transitions=transitions,
        by_source=by_source,
        by_tld=by_tld,
        examples=ex,
        input_errors=list(input_errors),
        out=out,
        label_only=int(label_only or 0),
    )


def input_error_message(e: dict) -> str:
    """``path: error`` of an input error of a diff (``{"path", "error"}``), the path once."""
    path, error = str(e.get("path")), str(e.get("error"))
    return error if error.startswith(path) else f"{path}: {error}"


def input_errors_line(errors: Sequence[dict]) -> str:
    """What became of the inputs of *errors* (:attr:`DiffSummary.input_errors`), in the words of
    ``run``'s closing line: inputs that gave no record (not opened, not an archive), inputs cut
    short (the records before the error compared), damaged inputs (the records after the damaged
    stretches compared too)."""
    by = {"error": 0, "truncated": 0, "damaged": 0}
    for e in errors:
        by[e.get("outcome") if e.get("outcome") in by else "truncated"] += 1
    said = []
    if by["error"]:
        said.append(f"{by['error']} input(s) could not be read (no record came from them)")
    if by["truncated"]:
        said.append(f"{by['truncated']} input(s) could not be read to the end (the records read before "
                    "the error are compared)")
    if by["damaged"]:
        said.append(f"{by['damaged']} input(s) damaged (the stretches that held no readable record were "
                    "skipped, the records after them compared)")
    return "; ".join(said)


def format_summary(s: DiffSummary, *, width: int | None = None, expanded: bool = False) -> str:
    """The summary as plain-text tables (for stdout), no line wider than *width* characters
    (None: no limit, no cell cut; :func:`redecode.query.render_table` says how tables are fitted);
    *expanded*: the examples as ``column  value`` lines, every value whole (wrapped at *width*)."""
    compared = " (texts compared: text_normalized)" if s.compare == "normalized" else ""
    out = [wrap(f"diff {s.old} -> {s.new}{compared}: {s.records} records, {s.changed} changed "
                f"({s.label_only} of them only in the encoding label, with the same text), "
                f"{s.mojibake_fixed} mojibake fixed", width)]
    out.append(render_table(("category", "records"), list(s.categories.items()), width=width))

    def table(title, rows, cols, cut_at_end=(), expand=False):
        out.append(wrap(f"== {title} ==", width) + "\n"
                   + render_table(cols, [tuple(r[c] for c in cols) for r in rows], width=width,
                                  cut_at_end=cut_at_end, expanded=expand))

    table("Encoding transitions (old -> new)", s.encoding_transitions,
          ("old_encoding", "new_encoding", "records", "mojibake_fixed"))
    table("By deciding step", s.by_source, ("old_source", "new_source", "category", "records"))
    table("By top-level domain", s.by_tld, ("tld", "records", "changed", "mojibake_fixed"))
    # The excerpts start EXCERPT_BEFORE characters before the first difference: cut them at the
    # end (a cut in the middle may be where the difference is).
    table("Examples", s.examples,
          ("category", "target_uri", "old_encoding", "new_encoding", "mojibake_fixed",
           "old_excerpt", "new_excerpt"), cut_at_end=("old_excerpt", "new_excerpt"), expand=expanded)
    if s.input_errors:  # (the errors themselves go to stderr, once each: see diff_cmd)
        out.append(wrap(input_errors_line(s.input_errors), width))
    if s.out:
        out.append(wrap(f"diff written to {s.out}", width))
    return "\n\n".join(out)


def _local_out(out: str | None) -> str | None:
    """*out* as a local directory (a ``file://`` URL as its path) or a URL, or None."""
    return None if out is None else storage.local_path(out)


def _write(table: pa.Table, out: str, summary: DiffSummary, meta: dict[str, str]) -> str:
    """Write *table* to ``out/diff.parquet`` and the summary to ``_diff.json``, each appearing
    whole under its name: a temporary name and a rename locally; for a URL, written in a local
    temporary directory and then uploaded (:func:`redecode.storage.publish_file`), the Parquet
    first."""
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    remote = storage.is_remote(out)
    local = tempfile.mkdtemp(prefix="redecode-diff-") if remote else out
    try:
        os.makedirs(local, exist_ok=True)
        final = os.path.join(local, DIFF_FILE)
        tmp = storage.temp_path(final)
        con = duckdb.connect(":memory:")
        try:
            con.register("d", table)
            kv = ", ".join(f"{sql_string(k)}: {sql_string(v)}" for k, v in meta.items())
            con.execute(
                f"COPY d TO {sql_string(tmp)} (FORMAT parquet, COMPRESSION zstd, KV_METADATA {{{kv}}})"
            )
            os.replace(tmp, final)
        except duckdb.IOException as exc:  # DuckDB says "No space left on device" in words only
            raise storage.output_error_of_message(str(exc), final) from None
        except OSError as exc:
            raise storage.output_error(exc, final) from None
        finally:
            con.close()
            if os.path.exists(tmp):
                os.unlink(tmp)
        text = json.dumps(summary.to_json(), indent=2, ensure_ascii=False, default=str).encode("utf-8")
        if remote:
            storage.publish_file(final, storage.join(out, DIFF_FILE))
            storage.write_bytes(storage.join(out, SUMMARY_FILE), text)
        else:
            storage.write_bytes(os.path.join(out, SUMMARY_FILE), text)
    finally:
        if remote:
            shutil.rmtree(local, ignore_errors=True)
    return storage.join(out, DIFF_FILE)


def _finish(table: pa.Table, *, old: str, new: str, out: str | None, examples: int,
            input_errors=(), compare: str = "text") -> DiffSummary:
    final = storage.join(out, DIFF_FILE) if out else None
    summary = summarize(table, old=old, new=new, examples=examples,
                        input_errors=input_errors, out=final)
    if compare != "text":
        summary = dataclasses.replace(summary, compare=compare)
    if out:
        meta = {
            "redecode.diff_version": DIFF_VERSION,
            "redecode.diff_old": old,
            "redecode.diff_new": new,
            "redecode.diff_compare": compare,
            "redecode.diff_created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        }
        _write(table, out, summary, meta)
    return summary


# --------------------------------------------------------------------------------------------
# Row-level diff (shared by the rules form; the run form computes the same in SQL)


def _reason(row: dict) -> str | None:
    return row.get("skip_reason") or row.get("error_kind")


def diff_pair(old: dict | None, new: dict | None, *, matched_on: str | None = None) -> dict:
    """The diff row (:data:`DIFF_SCHEMA`) of one record's *old* and *new* rows (either may be None)."""
    base = new if new is not None else old
    assert base is not None
    d = {
        "matched_on": matched_on,
        "warc_path": base.get("warc_path"),
        "warc_offset": base.get("warc_offset"),
        "record_id": base.get("record_id"),
        "target_uri": base.get("target_uri"),
        "tld": base.get("tld"),
        "text_equal": None,
        "diff_offset": None,
        "old_excerpt": None,
        "new_excerpt": None,
        "mojibake_fixed": None,
        "mojibake_check": None,
    }
    for side, r in (("old", old), ("new", new)):
        r = r or {}
        d[f"{side}_status"] = r.get("status")
        d[f"{side}_reason"] = _reason(r) if r else None
        for c in ("encoding", "source", "decoder", "decode_errors", "rules"):
            d[f"{side}_{c}"] = r.get(c)
    if old is None:
        d.update(category="only-new", mojibake_fixed=False, new_excerpt=_start(new.get("text")))
        return d
    if new is None:
        d.update(category="only-old", mojibake_fixed=False, old_excerpt=_start(old.get("text")))
        return d
    d["text_equal"] = old.get("text") == new.get("text")
    d["category"] = _category(d)
    _add_text_details(d, old.get("text"), new.get("text"),
                      [c for c in [python_codec(old.get("decoder"), old.get("encoding"))] if c])
    return d


def _start(text: str | None) -> str | None:
    """The excerpt of a text whose record has no text on the other side: its first
    :data:`EXCERPT_START` characters."""
    return None if text is None else text[:EXCERPT_START]


def _category(d: dict) -> str:
    if (d["old_status"], d["old_reason"]) != (d["new_status"], d["new_reason"]):
        return "status-changed"
    if d["old_status"] == "decoded" and d["old_encoding"] != d["new_encoding"]:
        return "encoding-changed"
    if not d["text_equal"]:
        return "text-changed"
    return "unchanged"


def _add_text_details(d: dict, old_text: str | None, new_text: str | None,
                      old_codecs: Sequence[str]) -> None:
    if d["category"] == "unchanged":
        return
    d["mojibake_fixed"] = False  # a changed record is not mojibake unless the texts show it
    if (old_text is None) != (new_text is None):  # text on one side only: its start
        d["old_excerpt"], d["new_excerpt"] = _start(old_text), _start(new_text)
        return
    if old_text is None or new_text is None or d["text_equal"]:
        return
    c = compare_texts(old_text, new_text, old_codecs=old_codecs,
                      new_decoder=d["new_decoder"], new_encoding=d["new_encoding"])
    d.update(diff_offset=c.offset, old_excerpt=c.old_excerpt, new_excerpt=c.new_excerpt,
             mojibake_fixed=c.mojibake_fixed, mojibake_check=c.mojibake_check)


# --------------------------------------------------------------------------------------------
# Run directories (and external Parquet) via DuckDB

# Columns of a side's key table (besides the row identity and the text hash).
_SIDE_COLUMNS = ("warc_path", "warc_offset", "record_id", "target_uri", "tld", "status",
                 "skip_reason", "error_kind", "encoding", "source", "decoder", "decode_errors", "rules")


def _parquet_source(files: Sequence[str]) -> str:
    return parquet_source(files, "filename=true, file_row_number=true")


def _present(con, source: str) -> set[str]:
    return {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}


def _run_files(con, path: str) -> list[str]:
    run = load_run(path)
    if run.unfinished:
        log.warning("%s", run.unfinished)
    check_parts_present(run)
    if not run.parts:
        return []
    use_storage(con, run.parts)
    check_part_versions(con, run.parts, names=run.manifest is not None)
    return list(run.parts)


def _external_files(con, path: str) -> list[str]:
    """The Parquet files another tool's OLD names: a directory's (or a prefix's) ``*.parquet``,
    a glob's matches, or the file itself; local or URLs (read through *con*)."""
    import glob  # noqa: PLC0415

    path = storage.local_path(path)
    if storage.is_remote(path):
        if any(ch in path.partition("://")[2] for ch in "*?["):
            files = sorted(storage.glob(path))
        elif storage.isdir(path):
            files = [storage.join(path.rstrip("/"), n) for n in storage.listdir(path) if n.endswith(".parquet")]
        else:
            files = [path] if storage.exists(path) else []
        use_storage(con, files)
    elif os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(path, "*.parquet")))
    elif any(ch in path for ch in "*?["):
        files = sorted(glob.glob(path))
    else:
        files = [path] if os.path.exists(path) else []
    if not files:
        raise DiffError(f"{path}: no Parquet files found")
    return files


def _side_table(con, name: str, files: list[str], text_col: str = "text") -> None:
    """TEMP TABLE *name*: the comparison columns, the md5 of *text_col* (``text``, or
    ``text_normalized`` for ``compare="normalized"``) and the row identity."""
    if not files:
        cols = ", ".join(f"NULL::{_TYPES[c]} AS {c}" for c in _SIDE_COLUMNS)
        con.execute(f"CREATE TEMP TABLE {name} AS SELECT {cols}, NULL::VARCHAR AS text_md5, "
                    "NULL::VARCHAR AS file, NULL::BIGINT AS frow WHERE false")
        return
    src = _parquet_source(files)
    with reading_parts(con, files):  # a part that does not read whole is named
        present = _present(con, src)
        cols = ", ".join((c if c in present else f"NULL::{_TYPES[c]} AS {c}") for c in _SIDE_COLUMNS)
        text = f"md5({text_col})" if text_col in present else "NULL::VARCHAR"
        con.execute(f"CREATE TEMP TABLE {name} AS SELECT {cols}, {text} AS text_md5, "
                    f"filename AS file, file_row_number AS frow FROM {src}")


_TYPES = {c: "VARCHAR" for c in _SIDE_COLUMNS} | {"warc_offset": "BIGINT", "decode_errors": "BIGINT"}


def diff_runs(
    old: str,
    new: str,
    *,
    out: str | None = None,
    external: ExternalOld | None = None,
    examples: int = 10,
    compare: str = "text",
) -> DiffSummary:
    """Diff two run directories (or parts) *old* and *new*; with *external*, OLD is any Parquet.
    Without *external*, an *old* that is not a redecode output but has columns ``record_id`` and
    ``text`` is read as ``ExternalOld(old)``.

    *old*, *new* and *out* may be URLs (``s3://...``, :mod:`redecode.storage`).
    *compare* (:data:`COMPARE`): ``"text"`` compares the runs' ``text``; ``"normalized"`` their
    ``text_normalized`` (runs made with ``run --normalize``, both in the same form), or OLD's
    external text with NEW's ``text_normalized``: ``text_equal``, the category ``text-changed``,
    the excerpts and the mojibake check are then about the normalized texts. Raises
    :class:`DiffError` when a run has decoded records without ``text_normalized`` or the two runs
    were normalized to different forms.

    Writes ``out/diff.parquet`` (:data:`DIFF_SCHEMA`, every record including unchanged ones) and
    ``out/_diff.json`` (the summary) when *out* is given. Raises :class:`DiffError` for a bad
    external spec, :class:`redecode.query.QueryError` for a path that is not a run, and
    :class:`redecode.schema.SchemaVersionError` for parts of an unknown schema version.
    """
    if compare not in COMPARE:
        raise DiffError(f"unknown comparison {compare!r}: {' or '.join(COMPARE)}")
    text_col = COMPARE[compare]
    out = _local_out(out)
    con = duckdb.connect(":memory:")
    try:
        new_files = _run_files(con, new)
        _side_table(con, "n", new_files, text_col)
        not_a_run = None
        if external is None:
            try:
                old_files = _run_files(con, old)
            except NoSchemaVersionError as exc:
                # not a redecode output: another tool's Parquet, compared on ExternalOld's
                # defaults (record_id, text) when it has those columns
                not_a_run, external = exc, ExternalOld(old)
        if external is None:
            _side_table(con, "o", old_files, text_col)
            _pair_runs(con)
        else:
            old_files = _external_files(con, external.path)
            try:
                _external_side(con, external, old_files)
            except MissingColumnsError:
                if not_a_run is not None:
                    raise not_a_run from None  # (the caller gave no --old-* option)
                raise
            _pair_external(con, external)
        if compare == "normalized":
            _check_normalized(con, old if external is None else None, new)
        table = _diff_table(con, old_files, new_files, external, text_col)
    finally:
        con.close()
    return _finish(table, old=old if external is None else external.path, new=new, out=out,
                   examples=examples, compare=compare)


def _normalize_form(path: str) -> str | None:
    """The ``--normalize`` form a run was made with (its manifest's rules parameters), if known."""
    try:
        manifest = load_run(path).manifest or {}
    except Exception:  # noqa: BLE001 - a bare part has no manifest: form unknown
        return None
    return ((manifest.get("rules") or {}).get("parameters") or {}).get("normalize")


def _check_normalized(con, old: str | None, new: str) -> None:
    """Refuse ``compare="normalized"`` where a run side has decoded rows without
    ``text_normalized`` or the two runs name different forms. *old*: None for external text."""
    for side, path in (("o", old), ("n", new)):
        if path is None:
            continue
        (missing,) = con.execute(
            f"SELECT count(*) FROM {side} WHERE status = 'decoded' AND text_md5 IS NULL").fetchone()
        if missing:
            raise DiffError(
                f"{path}: {missing} decoded record(s) without text_normalized (made without "
                "`run --normalize`); compare on the text (--compare text), or make the run again with "
                "`run --normalize NFC` (or NFKC) into another --out")
    if old is not None:
        forms = (_normalize_form(old), _normalize_form(new))
        if None not in forms and forms[0] != forms[1]:
            raise DiffError(f"{old} is normalized to {forms[0]}, {new} to {forms[1]}: "
                            "--compare normalized needs runs made with the same --normalize")


def _pair_runs(con) -> None:
    """TEMP TABLE pairs(ofile, orow, nfile, nrow, matched_on): offset match, then record_id."""
    con.execute(
        "CREATE TEMP TABLE pairs AS SELECT o.file AS ofile, o.frow AS orow, n.file AS nfile, "
        "n.frow AS nrow, 'offset' AS matched_on FROM o JOIN n "
        "ON o.warc_path = n.warc_path AND o.warc_offset = n.warc_offset"
    )
    # The rest by record_id (an archive moved or renamed between the runs), where the id is on
    # one unpaired row of each side: an id on several rows (an archive read from two folders)
    # cannot say which pairs with which, so those rows stay only-old / only-new.
    con.execute(
        "INSERT INTO pairs SELECT o.file, o.frow, n.file, n.frow, 'record_id' FROM "
        "(SELECT * FROM o ANTI JOIN pairs p ON o.file = p.ofile AND o.frow = p.orow "
        " QUALIFY count(*) OVER (PARTITION BY record_id) = 1) o JOIN "
        "(SELECT * FROM n ANTI JOIN pairs p ON n.file = p.nfile AND n.frow = p.nrow "
        " QUALIFY count(*) OVER (PARTITION BY record_id) = 1) n "
        "ON o.record_id = n.record_id"
    )


def _external_side(con, ext: ExternalOld, files: list[str]) -> None:
    src = _parquet_source(files)
    present = _present(con, src)
    missing = [c for c, _ in ext.key if c not in present]
    if ext.text not in present:
        missing.append(ext.text)
    if missing:
        raise MissingColumnsError(
            f"{ext.path}: no column {', '.join(missing)} (has: {', '.join(sorted(present - {'filename', 'file_row_number'}))}); "
            "name the key with --old-key and the text with --old-text"
        )
    bad = [nc for _, nc in ext.key if nc not in COLUMNS]
    if bad:
        raise DiffError(f"--old-key: {', '.join(bad)} is not an output column")
    keys = ", ".join(f'"{oc}" AS k{i}' for i, (oc, _) in enumerate(ext.key))
    con.execute(
        f"CREATE TEMP TABLE o AS SELECT {keys}, CAST(\"{ext.text}\" AS VARCHAR) IS NOT NULL AS has_text, "
        f"md5(CAST(\"{ext.text}\" AS VARCHAR)) AS text_md5, filename AS file, "
        f"file_row_number AS frow FROM {src}"
    )


def _pair_external(con, ext: ExternalOld) -> None:
    # A key must name one record on each side: a key value shared by several rows would pair each
    # old row with each new one and report changes that are not there. Only values found on both
    # sides can pair, so only those are checked.
    ocols = [f"k{i}" for i in range(len(ext.key))]
    ncols = [nc for _, nc in ext.key]
    names = "+".join(oc for oc, _ in ext.key)
    join_on = " AND ".join(f"o.{a} = n.{b}" for a, b in zip(ocols, ncols))
    for side, other, cols, label in (("o", "n", ocols, f"OLD ({ext.path})"), ("n", "o", ncols, "NEW")):
        keys = ", ".join(f"{side}.{c}" for c in cols)
        values, rows = con.execute(
            f"SELECT count(*), coalesce(sum(c), 0) FROM (SELECT {keys}, count(*) AS c FROM {side} "
            f"SEMI JOIN {other} ON {join_on} GROUP BY {keys} HAVING count(*) > 1)"
        ).fetchone()
        if values:
            raise DiffError(
                f"{label}: {rows} rows share {values} {names} value(s) that the other side also has "
                "(the same archive read twice, e.g. copies in two folders?); the key must name one "
                "record: choose --old-key columns that do (for an export of a redecode run: "
                "--old-key warc_path --old-key warc_offset), or drop the duplicate rows"
            )
    con.execute(
        "CREATE TEMP TABLE pairs AS SELECT o.file AS ofile, o.frow AS orow, n.file AS nfile, "
        f"n.frow AS nrow, 'key' AS matched_on FROM o JOIN n ON {join_on}"
    )


def _diff_table(con, old_files, new_files, external: ExternalOld | None,
                text_col: str = "text") -> pa.Table:
    """Categorise pairs and unmatched rows in SQL, then add text details for changed pairs."""
    if external is None:
        old_cols = ("o.status", "coalesce(o.skip_reason, o.error_kind)", "o.encoding", "o.source",
                    "o.decoder", "o.decode_errors", "o.rules")
        status_changed = ("(o.status, coalesce(o.skip_reason, o.error_kind)) IS DISTINCT FROM "
                          "(n.status, coalesce(n.skip_reason, n.error_kind))")
        encoding_changed = "o.status = 'decoded' AND o.encoding IS DISTINCT FROM n.encoding"
        base = "coalesce(n.{c}, o.{c})"
    else:
        # External text has no status: present text counts as decoded, absent as not decoded.
        old_cols = ("CASE WHEN o.has_text THEN 'decoded' END", "NULL", "NULL", "NULL", "NULL",
                    "NULL::BIGINT", "NULL")
        status_changed = "o.has_text IS DISTINCT FROM (n.status = 'decoded')"
        encoding_changed = "false"
        base = "n.{c}"
    old_named = ", ".join(f"{e} AS old_{c}" for e, c in zip(
        old_cols, ("status", "reason", "encoding", "source", "decoder", "decode_errors", "rules")))
    new_named = ("n.status AS new_status, coalesce(n.skip_reason, n.error_kind) AS new_reason, "
                 "n.encoding AS new_encoding, n.source AS new_source, n.decoder AS new_decoder, "
                 "n.decode_errors AS new_decode_errors, n.rules AS new_rules")
    ids = ", ".join(base.format(c=c) + f" AS {c}" for c in ("warc_path", "warc_offset", "record_id",
                                                            "target_uri", "tld"))
    text_equal = "o.text_md5 IS NOT DISTINCT FROM n.text_md5"
    category = (f"CASE WHEN {status_changed} THEN 'status-changed' "
                f"WHEN {encoding_changed} THEN 'encoding-changed' "
                f"WHEN NOT ({text_equal}) THEN 'text-changed' ELSE 'unchanged' END")
    con.execute(
        f"CREATE TEMP TABLE matched AS SELECT {category} AS category, p.matched_on, {ids}, "
        f"{old_named}, {new_named}, {text_equal} AS text_equal, "
        "p.ofile, p.orow, p.nfile, p.nrow FROM pairs p "
        "JOIN o ON o.file = p.ofile AND o.frow = p.orow "
        "JOIN n ON n.file = p.nfile AND n.frow = p.nrow"
    )
    # Text details for changed pairs whose texts both exist and differ (the only ones that need
    # the text column: read them once, joined on the row identity).
    details: dict[tuple, TextComparison] = {}
    old_text_col = f'CAST("{external.text}" AS VARCHAR)' if external else text_col
    need = ("category <> 'unchanged' AND NOT text_equal AND old_status = 'decoded' "
            "AND new_status = 'decoded'")
    n_need = con.execute(f"SELECT count(*) FROM matched WHERE {need}").fetchone()[0]
    if n_need:
        old_src = _parquet_source(old_files)
        new_src = _parquet_source(new_files)
        rel = con.execute(
            f"SELECT m.ofile, m.orow, m.nfile, m.nrow, m.old_decoder, m.old_encoding, "
            f"m.new_decoder, m.new_encoding, ot.t AS old_text, nt.text AS new_text "
            f"FROM (SELECT * FROM matched WHERE {need}) m "
            f"JOIN (SELECT filename, file_row_number, {old_text_col} AS t FROM {old_src}) ot "
            "ON ot.filename = m.ofile AND ot.file_row_number = m.orow "
            f"JOIN (SELECT filename, file_row_number, {text_col} AS text FROM {new_src}) nt "
            "ON nt.filename = m.nfile AND nt.file_row_number = m.nrow"
        )
        if external is not None:
            default_codecs = [external.codec] if external.codec else list(DEFAULT_OLD_CODECS)
        while batch := rel.fetchmany(256):
            for ofile, orow, nfile, nrow, odec, oenc, ndec, nenc, otext, ntext in batch:
                if otext is None or ntext is None:
                    continue
                if external is None:
                    oc = python_codec(odec, oenc)
                    codecs_ = [oc] if oc else []
                else:
                    codecs_ = default_codecs
                details[(ofile, orow, nfile, nrow)] = compare_texts(
                    otext, ntext, old_codecs=codecs_, new_decoder=ndec, new_encoding=nenc)
    # A status change with text on one side only: the start of that text (as for only-old/new).
    starts: dict[tuple, tuple[str | None, str | None]] = {}
    one_side = ("category = 'status-changed' AND coalesce(old_status = 'decoded', false) "
                "<> coalesce(new_status = 'decoded', false)")
    if con.execute(f"SELECT count(*) FROM matched WHERE {one_side}").fetchone()[0]:
        rel = con.execute(
            f"SELECT m.ofile, m.orow, m.nfile, m.nrow, substring(ot.t, 1, {EXCERPT_START}), "
            f"substring(nt.t, 1, {EXCERPT_START}) FROM (SELECT * FROM matched WHERE {one_side}) m "
            f"LEFT JOIN (SELECT filename, file_row_number, {old_text_col} AS t "
            f"FROM {_parquet_source(old_files)}) ot ON ot.filename = m.ofile AND ot.file_row_number = m.orow "
            f"LEFT JOIN (SELECT filename, file_row_number, {text_col} AS t "
            f"FROM {_parquet_source(new_files)}) nt ON nt.filename = m.nfile AND nt.file_row_number = m.nrow"
        )
        while batch := rel.fetchmany(1024):
            for ofile, orow, nfile, nrow, old_start, new_start in batch:
                starts[(ofile, orow, nfile, nrow)] = (old_start, new_start)
    matched = con.execute(
        "SELECT * FROM matched ORDER BY warc_path NULLS LAST, warc_offset NULLS LAST, record_id"
    ).fetchall()
    cols = [d[0] for d in con.description]
    rows = []
    for values in matched:
        d = dict(zip(cols, values))
        key = (d.pop("ofile"), d.pop("orow"), d.pop("nfile"), d.pop("nrow"))
        c = details.get(key)
        d.update(diff_offset=None, old_excerpt=None, new_excerpt=None, mojibake_fixed=None,
                 mojibake_check=None)
        if d["category"] != "unchanged":
            d["mojibake_fixed"] = False
        if c is not None:
            d.update(diff_offset=c.offset, old_excerpt=c.old_excerpt, new_excerpt=c.new_excerpt,
                     mojibake_fixed=c.mojibake_fixed, mojibake_check=c.mojibake_check)
        elif key in starts:
            d["old_excerpt"], d["new_excerpt"] = starts[key]
        rows.append(d)
    rows += _unmatched(con, "o", "only-old", external, old_files, old_text_col)
    rows += _unmatched(con, "n", "only-new", None, new_files, text_col)
    return pa.Table.from_pylist(rows, schema=DIFF_SCHEMA)


def _unmatched(con, side: str, category: str, external: ExternalOld | None, files: Sequence[str],
               text_col: str) -> list[dict]:
    """The rows of *side* (``o`` or ``n``) that no pair holds, as diff rows of *category*; each
    with the start of its text (*text_col* of *files*) as its side's excerpt."""
    fcol, rcol = ("ofile", "orow") if side == "o" else ("nfile", "nrow")
    if external is not None and side == "o":
        # External rows: identify them by their key (mapped onto the new column names).
        keys = ", ".join(f"CAST(k{i} AS {'BIGINT' if nc == 'warc_offset' else 'VARCHAR'}) AS {nc}"
                         for i, (_, nc) in enumerate(external.key))
        select, order = f"{keys}, CASE WHEN has_text THEN 'decoded' END AS status", ""
    else:
        select, order = ", ".join(_SIDE_COLUMNS), " ORDER BY warc_path, warc_offset, record_id"
    unpaired = f"(SELECT * FROM {side} ANTI JOIN pairs p ON {side}.file = p.{fcol} AND {side}.frow = p.{rcol})"
    if not con.execute(f"SELECT count(*) FROM {unpaired}").fetchone()[0]:
        return []
    sql = (f"SELECT {select}, substring(t.t, 1, {EXCERPT_START}) AS text FROM {unpaired} {side} "
           f"LEFT JOIN (SELECT filename, file_row_number, {text_col} AS t FROM {_parquet_source(files)}) t "
           f"ON t.filename = {side}.file AND t.file_row_number = {side}.frow{order}")
    rel = con.execute(sql)
    cols = [d[0] for d in rel.description]
    out = []
    for values in rel.fetchall():
        r = dict(zip(cols, values))
        if "warc_offset" in r and r["warc_offset"] is not None:
            r["warc_offset"] = int(r["warc_offset"])
        out.append(diff_pair(r, None) if side == "o" else diff_pair(None, r))
    return out


# --------------------------------------------------------------------------------------------
# Two rule sets over archives, one pass


def _diff_input(path: str, *, old: Rules, new: Rules, limit: int) -> tuple[list[dict], dict | None]:
    """Diff rows of one archive: each record read once, turned into a row by both rule sets (the
    per-input function of :func:`diff_rules`)."""
    from .archive import ArchiveError, iter_records  # noqa: PLC0415 - the archive readers only for --rules
    from .row import ROW_RECORD_TYPES, record_row  # noqa: PLC0415

    rows: list[dict] = []
    stream = iter_records(path, max_record_bytes=limit, resync=True)  # damage passed over, as run does
    try:
        for record in stream:
            if record.record_type not in ROW_RECORD_TYPES:
                continue
            rows.append(diff_pair(record_row(record, old), record_row(record, new), matched_on="offset"))
    except ArchiveError as exc:
        # (run's outcomes: "error", no record came from the input: not opened, not an archive)
        return rows, {"path": path, "error": str(exc), "outcome": "truncated" if rows else "error",
                      "records": len(rows)}
    if stream.damaged:
        first = stream.damaged[0]
        return rows, {"path": path, "error": f"{path}: at offset {first.offset}: {first.error}; "
                                             f"{len(stream.damaged)} damaged stretch(es) skipped",
                      "outcome": "damaged", "records": len(rows)}
    return rows, None


def diff_rules(
    inputs: Sequence[str],
    old_rules: Rules | str,
    new_rules: Rules | str,
    *,
    out: str | None = None,
    max_record_bytes: int | None = None,
    workers: int | None = 1,
    examples: int = 10,
    executor: str = "local",
    master: str | None = None,
    list_prefix: str | None = None,
) -> DiffSummary:
    """Decode every row record of *inputs* with *old_rules* and *new_rules* and diff the rows.

    *inputs*: files, directories, globs, URLs and ``@LIST`` files of archives, expanded as
    ``redecode run`` expands them (:func:`redecode.inputs.expand_inputs`, *list_prefix* before
    every ``@LIST`` line). Rules are
    :class:`redecode.rules.Rules` or names of shipped ones (looked up once, here). Each record is
    read once and given to both rule sets; nothing but the diff (``out/diff.parquet``, when *out* is
    given) is written. The inputs are mapped with an executor (:func:`redecode.executors.map_shards`):
    *executor* ``"local"`` diffs *workers* inputs in parallel processes (None: one per core),
    ``"spark"`` one input per Spark task (*master* as there: a master URL, None for spark-submit's, ``"inline"`` for this
    process without Spark); the per-input function returns its diff rows to this process, which
    writes the diff (tasks write nothing, so a retry cannot duplicate rows). An archive that cannot
    be read to its end keeps the pairs read so far and is listed in ``input_errors``
    (:meth:`DiffSummary.exit_code` is then 1).

    Raises :class:`DiffError` for an unknown rules name, an input that matches nothing or no input
    found; :class:`ValueError` for an unknown *executor*;
    :class:`ImportError` for ``"spark"`` without pyspark (unless ``"inline"``).
    """
    from .executors import make_executor, map_shards  # noqa: PLC0415
    from .inputs import expand_inputs  # noqa: PLC0415
    from .record import DEFAULT_MAX_RECORD_BYTES  # noqa: PLC0415
    from .rules import as_rules  # noqa: PLC0415

    runner = make_executor(executor, workers=workers, master=master)
    out = _local_out(out)
    try:
        ra, rb = as_rules(old_rules), as_rules(new_rules)
    except (KeyError, ValueError) as exc:
        raise DiffError(str(exc.args[0]) if exc.args else f"unknown rules: {exc}") from exc
    try:
        paths = expand_inputs(list(inputs), list_prefix=list_prefix)
    except (OSError, ValueError) as exc:
        raise DiffError(str(exc)) from exc
    if not paths:
        raise DiffError(f"no archives found in {', '.join(inputs)}")
    task = functools.partial(_diff_input, old=ra, new=rb, limit=max_record_bytes or DEFAULT_MAX_RECORD_BYTES)
    results = map_shards(task, paths, runner, description=f"redecode diff {ra.name} {rb.name}: {len(paths)} input(s)")
    rows: list[dict] = []
    errors: list[dict] = []
    for part_rows, error in results:
        rows.extend(part_rows)
        if error:
            errors.append(error)
    table = pa.Table.from_pylist(rows, schema=DIFF_SCHEMA)
    return _finish(table, old=ra.name, new=rb.name, out=out, examples=examples,
                   input_errors=errors)


def diff_rows(old_rows: Iterable[dict], new_rows: Iterable[dict]) -> pa.Table:
    """Diff two sequences of rows of the same records, paired in order (testing and tools)."""
    rows = [diff_pair(a, b, matched_on="offset") for a, b in zip(old_rows, new_rows, strict=True)]
    return pa.Table.from_pylist(rows, schema=DIFF_SCHEMA)
