"""Mojibake in decoded text: ftfy's encoding fixes, as a replayable plan with a verdict.

The only module that imports :mod:`ftfy` (used by :mod:`redecode.diff`, to tell whether an old text
was mojibake of a new one, and by :mod:`redecode.repair`, to repair text-only priors).

"Mojibake" is text whose bytes were decoded with the wrong encoding: UTF-8 read as latin-1 or
windows-1252 (``é`` -> ``Ã©``), or that twice (``ÃƒÂ©``). Where the bytes are gone, ftfy can often
recover the text from the mojibake alone: it encodes the text back with the single-byte encoding
that produced it and decodes the bytes as UTF-8, and returns the steps it took as a *plan* that
:func:`apply_plan` (ftfy's ``apply_plan``) replays on the old text.

=======================  ==================================================================
function                 what it does
=======================  ==================================================================
:func:`repair`           ftfy's encoding fixes only (:data:`ENCODING_FIXES`) on the whole text
                         as one segment: ``Repair(text, plan, status, doubts, mojibake_left)``
:func:`apply_plan`       replays a stored plan (ftfy's ``apply_plan``)
:func:`fix_text`         ftfy's ``fix_text`` with its defaults (cosmetic fixes too), line by line
:func:`fix_encoding`     ftfy's ``fix_text`` with :data:`ENCODING_FIXES`, line by line
:func:`looks_like_mojibake`  ftfy's badness heuristic (``ftfy.badness.is_bad``)
=======================  ==================================================================

Encoding fixes only (:data:`ENCODING_FIXES`): ``fix_encoding`` and the four fixes ftfy documents as
its subordinates (``restore_byte_a0``, ``replace_lossy_sequences``, ``decode_inconsistent_utf8``,
``fix_c1_controls``) are on; every cosmetic fix is off (``unescape_html``,
``remove_terminal_escapes``, ``fix_latin_ligatures``, ``fix_character_width``, ``uncurl_quotes``,
``fix_line_breaks``, ``fix_surrogates``, ``remove_control_chars``, and ``normalization``): they would
change text a correct decode also contains (curly quotes, fullwidth letters, CR LF, NFC), which is
not a repair of the encoding.

Status of a repair (:data:`STATUSES`):

- ``unchanged``: the encoding fixes leave the text as it is (the plan is empty).
- ``repaired``: the text changed, the plan only re-encodes and re-decodes the whole text (``encode``
  and ``decode`` steps), and none of the doubts below holds.
- ``doubtful``: the text changed and at least one doubt holds (all are recorded in ``doubts``):

  - ``step:<fixer>``: the plan has a ``transcode`` or ``apply`` step, which is not one consistent
    re-decoding of the whole text: ``restore_byte_a0`` (a space guessed to have been U+00A0),
    ``replace_lossy_sequences`` (bytes the old decode lost, replaced by U+FFFD),
    ``decode_inconsistent_utf8`` (only some runs of the text re-decoded: it mixes encodings or no
    single reading explains it), ``fix_c1_controls`` (C1 controls mapped one by one to
    windows-1252);
  - ``mojibake-left``: ftfy's badness heuristic still finds mojibake in the repaired text;
  - ``replacement-added``: the repaired text has more U+FFFD than the old one;
  - ``ambiguous:<encoding>``: the plan's first step encodes with one single-byte encoding, and
    another one ftfy knows (``ftfy.chardata.CHARMAP_ENCODINGS``) also encodes the old text into
    bytes that decode as UTF-8, to a different text that is as plausible (:func:`implausible`:
    no more characters that no author writes there, nor a higher ftfy badness): the choice
    between them is then ftfy's order of preference, not evidence. A reading with more such
    characters is no rival: UTF-8 read as windows-1252, ``cafÃ©``, read back through MacRoman
    gives ``caf`` and U+0329, a combining mark no letter takes, where latin-1 gives ``café``;
  - ``error:<exception>``: ftfy raised; the text is kept as it was (empty plan).

``mojibake_left`` is ftfy's badness heuristic on the returned text, whatever the status: an
``unchanged`` text with ``mojibake_left`` is mojibake ftfy cannot repair (Shift_JIS read as
windows-1252: ftfy only repairs text whose bytes were UTF-8) or a false alarm (it flags some
correct pages, e.g. one Hungarian page of the chardet test set).

Deviations: none from ftfy; :func:`repair` is ``ftfy.fix_and_explain`` with :data:`ENCODING_FIXES`.
"""

from __future__ import annotations

import importlib.metadata
import unicodedata

import ftfy
import ftfy.bad_codecs  # noqa: F401 - registers the sloppy-windows-125x codecs that plans name

from .dataclass_code import dataclass
from ftfy.badness import badness as _ftfy_badness
from ftfy.badness import is_bad
from ftfy.chardata import CHARMAP_ENCODINGS, possible_encoding

__all__ = [
    "ENCODING_FIXES",
    "FTFY_VERSION",
    "STATUSES",
    "Repair",
    "apply_plan",
    "badness",
    "config_json",
    "fix_encoding",
    "fix_text",
    "implausible",
    "looks_like_mojibake",
    "repair",
]

FTFY_VERSION = importlib.metadata.version("ftfy")

STATUS_REPAIRED = "repaired"
STATUS_UNCHANGED = "unchanged"
STATUS_DOUBTFUL = "doubtful"
STATUSES = (STATUS_REPAIRED, STATUS_UNCHANGED, STATUS_DOUBTFUL)

#: ftfy with the encoding fixes only (see the module docstring); ``explain`` on, for the plan.
ENCODING_FIXES = ftfy.TextFixerConfig(
    unescape_html=False,
    remove_terminal_escapes=False,
    fix_encoding=True,
    restore_byte_a0=True,
    replace_lossy_sequences=True,
    decode_inconsistent_utf8=True,
    fix_c1_controls=True,
    fix_latin_ligatures=False,
    fix_character_width=False,
    uncurl_quotes=False,
    fix_line_breaks=False,
    fix_surrogates=False,
    remove_control_chars=False,
    normalization=None,
    explain=True,
)

_ENCODING_FIXES_QUIET = ENCODING_FIXES._replace(explain=False)


def config_json() -> dict:
    """:data:`ENCODING_FIXES` as a JSON-ready dict (for manifests)."""
    return dict(ENCODING_FIXES._asdict())


@dataclass(frozen=True, slots=True, kw_only=True)
class Repair:
    """The result of :func:`repair` on one text.

    ``text``: the repaired text (str, characters; the old text itself when ``unchanged``);
    ``plan``: ftfy's steps as ``(action, parameter)`` pairs, ``action`` one of ``encode``,
    ``decode``, ``transcode``, ``apply`` (empty when nothing changed); ``apply_plan(old, plan)``
    gives ``text``; ``status``: one of :data:`STATUSES`; ``doubts``: why ``doubtful`` (see the
    module docstring), empty otherwise; ``mojibake_left``: ftfy's badness heuristic finds mojibake
    in ``text``.
    """

    text: str
    plan: tuple[tuple[str, str], ...]
    status: str
    doubts: tuple[str, ...]
    mojibake_left: bool


def repair(text: str) -> Repair:
    """Repair the mojibake in *text* with ftfy's encoding fixes only (:data:`ENCODING_FIXES`),
    the whole text as one segment (``ftfy.fix_and_explain``), so that one plan replays it.

    Never raises for any ``str``: an exception inside ftfy gives a ``doubtful`` result with the old
    text, an empty plan and the doubt ``error:<exception type>``.
    """
    try:
        fixed, steps = ftfy.fix_and_explain(text, ENCODING_FIXES)
    except Exception as exc:  # noqa: BLE001 - one odd text must not stop a repair of millions
        return Repair(text=text, plan=(), status=STATUS_DOUBTFUL,
                      doubts=(f"error:{type(exc).__name__}",), mojibake_left=_is_bad(text))
    plan = tuple((str(action), str(parameter)) for action, parameter in (steps or ()))
    left = _is_bad(fixed)
    if fixed == text:
        return Repair(text=text, plan=(), status=STATUS_UNCHANGED, doubts=(), mojibake_left=left)
    doubts = [f"step:{parameter}" for action, parameter in plan if action in ("transcode", "apply")]
    if left:
        doubts.append("mojibake-left")
    if fixed.count("\ufffd") > text.count("\ufffd"):
        doubts.append("replacement-added")
    doubts += [f"ambiguous:{e}" for e in _other_readings(text, plan)]
    return Repair(text=fixed, plan=plan, status=STATUS_DOUBTFUL if doubts else STATUS_REPAIRED,
                  doubts=tuple(dict.fromkeys(doubts)), mojibake_left=left)


def _is_bad(text: str) -> bool:
    try:
        return bool(is_bad(text))
    except Exception:  # noqa: BLE001 - the heuristic failing is "no evidence"
        return False


def _utf8_codec(data: bytes) -> str:
    # ftfy decodes with its 'utf-8-variants' codec (CESU-8, Java's modified UTF-8) when the bytes
    # hold ED or C0, which only those variants use; plain UTF-8 otherwise.
    return "utf-8-variants" if (0xED in data or 0xC0 in data) else "utf-8"


#: The blocks of combining diacritical marks that any script may take (Unicode's Combining
#: Diacritical Marks, its Extended and Supplement blocks, those for Symbols, Half Marks).
_DIACRITIC_BLOCKS = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))


def _is_diacritic(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _DIACRITIC_BLOCKS)


def implausible(text: str) -> int:
    """How many characters of *text* no author writes there: U+FFFD, controls other than tab, line
    feed and carriage return, private-use and unassigned code points (Unicode general categories
    Cc, Co, Cn), and combining diacritical marks (:data:`_DIACRITIC_BLOCKS`) that NFC leaves
    uncomposed, i.e. that sit on no letter with which Unicode has a precomposed character (a mark
    after a space, or U+0329 after ``f``). Compares two readings of the same bytes
    (:func:`repair`'s ``ambiguous`` doubt); not a verdict on one text alone (Vietnamese or
    Yoruba written decomposed keeps marks NFC composes only in part)."""
    count = 0
    for ch in text:
        if ch == "\ufffd" or (unicodedata.category(ch) in ("Cc", "Co", "Cn") and ch not in "\t\n\r"):
            count += 1
    if any(_is_diacritic(ch) for ch in text):
        count += sum(1 for ch in unicodedata.normalize("NFC", text) if _is_diacritic(ch))
    return count


def _rank(text: str) -> tuple[int, int]:
    """How implausible a reading is: (:func:`implausible`, ftfy's badness); lower is better."""
    try:
        bad = _ftfy_badness(text)
    except Exception:  # noqa: BLE001 - the heuristic failing is "no evidence"
        bad = 0
    return implausible(text), bad


def _other_readings(text: str, plan: tuple[tuple[str, str], ...]) -> list[str]:
    """Single-byte encodings other than the plan's first one under which *text* also encodes to
    bytes that decode as UTF-8 (ftfy's way), giving another text than the plan's first step that
    is no less plausible (:func:`_rank`)."""
    if len(plan) < 2 or plan[0][0] != "encode" or plan[1][0] != "decode":
        return []
    chosen = plan[0][1]
    try:
        first = text.encode(chosen).decode(plan[1][1])
    except (UnicodeError, LookupError):
        return []
    others = []
    rank = None
    for encoding in CHARMAP_ENCODINGS:
        if encoding == chosen or not possible_encoding(text, encoding):
            continue
        try:
            data = text.encode(encoding)
            reading = data.decode(_utf8_codec(data))
        except (UnicodeError, LookupError):
            continue
        if reading == first:
            continue
        rank = rank or _rank(first)
        if _rank(reading) <= rank:
            others.append(encoding)
    return others


def apply_plan(text: str, plan) -> str:
    """Replay *plan* (``(action, parameter)`` pairs, as :attr:`Repair.plan` or a stored
    ``list<struct<action, parameter>>``) on *text*: ftfy's ``apply_plan``. Raises ``ValueError``
    for an unknown step, ``UnicodeError`` when the text does not fit the plan's encodings."""
    steps = [(s["action"], s["parameter"]) if isinstance(s, dict) else (s[0], s[1]) for s in plan]
    return ftfy.apply_plan(text, steps)


def fix_text(text: str) -> str:
    """ftfy's ``fix_text`` with its default configuration (every fix, cosmetic ones included),
    line by line. Used by :func:`redecode.diff.compare_texts`."""
    return ftfy.fix_text(text)


def fix_encoding(text: str) -> str:
    """ftfy's ``fix_text`` with :data:`ENCODING_FIXES` (no plan), line by line: each line may be
    repaired in its own way. Used by :func:`redecode.diff.compare_texts`."""
    return ftfy.fix_text(text, _ENCODING_FIXES_QUIET)


def looks_like_mojibake(text: str) -> bool:
    """ftfy's badness heuristic (``ftfy.badness.is_bad``): *text* holds character sequences that
    are far more likely mojibake than text. Not a proof either way."""
    return _is_bad(text)


def badness(text: str) -> int:
    """ftfy's badness score of *text* (``ftfy.badness.badness``): how many character sequences
    typical of text decoded with the wrong codec it holds; 0 for clean text. Compares two readings
    of the same bytes (:func:`redecode.diff.compare_texts`); not a proof either way. Raises what
    ftfy raises on odd text (callers treat that as "no evidence")."""
    return _ftfy_badness(text)
