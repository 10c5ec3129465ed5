"""Labels outside the Encoding Standard (redecode.aliases) and Firefox's TLD fallbacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from redecode import aliases as A
from redecode.labels import ENCODING_NAMES, LABELS, get_encoding

ROOT = Path(__file__).resolve().parents[1]


def test_generated_tables_are_current():
    if A.ALIASES_PYTHON != f"{sys.version_info.major}.{sys.version_info.minor}":
        pytest.skip(f"the python:<codec> aliases were generated on Python {A.ALIASES_PYTHON}")
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_author_tables.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_standard_label_is_a_label_not_an_alias():
    for label in LABELS:
        assert A.alias_encoding(label) is None, label
        assert A.alias_encoding(label.upper()) is None, label


def test_every_standard_label_with_other_punctuation_is_its_encoding():
    """Exhaustive over encodings.json: '-', '_', '.', ' ' and ':' swapped, dropped or doubled."""
    for label, enc in LABELS.items():
        if enc == "replacement":
            continue
        for variant in {label.replace("-", "_"), label.replace("_", "-"), label.replace("-", ""),
                        label.replace("-", " "), label.upper().replace("-", "_"), label + "--"}:
            got = get_encoding(variant) or (A.alias_encoding(variant) or (None,))[0]
            assert got == enc, (label, variant, got)


def test_alias_entries_name_standard_encodings():
    for key, (enc, how) in A.ALIASES.items():
        assert key == A.alias_key(key) and key not in LABELS
        assert enc in ENCODING_NAMES and enc != "replacement", key
        assert how in ("punctuation", "curated") or how.startswith("python:"), how


@pytest.mark.parametrize("label,enc,how", [
    ("MacCyrillic", "x-mac-cyrillic", "python:mac-cyrillic"),
    ("x-MacCyrillic", "x-mac-cyrillic", "punctuation"),
    ("x-MacUkraine", "x-mac-cyrillic", "curated"),
    ("MacRoman", "macintosh", "python:mac-roman"),
    ("cp-1251", "windows-1251", "punctuation"),
    ("Windows_1251", "windows-1251", "punctuation"),
    ("win-1251", "windows-1251", "curated"),
    ("utf8mb4", "UTF-8", "curated"),
    ("utf8mb3", "UTF-8", "curated"),
    ("x-windows-949", "EUC-KR", "curated"),
    ("932", "Shift_JIS", "python:cp932"),
])
def test_known_aliases(label, enc, how):
    assert get_encoding(label) is None
    assert A.alias_encoding(label) == (enc, how)
    assert A.alias_encoding(label).encoding == enc and A.alias_encoding(label).how == how


@pytest.mark.parametrize("label", [None, "", "utf-32", "UTF-32LE", "euc-tw", "x-mac-ce", "hz-gb-2312",
                                   "hz_gb_2312", "iso-2022-kr", "utf-7", "nonsense", "\u212aoi8-r"])
def test_not_aliases(label):
    assert A.alias_encoding(label) is None


def test_alias_key():
    assert A.alias_key("Windows_1251 ") == "windows1251"
    assert A.alias_key("x-Mac-Cyrillic") == "xmaccyrillic"
    assert A.alias_key("k\u212aoi") == ""


def test_firefox_tld_fallbacks_are_the_data_file():
    lines = [ln for ln in (ROOT / "tests" / "data" / "author" / "firefox-domainsfallbacks.properties")
             .read_text("utf-8").splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(A.FIREFOX_TLD_FALLBACKS) == len(lines) == 81
    for line in lines:
        tld, label = line.split("=")
        assert A.FIREFOX_TLD_FALLBACKS[tld] == get_encoding(label)
    assert A.FIREFOX_TLD_FALLBACKS["vn"] == "windows-1258"
    assert A.FIREFOX_TLD_FALLBACKS["hk"] == "Big5"  # Big5-HKSCS is a Big5 label
