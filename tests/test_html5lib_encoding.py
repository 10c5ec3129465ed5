"""html5lib-tests ``encoding/*.dat`` through the decision, and Chromium 156's answers for them.

Expected values come from the files (``#encoding``) and, where Chromium departs from them, from
Chromium's measured ``document.characterSet`` (``chromium-156.jsonl``), never from the code.
Each case is served as Chromium saw it: ``text/html`` without charset from
``http://www.example.com/``; no detector and no UTF-8 validity step, so an undeclared page gets
the ``.com`` default windows-1252, the files' control value. ``encoding/scripted/tests1.dat``
is left out: it needs script execution.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redecode.labels import get_encoding
from redecode.sniff import decide

DATA = Path(__file__).parent / "data" / "html5lib"
FILES = ("tests1.dat", "tests2.dat", "test-yahoo-jp.dat")

# Where Chromium 156 departs from the .dat expectation, and why. Measured (chromium-156.jsonl).
DEPARTURES = {
    ("tests1.dat", 54): "meta inside <script> text: Chromium tokenizes, the text is no declaration",
    ("tests1.dat", 55): 'meta inside <script type="text/plain"> text: raw text for the tokenizer',
    ("tests1.dat", 56): "meta inside <style> text: raw text for the tokenizer",
}


def _read_dat(name: str) -> list[tuple[bytes, str]]:
    raw = (DATA / name).read_bytes()
    cases = []
    for chunk in raw.split(b"#data\n")[1:]:
        data, sep, rest = chunk.partition(b"\n#encoding\n")
        assert sep, f"{name}: a test without #encoding"
        cases.append((data, rest.split(b"\n", 1)[0].decode("ascii").strip()))
    return cases


def _chromium() -> dict[tuple[str, int], dict]:
    out = {}
    for line in (DATA / "chromium-156.jsonl").read_text().splitlines():
        row = json.loads(line)
        out[(row["file"].removeprefix("encoding/"), row["index"])] = row
    return out


CHROMIUM = _chromium()
CASES = [(name, i, data, exp) for name in FILES for i, (data, exp) in enumerate(_read_dat(name))]


def _id(case) -> str:
    name, i, _, _ = case
    return f"{name}:{i}" + (":chromium-departs" if (name, i) in DEPARTURES else "")


def _decide(data: bytes, **kw):
    return decide(data, content_type=["text/html"], url="http://www.example.com/", utf8_step=False, **kw)


def test_files_and_measurements_line_up():
    assert len(CASES) == 82 == len(CHROMIUM)
    for name, i, _, exp in CASES:
        row = CHROMIUM[(name, i)]
        assert row["html5lib_expected"] == exp
        disagree = get_encoding(row["chromium_156"]) != get_encoding(exp)
        assert disagree == ((name, i) in DEPARTURES), (name, i)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_browser_decision(case):
    """The default decision (Chromium's tokenizing prescan + head scan) gives the file's answer,
    or Chromium's where Chromium departs (DEPARTURES says why)."""
    name, i, data, exp = case
    if (name, i) in DEPARTURES:
        exp = CHROMIUM[(name, i)]["chromium_156"]
    want = get_encoding(exp)
    assert want is not None
    got = _decide(data)
    assert got.encoding == want, DEPARTURES.get((name, i), "")


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_spec_prescan_matches_file(case):
    """With ``chromium_tokenizer=False`` (the standard's literal prescan) every case, including
    the three Chromium departures, gives the file's answer."""
    name, i, data, exp = case
    assert _decide(data, chromium_tokenizer=False).encoding == get_encoding(exp)


LATE = [c for c in CASES if b"<meta" in c[2][1024:].lower() and b"<meta" not in c[2][:1024].lower()]


def test_late_meta_cases_exist():
    # The corpus MANIFEST lists seven metas beyond byte 1024, at these offsets.
    assert len(LATE) == 7
    assert sorted(c[2].lower().find(b"<meta") for c in LATE) == [2020, 2021, 4068, 4069, 8164, 8165, 8317]


@pytest.mark.parametrize("case", LATE, ids=_id)
def test_late_meta_is_head_scan(case):
    """Departure from a 1024-byte prescan: html5lib finds these metas by reparsing, Chromium by
    its late-meta scan while still in the head; here they come from ``head-scan``, and turning
    the late scan off gives the default."""
    name, i, data, exp = case
    got = _decide(data)
    assert (got.source, got.encoding) == ("head-scan", get_encoding(exp))
    assert got.meta_offset == data.lower().find(b"<meta")
    assert _decide(data, late_meta=False).source == "default"
