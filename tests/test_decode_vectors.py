"""Shared decode vectors: encoding_rs test data and web-platform-tests decoder expectations.

Data: tests/data/encoding_rs (hsivonen/encoding_rs @ c4a1676, Apache-2.0 OR MIT) and
tests/data/wpt/decoder-cases.json (web-platform-tests, 3-clause BSD); see the README beside each.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redecode.decode import decode
from redecode.labels import get_encoding

DATA = Path(__file__).resolve().parent / "data"
ENCODING_RS = DATA / "encoding_rs"
WPT = json.loads((DATA / "wpt" / "decoder-cases.json").read_text("utf-8"))

# input file -> (decoder, whether encoding_rs reports errors for it)
RS_CASES = {
    "big5": ("Big5", True),
    "euc_kr": ("EUC-KR", True),
    "gb18030": ("gb18030", False),
    "iso_2022_jp": ("ISO-2022-JP", True),
    "jis0208": ("EUC-JP", True),
    "jis0212": ("EUC-JP", True),
    "shift_jis": ("Shift_JIS", True),
}


@pytest.mark.parametrize("stem", list(RS_CASES))
def test_encoding_rs_in_ref(stem):
    name, has_errors = RS_CASES[stem]
    data = (ENCODING_RS / f"{stem}_in.txt").read_bytes()
    expected = (ENCODING_RS / f"{stem}_in_ref.txt").read_bytes().decode("utf-8")
    r = decode(data, name, bom_sniff=False)
    assert r.text == expected
    assert (r.errors > 0) == has_errors
    # U+FFFD is in no index, and only gb18030's 84 31 A4 37 encodes it; encoding_rs's reference text
    # marks each error with one U+FFFD, so the error count is exactly the number of U+FFFD.
    assert r.errors == expected.count("\ufffd")


def test_encoding_rs_gbk_is_gb18030():
    data = (ENCODING_RS / "gb18030_in.txt").read_bytes()
    assert decode(data, "GBK", bom_sniff=False).text == decode(data, "gb18030", bom_sniff=False).text


def _groups(prefix: str):
    return [g for g in WPT["groups"] if g["group"].startswith(prefix)]


def _name(label: str) -> str:
    name = get_encoding(label)
    assert name is not None, label
    return name


def _cases(prefix: str):
    out = []
    for g in _groups(prefix):
        for i, c in enumerate(g["cases"]):
            out.append(pytest.param(c, id=f"{c['encoding']}-{c.get('name') or c.get('title') or i}"))
    return out


@pytest.mark.parametrize("case", _cases("iso-2022-jp decoder"))
def test_wpt_iso2022jp_decoder(case):
    r = decode(bytes(case["bytes"]), _name(case["encoding"]))
    assert r.text == case["expected"]
    assert r.errors == case["expected"].count("\ufffd")


@pytest.mark.parametrize("case", _cases("fatal-mode"))
def test_wpt_fatal_cases_are_errors(case):
    # Fatal mode throws on the first error; in replacement mode that means at least one error.
    assert case["expected"] == "error (fatal)"
    r = decode(bytes(case["bytes"]), _name(case["encoding"]))
    assert r.errors >= 1
    assert "\ufffd" in r.text


@pytest.mark.parametrize("case", _cases("byte order marks"))
def test_wpt_bom(case):
    name = _name(case["encoding"])
    data, bom = bytes(case["bytes"]), bytes(case["bom"])
    assert decode(data, name).text == case["expected"]
    r = decode(bom + data, name)
    assert (r.text, r.encoding, r.bom_removed) == (case["expected"], name, True)
    # A BOM of another encoding is not stripped: it takes over, and the text differs.
    for other in (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"):
        if other != bom:
            assert decode(other + data, name).text != case["expected"]


@pytest.mark.parametrize("case", _cases("UTF-16 surrogate"))
def test_wpt_utf16_surrogates(case):
    r = decode(bytes(case["bytes"]), _name(case["encoding"]))
    assert r.text == case["expected"]
    assert r.errors == case["expected"].count("\ufffd")


@pytest.mark.parametrize("case", _cases("end-of-queue"))
def test_wpt_end_of_queue(case):
    r = decode(bytes(case["bytes"]), _name(case["encoding"]))
    assert r.text == case["expected"]


def test_wpt_end_of_queue_streaming():
    # A streamed sequence ends (and the decoder resets) at each step with stream=false; one-shot
    # decoding of the chunks of each such run must equal the concatenated streamed outputs.
    (group,) = _groups("end-of-queue")
    seqs = group["streaming_sequences"]
    assert len(seqs) == 13
    runs = 0
    for seq in seqs:
        name = _name(seq["encoding"])
        data, expected = b"", ""
        for step in seq["steps"]:
            data += bytes(step["chunk"] or [])
            expected += step["expected"]
            if not step["stream"]:
                assert decode(data, name).text == expected, seq
                data, expected = b"", ""
                runs += 1
        assert not data and not expected, seq  # every sequence ends with a flush
    assert runs >= 13


@pytest.mark.parametrize("case", _cases("GBK decoder"))
def test_wpt_gbk_pointers(case):
    text = decode(bytes(case["bytes"]), _name(case["encoding"])).text
    assert f"U+{ord(text[0]):04X}" == case["expected_first_code_point"]


LEGACY = ["shift_jis", "euc-jp", "euc-kr", "big5", "gb18030", "iso-2022-jp"]


def _legacy_cases():
    out = []
    for prefix in LEGACY:
        for g in _groups(f"{prefix} decode errors"):
            for c in g["cases"]:
                out.append(pytest.param(c, id=f"{prefix}-{c['title']}"))
    return out


# Cases whose upstream expectation is not what the whole input decodes to, with the reason. They
# are not skipped silently: each is checked against what the standard gives for the bytes as they
# appear in the test (followed by "</span>"), or against the MANIFEST's corrected bytes.
TITLE_TYPOS = {
    # MANIFEST: "B0 B0 FF" (euc-kr) is a typo for B0 B5 FF; "AB AB FF" (big5) for AB B5 FF.
    ("euc-kr", (0xB0, 0xB0, 0xFF)): (0xB0, 0xB5, 0xFF),
    ("big5", (0xAB, 0xAB, 0xFF)): (0xAB, 0xB5, 0xFF),
}


# Upstream expectations that contradict the current standard for the bytes named in the title
# (MANIFEST: "2 iso-2022-jp 'escape' cases disagree with the current spec"; the resource files could
# not be fetched byte-exactly). Worked by hand from the ISO-2022-JP decoder: ESC then a byte other
# than 0x24/0x28 restores that byte (one error); ESC 0x24 then a non-escape byte restores both.
SPEC_OVERRIDES = {
    "escape start: 1B 65 79 56 1B 28 42": "\ufffdeyV",  # upstream: "\ufffdeByV"
    "escape: 1B 24 65 79 56 1B 28 42": "\ufffd$eyV",  # upstream: "\ufffde$yV"
}


@pytest.mark.parametrize("case", _legacy_cases())
def test_wpt_legacy_decode_errors(case):
    name = _name(case["encoding"])
    data = tuple(case["bytes_from_title"])
    data = bytes(TITLE_TYPOS.get((case["encoding"], data), data))
    expected = SPEC_OVERRIDES.get(case["title"], case["expected_textContent"])
    alone = decode(data, name).text
    in_span = decode(data + b"</span>", name).text
    # In the test the bytes are followed by "</span>"; a decoder state left open at the end of the
    # bytes (e.g. gb18030 "82 30 C3") decodes differently there. The upstream expectation must
    # match one of the two readings, and for stateless endings both must agree.
    if in_span.endswith("</span>"):
        in_span_text = in_span[: -len("</span>")]
    else:
        in_span_text = None  # the markup itself was consumed (ISO-2022-JP not back in ASCII)
    assert expected in (alone, in_span_text), (alone, in_span)
