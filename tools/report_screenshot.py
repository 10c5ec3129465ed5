"""Remake docs/report-sample.png: the HTML report of the sample run, with the diff of the requests
and browser rules, as headless Chromium draws it.

    .venv/bin/python tools/report_screenshot.py [--out docs/report-sample.png] [--chromium /usr/bin/chromium]

Does what docs/report.md shows, in a temporary folder (so the page names `out` and `sample_warcs/...`,
as a user's would): `redecode run sample_warcs --out out`, `redecode diff --rules requests-2.32
--rules browser-2026.11 sample_warcs --out diff-out`, `redecode report out --diff diff-out -o
report.html`; then opens report.html in Debian's Chromium through Playwright (the [test] extra; it
never downloads a browser) and saves a full-page screenshot. Needs the [report] extra. The excerpts
of Chinese, Japanese and Korean pages need a CJK font on the machine to show as text rather than
boxes (Debian: apt-get install fonts-droid-fallback).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Chromium as root needs --no-sandbox; the rest keep it from reaching for the network.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-gpu",
]


def _redecode(*args: str) -> None:
    """`redecode ARGS...` with this Python (the commands exit the process, so not in-process)."""
    code = "import sys; from redecode_jobs.cli import cli; cli(sys.argv[1:], prog_name='redecode')"
    subprocess.run([sys.executable, "-c", code, *args], check=True, stdout=subprocess.DEVNULL)


def make_report(folder: Path) -> Path:
    """The three commands of docs/report.md in *folder*; returns the report's path."""
    (folder / "sample_warcs").symlink_to(ROOT / "sample_warcs", target_is_directory=True)
    old = os.getcwd()
    os.chdir(folder)
    try:
        _redecode("run", "sample_warcs", "--out", "out", "--quiet")
        _redecode("diff", "--rules", "requests-2.32", "--rules", "browser-2026.11", "sample_warcs",
                  "--out", "diff-out")
        _redecode("report", "out", "--diff", "diff-out", "-o", "report.html", "-q")
    finally:
        os.chdir(old)
    return folder / "report.html"


def screenshot(page_path: Path, png: Path, chromium: str, width: int = 1200) -> None:
    """Open *page_path* in *chromium*, wait for every chart, save a full-page PNG at *png*.
    Raises RuntimeError when the page logs an error or a chart fails to draw."""
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.resolve().as_uri())
            page.wait_for_function(
                "document.querySelectorAll('[data-chart]:not([data-rendered])').length === 0",
                timeout=30_000)
            failed = page.evaluate(
                "document.querySelectorAll('[data-chart][data-rendered=error]').length")
            if errors or failed:
                raise RuntimeError(f"the report did not draw cleanly: {failed} charts failed; {errors}")
            page.screenshot(path=str(png), full_page=True)
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "report-sample.png")
    ap.add_argument("--chromium", default=os.environ.get("REDECODE_CHROMIUM", "/usr/bin/chromium"))
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (prints it)")
    args = ap.parse_args(argv)
    if not os.path.exists(args.chromium):
        print(f"no Chromium at {args.chromium} (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    folder = Path(tempfile.mkdtemp(prefix="redecode-report-"))
    try:
        screenshot(make_report(folder), args.out, args.chromium)
    finally:
        if args.keep:
            print(folder, file=sys.stderr)
        else:
            shutil.rmtree(folder)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
