"""Named, immutable, versioned rule sets: how a record's encoding is decided and decoded.

A :class:`Rules` object holds every parameter of a decision procedure; its :attr:`Rules.digest`
covers those parameters and the version of everything else that can change the output, so a
stored row's ``rules_digest`` says whether the same rules would still give the same row.

=====================  =============================================================================
rules                  what it reproduces
=====================  =============================================================================
``author-2026.12``     the default: the author's text. The browser's decision checked against the
                       payload and overridden where the bytes show a declaration, default or
                       detector answer to be wrong (:func:`redecode.validate.decide`: every
                       candidate decoded, evidence weighed; aliases of unknown labels; UTF-16
                       without BOM; ISO-2022-JP escapes; mostly-valid UTF-8; the TLD as the
                       detector's tie-break); a content coding the body does not carry is
                       decoded as identity with a warning. Encoding Standard decoders.
``browser-2026.11``    what a browser shows: the HTML Standard's "determining the character
                       encoding" as Chromium implements it (:func:`redecode.sniff.decide`), the
                       UTF-8 validity step, detection restricted to Encoding Standard encodings
                       (:func:`redecode.detect.detect`), the Encoding Standard's decoders.
``seed-2026.10``       the ``decode_html`` function of the article this project started from
                       (reconstructed below), with Python codecs, so that decodes made by that code
                       can be replayed and diffed.
``requests-2.32``      what ``requests.Response.text`` returns (requests 2.32, no ``chardet``
                       installed so ``charset_normalizer`` detects), the most common prior decode.
=====================  =============================================================================

Use::

    rules = get_rules("author-2026.12")
    decision = rules.decide(payload, content_type=["text/html; charset=gbk"], url=url, kind="html")
    decoded = rules.decode(payload, decision)   # Decoded(text, encoding, decoder, errors, bom_removed)

``decision.encoding`` and ``decoded.encoding`` are Encoding Standard names, never Python codec
names; ``decoded.decoder`` says which decoder made the text: ``"whatwg"`` (this project's
Encoding Standard decoders) or ``"python:<codec>"`` (Python's codec, e.g. ``"python:cp932"``).

``seed-2026.10``, reconstructed (the article's code is not in this repository; this is the
function as the article describes it, steps in this order):

1. BOM: ``EF BB BF`` -> UTF-8; ``FF FE`` -> UTF-16LE; ``FE FF`` -> UTF-16BE (the BOM is not part
   of the text). No UTF-32 check.
2. Header: ``re.search(r"charset=[\"']?([^\"';\\s]+)", content_type, re.I)`` on the first
   Content-Type value.
3. Meta: ``re.search(rb"<meta[^>]+charset=[\"']?([\\w-]+)", data[:1024], re.I)`` (so
   ``<meta name="description" content="charset=gbk">`` counts, unlike in a browser).
4. Each label found (header first, then meta) goes through the label map
   :data:`SEED_LABEL_MAP` (lower-cased, stripped), then ``codecs.lookup``; the first that Python
   knows (and that is a text encoding) decodes the page with ``errors="replace"``.
5. Else strict UTF-8, if the payload is valid UTF-8.
6. Else charset-normalizer's best guess (``from_bytes(data).best().encoding``), decoded with
   ``errors="replace"``.
7. Else cp1252 with ``errors="replace"`` (Python's cp1252 has no mapping for 0x81, 0x8D, 0x8F,
   0x90, 0x9D, so those become U+FFFD, unlike the Encoding Standard's windows-1252).

``requests-2.32``, reproduced from requests 2.32 (``requests/utils.py``
``_parse_content_type_header`` and ``get_encoding_from_headers``; ``requests/models.py``
``Response.text`` and ``apparent_encoding``; ``requests/compat.py`` imports ``chardet``, else
``charset_normalizer`` as ``chardet``):

1. ``encoding = get_encoding_from_headers(headers)``: the Content-Type value (repeated headers
   joined with ``", "`` as urllib3's ``HTTPHeaderDict`` does) is split on ``;``; each parameter
   ``key=value`` has ``"' `` stripped from both; the last ``charset`` wins and is stripped of
   quotes again. No charset: ``"ISO-8859-1"`` if ``"text"`` is a substring of the (not
   lower-cased) media type; ``"utf-8"`` if ``"application/json"`` is; else None.
2. Empty content: ``""``.
3. ``encoding`` None: ``charset_normalizer.detect(content)["encoding"]``.
4. ``str(content, encoding, errors="replace")``; on ``LookupError``/``TypeError`` (unknown
   label, or no detection answer) ``str(content, errors="replace")``, i.e. UTF-8.
``ISO-8859-1`` is Python's latin-1 (0x80-0x9F become C1 controls), recorded as
``decoder="python:iso8859-1"`` and ``encoding="windows-1252"`` (the standard encoding that label
names), so a diff shows where requests' text differs from the standard's.

Decision vocabulary for the Python-codec rules: ``source`` is ``bom`` / ``transport`` (a header
charset was used) / ``prescan`` (the seed's meta regex) / ``utf8-valid`` / ``detector`` /
``default`` (the seed's cp1252; requests' ISO-8859-1 for ``text/*``, utf-8 for JSON, and its
UTF-8 fallback after an unknown label); ``confidence`` ``certain`` for bom/transport, else
``tentative``; ``encoding`` is the Encoding Standard encoding that names the Python codec used
(:func:`redecode.detect.standard_encoding`: cp932 -> Shift_JIS, gb18030 -> gb18030, cp949 ->
EUC-KR, big5hkscs -> Big5, cp1252 -> windows-1252), or None when the codec has no standard
equivalent (e.g. a header ``charset=cp437``, which Python honours): the ``decoder`` then says
what decoded it. These decisions are :class:`CodecDecision` (a
:class:`redecode.sniff.Decision` with the Python codec in ``codec``).

Errors: ``Decoded.errors`` is the exact number of U+FFFD the decoder inserted (Encoding Standard
decoders count them; Python codecs use the error handler ``redecode-count``, which is Python's
``replace`` handler plus a counter, so the text is identical to ``errors="replace"``). U+FFFD
already present in the input (``EF BF BD`` in UTF-8) is not counted.

Deviations:

- ``seed-2026.10``: a label that Python resolves to a non-text codec (``base64``, ``rot13``...)
  or to ``undefined`` is skipped as unknown; the seed function would have raised.
- ``seed-2026.10``: :data:`SEED_LABEL_MAP` has the 14 labels issue 3 lists for what it calls a
  15-label map.
- ``requests-2.32``: a Content-Type ``charset`` parameter without ``=`` makes requests raise
  (``True.strip``); here it counts as no charset.
- ``requests-2.32``: a leading U+FEFF that a UTF-8/UTF-16 codec decoded from the payload's BOM is
  removed (the output's ``text`` never starts with a BOM; ``bom_removed`` says so); requests
  keeps it. Under ISO-8859-1 a BOM decodes to ``ï»¿`` and is kept.
"""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import json
import re
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from . import aliases as _aliases
from . import decode as _decode
from . import detect as _detect
from . import sniff as _sniff
from . import validate as _validate
from .sniff import Decision

__all__ = [
    "BROWSER_RULES",
    "DECISION_CODE_VERSION",
    "DEFAULT_RULES",
    "RULES",
    "SEED_LABEL_MAP",
    "CodecDecision",
    "Decoded",
    "Rules",
    "format_rules",
    "get_rules",
    "python_decode",
    "requests_parse_content_type",
]

#: Version of this project's decision code (``sniff``, ``prescan``, ``mime`` and the procedures
#: in this module). Bump it whenever a change there can change any decision or text; it is part
#: of every digest.
DECISION_CODE_VERSION = "2026.12.1"

DEFAULT_RULES = "author-2026.12"

#: The rule set whose answer every row records as ``browser_encoding``: what a browser picks.
BROWSER_RULES = "browser-2026.11"

Procedure = Literal["browser", "author", "seed-decode-html", "requests-text"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Decoded:
    """The text of a record and how it was made.

    ``text``: no BOM (str, characters); ``encoding``: Encoding Standard name actually used (a
    BOM can override the decision's) or None when a Python codec with no standard equivalent
    decoded it; ``decoder``: ``"whatwg"`` or ``"python:<codec>"``; ``errors``: number of U+FFFD
    the decoder inserted; ``bom_removed``: a BOM was stripped from the start of the payload.
    """

    text: str
    encoding: str | None
    decoder: str
    errors: int
    bom_removed: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class CodecDecision(Decision):
    """A :class:`~redecode.sniff.Decision` made by a Python-codec rule set: ``codec`` is the
    Python codec (``codecs.lookup(x).name``) that decodes the payload."""

    codec: str


# --- counting error handler ----------------------------------------------------------------

_count = threading.local()


def _count_replace(exc: UnicodeError) -> tuple[str, int]:
    # Same replacement as Python's "replace" handler for decoding: one U+FFFD per call, resume
    # after the bytes the codec flagged.
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _count.n = getattr(_count, "n", 0) + 1
    return "\ufffd", exc.end


codecs.register_error("redecode-count", _count_replace)


def python_decode(data: bytes, codec: str) -> tuple[str, int]:
    """``data.decode(codec, errors="replace")`` and the number of replacements made.

    Raises ``LookupError`` for an unknown codec (as ``bytes.decode`` does).
    """
    _count.n = 0
    text = data.decode(codec, errors="redecode-count")
    return text, _count.n


# --- the rule set ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """A named, immutable rule set. Every field but ``name`` and ``description`` is a parameter.

    ``procedure``: ``browser`` (uses ``detector``, ``detector_allow_utf8``,
    ``detector_max_bytes`` and ``detector_min_nonascii`` (the detectors see
    :func:`redecode.detect.detector_sample` of the payload; None: the whole payload),
    ``detector_consult_bytes`` (engine ``cascade``: how much of that sample the engines it
    consults see; None: all of it),
    ``tld_hint``, ``utf8_step``, ``late_meta``, ``chromium_tokenizer``), ``author`` (the browser's
    fields, plus ``tld_vote`` (``firefox``: the detector's tie-break is Firefox's TLD fallback,
    :func:`redecode.validate.tld_vote`), ``min_errors`` (U+FFFD before candidates are weighed) and
    ``identity_fallback`` (a content coding the body does not carry is decoded as identity,
    :func:`redecode.http.decode_body`)), ``seed-decode-html`` (uses
    ``label_map``, ``header_pattern``, ``meta_pattern``, ``meta_window``, ``detector``,
    ``fallback_codec``) or ``requests-text`` (``text_default``, ``json_default``, ``detector``,
    ``fallback_codec``). ``decoders``: ``whatwg`` or ``python``. Fields a procedure does not use
    hold their neutral value (None, ``()``) so that the digest does not depend on them.
    """

    name: str
    description: str
    procedure: Procedure
    decoders: Literal["whatwg", "python"]
    detector: str | None = None
    detector_allow_utf8: bool | None = None
    detector_max_bytes: int | None = None
    detector_min_nonascii: int | None = None
    detector_consult_bytes: int | None = None
    tld_hint: bool | None = None
    utf8_step: bool | None = None
    late_meta: bool | None = None
    chromium_tokenizer: bool | None = None
    label_map: tuple[tuple[str, str], ...] = ()
    header_pattern: str | None = None
    meta_pattern: str | None = None
    meta_window: int | None = None
    fallback_codec: str | None = None
    text_default: str | None = None
    json_default: str | None = None
    tld_vote: str | None = None
    min_errors: int | None = None
    identity_fallback: bool | None = None

    # -- identity --

    def parameters(self) -> dict[str, Any]:
        """Every parameter (all fields but name and description), JSON-ready."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in ("name", "description"):
                continue
            v = getattr(self, f.name)
            out[f.name] = [list(p) for p in v] if f.name == "label_map" else v
        return out

    def versions(self) -> dict[str, str]:
        """Versions of everything outside the parameters that can change this rule set's output.

        ``encoding_standard`` (tables revision), ``decision_code`` (:data:`DECISION_CODE_VERSION`),
        ``decoder`` (``whatwg@DECODER_VERSION`` or ``python@MAJOR.MINOR``), ``detector``
        (``name@version``, all three for ``majority`` and ``cascade``) and, for the browser
        procedure,
        ``tld_defaults`` (sniff's default-step table); for the author procedure also
        ``author_tables`` (sha256 prefix of the alias and TLD-fallback tables,
        :mod:`redecode.aliases`).
        """
        v = {
            "encoding_standard": _decode.TABLES_REVISION,
            "decision_code": DECISION_CODE_VERSION,
        }
        if self.decoders == "whatwg":
            v["decoder"] = f"whatwg@{_decode.DECODER_VERSION}"
        else:
            # Python's codec tables can change between feature releases.
            v["decoder"] = f"python@{sys.version_info.major}.{sys.version_info.minor}"
        if self.detector is not None:
            v["detector"] = _detect.detector_id(self.detector)
        if self.procedure in ("browser", "author"):
            # The decision's data tables (the TLD defaults of its last step), so that editing
            # them changes the digest even if DECISION_CODE_VERSION was not bumped.
            v["tld_defaults"] = ",".join(
                f"{k}={e}" for k, e in sorted(_sniff.TLD_DEFAULTS.items())
            ) + f",*={_sniff.DEFAULT_ENCODING}"
        if self.procedure == "author":
            v["author_tables"] = _author_tables_digest()
        return v

    @property
    def digest(self) -> str:
        """sha256 hex of the canonical JSON of :meth:`parameters` and :meth:`versions`."""
        return _digest(self)

    def describe(self) -> dict[str, Any]:
        """``{name, description, digest, parameters, versions}`` (for ``redecode rules --json``)."""
        return {
            "name": self.name,
            "description": self.description,
            "digest": self.digest,
            "parameters": self.parameters(),
            "versions": self.versions(),
        }

    # -- behaviour --

    def decide(
        self,
        payload: bytes,
        *,
        content_type: Sequence[str] = (),
        url: str | None = None,
        kind: str = "html",
    ) -> Decision:
        """Decide *payload*'s encoding. *content_type*: every Content-Type header value, in
        order; *kind*: ``html`` / ``xml`` / ``text`` (from :func:`redecode.mime.text_kind`).
        Never raises on any payload."""
        if self.procedure == "author":
            return self._validated(payload, content_type, url, kind).decision
        if self.procedure == "browser":
            return _sniff.decide(
                payload,
                content_type=content_type,
                url=url,
                kind=kind,
                detector=self._detector(),
                utf8_step=bool(self.utf8_step),
                late_meta=bool(self.late_meta),
                chromium_tokenizer=bool(self.chromium_tokenizer),
            )
        if self.procedure == "seed-decode-html":
            return _seed_decide(self, bytes(payload), content_type)
        return _requests_decide(self, bytes(payload), content_type)

    def decode(self, payload: bytes, decision: Decision) -> Decoded:
        """Decode *payload* as *decision* says; see :class:`Decoded`. Never raises on any payload
        for a decision this rule set made; ``TypeError`` for a Python-codec rule set given a
        decision without ``codec``."""
        data = bytes(payload)
        if self.decoders == "whatwg":
            if decision.source == "validated" and decision.bom is not None:
                # The author's rules overrode a BOM: its bytes are dropped, the rest decoded.
                r = _decode.decode(data[_BOM_LEN[decision.bom]:], decision.encoding, bom_sniff=False)
                return Decoded(text=r.text, encoding=r.encoding, decoder="whatwg", errors=r.errors,
                               bom_removed=True)
            r = _decode.decode(data, decision.encoding, bom_sniff=True)
            return Decoded(text=r.text, encoding=r.encoding, decoder="whatwg", errors=r.errors,
                           bom_removed=r.bom_removed)
        if not isinstance(decision, CodecDecision):
            raise TypeError(f"rules {self.name!r} decode Python-codec decisions (CodecDecision), "
                            f"got {type(decision).__name__}")
        if self.procedure == "requests-text" and not data:
            return Decoded(text="", encoding=decision.encoding, decoder=f"python:{decision.codec}",
                           errors=0, bom_removed=False)
        body, bom_removed = data, False
        if decision.source == "bom" and decision.bom is not None:
            body, bom_removed = data[_BOM_LEN[decision.bom]:], True
        text, errors = python_decode(body, decision.codec)
        if (self.procedure == "requests-text" and decision.bom is not None
                and text.startswith("\ufeff") and decision.codec.startswith("utf")):
            text, bom_removed = text[1:], True
        return Decoded(text=text, encoding=decision.encoding, decoder=f"python:{decision.codec}",
                       errors=errors, bom_removed=bom_removed)

    def decide_and_decode(
        self,
        payload: bytes,
        *,
        content_type: Sequence[str] = (),
        url: str | None = None,
        kind: str = "html",
    ) -> tuple[Decision, Decoded]:
        """``(decide(...), decode(payload, decision))`` in one call (arguments as for
        :meth:`decide`); the author's procedure decodes while it decides and returns that text
        instead of decoding twice. Never raises on any payload."""
        if self.procedure == "author":
            v = self._validated(payload, content_type, url, kind)
            r = v.decoded
            return v.decision, Decoded(text=r.text, encoding=r.encoding, decoder="whatwg",
                                       errors=r.errors, bom_removed=r.bom_removed)
        decision = self.decide(payload, content_type=content_type, url=url, kind=kind)
        return decision, self.decode(payload, decision)

    def _validated(self, payload: bytes, content_type: Sequence[str], url: str | None,
                   kind: str) -> "_validate.Validated":
        return _validate.decide(
            payload,
            content_type=content_type,
            url=url,
            kind=kind,
            browser_detector=self._detector(),
            author_detector=self._detector(vote=True),
            min_errors=self.min_errors if self.min_errors is not None else _validate.DEFAULT_MIN_ERRORS,
        )

    def preload(self) -> None:
        """Load now what :meth:`decide` and :meth:`decode` otherwise load on their first record:
        the detector engines (charset-normalizer imports every Python codec), the multi-byte
        decoders and their tables, the Python codecs the fast paths use; for the Python-codec
        rule sets also the browser rules' (every row records ``browser_encoding``).

        Decides and decodes a few built-in samples (an undeclared windows-1252 page, one declared
        page per multi-byte encoding); their results are dropped and nothing later depends on
        them (the caches involved are keyed by their inputs). Worker processes forked afterwards
        share what was loaded (copy-on-write) instead of each loading it again. Returns None;
        never raises for a shipped rule set.
        """
        if self.detector is not None:
            _detect.preload(self.detector)
        if self.procedure not in ("browser", "author"):
            # redecode.job.record_row also asks the browser rules for browser_encoding.
            get_rules(BROWSER_RULES).preload()
        undeclared = ("<p>" + "Grüße aus Köln, schöne Straße. " * 8 + "</p>").encode("cp1252")
        self.decode(undeclared, self.decide(undeclared, url="http://example.de/"))
        for label, codec, text in _PRELOAD_SAMPLES:
            payload = f"<p>{text}</p>".encode(codec)
            decision = self.decide(payload, content_type=(f"text/html; charset={label}",))
            self.decode(payload, decision)

    def _detector(self, vote: bool = False) -> Callable[[bytes, str | None], Any] | None:
        if self.detector is None:
            return None
        return _browser_detector(self.detector, bool(self.detector_allow_utf8), bool(self.tld_hint),
                                 self.detector_max_bytes, self.detector_min_nonascii,
                                 self.detector_consult_bytes,
                                 self.tld_vote if vote else None)


#: (label, Python codec, text) declared pages that :meth:`Rules.preload` decides and decodes.
_PRELOAD_SAMPLES: tuple[tuple[str, str, str], ...] = (
    ("shift_jis", "shift_jis", "日本語のページ"),
    ("euc-jp", "euc_jp", "日本語のページ"),
    ("iso-2022-jp", "iso2022_jp", "日本語のページ"),
    ("euc-kr", "euc_kr", "한국어 페이지"),
    ("big5", "big5", "繁體中文網頁"),
    ("gbk", "gbk", "简体中文网页"),
    ("gb18030", "gb18030", "简体中文网页"),
    ("windows-1251", "cp1251", "Русская страница"),
    ("utf-16le", "utf-16-le", "page"),
)


@cache
def _digest(rules: Rules) -> str:
    doc = {"parameters": rules.parameters(), "versions": rules.versions()}
    canon = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canon.encode("ascii")).hexdigest()


@cache
def _browser_detector(engine: str, allow_utf8: bool, tld_hint: bool, max_bytes: int | None,
                      min_nonascii: int | None, consult_bytes: int | None,
                      tld_vote: str | None = None) -> Callable[..., Any]:
    def run(payload: bytes, tld: str | None):
        vote = _validate.tld_vote(tld) if tld_vote == "firefox" else None
        return _detect.detect(payload, tld=tld if tld_hint else None, engine=engine,
                              allow_utf8=allow_utf8, max_bytes=max_bytes,
                              min_nonascii=min_nonascii, consult_bytes=consult_bytes,
                              tld_vote=vote)

    return run


@cache
def _author_tables_digest() -> str:
    doc = json.dumps({"aliases": _aliases.ALIASES, "tld": _aliases.FIREFOX_TLD_FALLBACKS},
                     sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(doc.encode("ascii")).hexdigest()[:16]


# --- shared bits for the Python-codec procedures -------------------------------------------

_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (b"\xef\xbb\xbf", "UTF-8", "utf-8"),
    (b"\xff\xfe", "UTF-16LE", "utf-16-le"),
    (b"\xfe\xff", "UTF-16BE", "utf-16-be"),
)
_BOM_LEN = {"UTF-8": 3, "UTF-16LE": 2, "UTF-16BE": 2}


def _bom_of(data: bytes) -> tuple[str, str] | None:
    for prefix, name, codec in _BOMS:
        if data.startswith(prefix):
            return name, codec
    return None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@cache
def _text_codec(label: str) -> str | None:
    """Python's codec for *label* if it is a usable text codec, else None."""
    try:
        info = codecs.lookup(label)
    except (LookupError, TypeError, ValueError):
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name == "undefined":
        return None
    return info.name


def _codec_decision(**kw: Any) -> CodecDecision:
    codec = kw["codec"]
    kw.setdefault("encoding", _detect.standard_encoding(codec)[0])
    kw.setdefault("confidence", "certain" if kw["source"] in ("bom", "transport") else "tentative")
    return CodecDecision(**kw)


# --- seed-2026.10 ------------------------------------------------------------------------

#: The seed article's label map (lower-case label -> Python codec), applied before
#: ``codecs.lookup``.
SEED_LABEL_MAP: tuple[tuple[str, str], ...] = (
    ("iso-8859-1", "cp1252"),
    ("latin1", "cp1252"),
    ("ascii", "cp1252"),
    ("us-ascii", "cp1252"),
    ("gb2312", "gb18030"),
    ("gbk", "gb18030"),
    ("x-gbk", "gb18030"),
    ("shift_jis", "cp932"),
    ("sjis", "cp932"),
    ("x-sjis", "cp932"),
    ("windows-31j", "cp932"),
    ("euc-kr", "cp949"),
    ("ks_c_5601-1987", "cp949"),
    ("big5", "big5hkscs"),
)
# Issue 3 calls it a "15-label map" but lists these 14 labels; the 15th is not known, so it is
# not invented here (a label missing from the map still goes through codecs.lookup).


@cache
def _compiled(pattern: str, as_bytes: bool) -> re.Pattern:
    return re.compile(pattern.encode("ascii") if as_bytes else pattern, re.IGNORECASE)


def _seed_codec(rules: Rules, label: str) -> str | None:
    key = label.strip().lower()
    return _text_codec(dict(rules.label_map).get(key, key))


def _seed_decide(rules: Rules, data: bytes, content_type: Sequence[str]) -> CodecDecision:
    common: dict[str, Any] = {"ascii_only": data.isascii(), "tld": None}
    bom = _bom_of(data)
    if bom is not None:
        return _codec_decision(source="bom", bom=bom[0], codec=bom[1], **common)
    header_label = meta_label = None
    meta_offset = None
    if content_type:
        m = _compiled(rules.header_pattern or "", False).search(content_type[0])
        if m:
            header_label = m.group(1)
    m = _compiled(rules.meta_pattern or "", True).search(data[: rules.meta_window])
    if m:
        meta_label = m.group(1).decode("ascii", "replace")
        meta_offset = m.start()
    common.update(header_charset=header_label, meta_charset=meta_label, meta_offset=meta_offset)
    ignored: list[str] = []
    resolved = []
    for where, source, label in (("transport", "transport", header_label),
                                 ("prescan", "prescan", meta_label)):
        if label is None:
            continue
        codec = _seed_codec(rules, label)
        if codec is None:
            ignored.append(label)
        else:
            resolved.append((where, source, label, codec))
    if resolved:
        _, source, _, codec = resolved[0]
        conflict = tuple(f"{w}:{lab}" for w, _, lab, c in resolved[1:] if c != codec)
        return _codec_decision(source=source, codec=codec, ignored_labels=tuple(ignored),
                               conflict=conflict, **common)
    common["ignored_labels"] = tuple(ignored)
    if _is_utf8(data):
        return _codec_decision(source="utf8-valid", codec="utf-8", utf8_valid=True, **common)
    raw = _detect.detect_raw(data, tld=None, engine=rules.detector or "charset-normalizer")
    codec = _text_codec(raw.answer) if raw.answer else None
    if codec is not None:
        return _codec_decision(source="detector", codec=codec, utf8_valid=False,
                               detector=raw.detector, detector_confidence=raw.confidence, **common)
    return _codec_decision(source="default", codec=_text_codec(rules.fallback_codec or "cp1252"),
                           utf8_valid=False, **common)


# --- requests-2.32 -----------------------------------------------------------------------


def requests_parse_content_type(header: str) -> tuple[str, dict[str, Any]]:
    """requests 2.32 ``utils._parse_content_type_header``: (media type, lower-cased params)."""
    tokens = header.split(";")
    content_type, params = tokens[0].strip(), tokens[1:]
    params_dict: dict[str, Any] = {}
    items_to_strip = "\"' "
    for param in params:
        param = param.strip()
        if param:
            key: str = param
            value: Any = True
            index_of_equals = param.find("=")
            if index_of_equals != -1:
                key = param[:index_of_equals].strip(items_to_strip)
                value = param[index_of_equals + 1 :].strip(items_to_strip)
            params_dict[key.lower()] = value
    return content_type, params_dict


def _requests_decide(rules: Rules, data: bytes, content_type: Sequence[str]) -> CodecDecision:
    bom = _bom_of(data)
    common: dict[str, Any] = {"ascii_only": data.isascii(), "tld": None,
                              "bom": bom[0] if bom else None}
    header = ", ".join(content_type) if content_type else None
    encoding: str | None = None
    source = "default"
    if header:
        media, params = requests_parse_content_type(header)
        if "charset" in params:
            value = params["charset"]
            # ``charset`` with no "=" is True in requests; True.strip() would raise there
            # (AttributeError inside Response.text's caller). Treat it as no usable label.
            if isinstance(value, str):
                encoding = value.strip("'\"")
                common["header_charset"] = encoding
                source = "transport"
        if encoding is None and "text" in media:
            encoding = rules.text_default
        elif encoding is None and "application/json" in media:
            encoding = rules.json_default
    det: dict[str, Any] = {}
    if encoding is None:
        if not data:
            return _codec_decision(source="default", codec=_text_codec("utf-8"), **common)
        answer, conf = _detect.chardet_compatible(data)
        det = {"detector": _detect.detector_id(rules.detector or "charset-normalizer"),
               "detector_confidence": conf}
        encoding, source = answer, "detector"
    codec = _text_codec(encoding) if encoding else None
    if codec is None or not _python_can_decode(codec):
        ignored = (encoding,) if encoding else ()
        return _codec_decision(source="default", codec=rules.fallback_codec or "utf-8",
                               ignored_labels=ignored, **common, **det)
    return _codec_decision(source=source, codec=codec, **common, **det)


@cache
def _python_can_decode(codec: str) -> bool:
    # str(content, encoding) raises LookupError for codecs that are not text encodings; requests
    # catches it and falls back to UTF-8.
    try:
        b"".decode(codec)
    except LookupError:
        return False
    except Exception:
        return True
    return True


# --- the shipped rule sets ---------------------------------------------------------------

_BROWSER = Rules(
    name="browser-2026.11",
    description=(
        "Browser-exact decision (BOM, HTTP charset, Chromium's tokenizing prescan and late-meta "
        "head scan, XML declaration), then UTF-8 validity, then detection restricted to Encoding "
        "Standard encodings with the TLD as hint (chardetng on a bounded sample of the page, "
        "cchardet and charset-normalizer consulted on its windows-1251/1252 answers), then the "
        "TLD default; Encoding Standard decoders."
    ),
    procedure="browser",
    decoders="whatwg",
    detector=_detect.DEFAULT_ENGINE,
    detector_allow_utf8=False,
    detector_max_bytes=_detect.DEFAULT_MAX_BYTES,
    detector_min_nonascii=_detect.DEFAULT_MIN_NONASCII,
    detector_consult_bytes=_detect.DEFAULT_CONSULT_BYTES,
    tld_hint=True,
    utf8_step=True,
    late_meta=True,
    chromium_tokenizer=True,
)

_AUTHOR = Rules(
    name="author-2026.12",
    description=(
        "The author's text (the default): the browser's decision checked against the payload "
        "and overridden where the bytes show a declaration, default or detector answer to be "
        "wrong: every candidate (declarations, aliases of unknown labels such as MacCyrillic, "
        "UTF-8, UTF-16 without BOM, ISO-2022-JP escapes, the detector with the TLD as tie-break) "
        "decoded, the clean one with the most evidence wins, ties keep the declaration; a content "
        "coding the body does not carry is decoded as identity with a warning; Encoding Standard "
        "decoders."
    ),
    procedure="author",
    decoders="whatwg",
    detector=_detect.DEFAULT_ENGINE,
    detector_allow_utf8=False,
    detector_max_bytes=_detect.DEFAULT_MAX_BYTES,
    detector_min_nonascii=_detect.DEFAULT_MIN_NONASCII,
    detector_consult_bytes=_detect.DEFAULT_CONSULT_BYTES,
    tld_hint=True,
    utf8_step=True,
    late_meta=True,
    chromium_tokenizer=True,
    tld_vote="firefox",
    min_errors=_validate.DEFAULT_MIN_ERRORS,
    identity_fallback=True,
)

_SEED = Rules(
    name="seed-2026.10",
    description=(
        "The seed article's decode_html: BOM, header charset regex, meta charset regex over the "
        "first 1024 bytes, a label map to Python codecs then codecs.lookup, strict UTF-8, charset_normalizer's "
        "best guess, cp1252; Python codecs, errors='replace'."
    ),
    procedure="seed-decode-html",
    decoders="python",
    detector="charset-normalizer",
    label_map=SEED_LABEL_MAP,
    header_pattern=r"charset=[\"']?([^\"';\s]+)",
    meta_pattern=r"<meta[^>]+charset=[\"']?([\w-]+)",
    meta_window=1024,
    fallback_codec="cp1252",
)

_REQUESTS = Rules(
    name="requests-2.32",
    description=(
        "requests 2.32 Response.text: header charset, else ISO-8859-1 (Python latin-1) for text/*, "
        "utf-8 for application/json, else charset_normalizer.detect; str(content, encoding, "
        "errors='replace'), UTF-8 when the label is unknown."
    ),
    procedure="requests-text",
    decoders="python",
    detector="charset-normalizer",
    text_default="ISO-8859-1",
    json_default="utf-8",
    fallback_codec="utf-8",
)

#: The shipped rule sets by name.
RULES: dict[str, Rules] = {r.name: r for r in (_AUTHOR, _BROWSER, _SEED, _REQUESTS)}


def get_rules(name: str) -> Rules:
    """The shipped rule set called *name*; ``KeyError`` naming the known ones otherwise."""
    try:
        return RULES[name]
    except KeyError:
        raise KeyError(f"unknown rules {name!r}; known rules: {', '.join(RULES)}") from None


def format_rules(*, as_json: bool = False) -> str:
    """The listing ``redecode rules`` prints: JSON ``{"default": name, "rules": [describe()...]}``
    or one text block per rule set (name, digest, description, set parameters, versions)."""
    described = [r.describe() for r in RULES.values()]
    if as_json:
        return json.dumps({"default": DEFAULT_RULES, "rules": described}, indent=2)
    lines: list[str] = []
    for d in described:
        mark = " (default)" if d["name"] == DEFAULT_RULES else ""
        lines += [f"{d['name']}{mark}", f"  digest: {d['digest']}", f"  {d['description']}"]
        for key, value in d["parameters"].items():
            if value is not None and value != []:
                lines.append(f"  {key}: {json.dumps(value)}")
        lines.append("  versions:")
        lines += [f"    {key}: {value}" for key, value in d["versions"].items()]
        lines.append("")
    return "\n".join(lines).rstrip("\n")
