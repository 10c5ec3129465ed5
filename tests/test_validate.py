"""The author's-text rules (issue 16): redecode.validate and the ``author-2026.12`` rule set.

Every case is built from real-language text encoded in its true encoding with Python's codecs, so
the expected text is the page's own, never the code's. Each case also pins what the browser rules
pick for the same bytes (``browser_encoding``), the way a browser shows it.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redecode import validate as V
from redecode.decode import decode
from redecode.rules import BROWSER_RULES, DEFAULT_RULES, get_rules

AUTHOR = get_rules("author-2026.12")
BROWSER = get_rules(BROWSER_RULES)

FRENCH = ("Le cœur a ses raisons que la raison ne connaît point. Ça, c'est déjà vu à Noël, "
          "naïve façade d'un élève très âgé. ")
RUSSIAN = "Съешь же ещё этих мягких французских булок да выпей чаю. Широкая электрификация. "
JAPANESE = "日本語の文章です。吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。"
KOREAN = "다람쥐 헌 쳇바퀴에 타고파. 키스의 고유조건은 입술끼리 만나야 하고 특별한 기술은 필요치 않다."
GREEK = "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο. "
POLISH = "Zażółć gęślą jaźń. Świętokrzyskie źródła, żółw śpi na ścieżce. Ślązak ściska źdźbło. "
VIETNAMESE = "Hà Nội là thủ đô của nước Cộng hòa Xã hội chủ nghĩa Việt Nam"


def html(body: bytes, head: bytes = b"") -> bytes:
    return (b"<!DOCTYPE html><html><head>" + head + b"<title>t</title></head><body><p>" + body
            + b"</p></body></html>")


def cp1258(text: str) -> bytes:
    """*text* as Windows writes Vietnamese in code page 1258: base letters (with circumflex,
    breve, horn) from the code page, tone marks as the combining characters it has."""
    out = bytearray()
    for ch in text:
        try:
            out += ch.encode("cp1258")
        except UnicodeEncodeError:
            marks = unicodedata.normalize("NFD", ch)
            tones = "".join(m for m in marks[1:] if m in "\u0300\u0301\u0303\u0309\u0323")
            base = unicodedata.normalize("NFC", marks[0] + "".join(m for m in marks[1:] if m not in tones))
            out += base.encode("cp1258") + tones.encode("cp1258")
    return bytes(out)


def cesu8(ch: str) -> bytes:
    """A supplementary character as CESU-8 writes it: its UTF-16 surrogates, each in UTF-8 form."""
    units = ch.encode("utf-16-be")
    return b"".join(chr(int.from_bytes(units[i:i + 2], "big")).encode("utf-8", "surrogatepass")
                    for i in (0, 2))


def author(payload: bytes, ct: str = "text/html", url: str | None = "http://example.com/",
           kind: str = "html"):
    return AUTHOR.decide_and_decode(payload, content_type=[ct] if ct else [], url=url, kind=kind)


def browser(payload: bytes, ct: str = "text/html", url: str | None = "http://example.com/",
            kind: str = "html"):
    return BROWSER.decide_and_decode(payload, content_type=[ct] if ct else [], url=url, kind=kind)


def test_author_rules_are_the_default():
    assert DEFAULT_RULES == "author-2026.12" and AUTHOR.procedure == "author"


# --- the cases: each recovers the author's text; the browser's answer pinned too ------

CP1252_TEXT = FRENCH * 4
UTF8_TEXT = FRENCH * 4

CASES = [
    # name, payload, content type, url, kind, true encoding, author source, browser encoding
    ("xml-declaration names MacCyrillic (not an Encoding Standard label)",
     b'<?xml version="1.0" encoding="MacCyrillic"?>\n<rss version="2.0"><channel><title>'
     + (RUSSIAN * 3).encode("mac_cyrillic") + b"</title></channel></rss>",
     "text/xml", "http://feeds.example.ru/rss", "xml", "x-mac-cyrillic", "validated", "UTF-8"),
    ("HTML with <meta charset=x-sjis> served as text/xml",
     b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=x-sjis">'
     b"<title>t</title></head><body><p>" + (JAPANESE * 3).encode("cp932") + b"</p></body></html>",
     "text/xml", "http://example.jp/a.xml", "xml", "Shift_JIS", "validated", "UTF-8"),
    ("<meta charset=utf-8> on a windows-1252 page",
     html(CP1252_TEXT.encode("cp1252"), b'<meta charset="utf-8">'),
     "text/html", "http://example.fr/", "html", "windows-1252", "validated", "UTF-8"),
    ("<meta ... charset=ISO-8859-1> on a UTF-8 page",
     html(UTF8_TEXT.encode("utf-8"),
          b'<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'),
     "text/html", "http://example.fr/", "html", "UTF-8", "validated", "windows-1252"),
    ("HTTP charset=iso-8859-1 over a UTF-8 page (a server default)",
     html(UTF8_TEXT.encode("utf-8")),
     "text/html; charset=iso-8859-1", "http://example.fr/", "html", "UTF-8", "validated",
     "windows-1252"),
    ("UTF-16BE without BOM (00 3C 00 21 ...)",
     "<!DOCTYPE html><html><body><p>Grüße aus Köln</p></body></html>".encode("utf-16-be"),
     "text/html", "http://example.de/", "html", "UTF-16BE", "validated", "windows-1252"),
    ("UTF-16LE without BOM, plain text",
     "Date,Bid,Ask\r\n07/19/2015 21:00:15.46,1.08856,1.08870\r\n".encode("utf-16-le") * 4,
     "text/plain", "http://example.com/quotes.txt", "text", "UTF-16LE", "validated", "windows-1252"),
    ("ISO-2022-JP, nothing declared (7-bit, escape sequences)",
     html((JAPANESE * 2).encode("iso2022_jp")),
     "text/html", "http://example.jp/", "html", "ISO-2022-JP", "validated", "Shift_JIS"),
    ("windows-1258 on .vn, too short for chardetng alone",
     html(cp1258(" ".join(VIETNAMESE.split()[:3]))),
     "text/html", "http://tin.example.vn/", "html", "windows-1258", "detector", "windows-1252"),
    ("<meta charset=iso-8859-2> on a windows-1250 page (C1 controls where 1250 has letters)",
     html((POLISH * 3).encode("cp1250"), b'<meta charset="iso-8859-2">'),
     "text/html", "http://example.pl/", "html", "windows-1250", "validated", "ISO-8859-2"),
    ("UTF-8 with one CESU-8 emoji, nothing declared",
     html(FRENCH.encode("utf-8") + cesu8("\U0001F600") + FRENCH.encode("utf-8")),
     "text/html", "http://example.fr/", "html", "UTF-8", "validated", "windows-1252"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_author_text_is_recovered(case):
    name, payload, ct, url, kind, true_encoding, source, browser_encoding = case
    d, t = author(payload, ct, url, kind)
    assert (d.encoding, d.source) == (true_encoding, source), d.validation
    assert d.browser_encoding == browser_encoding
    # the text is the page's own: its decode with the true encoding (a CESU-8 pair stays U+FFFD,
    # as the Encoding Standard's UTF-8 decoder makes it)
    assert t.text == decode(payload, true_encoding).text
    if source == "validated":
        assert d.confidence == "tentative"
        assert d.validation.startswith("overridden: ")
    # and the browser rules show what a browser shows
    b, _ = browser(payload, ct, url, kind)
    assert b.encoding == browser_encoding


def test_cesu8_page_keeps_utf8_with_replacement_characters():
    payload = html(FRENCH.encode("utf-8") + cesu8("\U0001F600") + FRENCH.encode("utf-8"))
    d, t = author(payload)
    assert t.errors == 6 and t.text.count("\ufffd") == 6  # six U+FFFD, the rest intact
    assert FRENCH in t.text
    assert "1 CESU-8 pairs" in d.validation


def test_the_overridden_declaration_is_named_in_conflict_and_validation():
    d, _ = author(html(CP1252_TEXT.encode("cp1252"), b'<meta charset="utf-8">'))
    assert d.conflict == ("prescan:utf-8",)
    assert d.validation.startswith("overridden: prescan:utf-8 made ")
    assert "windows-1252 decodes cleanly" in d.validation


def test_mac_cyrillic_alias_is_recorded_as_such():
    payload = CASES[0][1]
    d, _ = author(payload, "text/xml", "http://feeds.example.ru/rss", "xml")
    assert d.xml_charset == "MacCyrillic" and "MacCyrillic" in d.ignored_labels
    assert "xml-declaration:MacCyrillic (alias of x-mac-cyrillic, python:mac-cyrillic)" in d.validation


# --- where the declaration is right, it stays ----------------------------------------------

KEPT = [
    ("one invalid byte in declared UTF-8 (is not re-decoded)",
     html(FRENCH.encode("utf-8") + b"\xa0" + FRENCH.encode("utf-8"), b'<meta charset="utf-8">'),
     "text/html", "UTF-8", "prescan"),
    ("one invalid byte in a declared UTF-8 ASCII page",
     html(b"price:\xa05 EUR", b'<meta charset="utf-8">'), "text/html", "UTF-8", "prescan"),
    ("header and meta agree on windows-1251",
     html((RUSSIAN * 3).encode("cp1251"), b'<meta charset="windows-1251">'),
     "text/html; charset=windows-1251", "windows-1251", "transport"),
    ("Shift_JIS page with a correct meta", html((JAPANESE * 3).encode("cp932"), b'<meta charset="shift_jis">'),
     "text/html", "Shift_JIS", "prescan"),
    ("EUC-KR page with a correct header", html((KOREAN * 3).encode("euc_kr")),
     "text/html; charset=euc-kr", "EUC-KR", "transport"),
    ("ISO-8859-7 page with a correct meta", html((GREEK * 3).encode("iso8859_7"), b'<meta charset="iso-8859-7">'),
     "text/html", "ISO-8859-7", "prescan"),
    ("ISO-8859-2 page with a correct meta", html((POLISH * 3).encode("iso8859_2"), b'<meta charset="iso-8859-2">'),
     "text/html", "ISO-8859-2", "prescan"),
    ("windows-1250 page with a correct meta", html((POLISH * 3).encode("cp1250"), b'<meta charset="windows-1250">'),
     "text/html", "windows-1250", "prescan"),
    ("windows-1252 page with a correct header", html(CP1252_TEXT.encode("cp1252")),
     "text/html; charset=windows-1252", "windows-1252", "transport"),
    ("UTF-8 page with header and meta", html(UTF8_TEXT.encode("utf-8"), b'<meta charset="utf-8">'),
     "text/html; charset=utf-8", "UTF-8", "transport"),
]


@pytest.mark.parametrize("case", KEPT, ids=[c[0] for c in KEPT])
def test_a_right_declaration_is_kept(case):
    name, payload, ct, encoding, source = case
    d, t = author(payload, ct)
    b, bt = browser(payload, ct)
    assert (d.encoding, d.source, d.confidence) == (encoding, source, b.confidence)
    assert d.validation is None and d.browser_encoding == b.encoding == encoding
    assert (t.text, t.errors) == (bt.text, bt.errors)


def test_one_invalid_byte_keeps_its_one_replacement_character():
    payload = KEPT[0][1]
    d, t = author(payload)
    assert t.errors == 1 and d.validation is None


def test_two_invalid_bytes_without_utf8_evidence_are_enough_to_weigh():
    # check a's threshold is 2 U+FFFD: with no valid multi-byte sequence, the declaration loses
    payload = html(b"caf\xe9 cr\xe8me", b'<meta charset="utf-8">')
    d, t = author(payload)
    assert (d.encoding, d.source, t.text.count("é")) == ("windows-1252", "validated", 1)


def test_mostly_valid_utf8_is_kept_with_its_replacement_characters():
    # a UTF-8 page with a few windows-1252 bytes pasted in: UTF-8 has the evidence
    payload = html((FRENCH * 3).encode("utf-8") + b" caf\xe9 cr\xe8me \xa3 5", b'<meta charset="utf-8">')
    d, t = author(payload)
    assert (d.encoding, d.source, t.errors) == ("UTF-8", "prescan", 3)
    assert d.validation.startswith("kept: prescan:utf-8 made 3 U+FFFD")


def test_declarations_that_disagree_are_weighed():
    payload = html((RUSSIAN * 3).encode("cp1251"), b'<meta charset="windows-1251">')
    d, t = author(payload, "text/html; charset=windows-1252", "http://example.ru/")
    assert (d.encoding, d.source, d.browser_encoding) == ("windows-1251", "validated", "windows-1252")
    assert d.conflict == ("transport:windows-1252",)
    assert "prescan:windows-1251" in d.validation and "detector" in d.validation
    assert t.text == decode(payload, "windows-1251").text


def test_a_lying_bom_loses_only_to_a_clean_candidate():
    body = html(CP1252_TEXT.encode("cp1252"))
    d, t = author(b"\xef\xbb\xbf" + body)
    assert (d.encoding, d.source, d.bom) == ("windows-1252", "validated", "UTF-8")
    assert t.bom_removed and t.text == decode(body, "windows-1252").text
    r = AUTHOR.decode(b"\xef\xbb\xbf" + body, d)  # decode() alone gives the same text
    assert (r.text, r.bom_removed) == (t.text, True)


def test_no_clean_candidate_leaves_the_primary_tentative():
    # An ASCII page declared UTF-8 with stray 0x81 bytes (corruption): UTF-8 makes U+FFFD, every
    # single-byte reading a C1 control; nothing is the author's text, the declaration stays.
    payload = html(b"corrupt \x81 byte " * 20, b'<meta charset="utf-8">')
    d, t = author(payload)
    assert (d.encoding, d.source, d.confidence, t.errors) == ("UTF-8", "prescan", "tentative", 20)
    assert d.validation.startswith("unresolved: prescan:utf-8 made 20 U+FFFD; no candidate decodes cleanly")
    assert "windows-1252 (C1 controls)" in d.validation
    b, _ = browser(payload)
    assert b.confidence == "tentative" and b.encoding == "UTF-8"


def test_c1_controls_are_counted_where_a_legacy_decoder_makes_them():
    assert V.c1_controls("windows-1252", bytes(range(0x80, 0x100))) == 5  # 81 8D 8F 90 9D
    assert V.c1_controls("ISO-8859-2", bytes(range(0x80, 0x100))) == 32
    assert V.c1_controls("windows-1250", "Świętokrzyskie".encode("cp1250")) == 0
    assert V.c1_controls("UTF-8", "\x85".encode("utf-8")) == 0  # an encoded code point: the author's
    assert V.c1_controls("Shift_JIS", b"\x80abc") == 1  # Shift_JIS 0x80 is U+0080
    for name in V._C1_BYTES:  # the byte count is the text count, for every single-byte encoding
        data = bytes(range(256))
        assert V.c1_controls(name, data) == sum(0x80 <= ord(c) <= 0x9F for c in decode(data, name, bom_sniff=False).text)


def test_iso_2022_kr_is_recognised_but_not_decoded():
    # ISO-2022-KR is the Encoding Standard's replacement encoding: the escape is noticed, no
    # decoder outside the standard is used.
    payload = b"\x1b$)C" + html(b"\x0e\x21\x21\x0f plain")
    assert V.escape_sequences(payload) == "ISO-2022-KR"
    d, _ = author(payload)
    assert d.encoding != "replacement"


# --- the checks, one vector each --------------------------------------------------------------

def test_checks_fire_in_order():
    facts_and = {
        "errors": html(CP1252_TEXT.encode("cp1252"), b'<meta charset="utf-8">'),
        "utf-8": html(UTF8_TEXT.encode("utf-8"), b'<meta charset="windows-1252">'),
        "nul": "<html><body><p>plain</p></body></html>".encode("utf-16-le"),
        "escapes": html("日本".encode("iso2022_jp")),
        "disagree": html((RUSSIAN * 3).encode("cp1251"), b'<meta charset="windows-1251">'),
        "detected": html((RUSSIAN * 3).encode("cp1251")),
    }
    from redecode.sniff import gather

    for reason, payload in facts_and.items():
        ct = ("text/html; charset=windows-1252",) if reason == "disagree" else ("text/html",)
        facts = gather(payload, content_type=ct, url="http://example.ru/")
        primary = BROWSER.decide(payload, content_type=ct, url="http://example.ru/")
        result = decode(payload, primary.encoding)
        assert V._check(payload, facts, primary, result, V.DEFAULT_MIN_ERRORS) == reason


def test_no_check_fires_on_ascii_pages_whatever_they_declare():
    payload = html(b"plain ASCII", b'<meta charset="windows-1251">')
    d, _ = author(payload, "text/html; charset=iso-8859-2")
    assert d.validation is None and d.source == "transport"


# --- the byte-level helpers ---------------------------------------------------------------------

def _profile_oracle(b: bytes) -> tuple[int, int]:
    """(valid multi-byte sequences, U+FFFD inserted) from Python's own UTF-8 decoder, which
    replaces maximal subparts as the Encoding Standard does (pinned in test_decode.py)."""
    valid = b.decode("utf-8", "ignore")
    return sum(ord(c) >= 0x80 for c in valid), len(b.decode("utf-8", "replace")) - len(valid)


def test_utf8_profile_every_one_and_two_byte_sequence():
    for i in range(256):
        for seq in [bytes([i])] + [bytes([i, j]) for j in range(256)]:
            p = V.utf8_profile(seq)
            assert (p.multibyte, p.invalid, p.cesu_pairs) == (*_profile_oracle(seq), 0), seq


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_utf8_profile_matches_the_oracle(data):
    if b"\xed" in data:
        return_pairs = V._CESU_PAIR.findall(data)
    else:
        return_pairs = []
    p = V.utf8_profile(data)
    multibyte, errors = _profile_oracle(data)
    assert p.multibyte == multibyte
    assert p.invalid + 6 * p.cesu_pairs == errors and p.cesu_pairs == len(return_pairs)


def test_utf8_profile_counts_cesu_pairs_and_literal_replacement_characters():
    assert V.utf8_profile(cesu8("\U0001F600")) == V.Utf8Profile(0, 0, 1)
    assert V.utf8_profile("é\ufffd".encode()) == V.Utf8Profile(2, 0, 0)
    assert V.utf8_profile(b"\xed\xa0\xbd") == V.Utf8Profile(0, 3, 0)  # a lone surrogate half
    p = V.utf8_profile("ab".encode())
    assert not p.valid or p.multibyte == 0
    assert not p.mostly_valid


@pytest.mark.parametrize("text,codec,want", [
    ("<html><body>x</body></html>", "utf-16-le", "UTF-16LE"),
    ("<html><body>x</body></html>", "utf-16-be", "UTF-16BE"),
    ("Grüße, 日本語 and markup <p>", "utf-16-le", "UTF-16LE"),
    ("<html><body>x</body></html>", "utf-32-le", None),  # NUL at both parities
    ("<html><body>x</body></html>", "utf-32-be", None),
    ("<html><body>x</body></html>", "ascii", None),
    ("<p>", "utf-16-le", None),  # fewer than 8 code units
    ("日本語の文章です。吾輩は猫である。", "utf-16-le", None),  # no markup: no NUL pattern (limit)
])
def test_utf16_pattern(text, codec, want):
    assert V.utf16_pattern(text.encode(codec)) == want


def test_utf16_pattern_reads_only_its_window():
    head = "<html><body>x</body></html>".encode("utf-16-le") * 40
    assert len(head) > V.UTF16_WINDOW
    assert V.utf16_pattern(head[: V.UTF16_WINDOW] + b"\xff" * 5000) == "UTF-16LE"


@pytest.mark.parametrize("payload,want", [
    ("日本".encode("iso2022_jp"), "ISO-2022-JP"),
    (b"\x1b$@!!\x1b(B", "ISO-2022-JP"),
    (b"\x1b(Jabc", None),  # JIS X 0201 Roman alone: nothing to tell it from ASCII
    (b"\x1b$)C\x0e!!\x0f", "ISO-2022-KR"),
    ("日本".encode("iso2022_jp") + b"\xe9", None),  # not 7-bit
    (b"plain", None),
])
def test_escape_sequences(payload, want):
    assert V.escape_sequences(payload) == want


def test_tld_vote_is_firefoxs_fallback():
    assert V.tld_vote("vn") == "windows-1258" and V.tld_vote("VN") == "windows-1258"
    assert V.tld_vote("th") == "windows-874" and V.tld_vote("hk") == "Big5"
    assert V.tld_vote("com") is None and V.tld_vote(None) is None


# --- properties -------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(payload=st.binary(max_size=300),
       ct=st.sampled_from(["text/html", "text/html; charset=utf-8", "text/html; charset=shift_jis",
                           "text/xml", "text/plain; charset=windows-1251"]),
       url=st.sampled_from([None, "http://a.vn/", "http://a.jp/", "http://a.com/"]))
def test_author_differs_from_the_browser_only_where_it_says_so(payload, ct, url):
    kind = {"text/xml": "xml", "text/plain; charset=windows-1251": "text"}.get(ct, "html")
    d, t = author(payload, ct, url, kind)
    b, bt = browser(payload, ct, url, kind)
    assert d.browser_encoding == b.encoding
    if d.source == "validated":
        assert d.encoding != b.encoding or d.encoding != d.browser_encoding or d.validation
        assert d.validation.startswith("overridden: ")
    elif d.source in ("detector", "default"):
        pass  # the author detector's TLD vote may differ from the browser's detector
    else:
        assert (d.encoding, d.source) == (b.encoding, b.source)
        assert (t.text, t.errors) == (bt.text, bt.errors)
