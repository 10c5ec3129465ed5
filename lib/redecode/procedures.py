"""Rule-set procedures: how a rule set decides a record's encoding, decodes it, and replays it.

Contract. A :class:`redecode.rules.Rules` names its procedure in ``Rules.procedure``; the object
registered under that name in :data:`PROCEDURES` does the work, given the rule set for its
parameters:

=============  ===============================================================================
method         what it gives
=============  ===============================================================================
``decide``     a :class:`redecode.sniff.Decision` (``CodecDecision`` for Python-codec procedures)
``decode``     the text: :class:`Decoded` (``text``, ``encoding``, ``decoder``, ``errors``,
               ``bom_removed``)
``decide_and_decode``  both at once (a procedure that decodes while it decides returns that text)
``facts``      the declarations the HTML Standard's algorithms find in the payload whatever the
               rules (the columns :data:`redecode.schema.FACT_COLUMNS`)
``fill``       the row's :data:`redecode.schema.DECISION_COLUMNS` from the decision and the text
               (the text's lengths and forms, :data:`redecode.schema.DERIVED_COLUMNS`, are
               :func:`redecode.row.text_columns`'s, whatever the procedure)
``replay``     the same decision columns from a stored row alone, or None when the bytes are needed
``versions``   versions of what the procedure reads besides its parameters (into the digest)
``preload``    load what the first records would load (detectors, decoder tables)
=============  ===============================================================================

Shipped procedures: ``author`` (the browser's decision checked against the payload,
:mod:`redecode.validate`), ``browser`` (the HTML Standard's "determining the character encoding"
as Chromium implements it, :mod:`redecode.sniff`), ``seed-decode-html`` (the seed article's
``decode_html``) and ``requests-text`` (``requests.Response.text``). Each class docstring says what
it reproduces, step by step, and its deviations.

Adding a procedure: subclass :class:`Procedure` (or one of the shipped ones, e.g. to run the
browser's ``gather``/``choose`` and then check its choice), set ``name`` and ``uses`` (the
``Rules`` fields it reads; add a field to ``Rules`` with a neutral default for a new parameter),
implement ``decide`` and, if it makes its own columns, ``fill``; give it a ``replay`` that returns
every decision column or None (``tests/test_replay_columns.py`` fails otherwise); register one
instance in :data:`PROCEDURES`; then name it in a rule set in :mod:`redecode.rules`.

Start-up: this module imports the decision (:mod:`redecode.decode`, ``sniff``, ``prescan``,
``validate``, ``equivalence``) where a record is first decided, decoded or replayed
(:func:`redecode.lazy.module`), and ``versions`` reads only data modules (:mod:`redecode.params`,
:mod:`redecode.tld`, the detectors' versions): every run needs its rule set's digest, and one that
reads no record needs nothing more (issue 27; ``tests/test_cli_startup.py``).

Errors: ``Decoded.errors`` is the exact number of U+FFFD the decoder inserted (Encoding Standard
decoders count them; Python codecs use the error handler ``redecode-count``, which is Python's
``replace`` handler plus a counter, so the text is identical to ``errors="replace"``). U+FFFD
already present in the input (``EF BF BD`` in UTF-8) is not counted.
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
from functools import cache
from typing import TYPE_CHECKING, Any

from . import aliases as _aliases
from . import detect as _detect
from . import lazy as _lazy
from . import siblings as _siblings
from .dataclass_code import dataclass
from .labels import get_encoding
from .mime import text_kind
from .params import AuthorParams
from .tld import DEFAULT_ENCODING, TLD_DEFAULTS

if TYPE_CHECKING:
    from .sniff import CodecDecision, Decision, Facts

# The decision and the decoders, imported where a record is first decided, decoded or replayed: a
# rule set's digest (its versions) needs only the modules above, and a run that reads no record
# needs no more (issue 27's empty run; redecode.lazy).
_decode = _lazy.module(__name__, "_decode", "redecode.decode")
_equivalence = _lazy.module(__name__, "_equivalence", "redecode.equivalence")
_prescan = _lazy.module(__name__, "_prescan", "redecode.prescan")
_sniff = _lazy.module(__name__, "_sniff", "redecode.sniff")
_validate = _lazy.module(__name__, "_validate", "redecode.validate")

#: What the methods take as ``rules``: a :class:`redecode.rules.Rules` (its parameters, ``name``,
#: ``decide``/``decode``/``versions``). Not imported here: the rules module is built on this one.
Rules = Any

__all__ = [
    "PROCEDURES",
    "SEED_LABEL_MAP",
    "Author",
    "Browser",
    "CodecDecision",
    "Decoded",
    "DecodedUtf8",
    "Procedure",
    "RequestsText",
    "SeedDecodeHtml",
    "python_decode",
    "requests_parse_content_type",
    "text_codec",
]


def __getattr__(name: str) -> Any:
    # (CodecDecision, which this module re-exports, from redecode.sniff on first use: see above)
    if name == "CodecDecision":
        return _sniff.CodecDecision
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
class DecodedUtf8:
    """:class:`Decoded` with the text as UTF-8 bytes (``utf8``) and its length in code points
    (``length``) instead of a ``str``; made by :meth:`Procedure.decode_utf8`. The other fields are
    :class:`Decoded`'s."""

    utf8: bytes
    length: int
    encoding: str | None
    decoder: str
    errors: int
    bom_removed: bool


# --- decoding with Python codecs ---------------------------------------------------------

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


@cache
def text_codec(label: str) -> str | None:
    """Python's codec (``codecs.lookup(label).name``) for *label* if it is a usable text codec
    (not ``base64``, ``rot13``, ``undefined``...), else None."""
    try:
        info = codecs.lookup(label)
    except (LookupError, TypeError, ValueError):
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name == "undefined":
        return None
    return info.name


#: BOM (:func:`redecode.decode.bom_sniff`'s answer) -> the Python codec it means and its length.
_BOM_CODECS = {"UTF-8": ("utf-8", 3), "UTF-16LE": ("utf-16-le", 2), "UTF-16BE": ("utf-16-be", 2)}


def _codec_decision(**kw: Any) -> CodecDecision:
    codec = kw["codec"]
    kw.setdefault("encoding", _detect.standard_encoding(codec)[0])
    kw.setdefault("confidence", "certain" if kw["source"] in ("bom", "transport") else "tentative")
    return _sniff.CodecDecision(**kw)


#: (label, Python codec, text) declared pages that :meth:`Procedure.preload` decides and decodes.
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


# --- the protocol ------------------------------------------------------------------------


class Procedure:
    """A decision procedure. Subclasses set :attr:`name` and :attr:`uses` and implement
    :meth:`decide` (and :meth:`replay` when decisions can be replayed from a stored row); the
    defaults here decode with the rule set's ``decoders``, report the browser's facts, fill the
    standard decision columns and replay nothing. Methods take the :class:`redecode.rules.Rules`
    whose parameters apply; none raises on any payload for a rule set it was made for."""

    #: The name ``Rules.procedure`` gives.
    name: str = ""
    #: The ``Rules`` fields this procedure reads; the others hold their neutral value (None, ``()``).
    uses: tuple[str, ...] = ()

    def versions(self, rules: Rules) -> dict[str, str]:
        """Versions of data the procedure reads besides the rule set's parameters (into the digest)."""
        return {}

    def decide(self, rules: Rules, payload: bytes, content_type: Sequence[str], url: str | None,
               kind: str) -> Decision:
        """Decide *payload*'s encoding (arguments as :meth:`redecode.rules.Rules.decide`)."""
        raise NotImplementedError

    def decode(self, rules: Rules, payload: bytes, decision: Decision) -> Decoded:
        """Decode *payload* as *decision* says: the Encoding Standard's "decode" (BOM sniff, then
        the decoder) for ``decoders="whatwg"``; for ``"python"``, the decision's Python codec with
        ``errors="replace"`` after removing the BOM the decision names (``TypeError`` for a decision
        without ``codec``)."""
        data = bytes(payload)
        if rules.decoders == "whatwg":
            r = _decode.decode(data, decision.encoding, bom_sniff=True)
            return Decoded(text=r.text, encoding=r.encoding, decoder="whatwg", errors=r.errors,
                           bom_removed=r.bom_removed)
        if not isinstance(decision, _sniff.CodecDecision):
            raise TypeError(f"rules {rules.name!r} decode Python-codec decisions (CodecDecision), "
                            f"got {type(decision).__name__}")
        return self._codec_decode(data, decision)

    def decode_utf8(self, rules: Rules, payload: bytes, decision: Decision) -> DecodedUtf8 | None:
        """:meth:`decode`, the text given as UTF-8 bytes without building a ``str``
        (:func:`redecode.decode.decode_to_utf8`): ``utf8`` equals ``decode(...).text.encode("utf-8")``
        and ``length`` its ``len``. None where only :meth:`decode` can answer (Python-codec rule
        sets, no compiled core, UTF-16, replacement)."""
        if rules.decoders != "whatwg":
            return None
        r = _decode.decode_to_utf8(payload, decision.encoding, bom_sniff=True)
        if r is None:
            return None
        return DecodedUtf8(utf8=r.utf8, length=r.length, encoding=r.encoding, decoder="whatwg", errors=r.errors,
                           bom_removed=r.bom_removed)

    def decide_and_decode(self, rules: Rules, payload: bytes, content_type: Sequence[str],
                          url: str | None, kind: str, *,
                          utf8_text: bool = False) -> tuple[Decision, Decoded | DecodedUtf8]:
        """``(decide(...), decode(...))`` (what :func:`redecode.row.record_row` calls); a procedure
        that decodes while it decides overrides it to return that text. With *utf8_text* the text
        may come as :class:`DecodedUtf8` (:meth:`decode_utf8`), for a writer of UTF-8."""
        decision = self.decide(rules, payload, content_type, url, kind)
        if utf8_text:
            decoded = self.decode_utf8(rules, payload, decision)
            if decoded is not None:
                return decision, decoded
        return decision, self.decode(rules, payload, decision)

    def _codec_decode(self, data: bytes, decision: CodecDecision) -> Decoded:
        body, bom_removed = data, False
        if decision.source == "bom" and decision.bom is not None:
            body, bom_removed = data[_BOM_CODECS[decision.bom][1]:], True
        text, errors = python_decode(body, decision.codec)
        return Decoded(text=text, encoding=decision.encoding, decoder=f"python:{decision.codec}",
                       errors=errors, bom_removed=bom_removed)

    def facts(self, rules: Rules, payload: bytes, decision: Decision, content_type: Sequence[str],
              url: str | None, kind: str) -> Decision:
        """The declaration facts of *payload* (:data:`redecode.schema.FACT_COLUMNS`), found by the
        HTML Standard's algorithms whatever the rules (the browser rules' decision,
        :meth:`redecode.rules.Rules.browser`, whose encoding is ``browser_encoding``): rules that
        read declarations otherwise (the seed's regexes) or not at all (requests) still get them,
        so one query finds every record a rule change would touch and a decision can be replayed
        without reading the archive."""
        return rules.browser().decide(payload, content_type=content_type, url=url, kind=kind)

    def fill(self, row: dict, decision: Decision, decoded: Decoded | DecodedUtf8) -> None:
        """Set the row's :data:`redecode.schema.DECISION_COLUMNS` from *decision* and *decoded*
        (a :class:`DecodedUtf8` sets ``text`` None and ``text_length`` its length; the caller
        keeps its UTF-8 bytes, :func:`redecode.row.record_row`)."""
        row["encoding"] = decoded.encoding
        row["source"] = decision.source
        row["confidence"] = decision.confidence
        row["conflict"] = list(decision.conflict)
        row["detector"] = decision.detector
        row["detector_confidence"] = decision.detector_confidence
        row["decoder"] = decoded.decoder
        row["decode_errors"] = decoded.errors
        if type(decoded) is DecodedUtf8:
            # (the text only as UTF-8 bytes, which record_row keeps: its length is known here)
            row["text"] = None
            row["text_length"] = decoded.length
        else:
            row["text"] = decoded.text
        row["validation"] = decision.validation
        row["stretches"] = [{"offset": o, "length": n, "encoding": e} for o, n, e in decision.stretches]
        row["verdict"] = decision.verdict

    def replay(self, row: dict, old: Rules, new: Rules) -> dict | None:
        """The :data:`redecode.schema.DECISION_COLUMNS` that ``new`` (whose procedure this is) gives
        the record of the stored, decoded *row* made by ``old``, from the row alone; None when
        the record must be read again. Used by :mod:`redecode.backfill`."""
        return None

    def preload(self, rules: Rules) -> None:
        """Load now what :meth:`decide` and :meth:`decode` otherwise load on their first record:
        the detector engines (charset-normalizer imports every Python codec), the multi-byte
        decoders and their tables, the Python codecs the fast paths use. Decides and decodes a few
        built-in samples (an undeclared windows-1252 page, one declared page per multi-byte
        encoding); their results are dropped and nothing later depends on them."""
        if rules.detector is not None:
            _detect.preload(rules.detector)
        browser = rules.browser()
        if browser is not rules:  # every row also records the browser rules' answer
            browser.steps.preload(browser)
        undeclared = ("<p>" + "Grüße aus Köln, schöne Straße. " * 8 + "</p>").encode("cp1252")
        rules.decode(undeclared, rules.decide(undeclared, url="http://example.de/"))
        for label, codec, text in _PRELOAD_SAMPLES:
            payload = f"<p>{text}</p>".encode(codec)
            decision = rules.decide(payload, content_type=(f"text/html; charset={label}",))
            rules.decode(payload, decision)

    # -- for replay implementations --

    @staticmethod
    def replayed(row: dict, old: Rules, new: Rules, decision: Decision | CodecDecision,
                 key: tuple[str, str]) -> dict | None:
        """The decision columns of a replayed *decision* whose text decoder *key* would make
        (``("whatwg", encoding)`` or ``("python", codec)``), when that decoder provably gives the
        prior row's text (:func:`redecode.equivalence.same_text`); else None."""
        old_key = _equivalence.decoder_key(row.get("decoder"), row.get("encoding"))
        if old_key is None or row.get("stretches"):  # (a row read in parts: no one decoder's text)
            return None
        vo, vn = old.versions(), new.versions()
        same_version = (vo["decoder"], vo["encoding_standard"]) == (vn["decoder"], vn["encoding_standard"])
        if not _equivalence.same_text(old_key, key, errors=row["decode_errors"] or 0, bom=row.get("bom"),
                         ascii_only=row.get("ascii_only"), same_version=same_version, text=row.get("text")):
            return None
        return {
            "encoding": decision.encoding,
            "source": decision.source,
            "confidence": decision.confidence,
            "conflict": list(decision.conflict),
            "detector": decision.detector,
            "detector_confidence": decision.detector_confidence,
            "decoder": "whatwg" if key[0] == "whatwg" else f"python:{key[1]}",
            "decode_errors": row["decode_errors"],
            "text": row["text"],
            "validation": None,
            "stretches": [],
            "verdict": None,
        }


# --- browser -------------------------------------------------------------------------------


class Browser(Procedure):
    """The HTML Standard's "determining the character encoding" as Chromium implements it
    (:func:`redecode.sniff.decide`: BOM, transport layer, prescan, late-meta head scan, XML
    declaration), then this project's UTF-8 validity step, then detection restricted to Encoding
    Standard encodings (:func:`redecode.detect.detect`) with the TLD as hint, then the TLD default.
    Deviations: those of :mod:`redecode.sniff` and :mod:`redecode.detect`."""

    name = "browser"
    uses = ("decoders", "detector", "detector_allow_utf8", "detector_max_bytes", "detector_min_nonascii",
            "detector_consult_bytes", "tld_hint", "utf8_step", "late_meta", "chromium_tokenizer")

    def versions(self, rules: Rules) -> dict[str, str]:
        # The decision's data tables (the TLD defaults of its last step), so that editing them
        # changes the digest even if DECISION_CODE_VERSION was not bumped.
        return {"tld_defaults": ",".join(f"{k}={e}" for k, e in sorted(TLD_DEFAULTS.items()))
                + f",*={DEFAULT_ENCODING}"}

    def decide(self, rules: Rules, payload: bytes, content_type: Sequence[str], url: str | None,
               kind: str) -> Decision:
        return _sniff.decide(
            payload,
            content_type=content_type,
            url=url,
            kind=kind,
            detector=self._detector(rules),
            utf8_step=bool(rules.utf8_step),
            late_meta=bool(rules.late_meta),
            chromium_tokenizer=bool(rules.chromium_tokenizer),
        )

    def facts(self, rules: Rules, payload: bytes, decision: Decision, content_type: Sequence[str],
              url: str | None, kind: str) -> Decision:
        if rules.utf8_step and rules.late_meta and rules.chromium_tokenizer:
            return decision  # gathered with the defaults: the facts are the decision's
        return super().facts(rules, payload, decision, content_type, url, kind)

    @staticmethod
    def _detector(rules: Rules) -> Callable[[bytes, str | None], Any] | None:
        if rules.detector is None:
            return None
        return _browser_detector(rules.detector, bool(rules.detector_allow_utf8), bool(rules.tld_hint),
                                 rules.detector_max_bytes, rules.detector_min_nonascii,
                                 rules.detector_consult_bytes)

    def replay(self, row: dict, old: Rules, new: Rules) -> dict | None:
        """:func:`redecode.sniff.choose` over the row's declaration columns. The detector's answer
        is taken from the prior row only when the prior rules ran the same detector (every
        ``detector*`` parameter, the TLD hint, the UTF-8 step and the detector version equal) and
        the row was decided by it (``source`` ``detector``, or ``default`` after the detector had
        no answer). Rules that turn off the late-meta scan or Chromium's tokenizer, or decode with
        Python codecs, need the bytes."""
        if not (new.late_meta and new.chromium_tokenizer and new.decoders == "whatwg"):
            return None
        facts = _facts_from_row(row)
        if facts is None:
            return None
        d = _sniff.choose(facts, detection=_prior_detection(row, old, new), utf8_step=bool(new.utf8_step))
        if d is None:
            return None
        return self.replayed(row, old, new, d, ("whatwg", d.encoding))


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


# --- author-2026.12 ----------------------------------------------------------------------------


class Author(Browser):
    """The author's text: the browser's decision checked against the payload and overridden
    where the bytes show a declaration, default or detector answer to be wrong
    (:func:`redecode.validate.decide`, whose docstring gives the steps); the browser rules'
    answer is kept in ``browser_encoding``. Uses the browser's fields plus ``tld_vote``,
    ``min_errors``, ``identity_fallback`` (read by :func:`redecode.row.record_row`) and ``author``
    (the other thresholds, :meth:`redecode.validate.AuthorParams.from_rules`).
    Deviations: from a browser, exactly where :mod:`redecode.validate` says (its purpose)."""

    name = "author"
    uses = Browser.uses + ("tld_vote", "min_errors", "identity_fallback", "author")

    def versions(self, rules: Rules) -> dict[str, str]:
        v = {**super().versions(rules), "author_tables": _author_tables_digest()}
        params = _author_params(rules)
        if params.siblings:
            v["siblings"] = _siblings.table_digest()
        if params.language or params.stretches:
            from . import language as _language  # noqa: PLC0415 - only rule sets that read language

            # the plausibility model (language evidence, the judge of a page's stretches)
            v["language"] = _language.versions()["language"]
        if params.python_codecs:
            # Python's hz and iso2022_kr codecs can change between feature releases
            v["python_codecs"] = f"python@{sys.version_info.major}.{sys.version_info.minor}"
        return v

    def decide(self, rules: Rules, payload: bytes, content_type: Sequence[str], url: str | None,
               kind: str) -> Decision:
        return self._validated(rules, payload, content_type, url, kind).decision

    def decide_and_decode(self, rules: Rules, payload: bytes, content_type: Sequence[str],
                          url: str | None, kind: str, *,
                          utf8_text: bool = False) -> tuple[Decision, Decoded | DecodedUtf8]:
        # (the validation decoded the payload to check it: that decode is the row's text)
        v = self._validated(rules, payload, content_type, url, kind, utf8_text=utf8_text)
        r = v.decoded
        if isinstance(v.decision, _sniff.CodecDecision):  # HZ-GB-2312, ISO-2022-KR (Python's codecs)
            return v.decision, Decoded(text=r.text, encoding=None, decoder=f"python:{v.decision.codec}",
                                       errors=r.errors, bom_removed=r.bom_removed)
        if type(r) is _decode.Utf8DecodeResult:
            return v.decision, DecodedUtf8(utf8=r.utf8, length=r.length, encoding=r.encoding, decoder="whatwg",
                                           errors=r.errors, bom_removed=r.bom_removed)
        return v.decision, Decoded(text=r.text, encoding=r.encoding, decoder="whatwg",
                                   errors=r.errors, bom_removed=r.bom_removed)

    def decode(self, rules: Rules, payload: bytes, decision: Decision) -> Decoded:
        if decision.stretches:
            # Read in parts (redecode.stretches): each stretch with its encoding, the rest with the
            # decision's; a BOM's bytes are dropped, as the decision dropped them.
            from . import stretches as _stretches  # noqa: PLC0415 - (not at start-up: see validate)

            data = bytes(payload)
            bom = _BOM_CODECS[decision.bom][1] if decision.bom is not None else 0
            text, errors = _stretches.read_parts(
                data[bom:], decision.encoding,
                [_stretches.Stretch(o - bom, n, e) for o, n, e in decision.stretches])
            return Decoded(text=text, encoding=decision.encoding, decoder="whatwg", errors=errors,
                           bom_removed=bom > 0)
        if isinstance(decision, _sniff.CodecDecision):  # HZ-GB-2312, ISO-2022-KR (Python's codecs)
            data = bytes(payload)
            body = data[_BOM_CODECS[decision.bom][1]:] if decision.bom else data
            text, errors = python_decode(body, decision.codec)
            return Decoded(text=text, encoding=None, decoder=f"python:{decision.codec}", errors=errors,
                           bom_removed=decision.bom is not None)
        if decision.source == "validated" and decision.bom is not None:
            # The author's rules overrode a BOM: its bytes are dropped, the rest decoded.
            data = bytes(payload)[_BOM_CODECS[decision.bom][1]:]
            r = _decode.decode(data, decision.encoding, bom_sniff=False)
            return Decoded(text=r.text, encoding=r.encoding, decoder="whatwg", errors=r.errors,
                           bom_removed=True)
        return super().decode(rules, payload, decision)

    def facts(self, rules: Rules, payload: bytes, decision: Decision, content_type: Sequence[str],
              url: str | None, kind: str) -> Decision:
        return decision  # gathered with the browser's defaults, browser_encoding set

    def replay(self, row: dict, old: Rules, new: Rules) -> dict | None:
        """The checks read the payload (its decode under each candidate, UTF-8 validity, NUL
        bytes, escape sequences), so the payload is rebuilt from the prior row where its decoder
        is one-to-one: the Encoding Standard's UTF-8 (or Python's) and single-byte decoders with
        no U+FFFD and no BOM but a UTF-8 one (:func:`_rebuilt_payload`); then the decision is made
        again on it, with the row's ``content_type`` (Fetch reads the values joined as the row
        stores them), ``target_uri`` and MIME type. Otherwise None (the record is read again)."""
        if new.decoders != "whatwg":
            return None
        payload = _rebuilt_payload(row)
        kind = text_kind(row.get("mime_type"))
        if payload is None or kind is None:
            return None
        ct = row.get("content_type")
        decision, decoded = self.decide_and_decode(new, payload, (ct,) if ct else (), row.get("target_uri"), kind)
        out: dict = {}
        self.fill(out, decision, decoded)
        return out

    @staticmethod
    def _validated(rules: Rules, payload: bytes, content_type: Sequence[str], url: str | None,
                   kind: str, utf8_text: bool = False) -> "_validate.Validated":
        browser_detector, author_detector, params = _decide_arguments(rules)
        return _validate.decide(
            payload,
            content_type=content_type,
            url=url,
            kind=kind,
            browser_detector=browser_detector,
            author_detector=author_detector,
            params=params,
            utf8_text=utf8_text,
        )


def _decide_arguments(rules: Rules) -> tuple:
    """``(the browser rules' detector, the author detector, the AuthorParams)`` of *rules*, as
    :meth:`Author._validated` passes them to :func:`redecode.validate.decide`: remembered per rule
    set object (the caches by value hash every field of the rules: a few thousand instructions a
    record)."""
    browser = rules.browser()
    hit = _DECIDE_ARGUMENTS.get(id(rules))
    if hit is None or hit[0] is not rules or hit[1] is not browser:
        hit = _DECIDE_ARGUMENTS[id(rules)] = (
            rules, browser, (Browser._detector(browser), _author_detector(rules), _author_params(rules)))
    return hit[2]


#: id(rules) -> (rules, the browser rules, the decide arguments): the objects are held, so their
#: ids are not reused
_DECIDE_ARGUMENTS: dict[int, tuple[Rules, Rules, tuple]] = {}


#: single-byte encoding -> {character: byte} for those whose decoder is one-to-one (no two bytes
#: give one character), from the Encoding Standard's indexes: a decode without U+FFFD encodes back.
_SINGLE_BYTE_INVERSE: dict[str, dict[str, int]] = {}


def _inverse(encoding: str) -> dict[str, int] | None:
    inv = _SINGLE_BYTE_INVERSE.get(encoding)
    if inv is None:
        text = _decode.decode(bytes(range(256)), encoding, bom_sniff=False).text
        if len(text) != 256 or len(set(text)) != 256 or "\ufffd" in text:
            _SINGLE_BYTE_INVERSE[encoding] = {}
            return None
        inv = _SINGLE_BYTE_INVERSE[encoding] = {c: b for b, c in enumerate(text)}
    return inv or None


def _rebuilt_payload(row: dict) -> bytes | None:
    """The payload of a decoded *row*, rebuilt from its text where its decoder is one-to-one, or
    None. UTF-8 (``whatwg`` or ``python:utf-8``) without U+FFFD: the text's UTF-8, after a UTF-8
    BOM when the row had one; a single-byte Encoding Standard encoding without U+FFFD and without
    a BOM: each character's byte (every byte of those decoders gives a character of its own)."""
    text = row.get("text")
    if text is None or row.get("decode_errors") != 0 or row.get("stretches"):
        return None
    decoder, encoding, bom = row.get("decoder"), row.get("encoding"), row.get("bom")
    if encoding == "UTF-8" and decoder in ("whatwg", "python:utf-8") and bom in (None, "UTF-8"):
        try:
            body = text.encode("utf-8")
        except UnicodeEncodeError:  # (a text of this project's never holds a lone surrogate)
            return None
        return b"\xef\xbb\xbf" + body if bom == "UTF-8" else body
    if decoder != "whatwg" or bom is not None or encoding is None or _decode.decoder_family(encoding) != "single-byte":
        return None
    inv = _inverse(encoding)
    if inv is None:
        return None
    try:
        return bytes(inv[c] for c in text)
    except KeyError:
        return None


def _author_detector(rules: Rules) -> Callable[[bytes, str | None], Any] | None:
    if rules.detector is None:
        return None
    return _browser_detector(rules.detector, bool(rules.detector_allow_utf8), bool(rules.tld_hint),
                             rules.detector_max_bytes, rules.detector_min_nonascii,
                             rules.detector_consult_bytes, rules.tld_vote)


@cache
def _author_params(rules: Rules) -> AuthorParams:
    return AuthorParams.from_rules(rules)


@cache
def _author_tables_digest() -> str:
    doc = json.dumps({"aliases": _aliases.ALIASES, "tld": _aliases.FIREFOX_TLD_FALLBACKS},
                     sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(doc.encode("ascii")).hexdigest()[:16]


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
        meta_enc = _prescan.META_REMAP.get(meta_enc, meta_enc)
    return _sniff.Facts(
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


def _detector_parameters(rules: Rules) -> tuple:
    """The rules' parameters that change a detector's answer: every ``detector*`` field, the TLD
    hint and the UTF-8 step (which decides whether the detector is asked)."""
    return tuple(getattr(rules, f.name) for f in dataclasses.fields(rules)
                 if f.name.startswith("detector") or f.name in ("tld_hint", "utf8_step"))


def _prior_detection(row: dict, old: Rules, new: Rules):
    """The detector's answer for this row's payload under *new*, from the prior row, or
    :data:`redecode.sniff.NEEDED`."""
    same = (old.procedure == new.procedure == Browser.name
            and _detector_parameters(old) == _detector_parameters(new)
            and old.versions().get("detector") == new.versions().get("detector"))
    if not same:
        return _sniff.NEEDED
    if row["source"] == "detector" and row.get("detector") is not None:
        return _sniff.Detection(row["encoding"], row["detector_confidence"], row["detector"])
    if row["source"] == "default" and row.get("ascii_only") is False and row.get("utf8_valid") is not True:
        return None  # the detector ran and had no answer
    return _sniff.NEEDED


# --- seed-2026.10 ----------------------------------------------------------------------------

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


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class SeedDecodeHtml(Procedure):
    """The ``decode_html`` function of the article this project started from, with Python codecs,
    so that decodes made by that code can be replayed and diffed. Reconstructed (the article's
    code is not in this repository; this is the function as the article describes it), steps in
    this order:

    1. BOM: ``EF BB BF`` -> UTF-8; ``FF FE`` -> UTF-16LE; ``FE FF`` -> UTF-16BE (the BOM is not part
       of the text). No UTF-32 check.
    2. Header: ``re.search(header_pattern, content_type, re.I)`` on the first Content-Type value
       (``charset=[\\"']?([^\\"';\\s]+)``).
    3. Meta: ``re.search(meta_pattern, data[:meta_window], re.I)``
       (``<meta[^>]+charset=[\\"']?([\\w-]+)`` over 1024 bytes, so
       ``<meta name="description" content="charset=gbk">`` counts, unlike in a browser).
    4. Each label found (header first, then meta) goes through ``label_map`` (:data:`SEED_LABEL_MAP`,
       lower-cased, stripped), then ``codecs.lookup``; the first that Python knows (and that is a
       text encoding) decodes the page with ``errors="replace"``.
    5. Else strict UTF-8, if the payload is valid UTF-8.
    6. Else charset-normalizer's best guess (``from_bytes(data).best().encoding``), decoded with
       ``errors="replace"``.
    7. Else ``fallback_codec`` (cp1252) with ``errors="replace"`` (Python's cp1252 has no mapping for
       0x81, 0x8D, 0x8F, 0x90, 0x9D, so those become U+FFFD, unlike the Encoding Standard's
       windows-1252).

    Decision vocabulary: ``source`` ``bom`` / ``transport`` (the header regex) / ``prescan`` (the
    meta regex) / ``utf8-valid`` / ``detector`` / ``default``; ``confidence`` ``certain`` for
    bom/transport, else ``tentative``; ``encoding`` the Encoding Standard encoding that names the
    Python codec used (:func:`redecode.detect.standard_encoding`), or None when it has none.

    Deviations: a label that Python resolves to a non-text codec (``base64``, ``rot13``...) or to
    ``undefined`` is skipped as unknown (the seed function would have raised); :data:`SEED_LABEL_MAP`
    has the 14 labels issue 3 lists for what it calls a 15-label map. Its meta regex is not stored,
    so its decisions are never replayed (``replay`` gives None).
    """

    name = "seed-decode-html"
    uses = ("decoders", "detector", "label_map", "header_pattern", "meta_pattern", "meta_window",
            "fallback_codec")

    def decide(self, rules: Rules, payload: bytes, content_type: Sequence[str], url: str | None,
               kind: str) -> Decision:
        data = bytes(payload)
        common: dict[str, Any] = {"ascii_only": data.isascii(), "tld": None}
        bom = _decode.bom_sniff(data)
        if bom is not None:
            return _codec_decision(source="bom", bom=bom, codec=_BOM_CODECS[bom][0], **common)
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
            codec = self._codec(rules, label)
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
        codec = text_codec(raw.answer) if raw.answer else None
        if codec is not None:
            return _codec_decision(source="detector", codec=codec, utf8_valid=False,
                                   detector=raw.detector, detector_confidence=raw.confidence, **common)
        return _codec_decision(source="default", codec=text_codec(rules.fallback_codec or "cp1252"),
                               utf8_valid=False, **common)

    @staticmethod
    def _codec(rules: Rules, label: str) -> str | None:
        key = label.strip().lower()
        return text_codec(dict(rules.label_map).get(key, key))


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


class RequestsText(Procedure):
    """What ``requests.Response.text`` returns (requests 2.32, no ``chardet`` installed so
    ``charset_normalizer`` detects), the most common prior decode. Reproduced from requests 2.32
    (``requests/utils.py`` ``_parse_content_type_header`` and ``get_encoding_from_headers``;
    ``requests/models.py`` ``Response.text`` and ``apparent_encoding``; ``requests/compat.py``
    imports ``chardet``, else ``charset_normalizer`` as ``chardet``):

    1. ``encoding = get_encoding_from_headers(headers)``: the Content-Type value (repeated headers
       joined with ``", "`` as urllib3's ``HTTPHeaderDict`` does) is split on ``;``; each parameter
       ``key=value`` has ``"' `` stripped from both; the last ``charset`` wins and is stripped of
       quotes again. No charset: ``text_default`` (``"ISO-8859-1"``) if ``"text"`` is a substring
       of the (not lower-cased) media type; ``json_default`` (``"utf-8"``) if
       ``"application/json"`` is; else None.
    2. Empty content: ``""``.
    3. ``encoding`` None: ``charset_normalizer.detect(content)["encoding"]``.
    4. ``str(content, encoding, errors="replace")``; on ``LookupError``/``TypeError`` (unknown
       label, or no detection answer) ``str(content, errors="replace")``, i.e. ``fallback_codec``
       (UTF-8).

    ``ISO-8859-1`` is Python's latin-1 (0x80-0x9F become C1 controls), recorded as
    ``decoder="python:iso8859-1"`` and ``encoding="windows-1252"`` (the standard encoding that
    label names), so a diff shows where requests' text differs from the standard's. Decision
    vocabulary as :class:`SeedDecodeHtml`'s (``default``: the ISO-8859-1 / utf-8 defaults and the
    UTF-8 fallback after an unknown label).

    Deviations: a Content-Type ``charset`` parameter without ``=`` makes requests raise
    (``True.strip``); here it counts as no charset. A leading U+FEFF that a UTF-8/UTF-16 codec
    decoded from the payload's BOM is removed (the output's ``text`` never starts with a BOM;
    ``bom_removed`` says so); requests keeps it. Under ISO-8859-1 a BOM decodes to ``ï»¿`` and is
    kept.
    """

    name = "requests-text"
    uses = ("decoders", "detector", "fallback_codec", "text_default", "json_default")

    def decide(self, rules: Rules, payload: bytes, content_type: Sequence[str], url: str | None,
               kind: str) -> Decision:
        data = bytes(payload)
        common: dict[str, Any] = {"ascii_only": data.isascii(), "tld": None, "bom": _decode.bom_sniff(data)}
        encoding, source, header_charset = self._from_header(rules, ", ".join(content_type) if content_type else None)
        if header_charset is not None:
            common["header_charset"] = header_charset
        det: dict[str, Any] = {}
        if encoding is None:
            if not data:
                return _codec_decision(source="default", codec=text_codec("utf-8"), **common)
            answer, conf = _detect.chardet_compatible(data)
            det = {"detector": _detect.detector_id(rules.detector or "charset-normalizer"),
                   "detector_confidence": conf}
            encoding, source = answer, "detector"
        codec = text_codec(encoding) if encoding else None
        if codec is None or not _python_can_decode(codec):
            ignored = (encoding,) if encoding else ()
            return _codec_decision(source="default", codec=rules.fallback_codec or "utf-8",
                                   ignored_labels=ignored, **common, **det)
        return _codec_decision(source=source, codec=codec, **common, **det)

    @staticmethod
    def _from_header(rules: Rules, header: str | None) -> tuple[str | None, str, str | None]:
        """``(encoding or None, source, charset as found or None)`` of requests'
        ``get_encoding_from_headers`` on the joined Content-Type *header*."""
        encoding: str | None = None
        source = "default"
        charset = None
        if header:
            media, params = requests_parse_content_type(header)
            value = params.get("charset")
            # ``charset`` with no "=" is True in requests; True.strip() would raise there
            # (AttributeError inside Response.text's caller). Treat it as no usable label.
            if isinstance(value, str):
                encoding = charset = value.strip("'\"")
                source = "transport"
            if encoding is None and "text" in media:
                encoding = rules.text_default
            elif encoding is None and "application/json" in media:
                encoding = rules.json_default
        return encoding, source, charset

    def _codec_decode(self, data: bytes, decision: CodecDecision) -> Decoded:
        if not data:
            return Decoded(text="", encoding=decision.encoding, decoder=f"python:{decision.codec}",
                           errors=0, bom_removed=False)
        d = super()._codec_decode(data, decision)
        if decision.bom is not None and d.text.startswith("\ufeff") and decision.codec.startswith("utf"):
            return Decoded(text=d.text[1:], encoding=d.encoding, decoder=d.decoder, errors=d.errors,
                           bom_removed=True)
        return d

    def replay(self, row: dict, old: Rules, new: Rules) -> dict | None:
        """:meth:`decide` from the stored ``content_type`` (values joined with ``", "``, exactly as
        requests sees them) instead of the payload; a decision that needs detection needs the
        bytes."""
        encoding, source, _ = self._from_header(new, row.get("content_type"))
        if encoding is None:
            return None
        codec = text_codec(encoding) if encoding else None
        if codec is None or not _python_can_decode(codec):
            codec, source = new.fallback_codec or "utf-8", "default"
        decision = _codec_decision(source=source, codec=codec)
        return self.replayed(row, old, new, decision, ("python", codec))


#: The procedures by name (``Rules.procedure``).
PROCEDURES: dict[str, Procedure] = {p.name: p for p in (Author(), Browser(), SeedDecodeHtml(), RequestsText())}
