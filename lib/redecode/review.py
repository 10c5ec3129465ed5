"""An uncertain decision's text under each of its competing readings, side by side, for a person
to check.

Where the author's-text rules were not sure (the report's "For review" list: ``verdict``
``unresolved``, or ``overridden``/``kept`` with ``confidence`` ``tentative``), a person decides by
reading the record's text under the reading the rules chose next to its text under each reading
they weighed against it. A row keeps the readings' names (``encoding``, ``browser_encoding``, and
``validation``, which names every candidate weighed), not their texts: this module reads the
record again from its ``warc_path`` and ``warc_offset`` (:func:`redecode.archive.read_record_at`)
and decodes its payload under each reading.

Concept -> function:

==========================================================  ==========================================
concept                                                     here
==========================================================  ==========================================
the readings a row's decision weighed, chosen one first     :func:`competing_readings`
the payload's text under each, where they first differ      :func:`reading_excerpts`
both for a row, the record read again from its archive      :func:`review_texts`
==========================================================  ==========================================

Readings. First the chosen one: the row's ``encoding`` (or, where it is NULL, its Python
``decoder``: ``python:hz``), read in parts where the row has ``stretches`` (each stretch with its
own encoding, :func:`redecode.stretches.read_parts`), and then the same encoding read whole; then the browser's, ``browser_encoding``,
where it is another; then each other candidate that ``validation`` names (an Encoding Standard
encoding's canonical name, :data:`redecode.labels.ENCODING_NAMES`, outside parentheses), in the
order it names them; of these, the first :data:`MAX_READINGS` whose texts differ (a reading with the
same text as one before it is named beside that one). Each is decoded as the rules decode: the Encoding Standard's decoders
(:func:`redecode.decode.decode`) on the payload after its BOM (the row's ``bom``: the rules drop a
BOM's bytes whichever encoding reads the rest), Python's codec for a ``python:`` decoder
(:func:`redecode.procedures.python_decode`).

Excerpts (units: characters of the text with each run of whitespace made one space, so that
markup's line breaks and indentation take no room). The readings agree up to the first character
where the first of the others (the page read whole, for a page read in parts; else the
browser's reading; else the first candidate) differs from the chosen reading; every excerpt starts
:data:`EXCERPT_BEFORE` characters before it (at the start of a word where one starts within those characters) and holds
at most :data:`EXCERPT_CHARS`: the differing words, at the same place of each text. ``mark`` is
where the excerpt first differs from the chosen reading's. A reading that differs from the chosen
one before that excerpt or only after it is shown where it first differs instead (``at``, and
``note`` says so).

Errors: :func:`review_texts` never raises for a record that cannot be read: its ``error`` says why
(the archive cannot be opened from here, no record at that offset, a record without a payload).

Deviations: none (no standard covers this; the decoders are the standard's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from . import archive, storage
from . import stretches as _stretches
from .dataclass_code import dataclass
from .decode import decode
from .labels import ENCODING_NAMES
from .procedures import python_decode

__all__ = [
    "EXCERPT_BEFORE",
    "EXCERPT_CHARS",
    "MAX_READINGS",
    "Reading",
    "ReviewTexts",
    "competing_readings",
    "reading_excerpts",
    "review_texts",
]

#: Readings shown per record: the chosen one and at most three it was weighed against.
MAX_READINGS = 4
#: Characters of an excerpt before the first difference (fewer where a word starts among them).
EXCERPT_BEFORE = 20
#: Characters of an excerpt at most.
EXCERPT_CHARS = 80

#: BOM (the row's ``bom``) -> its length in bytes.
_BOM_BYTES = {"UTF-8": 3, "UTF-16LE": 2, "UTF-16BE": 2}

# canonical names as whole words (not inside a longer name: "UTF-16" in "UTF-16LE"), longest first
_NAMES = re.compile(
    r"(?<![\w-])(" + "|".join(re.escape(n) for n in sorted(ENCODING_NAMES, key=len, reverse=True))
    + r")(?![\w-])")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading of a record's payload, as a person checks it.

    ``name``: the encoding (Encoding Standard name) or ``python:<codec>``; ``role``: ``chosen``
    (the row's), ``whole`` (for a page read in parts: its encoding read whole, without the
    stretches), ``browser`` (``browser_encoding``, another) or ``candidate`` (named in
    ``validation``); ``in_parts``: the chosen reading of a page read in parts (``name`` is then
    the encoding outside its stretches); ``excerpt``: the differing words (characters, whitespace
    runs as one space; None where the reading could not be made); ``mark``: index in ``excerpt``
    of its first character that differs from the chosen reading's (None: none there); ``at``:
    where the excerpt starts in the reading's text (characters); ``errors``: U+FFFD the decoder
    inserted in the whole text; ``note``: what else a person should know (another place, the same
    text, an unknown codec).
    """

    name: str
    role: str
    excerpt: str | None
    mark: int | None = None
    at: int = 0
    errors: int = 0
    in_parts: bool = False
    note: str | None = None


@dataclass(frozen=True, slots=True)
class ReviewTexts:
    """What :func:`review_texts` returns: the ``readings`` (chosen first), or an ``error`` (a
    sentence: why the record's texts could not be made; ``readings`` is then empty)."""

    readings: tuple[Reading, ...] = ()
    error: str | None = None


def competing_readings(row: Mapping) -> list[tuple[str, str]]:
    """The readings a row's decision weighed: ``(name, role)`` pairs, the chosen one first (see the
    module docstring); :func:`reading_excerpts` keeps :data:`MAX_READINGS` of those that read
    differently. *row*: a mapping with the output columns
    ``encoding``, ``decoder``, ``browser_encoding`` and ``validation`` (missing ones count as NULL).
    Empty when the row names no reading (no encoding and no decoder)."""
    chosen = row.get("encoding") or row.get("decoder")
    if not chosen:
        return []
    out = [(chosen, "chosen")]
    if row.get("stretches"):
        out.append((chosen, "whole"))  # the same encoding without the stretches: what they change
    seen = {chosen}
    browser = row.get("browser_encoding")
    if browser and browser not in seen:
        out.append((browser, "browser"))
        seen.add(browser)
    validation = row.get("validation") or ""
    for m in _NAMES.finditer(validation):
        name = m.group(1)
        # a candidate's name stands outside parentheses; inside them are why it was one
        # ("sibling of windows-1252 (windows-1254)": read the same there) and a label's name
        # follows its step's colon ("transport:windows-1251", the browser's)
        outside = validation.count("(", 0, m.start()) == validation.count(")", 0, m.start())
        if outside and validation[m.start() - 1:m.start()] != ":" and name not in seen:
            out.append((name, "candidate"))
            seen.add(name)
    return out


def _decoded(body: bytes, name: str) -> tuple[str, int]:
    if name.startswith("python:"):
        return python_decode(body, name.split(":", 1)[1])
    r = decode(body, name, bom_sniff=False)
    return r.text, r.errors


def _common_prefix(a: str, b: str) -> int:
    """The length (characters) of the longest common prefix of *a* and *b* (slices compared in C,
    by halving)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _start(text: str, at: int) -> int:
    """Where an excerpt around character *at* starts: :data:`EXCERPT_BEFORE` characters before
    it, or after the first space among those (a word's start), never after *at*."""
    start = max(0, at - EXCERPT_BEFORE)
    space = text.find(" ", start, at)
    return space + 1 if start > 0 and space >= 0 else start


def reading_excerpts(payload: bytes, readings: Sequence[tuple[str, str]], *, bom: str | None = None,
                     stretches: Sequence[Mapping] | None = None) -> tuple[Reading, ...]:
    """The differing words of *payload* (bytes: the record's payload, content codings removed)
    under each of *readings* (``(name, role)`` pairs, the chosen one first, as
    :func:`competing_readings` gives them): the chosen reading and the first
    :data:`MAX_READINGS` - 1 others whose text differs from every reading kept before them (one
    that reads the same as a kept one is named in that one's ``note``). *bom*: the row's ``bom``
    (its bytes are left out of every reading); *stretches*: the row's ``stretches`` (``offset``,
    ``length`` in bytes of the payload, BOM included, and ``encoding``), which the chosen reading
    reads in parts. Excerpts as the module docstring says. A reading whose decoder is unknown (an
    unknown Python codec) has ``excerpt`` None and a note; raises nothing else for any bytes."""
    skip = _BOM_BYTES.get(bom or "", 0)
    body = bytes(payload[skip:])
    kept: list[dict] = []  # name, role, text, errors, in_parts, same (names reading the same)
    for name, role in readings:
        if len(kept) >= MAX_READINGS:
            break
        in_parts = bool(role == "chosen" and stretches)
        try:
            if in_parts:
                parts = [_stretches.Stretch(int(s["offset"]) - skip, int(s["length"]), s["encoding"])
                         for s in stretches or ()]
                text, errors = _stretches.read_parts(body, name, parts)
            else:
                text, errors = _decoded(body, name)
        except (LookupError, ValueError) as exc:
            kept.append(dict(name=name, role=role, text=None, errors=0, in_parts=in_parts, same=[],
                             note=f"cannot decode: {exc}"))
            continue
        text = _SPACE.sub(" ", text)
        twin = next((k for k in kept if k["text"] == text), None)
        if twin is not None:
            twin["same"].append(name)
            continue
        kept.append(dict(name=name, role=role, text=text, errors=errors, in_parts=in_parts, same=[], note=None))
    chosen = kept[0]["text"] if kept else None
    # where each other reading first differs from the chosen one
    firsts = [None if k["text"] is None or chosen is None else _common_prefix(chosen, k["text"])
              for k in kept[1:]]
    differ = [f for f in firsts if f is not None]
    # the place: where the first competitor differs (for a page read in parts its encoding read
    # whole, so the stretch; else the browser's reading, else the first candidate named)
    at = differ[0] if differ else 0
    start = _start(chosen or "", at)
    out: list[Reading] = []
    for i, k in enumerate(kept):
        text, note = k["text"], k["note"]
        if k["same"]:
            note = "; ".join(filter(None, (note, "the same text: " + ", ".join(k["same"]))))
        if text is None:
            out.append(Reading(k["name"], k["role"], None, errors=k["errors"], in_parts=k["in_parts"], note=note))
            continue
        mark = None if i == 0 and not differ else (at if i == 0 else firsts[i - 1])
        here = start
        if mark is not None and not start <= mark < start + EXCERPT_CHARS:
            # it differs from the chosen reading before the excerpt, or only after it: shown there
            here = _start(text, mark)
            note = "; ".join(filter(None, (note, f"differs from {kept[0]['name']} at character {mark:,}: "
                                                 "shown there")))
        out.append(Reading(k["name"], k["role"], text[here:here + EXCERPT_CHARS],
                           None if mark is None else mark - here, here, k["errors"], k["in_parts"], note))
    return tuple(out)


def review_texts(row: Mapping, *, bases: Sequence[str | None] = (),
                 max_record_bytes: int = archive.DEFAULT_MAX_RECORD_BYTES) -> ReviewTexts:
    """The texts of *row*'s record under its competing readings (:func:`competing_readings`,
    :func:`reading_excerpts`), the record read again from the row's ``warc_path`` at
    ``warc_offset`` (bytes; the row number in a raw-response Parquet) with
    :func:`redecode.archive.read_record_at`; a relative ``warc_path`` is read relative to the
    first of *bases* (the directories the runs ran in: their manifests' ``cwd``) where it exists,
    else relative to the current directory (:func:`redecode.storage.locate`). *row*: a mapping with those columns and ``bom``,
    ``stretches`` and the columns :func:`competing_readings` reads. Never raises for a record that
    cannot be read: ``error`` says why (the archive not reachable from here, no record there, no
    payload)."""
    readings = competing_readings(row)
    if not readings:
        return ReviewTexts(error="no reading to show: the row names no encoding")
    path, offset = row.get("warc_path"), row.get("warc_offset")
    if not path or offset is None:
        return ReviewTexts(error="the row names no record (warc_path, warc_offset)")
    try:
        record = archive.read_record_at(storage.locate(path, bases), int(offset),
                                        max_record_bytes=max_record_bytes)
    except archive.ArchiveError as exc:
        return ReviewTexts(error=f"archive not reachable: {exc}")
    except OSError as exc:
        return ReviewTexts(error=f"archive not reachable: {path}: {exc.strerror or exc}")
    except ValueError as exc:  # (a reader's complaint about bytes that are no record)
        return ReviewTexts(error=f"no record at {path} @ {offset}: {exc}")
    payload = record.payload if record.payload is not None else record.identity_payload
    if payload is None:
        why = f": {record.error}" if record.error else ""
        return ReviewTexts(error=f"the record at {path} @ {offset} has no payload{why}")
    return ReviewTexts(readings=reading_excerpts(payload, readings, bom=row.get("bom"),
                                                 stretches=row.get("stretches")))
