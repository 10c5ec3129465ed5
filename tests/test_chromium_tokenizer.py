"""Chromium 156's measured answers on the meta scan's tokenizer rules, through every rule set that
scans metas with Chromium's tokenizer (``chromium_tokenizer=True``).

Expected values are Chromium's ``document.characterSet`` for each page
(``tests/data/chromium-tokenizer/chromium-156.jsonl``, measured with the browser oracle; see the
README there), never the code's. Each page is decided as Chromium saw it: ``text/html`` without a
charset, from ``http://oracle.test/NAME``. An undeclared page there is windows-1252 in Chromium
(``ctl_none``) and no page declares windows-1252, so:

- where Chromium answered another encoding, a meta declared it: every Chromium-tokenizer rule set
  finds that meta (``meta_charset`` names the encoding, after the prescan's remaps) and decodes
  with it (the pages are ASCII: nothing speaks against the declaration);
- where Chromium answered windows-1252, no meta declared anything: no rule set records one, and
  the browser procedure's answer is windows-1252 too.

Where the scan knowingly departs from Chromium (:data:`KNOWN`), the case is a strict xfail, so
that a fix makes it pass and forces it off the list.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from redecode.labels import get_encoding
from redecode.rules import RULES, get_rules

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "chromium-tokenizer" / "chromium-156.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="ascii").splitlines()]
URL = "http://oracle.test/"
FALLBACK = "windows-1252"

#: Rule sets that scan metas with Chromium's tokenizer: the tests below run for each.
CHROMIUM_RULES = sorted(name for name, rules in RULES.items() if rules.chromium_tokenizer)

# The groups of cases this code follows (the README of the data lists them).
GROUPS = ("ctl_", "cr_", "cm_", "ot_")

# HTML Standard prescan: a UTF-16 label means UTF-8, x-user-defined means windows-1252.
_REMAP = {"UTF-16LE": "UTF-8", "UTF-16BE": "UTF-8", "x-user-defined": "windows-1252"}

#: Measured departures from Chromium, left as they are, and why.
KNOWN = {
    "ot_script_escape": "<!-- in <script> (script data escaped states) is not tracked: the "
    "</script> inside it ends the script here (prescan Deviations)",
    "ot_duplicate_charset": "Chromium reads duplicate attributes, a later charset wins; here the "
    "first of a name counts (HTML Standard prescan, get an attribute)",
    "ot_charset_then_bogus_charset": "Chromium: the later, unknown charset attribute wins",
    "ot_duplicate_content": "Chromium: the later content attribute wins",
    "ot_duplicate_http_equiv": "Chromium: a later http-equiv=content-type counts",
    "ot_extract_quote_ends_unquoted": "Chromium's ExtractCharset ends an unquoted label at a quote; "
    "the standard's extraction only at whitespace or ';'",
    "ot_extract_vt_before_label": "Chromium's ExtractCharset skips every byte <= 0x20 (VT too); "
    "the standard only ASCII whitespace",
    "ot_extract_vt_before_eq": "as ot_extract_vt_before_label, before the '='",
}


def _cases() -> list:
    out = []
    for row in ROWS:
        if not row["name"].startswith(GROUPS):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[row["name"]])] if row["name"] in KNOWN else []
        out.append(pytest.param(row, id=row["name"], marks=marks))
    return out


def test_data_is_the_tools_cases():
    """The data file holds exactly tools/chromium_tokenizer_cases.py's pages, each measured."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import chromium_tokenizer_cases as tool
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert [(r["name"], r["body"].encode("latin-1"), r["note"]) for r in ROWS] == tool.CASES
    assert (tool.URL, tool.CONTENT_TYPE) == (URL, "text/html")
    assert {r["chromium"] for r in ROWS} == {"156.0.8078.114"}
    assert all(get_encoding(r["characterSet"]) == r["characterSet"] for r in ROWS)


def test_fallback_and_rule_sets():
    control = {r["name"]: r["characterSet"] for r in ROWS}
    assert (control["ctl_none"], control["ctl_plain"]) == (FALLBACK, "ISO-8859-15")
    assert "browser-2026.11" in CHROMIUM_RULES
    assert set(KNOWN) <= set(control)


@pytest.mark.parametrize("rules_name", CHROMIUM_RULES)
@pytest.mark.parametrize("row", _cases())
def test_measured(rules_name, row):
    rules = get_rules(rules_name)
    want = row["characterSet"]
    d = rules.decide(row["body"].encode("latin-1"), content_type=["text/html"], url=URL + row["name"])
    meta = get_encoding(d.meta_charset) if d.meta_charset is not None else None
    meta = _REMAP.get(meta, meta)
    if want == FALLBACK:
        assert meta is None, (d.meta_charset, d.source)
    else:
        assert meta == want, (d.meta_charset, d.ignored_labels)
        assert d.encoding == want
    if rules.procedure == "browser":
        assert d.encoding == want
