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
how far a payload is UTF-8 (valid multi-byte sequences,        :func:`utf8_profile`
  invalid ones, CESU-8 surrogate pairs)
UTF-16 without a BOM, from the NUL bytes of ASCII characters   :func:`utf16_pattern`
ISO-2022-JP / ISO-2022-KR escape sequences in 7-bit text       :func:`escape_sequences`
C1 controls a legacy decoder makes (bytes that are not chars)  :func:`c1_controls`
how much of the non-ASCII bytes come in runs (non-Latin text)  :func:`runs_share`
symbols between letters in a windows-1252 reading               :func:`symbols_in_words`
non-letters and case flips in another script's reading          :func:`script_letters`
the top-level domain's vote (Firefox's fallback encoding)      :func:`tld_vote`
=============================================================  ================================

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
   most one defect per :data:`_DEFECT_RATE` non-ASCII characters of its text (a pasted Word quote
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

Recorded in the :class:`~redecode.sniff.Decision`: ``browser_encoding``; ``source`` ``validated``
when step 5 chose another encoding than the primary (``confidence`` then ``tentative``: no
browser would have picked it with certainty); ``conflict`` lists the declarations naming another
encoding than the result, as for the browser rules (a BOM that lost as ``bom:<encoding>``);
``validation`` says why, starting with the outcome: ``overridden: ...``, ``kept: ...`` (a check
fired and the primary stood, with its evidence) or ``unresolved: ...`` (no candidate decodes
cleanly; the primary stays, tentative). ``validation`` is None when no check fired, and for
undeclared pages whose only check (j) found no mostly-valid UTF-8.

Measured: chardet's real test pages served without a charset, 207 of 209 right
(``tests/test_author_corpus.py``; the browser rules 194). Known limits, pinned by strict xfails in
``tests/test_validate.py``: Big5 declared ``gb2312``, KOI8-R declared ``windows-1251`` and Czech,
Slovak or Turkish text under ``iso-8859-1`` fire no check; against one declaration, three GBK
words that are all valid UTF-8 overrule it.

Deviations: this is not a browser's algorithm; :func:`decide` departs from what a browser shows
exactly where the steps above say (that is its purpose). The browser's answer is kept in
``browser_encoding``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import decode as _decode
from ._tables import SINGLE_BYTE
from .aliases import FIREFOX_TLD_FALLBACKS, alias_encoding
from .prescan import head_scan, prescan
from .sniff import Decision, Detection, amend, choose, default_encoding, gather

__all__ = [
    "DEFAULT_MIN_ERRORS",
    "RUNS_IMPLAUSIBLE",
    "UTF8_DECISIVE_RUNS",
    "Utf8Profile",
    "Validated",
    "c1_controls",
    "decide",
    "escape_sequences",
    "runs_share",
    "script_letters",
    "symbols_in_words",
    "tld_vote",
    "utf16_pattern",
    "utf8_profile",
]

#: A decode must make at least this many U+FFFD before the candidates are weighed (check a).
DEFAULT_MIN_ERRORS = 2

#: How much of the payload :func:`utf16_pattern` reads (bytes).
UTF16_WINDOW = 1024


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


_CESU_PAIR = re.compile(rb"\xed[\xa0-\xaf][\x80-\xbf]\xed[\xb0-\xbf][\x80-\xbf]")
_HIGH = bytes(range(0x80, 0x100))


def utf8_profile(payload: bytes, decoded: _decode.DecodeResult | None = None) -> Utf8Profile:
    """:class:`Utf8Profile` of *payload* (bytes; a UTF-8 BOM counts as one multi-byte sequence
    unless *decoded*, the payload's UTF-8 decode without BOM sniffing, is given). Never raises."""
    if decoded is None:
        decoded = _decode.decode(payload, "UTF-8", bom_sniff=False)
    ascii_bytes = len(payload.translate(None, _HIGH))
    # Every ASCII byte decodes to itself (an invalid lead byte before it is replaced, and the
    # ASCII byte read again), so the non-ASCII characters are the rest.
    non_ascii_chars = len(decoded.text) - ascii_bytes
    cesu = len(_CESU_PAIR.findall(payload)) if b"\xed" in payload else 0
    return Utf8Profile(
        multibyte=non_ascii_chars - decoded.errors,
        invalid=decoded.errors - 6 * cesu,
        cesu_pairs=cesu,
    )


def utf16_pattern(payload: bytes) -> str | None:
    """``"UTF-16LE"`` or ``"UTF-16BE"`` when the first :data:`UTF16_WINDOW` bytes look like UTF-16
    text: at least one code unit in sixteen has a zero high byte (ASCII and Latin-1 characters:
    markup, spaces, digits, Latin script; NUL at odd offsets for little-endian, even for
    big-endian), and the other byte of the units is NUL at most a third as often (UTF-32 has at
    least half as many NULs at one parity as at the other: one and two in an ASCII character, one
    and one in a CJK one; binary data has them at either; CJK text in UTF-16 has a few characters
    whose low byte is zero, U+3000 or U+4E00). Cyrillic or Greek text with little
    markup has a zero high byte only in its spaces and punctuation, CJK text only in its markup:
    chardet's real pages encoded as BOM-less UTF-16 all match (410 of 410; 388 with a quarter and
    a sixteenth), none of its legacy pages and none of them encoded as UTF-32 does. At least 8
    code units are needed. None otherwise. Says nothing about the rest of the payload; the caller
    decodes it to check. Never raises."""
    head = payload[:UTF16_WINDOW]
    n = len(head) & ~1
    units = n // 2
    if units < 8:
        return None
    even = head[0:n:2].count(0)
    odd = head[1:n:2].count(0)
    if 16 * odd >= units and 3 * even <= odd:
        return "UTF-16LE"
    if 16 * even >= units and 3 * odd <= even:
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
_C1 = re.compile("[\x80-\x9f]")
_UNICODE = frozenset(("UTF-8", "UTF-16LE", "UTF-16BE"))
#: single-byte encoding -> the bytes it decodes to C1 controls (for counting them in the bytes).
_C1_BYTES: dict[str, bytes] = {
    name: bytes(0x80 + i for i, ch in enumerate(high) if 0x80 <= ord(ch) <= 0x9F)
    for name, high in SINGLE_BYTE.items()
}
_NOT = {name: bytes(b for b in range(256) if b not in c1) for name, c1 in _C1_BYTES.items()}
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
    return len(payload.translate(None, _NOT_BINARY))


_C1_OR_PUA = re.compile("[\x80-\x9f\ue000-\uf8ff]")


def _non_ascii_chars(text: str) -> int:
    """How many characters of *text* are not ASCII (one encoder pass; a regex findall builds a
    string per character, about eight times slower on a page of text)."""
    return len(text) - len(text.encode("ascii", "ignore"))

#: A candidate stays clean with up to one defect per this many non-ASCII characters (a Word quote
#: pair pasted into an ISO-8859-2 page, a stray byte in a long page): a declaration is refuted by
#: a reading that is mostly defects, not by a few.
_DEFECT_RATE = 10


def _not_text(encoding: str, body: bytes, text: str) -> int:
    """Characters of *encoding*'s decode of *body* that are in no text: C1 controls from a legacy
    decoder, and private-use characters from a multi-byte or x-user-defined one."""
    if encoding in _UNICODE:
        return 0
    if encoding in _C1_BYTES:
        return c1_controls(encoding, body)
    return len(_C1_OR_PUA.findall(text))


def tld_vote(tld: str | None) -> str | None:
    """Firefox's fallback encoding for *tld* (``"vn"`` -> ``"windows-1258"``), the author
    detector's tie-break; None for a TLD with no entry (Firefox then uses windows-1252)."""
    return FIREFOX_TLD_FALLBACKS.get(tld.lower()) if tld else None


# --- the decision ---------------------------------------------------------------------------

#: ``detector(payload, tld) -> Detection | None`` as :func:`redecode.sniff.decide` calls it.
Detector = Callable[[bytes, "str | None"], "Detection | None"]


@dataclass(frozen=True, slots=True)
class Validated:
    """What :func:`decide` returns: the ``decision`` (with ``browser_encoding`` and
    ``validation`` set) and the ``decoded`` text it made (Encoding Standard decoder; its
    ``encoding`` is the decision's, ``bom_removed`` when a BOM was dropped): a
    :class:`~redecode.decode.DecodeResult`, or with ``decide(..., utf8_text=True)`` possibly a
    :class:`~redecode.decode.Utf8DecodeResult` (the same text as UTF-8 bytes)."""

    decision: Decision
    decoded: _decode.DecodeResult | _decode.Utf8DecodeResult


_BOM_LEN = {"UTF-8": 3, "UTF-16LE": 2, "UTF-16BE": 2}
_UTF16 = frozenset(("UTF-16LE", "UTF-16BE"))


class _Cand:
    """One candidate encoding: its evidence (in the order found), its decode (lazily)."""

    __slots__ = ("encoding", "evidence", "rank", "result", "clean", "defects")

    def __init__(self, encoding: str, rank: int):
        self.encoding = encoding
        self.evidence: list[str] = []
        self.rank = rank  # tie-break: lower wins (declarations < structure < detector < default)
        self.result: _decode.DecodeResult | None = None
        self.clean = False
        self.defects = 0


# Tie-break ranks.
_R_DECL, _R_ALIAS, _R_STRUCT, _R_DETECTOR, _R_DEFAULT = 0, 1, 2, 3, 4


def decide(
    payload: bytes,
    *,
    content_type: Sequence[str] = (),
    url: str | None = None,
    kind: str = "html",
    browser_detector: Detector | None = None,
    author_detector: Detector | None = None,
    min_errors: int = DEFAULT_MIN_ERRORS,
    utf8_text: bool = False,
) -> Validated:
    """The author's-text decision for one record's *payload* (bytes, content codings removed)
    and its text; see the module docstring for the steps.

    *content_type*, *url*, *kind*: as for :func:`redecode.sniff.decide` (the browser's steps run
    with the late-meta scan and Chromium's tokenizer). *browser_detector*: the browser rules'
    detector (for ``browser_encoding``); *author_detector*: the same engines with the TLD vote
    (for the primary decision and the candidates); either may be None (no detector).
    *min_errors*: check a's threshold. *utf8_text*: when no check fires (the primary decision
    stands, the usual case), ``decoded`` is a :class:`redecode.decode.Utf8DecodeResult` wherever
    :func:`redecode.decode.decode_to_utf8` can make one: the text as UTF-8 bytes without a ``str``
    (the checks read only the decode's encoding and error count); the decision is the same either
    way. Raises ValueError for an unknown *kind*; never raises
    because of the payload.
    """
    if type(payload) is not bytes:
        payload = bytes(payload)
    facts = gather(payload, content_type=content_type, url=url, kind=kind)
    tld = facts.tld
    cache: dict[str, Detection | None] = {}

    def run(detector: Detector | None, key: str) -> Detection | None:
        if key not in cache:
            cache[key] = detector(payload, tld) if detector is not None else None
        return cache[key]

    browser = choose(facts, detection=lambda: run(browser_detector, "browser"))
    assert browser is not None  # choose was given a detection callable
    primary = browser
    if browser.source in ("detector", "default") and author_detector is not None and facts.ascii_only is False:
        found = run(author_detector, "author")
        primary = choose(facts, detection=found)
        assert primary is not None
    primary = amend(primary, browser_encoding=browser.encoding)

    bom_len = _BOM_LEN.get(facts.bom or "", 0)
    result = _decode.decode_to_utf8(payload, primary.encoding, bom_sniff=True) if utf8_text else None
    if result is None:
        result = _decode.decode(payload, primary.encoding, bom_sniff=True)
    reason = _check(payload, facts, primary, result, min_errors)
    if reason is None:
        return Validated(primary, result)
    if type(result) is not _decode.DecodeResult:  # the candidates are weighed on their text
        result = _decode.decode(payload, primary.encoding, bom_sniff=True)
    return _weigh(payload, facts, primary, result, reason, bom_len,
                  lambda: run(author_detector, "author"))


def _check(payload: bytes, facts, primary: Decision, result: _decode.DecodeResult | _decode.Utf8DecodeResult,
           min_errors: int) -> str | None:
    """The first check of step 4 that fires (its name), or None. Reads the decode's ``encoding``
    and ``errors`` only, never its text."""
    enc = result.encoding
    if enc == "replacement":
        return "replacement"
    if result.errors >= min_errors:
        return "errors"
    if enc in _UTF16 and facts.kind != "text" and payload.find(b"\x00", 0, UTF16_WINDOW) < 0:
        return "implausible"  # markup in UTF-16 has a NUL byte in every ASCII character
    if primary.source == "bom":
        return None  # a BOM that decodes cleanly is the strongest declaration there is
    ascii_only = facts.ascii_only if facts.ascii_only is not None else payload.isascii()
    if not ascii_only and enc in _C1_BYTES and _c1_at_least(enc, payload, min_errors - result.errors):
        return "errors"
    if not ascii_only and enc == "x-user-defined":
        return "errors"  # every non-ASCII byte is a private-use character
    first = 0  # where the non-ASCII text starts, when known
    if enc != "UTF-8" and enc not in _UTF16 and not ascii_only:
        signal, first = _utf8_signal(payload, facts)
        if signal:
            return "utf-8"
    if enc not in _UTF16 and payload.find(b"\x00", 0, UTF16_WINDOW) >= 0 and utf16_pattern(payload):
        return "nul"
    if enc != "ISO-2022-JP" and ascii_only and escape_sequences(payload) == "ISO-2022-JP":
        return "escapes"
    if ascii_only:
        return None  # every ASCII-compatible encoding reads the same text
    if enc in _LATIN and runs_share(payload, first) >= RUNS_IMPLAUSIBLE:
        return "implausible"
    if enc == "windows-1252" and symbols_in_words(payload, first) >= SYMBOLS_IMPLAUSIBLE:
        return "implausible"
    if enc in _NON_LATIN and _script_implausible(payload, enc, first):
        return "implausible"
    declared = {e for e in (facts.bom, facts.header_encoding, facts.meta_encoding, facts.xml_encoding) if e}
    if len(declared) > 1:
        return "disagree"
    for _, label in _unknown_labels(facts):
        alias = alias_encoding(label)
        if alias is not None and alias.encoding != enc:
            return "disagree"
    if primary.source == "detector":
        return "detected"
    return None


def _utf8_signal(payload: bytes, facts) -> tuple[bool, int]:
    """Check c: the payload is valid UTF-8, or mostly valid (a UTF-8 page with a stray byte, or cut
    inside its last character). Legacy text fails at its first non-ASCII byte nearly always, so
    this mostly costs one failed decode of the ASCII before it; the decodes read windows of the
    payload (a failed decode copies its input into the exception). Returns ``(signal, offset)``:
    *offset* is that of the first invalid byte when no UTF-8 came before it (where the page's
    non-ASCII text starts), else 0."""
    if facts.utf8_valid is not None:
        return facts.utf8_valid, 0
    view = memoryview(payload)
    first = -1
    n = len(payload)
    pos = 0
    skipped = 0
    multibyte = False  # valid non-ASCII seen so far
    while pos < n:
        chunk = view[pos : pos + _SIGNAL_WINDOW]
        final = pos + len(chunk) >= n
        try:
            text, used = codecs.utf_8_decode(chunk, "strict", final)
        except UnicodeDecodeError as e:
            prefix, _ = codecs.utf_8_decode(chunk[: e.start], "strict", True)
            if multibyte or not prefix.isascii():
                # valid multi-byte sequences before an invalid one: mostly valid? A window from
                # there answers for most legacy pages, whose first word is valid by chance.
                window = bytes(view[pos : pos + _SIGNAL_WINDOW])
                if not multibyte and _mostly_valid(window, _decode.decode(window, "UTF-8", bom_sniff=False)) is None:
                    return False, max(first, 0)
                return _mostly_valid(payload, _decode.decode(payload, "UTF-8", bom_sniff=False)) is not None, 0
            if first < 0:
                first = pos + e.start
            skipped += 1
            if skipped >= _SIGNAL_TRIES:
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
    return multibyte and _mostly_valid(payload, _decode.decode(payload, "UTF-8", bom_sniff=False)) is not None, first


#: :func:`_utf8_signal` looks past this many invalid sequences before any UTF-8 before it gives up,
#: and decodes windows of this many bytes.
_SIGNAL_TRIES = 3
_SIGNAL_WINDOW = 8192


def _mostly_valid(body: bytes, decoded: _decode.DecodeResult) -> Utf8Profile | None:
    """The profile of *body* (not valid UTF-8; *decoded* its UTF-8 decode) when it is mostly valid
    UTF-8, else None."""
    # A valid multi-byte sequence is at least one byte longer than its character and an invalid
    # part never shorter than its U+FFFD: with at least as many U+FFFD as that difference, UTF-8
    # cannot be mostly valid (most legacy pages stop here, without a profile).
    shrink = len(body) - len(decoded.text)
    if decoded.errors >= shrink and b"\xed" not in body:
        return None
    # A CESU-8 pair is 6 bytes and 6 U+FFFD (it shrinks nothing) and counts as one unit, so with
    # c pairs, mostly valid needs errors - 6c <= multibyte + c <= shrink + c. Each pair holds two
    # ED bytes: more errors than shrink + 7 * (ED bytes // 2) rules it out without the profile.
    if decoded.errors > shrink + 7 * (body.count(b"\xed") // 2):
        return None
    profile = utf8_profile(body, decoded)
    return profile if profile.mostly_valid else None


# Latin-script single-byte encodings: their non-ASCII letters stand alone between ASCII ones
# (café, Größe, żółw). Text in a CJK, Cyrillic, Greek, Hebrew, Arabic or Thai encoding is made of
# runs of non-ASCII bytes; read as a Latin encoding it is mojibake without a single U+FFFD.
_LATIN = frozenset((
    "windows-1250", "windows-1252", "windows-1254", "windows-1257", "ISO-8859-2", "ISO-8859-3",
    "ISO-8859-4", "ISO-8859-10", "ISO-8859-13", "ISO-8859-14", "ISO-8859-15", "ISO-8859-16",
    "macintosh",
))
#: :func:`runs_share` at or above which a Latin reading is implausible. Measured on chardet's real
#: pages (8 KB from the first non-ASCII byte, at least 32 non-ASCII bytes): Latin-script pages
#: 0.00-0.56, every other
#: legacy script 0.65 (Big5) to 1.00 (tests/test_validate.py::test_runs_share_on_real_pages).
RUNS_IMPLAUSIBLE = 0.6
#: :func:`runs_share` reads at most this many bytes, and needs this many non-ASCII ones.
RUNS_WINDOW = 8192
RUNS_MIN_BYTES = 32
_RUNS_MAP = bytes(0x80 if b >= 0x80 else 0x61 for b in range(256))


def runs_share(payload: bytes, start: int = 0) -> float:
    """How much of *payload*'s non-ASCII bytes come in runs: twice the non-overlapping pairs of
    adjacent non-ASCII bytes over the non-ASCII bytes, in the :data:`RUNS_WINDOW` bytes from
    *start* (0 with fewer than :data:`RUNS_MIN_BYTES` non-ASCII bytes there). Near 0 for
    Latin-script text, near 1 for text in other scripts' legacy encodings. Never raises."""
    t = payload[start : start + RUNS_WINDOW].translate(_RUNS_MAP)
    high = t.count(b"\x80")
    if high < RUNS_MIN_BYTES:
        return 0.0
    return 2 * t.count(b"\x80\x80") / high


#: :func:`symbols_in_words` at or above which a windows-1252 (ISO-8859-1) reading is implausible.
#: Measured on chardet's real pages (8 KB from the first non-ASCII byte): windows-1252 and
#: ISO-8859-1 pages 0.00; ISO-8859-2 and windows-1250 pages read as windows-1252 0.35-0.44
#: (Polish, Croatian, Slovene: ą ł ś ź ż ž are ± ³ ¶ ¼ ¿ ¾ there); Czech and Slovak 0.00-0.11 stay
#: below it (a known limit: č ě ř are letters in windows-1252 too).
SYMBOLS_IMPLAUSIBLE = 0.2
# windows-1252 symbols that Latin-2 letters become, and that Western text does not put between
# two letters: A1-BF and × ÷, less those that do sit between or beside letters in real text
# (NBSP, © « soft hyphen ® ° ´ as an apostrophe, · in Catalan l·l, º ª »).
_SYMBOLS = frozenset(b for b in range(0xA1, 0xC0)
                     if b not in (0xA9, 0xAA, 0xAB, 0xAD, 0xAE, 0xB0, 0xB4, 0xB7, 0xBA, 0xBB)) | {0xD7, 0xF7}
# letters (ASCII, and windows-1252's C0-FF but × ÷) -> "a", those symbols -> "s", the rest -> " "
_SYMBOLS_MAP = bytes(
    0x61 if (0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A or (0xC0 <= b <= 0xFF and b not in (0xD7, 0xF7)))
    else 0x73 if b in _SYMBOLS else 0x20 for b in range(256))


def symbols_in_words(payload: bytes, start: int = 0) -> float:
    """The share of *payload*'s non-ASCII bytes that windows-1252 reads as a symbol between two
    letters (``Za¿ó³æ``: ż and ł of ISO-8859-2 are ¿ and ³ there), in the :data:`RUNS_WINDOW`
    bytes from *start* (0 with fewer than :data:`RUNS_MIN_BYTES` non-ASCII bytes). 0 for text in
    windows-1252, whose characters between letters are letters; high for Polish, Croatian or
    Slovene in ISO-8859-2 or windows-1250. Never raises."""
    window = payload[start : start + RUNS_WINDOW]
    high = len(window) - len(window.translate(None, _HIGH))
    if high < RUNS_MIN_BYTES:
        return 0.0
    t = window.translate(_SYMBOLS_MAP)
    # "asa" counted without overlap misses the second symbol of "asasa": count those too
    return (t.count(b"asa") + t.count(b"asasa")) / high


# Single-byte encodings of other scripts (Cyrillic, Greek, Hebrew, Arabic, Thai): their non-ASCII
# bytes are nearly all letters of the script, lower-case after upper-case where it has case.
_NON_LATIN = frozenset((
    "windows-1251", "KOI8-R", "KOI8-U", "ISO-8859-5", "IBM866", "x-mac-cyrillic", "windows-1253",
    "ISO-8859-7", "windows-1255", "ISO-8859-8", "ISO-8859-8-I", "windows-1256", "ISO-8859-6",
    "windows-874",
))
#: :func:`script_letters` shares at or above which a reading in a :data:`_NON_LATIN` encoding is
#: implausible. Measured on chardet's real pages (8 KB from the first non-ASCII byte, at least 32
#: non-ASCII bytes): pages in their own encoding have at most 0.013 non-letters (Greek
#: punctuation) and 0.003 case flips; Big5, GBK, EUC-JP, EUC-KR, Shift_JIS and UTF-8 pages read as
#: any of these have 0.08 non-letters or 0.03 case flips at least, nearly all far more
#: (tests/test_validate.py::test_script_letters_on_real_pages). Another encoding of the same
#: script (KOI8-R read as windows-1251) stays below both: a known limit.
NON_LETTERS_IMPLAUSIBLE = 0.05
CASE_FLIPS_IMPLAUSIBLE = 0.03


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


def script_letters(payload: bytes, encoding: str, start: int = 0) -> tuple[float, float]:
    """``(non_letters, case_flips)``: the shares of *payload*'s non-ASCII bytes that the
    single-byte *encoding* reads as something other than a letter or mark, and as an upper-case
    letter right after a lower-case non-ASCII one (``пРИВЕТ``), in the :data:`RUNS_WINDOW` bytes
    from *start*; ``(0.0, 0.0)`` with fewer than :data:`RUNS_MIN_BYTES` non-ASCII bytes. Low for
    text in *encoding*; high for CJK or UTF-8 bytes read as Cyrillic, Greek, Hebrew, Arabic or
    Thai. Raises ``KeyError`` for an encoding that is not single-byte."""
    table = _LETTER_CLASSES.get(encoding)
    if table is None:
        table = _LETTER_CLASSES[encoding] = _letter_classes(encoding)
    t = payload[start : start + RUNS_WINDOW].translate(table)
    high = len(t) - t.count(b"a")
    if high < RUNS_MIN_BYTES:
        return 0.0, 0.0
    return t.count(b"s") / high, t.count(b"lu") / high


def _script_implausible(payload: bytes, encoding: str, start: int) -> bool:
    non_letters, flips = script_letters(payload, encoding, start)
    return non_letters >= NON_LETTERS_IMPLAUSIBLE or flips >= CASE_FLIPS_IMPLAUSIBLE


def _unknown_labels(facts) -> list[tuple[str, str]]:
    """``(where, label)`` of each label the standard does not know, in step order (``where``:
    ``transport``, ``meta`` or ``xml-declaration``)."""
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


_NON_ASCII_RUN = re.compile(rb"[\x80-\xff]+")
_PUA = re.compile("[\ue000-\uf8ff]")
#: Valid UTF-8 overrules clean declarations outright only with at least this many runs of
#: non-ASCII bytes plus one per declaration: a word or two of legacy text can be valid UTF-8 by
#: chance ("CAFÉ\u00a0!" in windows-1252 is C9 A0, UTF-8 for U+0260; "NESTLÉ®" is C9 AE); on
#: chardet's real legacy pages at most 1.4% of the runs are (IBM866; CJK encodings 0.1-0.4%).
UTF8_DECISIVE_RUNS = 2


def _weigh(payload: bytes, facts, primary: Decision, result: _decode.DecodeResult, reason: str,
           bom_len: int, author_detection: Callable[[], Detection | None]) -> Validated:
    """Step 5: gather the candidates, pick the winner, record why."""
    # Every candidate decodes the payload after the BOM (if any) without BOM sniffing; the
    # primary's decode already did exactly that.
    body = payload[bom_len:] if bom_len else payload
    ascii_only = body.isascii()
    utf8_result = None
    utf8: Utf8Profile | None = None
    if not ascii_only:
        utf8_result = result if result.encoding == "UTF-8" else _decode.decode(body, "UTF-8", bom_sniff=False)
        utf8 = _VALID if utf8_result.errors == 0 else _mostly_valid(body, utf8_result)
    if reason in ("detected", "utf-8") and utf8 is None:
        # only (mostly) valid UTF-8 could speak against the primary here, and it does not
        return Validated(primary, result)

    cands: dict[str, _Cand] = {}

    def add(encoding: str | None, evidence: str, rank: int) -> _Cand | None:
        if encoding is None or encoding == "replacement":
            return None
        c = cands.get(encoding)
        if c is None:
            c = cands[encoding] = _Cand(encoding, rank)
        c.rank = min(c.rank, rank)
        if evidence not in c.evidence:
            c.evidence.append(evidence)
        return c

    # Declarations, in step order (the BOM first), then aliases of unknown labels.
    if facts.bom:
        add(facts.bom, "bom", _R_DECL)
    if facts.header_encoding:
        add(facts.header_encoding, f"transport:{facts.header_charset}", _R_DECL)
    for where, label, enc in _metas(payload, facts):
        add(enc, f"{where}:{label}", _R_DECL)
    if facts.xml_encoding:
        add(facts.xml_encoding, f"xml-declaration:{facts.xml_charset or ''}", _R_DECL)
    for where, label in _unknown_labels(facts):
        alias = alias_encoding(label)
        if alias is not None:
            add(alias.encoding, f"{where}:{label} (alias of {alias.encoding})", _R_ALIAS)
    # The primary's own step when it is not a declaration.
    if primary.source in ("detector", "utf8-valid", "default"):
        rank = {"detector": _R_DETECTOR, "utf8-valid": _R_STRUCT, "default": _R_DEFAULT}[primary.source]
        add(primary.encoding, primary.source, rank)
    if primary.encoding in cands:
        cands[primary.encoding].result = result
    declared = [c for c in cands.values() if c.rank == _R_DECL]

    # Structure.
    if utf8 is not None:
        add("UTF-8", _utf8_evidence(utf8), _R_STRUCT).result = utf8_result
    utf16 = utf16_pattern(body) if body.find(b"\x00", 0, UTF16_WINDOW) >= 0 else None
    if utf16 is not None:
        add(utf16, "UTF-16 NUL pattern", _R_STRUCT)
    escapes = escape_sequences(body)
    if escapes == "ISO-2022-JP":
        add(escapes, "ISO-2022-JP escape sequences", _R_STRUCT)
    if primary.encoding == "replacement" or reason == "implausible":
        # The label names the replacement encoding (ISO-2022-KR, HZ...), which decodes nothing,
        # or a reading that cannot be the author's: the page's text is what its bytes say in
        # another encoding, the TLD's default at least.
        add(default_encoding(facts.tld), "default", _R_DEFAULT)

    first_high = _NON_ASCII_RUN.search(body)
    start = first_high.start() if first_high else 0
    latin_runs = runs_share(body, start) >= RUNS_IMPLAUSIBLE if not ascii_only else False
    utf16_bare = facts.kind != "text" and body.find(b"\x00", 0, UTF16_WINDOW) < 0

    def implausible(encoding: str) -> bool:
        """A reading whose decode is clean but whose text cannot be the author's (check f)."""
        if encoding in _LATIN:
            return latin_runs or (encoding == "windows-1252" and not ascii_only
                                  and symbols_in_words(body, start) >= SYMBOLS_IMPLAUSIBLE)
        if encoding in _NON_LATIN:
            return not ascii_only and _script_implausible(body, encoding, start)
        return encoding in _UTF16 and utf16_bare

    c0 = binary_bytes(body)  # the same C0 controls in every ASCII-compatible reading

    def judge(c: _Cand) -> None:
        if c.result is None:
            c.result = _decode.decode(body, c.encoding, bom_sniff=False)
        text = c.result.text
        c.defects = c.result.errors + _not_text(c.encoding, body, text) + (0 if c.encoding in _UTF16 else c0)
        # A U+FFFD that is the last character only says the payload was cut inside it.
        if c.result.errors and text.endswith("\ufffd"):
            c.defects -= 1
        c.clean = (c.defects <= _non_ascii_chars(text) // _DEFECT_RATE if c.defects else True)
        if c.encoding == "UTF-8" and utf8 is not None and utf8.mostly_valid:
            c.clean = True
        if implausible(c.encoding):
            c.clean = False

    for c in cands.values():
        judge(c)

    why = _against(primary, result, reason, body)
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
        opposed = sum(len(c.evidence) for c in declared if c.clean and c.encoding != "UTF-8")
        if not opposed or _runs_at_least(body, UTF8_DECISIVE_RUNS + opposed):
            decisive.append(cands["UTF-8"])
    elif utf8 is not None and utf8.multibyte + utf8.cesu_pairs >= 2 and 4 * utf8.invalid <= utf8.multibyte:
        decisive.append(cands["UTF-8"])  # overwhelmingly UTF-8: a few bad bytes in a UTF-8 page
    for c in decisive:
        if c.result.errors == 0 or c.encoding == "UTF-8" or c.clean:
            return _outcome(facts, primary, result, c, why, cands, bom_len, None, escapes)

    # The detector, for payloads that give it something to read.
    detection = author_detection() if not ascii_only else None
    if detection is not None:
        c = add(detection.encoding, "detector", _R_DETECTOR)
        if c is not None:
            judge(c)

    # Encodings that read the same text are one candidate (GBK and gb18030, KOI8-R and KOI8-U
    # on most pages): their evidence is counted together, under the best-ranked name.
    order = list(cands)
    groups: list[_Cand] = []
    for c in sorted(cands.values(), key=lambda c: (c.rank, order.index(c.encoding))):
        for g in groups:
            if len(g.result.text) == len(c.result.text) and g.result.text == c.result.text:
                g.evidence += [e if c.encoding == g.encoding else f"{e} ({c.encoding})"
                               for e in c.evidence]
                break
        else:
            groups.append(c)
    clean = [c for c in groups if c.clean]
    if not clean and primary.encoding == "replacement" and groups:
        # the replacement decoder gives no text at all: the least damaged reading is better
        best = min(groups, key=lambda c: (c.defects, c.rank, order.index(c.encoding)))
        return _outcome(facts, primary, result, best, why, {c.encoding: c for c in groups}, bom_len,
                        detection, escapes)
    if not clean:
        others = ", ".join(f"{c.encoding} ({_defect_words(c)})" for c in groups
                           if c.encoding != primary.encoding)
        note = f"unresolved: {why}; no candidate decodes cleanly" + (f": {others}" if others else "")
        if escapes == "ISO-2022-KR":
            note += "; ISO-2022-KR escape sequences (not an Encoding Standard encoding)"
        det = {}
        if detection is not None and primary.detector is None:
            det = {"detector": detection.detector, "detector_confidence": detection.confidence}
        return Validated(amend(primary, confidence="tentative", validation=note, **det), result)
    best = max(clean, key=lambda c: (len(c.evidence), -c.rank, -order.index(c.encoding)))
    return _outcome(facts, primary, result, best, why, {c.encoding: c for c in groups}, bom_len,
                    detection, escapes)


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


def _metas(payload: bytes, facts) -> list[tuple[str, str, str]]:
    """``(where, label, encoding)`` of the metas that declare a known encoding: the one the
    browser's steps found, else (XML, plain text, or a header that decided before the head scan)
    the prescan's and the head scan's, read now."""
    if facts.meta_encoding is not None:
        return [(facts.meta_source, facts.meta_charset, facts.meta_encoding)]
    if facts.kind == "html" and facts.bom is None and facts.header_encoding is None:
        return []  # the browser's steps scanned the window and the head: no meta declares
    out = []
    m = prescan(payload)
    if m is None or m.encoding is None:
        m = head_scan(payload) if len(payload) > 1024 else None
        where = "head-scan"
    else:
        where = "prescan"
    if m is not None and m.encoding is not None:
        out.append((where, m.label, m.encoding))
    return out


def _defect_words(c: _Cand) -> str:
    if c.defects == 0 and not c.clean:
        return "implausible"
    words = [f"{c.result.errors} U+FFFD"] if c.result.errors else []
    if c.defects > c.result.errors:
        words.append("control or private-use characters")
    return " and ".join(words) or "0 U+FFFD"


def _against(primary: Decision, result: _decode.DecodeResult, reason: str, body: bytes) -> str:
    """Why the primary was checked, in words."""
    what = _step_name(primary)
    made = [f"{result.errors} U+FFFD"] if result.errors else []
    c1 = c1_controls(result.encoding, body) if result.encoding in _C1_BYTES else 0
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


def _conflict(facts, encoding: str) -> tuple[str, ...]:
    """The declarations naming another encoding than *encoding*, as ``where:label`` (the browser
    rules' ``conflict``; a BOM that lost is ``bom:<its encoding>``)."""
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


def _outcome(facts, primary: Decision, result: _decode.DecodeResult, winner: _Cand, why: str,
             cands: dict[str, _Cand], bom_len: int, detection: Detection | None,
             escapes: str | None) -> Validated:
    others = "; ".join(f"{c.encoding} ({', '.join(c.evidence)}"
                       + (f", {_defect_words(c)}" if not c.clean or c.defects else "") + ")"
                       for c in cands.values() if c is not winner and c.encoding != winner.encoding)
    evidence = ", ".join(winner.evidence)
    if winner.encoding == primary.encoding:
        note = f"kept: {why}; {primary.encoding} has the most evidence ({evidence})"
        if others:
            note += f" over {others}"
        return Validated(amend(primary, validation=note), result)
    text = winner.result
    if bom_len:
        text = _decode.DecodeResult(text.text, text.encoding, text.errors, True)
    how = "cleanly" if winner.defects == 0 else f"with {_defect_words(winner)}"
    note = f"overridden: {why}; {winner.encoding} decodes {how} ({evidence})"
    if others:
        note += f"; other candidates: {others}"
    if escapes == "ISO-2022-KR":
        note += "; ISO-2022-KR escape sequences (not an Encoding Standard encoding)"
    det = {}
    if detection is not None:
        det = {"detector": detection.detector, "detector_confidence": detection.confidence}
    decision = amend(primary, encoding=winner.encoding, source="validated", confidence="tentative",
                     conflict=_conflict(facts, winner.encoding), validation=note, **det)
    return Validated(decision, text)
