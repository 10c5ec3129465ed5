"""The author's-text decision: a browser's decision checked against the payload, and overridden
where the bytes show that a declaration, a default or the detector is wrong.

A page's declarations (BOM, HTTP ``charset``, ``<meta>``, the late meta, the XML declaration) are
evidence, not the last word: servers send a default ``charset=ISO-8859-1`` over UTF-8 pages,
templates say ``<meta charset="utf-8">`` over windows-1252 text, feeds name encodings the Encoding
Standard does not know (``encoding="MacCyrillic"``), archives keep headers that no longer match the
stored bytes. :func:`decide` makes the browser's decision (:mod:`redecode.sniff`), decodes the
payload with it, and checks the result; only when a check fires does it weigh the other
candidates. This is the procedure of the ``author-2026.12`` rules (:mod:`redecode.rules`).

Concept -> function:

=============================================================  ================================
concept                                                        here
=============================================================  ================================
the author's-text decision and its text                        :func:`decide`
the checks of step 4 (which fires first)                       :func:`check`
every threshold, as data (a rule set's ``author`` parameters)  :class:`AuthorParams`,
                                                               :data:`BASELINE`
what the checks and the weighing read in the bytes, measured   :class:`ByteProfile`
  once
a piece of evidence, a candidate reading, the one score        :class:`Evidence`,
                                                               :class:`Candidate`, ``_score``
why the primary was overridden or kept, as data                :class:`Verdict` (``validation``
                                                               is :meth:`Verdict.render`)
how far a payload is UTF-8 (valid multi-byte sequences,        :func:`utf8_profile`
  invalid ones, CESU-8 surrogate pairs)
UTF-16 without a BOM, from the NUL bytes of ASCII characters   :func:`utf16_pattern`
ISO-2022-JP / ISO-2022-KR escape sequences in 7-bit text       :func:`escape_sequences`
C1 controls a legacy decoder makes (bytes that are not chars)  :func:`c1_controls`
MIME Sniffing's binary data bytes                              :func:`binary_bytes`
how much of the non-ASCII bytes come in runs (non-Latin text)  :func:`runs_share`
symbols between letters in a windows-1252 reading               :func:`symbols_in_words`
non-letters and case flips in another script's reading          :func:`script_letters`
the top-level domain's vote (Firefox's fallback encoding)      :func:`tld_vote`
=============================================================  ================================

The shape: :func:`decide` makes the browser's decision and the primary one, decodes, and builds
the payload's :class:`ByteProfile` (each measure taken once, when first read; the checks and the
weighing read the same one, so check h's implausibility is :meth:`ByteProfile.implausible`, not a
second copy). :func:`check` answers which check fires. The weighing gathers
:class:`Candidate` readings, each with its typed :class:`Evidence`, judges their defects, and
picks the clean candidate with the highest score; the outcome is a :class:`Verdict`
(``overridden``, ``kept``, ``unresolved``), whose :meth:`~Verdict.render` is the ``validation``
column, written in that one place. Every threshold is a field of :class:`AuthorParams`;
``author-2026.12`` decides with :data:`BASELINE` (the module constants below, each with its
measurement).

The order (the steps of :mod:`redecode.sniff` with a check after them):

1. The browser's decision: BOM, transport (HTTP ``charset``), prescan, head scan, XML declaration,
   ``utf8-valid``, detector, default, exactly as :func:`redecode.sniff.decide` with the rules'
   detector. Its encoding is the row's ``browser_encoding``.
2. Undeclared pages (steps ``detector`` and ``default``) take the author detector's answer:
   the same engines, plus the top-level domain as a vote when the engines have no majority
   (Firefox's fallback for the TLD, :data:`redecode.aliases.FIREFOX_TLD_FALLBACKS`; ``.vn`` ->
   windows-1258). This is the *primary* decision.
3. The payload is decoded with the primary encoding (the Encoding Standard's decoder).
4. Checks, cheap and in this order; the first that fires sends the record to step 5:

   a. ``replacement``: the primary is the replacement encoding (a label such as ``iso-2022-kr``);
   b. ``errors``: the decode made at least ``min_errors`` U+FFFD (default 2: one bad byte in a
      declared page is not evidence enough to re-decode it);
   c. ``implausible``: UTF-16 (declared or a BOM) over HTML/XML with no NUL byte in the first
      1024 bytes (markup in UTF-16 has one in every ASCII character);

   a BOM whose decode passed a-c stands; then

   d. ``errors``: a single-byte decoder made ``min_errors`` C1 controls (:func:`c1_controls`), or
      x-user-defined read non-ASCII bytes (private-use characters);
   e. ``utf-8``: the primary is not UTF-8 or UTF-16, and the payload is non-ASCII and valid or
      mostly valid UTF-8 (:func:`_utf8_signal`: found from the first failed decode, which legacy
      text reaches at its first non-ASCII byte);
   f. ``nul``: the primary is not UTF-16 and the first 1024 bytes have the NUL pattern of UTF-16
      text (:func:`utf16_pattern`);
   g. ``escapes``: the primary is not ISO-2022-JP and the payload is 7-bit with JIS X 0208
      escape sequences (:func:`escape_sequences`);
   h. ``implausible``: the primary is a Latin-script single-byte encoding and the payload's
      non-ASCII bytes come in runs (:func:`runs_share` at least :data:`RUNS_IMPLAUSIBLE`), or it is
      windows-1252 and reads symbols between letters (:func:`symbols_in_words` at least
      :data:`SYMBOLS_IMPLAUSIBLE`), or it is a single-byte encoding of another script (Cyrillic,
      Greek, Hebrew, Arabic, Thai) and reads non-letters or case flips in the words
      (:func:`script_letters` at least :data:`NON_LETTERS_IMPLAUSIBLE` or
      :data:`CASE_FLIPS_IMPLAUSIBLE`: CJK text under a ``windows-1251`` label);
   i. ``disagree``: the declarations name different encodings, or an ignored label names, as an
      alias, another encoding than the primary (:func:`redecode.aliases.alias_encoding`);
   j. ``detected``: the primary came from the detector, and the payload may be mostly valid UTF-8.

   k. ``language`` (from ``author-2026.12.2`` on, ``AuthorParams.language``; also where j fired):
      a confusable sibling of the primary encoding (:mod:`redecode.siblings`) reads the payload
      better as language than the primary (:func:`language_check`, :mod:`redecode.language`).

   From ``author-2026.12.4`` on, check k also fires where a Greek sibling reads fewer characters
   out of place (:func:`joined_symbols`) and no worse than ``language_margin``.

   Pure-ASCII payloads stop after g (every ASCII-compatible encoding reads the same text).

5. Candidates, each with its evidence: every declaration (for XML and plain text too, and the late
   meta even when the header decided: a browser would not read them, the author's text may need
   them); aliases of unknown labels; UTF-8 when valid or mostly valid (:class:`Utf8Profile`);
   UTF-16 from the NUL pattern; ISO-2022-JP from escape sequences; the TLD default when the primary
   is the replacement encoding or implausible; the author detector with the TLD vote (only for
   non-ASCII payloads, and only when no structure decided). Each is decoded and its *defects*
   counted: U+FFFD, C1 controls, private-use characters (multi-byte and x-user-defined decoders),
   MIME Sniffing's binary data bytes (C0 controls that are not whitespace); a U+FFFD that is the
   last character (the payload was cut inside it) does not count. A candidate is *clean* with at
   most one defect per :data:`DEFECT_RATE` non-ASCII characters of its text (a pasted Word quote
   pair does not refute a right declaration; a reading that is mostly defects is refuted); UTF-8
   also when the payload is *mostly valid*. Under checks c and h the readings they name are not
   clean.

   Decisive structure first, when clean: the UTF-16 NUL pattern, ISO-2022-JP escape sequences,
   valid UTF-8 over at least :data:`UTF8_DECISIVE_RUNS` runs of non-ASCII bytes plus one per clean
   declaration against it, mostly-valid UTF-8 with at least two valid sequences and at most one
   invalid per four. Otherwise encodings that decode the payload to the same text are pooled (GBK
   and gb18030), every piece of evidence counts one, and the clean candidate with the most
   evidence wins; ties go to declarations (in step order), then structure, then the detector, then
   the default. When no candidate is clean the primary stays (the replacement encoding gives way
   to the least damaged reading).

   From ``author-2026.12.2`` on (:class:`AuthorParams`): the siblings of the primary and of every
   declaration are candidates too (evidence of weight 0); the clean candidates' readings of the
   payload's excerpt are scored as language, and the one score (``_score``) puts first the
   readings within ``language_margin`` bits of the best, then those without ``min_errors``
   defects more than the cleanest (``compare_defects``), then evidence, rank and order as above;
   a primary kept although another reading read better is ``tentative``. From
   ``author-2026.12.4`` on, in the Greek family, a reading with a symbol starting a word or a
   capital after a small letter (:func:`joined_symbols`) where a sibling reads neither comes after
   that sibling (before the evidence counts); check k's gate counts no quotation mark. HZ-GB-2312 and
   ISO-2022-KR are candidates decoded with Python's codecs where a label names them
   (``python_codecs``; :class:`redecode.sniff.CodecDecision`).

6. Pages in two encodings (rule sets whose :class:`AuthorParams` set ``stretches``): the chosen
   reading's stretches (UTF-8 runs in a legacy reading, legacy runs in a UTF-8 one) are read with
   the encoding that reads each best (:func:`redecode.stretches.read_in_parts`, whose docstring
   gives the rules; :func:`redecode.language.plausibility` judges the readings). Its candidates
   for legacy stretches: the page's declarations of legacy encodings (aliases of unknown labels
   included) and the top-level domain's fallback (:func:`tld_vote`); its detector: the author
   detector. A page read in parts gets ``source`` ``parts``, ``confidence`` ``tentative``, the
   stretches in ``stretches``, ``encoding`` the encoding of every byte outside them, and
   ``validation`` starting ``in parts:`` (then the verdict of step 5, if a check fired). From
   ``author-2026.12.5`` on (``stretch_words``) a legacy stretch's reading must read as words
   (:func:`redecode.stretches.reads_as_words`) and be told apart from the other scripts'; where
   the parts' encoding is not step 5's whole-page choice, ``validation`` says ``instead of the
   whole page read as X (...)`` and ``verdict`` is the outcome for the encoding outside the
   stretches (``kept``: the browser's; ``overridden``: another); a page declared UTF-8 that step 5
   read as a legacy encoding and whose runs read as words in none is read whole as UTF-8
   (``kept: UTF-8 read whole: ...``). From ``author-2026.12.6`` on (``outside_utf8``), on a
   payload that is not valid UTF-8 and whose UTF-8 runs hold fewer characters than its legacy
   text, steps 2 to 5 read the bytes outside those runs for the detector, check h's shares and
   the language excerpt (:func:`outside_utf8`), so that the legacy text decides the page's
   encoding and step 6 reads the runs as UTF-8 stretches; and (``same_text_names``) the page's
   and the stretches' legacy encodings are named alike among identical readings
   (:func:`_same_text_names`).

7. Names (``tie_names``, from ``author-2026.12.4`` on; done before step 6, on the decision of
   steps 1-5): a KOI8-U decision that no declaration names, on a payload without a byte where
   KOI8-R reads another character, is named KOI8-R (:func:`_tie_name`: the same text; the
   Encoding Standard's generic labels ``koi`` and ``koi8`` name KOI8-R).

Recorded in the :class:`~redecode.sniff.Decision`: ``browser_encoding``; ``source`` ``validated``
when step 5 chose another encoding than the primary (``confidence`` then ``tentative``: no
browser would have picked it with certainty); ``conflict`` lists the declarations naming another
encoding than the result, as for the browser rules (a BOM that lost as ``bom:<encoding>``);
``validation`` says why (:meth:`Verdict.render`), starting with the outcome: ``overridden: ...``,
``kept: ...`` (a check fired and the primary stood, with its evidence) or ``unresolved: ...`` (no
candidate decodes cleanly; the primary stays, tentative); :attr:`Validated.verdict` holds the same
as data. ``validation`` is None when no check fired, and for undeclared pages whose only check (j)
found no mostly-valid UTF-8.

Measured: chardet's real test pages served without a charset, 207 of 209 right
(``tests/test_author_corpus.py``; the browser rules 194). Known limits, pinned by strict xfails in
``tests/test_validate.py``: Big5 declared ``gb2312``, KOI8-R declared ``windows-1251`` and Czech,
Slovak or Turkish text under ``iso-8859-1`` fire no check; against one declaration, three GBK
words that are all valid UTF-8 overrule it.

Deviations: HZ-GB-2312 and ISO-2022-KR, which the Encoding Standard maps to the replacement
encoding, are decoded with Python's codecs under ``python_codecs``
(``tests/test_language_evidence.py::test_hz_and_iso_2022_kr_are_decoded_with_pythons_codecs``).
Otherwise this is not a browser's algorithm; :func:`decide` departs from what a browser shows
exactly where the steps above say (that is its purpose). The browser's answer is kept in
``browser_encoding``.
"""

from __future__ import annotations

import codecs
import dataclasses
import re
import threading
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from . import decode as _decode
from . import lazy as _lazy
from . import native
from ._tables import SINGLE_BYTE
from .aliases import FIREFOX_TLD_FALLBACKS, alias_encoding
from .dataclass_code import dataclass, unchecked_new
from .params import (  # (the parameters, apart so that a rule set is made without this module)
    BASELINE,
    CASE_FLIPS_IMPLAUSIBLE,
    DEFAULT_MIN_ERRORS,
    DEFECT_RATE,
    NON_LETTERS_IMPLAUSIBLE,
    RUNS_IMPLAUSIBLE,
    RUNS_MIN_BYTES,
    RUNS_WINDOW,
    SIGNAL_TRIES,
    SIGNAL_WINDOW,
    SYMBOLS_IMPLAUSIBLE,
    UTF16_MIN_UNITS,
    UTF16_OTHER_RATIO,
    UTF16_WINDOW,
    UTF16_ZERO_SHARE,
    UTF8_DECISIVE_RUNS,
    UTF8_OVERWHELMING,
    AuthorParams,
)
from .prescan import head_scan, prescan
from . import siblings as _siblings
from .sniff import CodecDecision, Decision, Detection, Facts, amend, choose, default_encoding, gather
from .sniff import choose_positional, gather_positional

# (imported on first use, not at import: a page's language and its stretches are read only on some
# pages; bound here so that each use is a global's, not an import statement's run through importlib)
_language = _lazy.module(__name__, "_language", "redecode.language")
_stretches = _lazy.module(__name__, "_stretches", "redecode.stretches")

__all__ = [
    "BASELINE",
    "CHECKS",
    "DEFAULT_MIN_ERRORS",
    "EVIDENCE_KINDS",
    "OUTCOMES",
    "RUNS_IMPLAUSIBLE",
    "UTF8_DECISIVE_RUNS",
    "AuthorParams",
    "ByteProfile",
    "Candidate",
    "Evidence",
    "Utf8Profile",
    "Validated",
    "Verdict",
    "binary_bytes",
    "c1_controls",
    "check",
    "decide",
    "escape_sequences",
    "runs_share",
    "script_letters",
    "symbols_in_words",
    "tld_vote",
    "utf16_pattern",
    "utf8_profile",
]

# --- the excerpt's reach (the thresholds, AuthorParams' defaults: redecode.params) -------------

#: Words kept on each side of a word whose readings differ in :meth:`ByteProfile.excerpt` (the
#: words around a non-ASCII one tell the language model which language it is reading).
EXCERPT_CONTEXT_WORDS = 3
#: Bytes :meth:`ByteProfile.excerpt` looks at on each side of a run for those words (a longer word
#: is cut: CJK text runs without spaces).
EXCERPT_REACH = 256


# --- the byte-level checks ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Utf8Profile:
    """How far a payload is UTF-8, from the Encoding Standard's UTF-8 decoder.

    ``multibyte``: valid 2- to 4-byte sequences; ``invalid``: U+FFFD the decoder inserted, not
    counting those of CESU-8 surrogate pairs; ``cesu_pairs``: CESU-8 surrogate pairs (a
    supplementary character written as two 3-byte surrogate sequences, ``ED A0-AF xx ED B0-BF
    xx``, as Java's modified UTF-8 and MySQL's ``utf8`` write them; six U+FFFD each in the
    standard's decoder). Counts, not bytes.
    """

    multibyte: int
    invalid: int
    cesu_pairs: int

    @property
    def valid(self) -> bool:
        """No invalid sequence and no CESU-8 pair (strictly valid UTF-8)."""
        return self.invalid == 0 and self.cesu_pairs == 0

    @property
    def mostly_valid(self) -> bool:
        """At least one valid multi-byte sequence (a CESU-8 pair counts as one) and no more invalid
        sequences than valid ones (the UTF-8 reading then loses at most as many characters as a
        legacy reading garbles)."""
        units = self.multibyte + self.cesu_pairs
        return units >= 1 and self.invalid <= units


_CESU_PAIR = _lazy.pattern(__name__, "_CESU_PAIR", rb"\xed[\xa0-\xaf][\x80-\xbf]\xed[\xb0-\xbf][\x80-\xbf]")
_HIGH = bytes(range(0x80, 0x100))


def utf8_profile(payload: bytes, decoded: _decode.DecodeResult | None = None) -> Utf8Profile:
    """:class:`Utf8Profile` of *payload* (bytes; a UTF-8 BOM counts as one multi-byte sequence
    unless *decoded*, the payload's UTF-8 decode without BOM sniffing, is given). Never raises."""
    if decoded is None:
        decoded = _decode.decode(payload, "UTF-8", bom_sniff=False)
    return _utf8_profile_of(payload, len(decoded.text), decoded.errors)


def _utf8_profile_of(payload: bytes, length: int, errors: int) -> Utf8Profile:
    """:func:`utf8_profile` from the *length* (code points) and *errors* of *payload*'s UTF-8
    decode (without BOM sniffing)."""
    ascii_bytes = len(payload.translate(None, _HIGH))
    # Every ASCII byte decodes to itself (an invalid lead byte before it is replaced, and the
    # ASCII byte read again), so the non-ASCII characters are the rest.
    non_ascii_chars = length - ascii_bytes
    cesu = len(_CESU_PAIR.findall(payload)) if b"\xed" in payload else 0
    return Utf8Profile(
        multibyte=non_ascii_chars - errors,
        invalid=errors - 6 * cesu,
        cesu_pairs=cesu,
    )


def _utf8_counts(body: bytes) -> tuple[int, int]:
    """``(length, errors)`` of *body*'s UTF-8 decode (without BOM sniffing): its text's length in
    code points and its U+FFFD, counted by the compiled core without making the text (the same
    numbers: tests/test_core.py), else from the decode."""
    if _core is not None and type(body) is bytes:
        return _core.utf8_length_errors(body)
    r = _decode.decode(body, "UTF-8", bom_sniff=False)
    return len(r.text), r.errors


def utf16_pattern(payload: bytes, *, window: int = UTF16_WINDOW, min_units: int = UTF16_MIN_UNITS,
                  zero_share: int = UTF16_ZERO_SHARE, other_ratio: int = UTF16_OTHER_RATIO) -> str | None:
    """``"UTF-16LE"`` or ``"UTF-16BE"`` when the first *window* bytes look like UTF-16 text: at
    least one code unit in *zero_share* (16) has a zero high byte (ASCII and Latin-1 characters:
    markup, spaces, digits, Latin script; NUL at odd offsets for little-endian, even for
    big-endian), and the other byte of the units is NUL at most 1/*other_ratio* (a third) as often
    (UTF-32 has at least half as many NULs at one parity as at the other: one and two in an ASCII
    character, one and one in a CJK one; binary data has them at either; CJK text in UTF-16 has a
    few characters whose low byte is zero, U+3000 or U+4E00). Cyrillic or Greek text with little
    markup has a zero high byte only in its spaces and punctuation, CJK text only in its markup:
    chardet's real pages encoded as BOM-less UTF-16 all match (410 of 410; 388 with a quarter and
    a sixteenth), none of its legacy pages and none of them encoded as UTF-32 does. At least
    *min_units* (8) code units are needed. None otherwise. Says nothing about the rest of the
    payload; the caller decodes it to check. Never raises."""
    head = payload[:window]
    n = len(head) & ~1
    units = n // 2
    if units < min_units:
        return None
    even = head[0:n:2].count(0)
    odd = head[1:n:2].count(0)
    if zero_share * odd >= units and other_ratio * even <= odd:
        return "UTF-16LE"
    if zero_share * even >= units and other_ratio * odd <= even:
        return "UTF-16BE"
    return None


# ISO-2022-JP designations of JIS X 0208 (ESC $ @, ESC $ B); ISO-2022-KR's designation of KS X
# 1001 to G1 (ESC $ ) C).
_JIS0208 = (b"\x1b$B", b"\x1b$@")
_KS_G1 = b"\x1b$)C"


def escape_sequences(payload: bytes) -> str | None:
    """``"ISO-2022-JP"`` when *payload* is 7-bit and designates JIS X 0208 (``ESC $ B`` or
    ``ESC $ @``); ``"ISO-2022-KR"`` when it is 7-bit and designates KS X 1001 (``ESC $ ) C``),
    which the Encoding Standard maps to the replacement encoding (the caller records it and
    decodes nothing with it); else None. Never raises."""
    if b"\x1b" not in payload or not payload.isascii():
        return None
    if any(e in payload for e in _JIS0208):
        return "ISO-2022-JP"
    if _KS_G1 in payload:
        return "ISO-2022-KR"
    return None


# C1 control characters (U+0080..U+009F) are in no text: a legacy decoder makes them only from
# bytes that are not characters of its encoding (windows-1252's five holes 81 8D 8F 90 9D,
# ISO-8859-x's 80..9F), so they count against a candidate like U+FFFD. In UTF-8 and UTF-16 they
# can only be code points the author encoded, and are left alone.
_C1 = _lazy.pattern(__name__, "_C1", "[\x80-\x9f]")
_UNICODE = frozenset(("UTF-8", "UTF-16LE", "UTF-16BE"))
#: single-byte encoding -> the bytes it decodes to C1 controls (for counting them in the bytes).
_C1_BYTES: dict[str, bytes] = {
    name: bytes(0x80 + m.start() for m in _C1.finditer(high)) for name, high in SINGLE_BYTE.items()
}
_ALL_BYTES = bytes(range(256))


def _flags(marked: bytes) -> bytes:
    """A 256-byte table: 1 at each byte value in *marked*, else 0."""
    table = bytearray(256)
    for b in marked:
        table[b] = 1
    return bytes(table)


_NOT = {name: _ALL_BYTES.translate(None, c1) for name, c1 in _C1_BYTES.items()}
_C1_TABLE = {name: _flags(c1) for name, c1 in _C1_BYTES.items()}  # (_core.count_bytes_in)
_HOLES = {name: [bytes([b]) for b in c1] for name, c1 in _C1_BYTES.items()}


def c1_controls(encoding: str, payload: bytes, text: str | None = None) -> int:
    """How many C1 control characters (U+0080..U+009F) the *encoding*'s decoder makes of
    *payload*: counted in the bytes for single-byte encodings, in *text* (the decode) for the other
    legacy ones; 0 for UTF-8 and UTF-16, where they are code points the author encoded. Never
    raises."""
    if encoding in _UNICODE:
        return 0
    c1 = _C1_BYTES.get(encoding)
    if c1 is not None:
        if len(c1) <= 8 and not any(b in payload for b in _HOLES[encoding]):
            # windows-125x: a few holes, rarely in a page; one memchr pass per hole byte finds
            # none far faster than the table walk below
            return 0
        if _core is not None and type(payload) is bytes:
            return _core.count_bytes_in(payload, _C1_TABLE[encoding])
        return len(payload.translate(None, _NOT[encoding]))
    if text is None:
        text = _decode.decode(payload, encoding, bom_sniff=False).text
    return len(_C1.findall(text)) if _C1.search(text) else 0


def _c1_at_least(encoding: str, payload: bytes, n: int) -> bool:
    """Whether the single-byte *encoding* makes at least *n* C1 controls of *payload* (stops at
    the *n*-th: memchr passes, no count of the whole payload)."""
    if n <= 0:
        return True
    found = 0
    for b in _HOLES[encoding]:
        i = payload.find(b)
        while i >= 0:
            found += 1
            if found >= n:
                return True
            i = payload.find(b, i + 1)
    return False


#: MIME Sniffing's "binary data byte"s: C0 controls that are not whitespace and not ESC.
_BINARY = bytes(list(range(0x00, 0x09)) + [0x0B] + list(range(0x0E, 0x1B)) + list(range(0x1C, 0x20)))
_NOT_BINARY = bytes(b for b in range(256) if b not in _BINARY)


def binary_bytes(payload: bytes) -> int:
    """How many MIME Sniffing "binary data bytes" (C0 controls other than TAB, LF, FF, CR and ESC)
    *payload* holds: characters no text has, in every ASCII-compatible reading of it. Never raises."""
    if _core is not None and type(payload) is bytes:
        return _core.binary_bytes(payload)
    return len(payload.translate(None, _NOT_BINARY))


_C1_OR_PUA = _lazy.pattern(__name__, "_C1_OR_PUA", "[\x80-\x9f\ue000-\uf8ff]")
_HIGH_BYTES = bytes(range(0x80, 0x100))
#: (``_core.count_bytes_in``) the bytes 0x80-0xFF, and the byte 0xED (a CESU-8 pair's lead)
_HIGH_TABLE = bytes(b >= 0x80 for b in range(256))
_ED_TABLE = bytes(b == 0xED for b in range(256))


def _non_ascii_chars(text: str) -> int:
    """How many characters of *text* are not ASCII (one encoder pass; a regex findall builds a
    string per character, about eight times slower on a page of text; the compiled core counts
    without the encoder's error handler, which runs once per such character)."""
    if _core is not None and type(text) is str:
        return _core.non_ascii_chars(text)
    return len(text) - len(text.encode("ascii", "ignore"))



def _not_text(encoding: str, body: bytes, text: str) -> int:
    """Characters of *encoding*'s decode of *body* that are in no text: C1 controls from a legacy
    decoder, and private-use characters from a multi-byte or x-user-defined one."""
    if encoding in _UNICODE:
        return 0
    if encoding in _C1_BYTES:
        return c1_controls(encoding, body)
    if _core is not None and type(text) is str:
        return _core.c1_or_pua(text)
    return len(_C1_OR_PUA.findall(text))


#: the bytes a single-byte encoding has no character for (its decoder makes one U+FFFD and one
#: error of each), for the encodings that have such bytes: the bytes, a 256-byte table, 1 at each
#: (``_core.count_bytes_in``), and the bytes that are not such (a ``bytes.translate`` delete set)
_ABSENT_LIST = {name: bytes(0x80 + i for i, ch in enumerate(high) if ch == "\ufffe")
                for name, high in SINGLE_BYTE.items() if "\ufffe" in high}
_ABSENT_TABLE = {name: _flags(absent) for name, absent in _ABSENT_LIST.items()}
_PRESENT = {name: _ALL_BYTES.translate(None, absent) for name, absent in _ABSENT_LIST.items()}


def _byte_counts_pure(data: bytes) -> list[int]:
    """How many times each byte value occurs in *data* (256 ints): the reference of
    ``_core.byte_counts``."""
    return [data.count(b) for b in range(256)]


def byte_counts(data: bytes) -> list[int]:
    """How many times each byte value occurs in *data*: a list of 256 ints, one pass (compiled)."""
    return _core.byte_counts(data) if _core is not None and type(data) is bytes else _byte_counts_pure(data)



def _absent_bytes(encoding: str, body: bytes, counts: list[int] | None = None) -> int:
    """How many bytes of *body* the single-byte *encoding* has no character for: the decoder
    errors of its decode (``decode(body, encoding, bom_sniff=False).errors``); *counts*: the
    body's :func:`byte_counts`, when made already."""
    table = _ABSENT_TABLE.get(encoding)
    if table is None:
        return 0
    if counts is not None:
        return sum(counts[b] for b in _ABSENT_LIST[encoding])
    if _core is not None and type(body) is bytes:
        return _core.count_bytes_in(body, table)
    return len(body.translate(None, _PRESENT[encoding]))


class _SingleByteReading:
    """A single-byte *encoding*'s decode of *body* (no BOM sniffing) as the weighing judges it,
    its text made only when read (:meth:`decoded`): one character per byte, so its length, its
    errors (:func:`_absent_bytes`), its C1 controls and non-ASCII characters are counts of the
    body's bytes (:class:`ByteProfile`), and a text of another length is not its text
    (:func:`_same_text`). A sibling judged on a page that structure decides (a UTF-8 page
    labelled ISO-8859-1: eleven of them, each a whole-page decode before) is named in
    ``validation`` without its text ever being made."""

    __slots__ = ("body", "encoding", "errors", "_decoded", "counts")
    bom_removed = False

    def __init__(self, body: bytes, encoding: str, counts: list[int] | None = None):
        self.body = body
        self.encoding = encoding
        #: the body's :func:`byte_counts` (None: not made)
        self.counts = counts
        self.errors = _absent_bytes(encoding, body, counts)
        self._decoded: _decode.DecodeResult | None = None

    def decoded(self) -> _decode.DecodeResult:
        """The decode itself (made once)."""
        if self._decoded is None:
            self._decoded = _decode.decode(self.body, self.encoding, bom_sniff=False)
        return self._decoded

    @property
    def text(self) -> str:
        return self.decoded().text

    def ends_absent(self) -> bool:
        """Whether the last character is a U+FFFD (the last byte is one the encoding lacks)."""
        table = _ABSENT_TABLE.get(self.encoding)
        return table is not None and bool(self.body) and table[self.body[-1]] == 1


def _same_text(a: "_decode.DecodeResult | _SingleByteReading",
               b: "_decode.DecodeResult | _SingleByteReading") -> bool:
    """Whether two candidates' decodes of the same body are the same text; a
    :class:`_SingleByteReading`'s length is its body's, so its text is made only to be compared
    with a text as long (a search of the body for the bytes two tables read differently costs
    more than the two decodes: sre matches a byte class a byte at a time)."""
    if (type(a) is _SingleByteReading and type(b) is _SingleByteReading and a.body is b.body
            and a.counts is not None):
        # (two single-byte decodes of one body differ exactly where it holds a byte their
        # tables read differently: known from its byte counts, no text made)
        counts = a.counts
        return not any(counts[x] for x in _pair_differing(a.encoding, b.encoding))
    la = len(a.body) if type(a) is _SingleByteReading else len(a.text)
    lb = len(b.body) if type(b) is _SingleByteReading else len(b.text)
    return la == lb and a.text == b.text


def tld_vote(tld: str | None) -> str | None:
    """Firefox's fallback encoding for *tld* (``"vn"`` -> ``"windows-1258"``), the author
    detector's tie-break; None for a TLD with no entry (Firefox then uses windows-1252)."""
    return FIREFOX_TLD_FALLBACKS.get(tld.lower()) if tld else None


def _utf8_signal(payload: bytes, params: "AuthorParams") -> tuple[bool, int]:
    """Check c: the payload is valid UTF-8, or mostly valid (a UTF-8 page with a stray byte, or cut
    inside its last character). Legacy text fails at its first non-ASCII byte nearly always, so
    this mostly costs one failed decode of the ASCII before it; the decodes read windows of the
    payload (a failed decode copies its input into the exception). Returns ``(signal, offset)``:
    *offset* is that of the first invalid byte when no UTF-8 came before it (where the page's
    non-ASCII text starts), else 0. *params*: ``signal_window`` and ``signal_tries``."""
    tries, size = params.signal_tries, params.signal_window
    if _core is not None and type(payload) is bytes:
        # the compiled twin answers valid UTF-8 and the plain legacy page in one pass (the same
        # answers: tests/test_core.py); what it leaves (UTF-8 before an invalid sequence) is below
        answer = _core.utf8_signal(payload, tries)
        if answer is not None:
            return answer
    view = memoryview(payload)
    first = -1
    n = len(payload)
    pos = 0
    skipped = 0
    multibyte = False  # valid non-ASCII seen so far
    while pos < n:
        chunk = view[pos : pos + size]
        final = pos + len(chunk) >= n
        try:
            text, used = codecs.utf_8_decode(chunk, "strict", final)
        except UnicodeDecodeError as e:
            prefix, _ = codecs.utf_8_decode(chunk[: e.start], "strict", True)
            if multibyte or not prefix.isascii():
                # valid multi-byte sequences before an invalid one: mostly valid? A window from
                # there answers for most legacy pages, whose first word is valid by chance.
                # (_mostly_valid of the UTF-8 decode reads only its length and U+FFFD: counted,
                # by the compiled core without making the text)
                window = bytes(view[pos : pos + size])
                if not multibyte and _mostly_valid_of(window, *_utf8_counts(window)) is None:
                    return False, max(first, 0)
                return _mostly_valid_of(payload, *_utf8_counts(payload)) is not None, 0
            if first < 0:
                first = pos + e.start
            skipped += 1
            if skipped >= tries:
                return False, first
            pos += e.end  # a stray byte before any UTF-8: skip it and look again
            continue
        if not text.isascii():
            multibyte = True
        if used == 0:
            break
        pos += used
    if skipped == 0:
        return True, 0  # valid UTF-8 (and not ASCII: the caller checked)
    return multibyte and _mostly_valid_of(payload, *_utf8_counts(payload)) is not None, first





def _mostly_valid(body: bytes, decoded: _decode.DecodeResult) -> Utf8Profile | None:
    """The profile of *body* (not valid UTF-8; *decoded* its UTF-8 decode) when it is mostly valid
    UTF-8, else None."""
    # A valid multi-byte sequence is at least one byte longer than its character and an invalid
    # part never shorter than its U+FFFD: with at least as many U+FFFD as that difference, UTF-8
    # cannot be mostly valid (most legacy pages stop here, without a profile).
    return _mostly_valid_of(body, len(decoded.text), decoded.errors)


def _ed_bytes(body: bytes) -> int:
    """``body.count(b"\\xed")``, by the compiled core's vectorized count where there is one."""
    if _core is not None and type(body) is bytes:
        return _core.count_bytes_in(body, _ED_TABLE)
    return body.count(b"\xed")


def _mostly_valid_of(body: bytes, length: int, errors: int) -> Utf8Profile | None:
    """:func:`_mostly_valid` from the *length* and *errors* of *body*'s UTF-8 decode."""
    shrink = len(body) - length
    if errors >= shrink and b"\xed" not in body:
        return None
    # A CESU-8 pair is 6 bytes and 6 U+FFFD (it shrinks nothing) and counts as one unit, so with
    # c pairs, mostly valid needs errors - 6c <= multibyte + c <= shrink + c. Each pair holds two
    # ED bytes: more errors than shrink + 7 * (ED bytes // 2) rules it out without the profile.
    if errors > shrink and errors > shrink + 7 * (_ed_bytes(body) // 2):
        return None
    profile = _utf8_profile_of(body, length, errors)
    return profile if profile.mostly_valid else None


# Latin-script single-byte encodings: their non-ASCII letters stand alone between ASCII ones
# (café, Größe, żółw). Text in a CJK, Cyrillic, Greek, Hebrew, Arabic or Thai encoding is made of
# runs of non-ASCII bytes; read as a Latin encoding it is mojibake without a single U+FFFD.
_LATIN = frozenset((
    "windows-1250", "windows-1252", "windows-1254", "windows-1257", "ISO-8859-2", "ISO-8859-3",
    "ISO-8859-4", "ISO-8859-10", "ISO-8859-13", "ISO-8859-14", "ISO-8859-15", "ISO-8859-16",
    "macintosh",
))
# (RUNS_IMPLAUSIBLE, the share at or above which a Latin reading is implausible: redecode.params)
_RUNS_MAP = bytes(0x80 if b >= 0x80 else 0x61 for b in range(256))


def runs_share(payload: bytes, start: int = 0, *, window: int = RUNS_WINDOW,
               min_bytes: int = RUNS_MIN_BYTES) -> float:
    """How much of *payload*'s non-ASCII bytes come in runs: twice the non-overlapping pairs of
    adjacent non-ASCII bytes over the non-ASCII bytes, in the *window* bytes from *start* (0 with
    fewer than *min_bytes* non-ASCII bytes there). Near 0 for Latin-script text, near 1 for text
    in other scripts' legacy encodings. Never raises."""
    if _core is not None and type(payload) is bytes and start >= 0 and window >= 0 and min_bytes >= 1:
        return _core.runs_share(payload, start, window, min_bytes)
    t = payload[start : start + window].translate(_RUNS_MAP)
    high = t.count(b"\x80")
    if high < min_bytes:
        return 0.0
    return 2 * t.count(b"\x80\x80") / high


# (SYMBOLS_IMPLAUSIBLE, the share at or above which a windows-1252 reading is implausible:
# redecode.params)
# windows-1252 symbols that Latin-2 letters become, and that Western text does not put between
# two letters: A1-BF and × ÷, less those that do sit between or beside letters in real text
# (NBSP, © « soft hyphen ® ° ´ as an apostrophe, · in Catalan l·l, º ª »).
_SYMBOLS = frozenset(b for b in range(0xA1, 0xC0)
                     if b not in (0xA9, 0xAA, 0xAB, 0xAD, 0xAE, 0xB0, 0xB4, 0xB7, 0xBA, 0xBB)) | {0xD7, 0xF7}
# letters (ASCII, and windows-1252's C0-FF but × ÷) -> "a", those symbols -> "s", the rest -> " "
_SYMBOLS_MAP = bytes(
    0x61 if (0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A or (0xC0 <= b <= 0xFF and b not in (0xD7, 0xF7)))
    else 0x73 if b in _SYMBOLS else 0x20 for b in range(256))


def symbols_in_words(payload: bytes, start: int = 0, *, window: int = RUNS_WINDOW,
                     min_bytes: int = RUNS_MIN_BYTES) -> float:
    """The share of *payload*'s non-ASCII bytes that windows-1252 reads as a symbol between two
    letters (``Za¿ó³æ``: ż and ł of ISO-8859-2 are ¿ and ³ there), in the *window* bytes from
    *start* (0 with fewer than *min_bytes* non-ASCII bytes). 0 for text in windows-1252, whose
    characters between letters are letters; high for Polish, Croatian or Slovene in ISO-8859-2 or
    windows-1250. Never raises."""
    if _core is not None and type(payload) is bytes and start >= 0 and window >= 0 and min_bytes >= 1:
        return _core.symbols_in_words(payload, _SYMBOLS_MAP, start, window, min_bytes)
    part = payload[start : start + window]
    high = len(part) - len(part.translate(None, _HIGH))
    if high < min_bytes:
        return 0.0
    t = part.translate(_SYMBOLS_MAP)
    # "asa" counted without overlap misses the second symbol of "asasa": count those too
    return (t.count(b"asa") + t.count(b"asasa")) / high


# Single-byte encodings of other scripts (Cyrillic, Greek, Hebrew, Arabic, Thai): their non-ASCII
# bytes are nearly all letters of the script, lower-case after upper-case where it has case.
_NON_LATIN = frozenset((
    "windows-1251", "KOI8-R", "KOI8-U", "ISO-8859-5", "IBM866", "x-mac-cyrillic", "windows-1253",
    "ISO-8859-7", "windows-1255", "ISO-8859-8", "ISO-8859-8-I", "windows-1256", "ISO-8859-6",
    "windows-874",
))
# (NON_LETTERS_IMPLAUSIBLE and CASE_FLIPS_IMPLAUSIBLE, script_letters' shares at or above which
# such a reading is implausible: redecode.params)


def _letter_classes(encoding: str) -> bytes:
    """A ``bytes.translate`` table: ASCII -> ``a``; the *encoding*'s non-ASCII bytes by what they
    decode to: ``l`` lower-case letter, ``u`` upper-case, ``o`` other letter or mark, ``s`` the
    rest (symbols, punctuation, controls, U+FFFD)."""
    import unicodedata  # noqa: PLC0415 - only for the tables, built once per encoding

    def cls(ch: str) -> int:
        cat = unicodedata.category(ch)
        return ord("l") if cat == "Ll" else ord("u") if cat == "Lu" else ord("o") if cat[0] in "LM" else ord("s")

    return b"a" * 128 + bytes(cls(ch) for ch in SINGLE_BYTE[encoding])


_LETTER_CLASSES: dict[str, bytes] = {}
_WORD_CLASSES: dict[tuple[str, bool], bytes] = {}


def _word_classes(encoding: str, quotes: bool = False) -> bytes:
    """:func:`_letter_classes` with ASCII letters by case too (``l``/``u``) and other ASCII bytes
    as spaces: a case flip inside a word counts across ASCII and non-ASCII letters. *quotes*:
    quotation marks (general categories ``Pi``, ``Pf``, ``Ps``, ``Pe``: „ ” « » ‘ ’) are spaces
    too."""
    table = _WORD_CLASSES.get((encoding, quotes))
    if table is None:
        t = bytearray(_letter_classes(encoding))
        for b in range(128):
            t[b] = ord("l") if 0x61 <= b <= 0x7A else ord("u") if 0x41 <= b <= 0x5A else ord(" ")
        if quotes:
            import unicodedata  # noqa: PLC0415 - once per encoding

            for i, ch in enumerate(SINGLE_BYTE[encoding]):
                if unicodedata.category(ch) in ("Pi", "Pf", "Ps", "Pe"):
                    t[0x80 + i] = ord(" ")
        table = _WORD_CLASSES[(encoding, quotes)] = bytes(t)
    return table


def anomalies(data: bytes, encoding: str, *, quotes: bool = False) -> int:
    """How many non-ASCII bytes the single-byte *encoding* reads as something other than a letter
    or mark, plus how many upper-case letters it reads right after a lower-case one (``пРИВЕТ``,
    ``ZaĽó``): what a wrong single-byte reading of text has more of than the right one. Counts,
    not shares. *quotes*: quotation marks („ ” « » ‘ ’: text in every language) are not counted
    (``AuthorParams.quotes_are_text``). Raises ``KeyError`` for an encoding that is not
    single-byte."""
    table = _word_classes(encoding, quotes)
    if _core is not None and type(data) is bytes:
        return _core.class_anomalies(data, table)
    t = data.translate(table)
    return t.count(b"s") + t.count(b"lu")


#: Unicode general categories of the characters :func:`joined_symbols` counts at the start of a
#: word: symbols (``S*``: ΅ € ®) and other punctuation (``Po``: ¶ §), which no writer puts before
#: the letters of a word; quotes and apostrophes (``Pi``, ``Pf``: ‘ ’) are not counted, since Greek
#: writes ’ there (aphaeresis: ``να ’ναι``), nor are brackets and dashes.
_NOT_WORD_STARTS = ("S", "Po")


def joined_symbols(text: str) -> int:
    """How many characters of *text* stand where no writer puts them: a non-ASCII symbol or
    ``Po`` punctuation (:data:`_NOT_WORD_STARTS`) that starts a word (it follows a character that
    is not a letter, or the start, and precedes a letter: ``¶ρθρο``, where windows-1253 reads
    ISO-8859-7's Ά), and an upper-case letter right after a lower-case one (``τΆ αρχείο``, where
    windows-1253 reads ISO-8859-7's apostrophe in ``τ’ αρχείο`` as Ά). Counts characters of a
    ``str``; never raises."""
    import unicodedata  # noqa: PLC0415 - only for pages of a family with joined_families

    n = 0
    prev_letter = prev_lower = False
    last = len(text) - 1
    for i, ch in enumerate(text):
        letter = ch.isalpha()
        if letter:
            if prev_lower and ch.isupper():
                n += 1
        elif (ch >= "\x80" and not prev_letter and i < last and text[i + 1].isalpha()
              and unicodedata.category(ch).startswith(_NOT_WORD_STARTS)):
            n += 1
        prev_letter, prev_lower = letter, letter and ch.islower()
    return n


def script_letters(payload: bytes, encoding: str, start: int = 0, *, window: int = RUNS_WINDOW,
                   min_bytes: int = RUNS_MIN_BYTES) -> tuple[float, float]:
    """``(non_letters, case_flips)``: the shares of *payload*'s non-ASCII bytes that the
    single-byte *encoding* reads as something other than a letter or mark, and as an upper-case
    letter right after a lower-case non-ASCII one (``пРИВЕТ``), in the *window* bytes from
    *start*; ``(0.0, 0.0)`` with fewer than *min_bytes* non-ASCII bytes. Low for
    text in *encoding*; high for CJK or UTF-8 bytes read as Cyrillic, Greek, Hebrew, Arabic or
    Thai. Raises ``KeyError`` for an encoding that is not single-byte."""
    table = _LETTER_CLASSES.get(encoding)
    if table is None:
        table = _LETTER_CLASSES[encoding] = _letter_classes(encoding)
    if _core is not None and type(payload) is bytes and start >= 0 and window >= 0 and min_bytes >= 1:
        return _core.script_letters(payload, table, start, window, min_bytes)
    t = payload[start : start + window].translate(table)
    high = len(t) - t.count(b"a")
    if high < min_bytes:
        return 0.0, 0.0
    return t.count(b"s") / high, t.count(b"lu") / high


def _unknown_labels(facts) -> list[tuple[str, str]]:
    """``(where, label)`` of each label the standard does not know, in step order (``where``:
    ``transport``, ``meta`` or ``xml-declaration``)."""
    if not facts.ignored:
        return []  # (the usual page: no label ignored)
    out: list[tuple[str, str]] = []
    rest = list(facts.ignored)
    if facts.header_charset is not None and facts.header_encoding is None and rest:
        out.append(("transport", rest.pop(0)))
    xml = None
    if facts.xml_charset is not None and facts.xml_encoding is None and rest:
        xml = ("xml-declaration", rest.pop())
    out += [("meta", label) for label in rest]
    if xml is not None:
        out.append(xml)
    return out


_NON_ASCII_RUN = _lazy.pattern(__name__, "_NON_ASCII_RUN", rb"[\x80-\xff]+")

# the words around a run (ByteProfile.excerpt): the rest of the run's word, then up to
# EXCERPT_CONTEXT_WORDS words, each after whitespace or tags; _WORDS_BEFORE reads reversed bytes
_WORDS_AFTER = _lazy.pattern(__name__, "_WORDS_AFTER", rb"([^\s<>]*)(?:(?:\s|<[^<>]{0,%d}>)+[^\s<>]+){0,%d}" % (EXCERPT_REACH, EXCERPT_CONTEXT_WORDS))
_WORDS_BEFORE = _lazy.pattern(__name__, "_WORDS_BEFORE", rb"[^\s<>]*(?:(?:\s|>[^<>]{0,%d}<)+[^\s<>]+){0,%d}" % (EXCERPT_REACH, EXCERPT_CONTEXT_WORDS))
_TAG = _lazy.pattern(__name__, "_TAG", rb"<[^<>]*>")


#: Bytes of payload :func:`_runs_from` tests at once for ASCII before searching them for runs.
SCAN_CHUNK = 1024


def _runs_from(runs: "re.Pattern[bytes]", data: bytes, pos: int):
    """``runs.finditer(data, pos)``, faster over long ASCII stretches (a page's scripts and style
    sheets between its words): a chunk of :data:`SCAN_CHUNK` bytes that is all ASCII is skipped
    whole (``bytes.isascii`` tests it at C speed; the regular expression tests each byte), since
    every byte *runs* matches is non-ASCII. Yields the same matches, each a whole run."""
    n = len(data)
    while pos < n:
        end = min(n, pos + SCAN_CHUNK)
        if data[pos:end].isascii():
            pos = end
            continue
        m = runs.search(data, pos, end)
        if m is None:
            pos = end
            continue
        if m.end() == end < n:
            m = runs.match(data, m.start())  # the run goes on past the chunk: take it whole
        yield m
        pos = m.end()


@cache
def differing_bytes(encodings: frozenset[str]) -> "re.Pattern[bytes] | None":
    """A pattern for the runs of bytes that *encodings* (Encoding Standard names) read as
    different characters: where all are single-byte, the bytes 0x80-0xFF at which their tables
    (:data:`redecode._tables.SINGLE_BYTE`) differ (None when there is none: every reading is the
    same text); otherwise every non-ASCII byte."""
    diff = _differing(encodings)
    if not diff:
        return None
    if diff == _HIGH_BYTES:
        return _lazy.compiled(_NON_ASCII_RUN)
    return re.compile(b"[" + b"".join(b"\\x%02x" % b for b in diff) + b"]+")


def _differing(encodings: frozenset[str]) -> bytes:
    """The bytes :func:`differing_bytes` matches runs of, in order (empty: none)."""
    if all(e in SINGLE_BYTE for e in encodings):
        first, *rest = (SINGLE_BYTE[e] for e in encodings)
        same = [True] * 128
        for t in rest:  # (one comparison of two strings per table, not a set per byte)
            if t != first:
                same = [s and a == b for s, a, b in zip(same, first, t)]
        return bytes(0x80 + i for i, s in enumerate(same) if not s)
    return _HIGH_BYTES


#: The 128 ASCII bytes (``bytes.translate`` deletes them to leave the non-ASCII ones).
_ASCII = bytes(range(0x80))


@cache
def _pair_differing(a: str, b: str) -> frozenset[int]:
    """The bytes 0x80-0xFF that the single-byte encodings *a* and *b* read as different
    characters (their tables differ there): a byte string holding none of them reads the same
    text in both."""
    return frozenset(_differing(frozenset((a, b))))


@cache
def _differing_table(encodings: frozenset[str]) -> bytes | None:
    """:func:`differing_bytes` as a table for the compiled core: 256 bytes, 1 at each byte
    (None when no byte differs)."""
    diff = frozenset(_differing(encodings))
    return bytes(1 if b in diff else 0 for b in range(256)) if diff else None


def _excerpt_spans(runs: "re.Pattern[bytes]", data: bytes, pos: int, cap: int,
                   max_words: int) -> list[list[int]]:
    """The spans ``[start, end]`` (byte offsets, in order) of :meth:`ByteProfile.excerpt`: the
    words of *data* holding a run of *runs* (from *pos*), each with
    :data:`EXCERPT_CONTEXT_WORDS` words on each side (read at most :data:`EXCERPT_REACH` bytes
    from the run), overlapping spans merged, a run longer than *cap* bytes cut after an even
    number of bytes, until *max_words* words or *cap* bytes in all (the last span cut to *cap*).
    The compiled twin is ``_core.excerpt_spans`` (the same spans, tests/test_core.py)."""
    n, reach = len(data), EXCERPT_REACH
    spans: list[list[int]] = []
    word_end = total = 0
    words = 0
    for m in _runs_from(runs, data, pos):
        s, e = m.span()
        if s < word_end:
            continue  # another run of the same word
        if e - s > cap:
            e = s + (cap & ~1)  # a long run of double-byte text: cut between two characters
        after = _WORDS_AFTER.match(data, e, min(n, e + reach))
        word_end, end = after.end(1), after.end()
        if spans and s <= spans[-1][1]:
            total += max(0, end - spans[-1][1])
            spans[-1][1] = max(spans[-1][1], end)
        else:
            lo = max(s - reach, spans[-1][1] if spans else 0)
            start = s - _WORDS_BEFORE.match(data[lo:s][::-1]).end()
            spans.append([start, end])
            total += end - start
        words += 1
        if words >= max_words or total >= cap:
            break
    if total > cap:
        spans[-1][1] -= total - cap
    return spans
_UTF16 = frozenset(("UTF-16LE", "UTF-16BE"))
#: The compiled core (:mod:`redecode.native`): one-pass twins of the byte measures above (the same
#: answers, tests/test_core.py), or None for the pure-Python code.
_core = native.core




# --- the byte profile -------------------------------------------------------------------------


class ByteProfile:
    """What the checks (step 4) and the weighing (step 5) read in a payload's bytes, each measured
    once, when first asked: whether it is ASCII, a NUL byte in the UTF-16 window and the UTF-16
    pattern, escape sequences, the UTF-8 signal of check e, where the non-ASCII bytes start, the
    binary data bytes, and the shares of check h (:func:`runs_share`, :func:`symbols_in_words`,
    :func:`script_letters`) from a given offset. One profile per byte string: :meth:`after`
    gives the profile of the payload after its BOM, which the weighing reads.

    *data*: the bytes; *kind*: ``html``/``xml``/``text`` (UTF-16 markup has NUL bytes, plain text
    need not); *params*: the thresholds; *ascii_only*, *utf8_valid*: what the browser's steps
    already measured (:class:`redecode.sniff.Facts`), or None. *evidence* (``outside_utf8``):
    the bytes that the shares of check h, :attr:`first_high` and the language excerpt read, where
    they are not *data*: :func:`outside_utf8` of it, the same length (None: *data*). Never raises.
    """

    __slots__ = ("data", "evidence", "kind", "params", "_ascii_only", "_utf8_valid", "_nul", "_utf16", "_escapes",
                 "_signal", "_first_high", "_binary", "_shares", "_excerpts", "_readings", "language",
                 "_high", "_c1", "_counts")

    def __init__(self, data: bytes, kind: str, params: AuthorParams = BASELINE, *,
                 ascii_only: bool | None = None, utf8_valid: bool | None = None,
                 evidence: bytes | None = None):
        self.data = data
        self.evidence = data if evidence is None else evidence
        self.kind = kind
        self.params = params
        self._ascii_only = ascii_only
        self._utf8_valid = utf8_valid
        self._nul: bool | None = None
        self._utf16: str | None | bool = False  # False: not measured yet
        self._escapes: str | None | bool = False
        self._signal: tuple[bool, int] | None = None
        self._first_high = -1
        self._binary = -1
        # (the caches below are made when first used: most profiles, a UTF-8 page's, need none)
        self._shares: dict[tuple[str, int], Any] | None = None
        self._excerpts: dict[frozenset[str], bytes] | None = None
        self._readings: dict[tuple[str, frozenset[str]], _decode.DecodeResult] | None = None
        self._high = -1
        self._c1: dict[bytes, int] | None = None
        self._counts: list[int] | None = None
        #: what check k found (:class:`LanguageFinding`), for the weighing; None before it ran
        self.language: LanguageFinding | None = None

    def after(self, n: int) -> "ByteProfile":
        """The profile of ``data[n:]`` (the payload after an *n*-byte BOM); this one for 0."""
        if n == 0:
            return self
        return ByteProfile(self.data[n:], self.kind, self.params,
                           evidence=None if self.evidence is self.data else self.evidence[n:])

    @property
    def ascii_only(self) -> bool:
        """Every byte is ASCII."""
        if self._ascii_only is None:
            self._ascii_only = self.data.isascii()
        return self._ascii_only

    @property
    def nul_in_window(self) -> bool:
        """A NUL byte in the first ``utf16_window`` bytes (UTF-16 markup has one in every ASCII
        character)."""
        if self._nul is None:
            self._nul = self.data.find(b"\x00", 0, self.params.utf16_window) >= 0
        return self._nul

    def utf16(self) -> str | None:
        """:func:`utf16_pattern` (``UTF-16LE``/``UTF-16BE``/None), read only with a NUL byte in the
        window."""
        if self._utf16 is False:
            p = self.params
            self._utf16 = utf16_pattern(self.data, window=p.utf16_window, min_units=p.utf16_min_units,
                                        zero_share=p.utf16_zero_share,
                                        other_ratio=p.utf16_other_ratio) if self.nul_in_window else None
        return self._utf16  # type: ignore[return-value]

    def escapes(self) -> str | None:
        """:func:`escape_sequences`."""
        if self._escapes is False:
            self._escapes = escape_sequences(self.data)
        return self._escapes  # type: ignore[return-value]

    def utf8_signal(self) -> tuple[bool, int]:
        """Check e's ``(signal, offset)``: see :func:`_utf8_signal`."""
        if self._signal is None:
            if self._utf8_valid is not None:
                self._signal = (self._utf8_valid, 0)
            else:
                self._signal = _utf8_signal(self.data, self.params)
        return self._signal

    @property
    def first_high(self) -> int:
        """Offset (bytes) of the first non-ASCII byte of :attr:`evidence`, 0 when there is none."""
        if self._first_high < 0:
            if _core is not None and type(self.evidence) is bytes:
                self._first_high = max(_core.first_non_ascii(self.evidence), 0)
            else:
                m = _NON_ASCII_RUN.search(self.evidence)
                self._first_high = m.start() if m else 0
        return self._first_high

    @property
    def high_bytes(self) -> int:
        """Bytes above 0x7F: the non-ASCII characters of every single-byte encoding's decode
        (each byte one character, ASCII only from an ASCII byte: the Encoding Standard's
        single-byte indexes), counted once."""
        if self._high < 0:
            if _core is not None and type(self.data) is bytes:
                self._high = _core.count_bytes_in(self.data, _HIGH_TABLE)  # (a vectorized count)
            else:
                self._high = len(self.data) - len(self.data.translate(None, _HIGH_BYTES))
        return self._high

    def c1(self, encoding: str) -> int:
        """:func:`c1_controls` of the single-byte *encoding*, counted once per set of bytes that
        decode to C1 controls (the ISO-8859 encodings share one), from :attr:`counts`."""
        key = _C1_BYTES[encoding]
        cache = self._c1
        if cache is None:
            cache = self._c1 = {}
        n = cache.get(key)
        if n is None:
            counts = self.counts
            n = cache[key] = sum(counts[b] for b in key)
        return n

    @property
    def counts(self) -> list[int]:
        """:func:`byte_counts` of the data (256 ints), counted once: the single-byte readings'
        C1 controls and absent bytes, and whether two of them are the same text, are sums of it."""
        if self._counts is None:
            self._counts = byte_counts(self.data)
        return self._counts

    @property
    def binary(self) -> int:
        """:func:`binary_bytes`: C0 controls no text has, the same in every ASCII-compatible
        reading."""
        if self._binary < 0:
            self._binary = binary_bytes(self.data)
        return self._binary

    def runs(self, start: int) -> float:
        """:func:`runs_share` from *start*."""
        key = ("runs", start)
        shares = self._shares
        if shares is None:
            shares = self._shares = {}
        v = shares.get(key)
        if v is None:
            p = self.params
            v = shares[key] = runs_share(self.evidence, start, window=p.window, min_bytes=p.min_high_bytes)
        return v

    def symbols(self, start: int) -> float:
        """:func:`symbols_in_words` from *start*."""
        key = ("symbols", start)
        shares = self._shares
        if shares is None:
            shares = self._shares = {}
        v = shares.get(key)
        if v is None:
            p = self.params
            v = shares[key] = symbols_in_words(self.evidence, start, window=p.window, min_bytes=p.min_high_bytes)
        return v

    def letters(self, encoding: str, start: int) -> tuple[float, float]:
        """:func:`script_letters` of the single-byte *encoding* from *start*."""
        key = (encoding, start)
        shares = self._shares
        if shares is None:
            shares = self._shares = {}
        v = shares.get(key)
        if v is None:
            p = self.params
            v = shares[key] = script_letters(self.evidence, encoding, start, window=p.window,
                                             min_bytes=p.min_high_bytes)
        return v

    def excerpt(self, encodings: Sequence[str]) -> bytes:
        """The bytes language evidence reads of the *encodings*' readings: the words (runs of bytes
        between ASCII whitespace and tags) holding a byte that the readings decode differently
        (:func:`differing_bytes`: for single-byte encodings the bytes where their tables differ,
        else every non-ASCII byte), the first ``language_words`` of them with
        :data:`EXCERPT_CONTEXT_WORDS` words on each side (a word is read at most
        :data:`EXCERPT_REACH` bytes from its run; a run at most ``language_window`` bytes, cut
        after an even number of bytes), in order, joined by a newline, tags inside replaced by a
        space, at most ``language_window`` bytes in all. ``b""`` when no byte differs. The cuts
        fall at ASCII whitespace or a tag, where every ASCII-compatible decoder is in step (no
        trail byte of Shift_JIS, GBK, Big5 or EUC-KR is below 0x40), so each encoding's decode
        of the excerpt is its reading of those words of the payload; a word read only in part
        (longer than the reach) may start or end with a broken character, the same bytes in
        every reading. Made once per set of encodings; costs a search of the payload up to the
        last word taken, and a few matches per word."""
        key = encodings if type(encodings) is frozenset else frozenset(encodings)
        excerpts = self._excerpts
        if excerpts is None:
            excerpts = self._excerpts = {}
        found = excerpts.get(key)
        if found is None:
            found = excerpts[key] = self._cut(key)
        return found

    def _cut(self, key: frozenset[str]) -> bytes:
        table = _differing_table(key)
        if table is None or self.ascii_only:
            return b""
        data, p = self.evidence, self.params
        if _core is not None and type(data) is bytes:
            spans = _core.excerpt_spans(data, table, self.first_high, EXCERPT_REACH,
                                        p.language_window, p.language_words, EXCERPT_CONTEXT_WORDS)
            # (b"\n".join of the spans' bytes, in one allocation)
            return _core.untag(_core.join_spans(data, spans))
        spans = _excerpt_spans(differing_bytes(key), data, self.first_high, p.language_window,
                               p.language_words)
        joined = b"\n".join(data[a:b] for a, b in spans)
        return _core.untag(joined) if _core is not None else _TAG.sub(b" ", joined)

    def reading(self, encoding: str, encodings: Sequence[str]) -> _decode.DecodeResult:
        """*encoding*'s decode of the :meth:`excerpt` of *encodings* (no BOM sniffing), made once."""
        key = (encoding, encodings if type(encodings) is frozenset else frozenset(encodings))
        readings = self._readings
        if readings is None:
            readings = self._readings = {}
        r = readings.get(key)
        if r is None:
            r = readings[key] = _decode.decode(self.excerpt(encodings), encoding, bom_sniff=False)
        return r

    def implausible(self, encoding: str, start: int) -> bool:
        """Whether *encoding*'s reading cannot be the author's text, whatever its decoder made
        (checks c and h, and the weighing's): UTF-16 over HTML/XML without a NUL byte in the
        window; a Latin-script single-byte reading of non-ASCII bytes that come in runs, or for
        windows-1252 that reads symbols between letters; another script's single-byte reading
        with non-letters or case flips in its words (shares from *start*, bytes)."""
        if encoding in _LATIN:
            if self.ascii_only:
                return False
            p = self.params
            if self.runs(start) >= p.runs_implausible:
                return True
            return encoding == "windows-1252" and self.symbols(start) >= p.symbols_implausible
        if encoding in _NON_LATIN:
            if self.ascii_only:
                return False
            p = self.params
            non_letters, flips = self.letters(encoding, start)
            return non_letters >= p.non_letters_implausible or flips >= p.case_flips_implausible
        if encoding in _UTF16:
            return self.kind != "text" and not self.nul_in_window
        return False


# --- the decision's data ------------------------------------------------------------------------

#: Evidence kinds, in the order of the weighing's tie-break (lower wins a tie): a declaration
#: (BOM, transport, meta, XML declaration), an alias of an unknown label, structure (valid or
#: mostly valid UTF-8, the UTF-16 NUL pattern, ISO-2022-JP escape sequences, the browser's
#: ``utf8-valid`` step; HZ or ISO-2022-KR escapes under a label naming them), the detector, the
#: default; from ``author-2026.12.2`` on, a confusable sibling of the primary or a declaration
#: (weight 0: a candidate, no vote) and language (weight 0: what the reading reads as).
EVIDENCE_KINDS = ("declaration", "alias", "structure", "detector", "default", "sibling", "language")
_RANK = {kind: i for i, kind in enumerate(EVIDENCE_KINDS)}


@dataclass(frozen=True, slots=True)
class Evidence:
    """One piece of evidence for a candidate encoding.

    ``kind``: one of :data:`EVIDENCE_KINDS`; ``where``: what ``validation`` writes for it
    (``"transport:iso-8859-1"``, ``"meta:MacCyrillic (alias of x-mac-cyrillic)"``,
    ``"valid UTF-8"``, ``"detector"``); ``encoding``: the encoding it names; ``weight``: what it
    adds to its candidate's score (1 for every piece in ``author-2026.12``).
    """

    kind: str
    where: str
    encoding: str
    weight: int = 1

    @property
    def rank(self) -> int:
        """The kind's place in :data:`EVIDENCE_KINDS` (the tie-break: lower wins)."""
        return _RANK[self.kind]


#: ``Evidence(kind, where, encoding, weight)``, faster (a few per weighed record)
_new_evidence = unchecked_new(Evidence)


class Candidate:
    """One candidate encoding as the weighing saw it: ``encoding``; ``evidence`` (in the order
    found; encodings that read the same text pool theirs under one candidate); ``result`` its
    decode of the payload after the BOM (:class:`redecode.decode.DecodeResult`, or for a
    single-byte encoding a :class:`_SingleByteReading`, whose text is made when read); ``defects``
    (U+FFFD, C1 controls, private-use and binary-data characters, not counting a U+FFFD that is
    the last character); ``clean`` (at most one defect per ``defect_rate`` non-ASCII characters,
    and plausible); ``implausible`` (:meth:`ByteProfile.implausible`, or a reading checks c/h
    named); ``language`` (its plausibility as text, when language evidence was read); ``codec``
    (a Python codec for the encodings the Encoding Standard does not decode, else None)."""

    __slots__ = ("encoding", "evidence", "result", "defects", "clean", "implausible", "language", "codec")

    def __init__(self, encoding: str, codec: str | None = None):
        self.encoding = encoding
        #: the Python codec that decodes it (HZ-GB-2312, ISO-2022-KR), else None
        self.codec = codec
        #: its :class:`redecode.language.Plausibility` among the clean candidates, when read
        self.language: Any = None
        self.evidence: list[Evidence] = []
        self.result: _decode.DecodeResult | _SingleByteReading | None = None
        self.defects = 0
        self.clean = False
        self.implausible = False

    @property
    def rank(self) -> int:
        """The best rank of its evidence (:attr:`Evidence.rank`)."""
        return min(e.rank for e in self.evidence)

    @property
    def weight(self) -> int:
        """The sum of its evidence's weights."""
        return sum(e.weight for e in self.evidence)

    def evidence_words(self) -> str:
        """Its evidence as ``validation`` writes it: ``where`` of each, pooled evidence with the
        encoding that brought it (``"detector (gb18030)"``)."""
        return ", ".join(e.where if e.encoding == self.encoding else f"{e.where} ({e.encoding})"
                         for e in self.evidence)

    def defect_words(self) -> str:
        """What is wrong with its reading, in words (``"3 U+FFFD"``, ``"implausible"``...)."""
        if self.defects == 0 and not self.clean:
            return "implausible"
        words = [f"{self.result.errors} U+FFFD"] if self.result.errors else []
        if self.defects > self.result.errors:
            words.append("control or private-use characters")
        return " and ".join(words) or "0 U+FFFD"

    def __repr__(self) -> str:
        return (f"Candidate({self.encoding!r}, {self.evidence_words()!r}, defects={self.defects}, "
                f"clean={self.clean})")


#: The checks of step 4 by name (:func:`check`'s answers).
CHECKS = ("replacement", "errors", "implausible", "utf-8", "nul", "escapes", "disagree", "detected",
          "language")
#: The outcomes a :class:`Verdict` records (the first word of ``validation``).
OUTCOMES = ("overridden", "kept", "unresolved")

_KR_NOTE = "ISO-2022-KR escape sequences (not an Encoding Standard encoding)"


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """Why the author's-text rules overrode or kept the primary decision, as data; ``validation``
    is :meth:`render`'s text.

    ``outcome``: one of :data:`OUTCOMES`; ``check``: the check that fired (:data:`CHECKS`);
    ``against``: why the primary was checked, in words; ``primary``: the primary's encoding;
    ``winner``: the candidate that won (None when ``unresolved``); ``others``: the other
    candidates the text names, in order; ``notes``: what else it says (ISO-2022-KR escape
    sequences).
    """

    outcome: str
    check: str
    against: str
    primary: str
    winner: Candidate | None
    others: tuple[Candidate, ...] = ()
    notes: tuple[str, ...] = ()

    def render(self) -> str:
        """The ``validation`` column: ``"<outcome>: <against>; ..."``."""
        if self.outcome == "unresolved":
            text = f"unresolved: {self.against}; no candidate decodes cleanly"
            if self.others:
                text += ": " + ", ".join(f"{c.encoding} ({c.defect_words()})" for c in self.others)
        else:
            w = self.winner
            assert w is not None
            others = "; ".join(f"{c.encoding} ({c.evidence_words()}"
                               + (f", {c.defect_words()}" if not c.clean or c.defects else "") + ")"
                               for c in self.others)
            if self.outcome == "kept":
                text = f"kept: {self.against}; {w.encoding} has the most evidence ({w.evidence_words()})"
                if others:
                    text += f" over {others}"
                return text
            how = "cleanly" if w.defects == 0 else f"with {w.defect_words()}"
            text = f"overridden: {self.against}; {w.encoding} decodes {how} ({w.evidence_words()})"
            if others:
                text += f"; other candidates: {others}"
        for note in self.notes:
            text += f"; {note}"
        return text


@dataclass(frozen=True, slots=True)
class Validated:
    """What :func:`decide` returns: the ``decision`` (with ``browser_encoding`` and
    ``validation`` set) and the ``decoded`` text it made (Encoding Standard decoder; its
    ``encoding`` is the decision's, ``bom_removed`` when a BOM was dropped): a
    :class:`~redecode.decode.DecodeResult`, or with ``decide(..., utf8_text=True)`` possibly a
    :class:`~redecode.decode.Utf8DecodeResult` (the same text as UTF-8 bytes); ``verdict``: the
    :class:`Verdict` whose text is ``decision.validation`` (None when that is None); for a page
    read in parts (step 6) the verdict of step 5 whose text follows the stretches', or None where
    step 6 replaced step 5's choice (from ``author-2026.12.5`` on)."""

    decision: Decision
    decoded: _decode.DecodeResult | _decode.Utf8DecodeResult
    verdict: Verdict | None = None


#: ``Validated(decision, decoded, verdict)``, faster (one per record)
_new_validated = unchecked_new(Validated)


@dataclass(frozen=True, slots=True)
class LanguageFinding:
    """What check k found: the plausibility (:class:`redecode.language.Plausibility`) of the
    primary's reading and of its clean siblings' readings of :meth:`ByteProfile.excerpt`, by
    encoding (``scores``); ``best``: the sibling that reads best, and by how much (``lead``, bits)
    it reads better than the primary (negative: worse)."""

    primary: str
    scores: dict[str, Any]
    best: str | None
    lead: float  # bits
    #: (``joined_families``) the sibling that reads a letter where the primary reads a symbol
    #: joined to letters (:func:`joined_symbols`), within the language margin; else None
    joined: str | None = None


#: ``LanguageFinding(primary, scores, best, lead, joined)``, faster (one per language check that
#: scores)
_new_finding = unchecked_new(LanguageFinding)


# --- the decision ---------------------------------------------------------------------------

#: ``detector(payload, tld) -> Detection | None`` as :func:`redecode.sniff.decide` calls it.
Detector = Callable[[bytes, "str | None"], "Detection | None"]

_BOM_LEN = {"UTF-8": 3, "UTF-16LE": 2, "UTF-16BE": 2}


def decide(
    payload: bytes,
    *,
    content_type: Sequence[str] = (),
    url: str | None = None,
    kind: str = "html",
    browser_detector: Detector | None = None,
    author_detector: Detector | None = None,
    params: AuthorParams = BASELINE,
    utf8_text: bool = False,
) -> Validated:
    """The author's-text decision for one record's *payload* (bytes, content codings removed)
    and its text; see the module docstring for the steps.

    *content_type*, *url*, *kind*: as for :func:`redecode.sniff.decide` (the browser's steps run
    with the late-meta scan and Chromium's tokenizer). *browser_detector*: the browser rules'
    detector (for ``browser_encoding``); *author_detector*: the same engines with the TLD vote
    (for the primary decision and the candidates); either may be None (no detector).
    *params*: the thresholds (:class:`AuthorParams`). *utf8_text*: when no check fires (the
    primary decision stands, the usual case), or check d or e fires and the weighing finds no
    (mostly) valid UTF-8 against the primary (a detected page), ``decoded`` is a
    :class:`redecode.decode.Utf8DecodeResult` wherever :func:`redecode.decode.decode_to_utf8`
    can make one: the text as UTF-8 bytes without a ``str`` (the checks read only the decode's
    encoding and error count); the decision is the same either way. Raises ValueError for an
    unknown *kind*; never raises because of the payload.
    """
    return _decide(payload, content_type, url, kind, browser_detector, author_detector, params, utf8_text)


def _decide(payload: bytes, content_type: Sequence[str], url: str | None, kind: str,
            browser_detector: Detector | None, author_detector: Detector | None, params: AuthorParams,
            utf8_text: bool) -> Validated:
    if type(payload) is not bytes:
        payload = bytes(payload)
    facts = gather_positional(payload, content_type, url, kind, True, True, True)  # (gather's defaults)
    tld = facts.tld
    cache: dict[str, Detection | None] = {}
    # (outside_utf8) what the author detector and the evidence read: the bytes outside the page's
    # UTF-8 runs, where the page is legacy text with UTF-8 in it
    legacy = (outside_utf8(payload, params) if params.outside_utf8 and facts.utf8_valid is False
              and facts.ascii_only is False else None)

    def run(detector: Detector | None, key: str) -> Detection | None:
        if key not in cache:
            data = legacy if legacy is not None and key == "author" else payload
            cache[key] = detector(data, tld) if detector is not None else None
        return cache[key]

    browser = choose_positional(facts, lambda: run(browser_detector, "browser"), True)  # (choose's)
    assert browser is not None  # choose was given a detection callable
    primary = browser
    if browser.source in ("detector", "default") and author_detector is not None and facts.ascii_only is False:
        found = run(author_detector, "author")
        primary = choose_positional(facts, found, True)
        assert primary is not None
    if primary.browser_encoding != browser.encoding:  # (choose names its own: the browser's, as is)
        primary = amend(primary, browser_encoding=browser.encoding)

    result = _decode.decode_to_utf8(payload, primary.encoding, bom_sniff=True) if utf8_text else None
    if result is None:
        result = _decode.decode(payload, primary.encoding, bom_sniff=True)
    ascii_only = facts.ascii_only
    if (ascii_only is None and type(result) is _decode.Utf8DecodeResult and result.errors == 0
            and result.encoding == "UTF-8" and not result.bom_removed):
        # (valid UTF-8 of the whole payload: as many code points as bytes only when every byte is
        # ASCII, which the checks would otherwise read the payload again to learn)
        ascii_only = result.length == len(payload)
    profile = ByteProfile(payload, facts.kind, params, ascii_only=ascii_only,
                          utf8_valid=facts.utf8_valid, evidence=legacy)
    reason = check(profile, facts, primary, result)
    if (reason is None and result.encoding == "UTF-8" and primary.encoding == "UTF-8" and not _UTF8_SIBLINGS
            and result.errors < params.stretch_min_invalid and not primary.stretches):
        # The usual UTF-8 page, its decision standing: check k has no sibling to read
        # (language_check returns False), step 6 finds no stretch to read (_in_parts returns v:
        # a UTF-8 reading with fewer U+FFFD than stretch_min_invalid) and no legacy encoding is
        # named again (_same_text_names returns v: UTF-8, no stretch); only tie_names could
        # rename it (a pair whose extension is UTF-8), then the steps below run as always.
        v = _new_validated(primary, result)
        if params.tie_names:
            v = _tie_name(payload, facts, v, params)
        if v.decision is primary:
            return v
    if reason in (None, "detected") and params.language and language_check(profile, primary):
        reason = "language"
    if reason is None:
        v = _new_validated(primary, result)
    else:
        v = _weigh(profile, facts, primary, result, reason, lambda: run(author_detector, "author"))
    if params.tie_names:
        v = _tie_name(payload, facts, v, params)
    if params.stretches:
        v = _in_parts(payload, facts, v, params, author_detector, primary)
    if params.same_text_names:
        def run_on(data: bytes) -> str | None:
            found = author_detector(data, tld) if author_detector is not None else None
            return found.encoding if found is not None else None

        v = _same_text_names(payload, facts, v, params, cache.get("author"), run_on)
    return v


#: Whether UTF-8 has confusable siblings (:mod:`redecode.siblings`: it has none, so check k never
#: reads a UTF-8 decision; _decide's usual-page exit relies on it)
_UTF8_SIBLINGS = bool(_siblings.siblings("UTF-8"))


def outside_utf8(payload: bytes, params: AuthorParams) -> bytes | None:
    """(``outside_utf8``, ``author-2026.12.6`` on) *payload* with its UTF-8 runs blanked: the
    bytes of every run of words valid as UTF-8 that holds a multi-byte sequence
    (:func:`redecode.stretches.utf8_runs`) replaced by spaces, the same length, so that what the
    author detector and the language evidence read of a legacy page with UTF-8 in it (a widget, a
    template's punctuation) is its legacy text. Only where the legacy text is the page's larger
    part: the UTF-8 decoder's U+FFFD outside the runs (about one per legacy character) at least as
    many as the runs' valid multi-byte sequences (one per UTF-8 character); a UTF-8 page with a
    legacy paragraph in it is weighed whole, as before. None where there is nothing to blank, or
    where the UTF-8 part is the larger (a damaged UTF-8 page too)."""

    if not _stretches.utf8_runs(payload, valid_only=True):
        return None  # (the common legacy page: found eight bytes at a time)
    runs = _stretches.utf8_runs(payload)
    valid = [r for r in runs if r.valid and r.sequences]
    invalid = sum(r.invalid for r in runs if not r.valid)
    multibyte = sum(r.sequences for r in runs)
    if not valid or invalid < multibyte:
        return None
    out = bytearray(payload)
    for r in valid:
        out[r.start:r.end] = b" " * (r.end - r.start)
    return bytes(out)


#: (``same_text_names``) gb18030's four-byte sequences: GBK's name is kept off a reading with one
#: (the Encoding Standard's GBK decoder is gb18030's; the four-byte form is what gb18030 adds)
_FOUR_BYTE_GB = _lazy.pattern(__name__, "_FOUR_BYTE_GB", rb"[\x81-\xfe][\x30-\x39][\x81-\xfe][\x30-\x39]")
#: (``same_text_names``) ``(extension, base)`` pairs of identical decoders named as the base
_SAME_DECODER_TIES = (("gb18030", "GBK"),)
#: encoding -> the encoding whose decoder it uses, where the two are one (the extension of a pair)
_SAME_DECODER = {base: ext for ext, base in _SAME_DECODER_TIES}


def _declared_encodings(payload: bytes, facts: Facts) -> list[str]:
    """The encodings the page's declarations name (BOM, transport, metas, XML declaration, aliases
    of unknown labels), in step order, once each."""
    out = [e for e in (facts.bom, facts.header_encoding) if e]
    out += [enc for _, _, enc in _metas(payload, facts)]
    if facts.xml_encoding:
        out.append(facts.xml_encoding)
    out += [a.encoding for a in (alias_encoding(label) for _, label in _unknown_labels(facts)) if a]
    return list(dict.fromkeys(out))


def _same_text_names(payload: bytes, facts: Facts, v: Validated, params: AuthorParams,
                     detection: Detection | None, detect: Callable[[bytes], str | None]) -> Validated:
    """(``same_text_names``, ``author-2026.12.6`` on) *v* with its legacy encodings named
    consistently among encodings that read the same text: the page's encoding (outside its
    stretches), when no declaration names it, and each legacy stretch's take the first of the
    preferred names that is a confusable sibling (:mod:`redecode.siblings`) reading the same
    text, then the base of a ``tie_names`` pair (or of GBK and gb18030, whose decoders are one,
    where the bytes hold no four-byte gb18030 sequence) that reads the same text. Preferred
    names: the page's declarations, the author detector's answer on the page (on
    :func:`outside_utf8` of it where that applies; for a stretch only where the page is read as a
    legacy encoding: a UTF-8 page's detection is of its UTF-8 text), the top-level domain's fallback (:func:`tld_vote`, else its default,
    :func:`redecode.sniff.default_encoding`). Only names change (the text is the same by
    construction); ``validation`` says so."""
    d = v.decision
    if isinstance(d, CodecDecision) or facts.bom or facts.ascii_only:
        return v  # (a pure-ASCII page reads the same in every ASCII-compatible encoding)
    enc = d.encoding
    stretches = d.stretches
    if not stretches:
        # (the usual page: UTF-8, a declared encoding, the detector's own answer: nothing to name)
        if (enc in ("UTF-8", "UTF-16LE", "UTF-16BE", "replacement", "x-user-defined")
                or enc in (facts.header_encoding, facts.meta_encoding, facts.xml_encoding)):
            return v
        page_found = detection.encoding if detection is not None else None
        if enc == page_found and all(enc != ext for ext, _ in (*params.tie_names, *_SAME_DECODER_TIES)):
            return v

    legacy = _stretches.ENCODINGS
    declared = _declared_encodings(payload, facts)
    page_found = detection.encoding if detection is not None else None
    fallback = tld_vote(facts.tld) or default_encoding(facts.tld)
    ties = (*params.tie_names, *_SAME_DECODER_TIES)

    def name(enc: str, reads: Callable[[str], str | None], data: bytes, preferred: list[str | None]) -> str:
        if enc in declared or enc not in legacy or enc == "UTF-8":
            return enc
        sibs = _siblings.siblings(enc)
        named = [p for p in dict.fromkeys(preferred) if p is not None and p != enc and p in sibs]
        if not named and all(enc != ext for ext, _ in ties):
            return enc  # (no other name to give: nothing decoded)
        mine = reads(enc)
        if mine is None:
            return enc
        for p in named:
            if reads(p) == mine:
                enc = p
                break
        for ext, base in ties:
            if enc == ext and ext not in declared and (ext != "gb18030" or not _FOUR_BYTE_GB.search(data)) \
                    and reads(base) == mine:
                return base
        return enc

    def clean_text(data: bytes, enc: str) -> str | None:
        r = _decode.decode(data, enc, bom_sniff=False)
        return r.text if r.errors == 0 else None

    renamed = []
    # (a UTF-8 page's detection read its UTF-8 text as a legacy encoding: no name for a stretch)
    st_found = page_found if enc != "UTF-8" else None
    for o, n, st_enc in stretches:
        chunk = payload[o:o + n]
        if st_enc != "UTF-8":
            st_enc = name(st_enc, lambda e, c=chunk: clean_text(c, e), chunk,
                          [*declared, st_found, fallback])
        renamed.append((o, n, st_enc))
    if stretches:
        parts = [_stretches.Stretch(o, n, e) for o, n, e in stretches]

        def reads(e: str) -> str | None:
            text, errors = _stretches.read_parts(payload, e, parts)
            return text if errors == v.decoded.errors else None
    else:
        # (one decode per decoder: GBK's is gb18030's; the page's own reading is v's text when
        # v holds it, as a str or as UTF-8 bytes: no BOM here, so it is the payload's decode. Held
        # as UTF-8 bytes, every reading is compared as its UTF-8 bytes: the same text, the same
        # bytes)
        known: dict[str, str | bytes | None] = {}
        as_utf8 = type(v.decoded) is _decode.Utf8DecodeResult and v.decoded.encoding == enc
        if as_utf8:
            known[_SAME_DECODER.get(enc, enc)] = v.decoded.utf8
        elif type(v.decoded) is _decode.DecodeResult and v.decoded.encoding == enc:
            known[_SAME_DECODER.get(enc, enc)] = v.decoded.text

        def reads(e: str) -> str | bytes | None:
            key = _SAME_DECODER.get(e, e)
            if key not in known:
                u = _decode.decode_to_utf8(payload, e, bom_sniff=False) if as_utf8 else None
                if u is not None:
                    known[key] = u.utf8 if u.errors == v.decoded.errors else None
                else:
                    r = _decode.decode(payload, e, bom_sniff=False)
                    known[key] = (None if r.errors != v.decoded.errors
                                  else r.text.encode("utf-8", "surrogatepass") if as_utf8 else r.text)
            return known[key]
    new_enc = name(enc, reads, payload, [*declared, page_found, fallback]) if enc != "UTF-8" else enc
    renamed_t = tuple(renamed)
    if new_enc == enc and renamed_t == tuple(stretches):
        return v
    changes: dict[str, Any] = {}
    validation = d.validation
    if renamed_t != tuple(stretches):
        changes["stretches"] = renamed_t
        for (o, n, old), (_, _, new) in zip(stretches, renamed_t):
            if old != new and validation:
                # (the stretch as validation names it: _in_parts's "ENC at bytes A-B")
                validation = validation.replace(f"{old} at bytes {o}-{o + n} (",
                                                f"{new} at bytes {o}-{o + n} ({old} reads it the same; ", 1)
    if new_enc != enc:
        changes["encoding"] = new_enc
        changes["conflict"] = _conflict(facts, new_enc)
        if validation:
            validation += f"; {enc} and {new_enc} read the same text: named {new_enc}"
    if validation != d.validation:
        changes["validation"] = validation
    decision = amend(d, **changes)
    decoded = v.decoded if new_enc == enc else dataclasses.replace(v.decoded, encoding=new_enc)
    return Validated(decision, decoded, v.verdict)


def _tie_name(payload: bytes, facts: Facts, v: Validated, params: AuthorParams) -> Validated:
    """(``tie_names``) *v* with its encoding named by the base encoding of a ``(extension, base)``
    pair where the decision is the extension, no declaration names it, and the payload has no
    byte at which the two read different characters (:func:`differing_bytes`): the same text,
    named as the commoner encoding (KOI8-U -> KOI8-R: the Encoding Standard's generic labels
    ``koi`` and ``koi8`` are KOI8-R's; KOI8-U, RFC 2319, is KOI8-R with eight box-drawing bytes
    given to Ukrainian letters). ``validation``, when there is one, says so."""
    d = v.decision
    for ext, base in params.tie_names:
        if d.encoding != ext:
            continue
        declared = {facts.bom, facts.header_encoding, facts.meta_encoding, facts.xml_encoding}
        declared.update(enc for _, _, enc in _metas(payload, facts))
        if ext in declared:
            return v
        diff = differing_bytes(frozenset((ext, base)))
        if diff is not None and diff.search(payload):
            return v
        validation = d.validation
        if validation:
            validation += f"; {ext} and {base} read the same text (no byte where they differ): named {base}"
        decision = amend(d, encoding=base, conflict=_conflict(facts, base), validation=validation)
        return Validated(decision, dataclasses.replace(v.decoded, encoding=base), v.verdict)
    return v


def check(profile: ByteProfile, facts: Facts, primary: Decision,
          result: _decode.DecodeResult | _decode.Utf8DecodeResult) -> str | None:
    """The first check of step 4 that fires (its name, one of :data:`CHECKS`), or None, for the
    *primary* decision whose decode of the payload is *result* (only its ``encoding`` and
    ``errors`` are read, never its text); *profile* is the payload's, *facts* what the browser's
    steps found in it."""
    enc = result.encoding
    if enc == "replacement":
        return "replacement"
    p = profile.params
    if result.errors >= p.min_errors:
        return "errors"
    if enc in _UTF16 and profile.implausible(enc, 0):
        return "implausible"  # markup in UTF-16 has a NUL byte in every ASCII character
    if primary.source == "bom":
        return None  # a BOM that decodes cleanly is the strongest declaration there is
    ascii_only = profile.ascii_only
    payload = profile.data
    if not ascii_only and enc in _C1_BYTES and _c1_at_least(enc, payload, p.min_errors - result.errors):
        return "errors"
    if not ascii_only and enc == "x-user-defined":
        return "errors"  # every non-ASCII byte is a private-use character
    first = 0  # where the non-ASCII text starts, when known
    if enc != "UTF-8" and enc not in _UTF16 and not ascii_only:
        signal, first = profile.utf8_signal()
        if signal:
            return "utf-8"
    if enc not in _UTF16 and profile.nul_in_window and profile.utf16():  # (utf16(): None without a NUL)
        return "nul"
    if enc != "ISO-2022-JP" and ascii_only and profile.escapes() == "ISO-2022-JP":
        return "escapes"
    if ascii_only:
        return None  # every ASCII-compatible encoding reads the same text
    # (implausible is False for an encoding in none of these: UTF-8, the multi-byte ones...)
    if (enc in _LATIN or enc in _NON_LATIN or enc in _UTF16) and profile.implausible(enc, first):
        return "implausible"
    declared = {facts.bom, facts.header_encoding, facts.meta_encoding, facts.xml_encoding}
    declared.discard(None)  # (a set display, not a comprehension's frame: the declared encodings)
    declared.discard("")
    if len(declared) > 1:
        return "disagree"
    if facts.ignored:  # (_unknown_labels: none without an ignored label)
        for _, label in _unknown_labels(facts):
            alias = alias_encoding(label)
            if alias is not None and alias.encoding != enc:
                return "disagree"
    if primary.source == "detector":
        return "detected"
    return None


def language_check(profile: ByteProfile, primary: Decision) -> bool:
    """Check k (``author-2026.12.2`` on): whether a confusable sibling of the *primary* encoding
    (:func:`redecode.siblings.siblings`) reads the payload better as language than the primary
    does. Language work is done only where a sibling's reading differs: the readings of
    :meth:`ByteProfile.excerpt` identical to the primary's, with more U+FFFD than it, or
    structurally implausible (:meth:`ByteProfile.implausible`) are dropped first; the rest are
    scored by :func:`redecode.language.plausibility` on that same excerpt (one per record). Fires
    when the best sibling's score is higher, with at least ``language_min_chars`` characters of evidence (the weighing then
    applies ``language_margin``). Sets ``profile.language`` (:class:`LanguageFinding`) whenever
    readings were scored. Pure-ASCII payloads and encodings without siblings never fire."""
    sibs = _siblings.siblings(primary.encoding)
    if not sibs or profile.ascii_only:
        return False
    every = frozenset((primary.encoding, *sibs))  # (the readings' key: made once)
    prim = profile.reading(primary.encoding, every)
    if not prim.text:
        return False  # no byte that the siblings read differently
    excerpt = profile.excerpt(every)
    start = profile.first_high
    quotes = profile.params.quotes_are_text
    mine = anomalies(excerpt, primary.encoding, quotes=quotes) if primary.encoding in SINGLE_BYTE else None
    # (the excerpt's non-ASCII bytes: a single-byte sibling whose table reads each of them as
    # the primary's does reads the same text, known without decoding it)
    high = frozenset(excerpt.translate(None, _ASCII)) if mine is not None else None
    kept = [primary.encoding]
    for sib in sibs:
        if high is not None and sib in SINGLE_BYTE:
            if high.isdisjoint(_pair_differing(primary.encoding, sib)):
                continue  # (the same text as the decision's)
            # (another text: a byte reads otherwise; its U+FFFD are the excerpt's bytes it has no
            # character for, so it is decoded only if it is kept)
            if _absent_bytes(sib, excerpt) > prim.errors:
                continue
            if anomalies(excerpt, sib, quotes=quotes) > mine:
                continue  # more symbols, controls or case flips than the decision's reading: not text
        else:
            r = profile.reading(sib, every)
            if r.text == prim.text or r.errors > prim.errors:
                continue
        if profile.implausible(sib, start):
            continue  # (after the excerpt's anomalies: this one reads a window of the payload)
        kept.append(sib)
    if len(kept) == 1:
        return False

    scores = _language.plausibility({e: profile.reading(e, every).text for e in kept},
                                    turkic_i=profile.params.language_turkic_i)
    ours = scores[primary.encoding]
    best = max(kept[1:], key=lambda e: (scores[e].bits, e))
    lead = scores[best].bits - ours.bits
    p = profile.params
    joined = None
    family = _joined_family(primary.encoding, p)
    if family and ours.evidence >= p.language_min_chars and scores[best].score >= p.language_floor:
        mine_joined = joined_symbols(prim.text)
        fewer = [e for e in kept[1:] if e in family and ours.bits - scores[e].bits < p.language_margin
                 and joined_symbols(profile.reading(e, every).text) < mine_joined]
        if fewer:
            joined = max(fewer, key=lambda e: (scores[e].bits, e))
    profile.language = _new_finding(primary.encoding, scores, best, lead, joined)
    if joined is not None:
        return True
    return lead > 0 and ours.evidence >= p.language_min_chars and scores[best].score >= p.language_floor


def _joined_family(encoding: str, params: AuthorParams) -> tuple[str, ...]:
    """The members of the first family of ``params.joined_families`` that holds *encoding*
    (:data:`redecode.siblings.SIBLING_FAMILIES`), or ``()``."""
    for name in params.joined_families:
        members = _siblings.SIBLING_FAMILIES[name][0]
        if encoding in members:
            return tuple(members)
    return ()


def _joined_losers(profile: ByteProfile, clean: list[Candidate], params: AuthorParams) -> frozenset[str]:
    """(``joined_families``) The clean candidates of such a family, their language read, whose
    reading of the excerpt has more symbols joined to letters (:func:`joined_symbols`) than
    another member's: they read a symbol where a sibling reads a letter."""
    readable = [c for c in clean if c.language is not None]
    every = frozenset(c.encoding for c in clean if c.codec is None and c.encoding not in _UTF16)
    out: set[str] = set()
    for name in params.joined_families:
        members = _siblings.SIBLING_FAMILIES[name][0]
        group = [c for c in readable if c.encoding in members]
        if len(group) < 2:
            continue
        counts = {c.encoding: joined_symbols(profile.reading(c.encoding, every).text) for c in group}
        least = min(counts.values())
        out.update(e for e, n in counts.items() if n > least)
    return frozenset(out)


def _weigh(profile: ByteProfile, facts: Facts, primary: Decision,
           result: _decode.DecodeResult | _decode.Utf8DecodeResult,
           reason: str, author_detection: Callable[[], Detection | None]) -> Validated:
    """Step 5: gather the candidates, pick the winner, record why. *result*: the primary's decode
    of the payload (BOM sniffed); as UTF-8 bytes (:class:`redecode.decode.Utf8DecodeResult`) it
    is decoded again as text where the candidates are weighed, and kept where check d or e finds
    no (mostly) valid UTF-8 to speak against the primary."""
    payload = profile.data
    bom_len = _BOM_LEN.get(facts.bom or "", 0)
    # Every candidate decodes the payload after the BOM (if any) without BOM sniffing; the
    # primary's decode already did exactly that.
    body_profile = profile.after(bom_len)
    body = body_profile.data
    params = profile.params
    ascii_only = body_profile.ascii_only
    utf8_result = None
    utf8: Utf8Profile | None = None
    if not ascii_only:
        if result.encoding == "UTF-8":
            if type(result) is not _decode.DecodeResult:  # (its text is the UTF-8 candidate's)
                result = _decode.decode(payload, primary.encoding, bom_sniff=True)
            utf8_result = result
            utf8 = _VALID if utf8_result.errors == 0 else _mostly_valid(body, utf8_result)
        else:
            # (the UTF-8 reading's length and U+FFFD say whether it is (mostly) valid; its text is
            # made only where it is, a candidate)
            length, errors = _utf8_counts(body)
            utf8 = _VALID if errors == 0 else _mostly_valid_of(body, length, errors)
            if utf8 is not None:
                utf8_result = _decode.decode(body, "UTF-8", bom_sniff=False)
    if reason in ("detected", "utf-8") and utf8 is None:
        # only (mostly) valid UTF-8 could speak against the primary here, and it does not
        return Validated(primary, result)
    if type(result) is not _decode.DecodeResult:  # the candidates are weighed on their text
        result = _decode.decode(payload, primary.encoding, bom_sniff=True)

    cands: dict[str, Candidate] = {}

    def add(encoding: str | None, kind: str, where: str, weight: int = 1, codec: str | None = None) -> Candidate | None:
        if encoding is None or encoding == "replacement":
            return None
        c = cands.get(encoding)
        if c is None:
            c = cands[encoding] = Candidate(encoding, codec)
        if all(e.where != where for e in c.evidence):
            c.evidence.append(_new_evidence(kind, where, encoding, weight))
        return c

    # Declarations, in step order (the BOM first), then aliases of unknown labels.
    if facts.bom:
        add(facts.bom, "declaration", "bom")
    if facts.header_encoding:
        add(facts.header_encoding, "declaration", f"transport:{facts.header_charset}")
    for where, label, enc in _metas(payload, facts):
        add(enc, "declaration", f"{where}:{label}")
    if facts.xml_encoding:
        add(facts.xml_encoding, "declaration", f"xml-declaration:{facts.xml_charset or ''}")
    for where, label in _unknown_labels(facts):
        alias = alias_encoding(label)
        if alias is not None:
            add(alias.encoding, "alias", f"{where}:{label} (alias of {alias.encoding})")
    # The primary's own step when it is not a declaration.
    if primary.source in ("detector", "utf8-valid", "default"):
        step_kind = {"detector": "detector", "utf8-valid": "structure", "default": "default"}[primary.source]
        add(primary.encoding, step_kind, primary.source)
    if primary.encoding in cands:
        cands[primary.encoding].result = result
    declared = [c for c in cands.values() if c.rank == 0]

    # Structure.
    if utf8 is not None:
        add("UTF-8", "structure", _utf8_evidence(utf8)).result = utf8_result
    utf16 = body_profile.utf16()
    if utf16 is not None:
        add(utf16, "structure", "UTF-16 NUL pattern")
    escapes = body_profile.escapes()
    if escapes == "ISO-2022-JP":
        add(escapes, "structure", "ISO-2022-JP escape sequences")
    if params.python_codecs and (primary.encoding == "replacement" or escapes == "ISO-2022-KR"):
        # HZ-GB-2312 and ISO-2022-KR: the Encoding Standard decodes neither; Python's codecs do
        # (a documented deviation), where a label names them (or the KR escapes are there)
        found = _python_codec(facts, escapes)
        if found is not None:
            add(found[0], "structure", found[1], codec=found[2])
    if primary.encoding == "replacement" or reason == "implausible":
        # The label names the replacement encoding (ISO-2022-KR, HZ...), which decodes nothing,
        # or a reading that cannot be the author's: the page's text is what its bytes say in
        # another encoding, the TLD's default at least.
        add(default_encoding(facts.tld), "default", "default")
    if params.siblings:
        # the confusable siblings of the primary and of each declaration: candidates without a
        # vote, which win only on language or on defects
        for enc in [primary.encoding] + [c.encoding for c in declared]:
            for sib in _siblings.siblings(enc):
                add(sib, "sibling", f"sibling of {enc}", 0)

    start = body_profile.first_high
    # With language evidence, a single-byte reading of another script that check h finds
    # implausible (non-letters, case flips: „quotes“ in a short Serbian page) stays a candidate
    # and language weighs it against its siblings; CJK bytes under such a label read as nonsense
    # and lose on language anyway.
    language_decides = params.language and params.siblings

    def judge(c: Candidate) -> None:
        if c.result is None:
            if c.codec is not None:
                c.result = _codec_decode(body, c.codec)
            elif c.encoding in SINGLE_BYTE:
                c.result = _SingleByteReading(body, c.encoding, body_profile.counts)  # (its text made when read)
            else:
                c.result = _decode.decode(body, c.encoding, bom_sniff=False)
        r = c.result
        lazy = type(r) is _SingleByteReading
        # a single-byte decode of the body: one character per byte, so its C1 controls and
        # non-ASCII characters are counted in the bytes, once per body (siblings share them)
        single = lazy or (c.encoding in _C1_BYTES and len(r.text) == len(body))
        c.defects = (r.errors
                     + (body_profile.c1(c.encoding) if single else _not_text(c.encoding, body, r.text))
                     + (0 if c.encoding in _UTF16 else body_profile.binary))
        # A U+FFFD that is the last character only says the payload was cut inside it.
        if r.errors and (r.ends_absent() if lazy else r.text.endswith("\ufffd")):
            c.defects -= 1
        c.clean = (c.defects <= (body_profile.high_bytes if single else _non_ascii_chars(r.text))
                   // params.defect_rate if c.defects else True)
        if c.encoding == "UTF-8" and utf8 is not None and utf8.mostly_valid:
            c.clean = True
        c.implausible = body_profile.implausible(c.encoding, start)
        if c.implausible and not (language_decides and c.encoding in _NON_LATIN):
            c.clean = False

    for c in cands.values():
        judge(c)

    why = _against(primary, result, reason, body, profile.language, body_profile)
    notes = (_KR_NOTE,) if escapes == "ISO-2022-KR" else ()
    # Decisive structure wins outright when clean: UTF-16's NUL pattern, ISO-2022-JP's escape
    # sequences (both are also ASCII-only or 'valid UTF-8' to the other checks), and valid UTF-8
    # over more than one word of non-ASCII bytes, or where no clean declaration stands against it.
    decisive = []
    if utf16 is not None:
        decisive.append(cands[utf16])
    if escapes == "ISO-2022-JP":
        decisive.append(cands["ISO-2022-JP"])
    if utf8 is _VALID:
        # over as many words of non-ASCII bytes as the clean declarations it overrules, and two
        opposed = sum(c.weight for c in declared if c.clean and c.encoding != "UTF-8")
        if not opposed or _runs_at_least(body, params.utf8_decisive_runs + opposed):
            decisive.append(cands["UTF-8"])
    elif (utf8 is not None and utf8.multibyte + utf8.cesu_pairs >= 2
          and params.utf8_overwhelming * utf8.invalid <= utf8.multibyte):
        decisive.append(cands["UTF-8"])  # overwhelmingly UTF-8: a few bad bytes in a UTF-8 page
    for c in decisive:
        if c.result.errors == 0 or c.encoding == "UTF-8" or c.clean:
            return _outcome(facts, primary, result, c, reason, why, list(cands.values()), None, notes)

    # The detector, for payloads that give it something to read.
    detection = author_detection() if not ascii_only else None
    if detection is not None:
        c = add(detection.encoding, "detector", "detector")
        if c is not None:
            judge(c)

    # Encodings that read the same text are one candidate (GBK and gb18030, KOI8-R and KOI8-U
    # on most pages): their evidence is counted together, under the best-ranked name.
    order = list(cands)
    groups: list[Candidate] = []
    for c in sorted(cands.values(), key=lambda c: (c.rank, order.index(c.encoding))):
        for g in groups:
            if _same_text(g.result, c.result):
                g.evidence += c.evidence
                break
        else:
            groups.append(c)
    clean = [c for c in groups if c.clean]
    top = least = None
    if params.language and len(clean) > 1:
        top = _read_language(body_profile, clean)
    if params.compare_defects and clean:
        least = min(c.defects for c in clean)
    untidy = _joined_losers(body_profile, clean, params) if params.joined_families and top is not None else None
    if not clean and primary.encoding == "replacement" and groups:
        # the replacement decoder gives no text at all: the least damaged reading is better
        best = min(groups, key=lambda c: (c.defects, c.rank, order.index(c.encoding)))
        return _outcome(facts, primary, result, best, reason, why, groups, detection, notes)
    if not clean:
        verdict = Verdict(outcome="unresolved", check=reason, against=why, primary=primary.encoding,
                          winner=None, others=tuple(c for c in groups if c.encoding != primary.encoding),
                          notes=notes)
        det = {}
        if detection is not None and primary.detector is None:
            det = {"detector": detection.detector, "detector_confidence": detection.confidence}
        return Validated(amend(primary, confidence="tentative", validation=verdict.render(), verdict="unresolved",
                               **det), result, verdict)
    best = max(clean, key=lambda c: _score(c, order, params, top, least, untidy))
    lost = top is not None and best.language is not None and best.language.bits < top
    return _outcome(facts, primary, result, best, reason, why, groups, detection, notes, lost)


def _score(c: Candidate, order: list[str], params: AuthorParams, top: float | None = None,
           least: int | None = None, untidy: frozenset[str] | None = None) -> tuple:
    """The weighing's one score of a clean candidate (the highest wins). ``author-2026.12``: the
    weight of its evidence, then its rank (declarations first), then the order it was found in.
    With language evidence (*top*: the best plausibility score among the clean candidates), a
    candidate that reads at least ``language_margin`` bits per character worse than the best
    comes after every other, wherever it was declared; with ``compare_defects`` (*least*: the
    fewest defects of a clean candidate), so does one with ``min_errors`` defects more than that,
    before the evidence is counted; with ``joined_families`` (*untidy*: :func:`_joined_losers`),
    then one that reads a symbol joined to letters where a sibling reads a letter."""
    tail = (c.weight, -c.rank, -order.index(c.encoding))
    if top is None and least is None:
        return tail
    readable = 1
    if (top is not None and c.language is not None and c.language.evidence >= params.language_min_chars
            and top - c.language.bits >= params.language_margin):
        readable = 0
    sound = 0 if least is None or c.defects < least + params.min_errors else -1
    if untidy is not None:
        return (readable, sound, 0 if c.encoding not in untidy else -1, *tail)
    return (readable, sound, *tail)


def _read_language(profile: ByteProfile, clean: list[Candidate]) -> float | None:
    """Score the clean candidates' readings of the excerpt as language (each gets its
    ``language``, and a ``language`` piece of evidence of weight 0); the best score, or None when
    fewer than two could be read."""
    readable = [c for c in clean if c.codec is None and c.encoding not in _UTF16]
    if len(readable) < 2:
        return None

    every = [c.encoding for c in readable]
    key = frozenset(every)
    scores = _language.plausibility({e: profile.reading(e, key).text for e in every},
                                    turkic_i=profile.params.language_turkic_i)
    for c in readable:
        pl = c.language = scores[c.encoding]
        if pl.language is not None:
            c.evidence.append(_new_evidence("language", f"reads as {pl.language} ({pl.bits:.0f} bits)",
                                            c.encoding, 0))
    best = max(readable, key=lambda c: c.language.bits).language
    if best.score < profile.params.language_floor:
        for c in readable:  # every reading is nonsense to the model: language says nothing
            c.language = None
        return None
    return best.bits


#: labels of the replacement encoding that Python has a codec for -> (name, codec)
_PYTHON_CODECS = {"hz-gb-2312": ("HZ-GB-2312", "hz"), "iso-2022-kr": ("ISO-2022-KR", "iso2022_kr"),
                  "csiso2022kr": ("ISO-2022-KR", "iso2022_kr")}


def _python_codec(facts: Facts, escapes: str | None) -> tuple[str, str, str] | None:
    """``(name, evidence, codec)`` for HZ-GB-2312 or ISO-2022-KR when a declared label names it
    (or, for ISO-2022-KR, its escape sequences are in the payload), else None."""
    for where, label in (("transport", facts.header_charset), (facts.meta_source or "meta", facts.meta_charset),
                         ("xml-declaration", facts.xml_charset)):
        found = _PYTHON_CODECS.get((label or "").strip().lower())
        if found is not None:
            return found[0], f"{where}:{label} (Python's {found[1]})", found[1]
    if escapes == "ISO-2022-KR":
        return "ISO-2022-KR", "ISO-2022-KR escape sequences (Python's iso2022_kr)", "iso2022_kr"
    return None


_codec_errors = threading.local()


def _count_errors(exc: UnicodeError) -> tuple[str, int]:
    # Python's "replace" for decoding (one U+FFFD, resume after the flagged bytes), counted
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _codec_errors.n += 1
    return "\ufffd", exc.end


codecs.register_error("redecode-validate-count", _count_errors)


def _codec_decode(body: bytes, codec: str) -> _decode.DecodeResult:
    """*body* decoded with Python's *codec*, one U+FFFD per error (Python's ``replace``, counted;
    ``encoding`` None: no Encoding Standard encoding made the text)."""
    _codec_errors.n = 0
    text = body.decode(codec, errors="redecode-validate-count")
    errors = _codec_errors.n
    return _decode.DecodeResult(text, None, errors, False)


def _runs_at_least(body: bytes, n: int) -> bool:
    for i, _ in enumerate(_NON_ASCII_RUN.finditer(body), 1):
        if i >= n:
            return True
    return False


#: The profile of a payload that decodes as UTF-8 without error (its multi-byte sequences are
#: not counted: the payload is non-ASCII, so there is at least one).
_VALID = Utf8Profile(multibyte=1, invalid=0, cesu_pairs=0)


def _utf8_evidence(p: Utf8Profile) -> str:
    if p.valid:
        return "valid UTF-8"
    extra = f", {p.cesu_pairs} CESU-8 pairs" if p.cesu_pairs else ""
    return f"mostly valid UTF-8 ({p.multibyte} multi-byte sequences, {p.invalid} invalid{extra})"


def _metas(payload: bytes, facts: Facts) -> list[tuple[str, str, str]]:
    """``(where, label, encoding)`` of the metas that declare a known encoding: the one the
    browser's steps found, else (XML, plain text, or a header that decided before the head scan)
    the prescan's and the head scan's, read now."""
    if facts.meta_encoding is not None:
        return [(facts.meta_source, facts.meta_charset, facts.meta_encoding)]
    if facts.kind == "html" and facts.bom is None and facts.header_encoding is None:
        return []  # the browser's steps scanned the window and the head: no meta declares
    last = _METAS_READ[0]
    if last is not None and last[0] is payload and last[1] is facts:
        return list(last[2])  # (read for this record already: steps 5 and 6 both ask)
    out = []
    m = prescan(payload)
    if m is None or m.encoding is None:
        m = head_scan(payload) if len(payload) > 1024 else None
        where = "head-scan"
    else:
        where = "prescan"
    if m is not None and m.encoding is not None:
        out.append((where, m.label, m.encoding))
    _METAS_READ[0] = (payload, facts, tuple(out))
    return out


#: (:func:`_metas`) the last record whose metas were read now: (payload, facts, what was found);
#: the objects themselves are held, so another record's can never be taken for them
_METAS_READ: list[tuple[bytes, Facts, tuple[tuple[str, str, str], ...]] | None] = [None]


def _against(primary: Decision, result: _decode.DecodeResult, reason: str, body: bytes,
             finding: LanguageFinding | None = None, profile: "ByteProfile | None" = None) -> str:
    """Why the primary was checked, in words (*profile*: *body*'s, whose byte counts give the
    C1 controls of a single-byte decode)."""
    what = _step_name(primary)
    if reason == "language" and finding is not None and finding.joined is not None:
        return (f"{what} reads a symbol joined to letters where its sibling {finding.joined} reads a "
                f"letter (language: {finding.scores[finding.joined].bits - finding.scores[finding.primary].bits:+.1f} bits)")
    if reason == "language" and finding is not None:
        # siblings that read the excerpt as well as the best (the same letters there) are named
        # together, in the siblings table's order, so the one the weighing takes is among them
        top = finding.scores[finding.best].bits
        tied = [e for e in finding.scores if e != finding.primary and finding.scores[e].bits == top]
        named = (f"sibling {tied[0]}" if len(tied) == 1 else
                 f"siblings {', '.join(tied[:-1])} and {tied[-1]} (the same reading there)")
        return f"{what} reads worse as language than its {named} (by {finding.lead:.1f} bits)"
    made = [f"{result.errors} U+FFFD"] if result.errors else []
    c1 = ((profile.c1(result.encoding) if profile is not None else c1_controls(result.encoding, body))
          if result.encoding in _C1_BYTES else 0)
    if c1:
        made.append(f"{c1} C1 controls")
    return {
        "replacement": f"{what} names the replacement encoding, which decodes no text",
        "errors": f"{what} made {' and '.join(made)}",
        "utf-8": f"{what} read (mostly) valid UTF-8",
        "nul": f"{what} read UTF-16 (NUL bytes)",
        "escapes": f"{what} read ISO-2022-JP escape sequences",
        "implausible": (f"{what} read markup without a NUL byte, which UTF-16 markup has in every "
                        "ASCII character" if result.encoding in _UTF16 else
                        f"{what} read runs of non-ASCII bytes, or symbols inside words, as text in "
                        "another script or encoding has"),
        "disagree": f"the declarations disagree with {what}",
        "detected": f"{what} is a guess (nothing declared)",
    }.get(reason, what)


def _step_name(d: Decision) -> str:
    label = {"transport": d.header_charset, "prescan": d.meta_charset, "head-scan": d.meta_charset,
             "xml-declaration": d.xml_charset}.get(d.source)
    if label is not None:
        return f"{d.source}:{label}"
    return f"{d.source} {d.encoding}"


def _conflict(facts: Facts, encoding: str) -> tuple[str, ...]:
    """The declarations naming another encoding than *encoding*, as ``where:label`` (the browser
    rules' ``conflict``; a BOM that lost is ``bom:<encoding>``)."""
    c = []
    if facts.bom is not None and facts.bom != encoding:
        c.append(f"bom:{facts.bom}")
    if facts.header_encoding is not None and facts.header_encoding != encoding:
        c.append(f"transport:{facts.header_charset}")
    if facts.meta_encoding is not None and facts.meta_encoding != encoding:
        c.append(f"{facts.meta_source}:{facts.meta_charset}")
    if facts.xml_encoding is not None and facts.xml_encoding != encoding:
        c.append(f"xml-declaration:{facts.xml_charset or ''}")
    return tuple(c)


def _outcome(facts: Facts, primary: Decision, result: _decode.DecodeResult, winner: Candidate, reason: str,
             why: str, shown: list[Candidate], detection: Detection | None, notes: tuple[str, ...],
             lost: bool = False) -> Validated:
    """The decision and text for *winner*: kept when it is the primary's encoding (tentative when
    it *lost* on language), else overridden (tentative, its decode the text); *shown*: the
    candidates the verdict names besides it."""
    others = tuple(c for c in shown if c is not winner and c.encoding != winner.encoding)
    if winner.encoding == primary.encoding:
        verdict = Verdict(outcome="kept", check=reason, against=why, primary=primary.encoding,
                          winner=winner, others=others)
        kept = amend(primary, validation=verdict.render(), verdict="kept",
                     **({"confidence": "tentative"} if lost else {}))
        return Validated(kept, result, verdict)
    verdict = Verdict(outcome="overridden", check=reason, against=why, primary=primary.encoding,
                      winner=winner, others=others, notes=notes)
    text = winner.result
    if type(text) is _SingleByteReading:
        text = text.decoded()
    if facts.bom is not None:
        text = _decode.DecodeResult(text.text, text.encoding, text.errors, True)
    det = {}
    if detection is not None:
        det = {"detector": detection.detector, "detector_confidence": detection.confidence}
    if winner.codec is not None:
        # no Encoding Standard encoding made the text: the decision names the Python codec
        fields = {f.name: getattr(primary, f.name) for f in dataclasses.fields(primary)}
        fields.update(encoding=None, source="validated", confidence="tentative", verdict="overridden",
                      conflict=_conflict(facts, "replacement"), validation=verdict.render(), **det)
        return Validated(CodecDecision(**fields, codec=winner.codec), text, verdict)
    decision = amend(primary, encoding=winner.encoding, source="validated", confidence="tentative",
                     conflict=_conflict(facts, winner.encoding), validation=verdict.render(),
                     verdict="overridden", **det)
    return Validated(decision, text, verdict)


# --- step 6: pages in two encodings -------------------------------------------------------------

#: ``validation`` names at most this many stretches' reasons (then how many more there are).
_PARTS_NAMED = 3


def _judge(readings: dict[str, str]) -> dict[str, float]:
    """:data:`redecode.stretches.Judge` from language evidence: the ``bits`` of
    :func:`redecode.language.plausibility` (the readings are words, no markup)."""

    return {k: p.bits for k, p in _language.plausibility(readings, markup=False).items()}


def _judge_turkic_i(readings: dict[str, str]) -> dict[str, float]:
    """:func:`_judge` with İ read as ``i`` (``language_turkic_i``)."""

    return {k: p.bits for k, p in _language.plausibility(readings, markup=False, turkic_i=True).items()}


def _in_parts(payload: bytes, facts: Facts, v: Validated, params: AuthorParams,
              author_detector: Detector | None, primary: Decision | None = None) -> Validated:
    """Step 6: *v* (the decision and its text) read in parts where its reading has stretches
    (:func:`redecode.stretches.read_in_parts`), else *v* itself. With ``stretch_words``
    (``author-2026.12.5`` on), where the parts' encoding is not *v*'s (a page declared UTF-8 that
    step 5 read whole as a legacy encoding for its U+FFFD), ``validation`` says which whole-page
    reading the parts replace and ``verdict`` is the outcome for the encoding outside the
    stretches (``kept`` where it is the browser's, else ``overridden``; step 5's did not stand);
    where no stretch reads as words, such a page is *primary* (UTF-8) read whole, ``verdict``
    ``kept``."""
    decoded = v.decoded
    encoding = decoded.encoding
    if encoding == "UTF-8" and decoded.errors < params.stretch_min_invalid:
        return v  # (a UTF-8 reading with fewer U+FFFD has no stretch to read)

    if encoding not in _stretches.ENCODINGS:
        return v
    bom_len = _BOM_LEN.get(facts.bom or "", 0) if decoded.bom_removed else 0
    body = payload[bom_len:] if bom_len else payload
    if not _stretches.utf8_runs(body, valid_only=True):
        # (no valid UTF-8 run, so none with a multi-byte sequence: read_in_parts reads no stretch
        # in any encoding, see _utf8_stretches and _legacy_stretches; most legacy pages, whose
        # declarations are then not read again)
        return v
    declared = _declared_encodings(payload, facts)
    fallback = tld_vote(facts.tld)

    def detect(data: bytes) -> str | None:
        found = author_detector(data, facts.tld) if author_detector is not None else None
        return found.encoding if found is not None else None

    parts = _stretches.read_in_parts(
        body, encoding, judge=_judge_turkic_i if params.language_turkic_i else _judge,
        candidates=[*declared, *([fallback] if fallback else [])],
        detect=detect, declared=encoding in declared, utf8_declared="UTF-8" in declared,
        min_invalid=params.stretch_min_invalid, min_sequences=params.stretch_min_sequences,
        margin=params.stretch_margin, words=params.stretch_words,
        min_letters=params.stretch_min_letters, outside_utf8=params.outside_utf8)
    if parts is None:
        return v
    d = v.decision
    if params.stretch_words and parts.encoding != d.encoding:
        # (step 5's whole-page reading does not stand: say so, never as if its outcome did)
        replaced = f"instead of the whole page read as {d.encoding}" + (
            f" ({d.validation})" if d.validation else "")
        if not parts.stretches:
            base = primary if primary is not None and primary.encoding == parts.encoding else d
            note = f"kept: {parts.encoding} read whole: {parts.why[0]}; {replaced}"
            decision = amend(base, encoding=parts.encoding, confidence="tentative",
                             conflict=_conflict(facts, parts.encoding), validation=note,
                             verdict="kept", stretches=())
            return Validated(decision, _decode.DecodeResult(parts.text, parts.encoding, parts.errors,
                                                            decoded.bom_removed), None)
    else:
        replaced = ""
    named = "; ".join(f"{st.encoding} at bytes {st.offset + bom_len}-{st.offset + bom_len + st.length} ({why})"
                      for st, why in zip(parts.stretches[:_PARTS_NAMED], parts.why))
    more = len(parts.stretches) - _PARTS_NAMED
    n = len(parts.stretches)
    note = (f"in parts: {parts.encoding} with {n} stretch{'es' if n > 1 else ''} read otherwise: {named}"
            + (f"; and {more} more" if more > 0 else ""))
    if replaced:
        note += f"; {replaced}"
        # (the outcome for the encoding outside the stretches: the browser's, or another)
        extra: dict[str, Any] = {"verdict": "kept" if parts.encoding == d.browser_encoding else "overridden"}
    else:
        if d.validation:
            note += f"; {d.validation}"
        extra = {}
    decision = amend(d, encoding=parts.encoding, source="parts", confidence="tentative",
                     conflict=_conflict(facts, parts.encoding), validation=note,
                     stretches=tuple((st.offset + bom_len, st.length, st.encoding) for st in parts.stretches),
                     **extra)
    return Validated(decision, _decode.DecodeResult(parts.text, parts.encoding, parts.errors,
                                                    decoded.bom_removed), None if replaced else v.verdict)
