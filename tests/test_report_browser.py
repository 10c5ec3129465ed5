"""`redecode report` pages in headless Chromium: they load with no console error and no request
beyond the file itself, and every chart draws marks.

Needs Debian's Chromium at /usr/bin/chromium (or $REDECODE_CHROMIUM; `.ci/run` installs it where
apt-get can) and Playwright from PyPI (the [test] extra), which drives that browser and never
downloads one of its own; the [report] extra makes the pages. Without any of them the tests skip
and say which is missing. The browser runs with the network features off (background networking,
component updates, sync); the page's own Content-Security-Policy forbids any fetch as well.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from redecode.report import (
    DIFF_SECTIONS, MAX_CELL, RUN_SECTIONS, _cut, collect, query_line, visible, write_report)
from redecode.rules import DEFAULT_RULES
from report_fixtures import NASTY, clueweb_run, make_report_run, sample_diff, sample_run
from runs_fixtures import make_run, row

#: Each drives Chromium over a report: the slow tier.
pytestmark = pytest.mark.slow

CHROMIUM = os.environ.get("REDECODE_CHROMIUM", "/usr/bin/chromium")

#: Chromium as root needs --no-sandbox; the rest keep it from reaching for the (closed) network.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-gpu",
]

# Every chart container, with the state Vega-Embed left and the number of mark items it drew
# (SVG elements under Vega's role-mark groups: bars, circles, rects, texts; not axes or legends).
_CHARTS_JS = """Array.from(document.querySelectorAll('[data-chart]')).map(e => ({
  key: e.dataset.chart, rendered: e.dataset.rendered || null,
  marks: e.querySelectorAll('svg .role-mark > *').length}))"""


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run installs it "
                    "where it can; or set REDECODE_CHROMIUM)")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (the [test] extra)")
    pytest.importorskip("altair", reason="the [report] extra (altair) is not installed")
    pytest.importorskip("vl_convert", reason="the [report] extra (vl-convert-python) is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


# What a reader sees of each chart: its caption's number, the count labels written beside its
# marks (the text layers named redecode.report.TOTALS), and each axis's title and tick labels.
_SEEN_JS = """Array.from(document.querySelectorAll('[data-chart]')).map(e => ({
  key: e.dataset.chart,
  caption: (e.parentElement.querySelector('p.caption b.total') || {}).textContent || null,
  totals: Array.from(e.querySelectorAll('svg .role-mark[class*="totals"] > text')).map(t => t.textContent),
  axes: Array.from(e.querySelectorAll('svg .role-axis')).map(a => ({
    title: Array.from(a.querySelectorAll('.role-axis-title text')).map(t => t.textContent).join(' '),
    labels: Array.from(a.querySelectorAll('.role-axis-label text')).map(t => t.textContent)}))}))"""


# What a reader sees of the for-review table's validation cells: the header's and each cell's
# width, the cell's height in lines of its text, whether its text spills out of it, and the text.
_REVIEW_JS = """(() => { const t = document.querySelector('#review table.records');
  if (!t) return null;
  const head = Array.from(t.querySelectorAll('th')).map(c => c.textContent);
  const at = head.indexOf('validation');
  return {head: head, table_width: t.getBoundingClientRect().width,
    cells: Array.from(t.querySelectorAll('tbody tr.record')).map(r => { const c = r.cells[at];
      const s = getComputedStyle(c);
      return {width: c.getBoundingClientRect().width, height: c.getBoundingClientRect().height,
              line: parseFloat(s.lineHeight) || 1.45 * parseFloat(s.fontSize),
              char: parseFloat(s.fontSize), spills: c.scrollWidth > c.clientWidth + 1,
              text: c.innerText}; }),
    readings: Array.from(t.querySelectorAll('tbody tr.readings')).map(r => ({
      width: r.getBoundingClientRect().width,
      boxes: Array.from(r.querySelectorAll('.reading')).map(b => { const e = b.querySelector('.ex');
        const x = b.getBoundingClientRect();
        return {encoding: b.dataset.encoding, role: b.dataset.role, left: x.left, top: x.top,
                width: x.width, spills: e.scrollWidth > e.clientWidth + 1, text: e.innerText}; })}))}; })()"""


def load(browser, path: str) -> dict:
    """Open the report at *path*, wait until every chart is drawn (or failed); return what happened:
    console errors and page errors, the URLs requested, and the charts (see _CHARTS_JS)."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("request", lambda r: requests.append(r.url))
    url = Path(path).resolve().as_uri()
    try:
        page.goto(url)
        page.wait_for_function(
            "document.querySelectorAll('[data-chart]:not([data-rendered])').length === 0", timeout=30_000)
        return {
            "url": url,
            "errors": errors,
            "requests": requests,
            "charts": page.evaluate(_CHARTS_JS),
            "pwned": page.evaluate("window.__pwned === undefined ? null : window.__pwned"),
            "text": page.evaluate("document.body.innerText"),
            "scripts": page.evaluate("document.querySelectorAll('script').length"),
            "detector_circles": page.evaluate(
                "document.querySelectorAll('#chart-detector .mark-symbol.role-mark > path').length"),
            "seen": page.evaluate(_SEEN_JS),
            "failed": page.evaluate("""(() => { const s = document.getElementById('failed');
              return {caption: (s.querySelector('p.caption b.total') || {}).textContent || null,
                      query: (s.querySelector('pre.cmd') || {}).textContent || null,
                      head: Array.from(s.querySelectorAll('table.records th')).map(c => c.textContent),
                      rows: Array.from(s.querySelectorAll('table.records tbody tr')).map(
                        r => Array.from(r.cells).map(c => c.textContent)),
                      text: s.innerText}; })()"""),
            "font_note": _font_note(page),
            "review": page.evaluate(_REVIEW_JS),
            "examples": page.evaluate("""Array.from(document.querySelectorAll('table.examples tbody tr')).map(
              r => Array.from(r.querySelectorAll('.ex')).map(e => e.textContent))"""),
        }
    finally:
        page.close()


def _font_note(page) -> dict:
    """The note on characters without a font, once the page's script has checked them."""
    page.wait_for_function("document.getElementById('font-note').hasAttribute('data-checked')",
                           timeout=30_000)
    return page.evaluate("""(() => { const n = document.getElementById('font-note');
      return {shown: !n.hidden, checked: +n.dataset.checked, missing: +n.dataset.missing,
              text: n.innerText}; })()""")


#: Axis titles of counts (records, inputs): their ticks must be whole numbers.
COUNT_AXES = {"records", "decoded records", "inputs", "records with U+FFFD"}


def assert_numbers_agree(result: dict) -> None:
    """Every count axis has whole, distinct, increasing tick labels; every caption's number is the
    sum of the count labels its chart writes beside its marks."""
    def number(text: str) -> float:
        return float(text.replace(",", ""))

    for chart in result["seen"]:
        for axis in chart["axes"]:
            if axis["title"] in COUNT_AXES:
                ticks = [number(t) for t in axis["labels"]]
                assert ticks and all(t == int(t) for t in ticks), (chart["key"], axis)
                assert ticks == sorted(set(ticks)), (chart["key"], axis)  # no "0 1 1 2 2"
        if chart["caption"] is not None:
            assert chart["totals"], chart["key"]
            assert sum(number(t) for t in chart["totals"]) == number(chart["caption"]), chart


def assert_clean(result: dict, data) -> None:
    """No error, nothing fetched, one drawn chart per section with rows, each with marks."""
    assert result["errors"] == []
    assert result["requests"] == [result["url"]]
    charts = {s.key for s in (*RUN_SECTIONS, *DIFF_SECTIONS) if s.kind == "chart"}
    with_rows = [k for k, r in data.sections.items() if r.rows and k in charts]
    assert [c["key"] for c in result["charts"]] == with_rows
    for c in result["charts"]:
        assert c["rendered"] == "ok", c
        assert c["marks"] > 0, c
    assert_numbers_agree(result)


def test_sample_report_with_diff(browser, tmp_path):
    run = sample_run(tmp_path / "run")
    d = sample_diff(tmp_path / "diff")
    data = write_report(run, str(tmp_path / "r.html"), diff=d)
    result = load(browser, str(tmp_path / "r.html"))
    assert_clean(result, data)
    assert {c["key"] for c in result["charts"]} >= {
        "status", "encodings", "detector", "errors", "tld", "outcomes", "inputs", "diff_categories",
        "diff_transitions"}
    # one circle per (encoding, detector, confidence) row of the detector chart's data
    assert result["detector_circles"] == len(data.sections["detector"].rows) > 0
    assert "old and new text side by side" in result["text"]


def test_sample_report_with_languages(browser, tmp_path):
    """The default rules with run --language: the encodings-by-language heatmap is drawn, and the
    decisions for review are listed."""
    run = sample_run(tmp_path / "run", DEFAULT_RULES, "--language")
    data = write_report(run, str(tmp_path / "r.html"))
    result = load(browser, str(tmp_path / "r.html"))
    assert_clean(result, data)
    assert "languages" in {c["key"] for c in result["charts"]}
    assert data.sections["review"].rows and "For review" in result["text"]
    # the validation column is readable: a third of the table wide (at least 40 characters of the
    # font), each cell's text inside its cell, whole or cut with '…' at MAX_CELL characters (the
    # caption's query line gives it whole), in a few lines, not a tall strip
    review = result["review"]
    assert review["head"][-1] == "validation"
    validations = [r[review["head"].index("validation")] for r in data.sections["review"].rows]
    assert len(review["cells"]) == len(validations)
    for cell, validation in zip(review["cells"], validations):
        assert cell["width"] >= 0.3 * review["table_width"] and cell["width"] >= 40 * cell["char"] / 2
        assert not cell["spills"]
        assert cell["text"] == (validation if len(validation) <= MAX_CELL else _cut(validation))
        assert cell["height"] <= 6 * cell["line"] + 8, cell
    assert "query" in result["text"] and "validation" in result["text"]


def test_review_texts_side_by_side(browser, tmp_path):
    """Under each record listed for review, its texts under the competing readings: one box per
    reading, side by side in one line across the table, each excerpt inside its box, as the data
    says (tests/review_pages.py: three lying declarations and a page read in parts)."""
    from click.testing import CliRunner

    from redecode_jobs.cli import cli
    from review_pages import write_warc

    write_warc(tmp_path / "p.warc")
    res = CliRunner().invoke(cli, ["run", str(tmp_path / "p.warc"), "--out", str(tmp_path / "out"),
                                   "--workers", "1", "-q"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    data = write_report(str(tmp_path / "out"), str(tmp_path / "r.html"))
    result = load(browser, str(tmp_path / "r.html"))
    assert_clean(result, data)
    review = result["review"]
    assert len(review["cells"]) == len(review["readings"]) == len(data.review) == 4
    for shown, texts in zip(review["readings"], data.review):
        assert shown["width"] >= 0.95 * review["table_width"]
        boxes = shown["boxes"]
        assert [(b["encoding"], b["role"]) for b in boxes] == [(r.name, r.role) for r in texts.readings]
        assert len({round(b["top"]) for b in boxes}) == 1  # side by side
        assert all(a["left"] + a["width"] <= b["left"] + 1 for a, b in zip(boxes, boxes[1:]))
        for b, r in zip(boxes, texts.readings):
            assert not b["spills"]
            assert b["text"] == ("…" if r.at else "") + visible(r.excerpt)


@pytest.mark.parametrize("rules", ["seed-2026.10", "requests-2.32"])
def test_sample_report_of_other_rule_sets(browser, tmp_path, rules):
    run = sample_run(tmp_path / "run", rules)
    data = write_report(run, str(tmp_path / "r.html"))
    assert_clean(load(browser, str(tmp_path / "r.html")), data)


def test_odd_texts_stay_text(browser, tmp_path):
    """Paths, URLs, TLDs and detector names holding </script>, quotes, controls and a bidi override:
    the page still loads, every chart draws, nothing planted runs, the texts show as escapes."""
    run = make_report_run(tmp_path / "run")
    data = write_report(run, str(tmp_path / "r.html"))
    result = load(browser, str(tmp_path / "r.html"))
    assert_clean(result, data)
    assert result["pwned"] is None
    # the inlined bundle, one JSON element per chart, the embedding code
    assert result["scripts"] == len(result["charts"]) + 2
    assert "\u202e" not in result["text"] and "</script><script>window.__pwned=1" in result["text"]
    assert NASTY not in result["text"]  # its newline and bidi override are shown as \n, \u202e


def test_empty_run(browser, tmp_path):
    run = make_run(str(tmp_path / "empty"), {})
    data = write_report(run, str(tmp_path / "r.html"))
    assert all(not r.rows for r in collect(run).sections.values())
    result = load(browser, str(tmp_path / "r.html"))
    assert_clean(result, data)
    assert result["charts"] == []
    assert "No records." in result["text"]


def test_several_runs(browser, tmp_path):
    a = sample_run(tmp_path / "a")
    b = make_report_run(tmp_path / "b")
    data = write_report([a, b], str(tmp_path / "r.html"))
    assert_clean(load(browser, str(tmp_path / "r.html")), data)


def test_failed_records_are_listed(browser, tmp_path):
    """The ClueWeb09 responses under the browser rules: every one failed (content-encoding), and
    the page lists each with its URL, input, offset and error, and the query line that lists
    them all."""
    run = clueweb_run(tmp_path / "run")
    data = write_report(run, str(tmp_path / "r.html"))
    result = load(browser, str(tmp_path / "r.html"))
    assert_clean(result, data)
    failed = sorted((r for r in _parts(run) if r["status"] == "failed"),
                    key=lambda r: (r["warc_path"], r["warc_offset"]))
    assert len(failed) == 3 and {r["error_kind"] for r in failed} == {"content-encoding"}
    seen = result["failed"]
    assert seen["caption"] == "3"
    assert seen["head"] == ["target_uri", "warc_path", "warc_offset", "error_kind", "error"]
    assert seen["rows"] == [[r["target_uri"], r["warc_path"], str(r["warc_offset"]), r["error_kind"], r["error"]]
                            for r in failed]
    section = next(s for s in RUN_SECTIONS if s.key == "failed")
    assert seen["query"] == query_line(section.query, [run])
    # the status chart's caption and labels say the same 3
    status = next(c for c in result["seen"] if c["key"] == "status")
    assert status["caption"] == "3" and status["totals"] == ["3"]


def test_no_failed_records(browser, tmp_path):
    run = clueweb_run(tmp_path / "run", "author-2026.12")  # decoded as identity: none fails
    data = write_report(run, str(tmp_path / "r.html"))
    result = load(browser, str(tmp_path / "r.html"))
    assert_clean(result, data)
    assert result["failed"]["rows"] == [] and "No record failed or was cut short." in result["failed"]["text"]


def _parts(run: str) -> list[dict]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa.concat_tables(pq.read_table(f) for f in sorted(Path(run).glob("*.parquet"))).to_pylist()


def _has_font(ch: str) -> bool | None:
    """Whether fontconfig knows a font with a glyph for *ch* (None: no fc-list to ask)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    out = subprocess.run([fc_list, f":charset={ord(ch):x}", "family"], capture_output=True, text=True,
                         check=True).stdout
    return bool(out.strip())


def test_characters_without_a_font_are_named(browser, tmp_path):
    """Japanese excerpts in the diff: where this machine has no font for them (fontconfig says so),
    the page says which characters show as boxes and what to install; a page whose characters all
    have a font says nothing."""
    run = sample_run(tmp_path / "run")
    d = sample_diff(tmp_path / "diff")
    data = write_report(run, str(tmp_path / "r.html"), diff=d)
    excerpts = "".join((e["old_excerpt"] or "") + (e["new_excerpt"] or "") for e in data.diff.examples)
    han = next((c for c in excerpts if "\u4e00" <= c <= "\u9fff"), None)
    assert han is not None, "the sample diff's examples hold no Han character"
    has_font = _has_font(han)
    if has_font is None:
        pytest.skip("no fc-list (fontconfig) to tell whether this machine has a CJK font")
    note = load(browser, str(tmp_path / "r.html"))["font_note"]
    assert note["checked"] > 0
    assert note["shown"] is (not has_font), note
    if not has_font:
        assert han in note["text"] and "fonts-noto-cjk" in note["text"]
        assert note["text"].startswith(f"{note['missing']} characters on this page have no font")
    # Latin and Cyrillic only: DejaVu (a dependency of Debian's Chromium) draws them
    latin = make_report_run(tmp_path / "latin")
    write_report(latin, str(tmp_path / "latin.html"))
    note = load(browser, str(tmp_path / "latin.html"))["font_note"]
    if all(_has_font(c) for c in "\u00e9\u0436"):
        assert not note["shown"] and note["missing"] == 0, note


def test_status_changed_examples_show_the_text_there_was(browser, tmp_path):
    """A diff of the author rules (the ClueWeb09 bodies decoded) and the browser rules (failed):
    each example's old side shows the start of its text, the new side "(no text)"."""
    from redecode.archive import iter_records
    from redecode.diff import EXCERPT_START, diff_rules
    from redecode.report import visible
    from redecode.row import record_row
    from redecode.rules import get_rules
    from report_fixtures import CLUEWEB

    run = clueweb_run(tmp_path / "run")
    d = str(tmp_path / "diff")
    diff_rules([str(CLUEWEB)], get_rules("author-2026.12"), get_rules("browser-2026.11"), out=d, workers=1)
    data = write_report(run, str(tmp_path / "r.html"), diff=d)
    result = load(browser, str(tmp_path / "r.html"))
    assert_clean(result, data)
    texts = [record_row(r, get_rules("author-2026.12"))["text"]
             for r in iter_records(str(CLUEWEB)) if r.record_type == "response"]
    assert result["examples"] == [[visible(t[:EXCERPT_START]), "(no text)"] for t in texts]


# Each colour legend of a chart: its title's box, its gradient's box, and its labels (text, box).
_LEGENDS_JS = """(key) => Array.from(document.querySelectorAll(`#chart-${key} svg .role-legend`)).map(l => {
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
                     return {x: r.x, y: r.y, w: r.width, h: r.height}; };
  return {title: box(l.querySelector('.role-legend-title text')),
          gradient: box(l.querySelector('.role-legend-gradient path')),
          labels: Array.from(l.querySelectorAll('.role-legend-label text'))
                       .filter(t => t.getAttribute('opacity') !== '0' && getComputedStyle(t).opacity !== '0')
                       .map(t => ({text: t.textContent, box: box(t)}))}; })"""


def _overlap(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]


@pytest.mark.parametrize("counts", [[3], [1], [37, 9], [11, 6, 2, 1]])
def test_heatmap_legends_are_readable(browser, tmp_path, counts):
    """The TLD x encoding heatmap's colour legend, whatever its counts (one value; the largest not a
    tick): every label is drawn once, within the gradient's length, none over another or over the
    legend's title (a single value drew 1, 2, 3 on one spot; a tick past the largest count, 40 for
    37, was drawn above the gradient, on the title)."""
    encodings = ["UTF-8", "windows-1252", "Shift_JIS", "EUC-JP"]
    rows = [row("a.warc.gz", i * 100 + j, encoding=encodings[i])
            for i, n in enumerate(counts) for j in range(n)]
    run = make_run(str(tmp_path / "run"), {"a.warc.gz": rows})
    write_report(run, str(tmp_path / "r.html"))
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        page.goto((tmp_path / "r.html").resolve().as_uri())
        page.wait_for_function(
            "document.querySelectorAll('[data-chart]:not([data-rendered])').length === 0", timeout=30_000)
        (legend,) = page.evaluate(_LEGENDS_JS, "tld")
    finally:
        page.close()
    labels = legend["labels"]
    assert labels, legend
    texts = [lab["text"] for lab in labels]
    assert len(set(texts)) == len(texts), texts
    assert str(max(counts)) in texts or all(int(t) <= max(counts) for t in texts), texts
    g = legend["gradient"]
    for lab in labels:
        middle = lab["box"]["y"] + lab["box"]["h"] / 2
        assert g["y"] - 1 <= middle <= g["y"] + g["h"] + 1, (lab, g)
        assert not _overlap(lab["box"], legend["title"]), (lab, legend["title"])
    for a, b in zip(labels, labels[1:]):
        assert not _overlap(a["box"], b["box"]), (a, b)


def test_records_per_input_counts_what_it_leaves_out(browser, tmp_path):
    """More inputs than the chart draws: the caption's number is the sum of the counts written
    beside the bars, and it counts the inputs and records left out, which the data's last row sums
    (was a chart of 40 bars under "(at most 40 inputs ...)", nothing saying how many were left
    out)."""
    from redecode.report import MAX_INPUTS_SHOWN

    archives = {f"in{i:03d}.warc.gz": [row(f"in{i:03d}.warc.gz", k) for k in range(1 + i % 3)]
                for i in range(MAX_INPUTS_SHOWN + 43)}
    run = make_run(str(tmp_path / "run"), archives, outcomes={"in007.warc.gz": ("truncated", "cut", 5)})
    data = write_report(run, str(tmp_path / "r.html"))
    result = load(browser, str(tmp_path / "r.html"))
    assert_clean(result, data)
    (inputs,) = [c for c in result["seen"] if c["key"] == "inputs"]
    drawn = ["in007.warc.gz"] + [n for n in sorted(archives) if n != "in007.warc.gz"][:MAX_INPUTS_SHOWN - 1]
    records = sum(len(archives[n]) for n in drawn)
    assert len(inputs["totals"]) == MAX_INPUTS_SHOWN
    assert inputs["caption"] == str(records) and sum(int(t) for t in inputs["totals"]) == records
    rest = sum(len(v) for n, v in archives.items() if n not in drawn)
    assert (f"{records} records in {MAX_INPUTS_SHOWN} inputs drawn (those not read to the end first, then by "
            f"path); the other 43 inputs (all complete, {rest} records) are not drawn: the data's last row sums "
            "them.") in result["text"]
