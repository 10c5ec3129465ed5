"""Named, immutable, versioned rule sets: which procedure decides a record's encoding, with which
parameters.

Contract. A :class:`Rules` holds every parameter of a decision procedure; its :attr:`Rules.digest`
covers those parameters and the version of everything else that can change the output, so a
stored row's ``rules_digest`` says whether the same rules would still give the same row. The
behaviour is the procedure's (:mod:`redecode.procedures`, looked up by ``Rules.procedure``):
``decide``, ``decode`` and ``preload`` here delegate to it.

=====================  =============================================================================
rules                  what it reproduces
=====================  =============================================================================
``author-2026.12.7``   the default: the author's text; ``author-2026.12`` below with language as
                       evidence (``.2``: confusable siblings, :mod:`redecode.language`), pages in two
                       encodings read in parts (``.3``: :mod:`redecode.stretches`), the Greek
                       siblings' joined symbols and KOI8 ties (``.4``), legacy stretches read
                       only where they read as words (``.5``), the legacy part of a page
                       deciding its encoding, identical readings named alike (``.6``), and İ read
                       as Turkish lower-cases it (``.7``); each stays replayable.
``author-2026.12``     the author's text before language evidence. The browser's decision checked against the
                       payload and overridden where the bytes show a declaration, default or
                       detector answer to be wrong (:func:`redecode.validate.decide`: every
                       candidate decoded, evidence weighed; aliases of unknown labels; UTF-16
                       without BOM; ISO-2022-JP escapes; mostly-valid UTF-8; the TLD as the
                       detector's tie-break); a content coding the body does not carry is decoded
                       as identity with a warning. Encoding Standard decoders (procedure
                       ``author``).
``browser-2026.11``    what a browser shows: the HTML Standard's "determining the character
                       encoding" as Chromium implements it (:func:`redecode.sniff.decide`), the
                       UTF-8 validity step, detection restricted to Encoding Standard encodings
                       (:func:`redecode.detect.detect`), the Encoding Standard's decoders
                       (procedure ``browser``).
``seed-2026.10``       the ``decode_html`` function of the article this project started from, with
                       Python codecs (procedure ``seed-decode-html``).
``requests-2.32``      what ``requests.Response.text`` returns (requests 2.32, no ``chardet``
                       installed so ``charset_normalizer`` detects), the most common prior decode
                       (procedure ``requests-text``).
=====================  =============================================================================

``decision.encoding`` and ``decoded.encoding`` are Encoding Standard names, never Python codec
names; ``decoded.decoder`` says which decoder made the text: ``"whatwg"`` (this project's
Encoding Standard decoders) or ``"python:<codec>"`` (Python's codec, e.g. ``"python:cp932"``).

A rule set is resolved once, where a command starts (:func:`get_rules` on the name the user gave),
and the :class:`Rules` object is passed down.

Output options: :meth:`Rules.with_outputs` gives the same rule set asked also to write the
normalised text (``normalize``: ``NFC`` / ``NFKC``, column ``text_normalized``) and the grapheme
cluster count (``graphemes``, column ``grapheme_count``) of every row (:mod:`redecode.textforms`,
filled by :func:`redecode.row.text_columns` whatever the procedure). They change the rows, so they
are parameters: set, they appear in :meth:`Rules.parameters` and their Unicode data in
:meth:`Rules.versions` (``unicode``: Python's ``unicodedata`` version; ``graphemes``: the
``regex`` package's), and so in the digest; unset (the default), neither appears, so that a rule
set asked for no extra column keeps its digest.

Deviations: those of the procedures (:mod:`redecode.procedures`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

# (no module of the decision itself: a rule set and its digest are made without them, see
# redecode.procedures; a run that reads no record needs no more, issue 27's empty run)
from . import detect as _detect
from . import params as _params
from . import textforms as _textforms
from .dataclass_code import dataclass
from .procedures import (
    PROCEDURES,
    SEED_LABEL_MAP,
    Decoded,
    Procedure,
    python_decode,
    requests_parse_content_type,
)

if TYPE_CHECKING:
    from .sniff import CodecDecision, Decision

__all__ = [
    "BROWSER_RULES",
    "DECISION_CODE_VERSION",
    "DEFAULT_RULES",
    "OMITTED_WHEN_UNSET",
    "OUTPUT_OPTIONS",
    "RULES",
    "SEED_LABEL_MAP",
    "CodecDecision",
    "Decoded",
    "Rules",
    "as_rules",
    "format_rules",
    "get_rules",
    "known_rules",
    "python_decode",
    "requests_parse_content_type",
]


def __getattr__(name: str) -> Any:
    # (CodecDecision, which this module re-exports, from redecode.sniff on first use: see above)
    if name == "CodecDecision":
        from .sniff import CodecDecision  # noqa: PLC0415

        return CodecDecision
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: Version of this project's decision code (``sniff``, ``prescan``, ``mime`` and the procedures
#: of :mod:`redecode.procedures`). Bump it whenever a change there can change any decision or
#: text; it is part of every digest.
DECISION_CODE_VERSION = "2026.12.7"

DEFAULT_RULES = "author-2026.12.7"

#: The rule set whose answer every row records as ``browser_encoding``: what a browser picks.
BROWSER_RULES = "browser-2026.11"

#: Fields of :class:`Rules` that are output options (:meth:`Rules.with_outputs`), not a procedure's.
OUTPUT_OPTIONS = ("normalize", "graphemes", "language")

#: Fields that enter :meth:`Rules.parameters` (and so the digest) only when set: the output options,
#: and parameters added after rule sets that do not use them were shipped (``author``), so that
#: those keep their digests.
OMITTED_WHEN_UNSET = OUTPUT_OPTIONS + ("author",)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """A named, immutable rule set. Every field but ``name`` and ``description`` is a parameter.

    ``procedure``: the name of a procedure in :data:`redecode.procedures.PROCEDURES`; its class
    lists the fields it reads (``uses``): ``browser`` uses ``detector``, ``detector_allow_utf8``,
    ``detector_max_bytes`` and ``detector_min_nonascii`` (the detectors see
    :func:`redecode.detect.detector_sample` of the payload; None: the whole payload),
    ``detector_consult_bytes`` (engine ``cascade``: how much of that sample the engines it
    consults see; None: all of it), ``tld_hint``, ``utf8_step``, ``late_meta``,
    ``chromium_tokenizer``; ``seed-decode-html`` uses ``label_map``, ``header_pattern``,
    ``meta_pattern``, ``meta_window``, ``detector``, ``fallback_codec``; ``requests-text`` uses
    ``text_default``, ``json_default``, ``detector``, ``fallback_codec``; ``author`` uses the
    browser's fields plus ``tld_vote`` (``firefox``: the detector's tie-break is Firefox's TLD
    fallback, :func:`redecode.validate.tld_vote`), ``min_errors`` (U+FFFD before candidates are
    weighed), ``identity_fallback`` (a content coding the body does not carry is decoded as
    identity, :attr:`redecode.record.ArchiveRecord.identity_payload`) and ``author`` (every other
    threshold of the decision, :class:`redecode.validate.AuthorParams`; None: its
    :data:`~redecode.validate.BASELINE`, as ``author-2026.12`` has it, which keeps that rule set's
    digest; it enters the parameters only when set, :data:`OMITTED_WHEN_UNSET`). ``decoders``: ``whatwg``
    or ``python``. Fields a procedure does not use hold their neutral value (None, ``()``) so that
    the digest does not depend on them. ``normalize`` and ``graphemes`` are output options of any
    rule set (:data:`OUTPUT_OPTIONS`, set with :meth:`with_outputs`; see the module docstring).
    """

    name: str
    description: str
    procedure: str
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
    author: _params.AuthorParams | None = None
    # -- output options (with_outputs): no shipped rule set sets them --
    normalize: Literal["NFC", "NFKC"] | None = None
    graphemes: bool | None = None
    language: bool | None = None

    # -- identity --

    def parameters(self) -> dict[str, Any]:
        """Every parameter (all fields but name and description), JSON-ready; the output options
        (:data:`OUTPUT_OPTIONS`) and ``author`` only when set, so that a rule set without them keeps
        its digest."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in ("name", "description"):
                continue
            v = getattr(self, f.name)
            if f.name in OMITTED_WHEN_UNSET and not v:
                continue
            if f.name == "label_map":
                v = [list(p) for p in v]
            elif f.name == "author":
                v = v.to_json()
            out[f.name] = v
        return out

    def with_outputs(self, *, normalize: str | None = None, graphemes: bool = False, language: bool = False) -> "Rules":
        """This rule set asked also to write ``text_normalized`` in form *normalize* (``NFC`` or
        ``NFKC``, Unicode UAX #15; None: no such column) and ``grapheme_count`` (*graphemes*).
        Same name; another digest when either is set. Raises ``ValueError`` for another form."""
        if normalize is not None and normalize not in _textforms.FORMS:
            raise ValueError(f"unknown normalization form {normalize!r}: {' or '.join(_textforms.FORMS)}")
        return dataclasses.replace(self, normalize=normalize, graphemes=True if graphemes else None,
                                   language=True if language else None)

    def outputs(self) -> dict[str, Any]:
        """The output options as :meth:`with_outputs` keywords (``normalize``, ``graphemes``)."""
        return {"normalize": self.normalize, "graphemes": bool(self.graphemes), "language": bool(self.language)}

    def versions(self) -> dict[str, str]:
        """Versions of everything outside the parameters that can change this rule set's output.

        ``encoding_standard`` (tables revision), ``decision_code`` (:data:`DECISION_CODE_VERSION`),
        ``decoder`` (``whatwg@DECODER_VERSION`` or ``python@MAJOR.MINOR``), ``detector``
        (``name@version``, all three for ``majority`` and ``cascade``) and the procedure's own
        (``browser``: ``tld_defaults``, sniff's default-step table; ``author`` also
        ``author_tables``, the alias and TLD-fallback tables of :mod:`redecode.aliases`); with
        the output options, ``unicode`` (Python's ``unicodedata`` version, for ``normalize``) and
        ``graphemes`` (``regex@V``, for ``graphemes``).
        """
        v = {
            "encoding_standard": _params.TABLES_REVISION,
            "decision_code": DECISION_CODE_VERSION,
        }
        if self.decoders == "whatwg":
            v["decoder"] = f"whatwg@{_params.DECODER_VERSION}"
        else:
            # Python's codec tables can change between feature releases.
            v["decoder"] = f"python@{sys.version_info.major}.{sys.version_info.minor}"
        if self.detector is not None:
            v["detector"] = _detect.detector_id(self.detector)
        proc = PROCEDURES.get(self.procedure)
        if proc is not None:
            v.update(proc.versions(self))
        # The Unicode data the output options follow (only when asked for: see with_outputs).
        if self.normalize:
            v["unicode"] = _textforms.UNICODE_VERSION
        if self.graphemes:
            v["graphemes"] = _textforms.grapheme_version()
        if self.language:
            from . import language as _language  # noqa: PLC0415 - only runs asked for the columns

            from . import row as _row  # noqa: PLC0415

            v["language_identifier"] = _language.versions()["language_identifier"]
            v["language_sample"] = _row.LANGUAGE_SAMPLER
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

    # -- behaviour: the procedure's --

    @property
    def steps(self) -> Procedure:
        """The procedure object (:data:`redecode.procedures.PROCEDURES`) that does this rule set's
        work. ``KeyError`` for a procedure name nobody registered."""
        return PROCEDURES[self.procedure]

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
        return PROCEDURES[self.procedure].decide(self, payload, content_type, url, kind)

    def decode(self, payload: bytes, decision: Decision) -> Decoded:
        """Decode *payload* as *decision* says; see :class:`redecode.procedures.Decoded`. Never
        raises on any payload for a decision this rule set made; ``TypeError`` for a Python-codec
        rule set given a decision without ``codec``."""
        return PROCEDURES[self.procedure].decode(self, payload, decision)

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
        return PROCEDURES[self.procedure].decide_and_decode(self, payload, content_type, url, kind)

    def browser(self) -> "Rules":
        """The browser rules (:data:`BROWSER_RULES`): what every row's ``browser_encoding``
        records, whatever this rule set is."""
        return RULES[BROWSER_RULES]

    def preload(self) -> None:
        """Load now what :meth:`decide` and :meth:`decode` otherwise load on their first record
        (:meth:`redecode.procedures.Procedure.preload`); worker processes forked afterwards share
        it (copy-on-write). Returns None; never raises for a shipped rule set."""
        PROCEDURES[self.procedure].preload(self)


@cache
def _digest(rules: Rules) -> str:
    doc = {"parameters": rules.parameters(), "versions": rules.versions()}
    canon = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canon.encode("ascii")).hexdigest()


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

# The browser rules' parameters, then the checks against the payload (redecode.validate).
_AUTHOR = dataclasses.replace(
    _BROWSER,
    name="author-2026.12",
    description=(
        "The author's text (the default until author-2026.12.2): the browser's decision checked against the payload "
        "and overridden where the bytes show a declaration, default or detector answer to be "
        "wrong: every candidate (declarations, aliases of unknown labels such as MacCyrillic, "
        "UTF-8, UTF-16 without BOM, ISO-2022-JP escapes, the detector with the TLD as tie-break) "
        "decoded, the clean one with the most evidence wins, ties keep the declaration; a content "
        "coding the body does not carry is decoded as identity with a warning; Encoding Standard "
        "decoders."
    ),
    procedure="author",
    tld_vote="firefox",
    min_errors=_params.DEFAULT_MIN_ERRORS,
    identity_fallback=True,
)

# author-2026.12 with language as evidence (issue 30): the confusable siblings of the primary and of
# the declarations are candidates; check k sends a page to the weighing where a sibling reads
# better as language; the weighing puts a reading that reads language_margin worse than the best
# after every other, and one with min_errors defects more than the cleanest after the rest;
# HZ-GB-2312 and ISO-2022-KR decoded with Python's codecs (the language columns: run --language).
_AUTHOR_2 = dataclasses.replace(
    _AUTHOR,
    name="author-2026.12.2",
    description=(
        "The author's text (the default until author-2026.12.3): author-2026.12's checks and candidates, plus language as "
        "evidence: the declared or detected encoding's confusable siblings (KOI8-R and "
        "windows-1251, ISO-8859-2 and windows-1252, Big5 and GBK...) are candidates, a reading "
        "that reads worse as language by the margin loses wherever it was declared, a reading with "
        "U+FFFD never beats a clean one for where it was declared, a reading that loses on "
        "language is never certain; HZ-GB-2312 and ISO-2022-KR decoded with Python's codecs; "
        "rows carry the verdict (and language, language_confidence with run --language). Encoding "
        "Standard decoders otherwise."
    ),
    author=_params.AuthorParams(
        siblings=True,
        language=True,
        language_margin=12.0,
        language_floor=-30.0,
        language_min_chars=4,
        language_window=4096,
        language_words=24,
        compare_defects=True,
        python_codecs=True,
    ),
)

# author-2026.12.2 reading pages in two encodings (issue 29; redecode.stretches): the stretches of
# the chosen reading (a legacy paragraph in a UTF-8 page, a UTF-8 widget in a windows-1251 one)
# read with the encoding that reads each best, language evidence the judge.
_AUTHOR_3 = dataclasses.replace(
    _AUTHOR_2,
    name="author-2026.12.3",
    description=(
        "The author's text (the default until author-2026.12.4): author-2026.12.2's decision, then pages in two encodings "
        "read in parts: a run of words invalid in the chosen reading (a windows-1251 paragraph in "
        "a UTF-8 page, a UTF-8 paragraph in a Shift_JIS one) is read with the encoding that reads "
        "it best as language, never a lone invalid byte or one damaged character (they stay "
        "U+FFFD); the row lists the stretches. Encoding Standard decoders otherwise."
    ),
    author=dataclasses.replace(_AUTHOR_2.author, stretches=True),
)

# author-2026.12.3 with two decisions about siblings (issue 30, a user's pages): in the Greek family
# a reading with a symbol or closing quote joined to letters (¶ρθρο, ’ρθρο) loses to a sibling that
# reads a letter there (Άρθρο) unless language puts it the margin behind; a KOI8-U decision that no
# declaration names, on bytes that KOI8-R reads as the same text, is named KOI8-R.
_AUTHOR_4 = dataclasses.replace(
    _AUTHOR_3,
    name="author-2026.12.4",
    description=(
        "The author's text (the default until author-2026.12.5): author-2026.12.3, and in the Greek "
        "family (ISO-8859-7, windows-1253) a reading that puts a symbol or closing quote before letters (¶ρθρο, ’ρθρο) "
        "loses to the sibling that reads a letter there (Άρθρο), unless it reads better as language "
        "by the margin; a KOI8-U decision that no declaration names is named KOI8-R where the two "
        "read the same text (no byte where they differ). Encoding Standard decoders otherwise."
    ),
    author=dataclasses.replace(_AUTHOR_3.author, joined_families=("greek",),
                               tie_names=(("KOI8-U", "KOI8-R"),), quotes_are_text=True),
)

# author-2026.12.4 whose legacy stretches must read as words (issue 29, a fresh user's pages): a
# reading with a symbol or another script's letter inside a word, fewer than 3 non-ASCII letters,
# or a reading of another script within the margin leaves the stretch U+FFFD; every script's
# legacy encodings are candidates; a run no reading reads is read in pieces cut at markup.
_AUTHOR_5 = dataclasses.replace(
    _AUTHOR_4,
    name="author-2026.12.5",
    description=(
        "The author's text (the default until author-2026.12.6): author-2026.12.4, with a legacy stretch in a UTF-8 page "
        "read only where a reading reads as words (no symbol or letter of another script inside "
        "a word, 3 non-ASCII letters at least) and beats the readings of other scripts by the "
        "margin, chosen among every script's legacy encodings, in pieces cut at markup where the "
        "whole run reads in none; damaged UTF-8 stays U+FFFD. Encoding Standard decoders otherwise."
    ),
    author=dataclasses.replace(_AUTHOR_4.author, stretch_words=True, stretch_min_letters=3),
)

# author-2026.12.5 where the legacy part of a page decides (issue 29, a fresh user's pages): the
# author detector and the language evidence read the bytes outside the page's UTF-8 runs.
_AUTHOR_6 = dataclasses.replace(
    _AUTHOR_5,
    name="author-2026.12.6",
    description=(
        "The author's text (the default until author-2026.12.7): author-2026.12.5, with a page "
        "that is not UTF-8 but holds UTF-8 runs (a UTF-8 paragraph in a windows-1255 page, a UTF-8 template's punctuation "
        "around a windows-1251 paragraph) detected on its bytes outside those runs, so that its "
        "legacy text decides its encoding and the runs are read as UTF-8 stretches. Encoding "
        "Standard decoders otherwise."
    ),
    author=dataclasses.replace(_AUTHOR_5.author, outside_utf8=True, same_text_names=True),
)

# author-2026.12.6 reading İ as Turkish lower-cases it (issue 30, a fresh user's pages): language
# evidence read İ (U+0130) as str.lower() does, i + U+0307, a mark no language of the model has,
# so a correct windows-1254 declaration of "İletişim" lost to windows-1252's "Ýletiþim"; under the
# languages that write İ (Turkish) it now reads i, under the others as before.
_AUTHOR_7 = dataclasses.replace(
    _AUTHOR_6,
    name="author-2026.12.7",
    description=(
        "The author's text (the default): author-2026.12.6, with language evidence reading İ "
        "(U+0130) under Turkish as Turkish lower-cases it, i (not i and a combining dot above, "
        "which no language has), so that a Turkish page's İ counts for its declaration "
        "(windows-1254, ISO-8859-9) instead of against it. Encoding Standard decoders otherwise."
    ),
    author=dataclasses.replace(_AUTHOR_6.author, language_turkic_i=True),
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
RULES: dict[str, Rules] = {r.name: r for r in (_AUTHOR_7, _AUTHOR_6, _AUTHOR_5, _AUTHOR_4, _AUTHOR_3, _AUTHOR_2, _AUTHOR, _BROWSER, _SEED, _REQUESTS)}


def get_rules(name: str) -> Rules:
    """The shipped rule set called *name*; ``KeyError`` naming the known ones otherwise."""
    try:
        return RULES[name]
    except KeyError:
        raise KeyError(f"unknown rules {name!r}; known rules: {', '.join(RULES)}") from None


def as_rules(rules: Rules | str) -> Rules:
    """*rules* itself, or the shipped rule set it names (:func:`get_rules`): for the library's entry
    points, which take either and resolve a name once, there, before passing the object down."""
    return rules if isinstance(rules, Rules) else get_rules(rules)


@cache
def known_rules(name: str, digest: str, normalize: str | None = None, graphemes: bool = False,
                language: bool = False) -> Rules | None:
    """The shipped rule set called *name*, with the output options *normalize* and *graphemes*
    (:meth:`Rules.with_outputs`), if it still has *digest* (the rules that made a stored row, as
    this code has them), else None."""
    rules = RULES.get(name)
    if rules is not None and (normalize or graphemes or language):
        rules = rules.with_outputs(normalize=normalize, graphemes=graphemes, language=language)
    return rules if rules is not None and rules.digest == digest else None


def format_rules(*, as_json: bool = False, width: int | None = None) -> str:
    """The listing ``redecode rules`` prints: JSON ``{"default": name, "rules": [describe()...]}``
    or one text block per rule set (name, digest, description, set parameters, versions), its
    lines broken to at most *width* characters (None: not broken; a word longer than the width,
    such as a digest, is cut across lines)."""
    described = [r.describe() for r in RULES.values()]
    if as_json:
        return json.dumps({"default": DEFAULT_RULES, "rules": described}, indent=2)
    import textwrap  # noqa: PLC0415

    lines: list[str] = []

    def add(text: str, indent: str, more: str) -> None:
        if width is None or len(text) + len(indent) <= width:
            lines.append(indent + text)
        else:
            lines.extend(textwrap.wrap(text, max(width, len(more) + 1), initial_indent=indent,
                                       subsequent_indent=more, break_on_hyphens=False))

    for d in described:
        mark = " (default)" if d["name"] == DEFAULT_RULES else ""
        add(f"{d['name']}{mark}", "", "  ")
        add(f"digest: {d['digest']}", "  ", "    ")
        add(d["description"], "  ", "  ")
        for key, value in d["parameters"].items():
            if value is not None and value != []:
                add(f"{key}: {json.dumps(value)}", "  ", "    ")
        lines.append("  versions:")
        for key, value in d["versions"].items():
            add(f"{key}: {value}", "    ", "      ")
        lines.append("")
    return "\n".join(lines).rstrip("\n")
