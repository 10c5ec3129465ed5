"""What the pipelines ask of a decoded text besides the text: its length in the three senses, and a
Unicode normalisation form on request.

The only module that imports :mod:`regex` (imported on first use: a run that does not ask for
grapheme clusters never loads it).

======================  ==========================================================================
concept                 function
======================  ==========================================================================
UTF-8 length (bytes)    ``len(text.encode("utf-8"))``: the job takes it from the bytes it writes
code points             ``len(text)`` (the ``text_length`` column)
grapheme clusters       :func:`grapheme_count`: Unicode UAX #29 "Unicode Text Segmentation",
                        *extended* grapheme clusters, as the ``regex`` package's ``\\X`` finds them
normalisation           :func:`normalize`: Unicode UAX #15 "Unicode Normalization Forms", NFC or
                        NFKC, by Python's :mod:`unicodedata`
======================  ==========================================================================

An example where the three lengths differ: ``"e\\u0301👍🏽"`` (``e`` + COMBINING ACUTE ACCENT,
THUMBS UP SIGN + EMOJI MODIFIER FITZPATRICK TYPE-4) is 4 code points, 11 bytes of UTF-8
(1 + 2 + 4 + 4) and 2 grapheme clusters.

Versions: the grapheme clusters follow the Unicode data of the ``regex`` package
(:func:`grapheme_version`, e.g. ``regex@2026.11.19``), the normalisation forms the Unicode data of
Python's :mod:`unicodedata` (:data:`UNICODE_VERSION`, e.g. ``14.0.0`` in Python 3.11); the two can
differ. Both go into the rules digest when asked for (:meth:`redecode.rules.Rules.versions`),
so a replay with other Unicode data is a different rule set.

Deviations: none. A text of ASCII characters only is counted without ``regex``: UAX #29 breaks
between any two ASCII characters except CR LF (GB3, GB4, GB5, GB999), so its cluster count is its
length less its CR LF pairs (checked against ``\\X`` by ``tests/test_textforms.py``).
"""

from __future__ import annotations

import functools
import unicodedata

from .versions import version as _installed_version

__all__ = ["FORMS", "UNICODE_VERSION", "grapheme_count", "grapheme_version", "normalize"]

#: The normalisation forms ``run --normalize`` offers: the composed ones (the decomposed forms,
#: NFD and NFKD, make text longer and are what search indexes do internally, not what they store).
FORMS = ("NFC", "NFKC")

#: The Unicode version of Python's :mod:`unicodedata`, which :func:`normalize` follows.
UNICODE_VERSION = unicodedata.unidata_version


@functools.cache
def grapheme_version() -> str:
    """``regex@<version>``: the package (and so the Unicode data) that :func:`grapheme_count`
    uses. Read from the installed distribution, without importing it
    (:func:`redecode.versions.version`)."""
    return f"regex@{_installed_version('regex')}"


@functools.cache
def _cluster_pattern():
    import regex  # noqa: PLC0415 - loaded only when grapheme clusters are asked for

    return regex.compile(r"\X")


def grapheme_count(text: str) -> int:
    """The number of extended grapheme clusters in *text* (UAX #29, "Grapheme Cluster
    Boundaries"; ``regex``'s ``\\X``). 0 for the empty string. Never raises for a ``str``."""
    if text.isascii():
        return len(text) - text.count("\r\n")
    n = 0
    for _ in _cluster_pattern().finditer(text):
        n += 1
    return n


def normalize(text: str, form: str) -> str:
    """*text* in Unicode normalisation form *form* (``NFC`` or ``NFKC``; UAX #15), by Python's
    :mod:`unicodedata` (Unicode :data:`UNICODE_VERSION`). Returns *text* itself (the same object)
    when it is already in that form. Raises ``ValueError`` for another form."""
    if form not in FORMS:
        raise ValueError(f"unknown normalization form {form!r}: {' or '.join(FORMS)}")
    return unicodedata.normalize(form, text)
