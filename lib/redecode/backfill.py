"""Targeted re-decode after a rules update (issue "Targeted backfill after a rules update").

``backfill(prior_dir, rules, out)`` writes into ``out`` exactly the run directory that
``redecode run --rules RULES`` over the prior run's inputs would write (same parts, same rows, every
column; same completion markers), reading the archive again only for the records whose row can
differ. Each row of the prior run is handled by the first case that applies:

0. **Other job code**: a shard whose marker names another ``job.ROW_CODE_VERSION`` (or none: made
   before it existed) is read again in full; the record -> row code is not covered by the rules.
1. **Same rules** (the row's ``rules_digest`` is the new rules' digest): copied as is.
2. **Status independent of the rules**: ``skipped`` rows and ``failed`` rows whose ``error_kind``
   is not ``decode`` are made before any rule is consulted (:func:`redecode.job.record_row`):
   copied, with ``rules`` and ``rules_digest`` updated.
3. **Decoded rows, decision replayed from the row**:

   - ``browser`` procedure: the declaration columns (``bom``, ``header_charset``,
     ``meta_charset``/``meta_offset``/``meta_source``, ``xml_charset``/``xml_encoding``,
     ``ignored_labels``, ``tld``, ``ascii_only``, ``utf8_valid``) are computed by the browser
     algorithms whatever the rules (:func:`redecode.job.record_row`), so
     :func:`redecode.sniff.choose` replays the decision from them. When the decision reaches the
     detector, the prior row's detection is used only if the prior rules ran the same detector
     (``Rules.versions()["detector"]`` and every detector parameter equal) and the row was decided
     by it (``source`` ``detector``, or ``default`` after the detector had no answer).
   - ``requests-text`` procedure: the decision depends only on ``content_type`` (values joined by
     ``", "``, as urllib3 joins them) and ``bom``, unless it falls back to detection.
   - ``seed-decode-html``: its meta regex is not stored, so never replayed.

   Then the text: when the replayed decision's decoder provably produces the prior row's text
   (:func:`same_text`), ``text``, ``decode_errors`` and ``text_length`` are copied and the
   decision columns filled from the replay.
4. **Everything else** (decision not replayable, detector answer unknown, decoder differs, a
   ``failed``/``decode`` row, or a prior row made by rules this code does not know by digest): the
   record is read again with :func:`redecode.archive.read_record_at` at ``warc_path`` +
   ``warc_offset`` and :func:`redecode.job.record_row` makes its row.

Text equivalences (:func:`same_text`) are computed from the decoders, never listed by hand:

- the same decoder (``decoder`` string, and for ``whatwg`` the same encoding) at the same version
  (``Rules.versions()["decoder"]`` and ``["encoding_standard"]``): same bytes -> same text;
- zero decode errors in the prior row, no BOM, and both decoders single-byte with equal mappings for
  every byte the prior decoder maps (:func:`byte_table`, over all 256 bytes);
- zero decode errors, no BOM, a Python codec whose units are at most two bytes and that has no
  modes (:func:`python_units`, found with its incremental decoder), an Encoding Standard decoder
  that keeps no mode between units, and a prior text without any character of the units the two
  decoders decode differently (:func:`units_disagreeing`: e.g. cp932 and Shift_JIS differ only on
  ``A0``, ``FD``-``FF``; cp949 and EUC-KR on none);
- zero decode errors, no BOM or a UTF-8 one, and both decoders UTF-8 (a valid UTF-8 payload decodes
  identically in Python's and the Encoding Standard's UTF-8 decoder, both of which reject
  surrogates and overlongs; every procedure removes a UTF-8 BOM);
- an ``ascii_only`` payload under two ASCII-compatible decoders (:func:`ascii_compatible`, checked
  over every ASCII byte and every pair of ASCII bytes, which rules out escape sequences).

Bytes: ``bytes_read`` is the sum of ``warc_length`` over re-read records; ``bytes_full_run`` the sum
of the input file sizes, what a full run reads.

Deviations:

- The prior run's ``--max-record-bytes`` is not in its manifest; backfill assumes the one it is
  given (default the job's) and copies ``too-large`` rows as they are.
- Inputs must still be at the prior ``warc_path`` (relative paths relative to the working
  directory); a missing input raises :class:`BackfillError`.
"""

from __future__ import annotations

import concurrent.futures as cf
import codecs
import dataclasses
import functools
import json
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone

import pyarrow.parquet as pq

from . import decode as _decode
from . import detect as _detect
from . import job as _job
from . import rules as _rules
from . import storage
from .archive import ArchiveError, read_record_at
from .labels import ENCODING_NAMES, get_encoding
from .mime import text_kind
from .prescan import _REMAP as _META_REMAP  # the prescan's UTF-16/x-user-defined -> remap
from .rules import Rules, get_rules
from .schema import (
    SCHEMA_VERSION,
    STATUS_DECODED,
    STATUS_FAILED,
    STATUS_SKIPPED,
    SchemaVersionError,
    check_schema_version,
)
from .sniff import NEEDED, Detection, Facts, choose
from .writer import PartWriter

__all__ = ["BackfillError", "BackfillSummary", "ascii_compatible", "backfill", "byte_table", "same_text"]

#: Columns a prior part must have for its decisions to be replayed (schema 1.1); older parts are
#: still backfilled, but every decoded row is read again.
REPLAY_COLUMNS = ("meta_source", "xml_encoding")

#: The rules' parameters that change a detector's answer: every ``detector*`` field and the TLD hint.
_DETECTOR_PARAMS = tuple(f.name for f in dataclasses.fields(Rules)
                         if f.name.startswith("detector") or f.name == "tld_hint")


class BackfillError(RuntimeError):
    """The prior run directory cannot be backfilled (missing manifest, part or input; unreadable
    schema). The message names what is missing."""


@dataclass(slots=True)
class BackfillSummary(_job.RunSummary):
    """What a backfill did: a :class:`redecode.job.RunSummary` whose manifest (``OUT/_run.json``)
    has a ``backfill`` section, and the errors of inputs not read to their end in the prior run."""

    @property
    def stats(self) -> dict:
        return self.manifest["backfill"]

    def describe(self) -> str:
        """One line, e.g. ``re-read 412 of 5,835 records, 11.2% of the bytes a full run reads``."""
        s = self.stats
        return (
            f"re-read {s['rows_reread']:,} of {s['rows']:,} records, "
            f"{100 * s['bytes_fraction']:.1f}% of the bytes a full run reads "
            f"({s['bytes_read']:,} of {s['bytes_full_run']:,} bytes); copied {s['rows_copied']:,}"
        )


# ---------------------------------------------------------------------------------------------
# decoder equivalences


def _decoder_key(decoder: str | None, encoding: str | None) -> tuple[str, str] | None:
    """``("whatwg", encoding)`` or ``("python", codec)`` from a row's ``decoder``/``encoding``."""
    if decoder == "whatwg" and encoding:
        return ("whatwg", encoding)
    if decoder and decoder.startswith("python:"):
        return ("python", decoder[len("python:"):])
    return None


def _decode_strict(key: tuple[str, str], data: bytes) -> str | None:
    """*data* decoded by *key*'s decoder without BOM sniffing; None on any decode error."""
    family, name = key
    if family == "whatwg":
        r = _decode.decode(data, name, bom_sniff=False)
        return None if r.errors else r.text
    try:
        return data.decode(name)
    except (UnicodeDecodeError, LookupError, TypeError, ValueError):
        return None


def _decode_replace(key: tuple[str, str], data: bytes) -> str | None:
    """*data* decoded by *key*'s decoder without BOM sniffing, errors as U+FFFD; None if the
    Python codec does not exist."""
    family, name = key
    if family == "whatwg":
        return _decode.decode(data, name, bom_sniff=False).text
    try:
        return data.decode(name, errors="replace")
    except (LookupError, TypeError, ValueError):
        return None


def _single_byte_by_construction(key: tuple[str, str]) -> bool:
    """Whether *key*'s decoder is stateless single-byte by construction: this project's
    Encoding Standard "single-byte decoder" (and x-user-defined, which shares it), or a Python
    codec that decodes with a 256-entry charmap (``decoding_table``) or with the C latin-1 /
    ASCII decoders. (Behavioural tests alone cannot see a 3-byte escape such as ISO-2022-JP's
    ``ESC ( J``; the construction can.)"""
    family, name = key
    if family == "whatwg":
        return _decode._DECODERS.get(name) is _decode._decode_single_byte
    try:
        info = codecs.lookup(name)
    except LookupError:
        return False
    if info.decode in (codecs.latin_1_decode, codecs.ascii_decode):
        return True
    module = sys.modules.get(getattr(info.decode, "__module__", "") or "")
    table = getattr(module, "decoding_table", None)
    return isinstance(table, str) and len(table) == 256


@functools.cache
def byte_table(key: tuple[str, str]) -> tuple[str | None, ...] | None:
    """The 256-entry table of a single-byte decoder (``None`` where the byte is an error), or None
    when the decoder is not single-byte. Single-byte means: the decoder is built as one (the
    Encoding Standard's single-byte decoder, :func:`_single_byte_by_construction`; a Python
    charmap codec); and, checked here: every byte alone decodes to one
    character or is an error; all 256 bytes at once (forwards and backwards) give those
    characters; and every byte that is an error alone (a multi-byte decoder's lead bytes are:
    they are incomplete at the end of the input) is still an error followed by the next byte's
    own character when any of the 256 bytes follows it, i.e. it starts no sequence."""
    if not _single_byte_by_construction(key):
        return None
    singles: list[str | None] = []
    for b in range(256):
        t = _decode_strict(key, bytes([b]))
        if t is not None and len(t) != 1:
            return None
        singles.append(t)
    valid = bytes(b for b in range(256) if singles[b] is not None)
    for order in (valid, valid[::-1]):
        t = _decode_strict(key, order)
        if t is None or t != "".join(singles[b] for b in order):  # type: ignore[misc]
            return None
    rep = [c if c is not None else "\ufffd" for c in singles]
    for x in range(256):
        if singles[x] is None:
            data = b"".join(bytes([x, y]) for y in range(256))
            if _decode_replace(key, data) != "".join("\ufffd" + rep[y] for y in range(256)):
                return None
    return tuple(singles)


@functools.cache
def ascii_compatible(key: tuple[str, str]) -> bool:
    """Whether every ASCII-only byte string decodes to the same characters under *key*'s decoder:
    checked on every ASCII byte alone and every pair of ASCII bytes (a stateful decoder such as
    ISO-2022-JP or UTF-7 fails on its escape's first two bytes)."""
    for a in range(128):
        if _decode_strict(key, bytes([a])) != chr(a):
            return False
    if key[0] == "python":
        for a in range(128):
            for b in range(128):
                if _decode_strict(key, bytes([a, b])) != chr(a) + chr(b):
                    return False
        return True
    # The Encoding Standard's decoders are slower in Python: one decode per first byte of all
    # pairs "a b" for b in 0..127, separated so that each pair starts in the initial state:
    # a stateless decoder gives back the input; an escape-driven one does not.
    for a in range(128):
        data = b"".join(bytes([a, b]) for b in range(128))
        if _decode_strict(key, data) != data.decode("ascii"):
            return False
    return True


@functools.cache
def python_units(codec: str) -> dict[bytes, str] | None:
    """Every unit a Python codec decodes from its initial state without error -- each single byte
    and each two-byte sequence that completes a character -- mapped to its text; None when the
    codec has longer units, modes (a sequence that changes the decoder's state, as ISO-2022's
    and HZ's escapes do) or units that decode to nothing. Found with the codec's incremental
    decoder: after each unit its state must be back to the initial ``(b"", 0)``."""
    try:
        dec = codecs.getincrementaldecoder(codec)("strict")
    except (LookupError, TypeError):
        return None
    initial = (b"", 0)
    units: dict[bytes, str] = {}
    for x in range(256):
        dec.reset()
        try:
            t = dec.decode(bytes([x]), final=False)
            state = dec.getstate()
        except UnicodeDecodeError:
            continue
        if t:
            if state != initial:
                return None
            units[bytes([x])] = t
            continue
        if state != (bytes([x]), 0):
            return None  # consumed silently: a mode switch
        for y in range(256):
            dec.reset()
            try:
                t = dec.decode(bytes([x, y]), final=False)
                state = dec.getstate()
            except UnicodeDecodeError:
                continue
            if not t or state != initial:
                return None  # a unit longer than two bytes, or a mode
            units[bytes([x, y])] = t
    return units


@functools.cache
def units_disagreeing(codec: str, encoding: str) -> frozenset[str] | None:
    """The characters produced by the units of Python codec *codec* (:func:`python_units`) that
    the Encoding Standard decoder of *encoding*, run on the unit alone, decodes differently or
    with an error (e.g. cp932's ``A0`` -> U+F8F0, an error in Shift_JIS; big5hkscs's ``A1 45``
    -> U+2022 where Big5 gives U+2027). None when the decoders cannot be compared unit by unit:
    the codec has longer units or modes, or the standard's decoder is not one that keeps no mode
    between units by construction (its multi-byte, single-byte and UTF-8 decoders).

    A text that *codec* decoded without error and that contains none of these characters is
    made only of units on which both decoders agree, so the standard's decoder gives the same
    text for the same bytes."""
    fn = _decode._DECODERS.get(encoding)
    if fn not in (_decode._decode_multibyte, _decode._decode_single_byte, _decode._decode_utf8):
        return None
    units = python_units(codec)
    if units is None:
        return None
    bad: set[str] = set()
    for unit, text in units.items():
        r = _decode.decode(unit, encoding, bom_sniff=False)
        if r.errors or r.text != text:
            bad.update(text)
    return frozenset(bad)


def _is_utf8(key: tuple[str, str]) -> bool:
    return key == ("whatwg", "UTF-8") or (key[0] == "python" and _python_name(key[1]) == "utf-8")


@functools.cache
def _python_name(codec: str) -> str | None:
    try:
        return codecs.lookup(codec).name
    except LookupError:
        return None


#: Single-byte tables of every Encoding Standard encoding, computed at import (each decoder run
#: over all 256 bytes); None for the multi-byte and stateful ones.
WHATWG_BYTE_TABLES: dict[str, tuple[str | None, ...] | None] = {
    name: byte_table(("whatwg", name)) for name in ENCODING_NAMES
}


def same_text(old: tuple[str, str], new: tuple[str, str], *, errors: int, bom: str | None,
              ascii_only: bool | None, same_version: bool, text: str | None = None) -> bool:
    """Whether decoder *new* provably gives the text that decoder *old* gave with *errors* decode
    errors on a payload with BOM *bom* and ASCII-only flag *ascii_only* (see the module
    docstring). *same_version*: the two rule sets' decoder versions are equal; *text*: the text
    *old* made (for the unit-by-unit comparison of a Python multi-byte codec with the standard's
    decoder)."""
    if old == new and same_version:
        return True
    if errors == 0 and bom in (None, "UTF-8") and _is_utf8(old) and _is_utf8(new):
        # Both UTF-8 decoders give the same text for valid UTF-8, and every path removes a UTF-8
        # BOM: the WHATWG decode sniffs it, the seed procedure strips it (source "bom"),
        # requests strips the leading U+FEFF of a utf* codec's text.
        return True
    if bom is not None:
        # BOM handling differs between the decoders (WHATWG decode sniffs it; the Python-codec
        # procedures strip it in their own ways): read again.
        return False
    if ascii_only and ascii_compatible(old) and ascii_compatible(new):
        return True
    if errors != 0:
        return False
    t_old, t_new = byte_table(old), byte_table(new)
    if t_old is not None and t_new is not None and all(a is None or a == b for a, b in zip(t_old, t_new)):
        return True
    if old[0] == "python" and new[0] == "whatwg" and text is not None:
        bad = units_disagreeing(old[1], new[1])
        return bad is not None and bad.isdisjoint(text)
    return False


# ---------------------------------------------------------------------------------------------
# replaying a decision


@dataclass(frozen=True, slots=True)
class _Replay:
    """The decision columns of a replayed decision and the decoder that would make its text."""

    encoding: str | None
    source: str
    confidence: str
    conflict: tuple[str, ...]
    detector: str | None
    detector_confidence: float | None
    key: tuple[str, str]


def _facts_from_row(row: dict) -> Facts | None:
    kind = text_kind(row.get("mime_type"))
    if kind is None:
        return None
    header = row.get("header_charset")
    meta = row.get("meta_charset")
    meta_enc = None
    if meta is not None:
        meta_enc = get_encoding(meta)
        if meta_enc is None or row.get("meta_source") is None:
            return None
        meta_enc = _META_REMAP.get(meta_enc, meta_enc)
    return Facts(
        kind,
        row.get("bom"),
        header,
        get_encoding(header) if header is not None else None,
        meta,
        meta_enc,
        row.get("meta_offset"),
        row.get("meta_source") if meta is not None else None,
        row.get("xml_charset"),
        row.get("xml_encoding"),
        tuple(row.get("ignored_labels") or ()),
        row.get("tld"),
        row.get("ascii_only"),
        row.get("utf8_valid"),
    )


def _same_detector(old: Rules, new: Rules) -> bool:
    return (
        old.procedure == new.procedure == "browser"
        and all(getattr(old, p) == getattr(new, p) for p in _DETECTOR_PARAMS)
        and old.versions().get("detector") == new.versions().get("detector")
        and old.utf8_step == new.utf8_step
    )


def _prior_detection(row: dict, old: Rules, new: Rules):
    """The detector's answer for this row's payload under *new*, from the prior row, or
    :data:`redecode.sniff.NEEDED`."""
    if not _same_detector(old, new):
        return NEEDED
    if row["source"] == "detector" and row.get("detector") is not None:
        return Detection(row["encoding"], row["detector_confidence"], row["detector"])
    if row["source"] == "default" and row.get("ascii_only") is False and row.get("utf8_valid") is not True:
        return None  # the detector ran and had no answer
    return NEEDED


def _replay_browser(row: dict, old: Rules, new: Rules) -> _Replay | None:
    # The row's facts were computed with the late-meta scan and Chromium's tokenizer on
    # (job.record_row); rules that switch either off need the bytes.
    if not (new.late_meta and new.chromium_tokenizer and new.decoders == "whatwg"):
        return None
    facts = _facts_from_row(row)
    if facts is None:
        return None
    d = choose(facts, detection=_prior_detection(row, old, new), utf8_step=bool(new.utf8_step))
    if d is None:
        return None
    return _Replay(d.encoding, d.source, d.confidence, d.conflict, d.detector, d.detector_confidence,
                   ("whatwg", d.encoding))


def _replay_requests(row: dict, new: Rules) -> _Replay | None:
    # rules._requests_decide, from the stored Content-Type (joined with ", " exactly as requests
    # sees it) instead of the payload; detection needs the bytes.
    header = row.get("content_type")
    encoding: str | None = None
    source = "default"
    if header:
        media, params = _rules.requests_parse_content_type(header)
        if "charset" in params and isinstance(params["charset"], str):
            encoding = params["charset"].strip("'\"")
            source = "transport"
        if encoding is None and "text" in media:
            encoding = new.text_default
        elif encoding is None and "application/json" in media:
            encoding = new.json_default
    if encoding is None:
        return None
    codec = _rules._text_codec(encoding) if encoding else None
    if codec is None or not _rules._python_can_decode(codec):
        codec, source = new.fallback_codec or "utf-8", "default"
    return _Replay(_detect.standard_encoding(codec)[0], source,
                   "certain" if source in ("bom", "transport") else "tentative", (), None, None,
                   ("python", codec))


def replay_row(row: dict, old: Rules, new: Rules, *, replayable: bool) -> dict | None:
    """The row ``record_row(record, new)`` would give, made from the prior *row* (made by *old*),
    or None when the record must be read again. *replayable*: the row has the schema 1.1 replay
    columns."""
    status = row["status"]
    if bool(old.identity_fallback) != bool(new.identity_fallback) and (
            (status == STATUS_FAILED and row.get("error_kind") == "content-encoding")
            or _job.IDENTITY_NOTE in (row.get("warning") or "")):
        return None  # the body may be text in no coding: one rule set decodes it, the other fails
    if status == STATUS_SKIPPED or (status == STATUS_FAILED and row.get("error_kind") != "decode"):
        out = dict(row)
        out["rules"], out["rules_digest"] = new.name, new.digest
        return out
    if status != STATUS_DECODED or not replayable:
        return None
    if new.procedure == "browser":
        replay = _replay_browser(row, old, new)
        browser_encoding = replay.encoding if replay is not None else None
    elif new.procedure == "requests-text":
        replay = _replay_requests(row, new)
        # What the browser rules pick does not depend on the rules that made the row.
        browser_encoding = row.get("browser_encoding")
        if "browser_encoding" not in row:
            return None  # a row from before schema 1.2
    else:
        # author: the decision depends on checks of the payload (its decode under each
        # candidate, UTF-8 validity, NUL bytes, escape sequences) that a row does not hold.
        replay = None
    if replay is None:
        return None
    old_key = _decoder_key(row.get("decoder"), row.get("encoding"))
    if old_key is None:
        return None
    vo, vn = old.versions(), new.versions()
    same_version = (vo["decoder"], vo["encoding_standard"]) == (vn["decoder"], vn["encoding_standard"])
    if not same_text(old_key, replay.key, errors=row["decode_errors"] or 0, bom=row.get("bom"),
                     ascii_only=row.get("ascii_only"), same_version=same_version, text=row.get("text")):
        return None
    out = dict(row)
    out.update(
        rules=new.name,
        rules_digest=new.digest,
        encoding=replay.encoding,
        source=replay.source,
        confidence=replay.confidence,
        conflict=list(replay.conflict),
        detector=replay.detector,
        detector_confidence=replay.detector_confidence,
        decoder="whatwg" if replay.key[0] == "whatwg" else f"python:{replay.key[1]}",
        browser_encoding=browser_encoding,
        validation=None,
    )
    return out


@functools.cache
def _known_rules(name: str, digest: str) -> Rules | None:
    """The shipped rules that made a row, if this code still has them with the same digest."""
    try:
        rules = get_rules(name)
    except KeyError:
        return None
    return rules if rules.digest == digest else None


# ---------------------------------------------------------------------------------------------
# one shard


def _backfill_shard(prior_dir: str, marker: dict, out: str, rules_name: str,
                    max_record_bytes: int, base: str | None = None) -> tuple[dict, dict]:
    """Write the new part and marker of one prior shard; return ``(marker, stats)``. *base*: the
    prior run's working directory, against which relative input paths are resolved (see
    :func:`_locate`)."""
    new = get_rules(rules_name)
    started, cpu_started = time.perf_counter(), time.process_time()
    read_from = _locate(marker["path"], base)  # every row of the shard is a record of this input
    part_path = os.path.join(prior_dir, marker["part"])
    try:
        pf = pq.ParquetFile(part_path)
    except (OSError, ValueError) as exc:
        raise BackfillError(f"prior part {part_path} cannot be read: {exc}") from None
    try:
        version = check_schema_version(pf.schema_arrow.metadata, part_path)
    except SchemaVersionError as exc:
        raise BackfillError(str(exc)) from None
    names = set(pf.schema_arrow.names)
    replayable = all(c in names for c in REPLAY_COLUMNS)
    # Rows made by another version of the job's record -> row code (status, skips, HTTP handling;
    # not covered by the rules digest) may differ under the same rules: read them all again.
    same_code = marker.get("row_code_version") == _job.ROW_CODE_VERSION
    counts = _job.ShardCounts.from_json(marker["counts"])
    # Status counts are recomputed from the rows; the rest (record types, bytes) are facts of the
    # archive and carry over.
    counts.records_seen = counts.decoded = counts.skipped = counts.failed = 0
    counts.by_skip_reason.clear()
    counts.by_error_kind.clear()
    stats = {"rows": 0, "rows_copied": 0, "rows_reread": 0, "bytes_read": 0, "prior_schema": version,
             "prior_row_code": marker.get("row_code_version")}
    with PartWriter(
        os.path.join(out, marker["part"]),
        extra_metadata={"redecode.rules": new.name, "redecode.rules_digest": new.digest},
    ) as writer:
        for batch in pf.iter_batches(batch_size=2048):
            for row in batch.to_pylist():
                for c in REPLAY_COLUMNS:
                    row.setdefault(c, None)
                stats["rows"] += 1
                new_row = None
                if not same_code:
                    pass
                elif row["rules_digest"] == new.digest and replayable:
                    new_row = row
                else:
                    old = _known_rules(row["rules"], row["rules_digest"])
                    if old is not None:
                        new_row = replay_row(row, old, new, replayable=replayable)
                if new_row is None:
                    new_row = _reread(row, new, max_record_bytes, read_from)
                    stats["rows_reread"] += 1
                    stats["bytes_read"] += row["warc_length"] or 0
                else:
                    stats["rows_copied"] += 1
                counts.add_row(new_row)
                writer.write(new_row)
    new_marker = dict(marker)
    new_marker.update(
        rules=new.name,
        rules_digest=new.digest,
        row_code_version=_job.ROW_CODE_VERSION,
        rows=counts.records_seen,
        counts=counts.to_json(),
        wall_seconds=round(time.perf_counter() - started, 3),
        cpu_seconds=round(time.process_time() - cpu_started, 3),
    )
    _job._write_json_atomic(_job._marker_path(out, _stem(marker["part"])), new_marker)
    return new_marker, stats


def _backfill_task(prior_dir: str, out: str, rules_name: str, max_record_bytes: int,
                   marker: dict, base: str | None = None) -> tuple[dict, dict]:
    """:func:`_backfill_shard` as one Spark task: written in a private staging directory, then the
    part and then its marker published under *out* (:func:`redecode.spark.stage_and_publish`), so
    a retried or speculative attempt replaces the part under its one name, never adds rows."""
    from . import spark as _spark  # noqa: PLC0415

    return _spark.stage_and_publish(
        out, marker["part"],
        lambda staging: _backfill_shard(prior_dir, marker, staging, rules_name, max_record_bytes, base),
    )


def _stem(part: str) -> str:
    return part[: -len(".parquet")] if part.endswith(".parquet") else part


def _locate(path: str, base: str | None) -> str:
    """Where to read input *path* of a prior run: a relative path is taken relative to *base*,
    the directory the prior run ran in (its manifest's ``cwd``), when it exists there, else
    relative to the current directory; absolute paths and URLs as they are."""
    if base and not os.path.isabs(path) and not storage.is_remote(path):
        there = os.path.join(base, path)
        if os.path.exists(there):
            return there
    return path


def _reread(row: dict, new: Rules, max_record_bytes: int, read_from: str | None = None) -> dict:
    """The row of *row*'s record under rules *new*, read again from the input at *read_from*
    (default: the row's ``warc_path``); the new row keeps the prior ``warc_path``."""
    path, offset = row["warc_path"], row["warc_offset"]
    try:
        record = read_record_at(read_from or path, offset, max_record_bytes=max_record_bytes)
    except (ArchiveError, OSError) as exc:
        raise BackfillError(
            f"cannot read the record at offset {offset} of {path} again ({exc}); backfill needs "
            "the prior run's inputs at the same paths"
        ) from None
    new_row = _job.record_row(record, new)
    new_row["warc_path"] = path  # as the prior run (and a full run from its directory) names it
    return new_row


# ---------------------------------------------------------------------------------------------
# the backfill


def _load_prior(prior_dir: str) -> tuple[dict, list[dict]]:
    manifest_path = os.path.join(prior_dir, "_run.json")
    try:
        with open(manifest_path, encoding="utf-8") as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise BackfillError(f"{prior_dir} is not a finished run directory: no _run.json") from None
    except json.JSONDecodeError as exc:
        raise BackfillError(f"{manifest_path}: not JSON ({exc})") from None
    version = str(manifest.get("schema_version", ""))
    if not version or version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise BackfillError(
            f"{manifest_path}: schema version {version or '(none)'}; this redecode backfills "
            f"{SCHEMA_VERSION.split('.')[0]}.x outputs. Run `redecode run` on the archives instead"
        )
    markers = []
    for entry in manifest.get("inputs", []):
        for part in entry.get("parts") or ([entry["part"]] if entry.get("part") else []):
            mpath = _job._marker_path(prior_dir, _stem(part))
            try:
                with open(mpath, encoding="utf-8") as f:
                    marker = json.load(f)
            except FileNotFoundError:
                raise BackfillError(f"{prior_dir}: completion marker {mpath} of {part} is missing") from None
            if not os.path.exists(os.path.join(prior_dir, part)):
                raise BackfillError(f"{prior_dir}: part {part} named in _run.json is missing")
            markers.append(marker)
        if not storage.exists(_locate(entry["path"], manifest.get("cwd"))):
            where = (f"neither in {manifest['cwd']} (where the prior run ran) nor here"
                     if manifest.get("cwd") and not os.path.isabs(entry["path"]) else "not there")
            raise BackfillError(
                f"input {entry['path']} of {prior_dir} is {where}; backfill reads it again for the "
                "records whose result can change"
            )
    return manifest, markers


def backfill(
    prior_dir: str,
    rules_name: str,
    out: str,
    *,
    workers: int | None = 1,
    max_record_bytes: int = _job.DEFAULT_MAX_RECORD_BYTES,
    executor: str = "local",
    master: str | None = None,
    force: bool = False,
) -> BackfillSummary:
    """Write into run directory *out* what ``redecode run --rules RULES_NAME`` over the inputs of
    run directory *prior_dir* would write, re-reading only records whose row can change (see the
    module docstring). ``workers``: processes over the prior shards (None: all cores).
    ``executor``: ``"local"`` (processes, ``workers``) or ``"spark"``: one task per prior shard
    through :func:`redecode.spark.map_tasks` with ``master`` (a Spark master URL, None for
    spark-submit's, ``"inline"`` for this process without Spark); each task writes its part and
    marker in a private staging directory and publishes them with
    :func:`redecode.spark.stage_and_publish`, so a retried task replaces its part, never adds
    rows. *out* (and *prior_dir*, and the inputs) must then be on a filesystem every executor
    sees (they are in ``local[N]``). The manifest then gains the ``executor`` block of
    :func:`redecode.spark.run_spark`.

    Returns a :class:`BackfillSummary`; ``OUT/_run.json`` is the job's manifest plus a
    ``backfill`` section (``prior_dir``, ``prior_rules``, ``rows``, ``rows_reread``,
    ``rows_copied``, ``bytes_read`` (sum of ``warc_length`` of re-read records, bytes),
    ``bytes_full_run`` (sum of input sizes, bytes), ``bytes_fraction``, ``wall_seconds``).

    *out* follows ``redecode run``'s rules for a run directory: when it already holds parts made
    under other rules (or by another :data:`redecode.job.ROW_CODE_VERSION`),
    :class:`redecode.job.RunDirectoryConflict` is raised and nothing is written, unless ``force``
    (those parts are then removed); parts of other inputs made under the same rules stay and are
    listed in the manifest, as after a run that adds archives.

    Raises :class:`BackfillError` (prior directory incomplete, of an unknown schema major version,
    input missing), :class:`KeyError` for unknown rules, :class:`redecode.job.RunDirectoryLocked`,
    :class:`redecode.job.RunDirectoryConflict`,
    :class:`ValueError` for an unknown ``executor``, :class:`ImportError` for ``"spark"`` without
    pyspark (unless ``master="inline"``).
    """
    if executor not in ("local", "spark"):
        raise ValueError(f"unknown executor {executor!r}: 'local' or 'spark'")
    wall_start = time.perf_counter()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    cpu_start = _job._cpu_seconds()
    new = get_rules(rules_name)
    try:
        out = storage.local_directory(out, "backfill")
    except ValueError as exc:
        raise BackfillError(str(exc)) from None
    if os.path.abspath(prior_dir) == os.path.abspath(out):
        raise BackfillError("--out must differ from the prior run directory")
    manifest, markers = _load_prior(prior_dir)
    base = manifest.get("cwd")
    os.makedirs(os.path.join(out, "_done"), exist_ok=True)
    lock = _job._lock_run_directory(out)
    try:
        _job._clean_tmp(out)
        _job._check_foreign(out, new, force)
        results: dict[tuple[str, int], tuple[dict, dict]] = {}
        executor_info = None
        n = workers or os.cpu_count() or 1
        if executor == "spark":
            from . import spark as _spark  # noqa: PLC0415 - pyspark only when a Spark job starts

            _spark._clean(out)  # staging left by killed attempts of an earlier backfill
            done, executor_info = _spark.map_tasks(
                markers,
                functools.partial(_backfill_task, os.path.abspath(prior_dir), os.path.abspath(out),
                                  rules_name, max_record_bytes, base=base),
                master=master,
                description=f"redecode backfill {len(markers)} shard(s) -> {out}",
            )
            for m, result in zip(markers, done):
                results[(m["path"], m["shard"])] = result
            try:
                os.rmdir(os.path.join(out, "_staging"))  # empty once every task has published
            except OSError:
                pass
            executor_info["tasks"] = len(done)
        elif n <= 1 or len(markers) <= 1:
            for m in markers:
                results[(m["path"], m["shard"])] = _backfill_shard(prior_dir, m, out, rules_name,
                                                                   max_record_bytes, base)
        else:
            ctx = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
            with cf.ProcessPoolExecutor(max_workers=min(n, len(markers)), mp_context=ctx,
                                        initializer=_job._die_with_parent) as pool:
                futures = {pool.submit(_backfill_shard, prior_dir, m, out, rules_name,
                                       max_record_bytes, base): m for m in markers}
                for fut in cf.as_completed(futures):
                    m = futures[fut]
                    results[(m["path"], m["shard"])] = fut.result()
        paths = [entry["path"] for entry in manifest["inputs"]]
        shards = [_job.Shard(m["path"], m["shard"], m["start"], m["end"]) for m in markers]
        new_markers = {k: v[0] for k, v in results.items()}
        _job._remove_stale_parts(out, paths, shards)
        # inputs completed in *out* earlier under the same rules stay, and so in the manifest
        earlier_paths, earlier_shards, earlier_markers = _job._earlier_inputs(out, paths, new)
        new_markers.update(earlier_markers)
        run_manifest = _job._manifest(paths + earlier_paths, shards + earlier_shards, new_markers, new,
                                      started_at, wall_start, cpu_start)
        full = sum(e["size"] for e in run_manifest["inputs"] if e["path"] in set(paths))
        stats = {"rows": 0, "rows_copied": 0, "rows_reread": 0, "bytes_read": 0}
        prior_schemas, prior_codes = set(), set()
        for _, s in results.values():
            for k in stats:
                stats[k] += s[k]
            prior_schemas.add(s["prior_schema"])
            prior_codes.add(str(s["prior_row_code"]))
        run_manifest["files_not_read"] = _job.files_not_read([])  # a backfill lists no inputs
        if base:
            run_manifest["cwd"] = base  # the inputs' relative paths are still the prior run's
        run_manifest["backfill"] = {
            "prior_dir": os.path.abspath(prior_dir),
            "prior_rules": manifest.get("rules"),
            "prior_schema_versions": sorted(prior_schemas),
            # "None": made before job.ROW_CODE_VERSION existed; such shards are read again in full.
            "prior_row_code_versions": sorted(prior_codes),
            **stats,
            "bytes_full_run": full,
            "bytes_fraction": round(stats["bytes_read"] / full, 6) if full else 0.0,
            "max_record_bytes": max_record_bytes,
            "wall_seconds": round(time.perf_counter() - wall_start, 3),
        }
        if executor_info is not None:
            executor_info["task_cpu_seconds"] = round(sum(r[0].get("cpu_seconds", 0.0) for r in results.values()), 3)
            run_manifest["executor"] = executor_info
        _job._write_json_atomic(os.path.join(out, "_run.json"), run_manifest)
    finally:
        lock.close()
    errors = [entry["error"] for entry in run_manifest["inputs"] if entry["error"]]
    return BackfillSummary(manifest=run_manifest, errors=errors)
