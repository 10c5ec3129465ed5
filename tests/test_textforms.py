"""redecode.textforms: the three lengths of a text and its normalisation forms.

Grapheme clusters are checked against the ``regex`` package's ``\\X`` (the library this module
uses; the ASCII shortcut must agree with it everywhere) and against the examples of UAX #29
"Unicode Text Segmentation", table 1a "Sample Grapheme Clusters" and the rules it names;
normalisation against UAX #15's definitions through Python's ``unicodedata``.
"""

from __future__ import annotations

import itertools
import unicodedata

import regex
from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from redecode import textforms
from redecode.textforms import FORMS, grapheme_count, normalize


def _clusters(text: str) -> int:
    return len(regex.findall(r"\X", text))


@pytest.mark.parametrize(("text", "clusters"), [
    ("", 0),
    ("abc", 3),
    ("\r\n", 1),                                      # GB3: CR x LF
    ("\n\r", 2),                                      # GB4/GB5: LF then CR break
    ("a\r\nb", 3),
    ("g\u0308", 1),                                   # g + combining diaeresis (table 1a)
    ("\u1100\u1161\u11a8", 1),                        # Hangul L V T: 각 (GB6-GB8)
    ("\u0e01\u0e33", 1),                              # Thai ก + SARA AM (spacing mark, GB9a)
    ("\u0ba8\u0bbf", 1),                              # Tamil நி (table 1a)
    ("\u0937\u093f", 1),                              # Devanagari षि (table 1a)
    ("\U0001F44D\U0001F3FD", 1),                      # thumbs up + skin tone modifier (GB9 Extend)
    ("\U0001F1E9\U0001F1EA\U0001F1EB\U0001F1F7", 2),  # two flags (GB12/GB13: RI pairs)
    ("\U0001F468\u200d\U0001F469\u200d\U0001F467", 1),  # family, ZWJ sequence (GB11)
    ("1\ufe0f\u20e3", 1),                             # keycap: ASCII digit + VS16 + enclosing keycap
    ("e\u0301\U0001F44D\U0001F3FD", 2),               # docs/columns.md's example
])
def test_grapheme_count_examples(text, clusters):
    assert grapheme_count(text) == clusters == _clusters(text)


def test_ascii_shortcut_agrees_with_regex_on_every_pair_of_ascii_characters():
    for a, b in itertools.product(map(chr, range(128)), repeat=2):
        assert grapheme_count(a + b) == _clusters(a + b), repr(a + b)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("\r\n\t ab\x00\x7f~"), max_size=40))
def test_ascii_shortcut_agrees_with_regex(text):
    assert grapheme_count(text) == _clusters(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_grapheme_count_is_regex_x(text):
    assert grapheme_count(text) == _clusters(text)


def test_the_three_lengths_of_the_readme_example():
    text = "e\u0301\U0001F44D\U0001F3FD"
    assert (len(text), len(text.encode("utf-8")), grapheme_count(text)) == (4, 11, 2)


@pytest.mark.parametrize(("form", "text", "expected"), [
    ("NFC", "e\u0301", "\u00e9"),                 # canonical composition
    ("NFC", "\u00e9", "\u00e9"),
    ("NFC", "\ufb01", "\ufb01"),                  # the ligature is only a compatibility equivalent
    ("NFKC", "\ufb01", "fi"),
    ("NFKC", "\uff21\uff22", "AB"),                # fullwidth Latin
    ("NFKC", "10\u00b3", "103"),                   # superscript three: NFKC changes meaning
    ("NFC", "\u212b", "\u00c5"),                   # ANGSTROM SIGN -> A with ring (singleton)
    ("NFC", "\u1100\u1161\u11a8", "\uac01"),       # conjoining jamo -> syllable 각
])
def test_normalize(form, text, expected):
    assert normalize(text, form) == expected == unicodedata.normalize(form, text)


def test_normalize_returns_the_text_itself_when_already_in_the_form():
    text = "Grüße aus Köln " * 10
    for form in FORMS:
        assert normalize(text, form) is text


def test_unknown_form_is_refused():
    with pytest.raises(ValueError, match="unknown normalization form 'NFD': NFC or NFKC"):
        normalize("x", "NFD")


def test_versions():
    assert textforms.UNICODE_VERSION == unicodedata.unidata_version
    assert textforms.grapheme_version() == f"regex@{regex.__version__}"


def test_columns_page_three_lengths_table():
    """docs/columns.md's table of the three lengths (the README's until the docs/ pages): each
    row's figures, computed here."""
    from pathlib import Path
    import re

    page = (Path(__file__).resolve().parent.parent / "docs" / "columns.md").read_text(encoding="utf-8")
    m = re.search(r"\| text \| code points \| UTF-8 bytes \| grapheme clusters \|\n\|.*\|\n((?:\|.*\|\n)+)", page)
    assert m, "docs/columns.md has no table of the three lengths"
    figures = [tuple(int(x) for x in line.split("|")[2:5]) for line in m.group(1).splitlines()]
    texts = ["abc", "\u00e9", "e\u0301", "\U0001F44D\U0001F3FD", "\U0001F1E9\U0001F1EA", "\r\n",
             "\u1100\u1161\u11a8"]
    assert figures == [(len(t), len(t.encode("utf-8")), grapheme_count(t)) for t in texts]

