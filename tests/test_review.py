"""redecode.review: an uncertain decision's text under each competing reading, and the report's
"For review" rows that show them side by side (issue 30, item 4).

Expected texts come from the pages' true encodings (Python's codecs on bytes where they agree with
the Encoding Standard: the letters of these pages) and from the rows of runs, never from
redecode.review itself.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode.report import collect, render_html
from redecode.review import (
    EXCERPT_BEFORE,
    EXCERPT_CHARS,
    MAX_READINGS,
    ReviewTexts,
    competing_readings,
    reading_excerpts,
    review_texts,
)
from redecode_jobs.cli import cli
from review_pages import pages, write_warc

POLISH = "Każdy człowiek ma prawo do uczestniczenia w rządzeniu swym krajem."


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _run(warc: Path, out: Path, rules: str | None = None) -> list[dict]:
    args = ["run", str(warc), "--out", str(out), "--workers", "1", "-q"]
    res = CliRunner().invoke(cli, args + (["--rules", rules] if rules else []), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return pa.concat_tables(pq.read_table(p) for p in sorted(out.glob("*.parquet"))).to_pylist()


# --- which readings ---------------------------------------------------------------------------

def test_the_chosen_reading_first_then_the_browsers_then_the_candidates_named():
    row = {"encoding": "ISO-8859-2", "browser_encoding": "windows-1252",
           "validation": "overridden: transport:iso-8859-1 reads worse as language than its sibling ISO-8859-2 "
                         "(by 91.8 bits); ISO-8859-2 decodes cleanly (sibling of windows-1252, detector, reads as "
                         "pl (-374 bits)); other candidates: windows-1252 (transport:iso-8859-1, sibling of "
                         "windows-1252 (windows-1254), reads as pl (-494 bits)); windows-1250 (sibling of "
                         "windows-1252, reads as pl (-409 bits)); UTF-16LE (x); UTF-16 nothing"}
    # windows-1254 is inside parentheses (why windows-1252 was weighed), not a candidate; UTF-16 is
    # no encoding's name (a whole name only: not the UTF-16 of UTF-16LE)
    assert competing_readings(row) == [("ISO-8859-2", "chosen"), ("windows-1252", "browser"),
                                       ("windows-1250", "candidate"), ("UTF-16LE", "candidate")]


def test_a_labels_name_after_its_step_is_not_a_candidate():
    row = {"encoding": "UTF-8", "browser_encoding": "UTF-8",
           "validation": "unresolved: xml-declaration:UTF-8 made 43 U+FFFD; no candidate decodes cleanly: "
                         "windows-1252 (control or private-use characters)"}
    assert competing_readings(row) == [("UTF-8", "chosen"), ("windows-1252", "candidate")]


def test_a_python_decoder_and_a_page_read_in_parts():
    assert competing_readings({"encoding": None, "decoder": "python:hz", "browser_encoding": "replacement",
                               "validation": None}) == [("python:hz", "chosen"), ("replacement", "browser")]
    assert competing_readings({"encoding": "UTF-8", "browser_encoding": "UTF-8", "validation": "in parts: ...",
                               "stretches": [{"offset": 3, "length": 4, "encoding": "windows-1251"}]}) == [
        ("UTF-8", "chosen"), ("UTF-8", "whole")]
    assert competing_readings({"encoding": None, "decoder": None}) == []


# --- the excerpts -----------------------------------------------------------------------------

def test_excerpts_at_the_first_difference_bounded_and_marked():
    head = "<html><head><title>Deklaracja</title></head>\n\n   <body><p>" + "ASCII words before. " * 10
    payload = (head + POLISH + "</p></body></html>").encode("iso-8859-2")
    chosen, browser = reading_excerpts(payload, [("ISO-8859-2", "chosen"), ("windows-1252", "browser")])
    truth = _squeeze(payload.decode("iso-8859-2"))
    shown = _squeeze(payload.decode("cp1252"))
    assert (chosen.name, chosen.role, browser.name, browser.role) == ("ISO-8859-2", "chosen", "windows-1252", "browser")
    # the first difference: 'ż' (0xBF) read as '¿'; the same place of both texts, whitespace squeezed
    first = next(i for i, (a, b) in enumerate(zip(truth, shown)) if a != b)
    assert truth[first] == "ż" and shown[first] == "¿"
    for r, text in ((chosen, truth), (browser, shown)):
        assert r.at <= first < r.at + EXCERPT_CHARS and first - r.at <= EXCERPT_BEFORE
        assert r.excerpt == text[r.at:r.at + EXCERPT_CHARS] and len(r.excerpt) <= EXCERPT_CHARS
        assert r.mark == first - r.at and r.errors == 0 and r.note is None
    assert chosen.at == browser.at and chosen.excerpt[:chosen.mark] == browser.excerpt[:browser.mark]
    assert truth[chosen.at - 1] == " "  # at a word's start within EXCERPT_BEFORE characters


def test_readings_of_the_same_text_are_named_once_and_at_most_max_readings_shown():
    payload = ("<p>" + POLISH + "</p>").encode("iso-8859-2")
    names = ["ISO-8859-2", "windows-1252", "windows-1254", "windows-1250", "windows-1257", "ISO-8859-4",
             "macintosh"]
    got = reading_excerpts(payload, [(n, "chosen" if i == 0 else "candidate") for i, n in enumerate(names)])
    texts = {n: _squeeze(payload.decode(c)) for n, c in (("windows-1252", "cp1252"), ("windows-1254", "cp1254"))}
    assert texts["windows-1252"] == texts["windows-1254"]  # the Polish letters are the same bytes in both
    assert [r.name for r in got] == names[:1] + ["windows-1252", "windows-1250", "windows-1257"]
    assert len(got) == MAX_READINGS
    assert got[1].note == "the same text: windows-1254"


def test_a_bom_is_left_out_of_every_reading():
    payload = b"\xef\xbb\xbf" + "<p>Přílišné</p>".encode("utf-8")
    chosen, other = reading_excerpts(payload, [("UTF-8", "chosen"), ("windows-1252", "candidate")], bom="UTF-8")
    assert chosen.excerpt == "<p>Přílišné</p>"
    assert other.excerpt == payload[3:].decode("cp1252") and other.mark == 4


def test_an_unknown_codec_is_said_not_raised():
    (chosen, other) = reading_excerpts(b"abc\xff", [("windows-1252", "chosen"), ("python:no-such", "candidate")])
    assert chosen.excerpt == "abcÿ" and other.excerpt is None and other.note.startswith("cannot decode")


def test_a_page_read_in_parts_against_itself_read_whole(tmp_path):
    mixed = next(p for p in pages() if p.uri.endswith("/mixed"))
    write_warc(tmp_path / "p.warc")
    (row,) = [r for r in _run(tmp_path / "p.warc", tmp_path / "out") if r["target_uri"] == mixed.uri]
    assert row["source"] == "parts" and row["stretches"]
    got = review_texts(row)
    assert [(r.name, r.role, r.in_parts) for r in got.readings[:2]] == [
        ("UTF-8", "chosen", True), ("UTF-8", "whole", False)]
    chosen, whole = got.readings[:2]
    # the place shown is the stretch: the chosen reading there is the run's text (the author's),
    # the page read whole has U+FFFD there
    assert chosen.excerpt in _squeeze(row["text"]) and whole.excerpt[whole.mark] == "\ufffd"
    assert chosen.at == whole.at and whole.errors > 0 == chosen.errors


# --- reading the record again ------------------------------------------------------------------

def test_review_texts_from_the_archive_and_when_it_is_not_reachable(tmp_path):
    warc = tmp_path / "p.warc"
    listed = write_warc(warc)
    rows = {r["target_uri"]: r for r in _run(warc, tmp_path / "out")}
    koi8 = rows["http://example.ru/koi8-r"]
    got = review_texts(koi8)
    assert got.error is None and got.readings[0].role == "chosen"
    truth = _squeeze(next(p for p in listed if p.uri == koi8["target_uri"]).body.decode("koi8_r"))
    assert got.readings[0].excerpt in truth
    assert got.readings[1].name == koi8["browser_encoding"] == "windows-1251"
    # the archive gone, or no record at that offset: said, not raised
    gone = dict(koi8, warc_path=str(tmp_path / "moved.warc"))
    assert review_texts(gone).error.startswith("archive not reachable: ")
    assert not review_texts(gone).readings
    assert review_texts(dict(koi8, warc_offset=7)).error.startswith("archive not reachable: ")
    assert review_texts({"encoding": None}) == ReviewTexts(error="no reading to show: the row names no encoding")


def test_the_report_shows_each_record_under_its_competing_readings(tmp_path):
    """Each record listed for review gets its texts: the chosen reading's excerpt is in the run's
    text and in the page's true text; the browser's is in the browser rules' text of the record."""
    warc = tmp_path / "p.warc"
    listed = {p.uri: p for p in write_warc(warc)}
    out = tmp_path / "out"
    rows = {(r["warc_path"], r["warc_offset"]): r for r in _run(warc, out)}
    browser = {(r["warc_path"], r["warc_offset"]): r for r in _run(warc, tmp_path / "browser", "browser-2026.11")}
    data = collect(str(out))
    review = data.sections["review"]
    assert len(review.rows) == len(data.review) == 4  # the three lies and the page read in parts
    at = {c: review.columns.index(c) for c in review.columns}
    for values, texts in zip(review.rows, data.review):
        key = (values[at["warc_path"]], values[at["warc_offset"]])
        row, page = rows[key], listed[values[at["target_uri"]]]
        assert texts.error is None and 2 <= len(texts.readings) <= MAX_READINGS
        chosen = texts.readings[0]
        assert (chosen.name, chosen.role) == (row["encoding"], "chosen")
        assert chosen.excerpt in _squeeze(row["text"])
        if not row["stretches"]:  # (a page read in parts: its truth is in test_a_page_read_in_parts...)
            assert chosen.excerpt in _squeeze(page.body.decode(page.encoding))
            shown = next(r for r in texts.readings if r.role == "browser")
            assert shown.name == row["browser_encoding"]
            assert shown.excerpt in _squeeze(browser[key]["text"]) and shown.excerpt != chosen.excerpt
    page = render_html(data)
    assert page.count('<tr class="readings">') == 4
    assert page.count('class="reading" data-encoding=') == sum(len(t.readings) for t in data.review)
    assert "<mark>" in page
    # the archive moved away: each record says so in its row
    shutil.move(warc, tmp_path / "elsewhere.warc")
    moved = collect(str(out))
    assert all(t.error and t.error.startswith("archive not reachable") for t in moved.review)
    page = render_html(moved)
    assert page.count('<p class="unread">No text: archive not reachable: ') == 4
    assert collect(str(out), review_texts=False).review == ()


@pytest.mark.parametrize("nasty", ["<script>alert(1)</script>", "\u202e\x00"])
def test_excerpts_are_escaped(tmp_path, nasty):
    payload = ("<p>" + nasty + POLISH + "</p>").encode("utf-8")
    from redecode.report import _readings_html  # the cell as the page writes it

    cell = _readings_html(ReviewTexts(readings=reading_excerpts(
        payload, [("UTF-8", "chosen"), ("windows-1252", "browser")])), 7)
    assert "<script>" not in cell and "\u202e" not in cell and "\x00" not in cell


def test_a_relative_warc_path_is_read_where_the_run_ran(tmp_path, monkeypatch):
    """A run given a relative path names it so in ``warc_path``; the report, made from another
    directory, reads the record relative to the run's directory (its manifest's ``cwd``), as
    backfill does."""
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    write_warc(crawl / "p.warc")
    monkeypatch.chdir(crawl)
    result = CliRunner().invoke(cli, ["run", "p.warc", "--out", "out"])
    assert result.exit_code == 0, result.output
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    data = collect(str(crawl / "out"))
    assert data.review and all(t.error is None and t.readings for t in data.review)
    rows = pq.read_table(crawl / "out").to_pylist()
    assert {r["warc_path"] for r in rows} == {"p.warc"}
