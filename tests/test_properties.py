"""Property tests (hypothesis): the decision and the decoders are total on arbitrary bytes.

Issue 10: sniff and decode never raise and always return text of bounded size; the prescan result
does not change when bytes are appended after its 1024-byte window.

The size bound comes from the Encoding Standard's decoders: every decoder consumes at least one
byte per code point it emits, except where it emits two for two bytes (Big5 pointers 1133, 1135,
1164, 1166; a lead byte followed by an ASCII byte, which is an error plus the re-read ASCII byte).
An error emits one U+FFFD for at least one consumed byte; "end-of-queue" with a pending lead emits
one U+FFFD for the pending bytes; escape sequences (ISO-2022-JP) and BOMs emit nothing;
``replacement`` emits one U+FFFD for a non-empty input. So ``len(text) <= len(data)`` code points
for every encoding, and exactly ``len(data)`` for the single-byte encodings and x-user-defined.
"""

from __future__ import annotations

import codecs

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from redecode.labels import ENCODING_NAMES, LABELS

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

BOMS = {b"\xef\xbb\xbf": "UTF-8", b"\xfe\xff": "UTF-16BE", b"\xff\xfe": "UTF-16LE"}

SINGLE_BYTE = [n for n in ENCODING_NAMES if n not in {
    "UTF-8", "GBK", "gb18030", "Big5", "EUC-JP", "ISO-2022-JP", "Shift_JIS", "EUC-KR",
    "replacement", "UTF-16BE", "UTF-16LE"}]

# Bytes that make the decoders' state machines work: lead bytes, trail bytes, ESC sequences,
# surrogates, BOMs, gb18030 four-byte pieces, plus anything.
_INTERESTING = [b"\x1b$B", b"\x1b(B", b"\x1b(J", b"\x1b$@", b"\x1b(I", b"\x1b", b"\x0e", b"\x0f",
                b"\xd8\x00", b"\x00\xd8", b"\xdc\x00", b"\x00\xdc", b"\x81\x30\x81\x30",
                b"\x84\x31\xa4\x39", b"\xe3\x81\x82", b"\xf0\x9f\x98", b"\x88\x62", b"\x88\x64",
                b"\x8e", b"\x8f", b"\xa1", b"\xfe", b"\xff", b"\x80", b"\xef\xbb\xbf", b"\xff\xfe",
                b"\xfe\xff", b"<", b">", b"\r\n", b"a"]
payloads = st.one_of(
    st.binary(max_size=600),
    st.lists(st.one_of(st.sampled_from(_INTERESTING), st.binary(max_size=3)), max_size=80).map(
        b"".join),
)


# ------------------------------------------------------------------------------------------------
# decode


@SETTINGS
@given(data=payloads, encoding=st.sampled_from(ENCODING_NAMES), bom_sniff=st.booleans())
@example(data=b"\x88\x62\x88\x64\x88\xa3\x88\xa5", encoding="Big5", bom_sniff=False)
@example(data=b"\x81\x30\x81", encoding="gb18030", bom_sniff=False)
@example(data=b"\x1b$\x1b(", encoding="ISO-2022-JP", bom_sniff=False)
@example(data=b"\xd8\x00\xd8", encoding="UTF-16BE", bom_sniff=False)
def test_decode_is_total_and_bounded(data, encoding, bom_sniff):
    from redecode.decode import decode

    result = decode(data, encoding, bom_sniff=bom_sniff)
    assert isinstance(result.text, str)
    bom = next((b for b in BOMS if data.startswith(b)), None) if bom_sniff else None
    assert result.encoding == (BOMS[bom] if bom else encoding)
    assert result.bom_removed == (bom is not None)
    consumed = len(data) - (len(bom) if bom else 0)
    assert len(result.text) <= consumed
    # Scalar values only: the text must be storable as UTF-8 (no lone surrogates).
    result.text.encode("utf-8")
    assert 0 <= result.errors <= result.text.count("\ufffd")


@SETTINGS
@given(data=payloads, encoding=st.sampled_from(SINGLE_BYTE))
def test_single_byte_decoders_map_each_byte_to_one_code_point(data, encoding):
    from redecode.decode import decode

    result = decode(data, encoding, bom_sniff=False)
    assert len(result.text) == len(data)
    # ASCII bytes are ASCII in every single-byte encoding and in x-user-defined.
    for byte, char in zip(data, result.text):
        if byte < 0x80:
            assert ord(char) == byte


@SETTINGS
@given(data=payloads)
def test_utf8_decoder_matches_maximal_subpart_replacement(data):
    """Encoding Standard UTF-8 decoder == Unicode's "U+FFFD substitution of maximal subparts",
    which CPython's ``'replace'`` handler implements; ``errors`` counts inserted U+FFFD only
    (an EF BF BD in the input is a valid U+FFFD and never part of an error)."""
    from redecode.decode import decode

    result = decode(data, "UTF-8", bom_sniff=False)
    assert result.text == data.decode("utf-8", "replace")
    assert result.errors == result.text.count("\ufffd") - data.count(b"\xef\xbf\xbd")


@SETTINGS
@given(data=payloads)
def test_replacement_decoder(data):
    from redecode.decode import decode

    result = decode(data, "replacement", bom_sniff=False)
    assert result.text == ("\ufffd" if data else "")
    assert result.errors == (1 if data else 0)


@SETTINGS
@given(data=payloads, encoding=st.sampled_from(["UTF-16LE", "UTF-16BE"]))
def test_utf16_length(data, encoding):
    """A UTF-16 decoder emits at most one code point per code unit, plus one U+FFFD for an odd
    trailing byte; valid input round-trips."""
    from redecode.decode import decode

    result = decode(data, encoding, bom_sniff=False)
    assert len(result.text) <= (len(data) + 1) // 2
    codec = "utf-16-le" if encoding == "UTF-16LE" else "utf-16-be"
    try:
        expected = data.decode(codec)
    except UnicodeDecodeError:
        assert result.errors >= 1
    else:
        assert result.text == expected and result.errors == 0


# ------------------------------------------------------------------------------------------------
# prescan and head scan


def _prescan_module():
    return pytest.importorskip("redecode.prescan", reason="lib/redecode/prescan.py not landed yet",
                               exc_type=ImportError)


_META_TOKENS = [b"<meta", b"<META", b" charset=", b"charset", b"=", b'"', b"'", b"utf-8",
                b"shift_jis", b"windows-1251", b"utf-16", b"x-user-defined", b"iso-8859-2",
                b" http-equiv=content-type", b' http-equiv="Content-Type"', b" content=",
                b'"text/html; charset=koi8-r"', b">", b"/>", b"<!--", b"-->", b"<!", b"</", b"<?",
                b"<a", b"<head>", b"<html>", b" ", b"\t", b"\n", b"/", b"\x00", b"\xff", b"a"]
html_soup = st.lists(st.one_of(st.sampled_from(_META_TOKENS), st.binary(max_size=4)),
                     max_size=120).map(b"".join)


@SETTINGS
@given(data=st.one_of(payloads, html_soup))
def test_prescan_and_head_scan_are_total(data):
    from redecode.labels import ENCODING_NAMES as NAMES

    mod = _prescan_module()
    for fn in (mod.prescan, mod.head_scan):
        result = fn(data)
        if result is not None and getattr(result, "encoding", None) is not None:
            assert result.encoding in NAMES


@SETTINGS
@given(pad=st.integers(min_value=0, max_value=1024), soup=html_soup, pad_byte=st.sampled_from(
    [b" ", b"a", b"\n", b"<p>"]), suffix=st.one_of(html_soup, st.binary(max_size=64)))
@example(pad=1024 - len(b"<meta charset=utf-8"), soup=b"<meta charset=utf-8", pad_byte=b" ",
         suffix=b">")
@example(pad=1024 - len(b'<meta charset="koi8-r'), soup=b'<meta charset="koi8-r', pad_byte=b" ",
         suffix=b'">')
@example(pad=1020, soup=b"<meta charset=shift_jis>", pad_byte=b" ", suffix=b"")
def test_prescan_ignores_bytes_after_the_window(pad, soup, pad_byte, suffix):
    """HTML "prescan a byte stream to determine its encoding" looks at the first 1024 bytes: a
    1024-byte input and the same input with anything appended have the same result (including a
    <meta> that straddles byte 1024)."""
    mod = _prescan_module()
    base = ((pad_byte * (pad // len(pad_byte) + 1))[:pad] + soup)
    base = (base + b" " * 1024)[:1024]
    assume(len(base) == 1024)
    assert mod.prescan(base + suffix) == mod.prescan(base)


# ------------------------------------------------------------------------------------------------
# the decision


def _sniff_module():
    return pytest.importorskip("redecode.sniff", reason="lib/redecode/sniff.py not landed yet",
                               exc_type=ImportError)


_LABEL_LIST = sorted(LABELS)
content_types = st.lists(
    st.one_of(
        st.text(max_size=40),
        st.builds(lambda essence, label, q: f"{essence}; charset={q}{label}{q}",
                  st.sampled_from(["text/html", "text/plain", "application/xhtml+xml", "text/xml",
                                   "image/png", "", "text/html;", "*/*"]),
                  st.one_of(st.sampled_from(_LABEL_LIST), st.text(max_size=12)),
                  st.sampled_from(["", '"', "'"])),
    ),
    max_size=3,
)
urls = st.one_of(st.none(), st.text(max_size=40),
                 st.sampled_from(["http://example.jp/", "https://xn--fiqs8s.cn/a", "http://[::1]/",
                                  "http://example.com.", "not a url", "http://a.ru:99999/"]))
kinds = st.sampled_from(["html", "xml", "text"])

SOURCES = {"bom", "transport", "prescan", "head-scan", "xml-declaration", "utf8-valid", "detector",
           "default"}


def _rule_names():
    from redecode.rules import RULES

    return sorted(RULES)


@SETTINGS
@given(payload=st.one_of(payloads, html_soup), content_type=content_types, url=urls, kind=kinds)
def test_sniff_decide_is_total(payload, content_type, url, kind):
    """sniff.decide (HTML "determining the character encoding", no detector) never raises and
    names an Encoding Standard encoding."""
    sniff = _sniff_module()
    decision = sniff.decide(payload, content_type=content_type, url=url, kind=kind)
    assert decision.encoding in ENCODING_NAMES
    assert decision.source in SOURCES, decision.source
    assert decision.confidence in ("certain", "tentative", "irrelevant"), decision.confidence


@pytest.mark.parametrize("rules_name", _rule_names())
@SETTINGS
@given(payload=st.one_of(payloads, html_soup), content_type=content_types, url=urls, kind=kinds)
@example(payload=b"", content_type=["0/0;CHARSET=HZ-GB-2312"], url=None, kind="html")
@example(payload=b"\x1b$)C\x0e!!\x0f", content_type=["text/html; charset=iso-2022-kr"], url=None, kind="html")
def test_rules_decide_and_decode_are_total(rules_name, payload, content_type, url, kind):
    """Every rule set, detector included, decides and decodes arbitrary bytes without raising,
    and the text has at most one code point per payload byte."""
    from redecode.rules import get_rules
    from redecode.sniff import SOURCES as ALL_SOURCES

    rules = get_rules(rules_name)
    decision = rules.decide(payload, content_type=content_type, url=url, kind=kind)
    decoded = rules.decode(payload, decision)
    assert (decision, decoded) == rules.decide_and_decode(payload, content_type=content_type, url=url,
                                                          kind=kind)
    if rules.decoders == "whatwg" and decision.encoding is None:
        # issue 30: from author-2026.12.2 on, HZ-GB-2312 and ISO-2022-KR, which the Encoding
        # Standard maps to the replacement encoding, are read with Python's codecs; nothing else
        assert rules.procedure == "author" and rules.name != "author-2026.12", rules.name
        assert decision.codec in {"hz", "iso2022_kr"}, decision.codec
        assert decoded.encoding is None and decoded.decoder == f"python:{decision.codec}"
    elif rules.decoders == "whatwg":
        assert decision.encoding in ENCODING_NAMES
        assert decision.source in ALL_SOURCES, decision.source
        assert decoded.encoding in ENCODING_NAMES
    else:  # Python-codec rule sets may use a codec with no Encoding Standard name
        assert decision.encoding is None or decision.encoding in ENCODING_NAMES
    assert isinstance(decoded.text, str)
    assert len(decoded.text) <= len(payload)
    decoded.text.encode("utf-8")  # storable: no lone surrogates
    assert 0 <= decoded.errors <= decoded.text.count("\ufffd")


@SETTINGS
@given(bom=st.sampled_from(sorted(BOMS)), payload=st.one_of(payloads, html_soup),
       content_type=content_types, url=urls, kind=kinds)
def test_bom_wins_over_everything(bom, payload, content_type, url, kind):
    """HTML "determining the character encoding", step 1 (and Encoding "decode"): a BOM decides,
    whatever the Content-Type, the meta or the detector say; the text has no BOM."""
    from redecode.rules import BROWSER_RULES, get_rules

    rules = get_rules(BROWSER_RULES)
    decision = rules.decide(bom + payload, content_type=content_type, url=url, kind=kind)
    assert (decision.encoding, decision.source) == (BOMS[bom], "bom")
    assert decision.bom == BOMS[bom]
    decoded = rules.decode(bom + payload, decision)
    assert decoded.bom_removed and decoded.encoding == BOMS[bom]


@SETTINGS
@given(bom=st.sampled_from(sorted(BOMS)), payload=st.one_of(payloads, html_soup),
       content_type=content_types, url=urls, kind=kinds)
def test_author_rules_keep_a_bom_whose_decode_is_clean(bom, payload, content_type, url, kind):
    """The author's-text rules challenge a BOM only when the bytes after it make U+FFFD, or when it
    is a UTF-16 BOM over markup with no NUL byte (redecode.validate, checks b and c): a BOM whose
    decode is clean decides otherwise, as in a browser."""
    from redecode.decode import decode
    from redecode.rules import get_rules

    rules = get_rules("author-2026.12")
    data = bom + payload
    decision, decoded = rules.decide_and_decode(data, content_type=content_type, url=url, kind=kind)
    bare_utf16 = BOMS[bom] != "UTF-8" and kind != "text" and b"\x00" not in data[:1024]
    if decode(data, BOMS[bom]).errors == 0 and not bare_utf16:
        assert (decision.encoding, decision.source) == (BOMS[bom], "bom")
    assert decoded.bom_removed  # whoever wins, the BOM's bytes are not text


def test_codec_names_are_not_encoding_names():
    """Guard for the properties above: the names we check against are WHATWG's, not Python's."""
    assert "windows-1252" in ENCODING_NAMES and "cp1252" not in ENCODING_NAMES
    assert codecs.lookup("cp1252").name == "cp1252"
