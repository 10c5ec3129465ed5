"""`redecode query`: views, read-only SQL, the standard report, and the SQL examples of docs/queries.md.

The report's numbers are checked against counts computed here with pyarrow directly (not through
redecode.query). The SQL examples are read from docs/queries.md's "Questions you can ask" section (the README's until
the docs/ pages).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode.query import (
    LOW_CONFIDENCE,
    REPORT_SECTIONS,
    QueryError,
    execute,
    format_report,
    open_query,
    report,
)
from redecode.schema import COLUMNS, PROVENANCE_COLUMNS, SCHEMA, SCHEMA_VERSION
from redecode_jobs.query_cmd import query as query_cmd
from runs_fixtures import make_run, row

ROOT = Path(__file__).resolve().parent.parent
SECTION = "Questions you can ask"


def _rows() -> dict[str, list[dict]]:
    a = [
        row("a.warc.gz", 0, text="<p>plain</p>", header_charset="utf-8"),
        row("a.warc.gz", 10, text="caf\u00e9", encoding="windows-1252", header_charset="iso-8859-1",
            host="example.de"),
        row("a.warc.gz", 20, text="Gr\u00fc\u00dfe", encoding="windows-1252",
            header_charset="ISO-8859-1", host="example.de"),
        row("a.warc.gz", 30, text="\u4e2d\ufffd\ufffd\ufffd", encoding="GBK", source="prescan",
            meta_charset="gb2312", meta_offset=200, host="example.cn"),
        # header utf-8, meta big5: the header wins, the conflict is recorded and costs 2 U+FFFD
        row("a.warc.gz", 40, text="x\ufffd\ufffdy", encoding="UTF-8", header_charset="utf-8",
            meta_charset="big5", meta_offset=300, conflict=["meta:big5"]),
        # head-scan: meta past byte 1024
        row("a.warc.gz", 50, text="\u65e5\u672c", encoding="Shift_JIS", source="head-scan",
            meta_charset="shift_jis", meta_offset=1100, host="example.jp"),
        # a late meta that lost to the header
        row("a.warc.gz", 60, text="abc", encoding="UTF-8", header_charset="utf-8",
            meta_charset="windows-1251", meta_offset=4000, conflict=["meta:windows-1251"]),
        row("a.warc.gz", 70, text="\u041f\ufffd", encoding="windows-1251", source="detector",
            detector="chardetng@0.3.5", detector_confidence=0.3, host="example.ru"),
        row("a.warc.gz", 80, text="Stra\u00dfe", encoding="windows-1252", source="detector",
            detector="chardetng@0.3.5", detector_confidence=0.9, host="example.de"),
        row("a.warc.gz", 90, text="ascii", encoding="windows-1252", source="default"),
        row("a.warc.gz", 100, text="\u0436", encoding="windows-1251", source="prescan",
            header_charset="foo", meta_charset="windows-1251", meta_offset=50,
            ignored_labels=["foo"], host="example.ru"),
        row("a.warc.gz", 110, text="\u3042", encoding="EUC-JP", source="xml-declaration",
            xml_charset="EUC-JP", host="example.jp"),
        row("a.warc.gz", 120, text="iso", encoding="windows-1252", source="prescan",
            header_charset="ISO-8859-1x", meta_charset="iso-8859-1", meta_offset=10,
            ignored_labels=["ISO-8859-1x"]),
        row("a.warc.gz", 130, text="caf\u00c3\u00a9 \u00e2\u20ac\u2122", encoding="windows-1252",
            source="default"),
        row("a.warc.gz", 140, status="skipped", skip_reason="not-text", text=None,
            mime_type="image/png"),
        row("a.warc.gz", 150, status="skipped", skip_reason="not-text", text=None,
            mime_type="image/png"),
        row("a.warc.gz", 160, status="skipped", skip_reason="revisit", text=None,
            record_type="revisit"),
        row("a.warc.gz", 170, status="failed", error_kind="too-large", text=None,
            error="payload over 64 MiB"),
    ]
    b = [
        row("b.warc.gz", 0, text="\ufffd", encoding="UTF-8", source="utf8-valid", host="example.org",
            utf8_valid=False),
        row("b.warc.gz", 5, status="skipped", skip_reason="http-status", text=None, http_status=404),
    ]
    return {"a.warc.gz": a, "b.warc.gz": b}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "run"
    return make_run(
        str(out), _rows(),
        outcomes={"b.warc.gz": ("truncated", "b.warc.gz: truncated gzip member at offset 77", 77)},
    )


def _table(run: str) -> list[dict]:
    """All rows of a run, read with pyarrow directly (independent of redecode.query)."""
    files = sorted(p for p in Path(run).glob("*.parquet"))
    return pa.concat_tables(
        pq.read_table(f, columns=list(PROVENANCE_COLUMNS)) for f in files
    ).to_pylist()


# --------------------------------------------------------------------------------------------
# The report against independent counts


def _declared(r):
    return {"transport": r["header_charset"], "prescan": r["meta_charset"],
            "head-scan": r["meta_charset"], "xml-declaration": r["xml_charset"]}.get(r["source"])


def _expected_sections(rows: list[dict], manifest: dict, run: str) -> dict[str, Counter]:
    dec = [r for r in rows if r["status"] == "decoded"]
    exp: dict[str, Counter] = {}
    status = Counter((r["status"], r["skip_reason"], r["error_kind"]) for r in rows)
    exp["status"] = Counter({k + (v,): 1 for k, v in status.items()})
    enc = defaultdict(lambda: [0, 0])
    for r in dec:
        enc[(r["encoding"], r["source"])][0] += 1
        enc[(r["encoding"], r["source"])][1] += r["decode_errors"]
    exp["encodings"] = Counter({k + tuple(v): 1 for k, v in enc.items()})
    decl = Counter()
    for r in dec:
        d = _declared(r)
        if d is not None and d.strip().lower() != r["encoding"].lower():
            decl[(r["source"], d.strip().lower(), r["encoding"])] += 1
    exp["declared"] = Counter({k + (v,): 1 for k, v in decl.items()})
    over = defaultdict(lambda: [0, 0])
    for r in dec:
        if r["encoding"] != r["browser_encoding"] or r["validation"] is not None:
            verdict = r["validation"].split(":", 1)[0] if r["validation"] is not None else None
            over[(r["browser_encoding"], r["encoding"], r["source"], verdict)][0] += 1
            over[(r["browser_encoding"], r["encoding"], r["source"], verdict)][1] += r["decode_errors"]
    exp["overrides"] = Counter({k + tuple(v): 1 for k, v in over.items()})
    conf = defaultdict(lambda: [0, 0, 0])
    for r in dec:
        if r["header_charset"] and r["meta_charset"] and r["conflict"]:
            k = (r["header_charset"].lower(), r["meta_charset"].lower(), r["encoding"], r["source"])
            conf[k][0] += 1
            conf[k][1] += r["decode_errors"] > 0
            conf[k][2] += r["decode_errors"]
    exp["conflicts"] = Counter({k + tuple(v): 1 for k, v in conf.items()})
    late = defaultdict(list)
    for r in rows:
        if r["meta_offset"] is not None and r["meta_offset"] >= 1024:
            late[(r["source"], r["meta_charset"].lower(), r["encoding"])].append(r["meta_offset"])
    exp["late_meta"] = Counter({k + (len(v), min(v), max(v)): 1 for k, v in late.items()})
    low = defaultdict(list)
    for r in rows:
        if r["source"] == "detector" and r["detector_confidence"] < LOW_CONFIDENCE:
            low[(r["detector"], r["encoding"], r["tld"])].append(r)
    exp["low_confidence"] = Counter({
        k + (len(v), round(min(x["detector_confidence"] for x in v), 3),
             sum(x["decode_errors"] for x in v)): 1
        for k, v in low.items()
    })
    for key, col in (("errors_by_encoding", "encoding"), ("errors_by_tld", "tld")):
        agg = defaultdict(lambda: [0, 0, 0])
        for r in dec:
            agg[r[col]][0] += 1
            agg[r[col]][1] += r["decode_errors"] > 0
            agg[r[col]][2] += r["decode_errors"]
        exp[key] = Counter({(k, *v): 1 for k, v in agg.items()
                            if key == "errors_by_encoding" or v[2] > 0})
    exp["failed_inputs"] = Counter(
        # the error is shown without the path it starts with (the path has its own column)
        (run, i["path"], i["outcome"], i["error_offset"], i["rows"],
         i["error"].removeprefix(i["path"] + ": "))
        for i in manifest["inputs"] if i["outcome"] != "complete"
    )
    return exp


def test_report_matches_independent_counts(run_dir):
    rows = _table(run_dir)
    manifest = json.loads(Path(run_dir, "_run.json").read_text())
    expected = _expected_sections(rows, manifest, run_dir)
    rep = report(run_dir)
    assert rep.records == len(rows) == 20
    assert [k for k, _, _ in REPORT_SECTIONS] == list(expected)
    for key, exp in expected.items():
        got = Counter(tuple(int(v) if hasattr(v, "as_integer_ratio") and not isinstance(v, (float, bool))
                            else v for v in r) for r in rep.sections[key].rows)
        assert got == exp, key
    # A few numbers spelled out, so that the expectations above are not vacuous.
    assert ("transport", "iso-8859-1", "windows-1252", 2) in rep.sections["declared"].rows
    assert ("prescan", "gb2312", "GBK", 1) in rep.sections["declared"].rows
    assert ("utf-8", "big5", "UTF-8", "transport", 1, 1, 2) in rep.sections["conflicts"].rows
    assert len(rep.sections["low_confidence"].rows) == 1
    assert rep.sections["failed_inputs"].rows[0][2] == "truncated"


def test_report_never_reads_text(run_dir):
    for _, _, sql in REPORT_SECTIONS:
        assert not re.search(r"\btext\b", sql), sql
    # The report's view has no text column at all: a section that used it could not run.
    con = open_query(run_dir, columns=PROVENANCE_COLUMNS)
    with pytest.raises(QueryError, match="text"):
        execute(con, "SELECT text FROM decodes")


def test_report_on_parts_without_text(tmp_path):
    """A part whose text column is missing altogether still gives the full report."""
    out = tmp_path / "run"
    out.mkdir()
    rows = _rows()["a.warc.gz"]
    schema = pa.schema([SCHEMA.field(c) for c in PROVENANCE_COLUMNS], metadata=SCHEMA.metadata)
    pq.write_table(pa.Table.from_pylist([{c: r[c] for c in PROVENANCE_COLUMNS} for r in rows],
                                        schema=schema), str(out / "a.warc.gz.00000000.parquet"))
    rep = report(str(out))
    assert rep.records == len(rows)
    assert sum(r[-1] for r in rep.sections["status"].rows) == len(rows)


def test_report_on_a_benchmark_sized_run(tmp_path):
    """Issue 8: the report runs on a run of about 5,800 rows (the benchmark crawl's size).

    Its speed (target: under 2 s) is measured by tests/benchmarks/bench_query.py, not here: the
    project keeps timings out of the test suite."""
    rows = []
    base = _rows()["a.warc.gz"]
    for i in range(5800):
        r = dict(base[i % len(base)])
        r["warc_offset"] = i
        rows.append(r)
    run = make_run(str(tmp_path / "big"), {"big.warc.gz": rows})
    rep = report(run)
    assert rep.records == 5800


# --------------------------------------------------------------------------------------------
# Views and SQL


def test_views(run_dir):
    con = open_query(run_dir)
    cols = [d[0] for d in con.execute("SELECT * FROM decodes LIMIT 0").description]
    assert cols == list(COLUMNS) + ["run"]
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 2
    got = con.execute("SELECT path, outcome, rows, error_offset FROM runs ORDER BY path").fetchall()
    assert got == [("a.warc.gz", "complete", 18, None), ("b.warc.gz", "truncated", 2, 77)]


def test_several_runs(run_dir, tmp_path):
    other = make_run(str(tmp_path / "other"), {"c.warc.gz": [row("c.warc.gz", 0)]})
    con = open_query([run_dir, other])
    got = dict(con.execute("SELECT run, count(*) FROM decodes GROUP BY run").fetchall())
    assert got == {run_dir: 20, other: 1}
    r = CliRunner().invoke(query_cmd, [run_dir, "--run", other, "SELECT count(*) AS n FROM decodes",
                                       "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == [{"n": 21}]


def test_read_only(run_dir):
    con = open_query(run_dir)
    for sql in (f"COPY (SELECT 1) TO '{run_dir}/x.csv'", "CREATE TABLE t AS SELECT 1",
                "SET threads = 1", "DROP VIEW decodes"):
        with pytest.raises(QueryError, match="not allowed"):
            execute(con, sql)
    assert not os.path.exists(os.path.join(run_dir, "x.csv"))


def test_run_without_manifest_and_bad_paths(tmp_path):
    bare = make_run(str(tmp_path / "bare"), {"a.warc.gz": [row()]}, manifest=False)
    con = open_query(bare)
    assert con.execute("SELECT count(*) FROM decodes").fetchone()[0] == 1
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    with pytest.raises(QueryError, match="no such run directory"):
        open_query(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(QueryError, match="not a run directory"):
        open_query(str(tmp_path / "empty"))


def test_cli_formats(run_dir):
    runner = CliRunner()
    sql = "SELECT status, count(*) AS n FROM decodes GROUP BY status ORDER BY status"
    r = runner.invoke(query_cmd, [run_dir, sql])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].split() == ["status", "n"]
    assert "decoded" in r.output
    r = runner.invoke(query_cmd, [run_dir, sql, "--format", "csv"])
    assert r.output.splitlines() == ["status,n", "decoded,15", "failed,1", "skipped,4"]
    r = runner.invoke(query_cmd, [run_dir, sql, "--format", "json"])
    assert json.loads(r.output)[0] == {"status": "decoded", "n": 15}
    r = runner.invoke(query_cmd, [run_dir, "SELECT conflict FROM decodes WHERE len(conflict) > 0 "
                                           "ORDER BY warc_offset", "--format", "csv"])
    assert r.output.splitlines()[1] == '"[""meta:big5""]"'


#: The UTF-8 encoding of U+FEFF, ZERO WIDTH NO-BREAK SPACE as a byte order mark (Unicode 15.1,
#: section 23.8 "Specials": the signature of UTF-8 is EF BB BF).
UTF8_SIGNATURE = bytes([0xEF, 0xBB, 0xBF])


def test_csv_with_a_bom_for_spreadsheets(run_dir):
    """Output is UTF-8 without a BOM; --bom puts one before CSV (a spreadsheet then reads it as
    UTF-8), and nowhere else."""
    runner = CliRunner()
    sql = "SELECT 'caf\u00e9 \u65e5\u672c' AS word, count(*) AS n FROM decodes"
    plain = runner.invoke(query_cmd, [run_dir, sql, "--format", "csv"])
    marked = runner.invoke(query_cmd, [run_dir, sql, "--format", "csv", "--bom"])
    assert plain.exit_code == marked.exit_code == 0, marked.output
    assert plain.stdout_bytes == "word,n\ncaf\u00e9 \u65e5\u672c,20\n".encode("utf-8")
    assert marked.stdout_bytes == UTF8_SIGNATURE + plain.stdout_bytes
    as_json = runner.invoke(query_cmd, [run_dir, sql, "--format", "json"])
    assert not as_json.stdout_bytes.startswith(UTF8_SIGNATURE)
    assert json.loads(as_json.stdout_bytes.decode("utf-8")) == [{"word": "caf\u00e9 \u65e5\u672c", "n": 20}]
    report_csv = runner.invoke(query_cmd, [run_dir, "--format", "csv", "--bom"])
    assert report_csv.exit_code == 0 and report_csv.stdout_bytes.startswith(UTF8_SIGNATURE + b"# status: ")
    for fmt in ("table", "json"):
        refused = runner.invoke(query_cmd, [run_dir, sql, "--format", fmt, "--bom"])
        assert refused.exit_code == 2 and "--bom goes with --format csv" in refused.output


def test_csv_and_json_are_utf8_whatever_the_locale(run_dir):
    """stdout in a legacy encoding (PYTHONIOENCODING=latin-1, as a C locale without UTF-8 coercion
    or an old terminal gives): csv and json still write UTF-8 bytes, Japanese included."""
    import subprocess
    import sys

    sql = "SELECT '\u65e5\u672c\u8a9e' AS word"
    for fmt, expected in (("csv", "word\n\u65e5\u672c\u8a9e\n"),
                          ("json", '[\n  {\n    "word": "\u65e5\u672c\u8a9e"\n  }\n]\n')):
        proc = subprocess.run(
            [sys.executable, "-c", "from redecode_jobs.cli import main; main()", "query", run_dir, sql,
             "--format", fmt],
            capture_output=True, env={**os.environ, "PYTHONIOENCODING": "latin-1"}, check=False)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == expected.encode("utf-8"), fmt


def test_cli_report_and_errors(run_dir):
    runner = CliRunner()
    r = runner.invoke(query_cmd, [run_dir])
    assert r.exit_code == 0, r.output
    for _, title, _ in REPORT_SECTIONS:
        assert title in r.output
    r = runner.invoke(query_cmd, [run_dir, "--format", "json"])
    data = json.loads(r.output)
    assert data["records"] == 20 and set(data["sections"]) == {k for k, _, _ in REPORT_SECTIONS}
    r = runner.invoke(query_cmd, [run_dir, "DELETE FROM decodes"])
    assert r.exit_code == 2 and "read-only" in r.output
    r = runner.invoke(query_cmd, [run_dir, "SELECT nope FROM decodes"])
    assert r.exit_code == 2 and "nope" in r.output


def test_format_report_csv(run_dir):
    text = format_report(report(run_dir), "csv")
    assert "# status: Records by status and reason" in text


# --------------------------------------------------------------------------------------------
# The SQL examples of docs/queries.md


def _examples_source() -> Path:
    return ROOT / "docs" / "queries.md"


def _examples() -> list[str]:
    text = _examples_source().read_text()
    m = re.search(rf"^(#+)\s*{SECTION}.*?$", text, re.M)
    assert m, f"no '{SECTION}' section in {_examples_source()}"
    level = len(m.group(1))
    rest = text[m.end():]
    end = re.search(rf"^#{{1,{level}}}\s", rest, re.M)
    section = rest[: end.start()] if end else rest
    return re.findall(r"```sql\n(.*?)```", section, re.S)


EXAMPLES = _examples()


def test_enough_examples():
    assert len(EXAMPLES) >= 5
    assert any("iso-8859-1" in sql and "ignored_labels" in sql for sql in EXAMPLES)


@pytest.mark.parametrize("sql", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_example_runs_on_hand_built_run(run_dir, sql):
    con = open_query(run_dir)
    (result,) = execute(con, sql)
    assert result.columns


def test_label_example_finds_every_touched_record(run_dir):
    (sql,) = [s for s in EXAMPLES if "iso-8859-1" in s and "ignored_labels" in s]
    con = open_query(run_dir)
    (result,) = execute(con, sql)
    got = {(r[0], r[1]) for r in result.rows}
    rows = _table(run_dir)
    expected = set()
    for r in rows:
        labels = [r["header_charset"] if r["source"] == "transport" else None,
                  r["meta_charset"] if r["source"] in ("prescan", "head-scan") else None,
                  r["xml_charset"] if r["source"] == "xml-declaration" else None,
                  *r["ignored_labels"]]
        if any(lab is not None and lab.strip().lower() == "iso-8859-1" for lab in labels):
            expected.add((r["warc_path"], r["warc_offset"]))
    assert got == expected == {("a.warc.gz", 10), ("a.warc.gz", 20), ("a.warc.gz", 120)}


def test_mojibake_example(run_dir):
    (sql,) = [s for s in EXAMPLES if "Ã©" in s]
    (result,) = execute(open_query(run_dir), sql)
    assert [r[0] for r in result.rows] == ["http://example.com/130"]


def test_mojibake_example_keeps_to_windows_1252(tmp_path):
    """Its title says "read as windows-1252": a UTF-8 page that quotes mojibake is not listed."""
    (sql,) = [s for s in EXAMPLES if "Ã©" in s]
    text = "caf\u00c3\u00a9"
    run = make_run(str(tmp_path / "run"), {"m.warc.gz": [
        row("m.warc.gz", 0, text=text, encoding="windows-1252", source="default"),
        row("m.warc.gz", 10, text=text, encoding="UTF-8", source="transport", header_charset="utf-8"),
    ]})
    (result,) = execute(open_query(run), sql)
    assert [(r[0], r[1]) for r in result.rows] == [("http://example.com/0", "windows-1252")]


def test_detector_example_finds_low_confidence_and_decode_errors(tmp_path):
    (sql,) = [s for s in EXAMPLES if "decode_errors > 0" in s and "detector_confidence" in s]
    run = make_run(str(tmp_path / "run"), {"d.warc.gz": [
        row("d.warc.gz", 0, text="\ufffd" * 3, encoding="Shift_JIS", source="detector",
            detector="cascade", detector_confidence=0.99, decode_errors=3),
        row("d.warc.gz", 10, text="x", encoding="windows-1251", source="detector",
            detector="cascade", detector_confidence=1 / 3),
        row("d.warc.gz", 20, text="y", encoding="windows-1251", source="detector",
            detector="cascade", detector_confidence=2 / 3),
        row("d.warc.gz", 30, text="\ufffd", encoding="UTF-8", header_charset="utf-8", decode_errors=1),
    ]})
    (result,) = execute(open_query(run), sql)
    assert [r[0] for r in result.rows] == ["http://example.com/0", "http://example.com/10"]


# --------------------------------------------------------------------------------------------
# On the real sample output (when the job and sample_warcs are there)


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    samples = ROOT / "sample_warcs"
    if not samples.is_dir() or not any(samples.iterdir()):
        pytest.skip("sample_warcs/ is empty or absent")
    try:
        from redecode.job import run
    except ImportError as exc:
        pytest.skip(f"redecode.job not importable yet: {exc}")
    out = tmp_path_factory.mktemp("sample") / "out"
    run([str(samples)], str(out), workers=1, quiet=True)
    return str(out)


@pytest.mark.parametrize("sql", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_example_runs_on_sample_output(sample_run, sql):
    (result,) = execute(open_query(sample_run), sql)
    assert result.columns


def test_report_on_sample_output(sample_run):
    rows = _table(sample_run)
    manifest = json.loads(Path(sample_run, "_run.json").read_text())
    expected = _expected_sections(rows, manifest, sample_run)
    rep = report(sample_run)
    assert rep.records == len(rows) == manifest["counts"]["records_seen"]
    for key, exp in expected.items():
        got = Counter(tuple(int(v) if hasattr(v, "as_integer_ratio") and not isinstance(v, (float, bool))
                            else v for v in r) for r in rep.sections[key].rows)
        assert got == exp, key


def test_the_overrides_view_never_calls_reading_in_parts_a_verdict(tmp_path):
    """A page read in parts with no check of step 5 has no verdict (docs/columns.md): the view's
    verdict column says so (null), not "in parts" (validation's first words, the fallback for runs
    written before the verdict column); one whose check fired shows that check's verdict."""
    st = [{"offset": 10, "length": 6, "encoding": "windows-1251"}]
    run = make_run(str(tmp_path / "run"), {"p.warc.gz": [
        row("p.warc.gz", 0, encoding="UTF-8", source="parts", browser_encoding="UTF-8", stretches=st,
            rules="author-2026.12.5", verdict=None,
            validation="in parts: UTF-8 with 1 stretch read otherwise: windows-1251 at bytes 10-16 (...)"),
        row("p.warc.gz", 10, encoding="UTF-8", source="parts", browser_encoding="UTF-8", stretches=st,
            rules="author-2026.12.5", verdict="kept",
            validation="in parts: UTF-8 with 1 stretch read otherwise: windows-1251 at bytes 10-16 (...); "
                       "kept: transport:utf-8 made 6 U+FFFD; ..."),
        row("p.warc.gz", 20, encoding="windows-1252", source="validated", browser_encoding="UTF-8",
            rules="author-2026.12", verdict=None, validation="overridden: transport:utf-8 made 2 U+FFFD; ..."),
    ]})
    sec = report(run).sections["overrides"]
    # (browser_encoding, encoding, source, verdict, records, replacement characters)
    assert sorted((r[2], r[3] or "-") for r in sec.rows) == [
        ("parts", "-"), ("parts", "kept"), ("validated", "overridden")]
