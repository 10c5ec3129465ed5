"""Statistical encoding detection, answers restricted to the Encoding Standard's encodings.

This is the last-but-one step of the encoding decision (issue "Browser-exact encoding
decisions", step 7 ``detector``): a page that declares nothing and is not valid UTF-8 gets the
encoding a statistical detector guesses, with the record's top-level domain as a hint, as
Firefox does with chardetng. It is the only module that imports the detector libraries.

Spec concept -> function:

=====================================================  ===============================
concept                                                here
=====================================================  ===============================
detection, restricted to Encoding Standard encodings   :func:`detect`
a detector's (or Python codec's) name -> the standard  :func:`standard_encoding`
  encoding it names or nearest to it
the detector engines a rule set may name               :data:`ENGINES`
the bounded part of a page the engines read            :func:`detector_sample`
=====================================================  ===============================

Engines (``engine=`` argument):

``chardetng`` (package ``chardetng-py``, Firefox's detector)
    ``EncodingDetector.feed(payload, last=True)`` (``last=False`` on a sample, see below) then
    ``guess_assess(tld=..., allow_utf8=...)``.
    chardetng answers Encoding Standard encodings (chardetng-py names some by their Python codec,
    e.g. ``cp874`` for windows-874; mapped with :func:`standard_encoding`). It has no numeric
    confidence: it returns
    the guess and a boolean, true when the guessed encoding scored higher than the TLD-based
    fallback. We map that boolean the way chardetng-py's own ``compat.detect`` does:
    true -> 0.99, false -> 0.01 (``chardetng_py.constants.CONFIDENCE_HIGH``/``LOW``).
    ``allow_utf8`` (default false, as Firefox passes for web content): chardetng answers UTF-8
    only for input that is entirely valid UTF-8, which the decision's own ``utf8-valid`` step
    has already taken, so it matters only for rules that turn that step off.
``charset-normalizer``
    ``charset_normalizer.from_bytes(payload).best()``; confidence ``1 - chaos`` (the formula of
    charset-normalizer's own ``detect()``). Answers are Python codec names (``cp1250``,
    ``latin_1``...), mapped with :func:`standard_encoding`. No TLD hint.
``cchardet`` (package ``cchardet``, uchardet)
    ``cchardet.detect(payload)``; its confidence, clamped to 0..1 (uchardet can exceed 1).
    Answers are uchardet names (``WINDOWS-1252``, ``EUC-TW``...), mapped with
    :func:`standard_encoding`. No TLD hint.

Answers outside the Encoding Standard: :func:`standard_encoding` maps a name first as an
Encoding Standard label ("get an encoding": ``ISO-8859-1``/``ascii`` -> windows-1252,
``TIS-620`` -> windows-874, ``ISO-8859-9`` -> windows-1254, ``GB2312`` -> GBK ...), then through
Python's codec registry to the encoding whose labels Python resolves to the same codec
(``latin_1`` -> windows-1252, ``cp932`` -> Shift_JIS), then through :data:`NEAREST` (a superset
decoder of the Encoding Standard covers the answer: ``cp949``/``UHC`` -> EUC-KR, ``big5hkscs`` ->
Big5, ``mac_cyrillic`` -> x-mac-cyrillic, ``utf_8_sig`` -> UTF-8 ...). Anything else (UTF-32,
EUC-TW, Johab, IBM855, ISO-2022-KR and HZ, whose standard label means ``replacement``) is
dropped: :func:`detect` returns None and the decision falls through to its default step. The
answer as given, and how it was mapped (``exact``/``label``/``codec``/``nearest``/``dropped``),
are in :func:`detect_raw`'s :class:`RawDetection`.

``majority``
    runs chardetng (with the TLD), cchardet and charset-normalizer and takes the standard
    encoding at least two of them name; with no majority, chardetng's answer. Confidence: the
    share of engines that named the answer (2/3 or 1), 1/3 when chardetng's answer stands alone.
    ``detector`` is ``majority(chardetng@V,cchardet@V,charset-normalizer@V)``.
``cascade`` (the default)
    chardetng (with the TLD) first; its answer stands unless it is in :data:`CASCADE_CONSULT`
    (windows-1251, windows-1252: chardetng never answers x-mac-cyrillic and calls those pages
    one of these two). Then the majority of the three as above, short-circuited: cchardet is
    asked, and charset-normalizer only when cchardet disagrees with chardetng (two agreeing
    engines are a majority whatever the third says), so a consulted answer is always
    ``majority``'s on the same bytes. Confidence: chardetng's own (0.99/0.01) when nobody was
    consulted, else the share of the three engines known to name the answer (2/3, or 1/3 when
    chardetng's stands alone). ``detector`` is ``cascade(chardetng@V,cchardet@V,
    charset-normalizer@V;consult=windows-1251,windows-1252)``.

Bounded input (``max_bytes``/``min_nonascii``/``consult_bytes`` of :func:`detect`; the rules
parameters ``detector_max_bytes``/``detector_min_nonascii``/``detector_consult_bytes``): the
engines see :func:`detector_sample` of the payload, at most ``max_bytes`` bytes: the payload
itself when it is that short, else its lines holding non-ASCII (or ESC) bytes, in order, until
``min_nonascii`` such bytes are in, cut between characters. chardetng is then told that the
stream does not end there (``feed(last=False)``), so a character cut at the end is no error.
``cascade`` gives the engines it consults only the first ``consult_bytes`` of that sample (cut
the same way). Detection cost grows with the bytes read (whole pages of the benchmark crawl,
median 27 KB: chardetng about 5 ms a page, cchardet 14, charset-normalizer 4); browsers, too,
look at a bounded part of the page (Chromium's detector at the first chunk it receives).

Measured (``tools/eval_detectors.py --repeat 3``, 2026-11-29): share of pages decoded to their
true text, answers restricted to the Encoding Standard; ms/page = process CPU time per page,
fastest of 3 passes, on 2 cores shared with other jobs (read them as ratios; majority's from
an earlier run of the same command). ``@K/M/C`` = ``min_nonascii``/``max_bytes``/``consult_bytes``:

=========================================  =====  =========  ========  =================
data set                                   pages  chardetng  majority  cascade@2048/4096
                                                  whole      whole     /2048 (default)
=========================================  =====  =========  ========  =================
bench crawl, undeclared legacy pages         165     100.0%    100.0%     100.0%
  ms/page                                              5.34     22.72       1.31
bench crawl, all legacy pages               1070     100.0%    100.0%     100.0%
  ms/page                                              6.66     25.91       1.15
chardet-tests without declarations           207      88.9%     98.1%      98.1%
  of which reach the detector (not UTF-8)    192      94.3%     99.0%      99.0%
  ms/page (those 192)                                  2.41      9.48       0.67
=========================================  =====  =========  ========  =================

Other variants (bench undeclared / chardet-tests detector step; ms/page on the bench, from
runs where the shipped variant took 1.52 ms, i.e. under heavier load): ``chardetng@2048/4096``
alone 100% / 94.3%, 0.64 ms in the table's run (exactly chardetng's accuracy: the cheapest
variant meeting issue 3's floor, but it keeps chardetng's 9 x-mac-cyrillic misses);
``cascade@2048/4096`` (consulted engines see the whole sample) 100% / 99.0%, 2.09 ms;
``cascade@1024/4096`` 100% / 99.0%, 1.44 ms, but chardetng alone on that sample loses a page;
``cascade@2048/8192`` 100% / 99.0%, 2.86 ms; ``cascade@2048/4096/1024`` 100% / 99.0%, 1.37 ms,
but one miss (windows-1252 -> windows-1250) among the bench's 1070 legacy pages. Measured
before the cut between characters existed: chardetng on a sample cut inside a character lost
GBK and EUC-JP pages (a split character at the end of input disqualifies a multi-byte
encoding). Plain byte prefixes (first 4/8/16 KB) were slower on Latin pages and lost pages
whose first non-ASCII byte comes late (up to 58 KB in on the bench).

``cascade`` with ``2048/4096/2048`` is the detector of ``browser-2026.11``: as accurate as
``majority`` on every set above (it made no mistake that chardetng did not), about 17x cheaper
than ``majority`` and 4x cheaper than chardetng on whole pages. Per page on the bench: the
sample ~0.07 ms, chardetng on it ~0.6 ms, plus cchardet (and, when it disagrees,
charset-normalizer) on the 73 of 165 pages chardetng calls windows-1251/1252, ~1.5 ms each,
~0.65 ms averaged over all pages: 0.22 s of CPU for the crawl's 165 pages. The sample and
the short-circuit are pure functions of the payload: the same bytes always give the same
answer.

Deviations: the detectors read a bounded sample of the page (above), made of the lines that
hold non-ASCII bytes rather than a contiguous prefix; Firefox feeds chardetng the document as
it arrives, Chromium's detector reads the first chunk.
"""

from __future__ import annotations

import codecs
import importlib.metadata
import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from .labels import LABELS, get_encoding
from .sniff import Detection

__all__ = [
    "CASCADE_CONSULT",
    "DEFAULT_CONSULT_BYTES",
    "DEFAULT_ENGINE",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MIN_NONASCII",
    "ENGINES",
    "NEAREST",
    "RawDetection",
    "detect",
    "chardet_compatible",
    "preload",
    "detect_raw",
    "detector_id",
    "detector_sample",
    "standard_encoding",
]

#: Engine name -> distribution whose version is recorded (``name@version``).
ENGINES: dict[str, str] = {
    "chardetng": "chardetng-py",
    "charset-normalizer": "charset-normalizer",
    "cchardet": "cchardet",
    "majority": "",
    "cascade": "",
}
#: The engines ``majority`` asks, in tie-break order (the first one's answer wins a tie).
MAJORITY_OF: tuple[str, ...] = ("chardetng", "cchardet", "charset-normalizer")
#: chardetng answers after which ``cascade`` asks the other two engines: chardetng never answers
#: x-mac-cyrillic and calls such pages windows-1251 or windows-1252 (9 of 9 in chardet-tests).
CASCADE_CONSULT: frozenset[str] = frozenset({"windows-1251", "windows-1252"})
DEFAULT_ENGINE = "cascade"
#: Sample bounds of the default rules (see :func:`detector_sample`): at most this many bytes ...
DEFAULT_MAX_BYTES = 4096
#: ... stopping once the sample holds this many non-ASCII (or ESC) bytes.
DEFAULT_MIN_NONASCII = 2048
#: ``cascade``: cchardet and charset-normalizer see only this many first bytes of the sample.
DEFAULT_CONSULT_BYTES = 2048

#: Python codec names (``codecs.lookup(x).name``) with no Encoding Standard label of their own,
#: mapped to the standard encoding whose decoder is their closest superset or variant. Each is a
#: documented "nearest" answer, never a silent one.
NEAREST: dict[str, str] = {
    # Unified Hangul Code; the Encoding Standard's EUC-KR decoder *is* windows-949 (UHC).
    "cp949": "EUC-KR",
    # Python's utf-8-sig only strips a BOM; the BOM step has already handled any BOM.
    "utf-8-sig": "UTF-8",
    # Mac Cyrillic; the standard's x-mac-cyrillic is the (Ukrainian) Mac Cyrillic table.
    "mac-cyrillic": "x-mac-cyrillic",
    # Thai: the standard's windows-874 is a superset of TIS-620 and cp874.
    "cp874": "windows-874",
    # JIS X 0213 variants: the standard has only the JIS X 0208/0212 forms.
    "shift_jis_2004": "Shift_JIS",
    "shift_jisx0213": "Shift_JIS",
    "euc_jis_2004": "EUC-JP",
    "euc_jisx0213": "EUC-JP",
    "iso2022_jp_1": "ISO-2022-JP",
    "iso2022_jp_2": "ISO-2022-JP",
    "iso2022_jp_3": "ISO-2022-JP",
    "iso2022_jp_ext": "ISO-2022-JP",
    "iso2022_jp_2004": "ISO-2022-JP",
}

Mapping = Literal["exact", "label", "codec", "nearest", "dropped"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RawDetection:
    """What an engine answered and what became of it.

    ``answer``: the engine's own name (or None when it had no answer); ``encoding``: the
    Encoding Standard name it maps to (None when dropped); ``mapping``: ``exact`` (already a
    canonical name), ``label`` (a standard label), ``codec`` (via Python's codec registry),
    ``nearest`` (via :data:`NEAREST`) or ``dropped``; ``confidence`` 0..1; ``detector``
    ``name@version``.
    """

    answer: str | None
    encoding: str | None
    mapping: Mapping
    confidence: float
    detector: str


@cache
def _python_codec_map() -> dict[str, str]:
    """Python codec name -> standard encoding, derived from the standard's own labels.

    Every Encoding Standard label that Python's codec registry also knows names the same
    character set in both (``latin1``, ``sjis``, ``ms932``, ``cp1250`` ...), so the codec it
    resolves to in Python maps to that label's encoding. ``replacement`` is left out: a label of
    it (``hz-gb-2312``, ``iso-2022-kr``...) means "do not decode", never a detection answer.
    """
    out: dict[str, str] = {}
    for label, name in LABELS.items():
        if name == "replacement":
            continue
        try:
            py = codecs.lookup(label).name
        except LookupError:
            continue
        out.setdefault(py, name)
    return out


def standard_encoding(name: str | None) -> tuple[str | None, Mapping]:
    """Map a detector's answer or a Python codec name to an Encoding Standard encoding.

    Returns ``(canonical name or None, how)``; see the module docstring for the order. Never
    raises. ``replacement`` is never returned: a name meaning it is dropped.
    """
    if not name:
        return None, "dropped"
    if name in _CANONICAL:
        return (None, "dropped") if name == "replacement" else (name, "exact")
    by_label = get_encoding(name)
    if by_label == "replacement":
        return None, "dropped"
    if by_label is not None:
        return by_label, "label"
    try:
        py = codecs.lookup(name).name
    except (LookupError, TypeError, ValueError):
        return None, "dropped"
    mapped = _python_codec_map().get(py)
    if mapped is not None:
        return mapped, "codec"
    if py in NEAREST:
        return NEAREST[py], "nearest"
    return None, "dropped"


_CANONICAL = frozenset(LABELS.values())


@cache
def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def detector_id(engine: str) -> str:
    """``name@version`` of *engine*'s installed package, e.g. ``chardetng@0.3.5``.

    ``majority`` is ``majority(chardetng@V,cchardet@V,charset-normalizer@V)``. Raises
    ``KeyError`` for an engine not in :data:`ENGINES`.
    """
    dist = ENGINES[engine]
    if engine in ("majority", "cascade"):
        inner = ",".join(detector_id(e) for e in MAJORITY_OF)
        if engine == "cascade":
            inner += ";consult=" + ",".join(sorted(CASCADE_CONSULT))
        return f"{engine}({inner})"
    if engine == "cchardet":
        # faust-cchardet and cchardet install the same import package; record the one whose
        # code is actually loaded.
        import cchardet

        return f"cchardet@{getattr(cchardet, '__version__', _version(dist))}"
    return f"{engine}@{_version(dist)}"


def _tld_hint(tld: str | None) -> bytes | None:
    # chardetng panics on a TLD with upper case, a period or non-ASCII: pass only a clean,
    # lower-case ASCII label (punycode "xn--..." included), otherwise no hint.
    if not tld:
        return None
    t = tld.strip().lower()
    if not t or not t.isascii() or not all(c.isalnum() or c == "-" for c in t):
        return None
    return t.encode("ascii")


#: Bytes that carry evidence about a legacy encoding: non-ASCII, and ESC (ISO-2022-JP).
_EVIDENCE = re.compile(rb"[\x80-\xff\x1b]")
#: Delete-set that leaves only evidence bytes (for counting them with ``bytes.translate``).
_NOT_EVIDENCE = bytes(b for b in range(0x80) if b != 0x1B)
#: Bytes that can be inside a multi-byte character of an ASCII-compatible Encoding Standard
#: encoding: high bytes, and digits (gb18030's four-byte form). A cut just after any other
#: byte is a character boundary in all of them (Shift_JIS, Big5 and GBK trail bytes are >= 0x40
#: but then follow a high lead byte, which the strip removes first).
_MAYBE_INSIDE = bytes(range(0x30, 0x3A)) + bytes(range(0x80, 0x100))


def detector_sample(payload: bytes, *, max_bytes: int, min_nonascii: int) -> bytes:
    """The bytes the detectors see: *payload* itself when it is at most *max_bytes* long,
    otherwise its lines that contain a non-ASCII or ESC byte, in order, joined by ``\n``.

    Lines are taken until they hold at least *min_nonascii* such bytes or the sample would
    exceed *max_bytes* (the line that crosses the bound is cut, at the last ASCII non-digit byte
    before it when there is one, so no multi-byte character is split; otherwise at the bound).
    Lines are split at ``\n`` only. The result is at most *max_bytes* long (bytes, not
    characters) and a pure function of its arguments, so a decision made from it replays.

    Why lines: the detector's cost grows with the bytes it reads (chardetng: about 0.15 us per
    non-ASCII byte and about as much per ASCII letter), while ASCII-only lines of an HTML page are
    mostly markup, script and style, which say nothing about a legacy encoding; a prefix of the
    page often holds no non-ASCII byte at all (first one up to 58 KB in on the benchmark crawl).
    Browsers also look at a bounded part: Chromium's detector at the first chunk it receives.
    Raises ``ValueError`` when a bound is below 1.
    """
    if max_bytes < 1 or min_nonascii < 1:
        raise ValueError("detector sample bounds must be at least 1")
    data = bytes(payload)
    n = len(data)
    if n <= max_bytes:
        return data
    parts: list[bytes] = []
    size = seen = pos = 0
    while seen < min_nonascii:
        hit = _next_evidence(data, pos)
        if hit < 0:
            break
        start = data.rfind(b"\n", 0, hit) + 1
        end = data.find(b"\n", hit + 1)
        if end < 0:
            end = n
        room = max_bytes - size - (1 if parts else 0)
        if room <= 0:
            break
        line = data[start:end]
        if len(line) > room:
            parts.append(_cut(line, room))
            break
        parts.append(line)
        size += len(line) + (1 if len(parts) > 1 else 0)
        seen += len(line.translate(None, _NOT_EVIDENCE))
        pos = end + 1
    return b"\n".join(parts)


def _next_evidence(data: bytes, pos: int) -> int:
    """Offset of the first non-ASCII or ESC byte of *data* at or after *pos*, or -1."""
    # bytes.isascii and the ESC memchr run at memory speed; the regular expression steps
    # through every byte, so it only runs on a block known to hold a hit (a 1 MB ASCII page
    # with one non-ASCII byte at its end: 8 ms with the expression alone, under 1 ms so).
    n = len(data)
    while pos < n:
        end = min(pos + _BLOCK, n)
        block = data[pos:end]
        if not block.isascii() or b"\x1b" in block:
            m = _EVIDENCE.search(data, pos, end)
            return m.start() if m else -1  # never None: the block holds a hit
        pos = end
    return -1


_BLOCK = 4096


def _cut(data: bytes, n: int) -> bytes:
    """*data*'s first *n* bytes or fewer: up to the last ASCII non-digit byte when there is one
    (a character boundary in every ASCII-compatible encoding, see :data:`_MAYBE_INSIDE`), else
    exactly *n* bytes."""
    if len(data) <= n:
        return data
    cut = data[:n]
    return cut.rstrip(_MAYBE_INSIDE) or cut


def detect_raw(
    payload: bytes,
    *,
    tld: str | None,
    engine: str = DEFAULT_ENGINE,
    allow_utf8: bool = False,
    max_bytes: int | None = None,
    min_nonascii: int | None = None,
    consult_bytes: int | None = None,
    tld_vote: str | None = None,
) -> RawDetection:
    """Run *engine* on *payload* (the whole body, bytes) and map its answer; see module docstring.

    *tld*: the record's top-level domain without dot (``"jp"``), used by chardetng only.
    *allow_utf8*: chardetng may answer UTF-8 (other engines always may). *max_bytes* and
    *min_nonascii*: when both are set, every engine sees :func:`detector_sample` of the payload
    instead of the whole payload (None: the whole payload). *consult_bytes* (``cascade``
    only): cchardet and charset-normalizer see only the first *consult_bytes* bytes of that
    (cut at a character boundary as :func:`detector_sample` cuts a line; None: all of it).
    *tld_vote* (``majority`` and ``cascade``): an encoding the record's top-level domain suggests
    (the author's-text rules pass Firefox's TLD fallback, :func:`redecode.validate.tld_vote`);
    when the engines asked have no majority and one of them named it, it wins, with confidence
    2/(engines + 1): the TLD is a tie-break vote, never an answer of its own.
    Raises ``ValueError`` for an unknown engine or a bound below 1; never raises on any payload.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown detector engine {engine!r}; known: {', '.join(ENGINES)}")
    if consult_bytes is not None and consult_bytes < 1:
        raise ValueError("detector consult_bytes must be at least 1")
    data = bytes(payload)
    whole = True
    if max_bytes is not None and min_nonascii is not None:
        last = _LAST_SAMPLE
        if last is not None and last[0] is data and last[1] == max_bytes and last[2] == min_nonascii:
            sample = last[3]  # the same payload object asked again (the author's-text rules)
        else:
            sample = detector_sample(data, max_bytes=max_bytes, min_nonascii=min_nonascii)
            globals()["_LAST_SAMPLE"] = (data, max_bytes, min_nonascii, sample)
        whole = len(sample) == len(data)
        data = sample
    if engine == "majority":
        votes = [_run(e, data, tld, allow_utf8, whole) for e in MAJORITY_OF]
        return _vote(votes, detector_id(engine), tld_vote=tld_vote)
    if engine == "cascade":
        first = _run("chardetng", data, tld, allow_utf8, whole)
        if first.encoding not in CASCADE_CONSULT:
            return RawDetection(answer=first.answer, encoding=first.encoding,
                                mapping=first.mapping, confidence=first.confidence,
                                detector=detector_id(engine))
        if consult_bytes is not None and len(data) > consult_bytes:
            data, whole = _cut(data, consult_bytes), False
        # The majority of the three, asking charset-normalizer only when cchardet disagrees
        # with chardetng (if they agree, the third vote cannot change the answer).
        second = _run(MAJORITY_OF[1], data, tld, allow_utf8, whole)
        if second.encoding is not None and second.encoding == first.encoding:
            return _vote([first, second], detector_id(engine), out_of=len(MAJORITY_OF))
        third = _run(MAJORITY_OF[2], data, tld, allow_utf8, whole)
        return _vote([first, second, third], detector_id(engine), tld_vote=tld_vote)
    return _run(engine, data, tld, allow_utf8, whole)


def _vote(votes: list[RawDetection], detector: str, out_of: int | None = None,
          tld_vote: str | None = None) -> RawDetection:
    # The standard encoding at least two engines name; else the one the TLD suggests if an engine
    # named it; else the first engine's (chardetng). Confidence: the share of the *out_of*
    # engines (default: those that voted) known to name it; with the TLD's vote, of the engines
    # and the TLD.
    names = [v.encoding for v in votes]
    best = max(names, key=lambda n: (names.count(n) if n else 0, -names.index(n)))
    agree = names.count(best) if best else 0
    if agree < 2 and tld_vote is not None and tld_vote in names:
        chosen = votes[names.index(tld_vote)]
        return RawDetection(answer=chosen.answer, encoding=chosen.encoding, mapping=chosen.mapping,
                            confidence=2 / ((out_of or len(votes)) + 1), detector=detector)
    chosen = votes[names.index(best)] if agree >= 2 else votes[0]
    return RawDetection(
        answer=chosen.answer,
        encoding=chosen.encoding,
        mapping=chosen.mapping,
        confidence=(agree if agree >= 2 else 1) / (out_of or len(votes)),
        detector=detector,
    )


def _run(engine: str, data: bytes, tld: str | None, allow_utf8: bool, whole: bool) -> RawDetection:
    """One single engine on *data*; *whole*: *data* is the entire payload (chardetng is told the
    stream ends there; on a sample it is not, so a character cut at the sample's end is not
    counted as an error). The last few answers are kept: the author's-text rules ask the same
    engines about the same sample twice (with and without the TLD's vote), and an engine's answer
    is a pure function of these arguments."""
    key = (engine, data, tld, allow_utf8, whole)
    hit = _RECENT.get(key)
    if hit is None:
        hit = _run_engine(engine, data, tld, allow_utf8, whole)
        if len(data) <= _RECENT_MAX_BYTES:
            if len(_RECENT) >= _RECENT_MAX:
                del _RECENT[next(iter(_RECENT))]
            _RECENT[key] = hit
    return hit


_RECENT: dict[tuple, RawDetection] = {}
#: (payload object, max_bytes, min_nonascii, its sample): the last sample made, reused when the
#: very same bytes object is asked about again (bytes are immutable).
_LAST_SAMPLE: tuple | None = None
_RECENT_MAX = 8
_RECENT_MAX_BYTES = 1 << 16


def _run_engine(engine: str, data: bytes, tld: str | None, allow_utf8: bool, whole: bool) -> RawDetection:
    """:func:`_run` without the memory of recent answers."""
    answer: str | None
    confidence: float
    if engine == "chardetng":
        from chardetng_py import EncodingDetector
        from chardetng_py.constants import CONFIDENCE_HIGH, CONFIDENCE_LOW

        det = EncodingDetector()
        det.feed(data, last=whole)
        answer, high = det.guess_assess(tld=_tld_hint(tld), allow_utf8=allow_utf8)
        confidence = CONFIDENCE_HIGH if high else CONFIDENCE_LOW
    elif engine == "charset-normalizer":
        import charset_normalizer

        best = charset_normalizer.from_bytes(data).best()
        answer = best.encoding if best is not None else None
        confidence = max(0.0, min(1.0, 1.0 - best.chaos)) if best is not None else 0.0
    else:
        import cchardet

        res = cchardet.detect(data)
        answer = res.get("encoding")
        # uchardet can report slightly more than 1 (1.001 seen on b"a\xa3"): clamp to 0..1.
        confidence = max(0.0, min(1.0, float(res.get("confidence") or 0.0)))
    encoding, mapping = standard_encoding(answer)
    return RawDetection(
        answer=answer,
        encoding=encoding,
        mapping=mapping,
        confidence=confidence,
        detector=detector_id(engine),
    )


def detect(
    payload: bytes,
    *,
    tld: str | None,
    engine: str = DEFAULT_ENGINE,
    allow_utf8: bool = False,
    max_bytes: int | None = None,
    min_nonascii: int | None = None,
    consult_bytes: int | None = None,
    tld_vote: str | None = None,
) -> Detection | None:
    """Detect *payload*'s encoding: ``Detection(encoding, confidence, detector)`` or None.

    ``encoding`` is always an Encoding Standard canonical name other than ``replacement``;
    None when the engine had no answer or its answer has no standard equivalent (dropped, see
    :func:`standard_encoding`). ``confidence`` is in 0..1; ``detector`` is ``name@version``.
    *max_bytes*/*min_nonascii*/*consult_bytes*/*tld_vote*: see :func:`detect_raw`. Raises ``ValueError``
    for an unknown engine or a bound below 1.
    """
    raw = detect_raw(payload, tld=tld, engine=engine, allow_utf8=allow_utf8,
                     max_bytes=max_bytes, min_nonascii=min_nonascii, consult_bytes=consult_bytes,
                     tld_vote=tld_vote)
    if raw.encoding is None:
        return None
    return Detection(encoding=raw.encoding, confidence=raw.confidence, detector=raw.detector)


def preload(engine: str) -> None:
    """Import *engine* (``majority``/``cascade``: the engines they ask) and what it loads on its
    first calls: for charset-normalizer, the Python codec of every encoding it may try
    (``charset_normalizer.constant.IANA_SUPPORTED``), which it otherwise imports one by one as
    payloads lead it to them. Used by :meth:`redecode.rules.Rules.preload` so that worker
    processes forked afterwards share these modules. Returns None; ``KeyError`` for an engine not
    in :data:`ENGINES`.
    """
    if engine not in ENGINES:
        raise KeyError(f"unknown detector engine {engine!r}; known: {', '.join(ENGINES)}")
    engines = MAJORITY_OF if engine in ("majority", "cascade") else (engine,)
    for name in engines:
        if name == "chardetng":
            import chardetng_py  # noqa: F401
        elif name == "cchardet":
            import cchardet  # noqa: F401
        else:
            import charset_normalizer.constant

            for codec in charset_normalizer.constant.IANA_SUPPORTED:
                try:
                    codecs.lookup(codec)
                except LookupError:
                    pass


def chardet_compatible(payload: bytes) -> tuple[str | None, float | None]:
    """``charset_normalizer.detect(payload)``: the chardet-compatible answer (``encoding`` as
    charset-normalizer's legacy ``detect`` names it, e.g. ``"utf-8"``, ``"windows-1252"``,
    ``"UTF-8-SIG"``, or None; ``confidence``). This is what requests 2.32's
    ``Response.apparent_encoding`` returns when chardet is not installed; the answer is a Python
    codec label, *not* mapped to the Encoding Standard.
    """
    import charset_normalizer

    res = charset_normalizer.detect(bytes(payload))
    conf = res.get("confidence")
    return res.get("encoding"), (float(conf) if conf is not None else None)
