"""`redecode repair`: text-only priors repaired with ftfy's encoding fixes, plan and status stored.

The test set (tests/repair_cases.py) is real pages decoded right, then wrongly in the common ways;
a repair is right when it gives back the page's text decoded with its true encoding. The committed
excerpts (tests/data/repair/pages.json) run everywhere; the whole chardet test set of
../shared/corpus runs when present and prints the figures docs/repair.md states (the README's until
the docs/ pages).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import ftfy
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import repair_cases
from redecode import mojibake
from redecode.repair import (
    COLUMNS,
    MANIFEST_NAME,
    REPAIR_SCHEMA_VERSION,
    RepairUsageError,
    part_name,
    repair,
)
from redecode_jobs.cli import cli
from shared_paths import CORPUS, absent

ROOT = Path(__file__).resolve().parent.parent


def _prior(tmp_path: Path, pages) -> tuple[str, list[dict]]:
    """A text-only prior: one row per (page, case), the wrong text in ``body_text``."""
    rows = []
    for page in pages:
        for case in repair_cases.CASES:
            old = repair_cases.wrong(case, page)
            if old is not None:
                rows.append({"doc_id": len(rows) * 10, "url": f"{page.source}#{case}", "case": case,
                             "body_text": old, "true": page.text})
    path = tmp_path / "prior.parquet"
    table = pa.Table.from_pylist(
        [{k: r[k] for k in ("doc_id", "url", "body_text")} for r in rows],
        schema=pa.schema([("doc_id", pa.int64()), ("url", pa.string()), ("body_text", pa.string())]))
    pq.write_table(table, path, row_group_size=7)  # several row groups: source_row spans them
    return str(path), rows


@pytest.fixture(scope="module")
def fixture_pages():
    return repair_cases.fixture_pages()


@pytest.fixture(scope="module")
def repaired(tmp_path_factory, fixture_pages):
    tmp = tmp_path_factory.mktemp("repair")
    prior, rows = _prior(tmp, fixture_pages)
    out = tmp / "out"
    result = CliRunner().invoke(cli, ["repair", prior, "--text-col", "body_text", "--key", "doc_id",
                                      "--key", "url", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return prior, rows, out, result


def _out_rows(out: Path) -> list[dict]:
    parts = sorted(p for p in os.listdir(out) if p.endswith(".parquet"))
    return [r for p in parts for r in pq.read_table(out / p).to_pylist()]


def test_every_row_has_one_output_row_in_order(repaired):
    prior, rows, out, _ = repaired
    got = _out_rows(out)
    assert len(got) == len(rows)
    assert [r["source_row"] for r in got] == list(range(len(rows)))
    assert [(r["doc_id"], r["url"]) for r in got] == [(r["doc_id"], r["url"]) for r in rows]
    assert {r["source_path"] for r in got} == {prior}


def test_stored_plan_replays_on_the_old_text(repaired):
    _, rows, out, _ = repaired
    for old, new in zip(rows, _out_rows(out)):
        plan = [(s["action"], s["parameter"]) for s in new["plan"]]
        assert ftfy.apply_plan(old["body_text"], plan) == new["text"], old["url"]
        assert (new["status"] == "unchanged") == (plan == [])
        # as the README says: the plan as read back (a list of dicts) replays without conversion
        assert mojibake.apply_plan(old["body_text"], new["plan"]) == new["text"], old["url"]


def test_figures_on_the_committed_excerpts(repaired, capsys):
    _, rows, out, _ = repaired
    got = _out_rows(out)
    table = {case: {"texts": 0, "exact": 0, "repaired": 0, "unchanged": 0, "doubtful": 0}
             for case in repair_cases.CASES}
    for old, new in zip(rows, got):
        t = table[old["case"]]
        t["texts"] += 1
        t["exact"] += new["text"] == old["true"]
        t[new["status"]] += 1
    with capsys.disabled():
        print("\nrepair of the committed excerpts:")
        for case, t in table.items():
            print(f"  {case:24} {t}")
    for old, new in zip(rows, got):
        case, true = old["case"], old["true"]
        # 'repaired' is a promise: the page's own text
        if new["status"] == "repaired":
            assert new["text"] == true, old["url"]
        if case == "control":
            assert (new["text"], new["status"]) == (true, "unchanged"), old["url"]
        elif case in repair_cases.LOSSLESS:
            assert new["text"] == true, old["url"]
            # repaired, unless ftfy's heuristic flags the page's own correct text
            assert new["status"] == "repaired" or (
                new["doubts"] == ["mojibake-left"] and mojibake.looks_like_mojibake(true)), old["url"]
        elif case == "utf8-as-cp1252-python":
            # bytes were lost: exact only where none of 81 8D 8F 90 9D occurred
            if new["text"] != true:
                assert new["status"] == "doubtful", old["url"]
        elif case == "sjis-as-cp1252":
            assert new["text"] != true and new["status"] != "repaired", old["url"]
    assert table["sjis-as-cp1252"]["texts"] == 2
    assert table["control"]["texts"] == len(repair_cases.fixture_pages())


def test_output_schema_and_metadata(repaired):
    prior, _, out, _ = repaired
    pf = pq.ParquetFile(out / part_name(prior))
    schema = pf.schema_arrow
    assert schema.names == ["doc_id", "url", *COLUMNS]
    assert schema.field("doc_id").type == pa.int64()
    assert schema.field("plan").type == pa.list_(pa.struct([("action", pa.string()),
                                                             ("parameter", pa.string())]))
    meta = schema.metadata
    assert meta[b"redecode.repair_schema_version"] == REPAIR_SCHEMA_VERSION.encode()
    assert meta[b"redecode.ftfy_version"] == ftfy.__version__.encode()
    assert all(schema.field(c).metadata[b"doc"] for c in COLUMNS)


def test_manifest(repaired):
    prior, rows, out, _ = repaired
    m = json.loads((out / MANIFEST_NAME).read_text())
    assert m["repair_schema_version"] == REPAIR_SCHEMA_VERSION
    assert m["ftfy"]["version"] == ftfy.__version__
    assert m["ftfy"]["config"]["normalization"] is None and m["ftfy"]["config"]["uncurl_quotes"] is False
    assert (m["text_col"], m["key"]) == ("body_text", ["doc_id", "url"])
    (entry,) = m["inputs"]
    assert (entry["path"], entry["part"], entry["outcome"], entry["rows"]) == (
        prior, part_name(prior), "complete", len(rows))
    statuses = [r["status"] for r in _out_rows(out)]
    for s in mojibake.STATUSES:
        assert m["counts"][s] == entry["counts"][s] == statuses.count(s)
    assert m["counts"]["rows"] == len(rows) == sum(m["counts"][s] for s in mojibake.STATUSES)


def test_summary_on_stderr(repaired):
    *_, out, result = repaired
    assert re.search(r"1 input, \d+ rows: \d+ repaired, \d+ unchanged, \d+ doubtful -> ", result.stderr)
    assert result.stdout == ""


def test_json_summary_and_force(tmp_path, fixture_pages):
    prior, rows = _prior(tmp_path, fixture_pages[:2])
    out = tmp_path / "out"
    args = ["repair", prior, "--text-col", "body_text", "--out", str(out), "--json"]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["counts"]["rows"] == len(rows)
    # the same repair again resumes (issue 25, item 11): the input finished there is skipped
    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 0, again.output
    resumed = json.loads(again.stdout)
    assert resumed["counts"] == data["counts"] and "(1 already complete, skipped)" in resumed["summary"]
    # another configuration (a key column more) into the same directory is refused
    other = CliRunner().invoke(cli, args + ["--key", "doc_id"])
    assert other.exit_code == 2
    assert "the output of another repair" in other.output and "--force" in other.output
    forced = CliRunner().invoke(cli, args + ["--key", "doc_id", "--force"])
    assert forced.exit_code == 0, forced.output
    assert json.loads(forced.stdout)["counts"] == data["counts"]


def test_null_text_and_other_text_types(tmp_path):
    mojibake_text = "Gr\u00c3\u00bc\u00c3\u009fe"  # 'Grüße' as UTF-8 read as latin-1
    for typ in (pa.string(), pa.large_string(), pa.dictionary(pa.int32(), pa.string())):
        path = tmp_path / f"t-{typ}.parquet".replace("<", "").replace(">", "").replace(" ", "")
        arr = pa.array([mojibake_text, None, "ok"], pa.string()).cast(typ)
        pq.write_table(pa.table({"t": arr}), path)
        out = tmp_path / f"out-{len(os.listdir(tmp_path))}"
        summary = repair([str(path)], str(out), text_col="t")
        got = _out_rows(out)
        assert [r["text"] for r in got] == ["Grüße", None, "ok"]
        assert [r["status"] for r in got] == ["repaired", "unchanged", "unchanged"]
        assert [r["mojibake_left"] for r in got] == [False, None, False]
        assert got[1]["plan"] == [] and got[1]["doubts"] == []
        assert summary.manifest["counts"]["null_text"] == 1


def test_missing_column_is_a_usage_error(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": [1], "html": ["x"]}), path)
    result = CliRunner().invoke(cli, ["repair", str(path), "--text-col", "text", "--key", "doc",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"{path}: no column doc, text (has: id, html)" in result.output
    assert not (tmp_path / "out").exists()


def test_binary_column_is_refused_with_advice(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"body": [b"\xc3\xa9"]}), path)
    result = CliRunner().invoke(cli, ["repair", str(path), "--text-col", "body", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "column body is binary, not text" in result.output and "redecode run" in result.output


def test_key_named_like_an_output_column_is_refused(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"status": ["a"], "t": ["x"]}), path)
    with pytest.raises(RepairUsageError, match="--key status: the output has a column of that name"):
        repair([str(path)], str(tmp_path / "o"), text_col="t", key=["status"])


def test_no_input_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["repair", str(tmp_path / "nothing*.parquet"), "--text-col", "t",
                                      "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "no such file or directory, and no file matches it" in result.output
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(cli, ["repair", str(tmp_path / "empty"), "--text-col", "t",
                                      "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "no .parquet input found" in result.output


def test_unreadable_input_is_listed_and_the_others_go_on(tmp_path):
    good = tmp_path / "in" / "a.parquet"
    bad = tmp_path / "in" / "b.parquet"
    good.parent.mkdir()
    pq.write_table(pa.table({"t": ["caf\u00c3\u00a9"]}), good)
    bad.write_bytes(b"not parquet at all")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["repair", str(tmp_path / "in"), "--text-col", "t", "--out", str(out)])
    assert result.exit_code == 1
    assert f"redecode: error: {bad}: " in result.stderr
    m = json.loads((out / MANIFEST_NAME).read_text())
    assert [(e["path"], e["outcome"]) for e in m["inputs"]] == [(str(good), "complete"), (str(bad), "error")]
    assert [r["text"] for r in _out_rows(out)] == ["café"]
    assert not [n for n in os.listdir(out) if n.startswith(".tmp-")]


def test_directory_input_skips_the_output_inside_it(tmp_path):
    pq.write_table(pa.table({"t": ["x"]}), tmp_path / "a.parquet")
    out = tmp_path / "repaired"
    repair([str(tmp_path)], str(out), text_col="t")
    summary = repair([str(tmp_path)], str(out), text_col="t", force=True)
    assert [e["path"] for e in summary.manifest["inputs"]] == [str(tmp_path / "a.parquet")]


def test_workers_give_the_same_output(tmp_path, fixture_pages):
    inputs = []
    for i in range(3):
        d = tmp_path / f"in{i}"
        d.mkdir()
        prior, _ = _prior(d, fixture_pages[i * 3:(i + 1) * 3])
        inputs.append(prior)
    one = repair(inputs, str(tmp_path / "one"), text_col="body_text", workers=1)
    two = repair(inputs, str(tmp_path / "two"), text_col="body_text", workers=2)
    assert one.manifest["counts"] == two.manifest["counts"]
    for p in inputs:
        a = pq.read_table(tmp_path / "one" / part_name(p))
        b = pq.read_table(tmp_path / "two" / part_name(p))
        assert a.equals(b)


# --------------------------------------------------------------------------------------------
# The whole chardet test set: the figures docs/repair.md states


PAGE = ROOT / "docs" / "repair.md"
FIGURES_SECTION = "## Repair figures"


def _page_figures() -> str:
    text = PAGE.read_text(encoding="utf-8")
    m = re.search(r"\| case \| texts \| exact \| repaired \| unchanged \| doubtful \|\n(?:\|.*\|\n)+", text)
    return m.group(0) if m else ""


@pytest.mark.slow
@pytest.mark.corpus
def test_figures_on_the_corpus(capsys):
    if not (CORPUS / "chardet-tests").is_dir():
        pytest.skip(absent(CORPUS / "chardet-tests"))
    pages = repair_cases.corpus_pages(CORPUS)
    figures, problems = repair_cases.measure(pages, mojibake.repair)
    table = repair_cases.figures_table(figures)
    with capsys.disabled():
        print(f"\nrepair of {len(pages)} pages of {CORPUS / 'chardet-tests'}:\n{table}")
    assert problems == []
    assert _page_figures() == table, "docs/repair.md's figures are stale: paste the table printed above"


def test_page_query_runs_on_a_repair(repaired, monkeypatch):
    """The page's query, run as written: the `redecode query` command it gives (there may be no
    DuckDB command line), and its SQL in DuckDB (any client) over the parts as they are."""
    import shlex

    import duckdb

    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("# Repair text-only priors"):text.index(FIGURES_SECTION)]
    (command,) = re.findall(r"```sh\n(redecode query .*?)```", section, re.S)
    args = shlex.split(command.replace("\\\n", " "))
    (sql,) = re.findall(r"```sql\n(.*?)```", section, re.S)
    prior, rows, out, _ = repaired
    monkeypatch.chdir(out.parent)
    os.rename(out, out.parent / "repaired")
    try:
        got = CliRunner().invoke(cli, [*args[1:], "--format", "json"])
        by_client = duckdb.sql(sql).fetchall()
    finally:
        os.rename(out.parent / "repaired", out)
    assert got.exit_code == 0, got.output
    statuses = [r["status"] for r in _out_rows(out)]
    needing_a_look = len(statuses) - statuses.count("unchanged") + sum(
        1 for r in _out_rows(out) if r["status"] == "unchanged" and r["mojibake_left"])
    assert sum(r["texts"] for r in json.loads(got.stdout)) == needing_a_look
    assert sum(r[-1] for r in by_client) == needing_a_look


def test_query_reads_a_repair(repaired, monkeypatch):
    """`redecode query` over a repair's output: the view `repairs` holds its rows, and SQL over its
    parts by path reads them too (was: "no redecode.schema_version in the Parquet metadata; not an
    output of `redecode run`", exit 2); the standard report, which is a run's, says what to ask."""
    from redecode.query import REPAIR_MANIFEST_NAME

    assert REPAIR_MANIFEST_NAME == MANIFEST_NAME  # (query names it without importing ftfy)
    prior, rows, out, _ = repaired
    want = len(_out_rows(out))
    runner = CliRunner()
    for sql in ("SELECT count(*) AS n FROM repairs", f"SELECT count(*) AS n FROM '{out}/*.parquet'"):
        got = runner.invoke(cli, ["query", str(out), sql, "--format", "json"])
        assert got.exit_code == 0, got.output
        assert json.loads(got.stdout) == [{"n": want}]
    monkeypatch.chdir(out.parent)  # a relative path, as a user types it
    got = runner.invoke(cli, ["query", out.name, f"SELECT count(*) AS n FROM '{out.name}/*.parquet'", "--format", "json"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout) == [{"n": want}]
    got = runner.invoke(cli, ["query", out.name])
    assert got.exit_code == 2
    assert (f"{out.name} is the output of `redecode repair` ({MANIFEST_NAME}), which has no standard report: "
            f"ask it SQL over the view repairs, e.g. redecode query {out.name} "
            '"SELECT status, count(*) AS texts FROM repairs GROUP BY ALL"') in " ".join(got.stderr.split())
