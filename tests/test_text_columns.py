"""Schema 1.3's columns (issue 21): text_bytes always, grapheme_count and text_normalized on request.

Expected values are computed here from each row's own ``text`` with Python (``str.encode``,
``unicodedata.normalize``) and the ``regex`` package's ``\\X``, never taken from the job; the
pages are raw responses whose bytes are written here, so their true text is known.
"""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import regex
from click.testing import CliRunner

from redecode.backfill import backfill
from redecode.job import run
from redecode.query import open_query, execute
from redecode.rules import DEFAULT_RULES, get_rules
from redecode.schema import COLUMNS, DERIVED_COLUMNS, PROVENANCE_COLUMNS, SCHEMA_VERSION, SCHEMA_VERSION_KEY
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_warcs"

#: (url, content_type, body): one page per case where the three lengths or the forms differ.
PAGES = [
    ("http://example.fr/nfd", "text/html; charset=utf-8", "<p>Cafe\u0301 cre\u0300me</p>".encode()),
    ("http://example.fr/nfc", "text/html; charset=utf-8", "<p>Café crème</p>".encode()),
    ("http://example.jp/wide", "text/html; charset=utf-8", "<p>ＡＢＣ１２３ ｶﾀｶﾅ ﬁ</p>".encode()),
    ("http://example.com/emoji", "text/html; charset=utf-8",
     "<p>\U0001F44D\U0001F3FD \U0001F1E9\U0001F1EA \U0001F468\u200d\U0001F469\u200d\U0001F467</p>".encode()),
    ("http://example.com/crlf", "text/html", b"<p>one</p>\r\n<p>two</p>\r\n"),
    ("http://example.de/latin", "text/html; charset=windows-1252", "<p>Grüße – “so”</p>".encode("cp1252")),
    ("http://example.kr/hangul", "text/html; charset=utf-8", "<p>\u1100\u1161\u11a8 각</p>".encode()),
    ("http://example.com/bom", "text/html", b"\xef\xbb\xbf<p>bom\xc3\xa9</p>"),
    ("http://example.com/empty", "text/html", b""),
    ("http://example.com/image", "image/png", b"\x89PNG\r\n\x1a\n"),
]


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("pages") / "pages.parquet"
    pq.write_table(pa.table({
        "url": [p[0] for p in PAGES],
        "content_type": [p[1] for p in PAGES],
        "body": pa.array([p[2] for p in PAGES], pa.binary()),
    }), path)
    return str(path)


def _rows(out) -> list[dict]:
    return [r for part in sorted(Path(out).glob("*.parquet")) for r in pq.read_table(part).to_pylist()]


def _check_row(r: dict, *, normalize: str | None, graphemes: bool) -> None:
    text = r["text"]
    if text is None:
        assert (r["text_bytes"], r["grapheme_count"], r["text_normalized"]) == (None, None, None)
        return
    assert r["text_bytes"] == len(text.encode("utf-8"))
    assert r["text_length"] == len(text)
    assert r["grapheme_count"] == (len(regex.findall(r"\X", text)) if graphemes else None)
    assert r["text_normalized"] == (unicodedata.normalize(normalize, text) if normalize else None)


@pytest.fixture(scope="module")
def plain(pages, tmp_path_factory):
    out = tmp_path_factory.mktemp("plain") / "out"
    run([pages], str(out), workers=1)
    return out


def test_without_options_text_bytes_only(plain):
    rows = _rows(plain)
    assert len(rows) == len(PAGES)
    for r in rows:
        _check_row(r, normalize=None, graphemes=False)
    decoded = [r for r in rows if r["status"] == "decoded"]
    assert len(decoded) == 8
    # the three lengths differ where the text is not ASCII
    emoji = next(r for r in decoded if r["target_uri"].endswith("/emoji"))
    assert emoji["text_length"] < emoji["text_bytes"]
    # no option: the rule set's own digest
    assert emoji["rules_digest"] == get_rules(DEFAULT_RULES).digest


def test_schema_version_and_columns(plain):
    (part,) = sorted(Path(plain).glob("*.parquet"))
    schema = pq.read_schema(part)
    assert schema.metadata[SCHEMA_VERSION_KEY] == SCHEMA_VERSION.encode() == b"1.6"
    assert schema.names == list(COLUMNS)
    # 1.3's columns, then 1.4's (issue 25: missing_bytes of a record cut short), then 1.5's (issue 30),
    # then 1.6's (issue 29: the stretches of a page read in parts)
    assert COLUMNS[-8:] == ("text_bytes", "grapheme_count", "text_normalized", "missing_bytes", "verdict",
                            "language", "language_confidence", "stretches")
    assert DERIVED_COLUMNS == ("text_length", "text_bytes", "grapheme_count", "text_normalized", "language",
                               "language_confidence")
    assert "text_normalized" not in PROVENANCE_COLUMNS and "text" not in PROVENANCE_COLUMNS
    assert "text_bytes" in PROVENANCE_COLUMNS and "grapheme_count" in PROVENANCE_COLUMNS


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_normalize_and_graphemes(pages, tmp_path, form):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", pages, "--out", str(out), "--normalize", form,
                                      "--graphemes", "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    rows = _rows(out)
    for r in rows:
        _check_row(r, normalize=form, graphemes=True)
    by_url = {r["target_uri"]: r for r in rows}
    # text stays exactly as decoded; only text_normalized is normalised
    nfd = by_url["http://example.fr/nfd"]
    assert "e\u0301" in nfd["text"] and "\u00e9" in nfd["text_normalized"]
    assert nfd["grapheme_count"] < nfd["text_length"]
    wide = by_url["http://example.jp/wide"]
    assert (wide["text_normalized"] == wide["text"]) == (form == "NFC")
    assert by_url["http://example.com/crlf"]["grapheme_count"] == by_url["http://example.com/crlf"]["text_length"] - 2
    # the options are in the rules digest and the manifest
    expected = get_rules(DEFAULT_RULES).with_outputs(normalize=form, graphemes=True)
    assert {r["rules_digest"] for r in rows} == {expected.digest}
    assert {r["rules"] for r in rows} == {DEFAULT_RULES}
    m = json.loads((out / "_run.json").read_text())
    assert m["rules"]["digest"] == expected.digest
    assert m["rules"]["parameters"]["normalize"] == form and m["rules"]["parameters"]["graphemes"] is True
    # ... and so are the versions the digest covers: the Unicode data and the grapheme library
    assert m["rules"]["versions"] == expected.versions()
    assert m["rules"]["versions"]["unicode"] == unicodedata.unidata_version
    assert m["rules"]["versions"]["graphemes"] == f"regex@{regex.__version__}"
    assert m["dependencies"]["regex"] == regex.__version__


def test_normalize_only(pages, tmp_path):
    out = tmp_path / "out"
    run([pages], str(out), rules=get_rules("browser-2026.11").with_outputs(normalize="NFC"), workers=1)
    for r in _rows(out):
        _check_row(r, normalize="NFC", graphemes=False)
    m = json.loads((out / "_run.json").read_text())
    assert "graphemes" not in m["rules"]["parameters"]
    import redecode.rules as R
    assert R.get_rules("browser-2026.11").with_outputs(normalize="NFC").versions()["unicode"] == unicodedata.unidata_version


def test_other_options_into_the_same_out_are_refused_same_options_resume(pages, tmp_path):
    out = tmp_path / "out"
    args = ["run", pages, "--out", str(out), "--workers", "1", "--quiet"]
    assert CliRunner().invoke(cli, args + ["--normalize", "NFC"]).exit_code == 0
    other = CliRunner().invoke(cli, args)
    assert other.exit_code == 2 and "made with other rules" in other.output
    # the refusal names the first difference (the manifest's parameters and versions against this
    # run's), -v every one
    assert "They differ first in normalize (none here, NFC there), and in 1 more (-v lists them)." in other.output
    every = CliRunner().invoke(cli, args + ["-v"])
    assert every.exit_code == 2
    assert ": they differ in: normalize (none here, NFC there); unicode (none here," in every.stderr
    again = CliRunner().invoke(cli, args + ["--normalize", "NFC", "--json"])
    assert again.exit_code == 0
    forced = CliRunner().invoke(cli, args + ["--force"])
    assert forced.exit_code == 0
    for r in _rows(out):
        _check_row(r, normalize=None, graphemes=False)


@pytest.mark.slow
def test_workers_and_options(tmp_path):
    rules = get_rules("browser-2026.11").with_outputs(normalize="NFKC", graphemes=True)
    one, two = tmp_path / "one", tmp_path / "two"
    run([str(SAMPLE)], str(one), rules=rules, workers=1)
    run([str(SAMPLE)], str(two), rules=rules, workers=2)
    assert _rows(one) == _rows(two)
    for r in _rows(one):
        _check_row(r, normalize="NFKC", graphemes=True)


@pytest.mark.parametrize("rules", ["seed-2026.10", "requests-2.32", "browser-2026.11", "author-2026.12"])
def test_text_bytes_on_the_sample_under_every_rule_set(rules, tmp_path):
    out = tmp_path / "out"
    run([str(SAMPLE)], str(out), rules=rules, workers=1)
    rows = _rows(out)
    assert any(r["text"] and not r["text"].isascii() for r in rows)
    for r in rows:
        _check_row(r, normalize=None, graphemes=False)


# --------------------------------------------------------------------------------------------
# backfill carries the options; older parts read and backfill


def test_backfill_replays_the_prior_options(tmp_path):
    prior, full, out = tmp_path / "prior", tmp_path / "full", tmp_path / "bf"
    run([str(SAMPLE)], str(prior), rules=get_rules("seed-2026.10").with_outputs(normalize="NFC"), workers=1)
    run([str(SAMPLE)], str(full), rules=get_rules("browser-2026.11").with_outputs(normalize="NFC"), workers=1)
    summary = backfill(str(prior), "browser-2026.11", str(out))
    assert summary.manifest["rules"] == json.loads((full / "_run.json").read_text())["rules"]
    key = lambda r: (r["warc_path"], r["warc_offset"])  # noqa: E731
    assert sorted(_rows(out), key=key) == sorted(_rows(full), key=key)
    # the same rules and options again copy everything
    again = backfill(str(full), "browser-2026.11", str(tmp_path / "bf2"))
    assert again.stats["rows_reread"] == 0


@pytest.mark.slow
def test_backfill_replays_decisions_made_with_options(tmp_path):
    """The prior rows' rules are found with the prior run's options, so decoded rows are replayed
    (not read again) and their derived columns made from the text as a full run makes them."""
    both = {"normalize": "NFKC", "graphemes": True}
    prior, full, out = tmp_path / "prior", tmp_path / "full", tmp_path / "bf"
    run([str(SAMPLE)], str(prior), rules=get_rules("browser-2026.11").with_outputs(**both), workers=1)
    run([str(SAMPLE)], str(full), rules=get_rules("author-2026.12").with_outputs(**both), workers=1)
    summary = backfill(str(prior), "author-2026.12", str(out))
    counts = summary.manifest["counts"]
    assert summary.stats["rows_copied"] > counts["skipped"] + counts["failed"]  # decoded rows replayed
    key = lambda r: (r["warc_path"], r["warc_offset"])  # noqa: E731
    assert sorted(_rows(out), key=key) == sorted(_rows(full), key=key)
    for r in _rows(out):
        _check_row(r, **both)


def test_backfill_with_rules_given_with_options_keeps_them(tmp_path):
    prior, full, out = tmp_path / "prior", tmp_path / "full", tmp_path / "bf"
    run([str(SAMPLE)], str(prior), rules="browser-2026.11", workers=1)
    nfc = get_rules("browser-2026.11").with_outputs(normalize="NFC")
    run([str(SAMPLE)], str(full), rules=nfc, workers=1)
    summary = backfill(str(prior), nfc, str(out))
    assert summary.stats["rows_reread"] == 0  # same decisions: only the derived columns are new
    key = lambda r: (r["warc_path"], r["warc_offset"])  # noqa: E731
    assert sorted(_rows(out), key=key) == sorted(_rows(full), key=key)


#: What each older schema lacks, and the record -> row code version (rundir.ROW_CODE_VERSION) of
#: the code that wrote it (schema.py's version notes; the 1.2 row code came with author-2026.12).
OLDER = {
    "1.5": (("stretches",), "2026.12.4"),
    "1.3": (("missing_bytes",), "2026.12.2"),
    "1.2": (("text_bytes", "grapheme_count", "text_normalized", "missing_bytes"), "2026.12.1"),
    "1.1": (("text_bytes", "grapheme_count", "text_normalized", "browser_encoding", "validation", "missing_bytes"),
            "2026.11.4"),
}


def _downgrade(run_dir: Path, version: str) -> None:
    """Rewrite a run directory as the code of schema *version* wrote it: its parts without the later
    columns, with that schema version in their metadata, its markers and manifest with that code's
    versions."""
    dropped, row_code = OLDER[version]
    for part in run_dir.glob("*.parquet"):
        table = pq.read_table(part).drop_columns(list(dropped))
        meta = dict(table.schema.metadata)
        meta[SCHEMA_VERSION_KEY] = version.encode()
        pq.write_table(table.replace_schema_metadata(meta), part)
    for path in [*(run_dir / "_done").glob("*.json"), run_dir / "_run.json"]:
        doc = json.loads(path.read_text())
        doc["row_code_version"] = row_code
        if path.name == "_run.json":
            doc["schema_version"] = version
        path.write_text(json.dumps(doc))


@pytest.mark.parametrize("version", sorted(OLDER))
def test_backfill_of_an_older_prior_reads_it_again_and_fills_the_columns(tmp_path, version):
    full, prior, out = tmp_path / "full", tmp_path / "prior", tmp_path / "bf"
    run([str(SAMPLE)], str(full), rules="browser-2026.11", workers=1)
    shutil.copytree(full, prior)
    _downgrade(prior, version)
    summary = backfill(str(prior), "browser-2026.11", str(out))
    # made by another row code: every record is read again (rundir.ROW_CODE_VERSION)
    assert summary.stats["rows_reread"] == summary.stats["rows"] == len(_rows(full))
    assert summary.stats["prior_schema_versions"] == [version]
    key = lambda r: (r["warc_path"], r["warc_offset"])  # noqa: E731
    assert sorted(_rows(out), key=key) == sorted(_rows(full), key=key)


@pytest.mark.parametrize("version", sorted(OLDER))
def test_query_reads_older_parts_with_the_new_columns_null(tmp_path, version):
    full = tmp_path / "full"
    run([str(SAMPLE)], str(full), workers=1)
    old = tmp_path / "old"
    shutil.copytree(full, old)
    _downgrade(old, version)
    con = open_query([str(old), str(full)])
    (result,) = execute(con, "SELECT run LIKE '%old' AS old, count(*), count(text_bytes), "
                             "count(text_normalized) FROM decodes WHERE status = 'decoded' GROUP BY ALL ORDER BY ALL")
    (new_n, new_bytes, new_norm), (old_n, old_bytes, old_norm) = [r[1:] for r in result.rows]
    lacks_bytes = "text_bytes" in OLDER[version][0]
    assert new_n == old_n == new_bytes and old_bytes == (0 if lacks_bytes else old_n) and new_norm == old_norm == 0
    # a column the older parts lack reads as NULL (1.4's missing_bytes: every older part lacks it)
    ((nulls,),) = execute(con, "SELECT count(*) FROM decodes WHERE run LIKE '%old' AND missing_bytes IS NULL")[0].rows
    assert nulls == len(_rows(old))


@pytest.mark.parametrize("version", sorted(OLDER))
def test_diff_reads_an_older_run_against_a_new_one(tmp_path, version):
    new = tmp_path / "new"
    run([str(SAMPLE)], str(new), workers=1)
    old = tmp_path / "old"
    shutil.copytree(new, old)
    _downgrade(old, version)
    result = CliRunner().invoke(cli, ["diff", str(old), str(new), "--json", "--check"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["changed"] == 0 and summary["records"] == len(_rows(new))


def test_run_resuming_into_an_older_run_directory_is_refused(tmp_path):
    """Parts of an older row code lack the new columns: a resume would keep them, so the run refuses
    the directory as made by another version of the job (--force redoes it)."""
    out = tmp_path / "out"
    run([str(SAMPLE)], str(out), workers=1)
    _downgrade(out, "1.2")
    result = CliRunner().invoke(cli, ["run", str(SAMPLE), "--out", str(out), "--quiet"])
    assert result.exit_code == 2 and "another version of this job" in result.output
    assert CliRunner().invoke(cli, ["run", str(SAMPLE), "--out", str(out), "--quiet", "--force"]).exit_code == 0
    for r in _rows(out):
        _check_row(r, normalize=None, graphemes=False)


# --------------------------------------------------------------------------------------------
# diff --compare normalized


def test_diff_compare_normalized(pages, plain, tmp_path):
    new = tmp_path / "new"
    run([pages], str(new), rules=get_rules("browser-2026.11").with_outputs(normalize="NFC"), workers=1)
    rows = _rows(new)
    # OLD: what a pipeline that stored NFC text kept, keyed on record_id
    old = tmp_path / "old.parquet"
    pq.write_table(pa.table({
        "record_id": [r["record_id"] for r in rows if r["status"] == "decoded"],
        "body": [unicodedata.normalize("NFC", r["text"]) for r in rows if r["status"] == "decoded"],
    }), old)
    base = ["diff", str(old), str(new), "--old-key", "record_id", "--old-text", "body", "--json"]
    on_text = CliRunner().invoke(cli, base)
    assert on_text.exit_code == 0, on_text.output
    changed = {e["target_uri"] for e in json.loads(on_text.stdout)["examples"] if e["category"] == "text-changed"}
    differs = {r["target_uri"] for r in rows if r["text"] is not None
               and unicodedata.normalize("NFC", r["text"]) != r["text"]}
    assert differs and changed == differs
    on_norm = CliRunner().invoke(cli, base + ["--compare", "normalized"])
    assert on_norm.exit_code == 0, on_norm.output
    summary = json.loads(on_norm.stdout)
    assert summary["compare"] == "normalized"
    assert summary["categories"]["text-changed"] == 0
    # two runs, both normalized the same way: compared on text_normalized
    again = tmp_path / "again"
    run([pages], str(again), rules=get_rules("requests-2.32").with_outputs(normalize="NFC"), workers=1)
    both = CliRunner().invoke(cli, ["diff", str(again), str(new), "--compare", "normalized", "--json"])
    assert both.exit_code == 0, both.output
    assert json.loads(both.stdout)["compare"] == "normalized"


def test_diff_compare_normalized_needs_normalized_runs(pages, plain, tmp_path):
    nfc, nfkc = tmp_path / "nfc", tmp_path / "nfkc"
    run([pages], str(nfc), rules=get_rules("browser-2026.11").with_outputs(normalize="NFC"), workers=1)
    run([pages], str(nfkc), rules=get_rules("browser-2026.11").with_outputs(normalize="NFKC"), workers=1)
    result = CliRunner().invoke(cli, ["diff", str(plain), str(nfc), "--compare", "normalized"])
    assert result.exit_code == 2
    assert f"{plain}: 8 decoded record(s) without text_normalized" in result.output
    # the way out it names exists: a run with --normalize (backfill has no such option)
    assert "`run --normalize NFC` (or NFKC)" in result.output and "backfill" not in result.output
    result = CliRunner().invoke(cli, ["diff", str(nfc), str(nfkc), "--compare", "normalized"])
    assert result.exit_code == 2
    assert "is normalized to NFC" in result.output and "to NFKC" in result.output
    result = CliRunner().invoke(cli, ["diff", "--rules", "seed-2026.10", "--rules", "browser-2026.11",
                                      pages, "--compare", "normalized"])
    assert result.exit_code == 2 and "not --rules" in result.output


# --------------------------------------------------------------------------------------------
# The questions of docs/queries.md about these columns (the README's until the docs/ pages), on a
# run with both options


def _readme_example(marker: str) -> str:
    from test_query import EXAMPLES

    (sql,) = [s for s in EXAMPLES if marker in s]
    return sql


@pytest.fixture(scope="module")
def both(pages, tmp_path_factory):
    out = tmp_path_factory.mktemp("both") / "out"
    run([pages], str(out), rules=get_rules("browser-2026.11").with_outputs(normalize="NFC", graphemes=True),
        workers=1)
    return out


def test_readme_bytes_per_encoding(both):
    (result,) = execute(open_query(str(both)), _readme_example("bytes_per_code_point"))
    rows = [r for r in _rows(both) if r["status"] == "decoded" and r["text"]]
    want = {}
    for r in rows:
        n, cp, b = want.get(r["encoding"], (0, 0, 0))
        want[r["encoding"]] = (n + 1, cp + len(r["text"]), b + len(r["text"].encode()))
    assert {r[0]: tuple(r[1:4]) for r in result.rows} == want


def test_readme_joined_code_points(both):
    (result,) = execute(open_query(str(both)), _readme_example("grapheme_count < text_length"))
    want = {r["target_uri"]: len(r["text"]) - len(regex.findall(r"\X", r["text"]))
            for r in _rows(both) if r["text"] and len(regex.findall(r"\X", r["text"])) < len(r["text"])}
    assert {r[0]: r[3] for r in result.rows} == want
    assert "http://example.com/emoji" in want and "http://example.com/crlf" in want


def test_readme_not_normalized(both):
    (result,) = execute(open_query(str(both)), _readme_example("text_normalized <> text"))
    want = sorted(r["target_uri"] for r in _rows(both)
                  if r["text"] and unicodedata.normalize("NFC", r["text"]) != r["text"])
    assert [r[0] for r in result.rows] == want == ["http://example.fr/nfd", "http://example.kr/hangul"]
