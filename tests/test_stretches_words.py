"""A stretch's reading must read as words (``author-2026.12.5``; issue 29, a fresh user's pages).

``author-2026.12.3`` read a run of U+FFFD in a UTF-8 page with whichever candidate its language
judge liked best, even where no candidate reads as language: two damaged UTF-8 letters became
``caf© est ferm©`` (``decode_errors`` 0), a windows-1251 paragraph and a Shift_JIS one became one
windows-1257 stretch, a windows-1252 comment in a Greek page became windows-1253 (``promenιs``).
The pages here are built from public text (the stretch corpus' UDHR paragraphs,
``tests/data/stretches``; each part encoded with the encoding its case names) and from the
damage the user found; the truth of a part is its text (a damaged part: its UTF-8 decode, U+FFFD
included). ``author-2026.12.3`` is pinned on the same pages: it stays replayable as it was.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

import stretch_pages as sp
from redecode import stretches as S
from redecode import validate as V
from redecode.rules import DEFAULT_RULES, get_rules

NEW = "author-2026.12.5"
OLD = "author-2026.12.3"
#: the rules NEW adds the words to (12.3 with sibling decisions, issue 30)
PREV = "author-2026.12.4"

HEAD = '<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title></head>\n<body>\n'


# --- reads_as_words: the table of what reads as words -------------------------------------------

@pytest.mark.parametrize("text, ok", [
    # symbols glued to letters: a damaged UTF-8 letter read with a legacy table (the user's x1)
    ("caf\u00a9 est ferm\u00a9", False), ("Br\u00bccke wurde fr\u00bcher", False),
    ("costs\u20ac10", False), ("\u0100\u00f7\u00e5\u0161\u0105", False),
    ("personalit\u2021", False), ("premo\u00b7enjskih", False), ("Parol\u201e", False),
    # letters of two scripts in one word (the user's s7: windows-1253 for windows-1252)
    ("promen\u03b9s", False), ("estar\u0441", False), ("\u0431\u0443\u043a\u0432\u0430x", False),
    # a capital after a small letter; a no-break space inside a word
    ("caf\u0160", False), ("\u043b\u041d\u042f\u0419\u0411\u042e", False), ("Va\u00a0e", False),
    # words
    ("promen\u00e9s", True), ("\u041c\u043e\u0441\u043a\u0432\u0430", True), ("l\u2019\u00e9cole", True),
    ("\u00ab\u00a0Bonjour\u00a0\u00bb", True), ("\u201eHallo\u201c", True), ("Windows\u2122", True),
    ("50 m\u00b2", True), ("20\u00b0C", True), ("1\u00ba", True), ("col\u00b7lecci\u00f3", True),
    ("\u00a9 2024", True), ("\u7b2c29\u6761", True), ("\u6771\u4eac\u300c\u306f\u300d", True),
    ("\u0622\u0632\u0627\u062f\u064a\u200c\u0647\u0627\u064a", True),  # Persian, a zero-width non-joiner
    ("McDonald", True),
])
def test_reads_as_words(text, ok):
    assert S.reads_as_words(text) is ok


# --- pages ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def texts() -> dict[str, list[str]]:
    if not sp.TEXTS.is_file():
        pytest.skip(f"{sp.TEXTS} is absent (tools/make_stretch_corpus.py writes it)")
    out: dict[str, list[str]] = {}
    for t in sp.load_texts():
        if t.kind == "paragraph":
            out.setdefault(t.lang, []).append(t.text)
    return out


def _page(parts: list[tuple[str, str | None]]) -> tuple[bytes, str]:
    """(payload, truth): each part encoded with its encoding (Python codec; None: UTF-8)."""
    payload = b"".join(t.encode(codec or "utf-8") for t, codec in parts)
    truth = "".join(t for t, _ in parts)
    return payload, truth


def _decode(name: str, payload: bytes):
    return get_rules(name).decide_and_decode(payload, content_type=["text/html; charset=utf-8"],
                                             url="http://example.com/", kind="html")


def _short(text: str, letters: str, words: int = 6) -> str:
    """The words of *text* around the first two words holding one of *letters*: a short paragraph."""
    ws = text.split()
    hits = [i for i, w in enumerate(ws) if any(c in w for c in letters)]
    assert len(hits) >= 2, text
    lo, hi = max(0, hits[0] - 1), min(len(ws), hits[1] + 2)
    return " ".join(ws[lo:hi][:words + hi - lo])


def _damaged_page(texts, lang: str, letter: str, damage) -> tuple[bytes, str]:
    """A UTF-8 page in *lang* (two paragraphs) and a short paragraph whose first two *letter*s are
    damaged by *damage* (bytes of the letter -> bytes); truth: the UTF-8 decode."""
    paras = texts[lang]
    para = next(p for p in paras[2:] if p.count(letter) >= 2)
    short = _short(para, letter)
    good = letter.encode()
    bad = short.encode().replace(good, damage(good), 2)
    body = (HEAD.format(lang=lang, title="x").encode() + f"<p>{paras[0]}</p>\n<p>{paras[1]}</p>\n<p>".encode()
            + bad + b"</p>\n</body></html>\n")
    return body, body.decode("utf-8", "replace")


@pytest.mark.parametrize("lang, letter, damage", [
    ("fr", "\u00e9", lambda b: b[1:]),  # a lost lead byte: A9 (windows-1252 ©)
    ("de", "\u00fc", lambda b: b[1:]),  # BC (windows-1252 ¼, ISO-8859-2 ź)
    ("fr", "\u00e9", lambda b: b[:1] + b"x" + b[1:]),  # a byte added inside the character
])
def test_two_damaged_letters_in_one_short_paragraph_stay_replacement_characters(texts, lang, letter, damage):
    pytest.importorskip("redecode.language")
    payload, truth = _damaged_page(texts, lang, letter, damage)
    decision, decoded = _decode(NEW, payload)
    assert decoded.text == truth and decoded.errors >= 2 and not decision.stretches
    assert decision.encoding == "UTF-8"


def test_stray_bytes_between_a_word_and_a_number_stay_replacement_characters():
    pytest.importorskip("redecode.language")
    body = (HEAD.format(lang="en", title="Prices").encode() + "<h1>Prices \u2014 Preise</h1>\n".encode()
            + b"<p>The ticket costs\x8010 and the book costs\x8020.</p>\n</body></html>\n")
    decision, decoded = _decode(NEW, body)
    assert decoded.text == body.decode("utf-8", "replace") and not decision.stretches
    assert decision.encoding == "UTF-8" and decision.verdict == "kept"
    # the whole-page override (step 5: windows-1257 decodes cleanly) did not stand: said so
    assert decision.validation.startswith("kept: UTF-8 read whole: 2 U+FFFD that read as words in no legacy encoding; "
                                          "instead of the whole page read as ")


def test_one_word_in_another_script_is_read_right_or_left_as_replacement_characters(texts):
    pytest.importorskip("redecode.language")
    for lang, codec in (("ru", "cp1251"), ("bg", "cp1251"), ("el", "cp1253"), ("he", "cp1255")):
        word = max(texts[lang][0].split()[:8], key=len).strip(",.;:")
        payload, truth = _page([(HEAD.format(lang="en", title="Cities"), None),
                                ("<h1>Cities \u2014 St\u00e4dte</h1>\n<table><tr><td>", None), (word, codec),
                                ("</td><td>12.6M</td></tr></table>\n</body></html>\n", None)])
        decision, decoded = _decode(NEW, payload)
        fffd = payload.decode("utf-8", "replace")
        assert decoded.text in (truth, fffd), (lang, word, decoded.text[-80:])
    # the user's word: windows-1251 Москва, read as macintosh by 12.3
    payload, truth = _page([(HEAD.format(lang="en", title="Cities"), None),
                            ("<h1>Cities \u2014 St\u00e4dte</h1>\n<table><tr><td>", None),
                            ("\u041c\u043e\u0441\u043a\u0432\u0430", "cp1251"),
                            ("</td><td>12.6M</td></tr></table>\n</body></html>\n", None)])
    assert _decode(NEW, payload)[1].text in (truth, payload.decode("utf-8", "replace"))
    assert _decode(OLD, payload)[0].stretches[0][2] == "macintosh"  # (12.3 replays as it was)


def test_two_legacy_paragraphs_of_two_scripts_are_two_stretches(texts):
    pytest.importorskip("redecode.language")
    for between in ("</p></div>\n<div class=c><p>",
                    "</p></div>\n<p>" + "An ASCII paragraph between the two comments, " * 2 + "</p>\n<div class=c><p>"):
        payload, truth = _page([(HEAD.format(lang="en", title="Comments"), None),
                                ("<h1>Comments \u2014 Kommentare</h1>\n<div class=c><p>", None),
                                (texts["ru"][3], "cp1251"), (between, None), (texts["ja"][3], "cp932"),
                                ("</p></div>\n</body></html>\n", None)])
        decision, decoded = _decode(NEW, payload)
        assert decoded.text == truth
        assert [e for _, _, e in decision.stretches] == ["windows-1251", "Shift_JIS"]
        assert decision.source == "parts" and decoded.errors == 0
        # 12.3 read both as one stretch in one encoding, right for neither
        old = _decode(OLD, payload)
        assert len(old[0].stretches) == 1 and old[1].text != truth


@pytest.mark.parametrize("page_lang, para_lang, codec, encoding", [
    ("ru", "zh-Hans", "gbk", ("GBK", "gb18030")),  # a GBK comment in a Russian page (12.3: KOI8-R)
    ("el", "fr", "cp1252", ("windows-1252",)),  # a French comment in a Greek page (12.3: windows-1253)
    ("ja", "ru", "cp1251", ("windows-1251",)),
    ("he", "de", "cp1252", ("windows-1252",)),
])
def test_a_comment_in_another_script_than_the_page_is_read_with_its_own_encoding(
        texts, page_lang, para_lang, codec, encoding):
    pytest.importorskip("redecode.language")
    p = texts[page_lang]
    # (a paragraph with 4 non-ASCII letters at least: one or two are a known limit)
    q = next(t for t in texts[para_lang][4:] if sum(c > "\x7f" and c.isalpha() for c in t) >= 4)
    payload, truth = _page([(HEAD.format(lang=page_lang, title=p[0][:40]), None),
                            (f"<h1>{p[0][:40]}</h1>\n<p>{p[1]}</p>\n<div class=c><p>", None),
                            (q, codec), ("</p></div>\n</body></html>\n", None)])
    decision, decoded = _decode(NEW, payload)
    assert decoded.text == truth, decoded.text[-200:]
    assert len(decision.stretches) == 1 and decision.stretches[0][2] in encoding


def test_a_page_read_in_parts_says_which_whole_page_reading_it_replaces(texts):
    pytest.importorskip("redecode.language")
    # an English template (little UTF-8 text): step 5 reads the whole page as a legacy encoding,
    # step 6 as UTF-8 with the stretch; the row's verdict is not step 5's override
    payload, truth = _page([(HEAD.format(lang="en", title="Comments"), None),
                            ("<h1>Comments \u2014 Kommentare</h1>\n<div class=c><p>", None),
                            (texts["ru"][3], "cp1251"), ("</p></div>\n</body></html>\n", None)])
    decision, decoded = _decode(NEW, payload)
    assert decoded.text == truth and decision.encoding == "UTF-8"
    assert decision.validation.startswith("in parts: UTF-8 with 1 stretch read otherwise: windows-1251 at bytes ")
    if "instead of the whole page read as" in decision.validation:
        # step 5's override did not stand: the browser's UTF-8 is the encoding outside the stretch
        assert decision.verdict == "kept" and decision.browser_encoding == "UTF-8"
        assert "overridden" not in decision.validation.split("instead of")[0]
    else:
        assert decision.verdict in (None, "kept")


def test_the_new_rules_are_the_old_ones_with_words_and_the_old_digest_is_unchanged():
    new, prev = V.AuthorParams.from_rules(get_rules(NEW)), V.AuthorParams.from_rules(get_rules(PREV))
    assert DEFAULT_RULES == "author-2026.12.6"  # (12.5 and the legacy part deciding: test_legacy_part_decides)
    assert dataclasses.replace(new, stretch_words=False, stretch_min_letters=0) == prev
    assert new.stretch_words and new.stretch_min_letters == 3 and not prev.stretch_words
    # the parameters (and so the digests) of 12.3 and 12.4 do not name the new fields: same digests
    for name in (OLD, PREV):
        assert "stretch_words" not in json.dumps(get_rules(name).parameters()), name
        assert "stretch_min_letters" not in json.dumps(get_rules(name).parameters()), name
    assert json.loads(json.dumps(get_rules(NEW).parameters()))["author"]["stretch_words"] is True
