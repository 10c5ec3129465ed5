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
4. Checks, each cheap and in this order; the first that fires sends the record to step 5:

   a. ``errors``: the decode made at least ``min_errors`` U+FFFD (default 2: one bad byte in a
      declared page is not evidence enough to re-decode it);
   b. ``utf-8``: the primary encoding is not UTF-8 or UTF-16, and the payload is non-ASCII and
      entirely valid UTF-8 (valid UTF-8 is UTF-8);
   c. ``nul``: the primary encoding is not UTF-16 and the first 1024 bytes have the NUL pattern of
      UTF-16 text (:func:`utf16_pattern`);
   d. ``escapes``: the primary encoding is not ISO-2022-JP and the payload is 7-bit with JIS X
      0208 escape sequences (:func:`escape_sequences`);
   e. ``disagree``: the declarations name different encodings, or an ignored label names, as an
      alias, another encoding than the primary (:func:`redecode.aliases.alias_encoding`);
   f. ``detected``: the primary came from the detector (the page declared nothing and is not
      valid UTF-8), so mostly-valid UTF-8 is looked for.

5. Candidates, each with its evidence: the primary; every declaration (for XML and plain text
   too, and the late meta even when the header decided: a browser would not read them, the
   author's text may need them); aliases of unknown labels; UTF-8 (its profile); UTF-16 from the
   NUL pattern; ISO-2022-JP from escape sequences; the author detector with the TLD vote (only
   for non-ASCII payloads). A candidate is *clean* when its decode makes no U+FFFD, or, for
   UTF-8, when the payload is *mostly valid* UTF-8: at least one valid multi-byte sequence (a
   CESU-8 surrogate pair counts as one) and fewer invalid sequences than valid ones.

   Decisive structure first: a clean UTF-16 NUL pattern, clean ISO-2022-JP escapes, or strictly
   valid non-ASCII UTF-8 wins outright. Otherwise the clean candidate with the most evidence
   wins; ties go to declarations (in step order), then UTF-8's structure, then the detector,
   then the default. When no candidate is clean the primary stays.

Recorded in the :class:`~redecode.sniff.Decision`: ``browser_encoding``; ``source`` ``validated``
when step 5 chose another encoding than the primary (``confidence`` then ``tentative``: no
browser would have picked it with certainty); ``conflict`` lists the declarations naming another
encoding than the result, as for the browser rules; ``validation`` says why, starting with the
outcome: ``overridden: ...``, ``kept: ...`` (the candidates disagreed and the primary has the
most evidence) or ``unresolved: ...`` (no candidate decodes cleanly; the primary stays, tentative).
``validation`` is None when no check fired or the checks found nothing against the primary.

A BOM is challenged only by check a: when the payload after it makes U+FFFD and another
candidate decodes cleanly, the BOM's bytes are dropped and the rest decoded with the winner (a
UTF-8 BOM from a template in front of windows-1252 text); a BOM whose decode is clean stands.

Deviations: this is not a browser's algorithm; :func:`decide` departs from what a browser shows
exactly where the steps above say (that is its purpose). The browser's answer is kept in
``browser_encoding``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import decode as _decode
from ._tables import SINGLE_BYTE
from .aliases import FIREFOX_TLD_FALLBACKS, alias_encoding
from .prescan import head_scan, prescan
from .sniff import Decision, Detection, amend, choose, gather

__all__ = [
    "DEFAULT_MIN_ERRORS",
    "Utf8Profile",
    "Validated",
    "decide",
    "escape_sequences",
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
        """At least one valid multi-byte sequence (a CESU-8 pair counts as one) and fewer invalid
        sequences than valid ones."""
        units = self.multibyte + self.cesu_pairs
        return units >= 1 and self.invalid < units


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
    text whose characters are mostly ASCII or Latin-1 (markup, Latin script): at least a quarter
    of the code units have a zero high byte (NUL at odd offsets for little-endian, even for
    big-endian) and the other byte of the units is NUL at most a sixteenth as often (so UTF-32 and
    binary data do not match). At least 8 code units are needed. None otherwise. Says nothing
    about the rest of the payload; the caller decodes it to check. Never raises."""
    head = payload[:UTF16_WINDOW]
    n = len(head) & ~1
    units = n // 2
    if units < 8:
        return None
    even = head[0:n:2].count(0)
    odd = head[1:n:2].count(0)
    if 4 * odd >= units and 16 * even <= odd:
        return "UTF-16LE"
    if 4 * even >= units and 16 * odd <= even:
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
    ``encoding`` is the decision's, ``bom_removed`` when a BOM was dropped)."""

    decision: Decision
    decoded: _decode.DecodeResult


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
) -> Validated:
    """The author's-text decision for one record's *payload* (bytes, content codings removed)
    and its text; see the module docstring for the steps.

    *content_type*, *url*, *kind*: as for :func:`redecode.sniff.decide` (the browser's steps run
    with the late-meta scan and Chromium's tokenizer). *browser_detector*: the browser rules'
    detector (for ``browser_encoding``); *author_detector*: the same engines with the TLD vote
    (for the primary decision and the candidates); either may be None (no detector).
    *min_errors*: check a's threshold. Raises ValueError for an unknown *kind*; never raises
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
    result = _decode.decode(payload, primary.encoding, bom_sniff=True)
    reason = _check(payload, facts, primary, result, min_errors)
    if reason is None:
        return Validated(primary, result)
    return _weigh(payload, facts, primary, result, reason, bom_len,
                  lambda: run(author_detector, "author"))


def _check(payload: bytes, facts, primary: Decision, result: _decode.DecodeResult,
           min_errors: int) -> str | None:
    """The first check of step 4 that fires (its name), or None."""
    enc = result.encoding
    if result.errors >= min_errors:
        return "errors"
    if primary.source == "bom":
        return None  # a BOM that decodes cleanly is the strongest declaration there is
    ascii_only = facts.ascii_only if facts.ascii_only is not None else payload.isascii()
    if not ascii_only and enc in _C1_BYTES and _c1_at_least(enc, payload, min_errors - result.errors):
        return "errors"
    if enc != "UTF-8" and enc not in _UTF16 and not ascii_only and (
            facts.utf8_valid if facts.utf8_valid is not None else _is_utf8(payload)):
        return "utf-8"
    if enc not in _UTF16 and payload.find(b"\x00", 0, UTF16_WINDOW) >= 0 and utf16_pattern(payload):
        return "nul"
    if enc != "ISO-2022-JP" and ascii_only and escape_sequences(payload) == "ISO-2022-JP":
        return "escapes"
    if ascii_only:
        return None  # every ASCII-compatible encoding reads the same text
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


def _is_utf8(payload: bytes) -> bool:
    try:
        payload.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


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


def _weigh(payload: bytes, facts, primary: Decision, result: _decode.DecodeResult, reason: str,
           bom_len: int, author_detection: Callable[[], Detection | None]) -> Validated:
    """Step 5: gather the candidates, pick the winner, record why."""
    # Every candidate decodes the payload after the BOM (if any) without BOM sniffing; the
    # primary's decode already did exactly that.
    body = payload[bom_len:] if bom_len else payload
    if reason == "detected":
        # Nothing declared, not valid UTF-8, no NUL pattern, no escapes (checks b-d): only
        # mostly-valid UTF-8 can speak against the detector. A valid multi-byte sequence is at
        # least one byte longer than its character and an invalid part never shorter than its
        # U+FFFD, so len(bytes) - len(text) bounds the valid sequences: with at least as many
        # U+FFFD, UTF-8 is not mostly valid (most legacy pages), no profile needed.
        utf8_result = _decode.decode(body, "UTF-8", bom_sniff=False)
        if utf8_result.errors >= len(body) - len(utf8_result.text) or not utf8_profile(body, utf8_result).mostly_valid:
            return Validated(primary, result)
    cands: dict[str, _Cand] = {}

    def add(encoding: str | None, evidence: str, rank: int) -> None:
        if encoding is None or encoding == "replacement":
            return
        c = cands.get(encoding)
        if c is None:
            c = cands[encoding] = _Cand(encoding, rank)
        c.rank = min(c.rank, rank)
        if evidence not in c.evidence:
            c.evidence.append(evidence)

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
            add(alias.encoding, f"{where}:{label} (alias of {alias.encoding}, {alias.how})", _R_ALIAS)
    # The primary's own step when it is not a declaration.
    if primary.source == "detector":
        add(primary.encoding, "detector", _R_DETECTOR)
    elif primary.source == "default":
        add(primary.encoding, "default", _R_DEFAULT)
    cands[primary.encoding].result = result

    # Structure.
    ascii_only = payload.isascii()
    utf8 = None
    if not ascii_only:
        utf8_result = result if result.encoding == "UTF-8" else _decode.decode(body, "UTF-8", bom_sniff=False)
        if utf8_result.errors == 0:
            utf8 = _VALID
        elif utf8_result.errors >= len(body) - len(utf8_result.text):
            utf8 = None  # at least as many U+FFFD as valid sequences can be: not mostly valid
        else:
            utf8 = utf8_profile(body, utf8_result)
        if utf8 is not None and (utf8.valid or utf8.mostly_valid):
            add("UTF-8", _utf8_evidence(utf8), _R_STRUCT)
            cands["UTF-8"].result = utf8_result
    utf16 = utf16_pattern(body) if b"\x00" in body[:UTF16_WINDOW] else None
    if utf16 is not None:
        add(utf16, "UTF-16 NUL pattern", _R_STRUCT)
    if escape_sequences(body) == "ISO-2022-JP":
        add("ISO-2022-JP", "ISO-2022-JP escape sequences", _R_STRUCT)

    def judge(c: _Cand) -> None:
        if c.result is None:
            c.result = _decode.decode(body, c.encoding, bom_sniff=False)
        if c.encoding in _C1_BYTES:  # any C1 control at all (memchr), not how many
            c1 = 1 if _c1_at_least(c.encoding, body, 1) else 0
        else:
            c1 = c1_controls(c.encoding, body, c.result.text)
        c.defects = c.result.errors + c1
        c.clean = c.defects == 0 or (c.encoding == "UTF-8" and utf8 is not None and utf8.mostly_valid)

    for c in cands.values():
        judge(c)

    why = _against(primary, result, reason, body)
    # Decisive structure wins outright when clean: UTF-16's NUL pattern, ISO-2022-JP's escape
    # sequences (both are also ASCII-only or 'valid UTF-8' to the other checks), valid UTF-8.
    for enc in (utf16, "ISO-2022-JP", "UTF-8"):
        c = cands.get(enc) if enc else None
        if c is not None and c.result.errors == 0 and any(
                e.startswith(("UTF-16 NUL", "ISO-2022-JP escape", "valid UTF-8")) for e in c.evidence):
            return _outcome(facts, primary, result, c, why, cands, bom_len, None)

    # The detector, for payloads that give it something to read.
    detection = author_detection() if not ascii_only else None
    if detection is not None:
        add(detection.encoding, "detector", _R_DETECTOR)
        judge(cands[detection.encoding])

    order = list(cands)
    clean = [c for c in cands.values() if c.clean]
    if not clean:
        others = ", ".join(f"{c.encoding} ({_defect_words(c)})" for c in cands.values()
                           if c.encoding != primary.encoding)
        note = f"unresolved: {why}; no candidate decodes cleanly" + (f": {others}" if others else "")
        det = {}
        if detection is not None and primary.detector is None:
            det = {"detector": detection.detector, "detector_confidence": detection.confidence}
        return Validated(amend(primary, confidence="tentative", validation=note, **det), result)
    best = max(clean, key=lambda c: (len(c.evidence), -c.rank, -order.index(c.encoding)))
    return _outcome(facts, primary, result, best, why, cands, bom_len, detection)


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
    words = [f"{c.result.errors} U+FFFD"] if c.result.errors or c.defects == c.result.errors else []
    if c.defects > c.result.errors:
        words.append("C1 controls")
    return " and ".join(words)


def _against(primary: Decision, result: _decode.DecodeResult, reason: str, body: bytes) -> str:
    """Why the primary was checked, in words."""
    what = _step_name(primary)
    made = [f"{result.errors} U+FFFD"] if result.errors else []
    c1 = c1_controls(result.encoding, body) if result.encoding in _C1_BYTES else 0
    if c1:
        made.append(f"{c1} C1 controls")
    return {
        "errors": f"{what} made {' and '.join(made)}",
        "utf-8": f"{what} read valid UTF-8",
        "nul": f"{what} read UTF-16 (NUL bytes)",
        "escapes": f"{what} read ISO-2022-JP escape sequences",
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
    rules' ``conflict``)."""
    c = []
    if facts.header_encoding is not None and facts.header_encoding != encoding:
        c.append(f"transport:{facts.header_charset}")
    if facts.meta_encoding is not None and facts.meta_encoding != encoding:
        c.append(f"{facts.meta_source}:{facts.meta_charset}")
    if facts.xml_encoding is not None and facts.xml_encoding != encoding:
        c.append(f"xml-declaration:{facts.xml_charset or ''}")
    return tuple(c)


def _outcome(facts, primary: Decision, result: _decode.DecodeResult, winner: _Cand, why: str,
             cands: dict[str, _Cand], bom_len: int, detection: Detection | None) -> Validated:
    others = "; ".join(f"{c.encoding} ({', '.join(c.evidence)}"
                       + (f", {_defect_words(c)}" if c.defects else "") + ")"
                       for c in cands.values() if c is not winner)
    evidence = ", ".join(winner.evidence)
    if winner.encoding == primary.encoding:
        if len(cands) == 1:
            return Validated(primary, result)  # nothing spoke against it
        note = f"kept: {why}; {primary.encoding} has the most evidence ({evidence}) over {others}"
        return Validated(amend(primary, validation=note), result)
    text = winner.result
    if bom_len:
        text = _decode.DecodeResult(text.text, text.encoding, text.errors, True)
    how = "cleanly" if text.errors == 0 else f"with {text.errors} U+FFFD"
    note = f"overridden: {why}; {winner.encoding} decodes {how} ({evidence})"
    if others:
        note += f"; other candidates: {others}"
    det = {}
    if detection is not None:
        det = {"detector": detection.detector, "detector_confidence": detection.confidence}
    decision = amend(primary, encoding=winner.encoding, source="validated", confidence="tentative",
                       conflict=_conflict(facts, winner.encoding), validation=note, **det)
    return Validated(decision, text)
