"""Targeted backfill (issue "Targeted backfill after a rules update").

The oracle is the job itself: ``backfill(prior run of OLD, NEW)`` must write exactly what
``run --rules NEW`` writes over the same archives (same parts, same rows with every column, same
completion markers but for timings), for every ordered pair of shipped rule sets, on the sample crawl
and on the committed test WARCs (good, damaged and truncated ones); and the same rules re-read
nothing. The decoder equivalences are checked against the decoders' definitions (the Encoding
Standard's windows-1252 maps 0x81 to U+0081; Python's cp1252 has no mapping there).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode.backfill import BackfillError, backfill
from redecode.equivalence import (
    WHATWG_BYTE_TABLES,
    ascii_compatible,
    byte_table,
    python_units,
    same_text,
    units_disagreeing,
)
from redecode.job import run
from redecode.rules import RULES
from redecode.schema import SCHEMA_VERSION_KEY

import shared_paths

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_warcs"
TEST_WARCS = ROOT / "tests" / "data" / "warcs"
BENCH = shared_paths.BENCH / "make_bench_warc.py"
CORPUS_WARCS = shared_paths.CORPUS / "warcs"

RULE_NAMES = sorted(RULES)
PAIRS = list(itertools.product(RULE_NAMES, RULE_NAMES))
TIMING = ("wall_seconds", "cpu_seconds")


def _rows(run_dir: Path) -> list[dict]:
    rows: list[dict] = []
    for part in sorted(run_dir.glob("*.parquet")):
        rows += pq.read_table(part).to_pylist()
    return sorted(rows, key=lambda r: (r["warc_path"], r["warc_offset"]))


def _markers(run_dir: Path) -> dict[str, dict]:
    out = {}
    for path in sorted((run_dir / "_done").glob("*.json")):
        marker = json.loads(path.read_text())
        out[path.name] = {k: v for k, v in marker.items() if k not in TIMING}
    return out


def _assert_same_output(got: Path, want: Path, *, inputs_in_order: bool = True) -> None:
    assert sorted(p.name for p in got.glob("*.parquet")) == sorted(p.name for p in want.glob("*.parquet"))
    rows_got, rows_want = _rows(got), _rows(want)
    assert len(rows_got) == len(rows_want)
    for a, b in zip(rows_got, rows_want):
        if a != b:  # name the record and the columns that differ
            diff = {k: (a[k], b[k]) for k in b if a.get(k) != b[k]}
            pytest.fail(f"{b['warc_path']}@{b['warc_offset']} ({b['target_uri']}): {diff}")
    assert _markers(got) == _markers(want)
    m_got = json.loads((got / "_run.json").read_text())
    m_want = json.loads((want / "_run.json").read_text())
    assert m_got["counts"] == m_want["counts"]
    assert m_got["rules"] == m_want["rules"]
    strip = lambda inputs: [{k: v for k, v in e.items()} for e in inputs]  # noqa: E731
    if inputs_in_order:
        assert strip(m_got["inputs"]) == strip(m_want["inputs"])
    else:  # inputs added by separate invocations are listed in the order they were added
        by_path = lambda inputs: sorted(strip(inputs), key=lambda e: e["path"])  # noqa: E731
        assert by_path(m_got["inputs"]) == by_path(m_want["inputs"])


@pytest.fixture(scope="module", params=["sample_warcs", "test_warcs"])
def full_runs(request, tmp_path_factory) -> tuple[str, dict[str, Path]]:
    """A full run of every shipped rule set over one set of archives."""
    src = {"sample_warcs": SAMPLE, "test_warcs": TEST_WARCS}[request.param]
    base = tmp_path_factory.mktemp(f"runs-{request.param}")
    runs = {}
    for name in RULE_NAMES:
        runs[name] = base / name
        run([str(src)], str(runs[name]), rules=name, workers=1)
    return request.param, runs


@pytest.mark.slow
@pytest.mark.parametrize("old,new", PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_backfill_equals_full_run(full_runs, old, new, tmp_path):
    _, runs = full_runs
    out = tmp_path / "bf"
    summary = backfill(str(runs[old]), new, str(out))
    _assert_same_output(out, runs[new])
    s = summary.stats
    assert s["rows"] == s["rows_copied"] + s["rows_reread"] == summary.manifest["counts"]["records_seen"]
    assert 0 <= s["bytes_read"] <= s["bytes_full_run"]
    assert s["prior_rules"]["name"] == old
    if old == new:
        assert (s["rows_reread"], s["bytes_read"]) == (0, 0)
    # A later `run --rules NEW` into the backfilled directory finds every shard complete.
    again = run([str(p["path"]) for p in json.loads((runs[new] / "_run.json").read_text())["inputs"]],
                str(out), rules=new, workers=1)
    assert again.manifest["counts"] == summary.manifest["counts"]
    _assert_same_output(out, runs[new])


def test_backfill_with_workers(full_runs, tmp_path):
    _, runs = full_runs
    out = tmp_path / "bf"
    backfill(str(runs["seed-2026.10"]), "browser-2026.11", str(out), workers=2)
    _assert_same_output(out, runs["browser-2026.11"])


def _downgrade_to_schema_1_0(run_dir: Path) -> None:
    """Rewrite every part as schema 1.0 wrote it: without the replay columns."""
    for part in run_dir.glob("*.parquet"):
        table = pq.read_table(part)
        table = table.drop_columns(["meta_source", "xml_encoding"])
        meta = dict(table.schema.metadata)
        meta[SCHEMA_VERSION_KEY] = b"1.0"
        pq.write_table(table.replace_schema_metadata(meta), part)


def test_prior_schema_1_0_works_by_reading_decoded_rows_again(full_runs, tmp_path):
    _, runs = full_runs
    prior = tmp_path / "prior"
    shutil.copytree(runs["browser-2026.11"], prior)
    _downgrade_to_schema_1_0(prior)
    out = tmp_path / "bf"
    summary = backfill(str(prior), "browser-2026.11", str(out))
    _assert_same_output(out, runs["browser-2026.11"])
    counts = summary.manifest["counts"]
    # Only the rows whose status cannot depend on the rules were copied.
    assert summary.stats["rows_reread"] == counts["decoded"] + counts["by_error_kind"].get("decode", 0)
    assert summary.stats["prior_schema_versions"] == ["1.0"]


def test_refuses_unknown_schema_naming_what_is_missing(full_runs, tmp_path):
    _, runs = full_runs
    prior = tmp_path / "prior"
    shutil.copytree(runs["seed-2026.10"], prior)
    manifest = json.loads((prior / "_run.json").read_text())
    manifest["schema_version"] = "0.3"
    (prior / "_run.json").write_text(json.dumps(manifest))
    with pytest.raises(BackfillError, match="schema version 0.3"):
        backfill(str(prior), "browser-2026.11", str(tmp_path / "bf"))

    shutil.rmtree(prior)
    shutil.copytree(runs["seed-2026.10"], prior)
    part = sorted(prior.glob("*.parquet"))[0]
    table = pq.read_table(part)
    pq.write_table(table.replace_schema_metadata({}), part)
    with pytest.raises(BackfillError, match="redecode.schema_version"):
        backfill(str(prior), "browser-2026.11", str(tmp_path / "bf2"))


def test_refuses_incomplete_prior(full_runs, tmp_path):
    _, runs = full_runs
    prior = tmp_path / "prior"
    shutil.copytree(runs["seed-2026.10"], prior)
    victim = sorted(prior.glob("*.parquet"))[0]
    victim.unlink()
    with pytest.raises(BackfillError, match=victim.name):
        backfill(str(prior), "browser-2026.11", str(tmp_path / "bf"))
    with pytest.raises(BackfillError, match="_run.json"):
        backfill(str(tmp_path), "browser-2026.11", str(tmp_path / "bf"))
    with pytest.raises(BackfillError, match="differ"):
        backfill(str(runs["seed-2026.10"]), "browser-2026.11", str(runs["seed-2026.10"]))


def test_refuses_out_holding_other_rules_unless_force(full_runs, tmp_path):
    """--out is a run directory like run's: another rule set's parts are not overwritten silently."""
    from redecode.job import RunDirectoryConflict
    from redecode_jobs.cli import cli

    _, runs = full_runs
    out = tmp_path / "out"
    shutil.copytree(runs["requests-2.32"], out)
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(RunDirectoryConflict):
        backfill(str(runs["seed-2026.10"]), "browser-2026.11", str(out))
    assert sorted(p.name for p in out.iterdir()) == before
    assert json.loads((out / "_run.json").read_text())["rules"]["name"] == "requests-2.32"
    result = CliRunner().invoke(cli, ["backfill", str(runs["seed-2026.10"]), "--rules", "browser-2026.11",
                                      "--out", str(out)])
    assert result.exit_code == 2 and "--force" in result.output
    result = CliRunner().invoke(cli, ["backfill", str(runs["seed-2026.10"]), "--rules", "browser-2026.11",
                                      "--out", str(out), "--force"])
    assert result.exit_code in (0, 1), result.output
    _assert_same_output(out, runs["browser-2026.11"])


def test_earlier_inputs_of_the_same_rules_stay_listed(tmp_path):
    """Backfilling into a directory that already holds another input's parts (same rules) keeps
    them and lists them in _run.json, as a run that adds archives does."""
    a, b = sorted(SAMPLE.glob("*.warc.gz"))[:2]
    run([str(a)], str(tmp_path / "out"), rules="browser-2026.11", workers=1)
    run([str(b)], str(tmp_path / "prior"), rules="seed-2026.10", workers=1)
    summary = backfill(str(tmp_path / "prior"), "browser-2026.11", str(tmp_path / "out"))
    manifest = json.loads((tmp_path / "out" / "_run.json").read_text())
    assert sorted(e["path"] for e in manifest["inputs"]) == sorted([str(a), str(b)])
    rows = _rows(tmp_path / "out")
    assert manifest["counts"]["records_seen"] == len(rows)
    assert {r["warc_path"] for r in rows} == {str(a), str(b)}
    # the backfill's own figures cover only its inputs
    assert summary.stats["bytes_full_run"] == b.stat().st_size
    # equal to one run over both archives
    run([str(a), str(b)], str(tmp_path / "both"), rules="browser-2026.11", workers=1)
    _assert_same_output(tmp_path / "out", tmp_path / "both", inputs_in_order=False)


def test_only_the_prior_run_s_inputs_are_blamed(tmp_path):
    """An input cut short in an earlier run into --out (not an input of PRIOR_DIR) is no error of
    the backfill: exit 0, a warning that names it as the earlier run's; an input cut short in the
    prior run is its error (exit 1), as the help says."""
    from redecode_jobs.cli import cli

    cut = ROOT / "tests" / "data" / "broken" / "truncated-member.warc.gz"
    good = sorted(SAMPLE.glob("*.warc.gz"))[0]
    out = tmp_path / "out"
    assert run([str(cut)], str(out), rules="browser-2026.11", workers=1).exit_code == 1
    assert run([str(good)], str(tmp_path / "prior"), rules="seed-2026.10", workers=1).exit_code == 0
    result = CliRunner().invoke(cli, ["backfill", str(tmp_path / "prior"), "--rules", "browser-2026.11",
                                      "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"redecode: warning (an earlier run into {out}, not the prior run): {cut}: at offset " in result.stderr
    assert "as in the prior run" not in result.stderr
    # the prior run's own input cut short: its error, exit 1
    assert run([str(cut)], str(tmp_path / "prior2"), rules="seed-2026.10", workers=1).exit_code == 1
    result = CliRunner().invoke(cli, ["backfill", str(tmp_path / "prior2"), "--rules", "browser-2026.11",
                                      "--workers", "1", "--out", str(tmp_path / "out2")])
    assert result.exit_code == 1, result.output
    assert f"redecode: error (as in the prior run): {cut}: at offset " in result.stderr


def test_cli(full_runs, tmp_path):
    from redecode_jobs.cli import cli

    _, runs = full_runs
    result = CliRunner().invoke(cli, ["backfill", str(runs["seed-2026.10"]), "--rules", "seed-2026.10",
                                      "--out", str(tmp_path / "bf"), "--json"])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert doc["backfill"]["rows_reread"] == 0
    assert doc["summary"].startswith("re-read 0 of ")
    assert "% of the bytes a full run reads" in doc["summary"]
    assert (tmp_path / "bf" / "_run.json").exists()


# --- the decoder equivalences -------------------------------------------------------------


def test_single_byte_tables_from_the_decoders():
    # The Encoding Standard's windows-1252 maps every byte; Python's cp1252 leaves 0x81, 0x8D,
    # 0x8F, 0x90, 0x9D unmapped (rules.py, seed step 7).
    w, p = byte_table(("whatwg", "windows-1252")), byte_table(("python", "cp1252"))
    assert w is not None and None not in w and w[0x81] == "\x81"
    assert [b for b in range(256) if p[b] is None] == [0x81, 0x8D, 0x8F, 0x90, 0x9D]
    # Multi-byte and stateful decoders have no byte table, even ISO-2022-JP, whose escapes are
    # three bytes long.
    for name in ("UTF-8", "Shift_JIS", "gb18030", "ISO-2022-JP", "UTF-16LE", "replacement"):
        assert WHATWG_BYTE_TABLES[name] is None, name
    for codec in ("utf-8", "cp932", "utf-16-le", "iso2022_jp", "utf-7"):
        assert byte_table(("python", codec)) is None, codec


def test_same_text_rules():
    cp1252, w1252 = ("python", "cp1252"), ("whatwg", "windows-1252")
    latin1 = ("python", "iso8859-1")
    kw = dict(bom=None, ascii_only=None, same_version=True)
    # Python cp1252 text without errors is the Encoding Standard's windows-1252 text...
    assert same_text(cp1252, w1252, errors=0, **kw)
    # ... but not with errors (U+FFFD for 0x81 where the standard gives U+0081), nor the reverse
    # (a 0x81 the standard decodes is an error for Python).
    assert not same_text(cp1252, w1252, errors=1, **kw)
    assert not same_text(w1252, cp1252, errors=0, **kw)
    # latin-1 differs from windows-1252 in 0x80-0x9F.
    assert not same_text(latin1, w1252, errors=0, **kw)
    assert not same_text(latin1, w1252, errors=0, text="caf\xe9 \x85", **kw)  # U+0085 from 0x85
    assert same_text(latin1, w1252, errors=0, text="caf\xe9", **kw)
    assert same_text(latin1, w1252, errors=0, bom=None, ascii_only=True, same_version=True)
    # Valid UTF-8 is the same text in both UTF-8 decoders, with or without a UTF-8 BOM.
    assert same_text(("python", "utf-8"), ("whatwg", "UTF-8"), errors=0, **kw)
    assert same_text(("python", "utf-8"), ("whatwg", "UTF-8"), errors=0, bom="UTF-8",
                     ascii_only=None, same_version=True)
    assert not same_text(("python", "utf-8"), ("whatwg", "UTF-8"), errors=1, **kw)
    assert not same_text(("python", "utf-8"), ("whatwg", "UTF-8"), errors=0, bom="UTF-16LE",
                         ascii_only=None, same_version=True)
    # Python's multi-byte codecs against the standard's decoders, unit by unit: cp932 and
    # Shift_JIS differ on A0 and FD-FF only (cp932 maps them to private-use U+F8F0-U+F8F3, the
    # standard makes them errors), so a cp932 text without those characters is the Shift_JIS text.
    assert units_disagreeing("cp932", "Shift_JIS") == frozenset("\uf8f0\uf8f1\uf8f2\uf8f3")
    assert same_text(("python", "cp932"), ("whatwg", "Shift_JIS"), errors=0, text="日本語", **kw)
    assert not same_text(("python", "cp932"), ("whatwg", "Shift_JIS"), errors=0, text="x\uf8f0", **kw)
    assert not same_text(("python", "cp932"), ("whatwg", "Shift_JIS"), errors=0, **kw)  # no text given
    # big5hkscs's A1 45 is U+2022, Big5's U+2027.
    assert "\u2022" in units_disagreeing("big5hkscs", "Big5")
    # Codecs with longer units (gb18030's four bytes, euc_jp's three) or modes are not compared.
    for codec in ("gb18030", "euc_jp", "iso2022_jp", "hz", "utf-7"):
        assert python_units(codec) is None, codec
    assert units_disagreeing("gb18030", "gb18030") is None
    assert units_disagreeing("cp932", "ISO-2022-JP") is None
    # ... except on ASCII payloads; ISO-2022-JP and UTF-16 are not ASCII-compatible.
    assert same_text(("python", "cp932"), ("whatwg", "Shift_JIS"), errors=0, bom=None, ascii_only=True,
                     same_version=True)
    assert not ascii_compatible(("whatwg", "ISO-2022-JP"))
    assert not ascii_compatible(("whatwg", "UTF-16LE"))
    assert not ascii_compatible(("python", "utf-7"))
    # The same decoder at another version is not the same decoder.
    assert same_text(w1252, w1252, errors=3, **kw)
    assert not same_text(("whatwg", "Shift_JIS"), ("whatwg", "Shift_JIS"), errors=0, bom=None,
                         ascii_only=None, same_version=False)


# --- larger corpora (skipped when $REDECODE_SHARED, default ../shared, is absent) ----------


@pytest.mark.slow
@pytest.mark.corpus
@pytest.mark.parametrize("old,new", [("seed-2026.10", "browser-2026.11"), ("browser-2026.11", "requests-2.32")])
def test_corpus_warcs(old, new, tmp_path):
    if not CORPUS_WARCS.is_dir():
        pytest.skip(shared_paths.absent(CORPUS_WARCS))
    runs = {}
    for name in {old, new}:
        runs[name] = tmp_path / name
        run([str(CORPUS_WARCS)], str(runs[name]), rules=name, workers=2)
    backfill(str(runs[old]), new, str(tmp_path / "bf"), workers=2)
    _assert_same_output(tmp_path / "bf", runs[new])


@pytest.mark.slow
@pytest.mark.corpus
def test_bench_crawl_seed_to_browser_reads_under_30_percent(tmp_path):
    """Issue 7's target on a small crawl of the benchmark generator (--target-mb 20; the 300 MB
    figure is in docs/backfill.md)."""
    if not BENCH.exists():
        pytest.skip(shared_paths.absent(BENCH))
    warc = tmp_path / "bench.warc.gz"
    subprocess.run([sys.executable, str(BENCH), "--target-mb", "20", "--seed", "20240601", "--out",
                    str(warc), "--truth", str(tmp_path / "truth.jsonl")], check=True, capture_output=True)
    run([str(warc)], str(tmp_path / "seed"), rules="seed-2026.10", workers=2)
    summary = backfill(str(tmp_path / "seed"), "browser-2026.11", str(tmp_path / "bf"), workers=2)
    assert summary.stats["bytes_fraction"] < 0.30, summary.describe()
    run([str(warc)], str(tmp_path / "browser"), rules="browser-2026.11", workers=2)
    _assert_same_output(tmp_path / "bf", tmp_path / "browser")


def test_sharded_prior_keeps_its_shards(tmp_path):
    # Inputs cut into several shards: the parts and markers follow the prior run's cuts, as a run
    # with the same shard size would.
    runs = {}
    for name in ("seed-2026.10", "browser-2026.11"):
        runs[name] = tmp_path / name
        run([str(SAMPLE)], str(runs[name]), rules=name, workers=1, shard_bytes=16 * 1024)
    assert any(p.name.endswith(".0002.parquet") for p in runs["seed-2026.10"].glob("*.parquet"))
    backfill(str(runs["seed-2026.10"]), "browser-2026.11", str(tmp_path / "bf"))
    _assert_same_output(tmp_path / "bf", runs["browser-2026.11"])


def test_detection_reused_only_for_the_same_detector(full_runs):
    import dataclasses

    from redecode.backfill import replay_row
    from redecode.rules import get_rules

    _, runs = full_runs
    browser = get_rules("browser-2026.11")
    rows = [r for r in _rows(runs["browser-2026.11"]) if r["source"] in ("detector", "utf8-valid", "prescan")]
    detected = [r for r in rows if r["source"] == "detector"]
    if not detected:
        pytest.skip("no detector-decided record in these archives")
    for row in rows:
        # Same rules: the replay gives the row back, detection reused.
        assert replay_row(row, browser, browser, replayable=True) == row
    # Another detector setting: the detector's answer is not known, the record is read again;
    # rows not decided by the detector are still replayed.
    other = dataclasses.replace(browser, name="browser-test", detector_min_nonascii=(browser.detector_min_nonascii or 0) + 1)
    for row in rows:
        got = replay_row(row, browser, other, replayable=True)
        if row["source"] == "detector":
            assert got is None
        else:
            assert got is not None and got["encoding"] == row["encoding"] and got["rules"] == "browser-test"


def test_prior_of_other_job_code_is_read_again(full_runs, tmp_path):
    # The record -> row code (status, skips) is versioned apart from the rules: a prior run made by
    # another version of it is read again in full, and the output still equals a full run.
    _, runs = full_runs
    prior = tmp_path / "prior"
    shutil.copytree(runs["seed-2026.10"], prior)
    for marker in (prior / "_done").glob("*.json"):
        doc = json.loads(marker.read_text())
        doc.pop("row_code_version", None)
        marker.write_text(json.dumps(doc))
    summary = backfill(str(prior), "seed-2026.10", str(tmp_path / "bf"))
    assert summary.stats["rows_copied"] == 0
    assert summary.stats["prior_row_code_versions"] == ["None"]
    _assert_same_output(tmp_path / "bf", runs["seed-2026.10"])
