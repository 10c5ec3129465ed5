"""Encoding Standard "get an encoding": every label of encodings.json, case and whitespace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redecode import labels
from redecode.labels import ENCODING_NAMES, WHATWG_ENCODING_REVISION, get_encoding

ROOT = Path(__file__).resolve().parent.parent
WHATWG = Path(__file__).resolve().parent / "data" / "whatwg"

_ENCODINGS = json.loads((WHATWG / "encodings.json").read_text("utf-8"))
ALL = [(label, enc["name"]) for group in _ENCODINGS for enc in group["encodings"] for label in enc["labels"]]
ALL_LABELS = [label for label, _ in ALL]
ASCII_WS = "\t\n\f\r "


def test_revision_pinned():
    assert WHATWG_ENCODING_REVISION == "a985b62a9b45c17da3e17a9f0a0b4e30c34c4a8a"


def test_names():
    expected = tuple(enc["name"] for group in _ENCODINGS for enc in group["encodings"])
    assert ENCODING_NAMES == expected
    assert len(ENCODING_NAMES) == 40
    for name in ("UTF-8", "windows-1252", "Shift_JIS", "UTF-16LE", "replacement", "x-user-defined"):
        assert name in ENCODING_NAMES


def test_label_count():
    assert len(ALL) == len(set(ALL_LABELS)) == len(labels.LABELS)


@pytest.mark.parametrize(("label", "name"), ALL, ids=ALL_LABELS)
def test_every_label(label, name):
    assert get_encoding(label) == name
    assert get_encoding(label.upper()) == name
    assert get_encoding(label.title()) == name
    assert get_encoding(f"{ASCII_WS}{label}{ASCII_WS}") == name
    assert get_encoding(label.encode("ascii")) == name
    assert get_encoding(b" \t" + label.upper().encode("ascii") + b"\r\n\f") == name


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("utf-16", "UTF-16LE"),
        ("unicode", "UTF-16LE"),
        ("utf-16be", "UTF-16BE"),
        ("latin1", "windows-1252"),
        ("iso-8859-1", "windows-1252"),
        ("us-ascii", "windows-1252"),
        ("ascii", "windows-1252"),
        ("iso-8859-9", "windows-1254"),
        ("gb2312", "GBK"),
        ("x-gbk", "GBK"),
        ("sjis", "Shift_JIS"),
        ("windows-31j", "Shift_JIS"),
        ("ks_c_5601-1987", "EUC-KR"),
        ("big5-hkscs", "Big5"),
        ("iso-2022-kr", "replacement"),
        ("hz-gb-2312", "replacement"),
        ("x-user-defined", "x-user-defined"),
        ("tis-620", "windows-874"),
        ("csiso88598i", "ISO-8859-8-I"),
        # Not labels:
        ("utf-32", None),
        ("utf-7", None),
        ("", None),
        ("   ", None),
        ("utf8 x", None),
        ("windows-UTF-8", None),
        ("iso-8859-8-e", "ISO-8859-8"),
        ("csISOLatinHebrew", "ISO-8859-8"),
        ("replacement", "replacement"),
        ("big5hkscs", None),
        ("\x0butf-8", None),  # VT is not ASCII whitespace
        ("utf-8\xa0", None),  # NBSP is not ASCII whitespace
        ("utf-8\x85", None),
        ("\u212aoi8-r", None),  # KELVIN SIGN lower-cases to "k" in Python, not in ASCII
        ("utf\u20118", None),
        (b"utf-8\xff", None),
        (b"\xef\xbb\xbfutf-8", None),
    ],
)
def test_specific(label, expected):
    assert get_encoding(label) == expected


def _random_case(draw, label: str) -> str:
    flips = draw(st.lists(st.booleans(), min_size=len(label), max_size=len(label)))
    return "".join(c.upper() if f else c for c, f in zip(label, flips))


@st.composite
def decorated_label(draw):
    label, name = draw(st.sampled_from(ALL))
    ws = st.text(alphabet=ASCII_WS, max_size=4)
    return draw(ws) + _random_case(draw, label) + draw(ws), name


@given(decorated_label())
def test_case_and_whitespace_insensitive(pair):
    label, name = pair
    assert get_encoding(label) == name
    assert get_encoding(label.encode("ascii")) == name


@given(st.text(max_size=30))
def test_total_and_consistent(text):
    result = get_encoding(text)
    assert result is None or result in ENCODING_NAMES
    key = text.strip(ASCII_WS)
    if key.isascii():
        assert result == labels.LABELS.get(key.lower())
    else:
        assert result is None


@given(st.binary(max_size=30))
def test_bytes_total(data):
    result = get_encoding(data)
    assert result is None or result in ENCODING_NAMES
    if result is not None:
        assert get_encoding(data.decode("ascii")) == result


@given(st.sampled_from(ALL_LABELS), st.sampled_from(["\x0b", "\xa0", "\u3000", "\x00", "x"]))
def test_other_padding_breaks_match(label, pad):
    assert get_encoding(pad + label) is None
    assert get_encoding(label + pad) is None


def test_generated_module_up_to_date():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_tables.py"), "--check"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
