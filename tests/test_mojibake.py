"""redecode.mojibake: ftfy's encoding fixes only, a replayable plan, and the status of a repair.

Expected texts come from Python's codecs (the mojibake is made here by encoding and decoding), never
from the code under test; plans are replayed with ftfy's own ``apply_plan``.
"""

from __future__ import annotations

import unicodedata

import ftfy
import pytest

from redecode import mojibake
from redecode.mojibake import ENCODING_FIXES, STATUSES, repair


def _replays(old: str, r: mojibake.Repair) -> bool:
    return ftfy.apply_plan(old, list(r.plan)) == r.text


@pytest.mark.parametrize("codec", ["latin-1", "cp1252"])
def test_utf8_read_as_single_byte_is_repaired(codec):
    true = "Grüße aus Köln, schöne Straße — “quoted’"  # (” would hold 9D: undefined in cp1252)
    old = true.encode("utf-8").decode(codec)
    r = repair(old)
    assert r.text == true
    assert r.status == "repaired" and r.doubts == ()
    assert r.plan and r.plan[0][0] == "encode" and r.plan[-1] == ("decode", "utf-8")
    assert _replays(old, r)
    assert not r.mojibake_left


def test_double_utf8_is_repaired_in_two_layers():
    true = "café, naïve, 日本語"
    once = true.encode("utf-8").decode("cp1252")
    old = once.encode("utf-8").decode("cp1252")
    r = repair(old)
    assert r.text == true and r.status == "repaired"
    assert [a for a, _ in r.plan] == ["encode", "decode", "encode", "decode"]
    assert _replays(old, r)


@pytest.mark.parametrize("text", [
    "plain ASCII <p>text</p>",
    "Grüße aus Köln",
    "Москва — столица России",
    "日本語のページ",
    "",
])
def test_correct_text_is_unchanged(text):
    r = repair(text)
    assert r == mojibake.Repair(text=text, plan=(), status="unchanged", doubts=(), mojibake_left=False)


@pytest.mark.parametrize("text", [
    "“curly quotes” and ‘single’",          # uncurl_quotes off
    "ｆｕｌｌｗｉｄｔｈ ｶﾀｶﾅ",              # fix_character_width off
    "line one\r\nline two\r\n",             # fix_line_breaks off
    "ﬁne ﬂour",                             # fix_latin_ligatures off
    "&amp; &eacute; &#233;",                # unescape_html off
    "e\u0301 (NFD)",                        # normalization off
    "bell\x07 and \x1b[31mred\x1b[0m",      # remove_control_chars, remove_terminal_escapes off
])
def test_cosmetic_fixes_are_off(text):
    r = repair(text)
    assert r.text == text and r.status == "unchanged" and r.plan == ()


def test_config_is_encoding_fixes_only():
    on = {k for k, v in ENCODING_FIXES._asdict().items() if v is True}
    assert on == {"fix_encoding", "restore_byte_a0", "replace_lossy_sequences",
                  "decode_inconsistent_utf8", "fix_c1_controls", "explain"}
    assert ENCODING_FIXES.normalization is None and ENCODING_FIXES.unescape_html is False
    assert mojibake.config_json()["normalization"] is None


def test_lossy_decode_is_doubtful():
    # Python's cp1252 has no mapping for 0x81 ('Á' is C3 81 in UTF-8): errors="replace" lost it.
    true = "ÁRVÍZTŰRŐ tükörfúrógép"
    old = true.encode("utf-8").decode("cp1252", "replace")
    assert "\ufffd" in old
    r = repair(old)
    assert r.status == "doubtful"
    assert "step:replace_lossy_sequences" in r.doubts
    assert r.text != true
    assert _replays(old, r)


def test_shift_jis_read_as_windows_1252_is_not_called_repaired():
    true = "日本語のページです。ウェブサイト"
    old = true.encode("cp932").decode("cp1252", "replace")
    r = repair(old)
    assert r.text != true
    assert r.status in ("doubtful", "unchanged")
    assert _replays(old, r)
    if r.status == "doubtful":
        assert r.doubts


def test_ambiguous_reading_is_doubtful():
    # 'Âˇ' is the UTF-8 of '¡' (C2 A1) read as windows-1250, and the UTF-8 of '·' (C2 B7) read as
    # ISO-8859-2: two single-byte encodings ftfy knows explain it, with different texts.
    old = "ÂˇHola! ÂˇVamos!"
    readings = {old.encode(c).decode("utf-8") for c in ("cp1250", "iso8859_2")}
    assert readings == {"¡Hola! ¡Vamos!", "·Hola! ·Vamos!"}
    r = repair(old)
    assert r.text in readings
    assert r.status == "doubtful"
    assert any(d.startswith("ambiguous:") for d in r.doubts)
    assert _replays(old, r)


#: The letters of Latin-1 (U+00C0..U+00FF but the multiplication and division signs): those of the
#: Western European languages whose UTF-8 is the commonest mojibake of all when read as ISO-8859-1 or
#: windows-1252 (``café`` -> ``cafÃ©``).
LATIN1_LETTERS = [chr(c) for c in range(0xC0, 0x100) if c not in (0xD7, 0xF7)]
WORDS = ("caf{}", "{}t{}", "Le {}lan de la {}cole")


@pytest.mark.parametrize("letter", LATIN1_LETTERS)
def test_utf8_read_as_latin1_is_repaired_without_doubt(letter):
    """UTF-8 read as ISO-8859-1 (Python's latin-1, what requests does with a text/* response
    without charset) is repaired exactly and called repaired, for every Latin-1 letter inside a
    word: no other reading of the same characters (MacRoman gives a combining mark on no letter:
    ``cafÃ©`` -> ``caf`` U+0329) makes it doubtful."""
    for word in WORDS:
        true = word.format(letter, letter)
        r = repair(true.encode("utf-8").decode("latin-1"))
        assert (r.status, r.text, r.doubts) == ("repaired", true, ()), true


@pytest.mark.parametrize("letter", LATIN1_LETTERS)
def test_utf8_read_as_windows_1252_is_never_called_ambiguous(letter):
    """The same words read as windows-1252 (the Encoding Standard's: 81, 8D, 8F, 90, 9D as C1
    controls): whatever ftfy does (a few, such as ``Ã…`` for Å, it leaves alone), a change is the
    true text and no doubt is an ambiguity."""
    for word in WORDS:
        true = word.format(letter, letter)
        data = true.encode("utf-8")
        old = "".join(chr(b) if b in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else bytes([b]).decode("cp1252")
                      for b in data)
        r = repair(old)
        assert r.status == "unchanged" or r.text == true, (true, r)
        assert not [d for d in r.doubts if d.startswith("ambiguous:")], (true, r)


@pytest.mark.parametrize("true", [
    "Le café de la gare est fermé.",
    "Él tenía un niño pequeño en España.",
    "A situação da educação no Brasil é séria.",
    "Grüße aus Köln, schöne Straße.",
    "L'été à Montréal, crème brûlée et ça.",
])
@pytest.mark.parametrize("codec", ["latin-1", "cp1252"])
def test_short_western_sentences_are_repaired(true, codec):
    r = repair(true.encode("utf-8").decode(codec))
    assert (r.status, r.text, r.doubts) == ("repaired", true, ())


def test_implausible_counts_what_no_author_writes():
    assert mojibake.implausible("café, Grüße, Москва, 日本語") == 0
    assert mojibake.implausible("cafe\u0301 (decomposed)") == 0  # NFC composes it: a letter takes it
    assert mojibake.implausible("caf\u0329") == 1  # U+0329 on f: no precomposed character
    assert mojibake.implausible("x \u0329 y") == 1  # on a space
    assert mojibake.implausible("a\ufffdb\x81c\ue000d\u0378") == 4  # U+FFFD, C1, private use, unassigned
    assert mojibake.implausible("tab\tline\nreturn\r") == 0


def test_mojibake_left_on_unchanged_text():
    # A correct Hungarian sentence (chardet's test page torokorszag.blogspot.com.xml, windows-1250)
    # that ftfy's badness heuristic flags (the quote before a letter with an accent): ftfy changes
    # nothing, the status is unchanged, and mojibake_left reports the heuristic's alarm.
    text = "Haláláról is maga mondta ki az utolsó szót: »ámulok, hogy meghalok«."
    r = repair(text)
    assert (r.text, r.status, r.plan) == (text, "unchanged", ())
    assert r.mojibake_left is True


def test_repair_never_raises(monkeypatch):
    def boom(text, config):
        raise RuntimeError("odd text")

    monkeypatch.setattr(mojibake.ftfy, "fix_and_explain", boom)
    r = repair("anything")
    assert r == mojibake.Repair(text="anything", plan=(), status="doubtful",
                                doubts=("error:RuntimeError",), mojibake_left=False)


def test_statuses():
    assert STATUSES == ("repaired", "unchanged", "doubtful")


def test_apply_plan_accepts_stored_structs():
    true = "naïve"
    old = true.encode("utf-8").decode("latin-1")
    r = repair(old)
    stored = [{"action": a, "parameter": p} for a, p in r.plan]
    assert mojibake.apply_plan(old, stored) == true


def test_fix_encoding_keeps_cosmetics_fix_text_does_not():
    text = "“quoted” caf\u00c3\u00a9"
    assert mojibake.fix_encoding(text) == "“quoted” café"
    assert mojibake.fix_text(text) == '"quoted" café'
    assert unicodedata.is_normalized("NFC", mojibake.fix_text("e\u0301"))
