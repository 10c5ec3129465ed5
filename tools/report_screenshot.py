"""Remake the pictures of docs/report.md: the HTML report of three runs, as headless Chromium draws
them.

    .venv/bin/python tools/report_screenshot.py [--docs docs] [--chromium /usr/bin/chromium]
        [--fonts DIR]

Does what docs/report.md shows, in a temporary folder (so the pages name `out`, `sample_warcs/...`,
as a user's would), and saves:

- ``report-sample.png``, the whole page of the sample run: `redecode run sample_warcs --out out
  --language`,
  `redecode report out -o report.html`;
- ``report-failures.png``, the head of the report of a run with failures, down to the failed and
  truncated records: resiliparse's ClueWeb09 responses (stored decoded under `Content-Encoding:
  gzip`) and four broken inputs of tests/data/broken under the browser rules, `redecode run ...
  --rules browser-2026.11 --out failing`;
- ``report-diff.png``, the diff part of the report of the sample run with the diff of the
  `requests` rules and the default rules (`redecode diff --rules requests-2.32 --rules
  author-2026.12 sample_warcs --out diff-out`, `redecode report out --diff diff-out`);
- ``report-review.png``, the "For review" section of the report of a run over the pages of
  tests/review_pages.py (three declarations that lie within a script family and a page read in
  parts, under the default rules): each record's text under its competing readings.

Opens each page in Debian's Chromium through Playwright (the [test] extra; it never downloads a
browser). Needs the [report] extra. The excerpts of Chinese, Japanese and Korean pages need a CJK
font to show as text rather than boxes (the page then says which characters lack one): install one
(Debian: apt-get install fonts-droid-fallback), or give --fonts a folder of font files, which this
Chromium alone then uses besides the system's (a fontconfig file of its own: nothing is installed;
for example the .ttf of `apt-get download fonts-droid-fallback`, unpacked with `dpkg -x`).
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
sys.path.insert(0, str(ROOT / "tests"))  # review_pages: the pages of report-review.png

# Chromium as root needs --no-sandbox; the rest keep it from reaching for the network.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-gpu",
]

#: The inputs of the run with failures: every record of the first fails under the browser rules,
#: the others are cut short or hold records that fail (tests/data/broken/README.md).
FAILING = [
    ROOT / "tests" / "data" / "warcs" / "resiliparse" / "clueweb-quirk-3.warc.gz",
    *(ROOT / "tests" / "data" / "broken" / name for name in (
        "truncated-member.warc.gz", "not-gzip.warc", "gzip-bomb.warc.gz", "bad-chunked.warc")),
]


def _redecode(*args: str, check: bool = True) -> None:
    """`redecode ARGS...` with this Python (the commands exit the process, so not in-process)."""
    code = "import sys; from redecode_jobs.cli import cli; cli(sys.argv[1:], prog_name='redecode')"
    proc = subprocess.run([sys.executable, "-c", code, *args], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"redecode {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}")


def make_reports(folder: Path) -> dict[str, Path]:
    """The commands of docs/report.md in *folder*; the reports by picture name."""
    (folder / "sample_warcs").symlink_to(ROOT / "sample_warcs", target_is_directory=True)
    (folder / "inputs").mkdir()
    for path in FAILING:
        (folder / "inputs" / path.name).symlink_to(path)
    old = os.getcwd()
    os.chdir(folder)
    try:
        _redecode("run", "sample_warcs", "--out", "out", "--language", "--quiet")
        _redecode("report", "out", "-o", "sample.html", "-q")
        # exit 1: inputs cut short (that is the point)
        _redecode("run", *(f"inputs/{p.name}" for p in FAILING), "--rules", "browser-2026.11",
                  "--out", "failing", "--quiet", check=False)
        _redecode("report", "failing", "-o", "failures.html", "-q")
        _redecode("diff", "--rules", "requests-2.32", "--rules", "author-2026.12", "sample_warcs",
                  "--out", "diff-out")
        _redecode("report", "out", "--diff", "diff-out", "-o", "diff.html", "-q")
        from review_pages import write_warc  # noqa: PLC0415

        write_warc(folder / "review.warc")
        _redecode("run", "review.warc", "--out", "review", "--quiet")
        _redecode("report", "review", "-o", "review.html", "-q")
    finally:
        os.chdir(old)
    return {"report-sample.png": folder / "sample.html", "report-failures.png": folder / "failures.html",
            "report-diff.png": folder / "diff.html", "report-review.png": folder / "review.html"}


#: What of each page is pictured: None the whole page, else (first element, last element).
PARTS = {
    "report-sample.png": None,
    "report-failures.png": ("h1", "#failed"),
    "report-diff.png": ("#diff", "#diff_examples"),
    "report-review.png": ("#review", "#review"),
}


def _fontconfig(fonts: Path, folder: Path) -> dict[str, str]:
    """The environment that has Chromium's fontconfig read the system's configuration and the font
    files in *fonts* as well."""
    conf = folder / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"  <dir>{fonts.resolve()}</dir>\n  <cachedir>{folder / 'fontcache'}</cachedir>\n</fontconfig>\n",
        encoding="utf-8")
    return {**os.environ, "FONTCONFIG_FILE": str(conf)}


def screenshot(pages: dict[str, Path], docs: Path, chromium: str, env: dict[str, str] | None = None,
               width: int = 1200) -> None:
    """Open each page in *chromium*, wait for every chart, save its picture in *docs*. Raises
    RuntimeError when a page logs an error or a chart fails to draw."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, env=env)
        try:
            for name, path in pages.items():
                errors: list[str] = []
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(path.resolve().as_uri())
                page.wait_for_function(
                    "document.querySelectorAll('[data-chart]:not([data-rendered])').length === 0 "
                    "&& document.getElementById('font-note').hasAttribute('data-checked')",
                    timeout=30_000)
                failed = page.evaluate("document.querySelectorAll('[data-chart][data-rendered=error]').length")
                if errors or failed:
                    raise RuntimeError(f"{name}: the report did not draw cleanly: {failed} charts failed; {errors}")
                part = PARTS[name]
                if part is None:
                    page.screenshot(path=str(docs / name), full_page=True)
                else:
                    top = page.locator(part[0]).bounding_box()
                    bottom = page.locator(part[1]).bounding_box()
                    clip = {"x": 0, "y": max(top["y"] - 12, 0), "width": width,
                            "height": bottom["y"] + bottom["height"] + 12 - max(top["y"] - 12, 0)}
                    page.screenshot(path=str(docs / name), full_page=True, clip=clip)
                page.close()
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=Path, default=ROOT / "docs", help="where the pictures go")
    ap.add_argument("--chromium", default=os.environ.get("REDECODE_CHROMIUM", "/usr/bin/chromium"))
    ap.add_argument("--fonts", type=Path, default=None,
                    help="a folder of font files this Chromium uses besides the system's (CJK)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (prints it)")
    args = ap.parse_args(argv)
    if not os.path.exists(args.chromium):
        print(f"no Chromium at {args.chromium} (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    folder = Path(tempfile.mkdtemp(prefix="redecode-report-"))
    try:
        env = _fontconfig(args.fonts, folder) if args.fonts else None
        screenshot(make_reports(folder), args.docs, args.chromium, env)
    finally:
        if args.keep:
            print(folder, file=sys.stderr)
        else:
            shutil.rmtree(folder)
    print(f"wrote {', '.join(str(args.docs / n) for n in PARTS)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
