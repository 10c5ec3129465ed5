"""The encoding decision (issue "Browser-exact encoding decisions"): precedence table, the issue's
fixture cases, every label of encodings.json, and properties.

Expected values come from the issue's stated order and cases, the HTML/Encoding Standards and
encodings.json (``tests/data/whatwg/encodings.json``), never from the code under test.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redecode.sniff import (
    DEFAULT_ENCODING,
    SOURCES,
    TLD_DEFAULTS,
    Decision,
    Detection,
    bom_sniff,
    choose,
    decide,
    gather,
    tld_of,
)

ENCODINGS_JSON = Path(__file__).parent / "data" / "whatwg" / "encodings.json"
UTF8_TEXT = "Grüße, café, 日本語, Ελληνικά".encode()
CP1251_TEXT = "Съешь же ещё этих мягких французских булок".encode("cp1251")


def pad_to(prefix: bytes, offset: int, fill: bytes = b" ") -> bytes:
    """*prefix* padded with *fill* up to *offset* bytes."""
    assert len(prefix) <= offset
    return prefix + fill * (offset - len(prefix))


def fake_detector(answer: str = "windows-1251", confidence: float = 0.9):
    calls = []

    def detector(payload: bytes, tld: str | None):
        calls.append((payload, tld))
        return Detection(answer, confidence, "fake@1.0")

    detector.calls = calls
    return detector


META_1025_BODY = pad_to(b"<html><body>", 1024 - 21 + 1) + b"<meta charset=koi8-r>"  # ends at 1025, starts 1004
# (row id, payload, Content-Type values, url, detector?, expected encoding, source, confidence)
PRECEDENCE = [
    ("bom-utf8-beats-header-and-meta", b"\xef\xbb\xbf<meta charset=koi8-r>", ["text/html; charset=windows-1251"],
     None, False, "UTF-8", "bom", "certain"),
    ("bom-utf16be", "<p>x".encode("utf-16-be").join([b"\xfe\xff", b""]), [], None, False, "UTF-16BE", "bom", "certain"),
    ("bom-utf16le", b"\xff\xfe" + "<p>x".encode("utf-16-le"), [], None, False, "UTF-16LE", "bom", "certain"),
    ("bom-ff-fe-00-00-is-utf16le", b"\xff\xfe\x00\x00<\x00", [], None, False, "UTF-16LE", "bom", "certain"),
    ("transport-beats-meta", b"<meta charset=big5>", ["text/html; charset=KOI8-R"], None, False,
     "KOI8-R", "transport", "certain"),
    ("transport-x-user-defined", b"<p>\x80", ["text/html; charset=x-user-defined"], None, False,
     "x-user-defined", "transport", "certain"),
    ("transport-utf-16-is-utf16le", b"<\x00p\x00", ['text/html; charset="utf-16"'], None, False,
     "UTF-16LE", "transport", "certain"),
    ("prescan", b"<meta charset=koi8-r>" + CP1251_TEXT, ["text/html"], None, True, "KOI8-R", "prescan", "tentative"),
    ("head-scan", pad_to(b"<html><head><!--", 1097, b"x") + b"-->" + b"<meta charset=koi8-r>",
     ["text/html"], None, True, "KOI8-R", "head-scan", "tentative"),
    ("xml-declaration", b'<?xml version="1.0" encoding="EUC-JP"?><html><p>\xa4\xa2', ["text/html"], None, True,
     "EUC-JP", "xml-declaration", "tentative"),
    ("utf8-valid", b"<p>" + UTF8_TEXT, ["text/html"], "http://example.jp/", True, "UTF-8", "utf8-valid", "tentative"),
    ("detector", b"<p>" + CP1251_TEXT, ["text/html"], "http://example.com/", True, "windows-1251", "detector",
     "tentative"),
    ("default-no-detector", b"<p>" + CP1251_TEXT, ["text/html"], "http://example.ru/", False, "windows-1251",
     "default", "tentative"),
    ("default-ascii-jp", b"<p>plain ascii", ["text/html"], "http://example.jp/", True, "Shift_JIS", "default",
     "tentative"),
    ("default-ascii-com", b"<p>plain ascii", [], "http://example.com/", True, "windows-1252", "default",
     "tentative"),
    # The byte-1024 boundary, both ways (a meta in the body, so only the window counts)...
    ("boundary-meta-ends-at-1024", pad_to(b"<html><body>", 1024 - 21) + b"<meta charset=koi8-r>",
     ["text/html"], None, False, "KOI8-R", "prescan", "tentative"),
    ("boundary-meta-ends-at-1025-body", META_1025_BODY, ["text/html"], None, False, "KOI8-R", "head-scan",
     "tentative"),
    ("boundary-meta-starts-at-1024-body", pad_to(b"<html><body>", 1024) + b"<meta charset=koi8-r>", ["text/html"],
     None, False, "windows-1252", "default", "tentative"),
    # ... and in the head, where Chromium keeps looking.
    ("boundary-meta-starts-at-1024-head", pad_to(b"<html><head><!--", 1021, b"x") + b"--><meta charset=koi8-r>",
     ["text/html"], None, False, "KOI8-R", "head-scan", "tentative"),
]


@pytest.mark.parametrize("row", PRECEDENCE, ids=[r[0] for r in PRECEDENCE])
def test_precedence(row):
    _, payload, ct, url, use_detector, encoding, source, confidence = row
    det = fake_detector() if use_detector else None
    d = decide(payload, content_type=ct, url=url, detector=det)
    assert (d.encoding, d.source, d.confidence) == (encoding, source, confidence)
    if det is not None and source != "detector":
        assert det.calls == []


def test_precedence_table_covers_every_step():
    # every step of the browser's algorithm; "validated" is the author's-text rules' override
    # (tests/test_validate.py has its own table), "parts" their reading in parts (test_stretches.py)
    assert {r[6] for r in PRECEDENCE} == set(SOURCES) - {"validated", "parts"}


def test_boundary_rows_are_where_they_say():
    rows = {r[0]: r[1] for r in PRECEDENCE}
    assert rows["boundary-meta-ends-at-1024"].find(b"<meta") + 21 == 1024
    assert META_1025_BODY.find(b"<meta") + 21 == 1025
    assert rows["boundary-meta-starts-at-1024-body"].find(b"<meta") == 1024
    assert rows["boundary-meta-starts-at-1024-head"].find(b"<meta") == 1024


def test_bom_beats_header_records_conflicts():
    d = decide(b"\xef\xbb\xbf<meta charset=koi8-r>", content_type=["text/html; charset=windows-1251"])
    assert d.bom == "UTF-8"
    assert d.conflict == ("transport:windows-1251", "prescan:koi8-r")
    assert (d.header_charset, d.meta_charset, d.meta_offset) == ("windows-1251", "koi8-r", 3)  # payload offset, after the BOM


def test_bom_sniff():
    assert bom_sniff(b"\xef\xbb\xbfx") == "UTF-8"
    assert bom_sniff(b"\xfe\xff") == "UTF-16BE"
    assert bom_sniff(b"\xff\xfe\x00\x00") == "UTF-16LE"
    assert bom_sniff(b"\x00\x00\xfe\xff") is None  # no UTF-32
    assert bom_sniff(b"\xef\xbb") is None
    assert bom_sniff(b"") is None


# ------------------------------------------------------------------------------------------------
# The "Done when" fixtures


def test_utf8_page_declared_only_in_meta():
    page = b'<!DOCTYPE html><html><head><meta charset="utf-8"><title>' + UTF8_TEXT + b"</title>"
    d = decide(page, content_type=["text/html"], url="http://example.com/")
    assert (d.encoding, d.source, d.meta_charset, d.header_charset) == ("UTF-8", "prescan", "utf-8", None)
    assert d.meta_offset == page.find(b"<meta")


def test_description_meta_is_not_a_declaration():
    page = b'<html><head><meta name="description" content="charset=gbk"><p>' + UTF8_TEXT
    d = decide(page, content_type=["text/html"], url="http://example.cn/")
    assert (d.encoding, d.source, d.meta_charset, d.ignored_labels) == ("UTF-8", "utf8-valid", None, ())


@pytest.mark.parametrize(
    "meta",
    [b'<meta charset="utf-16">', b'<meta http-equiv=Content-Type content="text/html; charset=unicode">'],
)
def test_utf16_meta_on_ascii_page_means_utf8(meta):
    d = decide(b"<html><head>" + meta + b"<p>plain", content_type=["text/html"])
    assert (d.encoding, d.source) == ("UTF-8", "prescan")


def test_x_user_defined_meta_means_windows_1252():
    d = decide(b"<meta charset=x-user-defined><p>\x80\x9f", content_type=["text/html"])
    assert (d.encoding, d.source, d.meta_charset) == ("windows-1252", "prescan", "x-user-defined")


def test_header_utf8_meta_big5_conflict():
    d = decide(b"<meta charset=big5><p>" + UTF8_TEXT, content_type=["text/html; charset=utf-8"])
    assert (d.encoding, d.source, d.confidence) == ("UTF-8", "transport", "certain")
    assert d.conflict == ("prescan:big5",)
    assert (d.header_charset, d.meta_charset) == ("utf-8", "big5")


def test_unknown_header_label_ignored_meta_decides():
    d = decide(b"<meta charset=windows-1251><p>" + CP1251_TEXT, content_type=["text/html; charset=foo"])
    assert (d.encoding, d.source) == ("windows-1251", "prescan")
    assert d.ignored_labels == ("foo",)
    assert d.header_charset == "foo"
    assert d.conflict == ()


HEAD_PAD = b"<html><head><title>t</title><!--" + b"x" * 1030 + b"-->"


def test_meta_at_1100_in_head_honoured():
    page = pad_to(HEAD_PAD, 1100) + b"<meta charset=windows-1251><body><p>" + CP1251_TEXT
    assert page.find(b"<meta") == 1100
    d = decide(page, content_type=["text/html"], url="http://example.com/")
    assert (d.encoding, d.source, d.meta_offset) == ("windows-1251", "head-scan", 1100)


def test_meta_at_1100_in_body_not_honoured():
    page = pad_to(b"<html><head></head><body><p>", 1100, b"x") + b"<meta charset=windows-1251><p>" + CP1251_TEXT
    assert page.find(b"<meta") == 1100
    d = decide(page, content_type=["text/html"], url="http://example.com/")
    assert (d.source, d.meta_charset) == ("default", None)
    assert d.encoding == DEFAULT_ENCODING


def test_numeric_reference_in_meta_is_not_a_label():
    # Chromium's tokenizer decodes the reference (U+2013 EN DASH), and that names no encoding
    # either; the ignored label is the one looked up.
    page = b'<meta charset="iso-8859&#8211;1"><p>caf\xe9'
    d = decide(page, content_type=["text/html"])
    assert d.source == "default" and d.meta_charset is None
    assert d.ignored_labels == ("iso-8859\u20131",)
    # The standard's prescan reads the bytes as written.
    d = decide(page, content_type=["text/html"], chromium_tokenizer=False)
    assert d.source == "default" and d.ignored_labels == ("iso-8859&#8211;1",)


def test_header_windows_utf8_on_utf8_page():
    d = decide(b"<p>" + UTF8_TEXT, content_type=["text/html; charset=windows-UTF-8"])
    assert (d.encoding, d.source, d.ignored_labels, d.header_charset) == (
        "UTF-8", "utf8-valid", ("windows-UTF-8",), "windows-UTF-8")
    assert d.utf8_valid is True and d.ascii_only is False


# ------------------------------------------------------------------------------------------------
# More rules


def test_xml_declaration_only_at_offset_0_and_only_without_meta():
    decl = b'<?xml version="1.0" encoding="EUC-JP"?>'
    assert decide(b" " + decl + b"<p>x").source == "default"
    d = decide(decl + b"<meta charset=koi8-r>")
    assert (d.encoding, d.source, d.xml_charset) == ("KOI8-R", "prescan", "EUC-JP")
    assert d.conflict == ("xml-declaration:EUC-JP",)
    # even a late meta outranks it
    late = decide(decl + b"<head><!--" + b"x" * 2000 + b"--><meta charset=koi8-r>")
    assert (late.encoding, late.source) == ("KOI8-R", "head-scan")
    utf16 = decide(b'<?xml version="1.0" encoding="utf-16"?><p>x')
    assert (utf16.encoding, utf16.source, utf16.xml_charset) == ("UTF-8", "xml-declaration", "utf-16")


def test_utf8_step_off_sends_utf8_to_detector():
    det = fake_detector("UTF-8", 0.5)
    d = decide(b"<p>" + UTF8_TEXT, url="http://example.jp/", detector=det, utf8_step=False)
    assert (d.encoding, d.source, d.detector, d.detector_confidence, d.utf8_valid) == (
        "UTF-8", "detector", "fake@1.0", 0.5, None)
    assert det.calls == [(b"<p>" + UTF8_TEXT, "jp")]


def test_detector_gets_tld_and_is_recorded():
    det = fake_detector("Shift_JIS", 0.99)
    payload = b"<p>" + "日本語のテキスト".encode("cp932")
    d = decide(payload, url="https://www.example.co.jp/x", detector=det)
    assert det.calls == [(payload, "jp")]
    assert (d.encoding, d.source, d.detector, d.detector_confidence, d.tld, d.utf8_valid, d.ascii_only) == (
        "Shift_JIS", "detector", "fake@1.0", 0.99, "jp", False, False)


def test_detector_returning_none_falls_to_default():
    d = decide(b"<p>" + CP1251_TEXT, url="http://example.ru/", detector=lambda p, t: None)
    assert (d.encoding, d.source, d.detector) == ("windows-1251", "default", None)


def test_detector_not_called_for_ascii_or_declared():
    det = fake_detector()
    decide(b"<p>ascii only", detector=det)
    decide(b"<meta charset=koi8-r>\xc1", detector=det)
    decide(b"\xc1\xc2", content_type=["text/html; charset=koi8-r"], detector=det)
    assert det.calls == []


def test_kind_text_skips_document_declarations():
    payload = b'<?xml version="1.0" encoding="EUC-JP"?><meta charset=koi8-r>' + UTF8_TEXT
    d = decide(payload, kind="text")
    assert (d.encoding, d.source, d.meta_charset, d.xml_charset) == ("UTF-8", "utf8-valid", None, None)
    assert decide(b"<meta charset=koi8-r>", kind="text", url="http://a.tw/").encoding == "Big5"
    t = decide(b"\xc1", kind="text", content_type=["text/plain; charset=koi8-r"])
    assert (t.encoding, t.source) == ("KOI8-R", "transport")


def test_kind_xml_order():
    decl = b'<?xml version="1.0" encoding="windows-1251"?><rss>'
    d = decide(decl + CP1251_TEXT, kind="xml")
    assert (d.encoding, d.source, d.confidence) == ("windows-1251", "xml-declaration", "certain")
    # no meta prescan for XML; UTF-8 when nothing is declared, whatever the bytes
    d = decide(b"<rss><meta charset=koi8-r>" + CP1251_TEXT, kind="xml", url="http://example.ru/")
    assert (d.encoding, d.source, d.meta_charset) == ("UTF-8", "default", None)
    d = decide(decl, kind="xml", content_type=["application/rss+xml; charset=utf-8"])
    assert (d.encoding, d.source, d.conflict) == ("UTF-8", "transport", ("xml-declaration:windows-1251",))
    d = decide(b"\xef\xbb\xbf" + decl, kind="xml")
    assert (d.encoding, d.source, d.xml_charset) == ("UTF-8", "bom", "windows-1251")


def test_late_meta_not_scanned_when_header_decided():
    page = pad_to(HEAD_PAD, 1100) + b"<meta charset=windows-1251>"
    d = decide(page, content_type=["text/html; charset=utf-8"])
    assert (d.encoding, d.source, d.meta_charset, d.conflict) == ("UTF-8", "transport", None, ())


def test_constructed_decision_equals_dataclass_init():
    d = decide(b"\xef\xbb\xbf<meta charset=foo>", content_type=["text/html; charset=koi8-r"], url="http://a.jp/")
    again = Decision(**{f.name: getattr(d, f.name) for f in dataclasses.fields(Decision)})
    assert d == again and hash(d) == hash(again) and repr(d) == repr(again)


def test_late_meta_off():
    page = pad_to(HEAD_PAD, 1100) + b"<meta charset=windows-1251>"
    assert decide(page, late_meta=False).source == "default"


def test_unknown_kind_raises():
    with pytest.raises(ValueError):
        decide(b"", kind="json")


def test_multiple_content_type_values():
    # Fetch "extract a MIME type": the charset carries over to a later value of the same essence.
    d = decide(b"\xc1", content_type=["text/html; charset=koi8-r", "text/html"])
    assert (d.encoding, d.source, d.header_charset) == ("KOI8-R", "transport", "koi8-r")
    d = decide(b"\xc1", content_type=["text/html; charset=koi8-r", "text/plain"], url="http://x.com/")
    assert (d.source, d.header_charset) == ("default", None)


def test_decision_shape():
    names = [f.name for f in dataclasses.fields(Decision)]
    assert names == [
        "encoding", "source", "confidence", "bom", "header_charset", "meta_charset", "meta_offset",
        "xml_charset", "ignored_labels", "conflict", "detector", "detector_confidence", "tld",
        "utf8_valid", "ascii_only",
        # not in DESIGN.md's list: what backfill needs to replay a decision from a row
        "meta_source", "xml_encoding",
        # the author's-text rules (redecode.validate)
        "browser_encoding", "validation", "verdict",
        # pages in two encodings (redecode.stretches)
        "stretches",
    ]
    d = decide(b"")
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.encoding = "x"
    with pytest.raises(TypeError):
        Decision("UTF-8", "bom", "certain")  # keyword-only
    assert [f.name for f in dataclasses.fields(Detection)] == ["encoding", "confidence", "detector"]


def test_utf8_validity_of_large_payloads():
    from redecode.sniff import _utf8_valid

    big = "é".encode() * (1 << 20)  # 2 MiB; the chunk boundary falls inside a character
    assert _utf8_valid(big) and _utf8_valid(b"a" + big)
    assert not _utf8_valid(big + b"\xc3")  # truncated at the end
    assert not _utf8_valid(big[:-1] + b"\xff")
    assert not _utf8_valid(b"a" * (3 << 20) + b"\xed\xa0\x80")  # a surrogate


def test_empty_payload():
    d = decide(b"")
    assert (d.encoding, d.source, d.ascii_only) == ("windows-1252", "default", True)


# ------------------------------------------------------------------------------------------------
# TLDs


@pytest.mark.parametrize(
    ("url", "tld"),
    [
        ("http://www.example.jp/", "jp"),
        ("https://WWW.EXAMPLE.CO.JP:8080/a?b#c", "jp"),
        ("http://user:pw@host.example.ru/x", "ru"),
        ("http://example.com./", "com"),
        ("http://xn--fiqs8s.xn--fiqs8s/", "xn--fiqs8s"),
        ("example.tw/path", "tw"),
        ("<http://example.kr/>", "kr"),
        ("http://192.168.0.1/", None),
        ("http://[2001:db8::1]/", None),
        ("http://localhost:8000/", None),
        ("", None),
        (None, None),
        ("not a url", None),
        ("http://a.ru:99999/", "ru"),
    ],
)
def test_tld_of(url, tld):
    assert tld_of(url) == tld


def test_tld_defaults_are_the_measured_ones():
    # Issue "Browser-exact encoding decisions", step 8 (Chromium, observed).
    assert TLD_DEFAULTS == {"jp": "Shift_JIS", "ru": "windows-1251", "cn": "GBK", "tw": "Big5", "kr": "EUC-KR"}
    for tld, encoding in [*TLD_DEFAULTS.items(), ("com", "windows-1252"), ("de", "windows-1252")]:
        d = decide(b"<p>ascii", url=f"http://example.{tld}/")
        assert (d.encoding, d.source, d.tld) == (encoding, "default", tld)


# ------------------------------------------------------------------------------------------------
# Every label of encodings.json, through the header and through a meta


def _labels() -> list[tuple[str, str]]:
    data = json.loads(ENCODINGS_JSON.read_text())
    return [(label, enc["name"]) for group in data for enc in group["encodings"] for label in enc["labels"]]


LABELS = _labels()
META_REMAP = {"UTF-16BE": "UTF-8", "UTF-16LE": "UTF-8", "x-user-defined": "windows-1252"}


def test_label_count():
    assert len(LABELS) > 200 and len({name for _, name in LABELS}) == 40


@pytest.mark.parametrize(("label", "name"), LABELS, ids=[lab for lab, _ in LABELS])
def test_every_label(label, name):
    h = decide(b"<p>x", content_type=[f"text/html; charset={label}"])
    assert (h.encoding, h.source, h.header_charset) == (name, "transport", label)
    m = decide(f'<meta charset="{label.upper()}">'.encode())
    assert (m.encoding, m.source, m.meta_charset) == (META_REMAP.get(name, name), "prescan", label.upper())


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(LABELS),
    st.text(alphabet="\t\n\x0c\r ", max_size=3),
    st.text(alphabet="\t\n\x0c\r ", max_size=3),
    st.randoms(use_true_random=False),
)
def test_label_lookup_ignores_case_and_whitespace(pair, lead, trail, rnd):
    label, name = pair
    mixed = "".join(c.upper() if rnd.random() < 0.5 else c for c in label)
    quoted = f'"{lead}{mixed}{trail}"'.replace("\r", " ").replace("\n", " ").replace("\x0c", " ")
    h = decide(b"<p>x", content_type=[f"text/html; charset={quoted}"])
    assert h.encoding == name
    m = decide(f"<meta charset='{lead}{mixed}{trail}'>".encode())
    assert m.encoding == META_REMAP.get(name, name)


# ------------------------------------------------------------------------------------------------
# Total on arbitrary input

content_types = st.lists(st.text(max_size=30) | st.sampled_from(
    ["text/html; charset=utf-8", "text/html; charset=", 'text/html; charset="', "text/html;;;", "*/*"]),
    max_size=3)


@settings(max_examples=300, deadline=None)
@given(
    payload=st.binary(max_size=3000),
    ct=content_types,
    url=st.none() | st.text(max_size=30),
    kind=st.sampled_from(["html", "xml", "text"]),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans()),
)
@pytest.mark.slow
def test_decide_never_raises(payload, ct, url, kind, flags):
    utf8_step, late, chromium = flags
    d = decide(payload, content_type=ct, url=url, kind=kind, detector=lambda p, t: None,
               utf8_step=utf8_step, late_meta=late, chromium_tokenizer=chromium)
    assert d.source in SOURCES
    assert d.confidence in ("certain", "tentative", "irrelevant")
    assert isinstance(d.encoding, str) and d.encoding


@settings(max_examples=100, deadline=None)
@given(prefix=st.binary(max_size=1024), suffix=st.binary(max_size=200))
def test_prescan_step_ignores_bytes_after_window_in_decide(prefix, suffix):
    """When the decision comes from the prescan step, appending bytes after the first 1024 does
    not change it."""
    base = pad_to(b"<meta charset=koi8-r>" + prefix[: 1024 - 21], 1024)
    a = decide(base)
    b = decide(base + suffix)
    if a.source == "prescan":
        assert (b.encoding, b.source, b.meta_offset) == (a.encoding, a.source, a.meta_offset)


# --- gather / choose (the decision replayed from stored facts) -----------------------------

_REPLAY_CASES = [
    (b"\xef\xbb\xbf<meta charset=koi8-r>x", ["text/html; charset=gbk"], "html"),
    (b"<meta charset=koi8-r>\xc1", ["text/html; charset=bogus"], "html"),
    (b"<meta charset=koi8-r>\xc1", ["text/html; charset=gbk"], "html"),
    (b"<title>t</title>" + b" " * 2000 + b"<meta charset=big5>\xa4\x40", ["text/html"], "html"),
    (b"<?xml version='1.0' encoding='euc-jp'?><p>\xa4\xa2", ["text/html"], "html"),
    (b"<?xml version='1.0' encoding='euc-jp'?><p>\xa4\xa2", ["application/xml"], "xml"),
    (b"<\x00?\x00x\x00m\x00l\x00", ["text/html"], "html"),
    (b"<\x00?\x00x\x00m\x00l\x00", ["text/html; charset=utf-8"], "html"),
    (b"plain ascii", ["text/plain"], "text"),
    (b"caf\xc3\xa9", ["text/plain"], "text"),
    (b"caf\xe9", ["text/html"], "html"),
    (b"<meta charset=foo><meta charset=utf-16>\xc3\xa9", [], "html"),
]


@pytest.mark.parametrize("payload,ct,kind", _REPLAY_CASES)
def test_decide_is_choose_of_gather(payload, ct, kind):
    # The refactoring contract: decide = choose(gather(...)), field for field.
    det = Detection("windows-1251", 0.5, "fake@1")
    for url in ("http://example.jp/", "http://example.com/", None):
        want = decide(payload, content_type=ct, url=url, kind=kind, detector=lambda p, t: det)
        facts = gather(payload, content_type=ct, url=url, kind=kind)
        assert choose(facts, detection=det) == want
        assert choose(facts, detection=lambda: det) == want


def test_choose_needs_bytes_for_missing_facts():
    facts = gather(b"caf\xe9", content_type=["text/html"], url="http://x.de/")
    assert facts.ascii_only is False and facts.utf8_valid is False
    assert choose(facts) is None  # the detector's answer is needed
    assert choose(facts, detection=None).source == "default"
    assert choose(facts._replace(utf8_valid=None)) is None
    assert choose(facts._replace(ascii_only=None), detection=None) is None
    # Declared pages never need them.
    declared = gather(b"caf\xe9", content_type=["text/html; charset=latin1"])
    assert declared.ascii_only is None and choose(declared).encoding == "windows-1252"


def test_meta_source_and_xml_encoding_recorded():
    late = b"<title>t</title>" + b" " * 2000 + b"<meta charset=big5>"
    d = decide(late)
    assert (d.source, d.meta_source, d.meta_charset) == ("head-scan", "head-scan", "big5")
    d = decide(b"<meta charset=big5>", content_type=["text/html; charset=utf-8"])
    assert (d.meta_source, d.conflict) == ("prescan", ("prescan:big5",))
    d = decide(b"<\x00?\x00x\x00", content_type=["text/html; charset=utf-8"])
    assert (d.xml_charset, d.xml_encoding, d.conflict) == (None, "UTF-16LE", ("xml-declaration:",))
