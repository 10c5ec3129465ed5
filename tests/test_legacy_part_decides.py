"""The legacy part of a page decides its encoding; identical readings are named alike
(``author-2026.12.6``; issue 29, a fresh user's pages).

``author-2026.12.5`` fed the author detector and the language evidence the whole payload. On an
undeclared legacy page with UTF-8 in it, the UTF-8 bytes drown the legacy text: a windows-1255
page with a UTF-8 Hebrew paragraph was detected as windows-1251 (UTF-8 Hebrew is 0xD7 0x90-0xAA,
Cyrillic letters in windows-1251) and read whole as a Cyrillic encoding; an English UTF-8
template (— ’ “ ” ©) around a windows-1251 paragraph was read as x-mac-cyrillic, which reads
E2 80 94 as ``вАФ``. ``author-2026.12.6`` (``AuthorParams.outside_utf8``) gives the detector,
check h's shares and the language excerpt the bytes outside the page's UTF-8 runs where the
legacy text is the page's larger part; step 6 then reads the runs as UTF-8 stretches.

``same_text_names``: a stretch's encoding and a page's are named among identical readings the
same way: 12.4's ``tie_names`` (KOI8-U -> KOI8-R) applies to stretches, GBK names gb18030's
reading without a four-byte sequence (the Encoding Standard's GBK decoder is gb18030's), and a
declared, detected or TLD name that reads the same text is preferred to a sibling's.

The pages are built from public text (the stretch corpus' UDHR paragraphs, ``tests/data/stretches``),
each part encoded with the encoding its case names; the truth of a page is its parts' texts.
"""

from __future__ import annotations

import dataclasses

import pytest

import stretch_pages as sp
from redecode import validate as V
from redecode.rules import DEFAULT_RULES, get_rules

NEW = "author-2026.12.6"
PREV = "author-2026.12.5"


@pytest.fixture(scope="module")
def texts() -> dict[tuple[str, str], list[str]]:
    if not sp.TEXTS.is_file():
        pytest.skip(f"{sp.TEXTS} is absent (tools/make_stretch_corpus.py writes it)")
    out: dict[tuple[str, str], list[str]] = {}
    for t in sp.load_texts():
        out.setdefault((t.lang, t.kind), []).append(t.text)
    return out


def _page(parts: list[tuple[str, str | None]]) -> tuple[bytes, str]:
    """(payload, truth): each part encoded with its Python codec (None: UTF-8)."""
    return b"".join(t.encode(codec or "utf-8") for t, codec in parts), "".join(t for t, _ in parts)


def _decode(name: str, payload: bytes, url: str, content_type: str = "text/html"):
    return get_rules(name).decide_and_decode(payload, content_type=[content_type], url=url, kind="html")


def _legacy_page_with_utf8(texts, lang: str, codec: str, k: int, attr: bool = False) -> tuple[bytes, str, str]:
    """An undeclared legacy page (title, heading, two paragraphs in *codec*) with a UTF-8
    paragraph of the same language (or a UTF-8 ``title`` attribute): (payload, truth, the UTF-8
    text). The shortest paragraphs of the corpus: little legacy text for the detector."""
    paras = sorted(texts[(lang, "paragraph")], key=len)
    heading = texts[(lang, "heading")][k]
    p1, p2, p3 = paras[3 * k:3 * k + 3]
    head = f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<title>'
    if attr:
        middle = [('</p>\n<p><img src="/photo.jpg" title="', None), (p2, None), ('"></p>\n<p>', None)]
    else:
        middle = [('</p>\n<div class="widget"><p>', None), (p2, None), ("</p></div>\n<p>", None)]
    payload, truth = _page([(head, None), (heading, codec), ("</title>\n</head>\n<body>\n<h1>", None),
                            (heading, codec), ("</h1>\n<p>", None), (p1, codec), *middle, (p3, codec),
                            ("</p>\n</body>\n</html>\n", None)])
    return payload, truth, p2


# --- outside_utf8 -----------------------------------------------------------------------------

def test_outside_utf8_blanks_the_utf8_runs_only_where_the_legacy_text_is_the_larger_part():
    params = V.AuthorParams.from_rules(get_rules(NEW))
    legacy = "Всички хора се раждат свободни и равни".encode("cp1251")
    utf8 = "“Today” — ©".encode()
    page = b"<p>" + legacy + b"</p><p>" + utf8 + b"</p><p>" + legacy + b"</p>"
    out = V.outside_utf8(page, params)
    assert out is not None and len(out) == len(page)
    assert out == page.replace(utf8, b" " * len(utf8))
    assert V.outside_utf8(legacy, params) is None  # no UTF-8 run
    assert V.outside_utf8(page.decode("cp1251").encode(), params) is None  # valid UTF-8: no legacy byte
    # a UTF-8 page with a short legacy paragraph: the UTF-8 part is the larger, weighed whole
    long_utf8 = ("Всички хора се раждат свободни и равни по достойнство и права. " * 3).encode()
    assert V.outside_utf8(b"<p>" + long_utf8 + b"</p><p>" + legacy[:12] + b"</p>", params) is None
    # a damaged UTF-8 page (one byte lost)
    assert V.outside_utf8(long_utf8[:5] + long_utf8[6:], params) is None


def test_the_parameters_enter_the_digest_only_when_set():
    params = V.AuthorParams.from_rules(get_rules(PREV))
    assert "outside_utf8" not in params.to_json() and "same_text_names" not in params.to_json()
    new = V.AuthorParams.from_rules(get_rules(NEW))
    assert new.to_json()["outside_utf8"] is True and new.to_json()["same_text_names"] is True
    assert dataclasses.replace(new, outside_utf8=False, same_text_names=False) == params
    # (the default, author-2026.12.7, is NEW reading İ as Turkish lower-cases it, issue 30)
    assert DEFAULT_RULES == "author-2026.12.7"
    assert dataclasses.replace(V.AuthorParams.from_rules(get_rules(DEFAULT_RULES)), language_turkic_i=False) == new


# --- the legacy part decides ----------------------------------------------------------------------

@pytest.mark.parametrize("k", [0, 1, 2])
@pytest.mark.parametrize("url", ["http://www.example.co.il/", "http://www.example.com/"])
@pytest.mark.parametrize("attr", [False, True])
def test_a_windows_1255_page_with_a_utf8_paragraph_is_read_as_windows_1255(texts, k, url, attr):
    pytest.importorskip("redecode.language")
    payload, truth, utf8 = _legacy_page_with_utf8(texts, "he", "cp1255", k, attr)
    decision, decoded = _decode(NEW, payload, url)
    assert decoded.text == truth
    assert decision.encoding == "windows-1255"
    (o, n, e), = decision.stretches
    # (a stretch is tight: from its first non-ASCII character to its last)
    hi = [i for i, c in enumerate(utf8) if c > "\x7f"]
    assert e == "UTF-8" and payload[o:o + n].decode() == utf8[hi[0]:hi[-1] + 1]


def test_without_its_utf8_paragraph_the_page_was_already_right(texts):
    pytest.importorskip("redecode.language")
    payload, truth, utf8 = _legacy_page_with_utf8(texts, "he", "cp1255", 0)
    assert payload.count(utf8.encode()) == 1
    whole = payload.replace(utf8.encode(), utf8.encode("cp1255"))
    for name in (PREV, NEW):
        decision, decoded = _decode(name, whole, "http://www.example.co.il/")
        assert decoded.text == truth and decision.encoding == "windows-1255" and not decision.stretches


def test_the_hebrew_page_was_read_as_another_script_before(texts):
    """``author-2026.12.5`` replays as it was: the shortest page read whole in a Cyrillic encoding."""
    pytest.importorskip("redecode.language")
    payload, truth, _ = _legacy_page_with_utf8(texts, "he", "cp1255", 0)
    decision, decoded = _decode(PREV, payload, "http://www.example.co.il/")
    assert decoded.text != truth and decision.encoding != "windows-1255"


@pytest.mark.parametrize("lang, codec, encoding", [
    ("bg", "cp1251", "windows-1251"), ("ru", "cp1251", "windows-1251"), ("el", "cp1253", "windows-1253"),
    ("he", "cp1255", "windows-1255"), ("ar", "cp1256", "windows-1256"), ("tr", "cp1254", "windows-1254"),
])
@pytest.mark.parametrize("tld", ["own", "com"])
@pytest.mark.parametrize("title", ["Readers \u2014 letters", "Letters \u2014 Example News"])
def test_an_english_utf8_template_around_a_legacy_paragraph(texts, lang, codec, encoding, tld, title):
    """Typographic punctuation (— “ ” ’ ©) is all the UTF-8 there is: the legacy paragraph is the
    page's text, its encoding the page's, each run of punctuation a UTF-8 stretch (where step 6
    weighs the encoding of the rest again, it reads the rest without the UTF-8 runs: a lone ``—``
    read as x-mac-cyrillic is Cyrillic letters, ``вАФ``)."""
    pytest.importorskip("redecode.language")
    own = {"bg": "bg", "ru": "ru", "el": "gr", "he": "co.il", "ar": "eg", "tr": "com.tr"}[lang]
    url = f"http://www.example.{own if tld == 'own' else 'com'}/"
    para = sorted(texts[(lang, "paragraph")], key=len)[2]
    payload, truth = _page([
        (f"<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n<body>\n"
         "<h1>News \u2014 \u201cToday\u201d</h1>\n<p>A reader wrote:</p>\n<blockquote>", None),
        (para, codec),
        ("</blockquote>\n<footer>\u00a9 2024 Example \u2014 all rights reserved</footer>\n</body></html>\n", None)])
    decision, decoded = _decode(NEW, payload, url)
    assert decoded.text == truth
    if encoding == "windows-1253":  # (no Ά: the two Greek encodings read the same text)
        assert decision.encoding in ("windows-1253", "ISO-8859-7")
    else:
        assert decision.encoding == encoding
    assert decision.stretches and all(e == "UTF-8" for _, _, e in decision.stretches)


def test_a_utf8_page_with_a_legacy_paragraph_stays_utf8_with_a_stretch(texts):
    """Where the UTF-8 text is the larger part, the page is weighed whole as before: UTF-8 with
    the legacy paragraph as a stretch."""
    pytest.importorskip("redecode.language")
    for lang, codec, encoding in (("fr", "cp1252", "windows-1252"), ("ru", "cp1251", "windows-1251"),
                                  ("de", "cp1252", "windows-1252")):
        p = texts[(lang, "paragraph")]
        payload, truth = _page([("<!DOCTYPE html>\n<html><head><title>x</title></head>\n<body>\n<p>"
                                 + p[0] + "</p>\n<p>", None), (p[1], codec),
                                ("</p>\n<p>" + p[2] + "</p></body></html>\n", None)])
        for url in ("http://www.example.com/", f"http://www.example.{lang}/"):
            decision, decoded = _decode(NEW, payload, url)
            assert decoded.text == truth
            assert decision.encoding == "UTF-8"
            (_, _, e), = decision.stretches
            assert e == encoding


@pytest.mark.parametrize("lang, codec, encoding", [
    ("he", "cp1255", "windows-1255"), ("ru", "cp1251", "windows-1251"), ("ja", "cp932", "Shift_JIS"),
    ("de", "cp1252", "windows-1252"),
])
def test_pure_pages_are_not_split(texts, lang, codec, encoding):
    pytest.importorskip("redecode.language")
    p = sorted(texts[(lang, "paragraph")], key=len)
    body = "<!DOCTYPE html>\n<html><head><title>x</title></head>\n<body>\n<p>" + p[0] + "</p>\n<p>" + p[1] + "</p>\n</body></html>\n"
    for payload, want in ((body.encode(codec), encoding), (body.encode(), "UTF-8")):
        for ct in ("text/html", f"text/html; charset={want}"):
            decision, decoded = _decode(NEW, payload, "http://www.example.com/", ct)
            assert decoded.text == body and decision.encoding == want and not decision.stretches


# --- names among identical readings -----------------------------------------------------------------

def _utf8_page_with(texts, lang: str, codec: str, meta: bool) -> tuple[bytes, str]:
    p = texts[(lang, "paragraph")]
    en = texts[("ru", "paragraph")] if lang != "ru" else texts[("bg", "paragraph")]
    head = '<!DOCTYPE html>\n<html><head>' + ('<meta charset="utf-8">' if meta else "") + "<title>x</title></head>\n<body>\n"
    return _page([(head + "<p>" + en[0] + "</p>\n<p>", None), (p[1], codec),
                  ("</p>\n<p>" + en[2] + "</p></body></html>\n", None)])


@pytest.mark.parametrize("meta", [True, False])
def test_a_koi8_r_stretch_is_named_koi8_r(texts, meta):
    """12.4's tie_names named a whole KOI8-U page KOI8-R where no byte differs; a stretch now
    too. A Ukrainian KOI8-U stretch (і ї є ґ: bytes where the two differ) keeps its name."""
    pytest.importorskip("redecode.language")
    payload, truth = _utf8_page_with(texts, "ru", "koi8_r", meta)
    decision, decoded = _decode(NEW, payload, "http://www.example.com/")
    assert decoded.text == truth
    (o, n, e), = decision.stretches
    assert e == "KOI8-R"
    assert f"KOI8-R at bytes {o}-{o + n} (" in decision.validation
    uk = next(t for t in texts[("uk", "paragraph")] if any(c in t for c in "іїєґ"))
    payload = payload.replace(texts[("ru", "paragraph")][1].encode("koi8_r"), uk.encode("koi8_u"))
    decision, decoded = _decode(NEW, payload, "http://www.example.com/")
    assert [e for _, _, e in decision.stretches] == ["KOI8-U"]


def test_a_gbk_stretch_and_an_undeclared_gbk_page_are_named_gbk(texts):
    pytest.importorskip("redecode.language")
    payload, truth = _utf8_page_with(texts, "zh-Hans", "gbk", True)
    for url in ("http://www.example.com/", "http://www.example.cn/"):
        decision, decoded = _decode(NEW, payload, url)
        assert decoded.text == truth and [e for _, _, e in decision.stretches] == ["GBK"]
    p = texts[("zh-Hans", "paragraph")]
    body = "<!DOCTYPE html>\n<html><head><title>x</title></head>\n<body>\n<p>" + p[0] + "</p>\n<p>" + p[1] + "</p>\n</body></html>\n"
    for url in ("http://www.example.com/", "http://www.example.cn/"):
        decision, decoded = _decode(NEW, body.encode("gbk"), url)
        assert decoded.text == body and decision.encoding == "GBK"
    # declared gb18030 stays gb18030; a four-byte sequence (U+00DF ß is 0x81 0x30 0x89 0x38, not in GBK's
    # two-byte table) keeps gb18030's name
    decision, decoded = _decode(NEW, body.encode("gbk"), "http://www.example.com/", "text/html; charset=gb18030")
    assert decision.encoding == "gb18030"
    text = body.replace("<p>", "<p>Stra\u00dfe ", 1)
    four = text.encode("gb18030")
    assert b"\x81\x30\x89\x38" in four
    decision, decoded = _decode(NEW, four, "http://www.example.com/")
    if decoded.text == text:
        assert decision.encoding == "gb18030"


@pytest.mark.parametrize("tld, names", [("gr", ("ISO-8859-7",)), ("com", ("windows-1253", "ISO-8859-7"))])
def test_a_greek_stretch_and_page_are_named_alike(texts, tld, names):
    """Without Ά the two Greek encodings read the same text: a stretch of a UTF-8 page, declared
    or not, and the undeclared legacy page are given one name for one TLD."""
    pytest.importorskip("redecode.language")
    url = f"http://www.example.{tld}/"
    p = [t for t in texts[("el", "paragraph")] if "\u0386" not in t]
    body = "<!DOCTYPE html>\n<html><head><title>x</title></head>\n<body>\n<p>" + p[0] + "</p>\n<p>" + p[1] + "</p>\n</body></html>\n"
    page_name = _decode(NEW, body.encode("cp1253"), url)[0].encoding
    assert page_name in names
    for meta in (True, False):
        payload, truth = _utf8_page_with(texts, "el", "cp1253", meta)
        if "\u0386" in truth:
            continue
        decision, decoded = _decode(NEW, payload, url)
        assert decoded.text == truth and [e for _, _, e in decision.stretches] == [page_name]


def test_the_rows_text_as_utf8_is_the_same_decision_and_text(texts):
    """The job's rows take the text as UTF-8 bytes (the procedure's ``utf8_text``): where the
    author's rules keep a detected page's decode as those bytes, the naming of step 7 reads them
    (an undeclared GBK page detected as gb18030 is named GBK, a Greek page one of its two names),
    and the decision and text are those of the str decode."""
    pytest.importorskip("redecode.language")
    from redecode.procedures import PROCEDURES

    rules = get_rules(NEW)
    steps = PROCEDURES[rules.procedure]
    pages = []
    for lang, codec in (("zh-Hans", "gbk"), ("el", "cp1253"), ("ru", "cp1251")):
        p = [t for t in texts[(lang, "paragraph")] if "\u0386" not in t]
        body = "<!DOCTYPE html>\n<html><head><title>x</title></head>\n<body>\n<p>" + p[0] + "</p>\n<p>" + p[1] + "</p>\n</body></html>\n"
        pages.append(body.encode(codec))
    pages.append(_utf8_page_with(texts, "zh-Hans", "gbk", True)[0])
    named = set()
    for payload in pages:
        for url in ("http://www.example.com/", "http://www.example.cn/", "http://www.example.gr/"):
            d1, t1 = steps.decide_and_decode(rules, payload, ["text/html"], url, "html")
            d2, t2 = steps.decide_and_decode(rules, payload, ["text/html"], url, "html", utf8_text=True)
            assert d1 == d2
            text2 = t2.utf8.decode("utf-8") if hasattr(t2, "utf8") else t2.text
            assert text2 == t1.text and t2.encoding == t1.encoding and t2.errors == t1.errors
            named.add(d1.encoding)
    assert "GBK" in named
