"""redecode.stretches: pages in two encodings (issue 29).

The runs (words as the Encoding Standard's UTF-8 decoder reads them) against the standard's
decoder itself and against the compiled twin; the stretches of a chosen reading on small pages
built from known parts (a page's truth is each part decoded with the encoding it was written in),
with a judge that is data here (:func:`redecode.stretches.script_judge`, no language model);
damage that must stay U+FFFD; pure pages that must stay whole. The corpus measurement with the
author rules' judge is tests/test_stretch_corpus.py.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redecode import native
from redecode import stretches as S
from redecode.decode import decode

RU = "Каждый человек имеет право на образование, и оно должно быть бесплатным."
RU2 = "Все люди рождаются свободными и равными в своем достоинстве и правах."
JA = "すべて人は、教育を受ける権利を有する。教育は、少なくとも初等の段階においては無償でなければならない。"
FR = "Toute personne a droit à l'éducation, qui doit être gratuite au moins en ce qui concerne l'enseignement élémentaire."


def page(*parts: tuple[str, str]) -> tuple[bytes, str]:
    """(payload, truth) of a page made of (text, encoding) parts; ``"<"`` parts are markup."""
    payload, truth = [], []
    for text, enc in parts:
        data = text.encode({"UTF-8": "utf-8", "windows-1251": "cp1251", "Shift_JIS": "cp932",
                            "windows-1252": "cp1252", "KOI8-R": "koi8_r", "ascii": "ascii"}[enc])
        assert decode(data, enc if enc != "ascii" else "windows-1252", bom_sniff=False).text == text
        payload.append(data)
        truth.append(text)
    return b"".join(payload), "".join(truth)


def read(body: bytes, encoding: str, **kw) -> S.Parts | None:
    return S.read_in_parts(body, encoding, judge=S.script_judge, **kw)


def knowing(truth: str):
    """A judge that knows the words of *truth*: a reading's words found there cost nothing,
    the others 8 bits a character (to test the steps apart from any language model)."""
    vocab = set(truth.replace("<", " ").replace(">", " ").split())

    def judge(readings):
        return {k: -8.0 * sum(len(w) for w in v.split() if w not in vocab) for k, v in readings.items()}
    return judge


# --- runs -------------------------------------------------------------------------------------


def _runs_by_hand(data: bytes) -> list[tuple[bool, int, int, int, int]]:
    """The contract of utf8_runs written out: split at cut bytes, decode each word with the
    standard's UTF-8 decoder (redecode.decode), group by kind."""
    cuts = set(range(0x00, 0x30)) | set(range(0x3A, 0x40))
    words, start = [], None
    for i, b in enumerate(data + b" "):
        if b in cuts or i == len(data):
            if start is not None:
                words.append((start, i))
            start = None
        elif start is None:
            start = i
    out: list[list] = []
    for a, b in words:
        w = data[a:b]
        if w.isascii():
            continue
        r = decode(w, "UTF-8", bom_sniff=False)
        bad = r.errors
        seqs = len(r.text) - sum(1 for x in w if x < 0x80) - bad
        valid = bad == 0
        if out and out[-1][0] == valid:
            out[-1][2] = b
            out[-1][3] += seqs
            out[-1][4] += bad
        else:
            out.append([valid, a, b, seqs, bad])
    return [tuple(r) for r in out]


CASES = [
    b"",
    b"plain ascii <p>text</p>",
    "Привет, мир".encode(),
    "Привет".encode() + b" " + "мир".encode("cp1251"),
    "<p>" .encode() + RU2.encode("cp1251") + b"</p><p>" + RU.encode() + b"</p>",
    b"caf\xe9 cr\xe8me " + "été".encode(),
    b"\xef\xbf\xbd valid replacement character",
    b"\xed\xa0\x80\xed\xb0\x80 CESU-8",  # surrogates: invalid in UTF-8
    b"\xf0\x9f\x98\x80 emoji \xf0\x9f\x98 cut",
    b"\xe0\x80\xaf overlong \xc0\xaf",
    b"abc\xc3",  # cut inside the last character
    "表示ソ".encode("cp932") + b" \\ " + "ソ".encode(),
    b"gb18030 \x81\x30\x81\x30 digits",
]


@pytest.mark.parametrize("data", CASES)
def test_runs_follow_the_contract(data):
    assert [(r.valid, r.start, r.end, r.sequences, r.invalid) for r in S.utf8_runs(data)] == _runs_by_hand(data)
    assert S._utf8_runs_pure(data) == _runs_by_hand(data)


@pytest.mark.parametrize("data", CASES)
def test_valid_only_is_the_valid_runs(data):
    assert S.utf8_runs(data, valid_only=True) == [r for r in S.utf8_runs(data) if r.valid]
    assert S._utf8_runs_pure(data, True) == [r for r in S._utf8_runs_pure(data) if r[0]]


def test_runs_group_words_across_ascii_and_markup():
    data = ("<p>Привет</p><p>мир</p>" + "<b>x</b>").encode() + "<i>кот</i>".encode("cp1251")
    runs = S.utf8_runs(data)
    assert [(r.valid, r.sequences, r.invalid) for r in runs] == [(True, 9, 0), (False, 0, 3)]
    assert data[runs[0].start:runs[0].end] == "Привет</p><p>мир".encode()


_bytes = st.binary(max_size=300)
_texty = st.lists(st.sampled_from([b" ", b"<p>", b"a", b"\xd0\xbf", b"\xe3\x81\x82", b"\xf0\x9f\x98\x80",
                                   b"\xc3", b"\xa9", b"\xe9", b"\x83\\", b"0", b"\xff", b"\xed\xa0\x80"]),
                  max_size=60).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_bytes, _texty))
def test_runs_property(data):
    assert S._utf8_runs_pure(data) == _runs_by_hand(data)
    assert S._utf8_runs_pure(data, True) == [r for r in _runs_by_hand(data) if r[0]]


@pytest.mark.skipif(native.core is None, reason="the compiled core is not in use: no twin to compare")
@settings(max_examples=500, deadline=None)
@given(st.one_of(_bytes, _texty), st.booleans())
def test_compiled_twin_equals_pure(data, valid_only):
    assert native.core.utf8_runs(data, valid_only) == S._utf8_runs_pure(data, valid_only)


@pytest.mark.skipif(native.core is None, reason="the compiled core is not in use: no twin to compare")
def test_compiled_twin_on_real_text():
    rnd = random.Random(29)
    texts = [RU.encode(), RU.encode("cp1251"), JA.encode(), JA.encode("cp932"), FR.encode("cp1252"),
             JA.encode("euc_jp"), "모든 인간은 태어날 때부터 자유로우며".encode("cp949")]
    for _ in range(300):
        data = b"<p>".join(rnd.choice(texts) for _ in range(rnd.randrange(1, 6)))
        for valid_only in (False, True):
            assert native.core.utf8_runs(data, valid_only) == S._utf8_runs_pure(data, valid_only)


# --- stretches --------------------------------------------------------------------------------


def test_utf8_page_with_a_legacy_paragraph():
    body, truth = page(("<html><head><title>", "ascii"), ("Статья 26", "UTF-8"), ("</title></head><body><p>", "ascii"),
                       (RU, "UTF-8"), ("</p><div class=comment><p>", "ascii"), (RU2, "windows-1251"),
                       ("</p></div></body></html>", "ascii"))
    parts = read(body, "UTF-8", candidates=["windows-1251"])
    assert parts is not None
    assert parts.text == truth
    assert parts.errors == 0
    (s,) = parts.stretches
    assert s.encoding == "windows-1251"
    # tight: from its first byte above 0x7F to its last (the full stop after it is ASCII)
    assert body[s.offset:s.offset + s.length] == RU2.encode("cp1251").rstrip(b".")


def test_legacy_page_with_a_utf8_paragraph():
    body, truth = page(("<html><head><title>", "ascii"), ("Статья 26", "windows-1251"),
                       ("</title></head><body><p>", "ascii"), (RU, "windows-1251"),
                       ("</p><div class=widget><p>", "ascii"), (RU2, "UTF-8"), ("</p></div></body></html>", "ascii"))
    parts = read(body, "windows-1251")
    assert parts is not None and parts.text == truth
    (s,) = parts.stretches
    assert (s.encoding, body[s.offset:s.offset + s.length]) == ("UTF-8", RU2.encode().rstrip(b"."))


def test_legacy_stretch_in_a_multibyte_encoding_ends_with_its_ascii_trail_byte():
    # ソ is 83 5C in Shift_JIS: its trail byte is the backslash
    sj = "この表示はソ"
    body, truth = page(("<p>", "ascii"), (JA, "UTF-8"), ("</p><p>", "ascii"), (sj, "Shift_JIS"), ("</p>", "ascii"))
    parts = read(body, "UTF-8", candidates=["Shift_JIS"])
    assert parts is not None and parts.text == truth
    (s,) = parts.stretches
    assert body[s.offset:s.offset + s.length] == sj.encode("cp932")
    assert body[s.offset + s.length - 1:s.offset + s.length] == b"\\"


def test_a_lone_invalid_byte_stays_fffd():
    body = ("<p>" + RU + "</p><p>caf").encode() + b"\xe9" + b"</p>"
    assert read(body, "UTF-8", candidates=["windows-1252"]) is None


@pytest.mark.parametrize("how", ["delete", "insert-ascii", "insert-high", "replace", "cut"])
def test_one_damaged_byte_stays_fffd(how):
    rnd = random.Random(how)
    good = ("<html><body><p>" + RU + "</p><p>" + FR + "</p><p>" + JA + "</p></body></html>").encode()
    high = [i for i, b in enumerate(good) if b >= 0x80]
    for _ in range(200):
        i = rnd.choice(high)
        bad = {"delete": good[:i] + good[i + 1:],
               "insert-ascii": good[:i] + b"x" + good[i:],
               "insert-high": good[:i] + bytes([rnd.randrange(0x80, 0x100)]) + good[i:],
               "replace": good[:i] + bytes([rnd.randrange(0x80, 0x100)]) + good[i + 1:],
               "cut": good[:i + 1]}[how]
        if not decode(bad, "UTF-8").errors:
            continue
        assert read(bad, "UTF-8", candidates=["windows-1251", "windows-1252", "Shift_JIS"]) is None, bad[max(0, i - 20):i + 20]


@pytest.mark.parametrize("text, enc", [(RU, "windows-1251"), (RU2, "KOI8-R"), (FR, "windows-1252"), (JA, "Shift_JIS")])
def test_pure_pages_stay_whole(text, enc):
    body, _ = page(("<html><body><p>", "ascii"), (text, enc), ("</p><p>", "ascii"), (text, enc), ("</p></body></html>", "ascii"))
    assert read(body, enc) is None
    body, _ = page(("<html><body><p>", "ascii"), (text, "UTF-8"), ("</p></body></html>", "ascii"))
    assert read(body, "UTF-8") is None


def test_not_for_stateful_or_non_ascii_compatible_encodings():
    body, _ = page(("<p>", "ascii"), (RU, "UTF-8"), ("</p>", "ascii"))
    for enc in ("UTF-16LE", "ISO-2022-JP", "replacement", "x-user-defined"):
        assert read(body, enc) is None


def test_judge_reads_words_only():
    seen = []

    def judge(readings):
        seen.append(dict(readings))
        return S.script_judge(readings)

    body, _ = page(("<p>", "ascii"), (RU, "UTF-8"), ("</p><p class=x title=abc>", "ascii"), (RU2, "windows-1251"), ("</p>", "ascii"))
    S.read_in_parts(body, "UTF-8", judge=judge, candidates=["windows-1251"])
    assert seen
    for readings in seen:
        for text in readings.values():
            assert "<" not in text and "class" not in text


def test_scripts():
    assert S.scripts("Привет, world") == ["Cyrillic"]
    assert S.scripts("日本語のテキスト") == ["Kana", "Han"]
    assert S.scripts("中文網頁") == ["Han"]
    assert S.scripts("plain") == []


def test_an_undeclared_legacy_guess_is_weighed_again_on_the_rest():
    # a KOI8-R page with a UTF-8 paragraph, guessed windows-1251 on the mixed bytes: once the UTF-8
    # stretch is out, the rest reads better in KOI8-R
    body, truth = page(("<html><body><p>", "ascii"), (RU, "KOI8-R"), ("</p><p>", "ascii"), (RU2, "UTF-8"),
                       ("</p><p>", "ascii"), (RU2, "KOI8-R"), ("</p></body></html>", "ascii"))
    parts = read(body, "windows-1251", declared=False, candidates=["KOI8-R"])
    assert parts is not None and parts.encoding == "KOI8-R" and parts.text == truth
    # declared, the chosen encoding stays (the language evidence of the decision is the judge of
    # a declaration, not this step)
    parts = read(body, "windows-1251", declared=True)
    assert parts is not None and parts.encoding == "windows-1251"


def test_a_utf8_declaration_that_lost_reads_the_page_as_utf8_in_parts():
    # the decision read a UTF-8 page with one short UTF-8 word and a long windows-1252 paragraph as
    # windows-1252: the page said UTF-8, so its legacy part is the stretch
    body, truth = page(("<html><head><meta charset=utf-8></head><body><p>", "ascii"), ("Größe", "UTF-8"),
                       ("</p><p>", "ascii"), (FR, "windows-1252"), ("</p></body></html>", "ascii"))
    parts = read(body, "windows-1252", declared=False, utf8_declared=True, candidates=["windows-1252"])
    assert parts is not None and parts.encoding == "UTF-8" and parts.text == truth
    (s,) = parts.stretches
    assert s.encoding == "windows-1252"
    # a page that is all windows-1252 under a lying UTF-8 declaration stays whole
    body, _ = page(("<html><head><meta charset=utf-8></head><body><p>", "ascii"), (FR, "windows-1252"),
                   ("</p></body></html>", "ascii"))
    assert read(body, "windows-1252", declared=False, utf8_declared=True, candidates=["windows-1252"]) is None


def test_a_lone_utf8_sequence_in_a_single_byte_page():
    # "Größe" has two sequences, "für" one: in a single-byte page one is weighed, its legacy
    # reading (fÃ¼r) against the UTF-8 one
    body, truth = page(("<p>", "ascii"), (FR, "windows-1252"), ("</p><p title='", "ascii"), ("für", "UTF-8"),
                       ("'>x</p>", "ascii"))
    parts = S.read_in_parts(body, "windows-1252", judge=knowing(truth))
    assert parts is not None and parts.text == truth
    assert [s.encoding for s in parts.stretches] == ["UTF-8"]


def test_ascii_with_damaged_bytes_stays_fffd():
    # An ASCII page with bytes damaged here and there (as wpull's xkcd_1_evil.html, sample_warcs'
    # xml-declaration-utf8-corrupt): no UTF-8 text anywhere, so no page in two encodings, however
    # well a legacy encoding reads the damage (a judge that prefers any legacy reading)
    rnd = random.Random(29)
    good = bytearray(("<html><body><p>" + " ".join(["the quick brown fox jumps over the lazy dog"] * 40)
                      + "</p></body></html>").encode())
    letters = [i for i, b in enumerate(good) if 0x61 <= b <= 0x7A]
    for i in rnd.sample(letters, 40):
        good[i] = rnd.choice([0xE9, 0xFF, 0x81, 0x89, 0xEB, 0xB0])
    body = bytes(good)
    assert decode(body, "UTF-8").errors >= 40

    def legacy_wins(readings):
        return {k: (0.0 if k != "UTF-8" else -1e6) for k in readings}
    assert S.read_in_parts(body, "UTF-8", judge=legacy_wins, candidates=["windows-1250", "windows-1252"]) is None
    # with UTF-8 text elsewhere the same damage is weighed (and the judge decides)
    mixed = body.replace(b"<body>", ("<body><h1>" + RU + "</h1>").encode())
    assert S.read_in_parts(mixed, "UTF-8", judge=legacy_wins, candidates=["windows-1252"]) is not None


@pytest.mark.parametrize("text", [
    "будь‐якої дискримінації",       # U+2010 HYPHEN
    "зʼявіцца",                       # U+02BC MODIFIER LETTER APOSTROPHE (Lm)
    "می‌خواهم، ۱۲۳",                  # ZWNJ (Cf), Arabic comma, Persian digits
    "Größe 5 € ™ → ok 👍",            # common symbols, an arrow, an emoji
    "日本語のテキスト、한국어",          # Han, kana and Hangul count as one script
])
def test_utf8_text_is_of_one_script(text):
    assert S._words_of_one_script(text)


@pytest.mark.parametrize("text", [
    "\u00eb\u04af",   # Latin and Cyrillic letters in one word (EUC-KR bytes C3 AB D2 AF)
    "\u2ea2",         # a CJK radical (E2 BA A2), a symbol no text is written in
    "\u0921\u0915",   # Devanagari: a script no legacy encoding here writes
    "a\u0081b",       # a C1 control
])
def test_chance_utf8_is_not_of_one_script(text):
    assert not S._words_of_one_script(text)


# --- the author decision's step 6 (validate: AuthorParams.stretches) ---------------------------------


def _reading_in_parts():
    from redecode.rules import DEFAULT_RULES, get_rules

    return get_rules(DEFAULT_RULES)


def test_only_the_default_reads_in_parts_and_older_digests_do_not_name_it():
    from redecode import validate as V
    from redecode.rules import DEFAULT_RULES, RULES

    assert DEFAULT_RULES == "author-2026.12.7"
    assert not V.BASELINE.stretches
    # 12.4 is 12.3 with two sibling decisions, 12.5 is 12.4 with stretches that read as words, 12.6
    # is 12.5 with the legacy part of a page deciding and identical readings named alike, 12.7 is
    # 12.6 reading İ as Turkish lower-cases it
    reading = {"author-2026.12.3", "author-2026.12.4", "author-2026.12.5", "author-2026.12.6",
               "author-2026.12.7"}
    for rules in RULES.values():
        assert V.AuthorParams.from_rules(rules).stretches == (rules.name in reading), rules.name
        if rules.name not in reading:
            assert "stretch" not in json.dumps(rules.parameters()), rules.name
    assert not any(k.startswith("stretch") for k in V.BASELINE.to_json())
    on = V.AuthorParams(stretches=True).to_json()
    assert on["stretches"] is True
    assert not any(k.startswith("stretch_") for k in on)  # thresholds at their defaults: omitted
    assert V.AuthorParams(stretches=True, stretch_margin=4.0).to_json()["stretch_margin"] == 4.0


def test_the_author_decision_reads_a_mixed_page_in_parts_and_decode_replays_it():
    pytest.importorskip("redecode.language")
    rules = _reading_in_parts()
    head = "<html><head><meta charset=utf-8><title>"
    for bom in (b"", b"\xef\xbb\xbf"):
        body, truth = page((head, "ascii"), ("Статья 26", "UTF-8"), ("</title></head><body><p>", "ascii"),
                           (RU, "UTF-8"), ("</p><div class=comment><p>", "ascii"), (RU2, "windows-1251"),
                           ("</p></div></body></html>", "ascii"))
        payload = bom + body
        decision, decoded = rules.decide_and_decode(payload, content_type=["text/html"],
                                                    url="http://example.ru/", kind="html")
        assert decoded.text == truth and decoded.errors == 0
        assert (decision.encoding, decision.source, decision.confidence) == ("UTF-8", "parts", "tentative")
        ((offset, length, encoding),) = decision.stretches
        # offsets in the payload, the BOM included
        assert encoding == "windows-1251"
        assert payload[offset:offset + length] == RU2.encode("cp1251").rstrip(b".")
        assert decision.validation.startswith("in parts: UTF-8 with 1 stretch read otherwise: windows-1251 at bytes ")
        assert rules.decode(payload, decision) == decoded
    assert "language" in rules.versions()


def test_the_author_decision_reads_a_utf8_paragraph_in_a_legacy_page():
    pytest.importorskip("redecode.language")
    rules = _reading_in_parts()
    body, truth = page(("<html><head><meta charset=windows-1251><title>", "ascii"), ("Статья 26", "windows-1251"),
                       ("</title></head><body><p>", "ascii"), (RU, "windows-1251"),
                       ("</p><div class=widget><p>", "ascii"), (RU2, "UTF-8"), ("</p></div></body></html>", "ascii"))
    decision, decoded = rules.decide_and_decode(body, content_type=["text/html"], url=None, kind="html")
    assert decoded.text == truth
    assert decision.encoding == "windows-1251" and [s[2] for s in decision.stretches] == ["UTF-8"]
    assert rules.decode(body, decision) == decoded


def test_the_author_decision_leaves_pure_and_damaged_pages_whole():
    pytest.importorskip("redecode.language")
    from redecode.rules import get_rules

    rules, plain = _reading_in_parts(), get_rules("author-2026.12.2")
    bad = ("<html><body><p>" + RU + "</p><p>" + FR + "</p></body></html>").encode()
    i = bad.index(RU.encode()) + 5
    for payload, ct in [(("<p>" + RU + "</p>").encode(), "text/html; charset=utf-8"),
                        (("<p>" + RU + "</p>").encode("cp1251"), "text/html; charset=windows-1251"),
                        (("<p>" + JA + "</p>").encode("cp932"), "text/html"),
                        (bad[:i] + bad[i + 1:], "text/html; charset=utf-8")]:
        got = rules.decide_and_decode(payload, content_type=[ct], url=None, kind="html")
        want = plain.decide_and_decode(payload, content_type=[ct], url=None, kind="html")
        assert got == want and not got[0].stretches


ZH = "人人都有受教育的权利，教育应当免费，至少在初级和基本阶段应如此。"
ZH2 = "已存在一位使用该名字的用户。这个用户的特定权限。密码更改成功。"


def test_a_utf8_page_read_as_a_latin_guess_is_read_in_parts_with_its_legacy_paragraph():
    # an undeclared UTF-8 Chinese page with a GBK paragraph, guessed windows-1258 on the mixed
    # bytes: the UTF-8 runs are weighed against clean readings only, with context words that are
    # not themselves UTF-8 (their windows-1258 mojibake would make a Latin language of every
    # reading); the rest is weighed again and is GBK
    pytest.importorskip("redecode.language")
    from redecode import validate as V

    body = ("<html><head><title>" + "第二十六条" + "</title></head><body><p>" + ZH + "</p><p>").encode() \
        + ZH2.encode("gbk") + ("</p><p>" + ZH + "</p></body></html>").encode()
    truth = ("<html><head><title>" + "第二十六条" + "</title></head><body><p>" + ZH + "</p><p>" + ZH2
             + "</p><p>" + ZH + "</p></body></html>")
    parts = S.read_in_parts(body, "windows-1258", judge=V._judge, declared=False)
    assert parts is not None and parts.text == truth
    assert parts.encoding == "GBK" and {s.encoding for s in parts.stretches} == {"UTF-8"}


def test_a_row_read_in_parts_carries_its_text_not_its_payload(tmp_path):
    # a UTF-8 page with a windows-1251 stretch decodes without U+FFFD, but its payload is not its
    # UTF-8 text: the row must not hand the writer the payload
    pytest.importorskip("redecode.language")
    from redecode.archive import iter_records
    from redecode.row import record_row
    from redecode.writer import TEXT_UTF8_KEY

    mixed, truth = page(("<html><head><meta charset=utf-8></head><body><p>", "ascii"), (RU, "UTF-8"),
                        ("</p><div class=comment><p>", "ascii"), (RU2, "windows-1251"), ("</p></div></body></html>", "ascii"))
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + mixed
    warc = tmp_path / "mixed.warc"
    warc.write_bytes(b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n"
                     b"WARC-Target-URI: http://example.ru/\r\nWARC-Date: 2026-12-05T00:00:00Z\r\n"
                     b"Content-Type: application/http; msgtype=response\r\n"
                     + f"Content-Length: {len(block)}\r\n\r\n".encode() + block + b"\r\n\r\n")
    (rec,) = list(iter_records(str(warc)))
    row = record_row(rec, _reading_in_parts())
    assert row["source"] == "parts" and row["decode_errors"] == 0
    text = row[TEXT_UTF8_KEY].decode() if row.get(TEXT_UTF8_KEY) is not None else row["text"]
    assert text == truth


def test_a_run_lists_the_stretches_and_query_finds_the_mixed_pages(tmp_path):
    pytest.importorskip("redecode.language")
    from click.testing import CliRunner

    from redecode_jobs.cli import cli

    mixed, truth = page(("<html><head><meta charset=utf-8></head><body><p>", "ascii"), (RU, "UTF-8"),
                        ("</p><div class=comment><p>", "ascii"), (RU2, "windows-1251"), ("</p></div></body></html>", "ascii"))
    pure = ("<html><head><meta charset=utf-8></head><body><p>" + RU + "</p></body></html>").encode()
    records = []
    for i, (uri, body) in enumerate((("http://example.ru/mixed", mixed), ("http://example.ru/pure", pure))):
        block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
        records.append(b"WARC/1.0\r\nWARC-Type: response\r\n"
                       + f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-00000000000{i}>\r\n".encode()
                       + f"WARC-Target-URI: {uri}\r\nWARC-Date: 2026-12-05T00:00:00Z\r\n".encode()
                       + b"Content-Type: application/http; msgtype=response\r\n"
                       + f"Content-Length: {len(block)}\r\n\r\n".encode() + block + b"\r\n\r\n")
    warc = tmp_path / "mixed.warc"
    warc.write_bytes(b"".join(records))
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["run", str(warc), "--out", str(out), "--workers", "1", "-q"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(cli, [
        "query", str(out), "SELECT target_uri, source, encoding AS page, s.encoding AS part, s.offset AS o, "
        "s.length AS n, text FROM decodes, unnest(stretches) AS u(s) WHERE len(stretches) > 0", "--format", "json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert (row["target_uri"], row["source"], row["page"], row["part"]) == (
        "http://example.ru/mixed", "parts", "UTF-8", "windows-1251")
    assert mixed[row["o"]:row["o"] + row["n"]] == RU2.encode("cp1251").rstrip(b".")
    assert row["text"] == truth


@pytest.mark.skipif(native.core is None, reason="the compiled core is not in use: no twin to compare")
@pytest.mark.parametrize("background", [b"\xe9a ", b"\xc0a", b"ab\xff", b"\xa9\xa9 "])
def test_compiled_valid_only_finds_a_lead_and_continuation_at_every_offset(background):
    """The compiled search for a lead byte followed by a continuation byte reads 32 bytes at a time
    where the processor can (AVX2): one valid sequence at every offset of a legacy-looking page,
    across and at the ends of those blocks, is found as the pure twin finds it."""
    for n in (31, 32, 33, 34, 64, 65, 97, 130):
        page = (background * 60)[:n]
        for at in range(n + 1):
            for seq in (b"\xc3\xa9", b"\xe2\x80\x94", b"\xc3"):
                data = page[:at] + seq + page[at:]
                for valid_only in (True, False):
                    assert native.core.utf8_runs(data, valid_only) == S._utf8_runs_pure(data, valid_only), (n, at, seq)


@pytest.mark.skipif(native.core is None, reason="the compiled core is not in use: no twin to compare")
@pytest.mark.parametrize("simd", [True, False])
def test_compiled_valid_only_passes_invalid_words_to_the_next_candidate(simd):
    """After an invalid word the compiled search goes to the first lead-and-continuation after the
    word's end in one pass (32 bytes a step with AVX2): words of every length around the steps,
    ended by each kind of cut byte (and not by a digit or "@"), then a valid word at each offset
    after it, as the pure twin reads them; with and without AVX2."""
    was = native.core._simd(simd)
    try:
        for word in (b"\xd6\xa1\xb9\xfa", b"\xc3\xa9\xff", b"\xe9"):
            for n in (1, 2, 30, 31, 32, 33, 63, 64, 65, 96):
                body = (word * 40)[:max(n, 1)]
                for cut in (b" ", b"\x00", b"/", b":", b"?", b"<", b"0", b"@", b"A"):
                    for gap in range(0, 40, 3):
                        for seq in (b"\xc3\xa9", b"\xe2\x80\x94 ", b"\xd0\xbf\xd1"):
                            data = b"x" + body + cut + b"y" * gap + seq + b"\xe9" * (n % 5)
                            for valid_only in (True, False):
                                assert native.core.utf8_runs(data, valid_only) == S._utf8_runs_pure(
                                    data, valid_only), (word, n, cut, gap, seq)
    finally:
        native.core._simd(was)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"Z", b"9", b" ", b"<", b">", b":", b"@", b"/", b"\x00", b"\x80", b"\xb0",
                                 b"\xe4", b"\xff"]), max_size=30).map(b"".join), st.data())
def test_context_words_are_the_runs_with_a_high_byte(data, draw):
    # _context's words (runs between cut bytes with a byte above 0x7F, in a span) are the matches
    # of the pattern that finds them itself, which backtracks over every ASCII run
    lo = draw.draw(st.integers(0, len(data)))
    hi = draw.draw(st.integers(lo, len(data)))
    word = re.compile(rb"[^%s]*[\x80-\xff][^%s]*" % (S._CUTS, S._CUTS))
    runs = [m.group() for m in S._BYTE_RUN.finditer(data, lo, hi)]
    assert [w for w in runs if not w.isascii()] == [m.group() for m in word.finditer(data, lo, hi)]
