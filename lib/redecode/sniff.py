"""The encoding decision: HTML "determining the character encoding" as browsers do it, plus this
project's steps for pages that declare nothing.

Spec concept -> function:

=======================================================================  ======================
concept                                                                  here
=======================================================================  ======================
HTML Standard "determining the character encoding" (BOM sniff,           :func:`decide`
  transport layer, prescan, XML declaration, "otherwise" steps)          (= :func:`choose` of
                                                                          :func:`gather`)
HTML Standard "BOM sniff" (Encoding Standard: UTF-8, UTF-16BE/LE only)   :func:`bom_sniff`
the default for a page that declares nothing, by top-level domain        :data:`TLD_DEFAULTS`,
                                                                          :func:`default_encoding`
the top-level domain of a record's URL                                   :func:`tld_of`
=======================================================================  ======================

The order (the step that decided goes into :attr:`Decision.source`):

1. ``bom`` - ``EF BB BF`` UTF-8, ``FE FF`` UTF-16BE, ``FF FE`` UTF-16LE (``FF FE 00 00`` too:
   the Encoding Standard has no UTF-32). Certain; beats the header.
2. ``transport`` - the ``charset`` of Content-Type (Fetch "extract a MIME type" over all its
   values, :mod:`redecode.mime`), looked up with Encoding Standard "get an encoding". Certain.
   ``x-user-defined`` there means the x-user-defined decoder; ``utf-16`` means UTF-16LE (its
   label). An unknown label is ignored and kept in ``ignored_labels``.
3. ``prescan`` - a ``<meta>`` in the first 1024 bytes (:func:`redecode.prescan.prescan`, Chromium's
   tokenizing variant). Tentative.
4. ``head-scan`` - a ``<meta>`` after that, while only head content has been seen (Chromium's
   late-meta scan, :func:`redecode.prescan.head_scan`). Tentative.
5. ``xml-declaration`` - ``<?xml ... encoding="..."?>`` at byte 0 when no meta declared
   (Chromium, for text/html; a UTF-16 label there means UTF-8), or the bytes ``<?x`` in UTF-16
   without BOM (the prescan's first step). Tentative.
6. ``utf8-valid`` - nothing declared, the payload is valid UTF-8 with at least one non-ASCII
   byte. Tentative. (Deviation, below.)
7. ``detector`` - the *detector* callable's answer, given the TLD. Tentative.
8. ``default`` - by TLD (:data:`TLD_DEFAULTS`), else windows-1252. Tentative. Pure-ASCII pages
   that declare nothing land here without asking the detector (their text is the same in every
   ASCII-compatible encoding).

``kind="text"`` (text/plain and other text): steps 3-5 are skipped. ``kind="xml"`` (XML media
types): XML's own order, BOM, transport, XML declaration (certain: an XML processor never
re-decodes), then UTF-8 (``default``, certain).

Every declaration examined is recorded whether it decided or not: ``header_charset``,
``meta_charset`` + ``meta_offset``, ``xml_charset`` (raw labels as found), unknown labels in
``ignored_labels``, and declarations naming another encoding than the decision in ``conflict``
as ``"where:label"`` (``where`` is the step name: ``transport``, ``prescan``, ``head-scan``,
``xml-declaration``). The prescan window and the XML declaration are always examined (a
``<meta charset=big5>`` under a ``charset=utf-8`` header is a recorded conflict); the head scan
past byte 1024 runs only when the BOM and the header have not decided, as in a browser, so a
late meta on a page whose header decided is not recorded (it costs a scan of the head for a
declaration no browser reads).

Speed (the issue's target: a median under 20 microseconds per record without detection,
``tests/benchmarks/bench_decide.py``): :func:`decide` calls the positional ``_gather`` and
``_choose``; the Content-Type charset and its encoding are cached per distinct header value list,
labels per distinct label (:func:`redecode.labels.get_encoding`); :func:`tld_of` reads the usual
URL shape with one regular expression; a :class:`Decision` is built by plain attribute stores
(``_new_decision``); the prescan has its own fast path (:mod:`redecode.prescan`). None of this
changes a result: ``tests/test_sniff_fast.py`` compares each with the code it replaces.

Deviations (from what a browser does):
    * Step 6 (``utf8-valid``) is ours: Chromium shows undeclared UTF-8 as windows-1252 on
      ``.com`` and Shift_JIS on ``.jp``; a re-decode exists to recover the author's text. Off
      with ``utf8_step=False``. Pinned by ``test_sniff.py::test_precedence``.
    * Step 7 replaces the browser's own detector (Chromium's CED; Firefox's chardetng) by the one
      the rules choose. Step 8's TLD table holds only the TLDs measured in Chromium (see
      :data:`TLD_DEFAULTS`).
    * The meta scan follows Chromium where it departs from the standard's prescan (raw text,
      comments ending at ``--!>``, character references in a meta's values, late metas); see
      :mod:`redecode.prescan`. ``chromium_tokenizer=False`` and
      ``late_meta=False`` give the standard's literal prescan.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Sequence
from dataclasses import fields
from operator import attrgetter
from typing import NamedTuple

from . import native
from .dataclass_code import dataclass, unchecked_new
from .decode import bom_sniff
from .labels import get_encoding
from .mime import extract_mime_type
from .prescan import WINDOW, MetaResult, head_scan, prescan, xml_declaration
from .tld import DEFAULT_ENCODING, TLD_DEFAULTS, default_encoding, tld_of

__all__ = [
    "DEFAULT_ENCODING",
    "SOURCES",
    "TLD_DEFAULTS",
    "CodecDecision",
    "Decision",
    "Detection",
    "Detector",
    "Facts",
    "NEEDED",
    "bom_sniff",
    "choose",
    "decide",
    "gather",
    "default_encoding",
    "amend",
    "tld_of",
]

#: The values of :attr:`Decision.source`, in precedence order; ``validated`` is the author's-text
#: rules' override (:mod:`redecode.validate`), which comes after all of them, and ``parts`` their
#: reading of a page in parts (:mod:`redecode.stretches`), after that.
SOURCES = ("bom", "transport", "prescan", "head-scan", "xml-declaration", "utf8-valid", "detector", "default",
           "validated", "parts")



@dataclass(frozen=True, slots=True)
class Detection:
    """A statistical detector's answer: ``encoding`` (WHATWG name), ``confidence`` in 0..1 and
    ``detector`` as ``"name@version"``. Returned by :func:`redecode.detect.detect`."""

    encoding: str
    confidence: float
    detector: str


#: A detector as :func:`decide` calls it: ``detector(payload, tld) -> Detection | None``.
Detector = Callable[[bytes, "str | None"], "Detection | None"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """How a record's encoding was chosen (docs/DESIGN.md "The Decision").

    ``encoding`` WHATWG name; ``source`` one of :data:`SOURCES`; ``confidence`` ``certain`` /
    ``tentative`` / ``irrelevant`` (HTML Standard words); ``bom`` ``UTF-8``/``UTF-16BE``/
    ``UTF-16LE`` or None; ``header_charset`` raw ``charset`` of Content-Type (also when it named
    no encoding); ``meta_charset`` raw label of the meta that declared a known encoding (with
    Chromium's tokenizer, its character references decoded: the label looked up), and
    ``meta_offset`` its byte offset; ``xml_charset`` raw label of the XML declaration;
    ``ignored_labels`` raw labels that named no encoding (header first, then metas, then the XML
    declaration); ``conflict`` ``"where:label"`` for each declaration naming another encoding
    than ``encoding``; ``detector``/``detector_confidence`` when a detector was asked; ``tld``;
    ``utf8_valid`` and ``ascii_only`` when examined, else None; ``meta_source`` ``prescan`` or
    ``head-scan`` for the meta in ``meta_charset`` (None without one); ``xml_encoding`` the
    WHATWG encoding the XML declaration (or a UTF-16 ``<?x`` pattern, which has no label) names,
    None for none or an unknown label. The last two are what a stored row needs to replay the
    decision (:func:`choose`, used by :mod:`redecode.backfill`). ``browser_encoding``: what the
    browser rules pick for the same record (:func:`decide` and :func:`choose` set it to their own
    ``encoding``; the author's-text rules keep the browser's there); ``validation``: why the
    author's-text rules kept or overrode a declaration (:mod:`redecode.validate`), None otherwise;
    ``verdict``: its outcome (``overridden``, ``kept``, ``unresolved``; :attr:`redecode.validate.Verdict.outcome`),
    None when nothing was checked; ``stretches``: where those rules read a page in parts (``source`` ``parts``), each stretch
    read with another encoding than ``encoding`` as ``(offset, length, encoding)`` (bytes of the
    payload, a BOM included; :mod:`redecode.stretches`), else ``()``.
    """

    encoding: str
    source: str
    confidence: str
    bom: str | None = None
    header_charset: str | None = None
    meta_charset: str | None = None
    meta_offset: int | None = None
    xml_charset: str | None = None
    ignored_labels: tuple[str, ...] = ()
    conflict: tuple[str, ...] = ()
    detector: str | None = None
    detector_confidence: float | None = None
    tld: str | None = None
    utf8_valid: bool | None = None
    ascii_only: bool | None = None
    # Added for replaying decisions (redecode.backfill); after the DESIGN.md fields so that
    # positional construction of the older fields is unchanged.
    meta_source: str | None = None
    xml_encoding: str | None = None
    # Added for the author's-text rules (redecode.validate).
    browser_encoding: str | None = None
    validation: str | None = None
    # Added for language as evidence (issue 30).
    verdict: str | None = None
    # Added for pages in two encodings (issue 29).
    stretches: tuple[tuple[int, int, str], ...] = ()



@dataclass(frozen=True, slots=True, kw_only=True)
class CodecDecision(Decision):
    """A :class:`Decision` whose text a Python codec makes: ``codec`` is the Python codec
    (``codecs.lookup(x).name``) that decodes the payload; ``encoding`` the Encoding Standard
    encoding that names it, or None where none does. Made by the Python-codec rule sets
    (:mod:`redecode.procedures`) and by the author's-text rules for HZ-GB-2312 and ISO-2022-KR
    (:mod:`redecode.validate`)."""

    codec: str







def _utf8_valid(payload: bytes) -> bool:
    """Whether *payload* is entirely valid UTF-8 (Python's UTF-8 decoder rejects surrogates and
    overlongs, as the Encoding Standard's does). Large payloads are checked 1 MiB at a time so
    that the check never holds a decoded copy of a 100 MB record."""
    try:
        if len(payload) <= _UTF8_CHUNK:
            payload.decode("utf-8")
            return True
        dec = codecs.getincrementaldecoder("utf-8")("strict")
        view = memoryview(payload)
        for i in range(0, len(payload), _UTF8_CHUNK):
            dec.decode(view[i : i + _UTF8_CHUNK])
        dec.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


_UTF8_CHUNK = 1 << 20
_utf8_valid_pure = _utf8_valid  # the reference (tests/test_core.py)

if native.core is not None:
    _utf8_errors = native.core.utf8_errors

    def _utf8_valid(payload: bytes) -> bool:  # noqa: F811 - the compiled core's, same answers
        """Whether *payload* (bytes) is entirely valid UTF-8: the compiled core's UTF-8 decoder,
        counting only (no text built; stops at the first error)."""
        return _utf8_errors(payload, True) == 0


class Facts(NamedTuple):
    """What :func:`gather` found in one record: everything :func:`choose` needs but a detector's
    answer. Every field is also an output column (``header_encoding`` and ``meta_encoding`` are
    recomputed from the raw labels by "get an encoding"), so a decision can be replayed from a
    stored row (:mod:`redecode.backfill`).

    ``kind`` ``html``/``xml``/``text``; ``bom``; ``header_charset`` raw label and
    ``header_encoding`` its WHATWG name (None: unknown label or no charset); ``meta_charset``,
    ``meta_encoding`` (after the prescan's remaps), ``meta_offset`` (bytes) and ``meta_source``
    (``prescan``/``head-scan``) of the meta that declared a known encoding, all None without one;
    ``xml_charset`` raw label of the XML declaration (None for the UTF-16 ``<?x`` patterns) and
    ``xml_encoding`` what it names (None: none or unknown); ``ignored`` unknown labels in order;
    ``tld``; ``ascii_only`` and ``utf8_valid``: None when not examined (gather examines them only
    when no declaration decides; ``utf8_valid`` only for non-ASCII payloads and with
    ``utf8_step``).
    """

    kind: str
    bom: str | None
    header_charset: str | None
    header_encoding: str | None
    meta_charset: str | None
    meta_encoding: str | None
    meta_offset: int | None
    meta_source: str | None
    xml_charset: str | None
    xml_encoding: str | None
    ignored: tuple[str, ...]
    tld: str | None
    ascii_only: bool | None
    utf8_valid: bool | None


class _Needed:
    """Sentinel type: :func:`choose` was not given the detector's answer."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NEEDED"


#: Default of :func:`choose`'s *detection*: the answer is not known (choose returns None if the
#: decision reaches the detector step).
NEEDED = _Needed()


def gather(
    payload: bytes,
    *,
    content_type: Sequence[str] = (),
    url: str | None = None,
    kind: str = "html",
    utf8_step: bool = True,
    late_meta: bool = True,
    chromium_tokenizer: bool = True,
) -> Facts:
    """The facts of *payload* that :func:`choose` decides from (arguments as for :func:`decide`):
    BOM sniff, Content-Type charset, prescan and (when neither BOM nor header decided) the late-meta
    head scan, XML declaration, TLD, and, only when no declaration decides, ASCII-only and UTF-8
    validity. Raises ValueError for an unknown *kind*; never raises because of the payload."""
    return _gather(payload, content_type, url, kind, utf8_step, late_meta, chromium_tokenizer)


def _gather(
    payload: bytes,
    content_type: Sequence[str],
    url: str | None,
    kind: str,
    utf8_step: bool,
    late_meta: bool,
    chromium_tokenizer: bool,
) -> Facts:
    """:func:`gather` with positional arguments (what :func:`decide` calls)."""
    if kind not in _KINDS:
        raise ValueError(f"kind must be 'html', 'xml' or 'text', not {kind!r}")
    if type(payload) is not bytes:
        payload = bytes(payload)

    bom = bom_sniff(payload) if payload[:1] in _BOM_FIRST else None

    if content_type:
        header_charset, header_enc = _header_facts(content_type)
        ignored = [header_charset] if header_charset is not None and header_enc is None else []
    else:
        header_charset = header_enc = None
        ignored = []
    certain = bom is not None or header_enc is not None

    meta: MetaResult | None = None
    meta_source = None
    if kind == "html":
        meta = prescan(payload, chromium=chromium_tokenizer)
        meta_source = "prescan"
        # Past the window only when the decision can depend on it: a browser reads no meta once
        # the BOM or the header has decided (so a late meta is not recorded on such pages).
        if (
            (meta is None or meta.encoding is None)
            and late_meta
            and not certain
            and len(payload) > WINDOW
        ):
            late = head_scan(payload, chromium=chromium_tokenizer)
            if late is not None:
                meta = late
                if late.encoding is not None and late.end > WINDOW:
                    meta_source = "head-scan"
        if meta is not None:
            if meta.ignored:
                ignored.extend(meta.ignored)
            if meta.encoding is None:
                meta = None

    xml_label = xml_enc = None
    if kind != "text":
        # After a UTF-8 BOM the declaration is still readable; it is recorded, the BOM decides.
        body = payload[3:] if bom == "UTF-8" else payload
        if body.startswith(_XML_STARTS):
            xml = xml_declaration(body)
            if xml is not None:
                xml_label = xml.label
                xml_enc = xml.encoding
                if xml_enc is None:
                    ignored.append(xml_label or "")

    ascii_only = None
    utf8_valid = None
    if not certain and meta is None and xml_enc is None and kind != "xml":
        ascii_only = payload.isascii()
        if not ascii_only and utf8_step:
            utf8_valid = _utf8_valid(payload)

    if meta is None:
        return _new_facts(Facts, (kind, bom, header_charset, header_enc, None, None, None, None, xml_label,
                                  xml_enc, tuple(ignored), tld_of(url), ascii_only, utf8_valid))
    return _new_facts(Facts, (kind, bom, header_charset, header_enc, meta.label, meta.encoding, meta.offset,
                              meta_source, xml_label, xml_enc, tuple(ignored), tld_of(url), ascii_only,
                              utf8_valid))


# Facts(*values) without NamedTuple's generated __new__ (same tuple, half the cost).
_new_facts = tuple.__new__

#: :func:`gather` with its arguments positional, all given (``payload, content_type, url, kind,
#: utf8_step, late_meta, chromium_tokenizer``): what a caller deciding every record calls, without
#: the keyword wrapper
gather_positional = _gather


def _header_facts(values: Sequence[str]) -> tuple[str | None, str | None]:
    """``(charset, encoding)`` of Content-Type header *values*: the raw ``charset`` that Fetch
    "extract a MIME type" gives (:func:`redecode.mime.extract_mime_type`) and its "get an
    encoding" (None for none or an unknown label). Cached per distinct short value list (crawls
    repeat a few dozen Content-Type values)."""
    key = tuple(values)
    hit = _HEADER_FACTS.get(key)
    if hit is None:
        charset = extract_mime_type(key)[1]
        hit = (charset, get_encoding(charset) if charset is not None else None)
        if len(_HEADER_FACTS) < _HEADER_FACTS_MAX and sum(map(len, key)) <= 256:
            _HEADER_FACTS[key] = hit
    return hit


_HEADER_FACTS: dict[tuple[str, ...], tuple[str | None, str | None]] = {}
_HEADER_FACTS_MAX = 4096


def choose(
    facts: Facts,
    *,
    detection: "Detection | None | _Needed | Callable[[], Detection | None]" = NEEDED,
    utf8_step: bool = True,
) -> Decision | None:
    """The decision :func:`decide` makes from *facts* (see the module docstring for the order).

    *detection*: the detector's answer for this payload (a :class:`Detection`, or None when there
    is no detector or it had no answer), a zero-argument callable returning it (called only when
    the decision reaches the detector step), or :data:`NEEDED` when unknown. Returns None ("I need
    the bytes") when the decision needs a fact that *facts* does not hold: ``ascii_only``, or
    ``utf8_valid`` (with *utf8_step*), or the detector's answer. Never raises for facts that
    :func:`gather` made.
    """
    return _choose(facts, detection, utf8_step)


def _choose(
    facts: Facts,
    detection: "Detection | None | _Needed | Callable[[], Detection | None]",
    utf8_step: bool,
) -> Decision | None:
    """:func:`choose` with positional arguments (what :func:`decide` calls)."""
    bom = facts.bom
    header_enc = facts.header_encoding
    meta_enc = facts.meta_encoding
    xml_enc = facts.xml_encoding
    kind = facts.kind
    tld = facts.tld
    utf8_valid = None
    ascii_only = None
    det_name = None
    det_conf = None

    if bom is not None:
        encoding, source, confidence = bom, "bom", "certain"
    elif header_enc is not None:
        encoding, source, confidence = header_enc, "transport", "certain"
    elif meta_enc is not None:
        encoding, source, confidence = meta_enc, facts.meta_source, "tentative"
    elif xml_enc is not None:
        encoding, source = xml_enc, "xml-declaration"
        confidence = "certain" if kind == "xml" else "tentative"
    elif kind == "xml":
        encoding, source, confidence = "UTF-8", "default", "certain"
    else:
        ascii_only = facts.ascii_only
        if ascii_only is None:
            return None
        if ascii_only:
            encoding, source, confidence = default_encoding(tld), "default", "tentative"
        else:
            if utf8_step:
                utf8_valid = facts.utf8_valid
                if utf8_valid is None:
                    return None
            if utf8_valid:
                encoding, source, confidence = "UTF-8", "utf8-valid", "tentative"
            else:
                if detection is NEEDED:
                    return None
                found = detection() if callable(detection) else detection
                if found is not None:
                    encoding, source, confidence = found.encoding, "detector", "tentative"
                    det_name, det_conf = found.detector, found.confidence
                else:
                    encoding, source, confidence = default_encoding(tld), "default", "tentative"

    # Declarations naming another encoding than the decision, in step order.
    conflict: tuple[str, ...] = ()
    if ((header_enc is not None and header_enc != encoding) or (meta_enc is not None and meta_enc != encoding)
            or (xml_enc is not None and xml_enc != encoding)):  # (the usual page: none, no list made)
        c = []
        if header_enc is not None and header_enc != encoding:
            c.append(f"transport:{facts.header_charset}")
        if meta_enc is not None and meta_enc != encoding:
            c.append(f"{facts.meta_source}:{facts.meta_charset}")
        if xml_enc is not None and xml_enc != encoding:
            c.append(f"xml-declaration:{facts.xml_charset or ''}")
        conflict = tuple(c)
    return _new_decision(
        encoding,
        source,
        confidence,
        bom,
        facts.header_charset,
        facts.meta_charset,
        facts.meta_offset,
        facts.xml_charset,
        facts.ignored,
        conflict,
        det_name,
        det_conf,
        tld,
        utf8_valid,
        ascii_only,
        facts.meta_source,
        xml_enc,
        encoding,  # browser_encoding: this is the browser's decision
        None,
        None,
        (),
    )


def amend(decision: Decision, **changes) -> Decision:
    """``dataclasses.replace(decision, **changes)``, several times faster (no ``__init__``, no
    field validation beyond the names): the author's-text rules amend every decision. Raises
    ``TypeError`` for a name that is not a field."""
    values = list(_decision_values(decision))  # (every field at once, in field order)
    for name, value in changes.items():
        at = _DECISION_INDEX.get(name)
        if at is None:
            raise TypeError(f"not Decision fields: {sorted(changes.keys() - _DECISION_FIELD_SET)}")
        values[at] = value
    return _new_decision(*values)


#: :func:`choose` with its arguments positional, all given (``facts, detection, utf8_step``)
choose_positional = _choose


def decide(
    payload: bytes,
    *,
    content_type: Sequence[str] = (),
    url: str | None = None,
    kind: str = "html",
    detector: Detector | None = None,
    utf8_step: bool = True,
    late_meta: bool = True,
    chromium_tokenizer: bool = True,
) -> Decision:
    """Decide the encoding of one record's *payload* (bytes, content codings removed):
    ``choose(gather(payload, ...), detection=...)``.

    *content_type*: every ``Content-Type`` header value of the response, in order (strings as
    read, latin-1); *url*: the record's URL (for the TLD); *kind*: ``"html"``, ``"xml"`` or
    ``"text"`` (:func:`redecode.mime.text_kind`); *detector*: called as
    ``detector(payload, tld)`` only when nothing is declared and the payload is neither pure
    ASCII nor (with *utf8_step*) valid UTF-8; *late_meta*: run the head scan past 1024 bytes;
    *chromium_tokenizer*: skip raw text as Chromium does. See the module docstring for the
    order. Raises ValueError for an unknown *kind*; never raises because of the payload or the
    header values.
    """
    facts = _gather(payload, content_type, url, kind, utf8_step, late_meta, chromium_tokenizer)
    if detector is None:
        detection = None
    else:
        def detection() -> Detection | None:
            return detector(payload if type(payload) is bytes else bytes(payload), facts.tld)
    return _choose(facts, detection, utf8_step)  # type: ignore[return-value]


_KINDS = frozenset(("html", "xml", "text"))
_BOM_FIRST = (b"\xef", b"\xfe", b"\xff")
_XML_STARTS = (b"<?xml", b"<\x00?\x00x\x00", b"\x00<\x00?\x00x")
_DECISION_FIELDS = tuple(f.name for f in fields(Decision))
_DECISION_FIELD_SET = frozenset(_DECISION_FIELDS)
_DECISION_INDEX = {name: i for i, name in enumerate(_DECISION_FIELDS)}
_decision_values = attrgetter(*_DECISION_FIELDS)


#: ``Decision(**dict(zip(fields, values)))`` from positional values in field order, a fifth of
#: ``Decision(**kw)``'s cost (one or more per record)
_new_decision = unchecked_new(Decision)
