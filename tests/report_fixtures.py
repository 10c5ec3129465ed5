"""Run and diff directories for the report tests (tests/test_report*.py).

``report_rows()`` are hand-built rows covering every chart, including the seed rules' NULL
encoding, every detector confidence the browser rules write, every decode-error bucket, and texts
made to break a page (``</script>``, quotes, ampersands, controls, a bidi override, a lone
surrogate); ``NASTY`` is the string planted in them, whose script must never run.
``sample_run(out, rules)`` runs ``redecode run`` on sample_warcs/ through the command line (the
interface that stays put while the library is refactored); ``sample_diff`` diffs two rule sets.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from runs_fixtures import make_run, row

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_warcs"

#: Planted in paths, URLs, labels and texts: if the page ever runs it, window.__pwned is set.
NASTY = '</script><script>window.__pwned=1</script><!--<b>&amp;"\'\u202e\n'

#: An input path with a directory named after NASTY (a file name cannot hold "/").
NASTY_ARCHIVE = "in/x</script><script>window.__pwned=1<\\script>&\"'/odd\u202e\nname.warc.gz"


def report_rows() -> dict[str, list[dict]]:
    a = [
        row("a.warc.gz", 0, text="<p>plain</p>", header_charset="utf-8"),
        row("a.warc.gz", 10, text="caf\u00e9", encoding="windows-1252", source="default",
            host="example.de"),
        row("a.warc.gz", 20, text="x" + "\ufffd" * 3, encoding="GBK", source="prescan",
            host="example.cn"),
        row("a.warc.gz", 30, text="y" + "\ufffd" * 43, encoding="UTF-8", source="xml-declaration"),
        row("a.warc.gz", 40, text="z" + "\ufffd" * 250, encoding="Shift_JIS", source="detector",
            detector="cascade(chardetng@0.3.5)", detector_confidence=0.99, host="example.jp"),
        row("a.warc.gz", 50, text="w" + "\ufffd" * 1200, encoding="Shift_JIS", source="detector",
            detector="cascade(chardetng@0.3.5)", detector_confidence=0.99, host="example.jp"),
        row("a.warc.gz", 60, text="\u0436", encoding="windows-1251", source="detector",
            detector="cascade(chardetng@0.3.5)", detector_confidence=0.6667, host="example.ru"),
        row("a.warc.gz", 70, text="\u0436", encoding="windows-1251", source="detector",
            detector="cascade(chardetng@0.3.5)", detector_confidence=0.3333, host="example.ru"),
        row("a.warc.gz", 80, text="\u0436", encoding="KOI8-R", source="detector",
            detector="cascade(chardetng@0.3.5)", detector_confidence=0.01, host="example.ru"),
        # the seed rules: a Python codec with no Encoding Standard equivalent, NULL encoding
        row("a.warc.gz", 90, text="\u0105", encoding=None, decoder="python:cp775", source="detector",
            detector="charset-normalizer@3.5.3", detector_confidence=0.9685, rules="seed-2026.10"),
        # no TLD (an IP address)
        row("a.warc.gz", 100, text="ip", encoding="UTF-8", source="utf8-valid", tld=None,
            target_uri="http://192.0.2.1/"),
        row("a.warc.gz", 110, status="skipped", skip_reason="not-text", text=None, mime_type="image/png"),
        row("a.warc.gz", 120, status="skipped", skip_reason="revisit", text=None, record_type="revisit"),
        row("a.warc.gz", 130, status="failed", error_kind="too-large", text=None, error="over 64 MiB"),
        row("a.warc.gz", 140, status="failed", error_kind=None, text=None, error="no kind"),
    ]
    nasty = [
        row(NASTY_ARCHIVE, 0, text=NASTY, encoding="UTF-8", source="transport",
            target_uri="http://h/" + NASTY, tld=NASTY, detector=None),
        row(NASTY_ARCHIVE, 1, text=NASTY, encoding="windows-1252", source="detector",
            detector="evil" + NASTY, detector_confidence=0.5, tld="com", warning=NASTY),
    ]
    b = [row("b.warc.gz", 0, text="\ufffd", encoding="UTF-8", source="utf8-valid", host="example.org"),
         row("b.warc.gz", 5, status="skipped", skip_reason="http-status", text=None, http_status=404)]
    return {"a.warc.gz": a, NASTY_ARCHIVE: nasty, "b.warc.gz": b}


def make_report_run(out: Path) -> str:
    """The run of :func:`report_rows`; b.warc.gz truncated, the odd input an error."""
    return make_run(str(out), report_rows(), outcomes={
        "b.warc.gz": ("truncated", "b.warc.gz: truncated gzip member at offset 77", 77),
        NASTY_ARCHIVE: ("error", NASTY_ARCHIVE + ": " + NASTY, 0),
    })


def _cli(args: list[str]) -> None:
    from redecode_jobs.cli import cli

    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output


def sample_run(out: Path, rules: str = "browser-2026.11", *options: str) -> str:
    """``redecode run sample_warcs --out OUT --rules RULES [OPTIONS]`` (skips when sample_warcs/ is
    absent)."""
    if not SAMPLES.is_dir() or not any(SAMPLES.iterdir()):
        pytest.skip(f"{SAMPLES} is empty or absent")
    _cli(["run", str(SAMPLES), "--out", str(out), "--rules", rules, "--workers", "1", "--quiet", *options])
    return str(out)


#: The first three responses of resiliparse's ClueWeb09 test file: bodies stored decoded under
#: ``Content-Encoding: gzip`` (tests/data/warcs/README.md).
CLUEWEB = ROOT / "tests" / "data" / "warcs" / "resiliparse" / "clueweb-quirk-3.warc.gz"


def clueweb_run(out: Path, rules: str = "browser-2026.11") -> str:
    """``redecode run CLUEWEB --out OUT --rules RULES``: under the browser rules every response
    fails (content-encoding), under the author rules each is decoded as identity."""
    _cli(["run", str(CLUEWEB), "--out", str(out), "--rules", rules, "--workers", "1", "--quiet"])
    return str(out)


def sample_diff(out: Path, old: str = "requests-2.32", new: str = "browser-2026.11") -> str:
    """``redecode diff --rules OLD --rules NEW sample_warcs --out OUT``."""
    if not SAMPLES.is_dir() or not any(SAMPLES.iterdir()):
        pytest.skip(f"{SAMPLES} is empty or absent")
    _cli(["diff", "--rules", old, "--rules", new, str(SAMPLES), "--out", str(out)])
    return str(out)
