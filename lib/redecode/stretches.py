"""Pages in two encodings: where a page's chosen reading leaves stretches that are invalid in it
while the rest is clean, and which encoding reads each stretch best.

Pages are assembled from parts written at different times: a UTF-8 template pastes comments from
a windows-1251 database, an old Shift_JIS page includes a UTF-8 widget. One decoder then reads
part of the page as its author wrote it and the rest as U+FFFD (a legacy paragraph in UTF-8) or
as mojibake without a single error (UTF-8 read as windows-1251: ``РљРѕРґРёСЂРѕРІРєР°`` for
``Кодировка``). This module finds those parts and reads each with the encoding its author used.

Concept -> function:

==============================================================  ================================
concept                                                         here
==============================================================  ================================
the page's words as the UTF-8 decoder reads them, in runs of    :func:`utf8_runs`
  words of one kind (valid, or holding an invalid sequence)
the stretches of a chosen reading and the text read in parts    :func:`read_in_parts`
the legacy encodings a script is written in                     :data:`SCRIPT_ENCODINGS`,
                                                                :func:`scripts`
whether a legacy stretch's reading reads as words (from         :func:`reads_as_words`
  ``author-2026.12.5`` on)
==============================================================  ================================

Words and runs (bytes). A *word* is a maximal run of bytes none of which is a *cut*: ASCII
controls, space, ``!"#$%&'()*+,-./`` and ``:;<=>?`` (0x00-0x2F, 0x3A-0x3F), the bytes that no
decoder of a multi-byte legacy encoding consumes as part of a character
(:mod:`redecode.decode`'s safe cuts: its trail bytes start at 0x40 or 0xA1, gb18030's digits are
0x30-0x39). So markup (``<``, ``>``, ``=``, quotes) and spaces end words, and every decoder the
page might be read with is in its initial state between words (the exception, gb18030's pending
"lead digit" before a cut, is an error whatever is cut). A word that holds a byte above 0x7F is
*valid* when the Encoding Standard's UTF-8 decoder reads every such byte as part of a well-formed
multi-byte sequence, *invalid* otherwise; a *run* is a maximal sequence of words of one kind with
only ASCII words (markup, spaces, ASCII text) between them. Runs of the other kind bound a run:
a legacy paragraph in a UTF-8 page is an invalid run between valid runs, a UTF-8 widget in a
windows-1251 page a valid run between invalid ones.

The stretches of a chosen reading (:func:`read_in_parts`):

* UTF-8 chosen: each invalid run with at least *min_invalid* U+FFFD (default 2: a lone invalid
  byte in UTF-8, a corruption or a stray byte, stays U+FFFD) is read with each candidate legacy
  encoding, on a page that holds UTF-8 text (a valid multi-byte sequence) outside its stretches:
  a page of ASCII and legacy bytes is in one encoding (the author decision weighs it whole), and
  a page of ASCII with damaged bytes stays U+FFFD however a legacy encoding reads them (wpull's
  ``xkcd_1_evil.html``, ``sample_warcs``' ``xml-declaration-utf8-corrupt``). Candidates: the page's declarations of legacy encodings, its top-level domain's
  fallback, the legacy encodings of the scripts of its valid text (:data:`SCRIPT_ENCODINGS`) and
  of the detector's answer on the run's bytes. A candidate's reading must be clean (its decoder
  errors, C1 controls and private-use characters at most one per ten non-ASCII characters), and
  the best clean reading must be more plausible as language than the UTF-8 reading with its
  U+FFFD by *margin* (:func:`redecode.language.plausibility`, the same judge the author decision
  weighs readings with; its ``score`` is in bits per character). A valid run between two
  stretches read in the same encoding joins them when that encoding reads it more plausibly than
  UTF-8 (a word of legacy text that is valid UTF-8 by chance).
* A single-byte or multi-byte legacy encoding chosen (not UTF-16, ISO-2022-JP, replacement or
  x-user-defined): each valid run with at least *min_sequences* multi-byte sequences (default 2:
  one two-byte sequence in legacy text is valid UTF-8 by chance too often), whose words are each
  written in one script (:func:`_words_of_one_script`), is read as UTF-8 when that reading is
  more plausible by *margin* than the clean readings (as above) of the chosen encoding and of the
  other encodings of its scripts, or when none of them is clean (the chosen encoding's reading
  with C1 controls or U+FFFD is no text of that encoding).

With *words* (the rules ``author-2026.12.5`` on; a fresh user's pages, issue 29), a legacy
stretch in a UTF-8 page is read only where a reading reads as words of a language
(:func:`reads_as_words`: no symbol and no letter of another script inside a word; ``caf©``
for a damaged ``café``, ``promenιs`` for a windows-1252 ``promenés`` are not) and the judge can
tell: the best script's readings must read *margin* bits better than every other script's
(judged on the stretch's words alone: the page's words around it are of the page's script),
and one with fewer than *min_letters* non-ASCII letters *margin* bits better than every sibling
that reads another text; candidates are the page's, then every legacy encoding of
:data:`SCRIPT_ENCODINGS` (a French comment in a Greek page). A run no reading reads is read
again in pieces cut where markup stands between its words (:func:`_pieces`: a windows-1251
paragraph and a Shift_JIS one). Whatever no reading reads stays U+FFFD; where a declaration
named UTF-8 that the decision read as a legacy encoding and none of the page's runs reads, the
page is read whole as UTF-8 (its U+FFFD are damage, not text of that encoding).

A stretch's bytes are tight: from its first byte above 0x7F to the end of the character that
holds its last one (a trail byte in ASCII included). Every other byte is read with the chosen
encoding, cut at the stretches: the chosen decoder is in its initial state there, so the parts
read alone are what it reads in the whole.

Units: offsets and lengths in bytes of the *body* given (the caller adds a BOM's length);
``errors`` counts U+FFFD inserted by the decoders; scores in bits per character.

The compiled core (:mod:`redecode.native`) has :func:`utf8_runs` as a C loop; the pure-Python
twin here is the reference (``tests/test_stretches.py`` proves them equal).

Deviations: not a specification's algorithm (no standard reads a page in parts); a browser shows
such a page with one decoder, as the browser rules do.
"""

from __future__ import annotations

import codecs
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from . import decode as _decode
from . import lazy as _lazy
from . import native
from .dataclass_code import dataclass

__all__ = [
    "ENCODINGS",
    "SCRIPT_ENCODINGS",
    "Parts",
    "Run",
    "Stretch",
    "read_in_parts",
    "read_parts",
    "reads_as_words",
    "script_judge",
    "scripts",
    "utf8_runs",
]

_core = native.core

# --- runs -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Run:
    """A run of words of one kind (module docstring): ``valid`` (no invalid UTF-8 sequence in any
    of its words), ``start``/``end`` (bytes: the first word's start, the last word's end),
    ``sequences`` (valid multi-byte UTF-8 sequences in it), ``invalid`` (U+FFFD the Encoding
    Standard's UTF-8 decoder inserts in it)."""

    valid: bool
    start: int
    end: int
    sequences: int
    invalid: int


_CUTS = rb"\x00-\x2f\x3a-\x3f"
# a word holding a byte above 0x7F, found only from a word's start (the look-behind) so that the
# search stays linear on long words without one
_WORD = _lazy.pattern(__name__, "_WORD", rb"(?<![^%s])[^%s\x80-\xff]*+[\x80-\xff][^%s]*+" % (_CUTS, _CUTS, _CUTS))
_HIGH = bytes(range(0x80, 0x100))
# bytes C0..FF -> "L", 80..BF -> "c", the rest -> " ": a valid multi-byte sequence starts "Lc"
_LEAD_CONT = bytes(0x4C if b >= 0xC0 else 0x63 if b >= 0x80 else 0x20 for b in range(256))


def _utf8_runs_pure(data: bytes, valid_only: bool = False) -> list[tuple[bool, int, int, int, int]]:
    """The reference for :func:`utf8_runs` (tuples ``(valid, start, end, sequences, invalid)``)."""
    if valid_only and b"Lc" not in data.translate(_LEAD_CONT):
        return []  # no valid multi-byte sequence anywhere
    out: list[tuple[bool, int, int, int, int]] = []
    kind = None
    r0 = r1 = rseqs = rbad = 0
    for m in _WORD.finditer(data):
        w = m.group()
        text = w.decode("utf-8", "replace")
        # every EF BF BD of the input is a valid U+FFFD (EF is never a continuation byte)
        bad = text.count("\ufffd") - w.count(b"\xef\xbf\xbd")
        seqs = len(text) - len(w.translate(None, _HIGH)) - bad
        valid = bad == 0
        if valid is kind:
            r1 = m.end()
            rseqs += seqs
            rbad += bad
        else:
            if kind is not None:
                out.append((kind, r0, r1, rseqs, rbad))
            kind, r0, r1, rseqs, rbad = valid, m.start(), m.end(), seqs, bad
    if kind is not None:
        out.append((kind, r0, r1, rseqs, rbad))
    return [r for r in out if r[0]] if valid_only else out


def utf8_runs(data: bytes, *, valid_only: bool = False) -> list[Run]:
    """The runs of *data* (bytes; module docstring: words as the Encoding Standard's UTF-8 decoder
    reads them, grouped by kind), in order. With *valid_only*, only the valid runs (the same runs
    as without it, found faster where valid words are rare: a legacy page is scanned eight bytes
    at a time for a byte C0..FF followed by a continuation byte, which every valid multi-byte
    sequence starts with). Never raises for ``bytes``."""
    last = _LAST_RUNS[0]
    if last is not None and last[0] is data and (last[1] == valid_only or valid_only):
        # (the very same bytes asked again: step 6 asks whether a page has a valid run before it
        # reads it in parts, outside_utf8 asks for the valid runs and then all of them; the valid
        # runs are those of all the runs that are valid, see _utf8_runs_pure)
        return list(last[2]) if last[1] == valid_only else [r for r in last[2] if r.valid]
    raw = _core.utf8_runs(data, valid_only) if _core is not None else _utf8_runs_pure(data, valid_only)
    runs = [Run(*r) for r in raw]
    if type(data) is bytes:  # (immutable: the object held is the key)
        _LAST_RUNS[0] = (data, valid_only, tuple(runs))
    return runs


#: (:func:`utf8_runs`) the last answer: (the bytes object itself, valid_only, its runs)
_LAST_RUNS: list[tuple[bytes, bool, tuple[Run, ...]] | None] = [None]


# --- scripts and their legacy encodings -------------------------------------------------------

#: Script -> the legacy encodings of the Encoding Standard text in it is written in, the most
#: used first (by the script's languages; Firefox's and chardetng's tables list the same).
SCRIPT_ENCODINGS: dict[str, tuple[str, ...]] = {
    "Latin": ("windows-1252", "windows-1250", "ISO-8859-2", "windows-1254", "windows-1257",
              "ISO-8859-13", "windows-1258", "ISO-8859-15", "ISO-8859-16", "ISO-8859-3",
              "ISO-8859-4", "ISO-8859-10", "ISO-8859-14", "macintosh"),
    "Cyrillic": ("windows-1251", "KOI8-R", "KOI8-U", "ISO-8859-5", "IBM866", "x-mac-cyrillic"),
    "Greek": ("windows-1253", "ISO-8859-7"),
    "Hebrew": ("windows-1255", "ISO-8859-8"),
    "Arabic": ("windows-1256", "ISO-8859-6"),
    "Thai": ("windows-874",),
    "Hangul": ("EUC-KR",),
    "Kana": ("Shift_JIS", "EUC-JP"),
    "Han": ("GBK", "Big5", "Shift_JIS", "EUC-JP", "EUC-KR"),
}

# (first code point, last, script) of the letters that name a script
_SCRIPT_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x00C0, 0x024F, "Latin"), (0x1E00, 0x1EFF, "Latin"),
    (0x0370, 0x03FF, "Greek"), (0x1F00, 0x1FFF, "Greek"),
    (0x0400, 0x052F, "Cyrillic"),
    (0x0590, 0x05FF, "Hebrew"),
    (0x0600, 0x06FF, "Arabic"), (0x0750, 0x077F, "Arabic"), (0xFB50, 0xFDFF, "Arabic"),
    (0xFE70, 0xFEFF, "Arabic"),
    (0x0E00, 0x0E7F, "Thai"),
    (0x1100, 0x11FF, "Hangul"), (0x3130, 0x318F, "Hangul"), (0xAC00, 0xD7AF, "Hangul"),
    (0x3040, 0x30FF, "Kana"), (0x31F0, 0x31FF, "Kana"), (0xFF66, 0xFF9F, "Kana"),
    (0x3400, 0x4DBF, "Han"), (0x4E00, 0x9FFF, "Han"), (0xF900, 0xFAFF, "Han"),
)
_SCRIPT_OF: dict[int, str] = {}


def _script(cp: int) -> str | None:
    s = _SCRIPT_OF.get(cp)
    if s is None and cp not in _SCRIPT_OF:
        s = next((name for lo, hi, name in _SCRIPT_RANGES if lo <= cp <= hi), None)
        if len(_SCRIPT_OF) < 1 << 16:
            _SCRIPT_OF[cp] = s  # type: ignore[assignment]
    return s


def scripts(text: str) -> list[str]:
    """The scripts of *text*'s non-ASCII letters (keys of :data:`SCRIPT_ENCODINGS`), the most
    frequent first (ties: the order of that table); Japanese text (kana with or without Han) is
    ``Kana`` before ``Han``. Empty for text without such letters."""
    counts: dict[str, int] = {}
    for ch in text:
        if ch > "\x7f":
            s = _script(ord(ch))
            if s is not None:
                counts[s] = counts.get(s, 0) + 1
    order = list(SCRIPT_ENCODINGS)
    out = sorted(counts, key=lambda s: (-counts[s], order.index(s)))
    if "Kana" in out and "Han" in out and out.index("Han") < out.index("Kana"):
        out.remove("Kana")
        out.insert(out.index("Han"), "Kana")
    return out


# --- the stretches of a reading ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stretch:
    """Bytes of a page read with another encoding than the page's: ``offset`` and ``length`` in
    bytes (of the body given to :func:`read_in_parts`), ``encoding`` the Encoding Standard name
    that reads them."""

    offset: int
    length: int
    encoding: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Parts:
    """A page read in parts (:func:`read_in_parts`): ``text`` (str), ``errors`` (U+FFFD the
    decoders inserted in it), ``encoding`` (the chosen reading's, which reads every byte outside
    the stretches), ``stretches`` (in order, never overlapping, at least one; none only where a
    page declared UTF-8 that the decision read as a legacy encoding is read whole as UTF-8, from
    ``author-2026.12.5`` on) and ``why`` (one line per stretch: its evidence, for the row's
    ``validation``; with no stretch, why the page is read whole)."""

    text: str
    errors: int
    encoding: str
    stretches: tuple[Stretch, ...]
    why: tuple[str, ...]


#: ``judge({key: text}) -> {key: bits}``: how plausible each reading of the same bytes is, as the
#: log2-likelihood of the reading's text (higher is more plausible); the ``bits`` of
#: :func:`redecode.language.plausibility`.
Judge = Callable[[Mapping[str, str]], Mapping[str, float]]

# --- a judge without a language model ----------------------------------------------------------

_DEFECT_BITS, _SYMBOL_BITS, _TYPO_BITS, _LETTER_BITS, _SWITCH_BITS, _FLIP_BITS = -22.0, -14.0, -6.0, -4.0, -10.0, -6.0
_TYPOGRAPHY = frozenset("\u00a0\u00ab\u00bb\u00b7\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e"
                        "\u2026\u00a9\u00ae\u00b0\u3000\u3001\u3002\u300c\u300d\uff08\uff09\uff0c")


def script_judge(readings: Mapping[str, str]) -> dict[str, float]:
    """A :data:`Judge` from characters alone, for when no language model is at hand: each
    non-ASCII word's characters cost bits: a letter 4, 10 more where its script (:func:`scripts`'
    ranges) differs from the letter before it in the word, 6 more for an upper-case letter right
    after a lower-case one (kana and Han count as one script); typographic punctuation 6;
    another symbol 14; U+FFFD, controls, private-use and unassigned characters 22."""
    import unicodedata  # noqa: PLC0415 - only this judge needs it

    out: dict[str, float] = {}
    for key, text in readings.items():
        bits = 0.0
        for word in _words(text).split():
            prev_script = None
            prev_lower = False
            for ch in word:
                cat = unicodedata.category(ch)
                if ch == "\ufffd" or cat in ("Cc", "Co", "Cn", "Cs"):
                    bits += _DEFECT_BITS
                    prev_script, prev_lower = None, False
                elif cat[0] in "LM":
                    sc = _script(ord(ch)) if ch > "\x7f" else "Latin"
                    sc = "Han" if sc == "Kana" else sc  # (Japanese writes both in one word)
                    bits += _LETTER_BITS
                    if prev_script is not None and sc != prev_script and cat[0] == "L":
                        bits += _SWITCH_BITS
                    if cat == "Lu" and prev_lower:
                        bits += _FLIP_BITS
                    prev_script, prev_lower = sc, cat == "Ll"
                elif ch in _TYPOGRAPHY:
                    bits += _TYPO_BITS
                    prev_script, prev_lower = None, False
                elif ch > "\x7f":
                    bits += _SYMBOL_BITS
                    prev_script, prev_lower = None, False
        out[key] = bits
    return out


#: Legacy decoders whose text can be read in parts (ASCII-compatible, no state across characters).
_LEGACY = frozenset(
    name for name in _decode.ENCODING_NAMES
    if _decode.decoder_family(name) in ("single-byte", "multi-byte") and name != "x-user-defined")
_MULTI = frozenset(name for name in _LEGACY if _decode.decoder_family(name) == "multi-byte")
#: The encodings whose readings :func:`read_in_parts` reads in parts: UTF-8 and the legacy
#: single-byte and multi-byte encodings (not UTF-16, ISO-2022-JP, replacement, x-user-defined).
ENCODINGS: frozenset[str] = frozenset({"UTF-8"} | _LEGACY)
#: defects tolerated in a candidate's reading: one per this many non-ASCII characters
_DEFECT_RATE = 10
_C1_OR_PUA = _lazy.pattern(__name__, "_C1_OR_PUA", "[\x80-\x9f\ue000-\uf8ff]")


def _defects(text: str, errors: int) -> int:
    if _core is not None and type(text) is str:
        return errors + _core.c1_or_pua(text)  # (the compiled count; the pattern is its twin)
    return errors + len(_C1_OR_PUA.findall(text))


def _non_ascii(text: str) -> int:
    return len(text) - len(text.encode("ascii", "ignore"))


def _tighten(body: bytes, start: int, end: int, encoding: str) -> tuple[int, int]:
    """[first byte above 0x7F, end of the character holding the last one) within body[start:end],
    for a stretch read with *encoding* (a multi-byte encoding's last character may end with an
    ASCII trail byte)."""
    window = body[start:end]
    first = start + next(i for i, b in enumerate(window) if b >= 0x80)
    last = start + max(i for i, b in enumerate(window) if b >= 0x80) + 1
    if encoding not in _MULTI or last == end:
        return first, last
    text = _decode.decode(body[first:end], encoding, bom_sniff=False).text
    tail = end - last  # ASCII bytes after the last byte above 0x7F
    ascii_tail = len(text) - len(text.rstrip("".join(map(chr, range(128)))))
    return first, (last if ascii_tail >= tail else end - ascii_tail)


def read_in_parts(
    body: bytes,
    encoding: str,
    *,
    judge: Judge,
    candidates: Sequence[str] = (),
    detect: Callable[[bytes], str | None] | None = None,
    declared: bool = True,
    utf8_declared: bool = False,
    min_invalid: int = 2,
    min_sequences: int = 2,
    margin: float = 8.0,
    words: bool = False,
    min_letters: int = 0,
    outside_utf8: bool = False,
) -> Parts | None:
    """*body* (bytes, after any BOM) read in parts, or None when its reading with *encoding*
    (the chosen one, an Encoding Standard name) has no stretch (module docstring).

    *judge*: how plausible readings are (:data:`Judge`). *candidates*: legacy encodings the page
    names (its declarations, its top-level domain's fallback), in order of preference;
    *detect*: the detector, asked about the bytes a legacy encoding is to read (its answer joins
    the candidates). *declared*: whether a declaration of the page names *encoding* (when not,
    and the page holds UTF-8 stretches, the encoding of the rest is weighed again: the guess was
    made on the mixed page). *utf8_declared*: whether a declaration names UTF-8 (when it lost to
    a legacy *encoding*, the page is read as a UTF-8 page with legacy stretches, if valid UTF-8
    text remains outside them). *min_invalid*, *min_sequences*, *margin* (bits): as in the
    module docstring. *words* (``author-2026.12.5`` on): a legacy stretch's reading must read as
    words (:func:`reads_as_words`) and hold at least *min_letters* non-ASCII letters, a reading of
    another script within *margin* of it makes the stretch ambiguous (it stays U+FFFD), every
    legacy encoding of :data:`SCRIPT_ENCODINGS` is a candidate after the page's, and a run no
    reading reads is read again in pieces cut at markup. *outside_utf8* (``author-2026.12.6``
    on): where the encoding of a legacy page's rest is weighed again, the judge reads the rest
    without its valid UTF-8 runs, those left unread included (a lone ``—`` of a UTF-8 template
    reads as Cyrillic letters in x-mac-cyrillic, ``вАФ``): the legacy text decides. Never raises
    for ``bytes`` and a known encoding name.
    """
    if encoding == "UTF-8":
        return _legacy_stretches(body, judge, candidates, detect, min_invalid, margin, words,
                                 min_letters)
    if encoding in _LEGACY and utf8_declared:
        # The page says UTF-8 and the decision read it as a legacy encoding: read it as a UTF-8
        # page whose legacy parts are stretches, if it has UTF-8 text outside them.
        return _legacy_stretches(body, judge, [*candidates, encoding], detect, min_invalid, margin,
                                 words, min_letters, utf8_declared=True)
    if encoding in _LEGACY:
        return _utf8_stretches(body, encoding, judge, candidates, detect, declared, min_sequences,
                               margin, outside_utf8)
    return None


_TEXT_CUTS = _lazy.pattern(__name__, "_TEXT_CUTS", "[\x00-\x2f\x3a-\x3f]+")


def _words(text: str) -> str:
    """The words of *text* that hold a non-ASCII character, joined by spaces: what the judge
    reads of a stretch (markup and ASCII words are the same in every reading; the cuts are ASCII
    characters no legacy decoder consumes, so every reading of the same bytes has the same
    words)."""
    return " ".join(w for w in _TEXT_CUTS.split(text) if not w.isascii())


def _judge(judge: Judge, readings: Mapping[str, str], context: str = "") -> Mapping[str, float]:
    """*judge* on the words of *readings*, each followed by the same *context* (words of the
    page around them, which steer every reading towards the page's language)."""
    return judge({k: f"{_words(v)} {context}".strip() for k, v in readings.items()})


#: How much of the page around a stretch the judge reads as its context: bytes each side, and
#: words holding a non-ASCII character each side.
_CONTEXT_BYTES = 600
_CONTEXT_WORDS = 8


# a run of bytes between cut bytes: the context's words are those with a byte above 0x7F (one
# pass; a pattern that finds those words itself backtracks over each ASCII run at every offset)
_BYTE_RUN = _lazy.pattern(__name__, "_BYTE_RUN", rb"[^%s]+" % _CUTS)
_CUT = _lazy.pattern(__name__, "_CUT", rb"[%s]" % _CUTS)


def _context(body: bytes, lo: int, hi: int, encoding: str, *, legacy_only: bool = False) -> str:
    """Words of the page around body[lo:hi] as *encoding* reads them (none with U+FFFD): at most
    :data:`_CONTEXT_WORDS` before and after, from :data:`_CONTEXT_BYTES` bytes each side cut at
    cut bytes. With *legacy_only*, words that are valid UTF-8 are left out too (around a UTF-8
    run in a legacy reading they may be more UTF-8 text, whose mojibake would steer every
    reading towards the language of the mojibake)."""
    a = max(0, lo - _CONTEXT_BYTES)
    if a:
        m = _CUT.search(body, a, lo)
        a = m.start() if m else lo
    b = min(len(body), hi + _CONTEXT_BYTES)
    if b < len(body):
        cut = max(body.rfind(c, hi, b) for c in (b" ", b"<", b">", b"\n"))
        b = cut if cut >= hi else hi

    def words(lo_: int, hi_: int, last: bool) -> list[str]:
        # the first (with *last*, the last) _CONTEXT_WORDS of the words that qualify, in order:
        # only as many decoded as it takes, from the end nearer the stretch
        found = [w for w in (m.group() for m in _BYTE_RUN.finditer(body, lo_, hi_)) if not w.isascii()]
        if last:
            found.reverse()
        out = []
        for w in found:
            if legacy_only and _valid_utf8(w):
                continue
            t = _decode.decode(w, encoding, bom_sniff=False)
            if not t.errors:
                out.append(t.text)
                if len(out) == _CONTEXT_WORDS:
                    break
        if last:
            out.reverse()
        return out

    return " ".join(words(a, lo, True) + words(hi, b, False))


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _clean(text: str, errors: int) -> bool:
    """At most one defect (U+FFFD, C1 control, private-use character) per :data:`_DEFECT_RATE`
    non-ASCII characters."""
    return _defects(text, errors) <= _non_ascii(text) // _DEFECT_RATE


def _prefer(readings: dict[str, str], scores: Mapping[str, float], margin: float) -> str:
    """The first of *readings* (in order of preference) unless a later one is more plausible by
    *margin* bits than the one preferred so far."""
    order = list(readings)
    best = order[0]
    for e in order[1:]:
        if scores[e] >= scores[best] + margin:
            best = e
    return best


def read_parts(body: bytes, encoding: str, stretches: Sequence[Stretch]) -> tuple[str, int]:
    """``(text, errors)``: *body* (bytes, after any BOM) read with the Encoding Standard's
    decoders (no BOM sniffing), each of *stretches* (in order, not overlapping; offsets in *body*)
    with its encoding and every other byte with *encoding*; *errors* counts the U+FFFD inserted.
    Replays a decision that read a page in parts (:attr:`redecode.sniff.Decision.stretches`).
    Raises ``LookupError`` for an unknown encoding."""
    out: list[str] = []
    errors = 0
    pos = 0
    for s in stretches:
        for data, enc in ((body[pos:s.offset], encoding), (body[s.offset:s.offset + s.length], s.encoding)):
            if data:
                r = _decode.decode(data, enc, bom_sniff=False)
                out.append(r.text)
                errors += r.errors
        pos = s.offset + s.length
    if pos < len(body):
        r = _decode.decode(body[pos:], encoding, bom_sniff=False)
        out.append(r.text)
        errors += r.errors
    return "".join(out), errors


def _assemble(body: bytes, encoding: str, stretches: list[Stretch], why: list[str]) -> Parts:
    text, errors = read_parts(body, encoding, stretches)
    return Parts(text=text, errors=errors, encoding=encoding, stretches=tuple(stretches),
                 why=tuple(why))


def _candidates(first: Sequence[str], data: bytes, detect: Callable[[bytes], str | None] | None,
                text: str) -> list[str]:
    """Legacy encodings to read *data* with, in order of preference: *first*, the detector's
    answer on *data* and the other encodings of its script, the encodings of *text*'s scripts
    (the page's other text); the Latin ones when none is found."""
    names: list[str] = [c for c in first if c in _LEGACY]
    if detect is not None:
        found = detect(data)
        if found in _LEGACY:
            names.append(found)
            names += [e for s in _scripts_of_encoding(found) for e in SCRIPT_ENCODINGS[s]]
    for s in scripts(text):
        names += SCRIPT_ENCODINGS[s]
    return list(dict.fromkeys(names)) or list(SCRIPT_ENCODINGS["Latin"])


#: The judge reads at most this many bytes of a run (from its start, cut at a cut byte), and of
#: the text outside the stretches when it weighs the encoding of a page's legacy text again.
_JUDGE_BYTES = 4096
#: Runs weighed with every candidate encoding on one page; later runs are read with the
#: encoding chosen most often before them (a page of many comments from one database).
_MAX_RUNS = 16
#: Runs weighed on one page at most (a pathological page keeps the rest as the chosen reading).
_MAX_WEIGHED = 256


def _sample_end(data: bytes, lo: int, hi: int) -> int:
    """*hi*, or the last cut byte before ``lo + _JUDGE_BYTES`` when the span is longer (every
    decoder is in step there)."""
    if hi - lo <= _JUDGE_BYTES:
        return hi
    cut = max(data.rfind(c, lo, lo + _JUDGE_BYTES) for c in (b" ", b"<", b">", b"\n"))
    return cut if cut > lo else lo + _JUDGE_BYTES


def _utf8_stretches(body: bytes, encoding: str, judge: Judge, candidates: Sequence[str],
                    detect: Callable[[bytes], str | None] | None, declared: bool,
                    min_sequences: int, margin: float, outside_utf8: bool = False) -> Parts | None:
    """Valid UTF-8 runs in a page read with the legacy *encoding* (*outside_utf8*: see
    :func:`read_in_parts`)."""
    runs = utf8_runs(body, valid_only=True)
    if not runs:
        return None
    stretches: list[Stretch] = []
    why: list[str] = []
    # UTF-8 is weighed against the chosen encoding and the others of its scripts: where the
    # choice itself is wrong (a sibling's lie kept), legacy text valid as UTF-8 by chance still
    # reads better in the right sibling than as UTF-8
    family = [encoding] + [e for sc in _scripts_of_encoding(encoding) for e in SCRIPT_ENCODINGS[sc]
                           if e != encoding]
    weighed = 0
    for r in runs:
        # the judge reads the run's whole words (its first and last may begin or end in ASCII
        # letters: "maternità"), every decoder in step at their ends
        data = body[r.start:_sample_end(body, r.start, r.end)]
        legacy = _decode.decode(data, encoding, bom_sniff=False)
        utf8 = data.decode("utf-8")
        if r.sequences < min_sequences and not _defects(legacy.text, legacy.errors) and not (
                encoding not in _MULTI and _fits(utf8, encoding)):
            continue  # (fewer sequences are valid UTF-8 by chance too often, unless the legacy
            # reading has no character for their bytes, or, in a single-byte page, they read as
            # letters of their words' script or as punctuation)
        if not _words_of_one_script(utf8):
            continue  # (bytes valid as UTF-8 by chance read as letters of scattered scripts)
        weighed += 1
        if weighed > _MAX_WEIGHED:
            break
        # the legacy readings that are clean compete with UTF-8's (the chosen encoding's own
        # reading with C1 controls or U+FFFD is no text of that encoding: it does not)
        readings = {"UTF-8": utf8}
        if _clean(legacy.text, legacy.errors):
            readings[encoding] = legacy.text
        for e in family[1:]:
            other = _decode.decode(data, e, bom_sniff=False)
            if _clean(other.text, other.errors):
                readings.setdefault(e, other.text)
        first, last = _tighten(body, r.start, r.end, "UTF-8")
        if len(readings) == 1:
            stretches.append(Stretch(first, last - first, "UTF-8"))
            why.append(f"{r.sequences} valid UTF-8 sequences, no clean reading in {encoding} "
                       f"or its siblings")
            continue
        scores = _judge(judge, readings, _context(body, r.start, r.end, encoding, legacy_only=True))
        gain = scores["UTF-8"] - max(v for k, v in scores.items() if k != "UTF-8")
        if gain >= margin:
            stretches.append(Stretch(first, last - first, "UTF-8"))
            why.append(f"{r.sequences} valid UTF-8 sequences, {gain:.0f} bits more plausible "
                       f"than {encoding}")
    if not stretches:
        return None
    main = encoding
    if not declared:
        # The legacy encoding was guessed (or chosen over the declarations) on the page with its
        # UTF-8 stretches: weigh it again on the rest.
        pieces, pos = [], 0
        # (outside_utf8: every valid run with a multi-byte sequence is left out, read or not)
        cuts = ([(r.start, r.end) for r in runs if r.sequences] if outside_utf8
                else [(st.offset, st.offset + st.length) for st in stretches])
        for lo, hi in cuts:
            pieces.append(body[pos:lo])
            pos = max(pos, hi)
        pieces.append(body[pos:])
        rest = b"\n".join(pieces)
        rest = rest[:_sample_end(rest, 0, len(rest))]
        utf8_text = " ".join(body[st.offset:st.offset + st.length].decode("utf-8") for st in stretches)
        names = _candidates([*candidates, encoding], rest, detect, utf8_text)
        readings = {}
        for e in names:
            r = _decode.decode(rest, e, bom_sniff=False)
            if _clean(r.text, r.errors):
                readings[e] = r.text
        if readings:
            main = _prefer(readings, _judge(judge, readings), margin)
    return _assemble(body, main, stretches, why)


def _legacy_stretches(body: bytes, judge: Judge, candidates: Sequence[str],
                      detect: Callable[[bytes], str | None] | None, min_invalid: int,
                      margin: float, words: bool = False, min_letters: int = 0,
                      utf8_declared: bool = False) -> Parts | None:
    """Invalid runs in a page read as UTF-8; None unless a valid run with a multi-byte sequence
    is left outside the stretches (a page in two encodings shows both)."""
    runs = utf8_runs(body)
    if not any(r.valid and r.sequences for r in runs):
        return None  # (no UTF-8 text: a page in one encoding, or ASCII with damaged bytes)
    targets = [i for i, r in enumerate(runs) if not r.valid and _legacy_like(body, runs, i, min_invalid)]
    if not targets:
        return None
    valid_text = " ".join(body[r.start:r.end].decode("utf-8") for r in runs if r.valid)
    names = _candidates(candidates, b"\n".join(body[runs[i].start:runs[i].end] for i in targets),
                        detect, valid_text)
    if words:
        # (a stretch is read as its author wrote it whatever the page's scripts: a French comment
        # in a Greek page; the page's candidates come first)
        names = list(dict.fromkeys([*names, *(e for encs in SCRIPT_ENCODINGS.values() for e in encs)]))
        return _legacy_stretches_words(body, runs, targets, names, judge, min_invalid, margin,
                                       min_letters, utf8_declared)
    chosen: dict[int, tuple[str, int, int, str]] = {}
    for n, i in enumerate(targets[:_MAX_WEIGHED]):
        if n >= _MAX_RUNS:
            if not chosen:
                break
            seen = [c[0] for c in chosen.values()]
            names = [max(dict.fromkeys(seen), key=seen.count)]
        best = _best_reading(body, runs[i], names, judge, margin)
        if best is not None:
            chosen[i] = best
    if not chosen:
        return None
    # A valid run between two stretches read in one encoding: legacy text valid by chance?
    order = sorted(chosen)
    for a, b in zip(order, order[1:]):
        if chosen[a][0] != chosen[b][0] or not all(runs[j].valid for j in range(a + 1, b)):
            continue
        enc = chosen[a][0]
        lo, hi = chosen[a][2], chosen[b][1]
        data = body[lo:hi]
        r_enc = _decode.decode(data, enc, bom_sniff=False)
        if r_enc.errors:
            continue
        scores = _judge(judge, {"UTF-8": data.decode("utf-8", "replace"), enc: r_enc.text})
        if scores[enc] >= scores["UTF-8"] + margin:
            chosen[b] = (enc, chosen[a][1], chosen[b][2], chosen[a][3] + "; " + chosen[b][3])
            del chosen[a]
    stretches = [Stretch(lo, hi - lo, enc) for enc, lo, hi, _ in (chosen[i] for i in sorted(chosen))]
    why = [w for _, _, _, w in (chosen[i] for i in sorted(chosen))]
    if not any(
            r.valid and r.sequences and not any(s.offset <= r.start and r.end <= s.offset + s.length
                                                for s in stretches) for r in runs):
        return None
    return _assemble(body, "UTF-8", stretches, why)


def _markup_between(body: bytes, lo: int, hi: int) -> bool:
    return body.find(b"<", lo, hi) >= 0 or body.find(b">", lo, hi) >= 0


#: One damaged place in UTF-8 (a byte lost, added or changed) leaves its U+FFFD within this many
#: bytes of each other: a lead byte, a byte added after it and the three continuation bytes of a
#: four-byte sequence it lost (five U+FFFD at most), with at most one ASCII byte (an added one)
#: between them.
_DAMAGE_SPAN = 5


def _spread(data: bytes, invalid: int) -> bool:
    """Whether the *invalid* sequences of *data* (its U+FFFD in UTF-8) are more than one damaged
    place could leave: more than five, or spanning more than :data:`_DAMAGE_SPAN` bytes, or with
    more than one ASCII byte between them (letters of a legacy text in two words:
    ``discriminació, té``)."""
    if invalid > _DAMAGE_SPAN:
        return True
    where = _error_offsets(data)
    first, last = where[0], where[-1]
    if last - first >= _DAMAGE_SPAN:
        return True
    return sum(1 for b in data[first:last] if b < 0x80) > 1


_found = threading.local()


def _record_error(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _found.offsets.append(exc.start)
    return "", exc.end


codecs.register_error("redecode-stretch-offsets", _record_error)


def _error_offsets(data: bytes) -> list[int]:
    """The offsets in *data* of the invalid sequences of the UTF-8 decoder (Python's UTF-8 decoder
    reports each maximal subpart the standard's replaces with one U+FFFD)."""
    _found.offsets = []
    data.decode("utf-8", "redecode-stretch-offsets")
    return _found.offsets


def _fits(text: str, encoding: str) -> bool:
    """Whether every non-ASCII character of *text* (a run of words, as UTF-8 reads it) is
    typographic punctuation or a letter of a script *encoding* writes (:data:`SCRIPT_ENCODINGS`):
    ``für``, ``è``, ``—`` in a windows-1252 page; not ``Gro߅`` (windows-1252 ``ß…`` read as UTF-8:
    an N'Ko digit)."""
    import unicodedata  # noqa: PLC0415 - only for runs of a lone sequence

    mine = _scripts_of_encoding(encoding)
    for ch in text:
        if ch <= "\x7f" or ch in _TYPOGRAPHY:
            continue
        if unicodedata.category(ch)[0] != "L" or _script(ord(ch)) not in mine:
            return False
    return True


#: Symbols text in any script uses beside its letters and punctuation: currency, trade and
#: number signs, fractions, the common arrows, dingbats and emoji (a UTF-8 comment with an emoji).
_COMMON_SYMBOLS = frozenset("\u20ac\u00a3\u00a5\u00a2\u2122\u00b1\u00d7\u00f7\u00bd\u00bc\u00be"
                            "\u00b2\u00b3\u00b9\u00ba\u00aa\u2116\u00a7\u00b6\u2022\u2032\u2033")
_EMOJI_AND_ARROWS = ((0x2190, 0x21FF), (0x2600, 0x27BF), (0x1F300, 0x1FAFF))
#: Han, kana and Hangul are written together (Japanese, Korean with Hanja): one script here.
_CJK = frozenset(("Han", "Kana", "Hangul"))


def _words_of_one_script(text: str) -> bool:
    """Whether every word of *text* (a run, as UTF-8 reads it) is written in one script: its
    non-ASCII letters of one script of :data:`SCRIPT_ENCODINGS` (Han, kana and Hangul counting
    as one), the rest marks, modifier letters (``ʼ``), digits, punctuation (``‐``, ``،``),
    spaces, format characters (the zero-width non-joiner of Persian), common symbols (``€ ™ ±``) and emoji. Text written in UTF-8 is; bytes of legacy
    text that are valid UTF-8 by chance read as letters of scattered scripts or of scripts no
    legacy encoding writes, and as rare symbols (``ëү``, ``⺢``), and are left unweighed."""
    import unicodedata  # noqa: PLC0415 - only for runs that are candidates

    for word in _words(text).split():
        seen = None
        for ch in word:
            if ch <= "\x7f" or ch in _TYPOGRAPHY or ch in _COMMON_SYMBOLS:
                continue
            cat = unicodedata.category(ch)
            if cat[0] in "MNPZ" or cat in ("Lm", "Cf"):
                continue
            if cat[0] == "S":
                cp = ord(ch)
                if any(lo <= cp <= hi for lo, hi in _EMOJI_AND_ARROWS):
                    continue
                return False
            sc = _script(ord(ch)) if cat[0] == "L" else None
            if sc is None:
                return False  # (a control, a private-use or unassigned character, a letter of
                # a script without a legacy encoding here)
            sc = "CJK" if sc in _CJK else sc
            if seen is None:
                seen = sc
            elif sc != seen:
                return False
    return True


def _legacy_like(body: bytes, runs: list[Run], i: int, min_invalid: int) -> bool:
    """Whether the invalid run *runs[i]* may be legacy text rather than damaged UTF-8: at least
    *min_invalid* U+FFFD and more than its valid sequences (a damaged UTF-8 word keeps most of
    its sequences; legacy text is valid UTF-8 only by chance, a sequence in seven characters of
    GBK), spread over more than one damaged place (:func:`_spread`); with fewer than twice
    *min_invalid*, also no valid sequence and markup (not valid text of the same sentence) on
    both sides."""
    r = runs[i]
    if r.invalid < min_invalid or r.invalid <= r.sequences:
        return False
    if not _spread(body[r.start:r.end], r.invalid):
        return False
    if r.invalid >= 2 * min_invalid:
        return True
    before = runs[i - 1].end if i > 0 else None
    after = runs[i + 1].start if i + 1 < len(runs) else None
    if (before is not None and not _markup_between(body, before, r.start)) or (
            after is not None and not _markup_between(body, r.end, after)):
        return False
    return r.sequences == 0


def _scripts_of_encoding(encoding: str) -> list[str]:
    return [s for s, encs in SCRIPT_ENCODINGS.items() if encoding in encs]


def _best_reading(body: bytes, run: Run, names: Iterable[str], judge: Judge,
                  margin: float) -> tuple[str, int, int, str] | None:
    """``(encoding, first, last, why)`` of the clean legacy reading of *run* most plausible by
    *margin* over its UTF-8 reading, or None."""
    readings: dict[str, str] = {}
    spans: dict[str, tuple[int, int]] = {}
    for enc in names:
        first, last = _tighten(body, run.start, run.end, enc)
        r = _decode.decode(body[first:last], enc, bom_sniff=False)
        if _clean(r.text, r.errors):
            readings[enc] = r.text
            spans[enc] = (first, last)
    if not readings:
        return None
    # the judge reads the run's whole words (from a word's start and to a word's end every
    # decoder is in step), at most a sample of them
    sample = body[run.start:_sample_end(body, run.start, run.end)]
    texts = {e: _decode.decode(sample, e, bom_sniff=False).text for e in readings}
    scores = _judge(judge, {"UTF-8": sample.decode("utf-8", "replace"), **texts},
                    _context(body, run.start, run.end, "UTF-8"))
    best = _prefer(texts, scores, margin)
    gain = scores[best] - scores["UTF-8"]
    if gain < margin:
        return None
    first, last = spans[best]
    return best, first, last, (f"{run.invalid} U+FFFD in UTF-8; {best} reads it "
                               f"{gain:.0f} bits more plausibly")


# --- author-2026.12.5: a stretch's reading must read as words ------------------------------------

#: Symbols a word may end with after its letters: the trade marks and the powers of units
#: (``Windows™``, ``Nokia®``, ``m²``).
_AFTER_LETTERS = frozenset("\u2122\u00ae\u00b2\u00b3")
#: Symbols a word may have before letters: the degree sign (``20°C``).
_BEFORE_LETTERS = frozenset("\u00b0")
#: Punctuation no word holds beside its letters: the daggers, bullets, per-mille and prime,
#: section and pilcrow signs (a Latin-1 letter read in macintosh: ``personalit‡``).
_SYMBOL_PUNCTUATION = frozenset("\u2020\u2021\u2022\u2030\u2031\u2032\u2033\u00a7\u00b6")
#: Latin-1's letters outside the Latin letter ranges of :data:`_SCRIPT_RANGES`: the ordinal
#: indicators and the micro sign, written beside Latin letters (``Nº``, ``µm``).
_LATIN1_LETTERS = frozenset("\u00aa\u00ba\u00b5")
#: The separators of words for :func:`reads_as_words`: ASCII whitespace and punctuation (not
#: digits: ``costs€10`` is one word; not a legacy encoding's no-break space: ``Va\xa0e``).
_WORD_SPLIT = re.compile(r"[\t\n\f\r !-/:-@\[-`{-~]+")


def _letter_script(ch: str) -> str:
    if ch <= "\x7f" or ch in _LATIN1_LETTERS:
        return "Latin"
    sc = _script(ord(ch))
    if sc is None:
        return f"other:{ch}"  # (a letter of a script without a legacy encoding here)
    return "CJK" if sc in _CJK else sc


def reads_as_words(text: str) -> bool:
    """Whether *text* (a stretch as a candidate encoding reads it) reads as words of a language:
    in each word (between whitespace and ASCII punctuation), no symbol, control, private-use or
    unassigned character, or digit other than a decimal one, touches a letter (``caf©``,
    ``Br¼cke``, ``costs€10``, ``Ā÷åšą``; but ``Windows™``, ``m²`` and ``20°C``), no non-ASCII
    capital follows a small letter (``cafŠ``, ``лНЯЙБЮ``, ``costsÄ10``), no non-ASCII space
    stands between two letters (``Va\xa0e``), and letters that touch (marks and
    format characters such as the zero-width non-joiner between them aside) are of one script (:data:`SCRIPT_ENCODINGS`' scripts,
    Han, kana and Hangul as one, ASCII and Latin-1's letters Latin: not ``promenιs``, Greek iota
    for ``é``). Punctuation (``l’école``, ``«Bonjour»``), decimal digits and spaces are no
    letters' neighbours. The failures are what legacy bytes read with another script's table,
    and a damaged UTF-8 character read as a legacy one, look like (daggers, bullets, section
    signs count as symbols: ``personalit‡``, and so do a middle dot but in Catalan's ``l·l`` and
    an opening quote after letters but CJK ones: ``premo·enjskih``, ``Parol„``) (:func:`read_in_parts` with
    *words*)."""
    import unicodedata  # noqa: PLC0415 - only for runs that are candidates

    for word in _WORD_SPLIT.split(text):
        if word.isascii():
            continue
        kinds: list[str | None] = []  # per character: a script name, "symbol", or None
        chars: list[str] = []
        for ch in word:
            if ch <= "\x7f":
                kind = "Latin" if ch.isalpha() else None
            else:
                cat = unicodedata.category(ch)
                if cat[0] == "M" or cat == "Cf":
                    continue  # (a mark belongs to the letter before it; the zero-width
                    # (non-)joiners of Persian and Indic words are inside words)
                if cat[0] == "L":
                    kind = _letter_script(ch)
                elif cat == "Po" and ch in _SYMBOL_PUNCTUATION:
                    kind = "symbol"
                elif ch == "\u00b7":
                    # (the middle dot is a symbol inside words but Catalan's l·l)
                    kind = None if word.count("l\u00b7l") + word.count("L\u00b7L") >= word.count(ch) else "symbol"
                elif cat == "Ps" and chars and kinds[-1] not in (None, "symbol", "CJK"):
                    kind = "symbol"  # (an opening quote after letters: ``Parol„``)
                elif cat[0] in "PZ" or cat == "Nd":
                    kind = None
                else:
                    kind = "symbol"  # (S*, No, Nl, C*)
            kinds.append(kind)
            chars.append(ch)
        for i in range(1, len(kinds)):
            a, b = kinds[i - 1], kinds[i]
            x, y = chars[i - 1], chars[i]
            if a is not None and a == b and y > "\x7f" and y.isupper() and x.islower():
                return False  # (a capital inside a word: ``cafŠ``, ``лНЯЙ``)
            if y > "\x7f" and unicodedata.category(y) == "Zs" and i + 1 < len(kinds) and (
                    a not in (None, "symbol") and kinds[i + 1] not in (None, "symbol")):
                return False  # (a space inside a word: ``Va\xa0e`` for ``Vaše`` in KOI8-R)
            if a is None or b is None or a == b:
                continue
            if a == "symbol":
                if chars[i - 1] not in _BEFORE_LETTERS:
                    return False
            elif b == "symbol":
                if chars[i] not in _AFTER_LETTERS:
                    return False
            else:
                return False  # (letters of two scripts)
    return True


def _letters(text: str) -> int:
    """Non-ASCII letters in *text*."""
    return sum(1 for ch in text if ch > "\x7f" and ch.isalpha())


def _main_script(text: str) -> str | None:
    found = scripts(text)
    if not found:
        return None
    return "CJK" if found[0] in _CJK else found[0]


_ASCII_LETTER = re.compile("[A-Za-z]")


def _word_script(word: str) -> str | None:
    """The script of *word*'s letters (:func:`_main_script`; ASCII letters are Latin), None
    without letters."""
    return _main_script(word) or ("Latin" if _ASCII_LETTER.search(word) else None)


def _pieces(body: bytes, run: Run, min_invalid: int) -> list[Run]:
    """*run* (invalid) cut where markup stands between two of its words (paragraphs, cells,
    comments: each may have its own author and encoding), the pieces that keep at least
    *min_invalid* U+FFFD spread wider than one damaged place (:func:`_spread`)."""
    out: list[Run] = []
    words = [m.span() for m in _WORD.finditer(body, run.start, run.end)]
    groups: list[list[tuple[int, int]]] = []
    for w in words:
        if groups and not _markup_between(body, groups[-1][-1][1], w[0]):
            groups[-1].append(w)
        else:
            groups.append([w])
    if len(groups) < 2:
        return []
    for g in groups:
        lo, hi = g[0][0], g[-1][1]
        data = body[lo:hi]
        text = data.decode("utf-8", "replace")
        bad = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
        seqs = len(text) - len(data.translate(None, _HIGH)) - bad
        if bad >= min_invalid and bad > seqs and _spread(data, bad):
            out.append(Run(False, lo, hi, seqs, bad))
    return out


def _best_words_reading(body: bytes, run: Run, names: Iterable[str], judge: Judge, margin: float,
                        min_letters: int) -> tuple[str, int, int, str] | None:
    """:func:`_best_reading` for *words* (:func:`read_in_parts`): the candidates' readings must
    be clean and read as words (:func:`reads_as_words`); the best script's readings (judged
    alone) must read *margin* bits better than every reading of another script; among them the
    preferred one (:func:`_prefer`, judged with the page's words of that script around it), with
    fewer than *min_letters* non-ASCII letters, must read *margin* bits better than every sibling
    reading another text (alone or with those words); and it must read *margin* bits better than
    UTF-8 with its U+FFFD. Else the stretch is ambiguous: None."""
    readings: dict[str, str] = {}
    spans: dict[str, tuple[int, int]] = {}
    for enc in names:
        # (whole words: the run's first and last words may begin or end in ASCII letters)
        r = _decode.decode(body[run.start:run.end], enc, bom_sniff=False)
        if _clean(r.text, r.errors) and reads_as_words(r.text):
            readings[enc] = r.text
            spans[enc] = _tighten(body, run.start, run.end, enc)
    if not readings:
        return None
    sample = body[run.start:_sample_end(body, run.start, run.end)]
    texts = {e: _decode.decode(sample, e, bom_sniff=False).text for e in readings}
    # Scripts are weighed on the stretch's own words (the page's words around it are of the
    # page's script: they would count against a stretch in another); the encodings of the best
    # script on its words and the page's words of that script around them (which steer between
    # siblings).
    bare = _judge(judge, {"UTF-8": sample.decode("utf-8", "replace"), **texts})
    by_script: dict[str | None, list[str]] = {}
    for e in texts:
        by_script.setdefault(_main_script(texts[e]), []).append(e)
    tops = sorted(((max(bare[e] for e in es), sc) for sc, es in by_script.items()),
                  key=lambda t: -t[0])
    if len(tops) > 1 and tops[1][0] > tops[0][0] - margin:
        return None  # (another script reads it nearly as well: too little evidence to choose)
    script = tops[0][1]
    family = {e: texts[e] for e in by_script[script]}
    if len(family) > 1:
        # (the page's words of that script: words of another script steer towards their language)
        context = " ".join(w for w in _context(body, run.start, run.end, "UTF-8").split()
                           if _word_script(w) in (script, None))
        near = _judge(judge, family, context)
        best = _prefer(family, near, margin)
        from .language import FOLD  # noqa: PLC0415 - the letters the judge reads as one

        folded = texts[best].translate(FOLD)
        if _letters(texts[best]) < min_letters and any(
                texts[e].translate(FOLD) != folded and bare[e] > bare[best] - margin
                and near[e] > near[best] - margin for e in family):
            return None  # (little evidence: a sibling reads it nearly as well, alone and
            # among the page's words; readings the judge reads as one, Romanian's ş and ș, are
            # no rivals)
    else:
        best = next(iter(family))
    gain = bare[best] - bare["UTF-8"]
    if gain < margin:
        return None
    first, last = spans[best]
    return best, first, last, (f"{run.invalid} U+FFFD in UTF-8; {best} reads it as words, "
                               f"{gain:.0f} bits more plausibly")


def _legacy_stretches_words(body: bytes, runs: list[Run], targets: list[int], names: list[str],
                            judge: Judge, min_invalid: int, margin: float,
                            min_letters: int, utf8_declared: bool) -> Parts | None:
    """:func:`_legacy_stretches` with *words* (:func:`read_in_parts`): each candidate run is read
    whole, or, when no reading reads it, in pieces cut at markup (:func:`_pieces`); the runs and
    pieces no reading reads stay U+FFFD. With *utf8_declared* (a declaration named UTF-8 and the
    decision chose a legacy encoding for its U+FFFD), a page none of whose runs reads as words
    in a legacy encoding is read whole as UTF-8 (``stretches`` empty): its U+FFFD are damage,
    and the legacy reading would turn its UTF-8 text into mojibake."""
    chosen: list[tuple[str, int, int, str]] = []
    weighed = 0
    for n, i in enumerate(targets):
        if weighed >= _MAX_WEIGHED:
            break
        if n >= _MAX_RUNS:
            if not chosen:
                break
            seen = [c[0] for c in chosen]
            names = [max(dict.fromkeys(seen), key=seen.count)]
        weighed += 1
        best = _best_words_reading(body, runs[i], names, judge, margin, min_letters)
        if best is not None:
            chosen.append(best)
            continue
        for piece in _pieces(body, runs[i], min_invalid):
            weighed += 1
            best = _best_words_reading(body, piece, names, judge, margin, min_letters)
            if best is not None:
                chosen.append(best)
    if not chosen:
        if utf8_declared:
            whole = _decode.decode(body, "UTF-8", bom_sniff=False)
            bad = sum(runs[i].invalid for i in targets)
            return Parts(text=whole.text, errors=whole.errors,
                         encoding="UTF-8", stretches=(),
                         why=(f"{bad} U+FFFD that read as words in no legacy encoding",))
        return None
    # A valid run between two stretches read in one encoding: legacy text valid by chance?
    joined: list[tuple[str, int, int, str]] = [chosen[0]]
    for c in chosen[1:]:
        a = joined[-1]
        between = [r for r in runs if r.start < c[1] and r.end > a[2]]
        if c[0] == a[0] and between and all(r.valid for r in between) and any(r.sequences for r in between):
            data = body[a[2]:c[1]]
            r_enc = _decode.decode(data, c[0], bom_sniff=False)
            if not r_enc.errors:
                scores = _judge(judge, {"UTF-8": data.decode("utf-8", "replace"), c[0]: r_enc.text})
                if scores[c[0]] >= scores["UTF-8"] + margin:
                    joined[-1] = (c[0], a[1], c[2], a[3] + "; " + c[3])
                    continue
        joined.append(c)
    stretches = [Stretch(lo, hi - lo, enc) for enc, lo, hi, _ in joined]
    why = [w for _, _, _, w in joined]
    if not any(
            r.valid and r.sequences and not any(s.offset <= r.start and r.end <= s.offset + s.length
                                                for s in stretches) for r in runs):
        return None
    return _assemble(body, "UTF-8", stretches, why)
