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
from pathlib import Path

import pytest

from redecode.report import collect, write_report
from report_fixtures import NASTY, make_report_run, sample_diff, sample_run
from runs_fixtures import make_run

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
        }
    finally:
        page.close()


def assert_clean(result: dict, data) -> None:
    """No error, nothing fetched, one drawn chart per section with rows, each with marks."""
    assert result["errors"] == []
    assert result["requests"] == [result["url"]]
    with_rows = [k for k, r in data.sections.items() if r.rows]
    assert [c["key"] for c in result["charts"]] == with_rows
    for c in result["charts"]:
        assert c["rendered"] == "ok", c
        assert c["marks"] > 0, c


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
