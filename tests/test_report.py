"""`redecode report`, the data side and the page's text: every chart's rows equal counts made here
from the Parquet parts (read with pyarrow, not through redecode.query), the diff's from
diff.parquet; the page escapes what it shows; the command's exit codes and messages.

The page in a browser is tested in tests/test_report_browser.py.
"""

from __future__ import annotations

import html.parser
import json
import re
import shlex
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode.diff import CATEGORIES, diff_runs
from redecode.query import QueryError
from redecode.report import (
    DIFF_SECTIONS,
    EXTRA_HINT,
    MAX_INPUTS_SHOWN,
    MAX_LANGUAGES_SHOWN,
    MAX_RECORDS_LISTED,
    MAX_TLDS_SHOWN,
    RUN_SECTIONS,
    ReportError,
    caption,
    collect,
    count_ticks,
    query_line,
    render_html,
    visible,
    write_report,
)
from redecode.rules import DEFAULT_RULES
from redecode.schema import PROVENANCE_COLUMNS
from redecode_jobs.cli import cli
from report_fixtures import NASTY, make_report_run, report_rows, sample_diff, sample_run
from runs_fixtures import make_run, row


def _rows(run: str) -> list[dict]:
    """Every row of a run's parts, read with pyarrow directly."""
    files = sorted(Path(run).glob("*.parquet"))
    if not files:
        return []
    return pa.concat_tables(pq.read_table(f, columns=list(PROVENANCE_COLUMNS)) for f in files).to_pylist()


def _manifest(run: str) -> dict:
    return json.loads(Path(run, "_run.json").read_text(encoding="utf-8"))


def _label(r) -> str:
    # the encoding as the charts show it: the WHATWG name, else the Python decoder in parentheses
    return r["encoding"] if r["encoding"] is not None else f"({r['decoder'] or 'no decoder'})"


def _bucket(n) -> str:
    if n is None:
        return "unknown"
    for label, lo in (("1000+", 1000), ("100-999", 100), ("10-99", 10), ("1-9", 1)):
        if n >= lo:
            return label
    return "0"


def _expected(rows: list[dict], manifests: dict[str, dict]) -> dict[str, Counter]:
    """Each run section's rows, computed from the parts and manifests (as multisets of tuples)."""
    dec = [r for r in rows if r["status"] == "decoded"]
    exp: dict[str, Counter] = {}
    exp["status"] = Counter(
        (s, reason, n) for (s, reason), n in
        Counter((r["status"], r["skip_reason"] or r["error_kind"] or r["status"]) for r in rows).items())
    # every failed row, and any row with an error_kind (a record cut short), by input and offset
    failed = sorted((r for r in rows if r["status"] == "failed" or r["error_kind"] is not None),
                    key=lambda r: (r["warc_path"], r["warc_offset"]))
    exp["failed"] = [(r["target_uri"], r["warc_path"], r["warc_offset"], r["error_kind"], r["error"],
                      len(failed)) for r in failed[:MAX_RECORDS_LISTED]]

    def grouped(key, keep=lambda r: True):
        agg = defaultdict(list)
        for r in dec:
            if keep(r):
                agg[key(r)].append(r)
        return agg

    exp["encodings"] = Counter(
        k + (len(v), sum(r["decode_errors"] for r in v))
        for k, v in grouped(lambda r: (_label(r), r["source"])).items())
    exp["detector"] = Counter(
        k + (len(v), sum(r["decode_errors"] > 0 for r in v), sum(r["decode_errors"] for r in v))
        for k, v in grouped(lambda r: (_label(r), r["detector"], round(r["detector_confidence"], 4)),
                            lambda r: r["source"] == "detector").items())
    def overridden(r):
        # the author rules checked the declarations (validation), chose another encoding than the
        # browser rules, or decoded a body a browser shows nothing for (identity, with the row's
        # note); parts without browser_encoding (older schema) have no such rows
        return r["validation"] is not None or (
            r["browser_encoding"] is not None and r["encoding"] != r["browser_encoding"]) or (
            r["browser_encoding"] is None and "decoded as identity" in (r["warning"] or ""))

    def verdict(r):
        # the word before the colon in the validation column, as a query shows it
        return r["validation"].split(":")[0] if r["validation"] is not None else "(none)"

    exp["overrides"] = Counter(
        k + (len(v), sum(r["decode_errors"] for r in v))
        for k, v in grouped(lambda r: (f"{r['browser_encoding'] or '(nothing shown)'} -> {_label(r)}", verdict(r)),
                            overridden).items())
    exp["errors"] = Counter(
        k + (len(v), sum(r["decode_errors"] for r in v))
        for k, v in grouped(lambda r: (_bucket(r["decode_errors"]), _label(r))).items())
    exp["errors_by_encoding"] = Counter(
        (k, len(v), sum(r["decode_errors"] > 0 for r in v), sum(r["decode_errors"] for r in v))
        for k, v in grouped(_label).items() if sum(r["decode_errors"] for r in v) > 0)
    per_tld = Counter(r["tld"] if r["tld"] is not None else "(none)" for r in dec)
    top = {t for t, _ in sorted(per_tld.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_TLDS_SHOWN]}
    exp["tld"] = Counter(
        k + (len(v), sum(r["decode_errors"] for r in v))
        for k, v in grouped(lambda r: ((r["tld"] if r["tld"] is not None else "(none)")
                                       if (r["tld"] if r["tld"] is not None else "(none)") in top
                                       else "(other)", _label(r))).items())
    # the language column (runs made with run --language); no chart when no row has one
    if any(r.get("language") is not None for r in rows):
        per_lang = Counter(r.get("language") or "(none)" for r in dec)
        langs = {t for t, _ in sorted(per_lang.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_LANGUAGES_SHOWN]}
        exp["languages"] = Counter(
            k + (len(v), sum(r["decode_errors"] for r in v))
            for k, v in grouped(lambda r: ((r.get("language") or "(none)") if (r.get("language") or "(none)") in langs
                                           else "(other)", _label(r))).items())
    else:
        exp["languages"] = Counter()

    def outcome(r):
        return r.get("verdict") or (r["validation"].split(":")[0] if r["validation"] is not None else None)

    review = sorted((r for r in dec if outcome(r) == "unresolved"
                     or (outcome(r) in ("overridden", "kept") and r["confidence"] == "tentative")),
                    key=lambda r: (r["warc_path"], r["warc_offset"]))
    exp["review"] = [(r["target_uri"], r["warc_path"], r["warc_offset"], r["browser_encoding"], r["encoding"],
                      outcome(r), r["validation"], len(review)) for r in review[:MAX_RECORDS_LISTED]]
    inputs = [(run, i) for run, m in manifests.items() for i in m["inputs"]]
    exp["outcomes"] = Counter(
        (o, n, sum(i["rows"] for _, i in inputs if i["outcome"] == o))
        for o, n in Counter(i["outcome"] for _, i in inputs).items())
    several = len(manifests) > 1
    ordered = sorted(inputs, key=lambda ri: (ri[1]["outcome"] == "complete", ri[0], ri[1]["path"]))
    exp["inputs"] = [
        (f"{run}: {i['path']}" if several else i["path"], i["outcome"], i["counts"]["decoded"],
         i["counts"]["skipped"], i["counts"]["failed"], i["error_offset"], i["error"], 1, False)
        for run, i in ordered[:MAX_INPUTS_SHOWN]
    ]
    rest = [i for _, i in ordered[MAX_INPUTS_SHOWN:]]
    if rest:  # the inputs left out, summed in one bar
        outcomes = {i["outcome"] for i in rest}
        exp["inputs"].append(
            (f"({len(rest)} other input{'' if len(rest) == 1 else 's'})",
             outcomes.pop() if len(outcomes) == 1 else "(several)",
             *(sum(i["counts"][k] for i in rest) for k in ("decoded", "skipped", "failed")), None, None,
             len(rest), True))
    return exp


def _check(data, rows, manifests):
    expected = _expected(rows, manifests)
    assert [s.key for s in RUN_SECTIONS] == list(expected)
    for key, exp in expected.items():
        got = data.sections[key].rows
        if key in ("inputs", "failed", "review"):  # ordered: inputs not read to the end first; by input, offset
            assert got == exp, key
        else:
            assert Counter(got) == exp, key
    assert data.records == len(rows)
    assert data.counts == {s: sum(r["status"] == s for r in rows) for s in ("decoded", "skipped", "failed")}


@pytest.fixture(scope="module")
def report_run(tmp_path_factory):
    return make_report_run(tmp_path_factory.mktemp("report") / "run")


def test_sections_match_independent_counts(report_run):
    rows = _rows(report_run)
    data = collect(report_run)
    _check(data, rows, {report_run: _manifest(report_run)})
    # A few rows spelled out, so that the expectations above are not vacuous.
    sections = data.sections
    assert ("(python:cp775)", "charset-normalizer@3.5.3", 0.9685, 1, 0, 0) in sections["detector"].rows
    assert {r[2] for r in sections["detector"].rows} >= {0.99, 0.6667, 0.3333, 0.01}
    assert {r[0] for r in sections["errors"].rows} == {"0", "1-9", "10-99", "100-999", "1000+"}
    assert ("failed", "failed", 1) in sections["status"].rows  # no error_kind: the status stands in
    assert ("(none)", "UTF-8", 1, 0) in sections["tld"].rows
    assert [r[1] for r in sections["inputs"].rows] == ["truncated", "error", "complete"]


def test_failed_records_and_the_query_line_that_lists_them_all(tmp_path):
    """More failed records than the table lists: the first MAX_RECORDS_LISTED by input and offset,
    the count of all of them, and a `redecode query` line that, run as printed, lists every one
    (and no decoded or skipped record)."""
    n = MAX_RECORDS_LISTED + 7
    cut = [row("z.warc.gz", 10 * i, status="failed", error_kind="truncated", text=None,
               error=f"record block cut short: {i} of 99 bytes present") for i in range(n)]
    other = [row("a.warc.gz", 0), row("a.warc.gz", 5, status="skipped", skip_reason="not-text", text=None),
             row("a.warc.gz", 9, status="failed", error_kind="content-encoding", text=None,
                 error="Content-Encoding gzip declared but the payload does not start like gzip")]
    run = make_run(str(tmp_path / "run"), {"z.warc.gz": cut, "a.warc.gz": other})
    section = next(s for s in RUN_SECTIONS if s.key == "failed")
    result = collect(run).sections["failed"]
    assert len(result.rows) == MAX_RECORDS_LISTED
    assert {r[-1] for r in result.rows} == {n + 1}  # the number of all of them, on every row
    assert result.rows[0][:5] == ("http://example.com/9", "a.warc.gz", 9, "content-encoding",
                                  other[2]["error"])
    assert [r[2] for r in result.rows[1:]] == [10 * i for i in range(MAX_RECORDS_LISTED - 1)]

    line = query_line(section.query, [run])
    args = shlex.split(line)
    assert args[:3] == ["redecode", "query", run]
    got = CliRunner().invoke(cli, [*args[1:], "--format", "json"])
    assert got.exit_code == 0, got.output
    listed = [(r["warc_path"], r["warc_offset"], r["error_kind"], r["error"]) for r in json.loads(got.stdout)]
    assert listed == [("a.warc.gz", 9, "content-encoding", other[2]["error"])] + [
        ("z.warc.gz", r["warc_offset"], "truncated", r["error"]) for r in cut]
    # several runs: the others as --run, each path quoted for the shell
    odd = str(tmp_path / "it's here")
    assert shlex.split(query_line(section.query, [run, odd]))[3:5] == ["--run", odd]


def test_captions_count_what_their_charts_draw(report_run, tmp_path):
    """Each chart's caption sums the rows the chart draws; its number equals a count made here from
    the Parquet parts. "Decode errors by encoding" counts records with U+FFFD, not U+FFFD."""
    rows = _rows(report_run)
    data = collect(report_run)
    sections = {s.key: s for s in RUN_SECTIONS}
    dec = [r for r in rows if r["status"] == "decoded"]

    def total(key):
        return caption(sections[key], data.sections[key]).total

    assert total("status") == len(rows) == data.records
    assert total("encodings") == total("errors") == total("tld") == len(dec)
    assert total("detector") == sum(r["source"] == "detector" for r in dec)
    assert total("errors_by_encoding") == sum(r["decode_errors"] > 0 for r in dec) == 5
    assert sum(r["decode_errors"] for r in dec) > 1000  # (the U+FFFD sum the chart used to draw)
    assert total("outcomes") == len(_manifest(report_run)["inputs"])
    assert caption(sections["failed"], data.sections["failed"]) is None  # a table, its own count
    status = caption(sections["status"], data.sections["status"]).text
    assert status == (f"records: {data.counts['decoded']} decoded, {data.counts['skipped']} skipped, "
                      f"{data.counts['failed']} failed.")
    # the diff: the head, the chart and its caption from one query
    _, new, d = _diff_pair(tmp_path)
    table = pq.read_table(str(Path(d, "diff.parquet"))).to_pylist()
    data = collect(new, diff=d)
    cats = {s.key: s for s in DIFF_SECTIONS}
    changed = sum(r["category"] != "unchanged" for r in table)
    assert caption(cats["diff_categories"], data.sections["diff_categories"]).total == changed
    assert data.diff.changed == changed
    assert caption(cats["diff_transitions"], data.sections["diff_transitions"]).total == sum(
        r["category"] == "encoding-changed" for r in table)


def test_count_ticks_are_whole_and_few():
    for top in [*range(0, 2001), 1234.5, 99_999, 10**6 + 1]:
        ticks = count_ticks(top)
        step = ticks[1] - ticks[0]
        assert ticks[0] == 0 and all(isinstance(t, int) for t in ticks), top
        assert all(b - a == step for a, b in zip(ticks, ticks[1:])), top
        assert str(step).strip("0") in ("1", "2", "5"), top  # 1, 2 or 5 times a power of ten
        assert ticks[-1] >= max(top, 1) > ticks[-2], top  # the last tick covers the largest value
        assert len(ticks) <= 9, top


def test_sample_runs_of_every_rule_set(tmp_path):
    from redecode.rules import RULES

    for rules in RULES:
        run = sample_run(tmp_path / rules, rules)
        data = collect(run)
        _check(data, _rows(run), {run: _manifest(run)})
        if rules.startswith("browser-"):  # the browser rules are what a browser shows
            assert not data.sections["overrides"].rows, rules
        if rules.startswith("author-"):  # the sample has lying declarations the author rules fix
            assert any(not r[0].startswith("(nothing shown)") and r[1] != "kept"
                       for r in data.sections["overrides"].rows), rules


def test_encodings_by_language_and_the_review_list(tmp_path):
    """A run with the language columns (run --language) gets the encodings-by-language chart, the
    same counts as the rows; the author rules' uncertain decisions are listed for review."""
    run = sample_run(tmp_path / "lang", DEFAULT_RULES, "--language")
    data = collect(run)
    _check(data, _rows(run), {run: _manifest(run)})
    languages = {r[0] for r in data.sections["languages"].rows}
    assert {"en", "ru", "ja"} <= languages, languages
    # the sample's lying declarations are overridden: each is for review, with its readings
    review = data.sections["review"]
    assert review.rows and all(r[5] in ("overridden", "kept", "unresolved") for r in review.rows)
    page = render_html(data)
    assert 'id="chart-languages"' in page and 'data-records="review"' in page
    # without --language there is no language chart, and the section says why
    plain = collect(sample_run(tmp_path / "plain", DEFAULT_RULES))
    assert not plain.sections["languages"].rows
    assert "run --language" in render_html(plain)


def test_several_runs(report_run, tmp_path):
    other = make_run(str(tmp_path / "other"), {"c.warc.gz": [row("c.warc.gz", 0, host="example.fr")]})
    data = collect([report_run, other])
    _check(data, _rows(report_run) + _rows(other),
           {report_run: _manifest(report_run), other: _manifest(other)})
    assert [r.path for r in data.runs] == [report_run, other]
    assert any(r[0] == f"{other}: c.warc.gz" for r in data.sections["inputs"].rows)


@pytest.mark.slow
def test_tld_and_input_caps(tmp_path):
    """More TLDs than MAX_TLDS_SHOWN: the rest are summed as (other); more inputs than
    MAX_INPUTS_SHOWN: the ones not read to the end come first."""
    archives = {}
    for i in range(MAX_INPUTS_SHOWN + 5):
        name = f"in{i:03d}.warc.gz"
        # TLD i gets i + 1 records, so the top ones are the last
        archives[name] = [row(name, k, host=f"example.t{i:03d}") for k in range(i + 1)]
    last = f"in{MAX_INPUTS_SHOWN + 4:03d}.warc.gz"
    run = make_run(str(tmp_path / "run"), archives, outcomes={last: ("truncated", "cut", 5)})
    data = collect(run)
    _check(data, _rows(run), {run: _manifest(run)})
    tlds = {r[0] for r in data.sections["tld"].rows}
    assert len(tlds) == MAX_TLDS_SHOWN + 1 and "(other)" in tlds and "t044" in tlds and "t000" not in tlds
    assert len(data.sections["inputs"].rows) == MAX_INPUTS_SHOWN + 1
    assert data.sections["inputs"].rows[0][0] == last
    # the caption counts every input and what the chart leaves out (was "(at most 40 inputs ...)"
    # and no count of the 5 not drawn)
    section = next(s for s in RUN_SECTIONS if s.key == "inputs")
    c = caption(section, data.sections["inputs"])
    drawn = {r[0] for r in data.sections["inputs"].rows[:MAX_INPUTS_SHOWN]}
    assert c.total == sum(r["warc_path"] in drawn for r in _rows(run))
    rest = [r for r in _rows(run) if r["warc_path"] not in drawn]
    assert c.text == (f"records in {MAX_INPUTS_SHOWN} inputs drawn (those not read to the end first, then by path); "
                      f"the other 5 inputs (all complete, {len(rest)} records) are not drawn: the data's last row "
                      "sums them.")


def test_empty_run_and_run_without_manifest(tmp_path):
    empty = make_run(str(tmp_path / "empty"), {})
    data = collect(empty)
    assert data.records == 0 and all(not r.rows for r in data.sections.values())
    bare = make_run(str(tmp_path / "bare"), {"a.warc.gz": [row()]}, manifest=False)
    data = collect(bare)
    assert data.records == 1 and data.runs[0].inputs is None
    assert not data.sections["outcomes"].rows and not data.sections["inputs"].rows


def test_never_reads_text(report_run):
    for s in RUN_SECTIONS:
        assert not re.search(r"\btext\b", s.sql), s.key
    # and could not: the decodes view of the report has no text column (collect would fail)
    collect(report_run)


def test_errors(tmp_path, report_run):
    with pytest.raises(QueryError, match="no such run directory"):
        collect(str(tmp_path / "nope"))
    with pytest.raises(ReportError, match=r"not a diff directory \(no diff.parquet\)"):
        collect(report_run, diff=report_run)
    with pytest.raises(ReportError, match="no such directory"):
        collect(report_run, diff=str(tmp_path / "nope"))
    # a Parquet named diff.parquet that `redecode diff` did not write
    (tmp_path / "fake").mkdir()
    pq.write_table(pa.table({"x": [1]}), str(tmp_path / "fake" / "diff.parquet"))
    with pytest.raises(ReportError, match="not written by `redecode diff`"):
        collect(report_run, diff=str(tmp_path / "fake"))


# --------------------------------------------------------------------------------------------
# The diff


def _diff_pair(tmp_path) -> tuple[str, str, str]:
    old_rows = [
        row("a.warc.gz", 0, text="caf\u00c3\u00a9", encoding="windows-1252", source="default"),
        row("a.warc.gz", 10, text="ascii", encoding="windows-1252", source="default"),
        row("a.warc.gz", 20, text="x\ufffd", encoding="UTF-8"),
        row("a.warc.gz", 30, text="same"),
        row("a.warc.gz", 40, text="gone"),
        row("a.warc.gz", 50, status="failed", error_kind="decode", text=None),
        row("a.warc.gz", 60, text="long " * 50 + "\u00c3\u00a9" + NASTY, encoding="windows-1252"),
    ]
    new_rows = [
        row("a.warc.gz", 0, text="caf\u00e9", encoding="UTF-8", source="prescan"),
        row("a.warc.gz", 10, text="ascii", encoding="UTF-8", source="utf8-valid"),
        row("a.warc.gz", 20, text="x\u00e9", encoding="UTF-8"),
        row("a.warc.gz", 30, text="same"),
        row("a.warc.gz", 50, text="now"),
        row("a.warc.gz", 60, text="long " * 50 + "\u00e9" + NASTY, encoding="UTF-8"),
        row("a.warc.gz", 70, text="new"),
    ]
    old = make_run(str(tmp_path / "old"), {"a.warc.gz": old_rows})
    new = make_run(str(tmp_path / "new"), {"a.warc.gz": new_rows})
    out = str(tmp_path / "d")
    diff_runs(old, new, out=out)
    return old, new, out


def test_diff_sections_match_diff_parquet(tmp_path):
    _, new, d = _diff_pair(tmp_path)
    table = pq.read_table(str(Path(d, "diff.parquet"))).to_pylist()
    data = collect(new, diff=d, examples=1)
    info = data.diff
    assert info.records == len(table) == 8
    assert info.categories == {c: sum(r["category"] == c for r in table) for c in CATEGORIES}
    assert info.categories["encoding-changed"] == 3 and info.categories["only-new"] == 1

    def kind(r):
        if r["mojibake_fixed"]:
            return "mojibake fixed"
        if r["category"] == "encoding-changed" and r["text_equal"]:
            return "label only (same text)"
        return "other change"

    changed = [r for r in table if r["category"] != "unchanged"]
    assert Counter(data.sections["diff_categories"].rows) == Counter(
        (c, k, n) for (c, k), n in Counter((r["category"], kind(r)) for r in changed).items())
    trans = defaultdict(list)
    for r in table:
        if r["category"] == "encoding-changed":
            trans[(r["old_encoding"], r["new_encoding"])].append(r)
    assert Counter(data.sections["diff_transitions"].rows) == Counter(
        k + (len(v), sum(bool(r["mojibake_fixed"]) for r in v)) for k, v in trans.items())
    assert info.label_only == 1 and info.mojibake_fixed == sum(bool(r["mojibake_fixed"]) for r in changed)
    assert info.old.endswith("old") and info.new.endswith("new")
    # examples: one per changed category present, in the order of CATEGORIES, mojibake fixes first
    cats = [e["category"] for e in info.examples]
    assert cats == [c for c in CATEGORIES if c != "unchanged" and info.categories[c]]
    enc = info.examples[0]
    assert enc["category"] == "encoding-changed" and enc["mojibake_fixed"]
    more = collect(new, diff=d, examples=10).diff.examples
    assert len(more) == len(changed)


@pytest.mark.slow
def test_sample_diff_of_two_rule_sets(tmp_path):
    run = sample_run(tmp_path / "run")
    d = sample_diff(tmp_path / "d")
    data = collect(run, diff=d)
    summary = json.loads(Path(d, "_diff.json").read_text(encoding="utf-8"))
    assert data.diff.records == summary["records"]
    assert data.diff.changed == summary["changed"]
    assert data.diff.mojibake_fixed == summary["mojibake_fixed"]
    assert data.diff.categories == summary["categories"]
    assert (data.diff.old, data.diff.new) == (summary["old"], summary["new"])
    assert sum(r[2] for r in data.sections["diff_categories"].rows) == summary["changed"]


# --------------------------------------------------------------------------------------------
# The page's text (no browser): escaping, and JSON that cannot end its <script> element


class _Page(html.parser.HTMLParser):
    """Collects the page's <script> elements (attributes, text) and its visible text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict, str]] = []
        self.text: list[str] = []
        self._in_script: dict | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self._in_script = dict(attrs)
            self.scripts.append((self._in_script, ""))

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None

    def handle_data(self, data):
        if self._in_script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
        else:
            self.text.append(data)


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.mark.slow
def test_page_escapes_every_text(report_run, tmp_path):
    pytest.importorskip("altair", reason="the [report] extra (altair) is not installed")
    pytest.importorskip("vl_convert", reason="the [report] extra (vl-convert-python) is not installed")
    _, new, d = _diff_pair(tmp_path)
    page = render_html(collect([report_run, new], diff=d))
    parser = _Page()
    parser.feed(page)
    specs = [json.loads(t) for a, t in parser.scripts if a.get("class") == "vl-spec"]
    charts = [k for k in re.findall(r'data-chart="([a-z_]+)"', page)]
    # the bundle, one JSON element per chart, the embedding code: no script element more
    assert len(parser.scripts) == len(specs) + 2 == len(charts) + 2
    assert [a.get("type") for a, _ in parser.scripts[1:-1]] == ["application/json"] * len(specs)
    # the planted text reaches the charts' data with its </script> intact (the JSON escapes keep it
    # in its element), its newline and bidi override as visible escapes
    assert any(visible(NASTY) in s for spec in specs for s in _strings(spec))
    assert "</script>" in visible(NASTY)
    # and is shown as text, its control and bidi characters as escapes
    text = "".join(parser.text)
    assert visible(NASTY) in text
    assert "\u202e" not in text
    # nothing in the page loads from elsewhere
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "Content-Security-Policy" in page


def test_visible():
    assert visible("a\nb\t\u202e\x00\ud800 \u00e9\u4e2d\ufffd") == "a\\nb\\t\\u202e\\x00\\ud800 \u00e9\u4e2d\ufffd"
    assert visible(None) == ""
    # space separators are printable text (Japanese writes U+3000 between words): shown as they are;
    # the line and paragraph separators break lines: escaped
    assert visible("\u6771\u4eac\u3000\u5927\u962a\u00a0\u2003x") == "\u6771\u4eac\u3000\u5927\u962a\u00a0\u2003x"
    assert visible("a\u2028b\u2029c") == "a\\u2028b\\u2029c"


# --------------------------------------------------------------------------------------------
# The command


def _invoke(args):
    return CliRunner().invoke(cli, ["report", *args])


@pytest.mark.slow
def test_cli_writes_the_report(report_run, tmp_path):
    pytest.importorskip("altair", reason="the [report] extra (altair) is not installed")
    out = tmp_path / "r.html"
    result = _invoke([report_run, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr == f"report of {len(_rows(report_run))} records written to {out}\n"
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "vegaEmbed" in page
    assert not list(tmp_path.glob(".tmp-*"))
    quiet = _invoke([report_run, "-o", str(out), "-q"])
    assert quiet.exit_code == 0 and quiet.output == ""


@pytest.mark.parametrize("args, message", [
    (["{missing}", "-o", "{out}"], "Error: {missing}: no such run directory (give the --out DIR of `redecode run`)"),
    (["{run}", "-o", "{out}", "--diff", "{run}"],
     "Error: --diff {run}: not a diff directory (no diff.parquet); give the --out DIR of "
     "`redecode diff OLD NEW --out DIR`"),
    (["{run}", "-o", "{out}", "--diff", "{missing}"],
     "Error: --diff {missing}: no such directory (give the --out DIR of `redecode diff`)"),
    (["{run}", "-o", "{tmp}"], "Error: -o {tmp}: is a directory; name the HTML file to write"),
    (["{run}", "-o", "{missing}/r.html"], "Error: -o {missing}/r.html: no such directory {missing}"),
    (["{run}"], "Error: Missing option '-o' / '--output'."),
])
def test_cli_usage_errors(report_run, tmp_path, args, message):
    values = {"run": report_run, "missing": str(tmp_path / "missing"), "out": str(tmp_path / "r.html"),
              "tmp": str(tmp_path)}
    result = _invoke([a.format(**values) for a in args])
    assert result.exit_code == 2, result.output
    assert result.stderr.rstrip("\n").splitlines()[-1] == message.format(**values)
    assert not (tmp_path / "r.html").exists()


def test_cli_without_the_report_extra(report_run, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "altair", None)  # import altair raises ImportError
    result = _invoke([report_run, "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert EXTRA_HINT in result.stderr
    assert not (tmp_path / "r.html").exists()


def test_cli_help():
    result = _invoke(["--help"])
    assert result.exit_code == 0
    for word in ("DIRECTORY", "--diff", "--output", "--run", "--examples", "self-contained", "Exit codes"):
        assert word in result.output


def test_write_report_returns_the_data(report_run, tmp_path):
    pytest.importorskip("altair", reason="the [report] extra (altair) is not installed")
    data = write_report(report_run, str(tmp_path / "r.html"))
    assert data.records == len(_rows(report_run))


def test_docs_show_the_failed_records_query_line():
    section = next(s for s in RUN_SECTIONS if s.key == "failed")
    page = (Path(__file__).resolve().parent.parent / "docs" / "report.md").read_text(encoding="utf-8")
    assert f"  {query_line(section.query, ['out'])}\n" in page
