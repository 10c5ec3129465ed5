"""What a rule set's digest covers of the decision, as data: :class:`AuthorParams` (every
threshold of :func:`redecode.validate.decide`), its defaults (``author-2026.12``'s thresholds, each
as measured) and :data:`BASELINE`, which :mod:`redecode.validate` re-exports; the decoders'
:data:`TABLES_REVISION` and :data:`DECODER_VERSION`, which :mod:`redecode.decode` re-exports.

Apart from the decision so that a rule set (:mod:`redecode.rules`) and its digest, which every run
needs, are made without importing it: a run that reads no record (issue 27's empty run) or few
(issue 26's selections) then pays for the decision modules only where a record is decided.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ._tables import WHATWG_ENCODING_REVISION
from .dataclass_code import dataclass

__all__ = [
    "BASELINE",
    "CASE_FLIPS_IMPLAUSIBLE",
    "DECODER_VERSION",
    "DEFAULT_MIN_ERRORS",
    "DEFECT_RATE",
    "NON_LETTERS_IMPLAUSIBLE",
    "RUNS_IMPLAUSIBLE",
    "RUNS_MIN_BYTES",
    "RUNS_WINDOW",
    "SIGNAL_TRIES",
    "SIGNAL_WINDOW",
    "SYMBOLS_IMPLAUSIBLE",
    "TABLES_REVISION",
    "UTF16_MIN_UNITS",
    "UTF16_OTHER_RATIO",
    "UTF16_WINDOW",
    "UTF16_ZERO_SHARE",
    "UTF8_DECISIVE_RUNS",
    "UTF8_OVERWHELMING",
    "AuthorParams",
]

# --- the decoders (redecode.decode) ----------------------------------------------------------------

#: whatwg/encoding revision of the tables (goes into the rules digest).
TABLES_REVISION: str = WHATWG_ENCODING_REVISION

#: Bump whenever the output of :func:`redecode.decode.decode` can change for some input (goes into
#: the rules digest).
DECODER_VERSION: str = "1"


# --- author-2026.12's thresholds (AuthorParams' defaults, BASELINE; each as measured) ----------

#: A decode must make at least this many U+FFFD before the candidates are weighed (check b).
DEFAULT_MIN_ERRORS = 2

#: A candidate stays clean with up to one defect per this many non-ASCII characters (a Word quote
#: pair pasted into an ISO-8859-2 page, a stray byte in a long page): a declaration is refuted by
#: a reading that is mostly defects, not by a few.
DEFECT_RATE = 10

#: Valid UTF-8 overrules clean declarations outright only with at least this many runs of
#: non-ASCII bytes plus one per declaration: a word or two of legacy text can be valid UTF-8 by
#: chance ("CAFÉ\u00a0!" in windows-1252 is C9 A0, UTF-8 for U+0260; "NESTLÉ®" is C9 AE); on
#: chardet's real legacy pages at most 1.4% of the runs are (IBM866; CJK encodings 0.1-0.4%).
UTF8_DECISIVE_RUNS = 2
#: Mostly-valid UTF-8 wins outright with at least two valid multi-byte sequences and at most one
#: invalid per this many valid ones (a few bad bytes in a UTF-8 page).
UTF8_OVERWHELMING = 4

#: How much of the payload :func:`~redecode.validate.utf16_pattern` reads (bytes), the code units it
#: needs, and its two ratios (one unit in 16 with a zero high byte; the other parity's NULs at most
#: a third).
UTF16_WINDOW = 1024
UTF16_MIN_UNITS = 8
UTF16_ZERO_SHARE = 16
UTF16_OTHER_RATIO = 3

#: :func:`~redecode.validate.runs_share`, :func:`~redecode.validate.symbols_in_words` and
#: :func:`~redecode.validate.script_letters` read at most this many bytes, and need this many
#: non-ASCII ones.
RUNS_WINDOW = 8192
RUNS_MIN_BYTES = 32

#: Check e looks past this many invalid sequences before any UTF-8 before it gives up, and decodes
#: windows of this many bytes.
SIGNAL_TRIES = 3
SIGNAL_WINDOW = 8192

#: :func:`~redecode.validate.runs_share` at or above which a Latin reading is implausible. Measured
#: on chardet's real pages (8 KB from the first non-ASCII byte, at least 32 non-ASCII bytes):
#: Latin-script pages 0.00-0.56, every other legacy script 0.65 (Big5) to 1.00
#: (tests/test_validate.py::test_runs_share_on_real_pages).
RUNS_IMPLAUSIBLE = 0.6

#: :func:`~redecode.validate.symbols_in_words` at or above which a windows-1252 (ISO-8859-1) reading
#: is implausible. Measured on chardet's real pages (8 KB from the first non-ASCII byte):
#: windows-1252 and ISO-8859-1 pages 0.00; ISO-8859-2 and windows-1250 pages read as windows-1252
#: 0.35-0.44 (Polish, Croatian, Slovene: ą ł ś ź ż ž are ± ³ ¶ ¼ ¿ ¾ there); Czech and Slovak
#: 0.00-0.11 stay below it (a known limit: č ě ř are letters in windows-1252 too).
SYMBOLS_IMPLAUSIBLE = 0.2

#: :func:`~redecode.validate.script_letters` shares at or above which a reading in a
#: :data:`~redecode.validate._NON_LATIN` encoding is implausible. Measured on chardet's real pages
#: (8 KB from the first non-ASCII byte, at least 32 non-ASCII bytes): pages in their own encoding
#: have at most 0.013 non-letters (Greek punctuation) and 0.003 case flips; Big5, GBK, EUC-JP,
#: EUC-KR, Shift_JIS and UTF-8 pages read as any of these have 0.08 non-letters or 0.03 case flips
#: at least, nearly all far more (tests/test_validate.py::test_script_letters_on_real_pages).
#: Another encoding of the same script (KOI8-R read as windows-1251) stays below both: a known
#: limit.
NON_LETTERS_IMPLAUSIBLE = 0.05
CASE_FLIPS_IMPLAUSIBLE = 0.03


# --- the parameters ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class AuthorParams:
    """Every threshold of the author's-text decision, as data. A rule set's ``author`` parameters
    (:class:`redecode.rules.Rules`) hold one, so that its digest covers them;
    :meth:`from_rules` builds the one a rule set decides with. The defaults are :data:`BASELINE`,
    the thresholds of ``author-2026.12``, which predates parameters as data and keeps its digest:
    its thresholds are these, frozen (``tests/test_validate.py::test_the_baseline_is_frozen``).

    ``min_errors``: U+FFFD (or C1 controls) a decode must make before the candidates are weighed
    (checks b and d). ``defect_rate``: a candidate is clean with at most one defect per this many
    non-ASCII characters of its text. ``utf8_decisive_runs``: runs of non-ASCII bytes valid UTF-8
    needs, plus one per clean declaration against it, to win outright. ``utf8_overwhelming``:
    mostly-valid UTF-8 wins outright with at most one invalid sequence per this many valid ones (and
    two valid at least). ``utf16_window`` (bytes), ``utf16_min_units``, ``utf16_zero_share`` and
    ``utf16_other_ratio``: :func:`~redecode.validate.utf16_pattern`'s window and thresholds.
    ``window`` (bytes) and ``min_high_bytes``: what :func:`~redecode.validate.runs_share`,
    :func:`~redecode.validate.symbols_in_words` and :func:`~redecode.validate.script_letters` read
    and need. ``runs_implausible``, ``symbols_implausible``, ``non_letters_implausible``,
    ``case_flips_implausible`` (shares 0..1): check h's thresholds. ``signal_tries`` and
    ``signal_window`` (bytes): how far check e looks for UTF-8 past stray bytes.

    From ``author-2026.12.2`` on (their defaults are ``author-2026.12``'s behaviour): ``siblings``:
    the primary's and the declarations' confusable siblings (:mod:`redecode.siblings`) are
    candidates; ``language``: language evidence (:mod:`redecode.language`) is read, by check k (a
    clean sibling reads better than the primary) and by the weighing; ``language_margin`` (bits,
    log2): how much better a reading of the excerpt must read to win on language; ``language_floor``
    (bits per character): a best reading that reads worse than this is no language (every reading is
    nonsense to the model: language says nothing); ``language_min_chars`` (characters): the evidence
    below which language says nothing; ``language_window`` (bytes) and ``language_words``: at most
    how many bytes, and how many words whose readings differ, of the payload the readings are scored
    on (:meth:`~redecode.validate.ByteProfile.excerpt`, with the words around them);
    ``compare_defects``: between clean candidates that language does not separate, fewer defects win
    before the evidence is counted (a declared reading with U+FFFD never beats a clean sibling
    because of where it was declared); ``python_codecs``: HZ-GB-2312 and ISO-2022-KR, which the
    Encoding Standard maps to the replacement encoding, are decoded with Python's codecs where the
    label names them and the bytes parse.

    Pages in two encodings (step 6; off in :data:`BASELINE`): ``stretches``: the chosen reading's
    stretches are read with the encoding that reads each best; ``stretch_min_invalid``: U+FFFD a
    run of a UTF-8 reading needs to be a legacy stretch (2: a lone invalid byte stays U+FFFD);
    ``stretch_min_sequences``: valid multi-byte sequences a run of a legacy reading needs to be
    a UTF-8 stretch (2; one in a single-byte page where it reads as a letter of that encoding's
    script); ``stretch_margin`` (bits, log2): how much more plausible a stretch's reading must be
    than the chosen one's (:func:`redecode.stretches.read_in_parts`).

    From ``author-2026.12.4`` on (off in :data:`BASELINE`): ``joined_families``: names of sibling
    families (:data:`redecode.siblings.SIBLING_FAMILIES`) whose encodings differ, for letters, where
    one reads a letter and another a symbol (``greek``): there a reading with more characters out of
    place (:func:`~redecode.validate.joined_symbols`: ``¶ρθρο``, ``τΆ αρχείο``) than a sibling's
    reading loses to it unless language puts it ``language_margin`` ahead (check k fires for such a
    sibling too); ``quotes_are_text``: check k's gate does not count quotation marks („ ” « ») among
    a sibling reading's anomalies (:func:`~redecode.validate.anomalies`), so Romanian „” in
    ISO-8859-16 or French “” in ISO-8859-13 reach language; ``tie_names``: ``(extension, base)``
    pairs: a decision of the extension that no declaration names, on a payload where the two read
    the same text, is named the base (``("KOI8-U", "KOI8-R")``:
    :func:`~redecode.validate._tie_name`).

    From ``author-2026.12.5`` on: ``stretch_words``: a legacy stretch's reading must read as words
    (:func:`redecode.stretches.reads_as_words`), beat the readings of other scripts by the margin
    (else the stretch stays U+FFFD), and is chosen among every legacy encoding of a script (the
    page's first); a run no reading reads is read in pieces cut at markup; the row's
    ``validation`` says which whole-page reading the parts replace; ``stretch_min_letters``: the
    non-ASCII letters such a reading needs.

    From ``author-2026.12.6`` on: ``outside_utf8``: on a payload that is not valid UTF-8 but holds
    runs of well-formed multi-byte UTF-8, fewer characters than its legacy text, the author
    detector, check h's shares and the language excerpt read :func:`~redecode.validate.outside_utf8`
    (the bytes outside those runs), so that the page's legacy text decides its encoding and step 6
    reads the runs as UTF-8 stretches; ``same_text_names``: among encodings that read the same text,
    the page and each legacy stretch are named by a declaration, the detector's answer or the
    top-level domain's fallback where one of those reads the same text, and ``tie_names`` applies to
    stretches too (:func:`~redecode.validate._same_text_names`; only names change).

    From ``author-2026.12.7`` on: ``language_turkic_i``: language evidence (check k, the weighing,
    step 6's judge) reads İ (U+0130) under the languages that write it
    (:data:`redecode.language.TURKIC`) as they lower-case it, ``i``, not as ``str.lower()``'s ``i``
    + U+0307, a mark no language of the model has, and scores them for a reading with İ
    (:func:`redecode.language.plausibility`'s ``turkic_i``): without it a correct windows-1254 or
    ISO-8859-9 declaration of a title like ``İletişim`` loses to windows-1252's ``Ýletiþim``.

    The fields added after ``author-2026.12.2`` (:data:`_LATER_FIELDS`) enter :meth:`to_json` only
    where they differ from their defaults, so that rule sets made before them keep their digests.
    """

    min_errors: int = DEFAULT_MIN_ERRORS
    defect_rate: int = DEFECT_RATE
    utf8_decisive_runs: int = UTF8_DECISIVE_RUNS
    utf8_overwhelming: int = UTF8_OVERWHELMING
    utf16_window: int = UTF16_WINDOW
    utf16_min_units: int = UTF16_MIN_UNITS
    utf16_zero_share: int = UTF16_ZERO_SHARE
    utf16_other_ratio: int = UTF16_OTHER_RATIO
    window: int = RUNS_WINDOW
    min_high_bytes: int = RUNS_MIN_BYTES
    runs_implausible: float = RUNS_IMPLAUSIBLE
    symbols_implausible: float = SYMBOLS_IMPLAUSIBLE
    non_letters_implausible: float = NON_LETTERS_IMPLAUSIBLE
    case_flips_implausible: float = CASE_FLIPS_IMPLAUSIBLE
    signal_tries: int = SIGNAL_TRIES
    signal_window: int = SIGNAL_WINDOW
    # -- from author-2026.12.2 on; the defaults are author-2026.12's behaviour --
    siblings: bool = False
    language: bool = False
    language_margin: float = 0.0
    language_floor: float = 0.0
    language_min_chars: int = 0
    language_window: int = 0
    language_words: int = 0
    compare_defects: bool = False
    python_codecs: bool = False
    # -- pages in two encodings (issue 29; step 6) --
    stretches: bool = False
    stretch_min_invalid: int = 2
    stretch_min_sequences: int = 2
    stretch_margin: float = 8.0
    # -- from author-2026.12.4 on (issue 30: Greek siblings, KOI8 ties, quotation marks) --
    joined_families: tuple[str, ...] = ()
    tie_names: tuple[tuple[str, str], ...] = ()
    quotes_are_text: bool = False
    # -- from author-2026.12.5 on (issue 29: stretches that read as words) --
    stretch_words: bool = False
    stretch_min_letters: int = 0
    # -- from author-2026.12.6 on (issue 29: the legacy part of a page decides; names) --
    outside_utf8: bool = False
    same_text_names: bool = False
    # -- from author-2026.12.7 on (issue 30: İ read as Turkish lower-cases it) --
    language_turkic_i: bool = False

    def to_json(self) -> dict[str, Any]:
        """The parameters as a JSON-ready dict (field name -> value), for the rules' digest (the
        fields added after ``author-2026.12.2``, :data:`_LATER_FIELDS`, only where they differ from
        their defaults, so that the rule sets made before them keep their digests)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name in _LATER_FIELDS and v == f.default:
                continue
            out[f.name] = [list(p) for p in v] if f.name == "tie_names" else list(v) if isinstance(v, tuple) else v
        return out

    @staticmethod
    def from_rules(rules: Any) -> "AuthorParams":
        """The parameters a rule set (:class:`redecode.rules.Rules`) decides with: its ``author``
        parameters, or :data:`BASELINE` when it has none (``author-2026.12``), with its
        ``min_errors`` when set."""
        params = rules.author if rules.author is not None else BASELINE
        if rules.min_errors is not None and rules.min_errors != params.min_errors:
            params = dataclasses.replace(params, min_errors=rules.min_errors)
        return params


#: :class:`AuthorParams` fields that enter :meth:`AuthorParams.to_json` only where they differ from
#: their defaults: those added after ``author-2026.12.2`` shipped.
_LATER_FIELDS = frozenset(("stretches", "stretch_min_invalid", "stretch_min_sequences", "stretch_margin",
                           "joined_families", "tie_names", "quotes_are_text", "stretch_words",
                           "stretch_min_letters", "outside_utf8", "same_text_names",
                           "language_turkic_i"))

#: The thresholds of ``author-2026.12`` (the module constants above, each with its measurement).
BASELINE = AuthorParams()
