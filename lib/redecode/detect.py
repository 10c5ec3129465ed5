"""Statistical encoding detection, answers restricted to the Encoding Standard's encodings.

Contract. The detector step of the encoding decision (HTML Standard "determining the character
encoding": "the user agent may attempt to autodetect the character encoding from applying
frequency analysis or other algorithms to the data stream"; this project's step 7, ``detector``):
a page that declares nothing and is not valid UTF-8 gets the encoding an engine guesses, with the
record's top-level domain as a hint, as Firefox does with chardetng. The only module that imports
the detector libraries (chardetng-py, cchardet, charset-normalizer).

=====================================================  ===============================
concept                                                here
=====================================================  ===============================
detection, restricted to Encoding Standard encodings   :func:`detect` (mapped),
                                                       :func:`detect_raw` (as answered)
a detector's (or Python codec's) name -> the standard  :func:`standard_encoding`
  encoding it names or nearest to it
the detector engines a rule set may name               :data:`DETECTORS` (one class each)
the bounded part of a page the engines read            :func:`detector_sample`
=====================================================  ===============================

Engines: ``chardetng`` (confidence 0.99/0.01: its yes/no assessment), ``charset-normalizer``
(``1 - chaos``), ``cchardet`` (its confidence clamped to 0..1), ``majority`` (the standard
encoding at least two of the three name, else chardetng's; confidence the share that agree) and
``cascade`` (the default: chardetng, and the majority only on its :data:`CASCADE_CONSULT`
answers, asking charset-normalizer only when cchardet disagrees with chardetng).
``detector`` is ``name@version`` (:func:`detector_id`).

Answers outside the Encoding Standard are mapped by :func:`standard_encoding`: first as an
Encoding Standard label ("get an encoding"), then through Python's codec registry, then through
:data:`NEAREST` (a superset decoder of the standard covers the answer); anything else (UTF-32,
EUC-TW, Johab, IBM855, ISO-2022-KR and HZ, whose standard label means ``replacement``) is dropped:
:func:`detect` returns None and the decision falls through to its default step.

Bounded input (``max_bytes``/``min_nonascii``/``consult_bytes``): the engines see
:func:`detector_sample` of the payload, a pure function of it, so a decision replays.

How the engines are asked and how the default was chosen (measurements): docs/detectors.md.

Deviations: the detectors read a bounded sample of the page, made of the lines that hold non-ASCII
bytes rather than a contiguous prefix (``test_detect.py::test_default_rules_detect_on_a_bounded_sample``);
Firefox feeds chardetng the document as it arrives, Chromium's detector reads the first chunk.
"""

from __future__ import annotations

import codecs
import re
from functools import cache
from typing import Any, Literal

from . import versions
from . import lazy as _lazy
from . import native
from .dataclass_code import dataclass
from .labels import LABELS, get_encoding

# (Detection on first use: a rule set's digest reads this module's engines and defaults, and a run
# that reads no record needs no more of the decision than that; see redecode.lazy)
_sniff = _lazy.module(__name__, "_sniff", "redecode.sniff")

__all__ = [
    "CASCADE_CONSULT",
    "DEFAULT_CONSULT_BYTES",
    "DEFAULT_ENGINE",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MIN_NONASCII",
    "DETECTORS",
    "ENGINES",
    "Engine",
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
    return versions.version(dist) or "unknown"


_VERSION_LITERAL = _lazy.pattern(__name__, "_VERSION_LITERAL", r"""^__version__\s*=\s*["']([^"']+)["']\s*$""", re.M)


@cache
def _source_version(package: str) -> str | None:
    """The ``__version__ = "..."`` literal of the package *package* an import would load (its
    ``__init__.py``, found without importing it), or None when there is no such literal."""
    import importlib.util  # noqa: PLC0415

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    try:
        with open(spec.origin, encoding="utf-8") as f:
            m = _VERSION_LITERAL.search(f.read())
    except (OSError, UnicodeDecodeError):
        return None
    return m.group(1) if m else None


def detector_id(engine: str) -> str:
    """``name@version`` of *engine*'s installed package, e.g. ``chardetng@0.3.5``.

    ``majority`` is ``majority(chardetng@V,cchardet@V,charset-normalizer@V)``. Raises
    ``KeyError`` for an engine not in :data:`DETECTORS`.
    """
    return DETECTORS[engine].id()


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
_EVIDENCE = _lazy.pattern(__name__, "_EVIDENCE", rb"[\x80-\xff\x1b]")
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
    if len(data) <= max_bytes:
        return data
    core = native.core
    if core is not None:
        return core.detector_sample(data, max_bytes, min_nonascii)
    return _detector_sample_pure(data, max_bytes, min_nonascii)


def _detector_sample_pure(data: bytes, max_bytes: int, min_nonascii: int) -> bytes:
    """:func:`detector_sample` of *data* (bytes) longer than *max_bytes*, in Python: the reference
    of the compiled core's ``detector_sample`` (``tests/test_detect.py`` proves them equal)."""
    n = len(data)
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
    if engine not in DETECTORS:
        raise ValueError(f"unknown detector engine {engine!r}; known: {', '.join(DETECTORS)}")
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
    return DETECTORS[engine].detect(data, tld, allow_utf8, whole, consult_bytes, tld_vote)


#: (payload object, max_bytes, min_nonascii, its sample): the last sample made, reused when the
#: very same bytes object is asked about again (bytes are immutable).
_LAST_SAMPLE: tuple | None = None


def _vote(votes: list[RawDetection], detector: str, out_of: int | None = None,
          tld_vote: str | None = None, allow_utf8: bool = True) -> RawDetection:
    # The standard encoding at least two engines name; else the one the TLD suggests if an engine
    # named it; else the first engine's (chardetng). Confidence: the share of the *out_of*
    # engines (default: those that voted) known to name it; with the TLD's vote, of the engines
    # and the TLD. Without *allow_utf8*, a UTF-8 answer is no vote: chardetng then answers UTF-8
    # only for input that is entirely valid UTF-8 (which the decision's utf8-valid step took
    # before), and the consulted engines must not bring back what it leaves out (cchardet and
    # charset-normalizer call a page with one stray byte UTF-8; no browser does).
    names = [v.encoding if allow_utf8 or v.encoding != "UTF-8" else None for v in votes]
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
_RECENT_MAX = 8
_RECENT_MAX_BYTES = 1 << 16


def _run_engine(engine: str, data: bytes, tld: str | None, allow_utf8: bool, whole: bool) -> RawDetection:
    """:func:`_run` without the memory of recent answers."""
    answer, confidence = DETECTORS[engine].guess(data, tld, allow_utf8, whole)
    encoding, mapping = standard_encoding(answer)
    return RawDetection(
        answer=answer,
        encoding=encoding,
        mapping=mapping,
        confidence=confidence,
        detector=detector_id(engine),
    )


def detect(payload: bytes, *, tld: str | None, **options: Any) -> _sniff.Detection | None:
    """Detect *payload*'s encoding: ``Detection(encoding, confidence, detector)`` or None.

    :func:`detect_raw` (*tld* and *options*: ``engine``, ``allow_utf8``, ``max_bytes``,
    ``min_nonascii``, ``consult_bytes``, ``tld_vote``, as there) with its answer mapped: ``encoding`` is always an
    Encoding Standard canonical name other than ``replacement``; None when the engine had no
    answer or its answer has no standard equivalent (dropped, see :func:`standard_encoding`).
    ``confidence`` is in 0..1; ``detector`` is ``name@version``. Raises ``ValueError`` for an
    unknown engine or a bound below 1, ``TypeError`` for an unknown option.
    """
    raw = detect_raw(payload, tld=tld, **options)
    if raw.encoding is None:
        return None
    return _sniff.Detection(encoding=raw.encoding, confidence=raw.confidence, detector=raw.detector)


def preload(engine: str) -> None:
    """Import *engine* (``majority``/``cascade``: the engines they ask) and what it loads on its
    first calls (:meth:`Engine.load`). Used by :meth:`redecode.rules.Rules.preload` so that worker
    processes forked afterwards share these modules. Returns None; ``KeyError`` for an engine not
    in :data:`DETECTORS`.
    """
    if engine not in DETECTORS:
        raise KeyError(f"unknown detector engine {engine!r}; known: {', '.join(DETECTORS)}")
    DETECTORS[engine].load()


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



# ---------------------------------------------------------------------------------------------
# the engines


class Engine:
    """A detector engine: its name (the ``engine=`` argument and the rules' ``detector``), the
    distribution whose version identifies it (``dist``), how to load it and how to ask it.

    A single engine implements :meth:`guess` (the library's own answer and confidence); an engine
    made of others (``majority``, ``cascade``) implements :meth:`detect` over :func:`_run` and
    :meth:`id`. A new engine is one subclass here and one entry of :data:`DETECTORS`.
    """

    name: str = ""
    #: The distribution whose installed version goes into ``name@version`` ("" for engines made of
    #: other engines); also recorded in every run manifest.
    dist: str = ""

    def id(self) -> str:
        """``name@version`` (:func:`detector_id`)."""
        return f"{self.name}@{_version(self.dist)}"

    def load(self) -> None:
        """Import the library and what it loads on its first calls (:func:`preload`)."""

    def guess(self, data: bytes, tld: str | None, allow_utf8: bool, whole: bool) -> tuple[str | None, float]:
        """``(answer as the library names it or None, confidence 0..1)`` for *data*; *whole*:
        *data* is the entire payload (else a sample that may end inside a character)."""
        raise NotImplementedError

    def detect(self, data: bytes, tld: str | None, allow_utf8: bool, whole: bool,
               consult_bytes: int | None, tld_vote: str | None = None) -> RawDetection:
        """The :class:`RawDetection` of *data* (already sampled by :func:`detect_raw`);
        *tld_vote*: see :func:`detect_raw` (engines made of one library ignore it)."""
        return _run(self.name, data, tld, allow_utf8, whole)


class _Chardetng(Engine):
    """Firefox's chardetng (``chardetng-py``): guess and a boolean assessment (0.99 / 0.01)."""

    name, dist = "chardetng", "chardetng-py"

    def load(self) -> None:
        import chardetng_py  # noqa: F401, PLC0415

    def guess(self, data: bytes, tld: str | None, allow_utf8: bool, whole: bool) -> tuple[str | None, float]:
        from chardetng_py import EncodingDetector  # noqa: PLC0415
        from chardetng_py.constants import CONFIDENCE_HIGH, CONFIDENCE_LOW  # noqa: PLC0415

        det = EncodingDetector()
        det.feed(data, last=whole)
        answer, high = det.guess_assess(tld=_tld_hint(tld), allow_utf8=allow_utf8)
        return answer, CONFIDENCE_HIGH if high else CONFIDENCE_LOW


class _CharsetNormalizer(Engine):
    """charset-normalizer's best match; confidence ``1 - chaos``."""

    name, dist = "charset-normalizer", "charset-normalizer"

    def load(self) -> None:
        # the Python codec of every encoding it may try, which it otherwise imports one by one as
        # payloads lead it to them
        import charset_normalizer.constant  # noqa: PLC0415

        for codec in charset_normalizer.constant.IANA_SUPPORTED:
            try:
                codecs.lookup(codec)
            except LookupError:
                pass

    def guess(self, data: bytes, tld: str | None, allow_utf8: bool, whole: bool) -> tuple[str | None, float]:
        import charset_normalizer  # noqa: PLC0415

        best = charset_normalizer.from_bytes(data).best()
        if best is None:
            return None, 0.0
        return best.encoding, max(0.0, min(1.0, 1.0 - best.chaos))


class _Cchardet(Engine):
    """uchardet through ``cchardet``; its confidence clamped to 0..1."""

    name, dist = "cchardet", "cchardet"

    def id(self) -> str:
        # faust-cchardet and cchardet install the same import package; record the one whose
        # code an import loads: its __version__, read from the package's source when it is a
        # literal there (every run needs the id for the rules digest, and most never consult
        # cchardet), else from the imported module.
        version = _source_version("cchardet")
        if version is None:
            import cchardet  # noqa: PLC0415

            version = getattr(cchardet, "__version__", _version(self.dist))
        return f"cchardet@{version}"

    def load(self) -> None:
        import cchardet  # noqa: F401, PLC0415

    def guess(self, data: bytes, tld: str | None, allow_utf8: bool, whole: bool) -> tuple[str | None, float]:
        import cchardet  # noqa: PLC0415

        res = cchardet.detect(data)
        # uchardet can report slightly more than 1 (1.001 seen on b"a\xa3"): clamp to 0..1.
        return res.get("encoding"), max(0.0, min(1.0, float(res.get("confidence") or 0.0)))


class _Majority(Engine):
    """The standard encoding at least two of :data:`MAJORITY_OF` name, else chardetng's."""

    name = "majority"

    def id(self) -> str:
        return f"{self.name}({','.join(detector_id(e) for e in MAJORITY_OF)})"

    def load(self) -> None:
        for e in MAJORITY_OF:
            DETECTORS[e].load()

    def detect(self, data: bytes, tld: str | None, allow_utf8: bool, whole: bool,
               consult_bytes: int | None, tld_vote: str | None = None) -> RawDetection:
        votes = [_run(e, data, tld, allow_utf8, whole) for e in MAJORITY_OF]
        return _vote(votes, detector_id(self.name), tld_vote=tld_vote, allow_utf8=allow_utf8)


class _Cascade(_Majority):
    """chardetng, and the majority of the three only on its :data:`CASCADE_CONSULT` answers."""

    name = "cascade"

    def id(self) -> str:
        inner = ",".join(detector_id(e) for e in MAJORITY_OF)
        return f"{self.name}({inner};consult={','.join(sorted(CASCADE_CONSULT))})"

    def detect(self, data: bytes, tld: str | None, allow_utf8: bool, whole: bool,
               consult_bytes: int | None, tld_vote: str | None = None) -> RawDetection:
        first = _run(MAJORITY_OF[0], data, tld, allow_utf8, whole)
        if first.encoding not in CASCADE_CONSULT:
            return RawDetection(answer=first.answer, encoding=first.encoding,
                                mapping=first.mapping, confidence=first.confidence,
                                detector=detector_id(self.name))
        if consult_bytes is not None and len(data) > consult_bytes:
            data, whole = _cut(data, consult_bytes), False
        # The majority of the three, asking charset-normalizer only when cchardet disagrees
        # with chardetng (if they agree, the third vote cannot change the answer).
        second = _run(MAJORITY_OF[1], data, tld, allow_utf8, whole)
        if second.encoding is not None and second.encoding == first.encoding:
            return _vote([first, second], detector_id(self.name), out_of=len(MAJORITY_OF),
                         allow_utf8=allow_utf8)
        third = _run(MAJORITY_OF[2], data, tld, allow_utf8, whole)
        return _vote([first, second, third], detector_id(self.name), tld_vote=tld_vote, allow_utf8=allow_utf8)


#: The detector engines by name (the rules' ``detector``), in the order error messages list them.
DETECTORS: dict[str, Engine] = {e.name: e for e in (
    _Chardetng(), _CharsetNormalizer(), _Cchardet(), _Majority(), _Cascade())}

#: Engine name -> distribution whose version is recorded (``""`` for engines made of others).
ENGINES: dict[str, str] = {name: e.dist for name, e in DETECTORS.items()}
