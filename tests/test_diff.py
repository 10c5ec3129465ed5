"""`redecode diff`: categories, matching, mojibake verdicts, external Parquet, CLI, --check.

Runs are hand-built with PartWriter (tests/runs_fixtures.py). Expected mojibake texts are built
with Python codecs from the true text (the page's real encoding), never with the code under test.
"""

from __future__ import annotations

import glob
import json
import os
import shutil

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode.diff import (
    CATEGORIES,
    DiffError,
    DIFF_FILE,
    DIFF_SCHEMA,
    EXCERPT_START,
    ExternalOld,
    compare_texts,
    diff_runs,
    first_difference,
    python_codec,
)
from redecode_jobs.diff_cmd import diff as diff_cmd
from redecode.decode import decode
from runs_fixtures import make_run, row

TRUE = "<p>Grüße aus Köln, naïve café — “quoted”</p>"
# What requests' Response.text gives for UTF-8 bytes served as text/html without charset.
REQUESTS_MOJIBAKE = TRUE.encode("utf-8").decode("latin-1")
# The same bytes through a WHATWG windows-1252 decoder: 0x81, 0x8D, 0x8F, 0x90, 0x9D -> U+0081...
# ("Á" is C3 81 in UTF-8).
TRUE_C1 = "<p>Álvaro Ýmir</p>"
WIN1252_C1 = "".join(
    chr(b) if b in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else bytes([b]).decode("cp1252")
    for b in TRUE_C1.encode("utf-8")
)


def _rows_by_offset(out_dir: str) -> dict[int, dict]:
    table = pq.read_table(os.path.join(out_dir, DIFF_FILE))
    return {r["warc_offset"]: r for r in table.to_pylist()}


@pytest.fixture
def runs(tmp_path):
    """OLD (seed-like Python codecs) and NEW (browser) runs with one record per category."""
    old = make_run(
        str(tmp_path / "old"),
        {
            "a.warc.gz": [
                row(warc_offset=0, text="<p>same</p>"),
                # encoding-changed, mojibake: requests-style latin-1 decode of UTF-8 bytes
                row(warc_offset=100, text=REQUESTS_MOJIBAKE, encoding="windows-1252",
                    source="default", decoder="python:latin-1", host="example.de"),
                # text-changed: same encoding, Python's cp1252 replaced 0x81 where WHATWG maps it
                row(warc_offset=200, text="a\ufffdb", encoding="windows-1252", source="transport",
                    decoder="python:cp1252"),
                # status-changed
                row(warc_offset=300, status="skipped", skip_reason="not-text", text=None),
                # only-old
                row(warc_offset=400, text="<p>gone</p>"),
                # status same, skip reason changed -> status-changed
                row(warc_offset=600, status="skipped", skip_reason="http-status", text=None),
            ]
        },
        rules="seed-2026.10",
    )
    new = make_run(
        str(tmp_path / "new"),
        {
            "a.warc.gz": [
                row(warc_offset=0, text="<p>same</p>"),
                row(warc_offset=100, text=TRUE, encoding="UTF-8", source="utf8-valid",
                    host="example.de"),
                row(warc_offset=200, text="a\x81b", encoding="windows-1252", source="transport"),
                row(warc_offset=300, text="<p>now text</p>"),
                row(warc_offset=500, text="<p>new</p>"),
                row(warc_offset=600, status="skipped", skip_reason="not-text", text=None),
            ]
        },
    )
    return old, new


def test_each_category(runs, tmp_path):
    old, new = runs
    out = str(tmp_path / "d")
    s = diff_runs(old, new, out=out)
    got = {off: r["category"] for off, r in _rows_by_offset(out).items()}
    assert got == {
        0: "unchanged",
        100: "encoding-changed",
        200: "text-changed",
        300: "status-changed",
        400: "only-old",
        500: "only-new",
        600: "status-changed",
    }
    assert s.categories == {
        "unchanged": 1, "encoding-changed": 1, "text-changed": 1, "status-changed": 2,
        "only-old": 1, "only-new": 1,
    }
    assert s.changed == 6 and s.records == 7
    assert s.exit_code(check=True) == 3 and s.exit_code(check=False) == 0


def test_a_side_with_text_has_its_excerpt(runs, tmp_path):
    """A changed record with text on one side only (a status change, only-old, only-new) shows the
    start of that text on its side and nothing on the other, in diff.parquet and the CLI's
    examples; a side without text has none."""
    old, new = runs
    out = str(tmp_path / "d")
    diff_runs(old, new, out=out)
    got = {off: (r["old_excerpt"], r["new_excerpt"], r["diff_offset"]) for off, r in _rows_by_offset(out).items()}
    assert got[300] == (None, "<p>now text</p>", None)  # skipped -> decoded
    assert got[400] == ("<p>gone</p>", None, None)  # only-old
    assert got[500] == (None, "<p>new</p>", None)  # only-new
    assert got[600] == (None, None, None)  # skipped both sides: no text
    # and the other way: decoded -> skipped, the old text's start (EXCERPT_START characters)
    back = str(tmp_path / "back")
    diff_runs(new, old, out=back)
    assert _rows_by_offset(back)[300]["old_excerpt"] == "<p>now text</p>"
    long = "x" * 50 + "\u00e9" * 30
    a = make_run(str(tmp_path / "a"), {"l.warc.gz": [row(warc_offset=0, text=long)]})
    b = make_run(str(tmp_path / "b"), {"l.warc.gz": [
        row(warc_offset=0, status="failed", error_kind="truncated", text=None, error="cut")]})
    diff_runs(a, b, out=str(tmp_path / "ab"))
    assert _rows_by_offset(str(tmp_path / "ab"))[0]["old_excerpt"] == long[:EXCERPT_START]


CLUEWEB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "warcs", "resiliparse",
                       "clueweb-quirk-3.warc.gz")


def test_status_changed_excerpts_of_two_rule_sets(tmp_path):
    """Resiliparse's ClueWeb09 records: the author rules decode them (as identity), the browser
    rules fail them. The diff of the two, either way round, shows the decoded side's text (was
    "(no text)" on the old side)."""
    from redecode.archive import iter_records
    from redecode.diff import diff_rules
    from redecode.row import record_row
    from redecode.rules import get_rules

    texts = {r.offset: record_row(r, get_rules("author-2026.12"))["text"]
             for r in iter_records(CLUEWEB) if r.record_type == "response"}
    assert len(texts) == 3 and all(texts.values())
    for old, new in (("author-2026.12", "browser-2026.11"), ("browser-2026.11", "author-2026.12")):
        out = str(tmp_path / old)
        diff_rules([CLUEWEB], get_rules(old), get_rules(new), out=out, workers=1)
        rows = _rows_by_offset(out)
        assert {r["category"] for r in rows.values()} == {"status-changed"}
        side = "old" if old.startswith("author") else "new"
        other = "new" if side == "old" else "old"
        for offset, r in rows.items():
            assert r[f"{side}_excerpt"] == texts[offset][:EXCERPT_START], (old, offset)
            assert r[f"{other}_excerpt"] is None


def test_check_text_allows_label_only_changes(tmp_path):
    """--check fires on any change; --check-text only when a text (or status, or presence)
    changed: an ASCII page whose label changed from UTF-8 to windows-1252 is the same text."""
    ascii_page = "<p>plain ASCII</p>"
    old = make_run(str(tmp_path / "old"), {"a.warc.gz": [
        row(warc_offset=0, text=ascii_page, encoding="UTF-8", source="default"),
        row(warc_offset=100, text="<p>same</p>"),
    ]})
    new = make_run(str(tmp_path / "new"), {"a.warc.gz": [
        row(warc_offset=0, text=ascii_page, encoding="windows-1252", source="default"),
        row(warc_offset=100, text="<p>same</p>"),
    ]})
    s = diff_runs(old, new)
    assert s.categories["encoding-changed"] == 1 and s.changed == 1
    assert s.label_only == 1 and s.text_changed == 0
    assert s.exit_code(check=True) == 3
    assert s.exit_code(check=False, check_text=True) == 0
    assert CliRunner().invoke(diff_cmd, [old, new, "--check"]).exit_code == 3
    result = CliRunner().invoke(diff_cmd, [old, new, "--check-text"])
    assert result.exit_code == 0, result.output
    assert "1 changed (1 of them only in the encoding label, with the same text)" in result.output
    assert json.loads(CliRunner().invoke(diff_cmd, [old, new, "--json"]).output)["label_only"] == 1


def test_check_text_fires_on_text_changes(runs):
    old, new = runs
    s = diff_runs(old, new)
    # the mojibake record changed encoding AND text: not label-only
    assert s.label_only == 0 and s.text_changed == s.changed == 6
    assert s.exit_code(check=False, check_text=True) == 3
    assert CliRunner().invoke(diff_cmd, [old, new, "--check-text"]).exit_code == 3


def test_changed_record_details(runs, tmp_path):
    old, new = runs
    out = str(tmp_path / "d")
    s = diff_runs(old, new, out=out)
    rows = _rows_by_offset(out)
    moj = rows[100]
    assert (moj["old_encoding"], moj["new_encoding"]) == ("windows-1252", "UTF-8")
    assert (moj["old_source"], moj["new_source"]) == ("default", "utf8-valid")
    assert (moj["old_decode_errors"], moj["new_decode_errors"]) == (0, 0)
    assert moj["mojibake_fixed"] is True and moj["mojibake_check"] == "reencode"
    first = TRUE.index("ü")
    assert moj["diff_offset"] == first
    assert "Gr" in moj["old_excerpt"] and "Ã¼" in moj["old_excerpt"]
    assert "Grüße" in moj["new_excerpt"]
    assert moj["text_equal"] is False

    dec = rows[200]
    assert dec["diff_offset"] == 1 and dec["mojibake_fixed"] is False
    assert (dec["old_decode_errors"], dec["new_decode_errors"]) == (1, 0)
    assert rows[0]["mojibake_fixed"] is None and rows[0]["text_equal"] is True
    assert rows[600]["old_reason"] == "http-status" and rows[600]["new_reason"] == "not-text"

    assert s.mojibake_fixed == 1
    assert s.encoding_transitions == [
        {"old_encoding": "windows-1252", "new_encoding": "UTF-8", "records": 1, "mojibake_fixed": 1}
    ]
    assert {"tld": "de", "records": 1, "changed": 1, "mojibake_fixed": 1} in s.by_tld
    assert {"old_source": "default", "new_source": "utf8-valid", "category": "encoding-changed",
            "records": 1} in s.by_source
    assert s.examples[0]["target_uri"] == "http://example.de/100"


def test_diff_parquet_is_duckdb_queryable(runs, tmp_path):
    old, new = runs
    out = str(tmp_path / "d")
    diff_runs(old, new, out=out)
    path = os.path.join(out, DIFF_FILE)
    got = duckdb.sql(
        f"SELECT category, count(*) FROM '{path}' GROUP BY ALL ORDER BY 1"
    ).fetchall()
    assert dict(got)["status-changed"] == 2
    assert pq.read_schema(path).names == DIFF_SCHEMA.names
    meta = pq.read_metadata(path).metadata
    assert meta[b"redecode.diff_version"] == b"1.1"
    assert not [n for n in os.listdir(out) if n.startswith(".tmp-")]
    summary = json.load(open(os.path.join(out, "_diff.json")))
    assert summary["categories"]["only-new"] == 1


def test_self_diff_all_unchanged(runs, tmp_path):
    _, new = runs
    s = diff_runs(new, new)
    assert s.categories["unchanged"] == s.records == 6
    assert s.changed == 0 and s.exit_code(check=True) == 0
    result = CliRunner().invoke(diff_cmd, [new, new, "--check"])
    assert result.exit_code == 0, result.output
    assert "0 changed" in result.output


def test_record_id_fallback(tmp_path):
    """The same archive read from another path: offsets do not match, record ids do."""
    rows_old = [row("/old/place/a.warc.gz", 0, text="x"), row("/old/place/a.warc.gz", 50, text="y")]
    rows_new = [row("/new/place/a.warc.gz", 0, text="x"), row("/new/place/a.warc.gz", 50, text="z")]
    for r_old, r_new in zip(rows_old, rows_new):
        r_new["record_id"] = r_old["record_id"]
    old = make_run(str(tmp_path / "old"), {"/old/place/a.warc.gz": rows_old})
    new = make_run(str(tmp_path / "new"), {"/new/place/a.warc.gz": rows_new})
    out = str(tmp_path / "d")
    s = diff_runs(old, new, out=out)
    assert s.categories["unchanged"] == 1 and s.categories["text-changed"] == 1
    assert s.categories["only-old"] == s.categories["only-new"] == 0
    table = pq.read_table(os.path.join(out, DIFF_FILE)).to_pylist()
    assert {r["matched_on"] for r in table} == {"record_id"}


def test_record_id_fallback_pairs_only_ids_on_one_row_each_side(tmp_path):
    """NEW read the archive from two folders: its record ids repeat, so which copy pairs with the
    old row is unknown; those rows are not paired (no many-to-many pairs, no made-up changes)."""
    rows_old = [row("/old/a.warc.gz", 0, text="x"), row("/old/a.warc.gz", 50, text="y")]
    copy1 = [row("/new/1/a.warc.gz", 0, text="x"), row("/new/1/a.warc.gz", 50, text="z")]
    copy2 = [row("/new/2/a.warc.gz", 0, text="x"), row("/new/2/a.warc.gz", 50, text="z")]
    for r_old, r1, r2 in zip(rows_old, copy1, copy2):
        r1["record_id"] = r2["record_id"] = r_old["record_id"]
    old = make_run(str(tmp_path / "old"), {"/old/a.warc.gz": rows_old})
    new = make_run(str(tmp_path / "new"), {"/new/1/a.warc.gz": copy1, "/new/2/a.warc.gz": copy2})
    s = diff_runs(old, new)
    assert s.records == 6
    assert s.categories["only-old"] == 2 and s.categories["only-new"] == 4
    assert s.categories["unchanged"] == s.categories["text-changed"] == 0


def test_offset_match_wins_over_record_id(tmp_path):
    # Same (path, offset), different record ids (ids regenerated): still one record.
    old = make_run(str(tmp_path / "old"), {"a.warc.gz": [row(warc_offset=0, record_id="<urn:1>")]})
    new = make_run(str(tmp_path / "new"), {"a.warc.gz": [row(warc_offset=0, record_id="<urn:2>")]})
    s = diff_runs(old, new)
    assert s.categories["unchanged"] == 1 and s.changed == 0


# --------------------------------------------------------------------------------------------
# Text comparison and the mojibake verdict


def test_first_difference():
    assert first_difference("abc", "abc") is None
    assert first_difference("abc", "abd") == 2
    assert first_difference("ab", "abc") == 2
    long = "x" * 10000
    assert first_difference(long + "a", long + "b") == 10000


def test_reencode_with_whatwg_windows_1252_c1():
    # The WHATWG windows-1252 decoder gives U+0081 for byte 0x81, which Python's cp1252 cannot
    # encode; the check must still recover the UTF-8 bytes.
    c = compare_texts(WIN1252_C1, TRUE_C1, old_codecs=[python_codec("whatwg", "windows-1252")],
                      new_decoder="whatwg", new_encoding="UTF-8")
    assert c.mojibake_fixed and c.mojibake_check == "reencode"


def _whatwg_single_byte(data: bytes, codec: str) -> str:
    """A WHATWG single-byte decode built from Python's codec: bytes the codec leaves undefined
    become U+0080..U+009F (windows-1252 index: 0x81 -> U+0081)."""
    return "".join(bytes([b]).decode(codec, errors="ignore") or chr(b) for b in data)


@pytest.mark.parametrize(
    "true, old_codec, encoding, py",
    [
        ("Привет, мир", "cp1251", "KOI8-R", "koi8_r"),  # KOI8-R page read as windows-1251
        ("日本語のページ", "cp1252", "Shift_JIS", "cp932"),  # 0x81 lead bytes: U+0081 in WHATWG
        ("中文网页内容", "latin-1", "GBK", "gbk"),
    ],
)
def test_reencode_legacy(true, old_codec, encoding, py):
    data = true.encode(py)
    old = _whatwg_single_byte(data, old_codec)
    c = compare_texts(old, true, old_codecs=[old_codec], new_decoder="whatwg", new_encoding=encoding)
    assert c.mojibake_fixed and c.mojibake_check == "reencode"


def test_lost_bytes_are_not_recovered_by_reencoding():
    # Python's cp1252 with errors="replace" lost the 0x81 bytes: re-encoding cannot give them back.
    true = "日本語のページ"
    old = true.encode("cp932").decode("cp1252", errors="replace")
    assert "\ufffd" in old
    c = compare_texts(old, true, old_codecs=["cp1252"], new_decoder="whatwg", new_encoding="Shift_JIS")
    assert c.mojibake_check != "reencode"


def test_python_codec_decoder_column():
    assert python_codec("python:cp932", "Shift_JIS") == "cp932"
    assert python_codec("whatwg", "Shift_JIS") == "cp932"
    assert python_codec("whatwg", "GBK") == "gb18030"
    assert python_codec("whatwg", "replacement") is None
    assert python_codec(None, None) is None


def test_ftfy_verdict_when_codec_unknown():
    c = compare_texts(REQUESTS_MOJIBAKE, TRUE, old_codecs=[], new_decoder="whatwg",
                      new_encoding="UTF-8")
    assert c.mojibake_fixed and c.mojibake_check == "ftfy"


def test_not_mojibake():
    c = compare_texts("colour", "color", old_codecs=["cp1252"], new_decoder="whatwg",
                      new_encoding="UTF-8")
    assert not c.mojibake_fixed and c.mojibake_check is None
    assert c.offset == 4 and c.old_excerpt == "colour" and c.new_excerpt == "color"


def test_excerpt_window():
    old = "a" * 100 + "X" + "b" * 100
    new = "a" * 100 + "Y" + "b" * 100
    c = compare_texts(old, new, old_codecs=[], new_decoder="whatwg", new_encoding="UTF-8")
    assert c.offset == 100
    assert c.old_excerpt == "a" * 20 + "X" + "b" * 39
    assert c.new_excerpt == "a" * 20 + "Y" + "b" * 39


# --------------------------------------------------------------------------------------------
# External Parquet (a prior decode made by another tool)


@pytest.fixture
def external(tmp_path):
    new = make_run(
        str(tmp_path / "new"),
        {
            "a.warc.gz": [
                row(warc_offset=0, text="<p>same</p>"),
                row(warc_offset=100, text=TRUE, encoding="UTF-8", source="utf8-valid"),
                row(warc_offset=200, status="skipped", skip_reason="not-text", text=None),
                row(warc_offset=300, text="<p>only new</p>"),
            ]
        },
    )
    ids = {off: f"<urn:uuid:a.warc.gz:{off}>" for off in (0, 100, 200, 300)}
    old_path = str(tmp_path / "requests_pipeline.parquet")
    pq.write_table(
        pa.table(
            {
                "id": [ids[0], ids[100], ids[200], "<urn:uuid:elsewhere>"],
                "body_text": ["<p>same</p>", REQUESTS_MOJIBAKE, "binary as text", "lost"],
                "fetched": ["2019", "2019", "2019", "2019"],
            }
        ),
        old_path,
    )
    return old_path, new


def test_external_parquet(external, tmp_path):
    old_path, new = external
    out = str(tmp_path / "d")
    s = diff_runs(old_path, new, out=out,
                  external=ExternalOld(old_path, key=(("id", "record_id"),), text="body_text"))
    table = pq.read_table(os.path.join(out, DIFF_FILE)).to_pylist()
    by_cat = {}
    for r in table:
        by_cat.setdefault(r["category"], []).append(r)
    assert s.categories == {
        "unchanged": 1, "encoding-changed": 0, "text-changed": 1, "status-changed": 1,
        "only-old": 1, "only-new": 1,
    }
    changed = by_cat["text-changed"][0]
    assert changed["mojibake_fixed"] is True and changed["mojibake_check"] == "reencode"
    assert changed["new_encoding"] == "UTF-8" and changed["old_encoding"] is None
    assert by_cat["only-old"][0]["record_id"] == "<urn:uuid:elsewhere>"
    assert by_cat["only-new"][0]["warc_offset"] == 300


def test_external_cli_and_errors(external):
    old_path, new = external
    runner = CliRunner()
    result = runner.invoke(diff_cmd, [old_path, new, "--old-key", "id:record_id",
                                 "--old-text", "body_text", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["categories"]["text-changed"] == 1 and data["mojibake_fixed"] == 1

    result = runner.invoke(diff_cmd, [old_path, new, "--old-key", "id:record_id",
                                 "--old-text", "nope"])
    assert result.exit_code == 2
    assert "no column nope" in result.output and "--old-text" in result.output


def test_external_with_known_codec(external):
    old_path, new = external
    s = diff_runs(old_path, new, external=ExternalOld(
        old_path, key=(("id", "record_id"),), text="body_text", codec="latin-1"))
    assert s.mojibake_fixed == 1


# --------------------------------------------------------------------------------------------
# CLI


def test_cli_summary_and_check(runs, tmp_path):
    old, new = runs
    out = str(tmp_path / "d")
    result = CliRunner().invoke(diff_cmd, [old, new, "--out", out, "--check"])
    assert result.exit_code == 3, result.output
    assert "windows-1252  UTF-8" in result.output
    assert "encoding-changed" in result.output and "By top-level domain" in result.output
    assert os.path.exists(os.path.join(out, DIFF_FILE))
    result = CliRunner().invoke(diff_cmd, [old, new])
    assert result.exit_code == 0


def test_cli_json(runs):
    old, new = runs
    result = CliRunner().invoke(diff_cmd, [old, new, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data["categories"]) == set(CATEGORIES)
    assert data["changed"] == 6 and data["records"] == 7


def test_cli_usage_errors(runs, tmp_path):
    old, _ = runs
    runner = CliRunner()
    r = runner.invoke(diff_cmd, [old])
    assert r.exit_code == 2 and "give OLD and NEW" in r.output
    r = runner.invoke(diff_cmd, ["--rules", "browser-2026.11", old])
    assert r.exit_code == 2 and "exactly twice" in r.output
    r = runner.invoke(diff_cmd, [old, str(tmp_path / "missing")])
    assert r.exit_code == 2 and "no such run directory" in r.output


def test_refuses_unknown_schema_version(runs, tmp_path):
    old, _ = runs
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    pq.write_table(pa.table({"record_id": ["x"], "text": ["y"]}), str(foreign / "x.parquet"))
    r = CliRunner().invoke(diff_cmd, [old, str(foreign)])
    assert r.exit_code == 2
    assert "redecode.schema_version" in r.output and "x.parquet" in r.output


def test_bom_kept_as_text_by_the_old_decode():
    # requests' latin-1 decode keeps the UTF-8 BOM as three characters; the new text has no BOM.
    data = "\ufeffh\u00e9llo".encode("utf-8")
    old = data.decode("latin-1")
    c = compare_texts(old, "h\u00e9llo", old_codecs=["latin-1"], new_decoder="whatwg",
                      new_encoding="UTF-8")
    assert c.mojibake_fixed and c.mojibake_check == "reencode"


# --------------------------------------------------------------------------------------------
# Two rule sets over the archives, and replay (need the job; skipped until it imports)

SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sample_warcs")


def _job():
    if not os.path.isdir(SAMPLES) or not os.listdir(SAMPLES):
        pytest.skip("sample_warcs/ is empty or absent")
    try:
        from redecode import job
        from redecode.diff import diff_rules
    except ImportError as exc:
        pytest.skip(f"redecode.job not importable yet: {exc}")
    return job, diff_rules


def _expected() -> list[dict]:
    with open(os.path.join(SAMPLES, "expected.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_rules_diff_requests_vs_browser(tmp_path):
    """Issue 6: requests' default garbles the UTF-8 pages declared only in a meta; the browser
    rules fix them, and the diff says it was mojibake."""
    _, diff_rules = _job()
    out = str(tmp_path / "d")
    s = diff_rules([SAMPLES], "requests-2.32", "browser-2026.11", out=out)
    assert s.input_errors == []
    rows = pq.read_table(os.path.join(out, DIFF_FILE)).to_pylist()
    assert s.records == len(rows) == len(_expected())
    assert s.categories["only-old"] == s.categories["only-new"] == 0
    by_uri = {}
    for r in rows:
        if r["new_status"] == "decoded":
            by_uri.setdefault(r["target_uri"], r)
    for case in _expected():
        if case["case"] in ("sina-utf8-meta-only", "wikipedia-utf8-meta"):
            r = by_uri[case["target_uri"]]
            assert r["category"] == "encoding-changed", case["case"]
            assert (r["old_encoding"], r["new_encoding"]) == ("windows-1252", "UTF-8")
            assert r["mojibake_fixed"] is True, case["case"]
    assert s.mojibake_fixed >= 2
    assert any(t["old_encoding"] == "windows-1252" and t["new_encoding"] == "UTF-8"
               for t in s.encoding_transitions)


def test_rules_diff_same_rules_is_unchanged():
    _, diff_rules = _job()
    s = diff_rules([SAMPLES], "browser-2026.11", "browser-2026.11")
    assert s.changed == 0 and s.exit_code(check=True) == 0
    assert s.categories["unchanged"] == len(_expected())


def test_replay_identical_rows_across_runs_and_workers(tmp_path):
    """Issue 6, replay: the same rules on the same bytes give identical rows (every column; the
    rows hold no run timestamps), whatever the worker count."""
    job, _ = _job()
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    job.run([SAMPLES], a, workers=1, quiet=True)
    job.run([SAMPLES], b, workers=2, quiet=True)

    def rows(run):
        files = sorted(f for f in os.listdir(run) if f.endswith(".parquet"))
        table = pa.concat_tables(pq.read_table(os.path.join(run, f)) for f in files)
        return sorted(table.to_pylist(), key=lambda r: (r["warc_path"], r["warc_offset"]))

    assert rows(a) == rows(b)
    s = diff_runs(a, b)
    assert s.changed == 0 and s.records == len(_expected())
    result = CliRunner().invoke(diff_cmd, [a, b, "--check"])
    assert result.exit_code == 0, result.output


def test_rules_diff_cli(tmp_path):
    _job()
    out = str(tmp_path / "d")
    r = CliRunner().invoke(diff_cmd, ["--rules", "requests-2.32", "--rules", "browser-2026.11",
                                      SAMPLES, "--out", out, "--check"])
    assert r.exit_code == 3, r.output
    assert "diff requests-2.32 -> browser-2026.11" in r.output
    assert "windows-1252  UTF-8" in r.output
    assert "https://www.sina.com.cn/" in r.output and "新浪" in r.output  # excerpt, unescaped
    r = CliRunner().invoke(diff_cmd, ["--rules", "nope", "--rules", "browser-2026.11", SAMPLES])
    assert r.exit_code == 2 and "unknown rules 'nope'" in r.output


def test_rules_diff_truncated_archive_exits_1(tmp_path):
    """A cut-short archive keeps the pairs read before the cut, is named, and gives exit 1."""
    _job()
    from redecode.archive import ArchiveError, iter_records

    cut = str(tmp_path / "cut.warc.gz")
    with open(os.path.join(SAMPLES, "sample-crawl-00001.warc.gz"), "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:30000])  # inside the response record at offset 17910
    readable = 0
    with pytest.raises(ArchiveError):
        for record in iter_records(cut):
            readable += record.record_type in ("response", "resource", "revisit")
    assert readable > 0
    r = CliRunner().invoke(diff_cmd, ["--rules", "seed-2026.10", "--rules", "browser-2026.11",
                                      cut, "--json"])
    assert r.exit_code == 1, r.output
    data = json.loads(r.stdout)
    assert [e["path"] for e in data["input_errors"]] == [cut]
    assert data["records"] == readable
    assert "cut.warc.gz: at offset" in r.stderr
    # the text report counts the error; stderr says it, once
    r = CliRunner().invoke(diff_cmd, ["--rules", "seed-2026.10", "--rules", "browser-2026.11", cut])
    assert r.exit_code == 1
    assert "1 input(s) could not be read to the end" in r.stdout and "at offset" not in r.stdout
    assert r.stderr.count("cut.warc.gz: at offset") == 1


def test_external_composite_key(tmp_path):
    new = make_run(str(tmp_path / "new"), {"a.warc.gz": [row(warc_offset=0, text="x"),
                                                         row(warc_offset=9, text="y")]})
    old_path = str(tmp_path / "old.parquet")
    pq.write_table(pa.table({"file": ["a.warc.gz", "a.warc.gz"], "offset": [0, 9],
                             "content": ["x", "z"]}), old_path)
    r = CliRunner().invoke(diff_cmd, [old_path, new, "--old-key", "file:warc_path", "--old-key",
                                      "offset:warc_offset", "--old-text", "content", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["categories"]["unchanged"] == 1 and data["categories"]["text-changed"] == 1


def test_foreign_parquet_without_old_options_takes_the_documented_defaults(tmp_path, runs):
    """--old-key defaults to record_id and --old-text to text (their help): a foreign Parquet
    with those columns needs neither option."""
    _, new = runs
    old_path = str(tmp_path / "old.parquet")
    pq.write_table(pa.table({"record_id": ["x"], "text": ["y"]}), old_path)
    r = CliRunner().invoke(diff_cmd, [old_path, new, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["categories"]["only-old"] == 1
    with_options = CliRunner().invoke(diff_cmd, [old_path, new, "--old-text", "text", "--json"])
    assert json.loads(with_options.output)["categories"] == json.loads(r.output)["categories"]


def test_foreign_parquet_without_the_default_columns_hints(tmp_path, runs):
    _, new = runs
    old_path = str(tmp_path / "old.parquet")
    pq.write_table(pa.table({"id": ["x"], "body": ["y"]}), old_path)
    r = CliRunner().invoke(diff_cmd, [old_path, new])
    assert r.exit_code == 2
    assert "give --old-key and --old-text" in r.output


def test_row_form_agrees_with_run_form(runs, tmp_path):
    """diff_rows (used by the --rules form) and diff_runs give the same diff for the same rows."""
    from redecode.diff import diff_rows

    old, new = runs
    out = str(tmp_path / "d")
    diff_runs(old, new, out=out)
    by_run = {r["warc_offset"]: r for r in pq.read_table(os.path.join(out, DIFF_FILE)).to_pylist()}
    old_rows = {r["warc_offset"]: r for r in _table_rows(old)}
    new_rows = {r["warc_offset"]: r for r in _table_rows(new)}
    both = sorted(set(old_rows) & set(new_rows))
    by_rows = diff_rows([old_rows[o] for o in both], [new_rows[o] for o in both]).to_pylist()
    for r in by_rows:
        assert r == by_run[r["warc_offset"]]


def _table_rows(run: str) -> list[dict]:
    files = sorted(f for f in os.listdir(run) if f.endswith(".parquet"))
    return pa.concat_tables(pq.read_table(os.path.join(run, f)) for f in files).to_pylist()


def test_external_key_shared_by_several_rows_is_refused(tmp_path, runs):
    """A key that names several records would pair every old row with every new one and report
    changes that are not there (found by a fresh user: 948 'records', 12 'changed' for 870 equal
    ones): OLD's or NEW's duplicate keys are a usage error that says which side and what to do."""
    _, new = runs
    new_rows = pq.read_table(glob.glob(os.path.join(new, "*.parquet"))[0],
                             columns=["record_id", "text"]).replace_schema_metadata(None)  # another tool's
    old_path = str(tmp_path / "old.parquet")
    pq.write_table(pa.concat_tables([new_rows, new_rows.slice(0, 1)]), old_path)
    r = CliRunner().invoke(diff_cmd, [old_path, new])
    assert r.exit_code == 2
    assert "OLD" in r.output and "2 rows share 1 record_id value(s)" in r.output and "--old-key" in r.output
    with pytest.raises(DiffError, match="OLD"):
        diff_runs(old_path, new, external=ExternalOld(old_path))
    # NEW holding one archive twice (two folders): its record_ids repeat
    unique_old = str(tmp_path / "unique.parquet")
    pq.write_table(new_rows, unique_old)
    twice = tmp_path / "twice"
    twice.mkdir()
    for part in glob.glob(os.path.join(new, "*.parquet")):
        shutil.copy(part, twice / os.path.basename(part))
        shutil.copy(part, twice / ("copy-" + os.path.basename(part)))
    with pytest.raises(DiffError, match="NEW: .* rows share .* record_id value"):
        diff_runs(unique_old, str(twice), external=ExternalOld(unique_old))
    # keys repeated on one side only where the other side does not have them cannot pair: allowed
    elsewhere = str(tmp_path / "elsewhere.parquet")
    pq.write_table(pa.table({"record_id": ["<urn:uuid:not-in-new>"] * 2, "text": ["a", "b"]}), elsewhere)
    s = diff_runs(elsewhere, str(twice), external=ExternalOld(elsewhere))
    assert s.categories["only-old"] == 2


def test_example_excerpts_keep_the_difference_in_the_text_table():
    """The text table's example cells are cut at their end, never in the middle where the first
    difference is (found by a fresh user: 'RÃ…me' against 'Ré…e')."""
    from redecode.diff import CATEGORIES, DiffSummary, format_summary

    old = "<p>\n\n\n\n\n\n\n\n\n\nLa RÃ©forme des retraites est adoptée par le Parlement"
    new = "<p>\n\n\n\n\n\n\n\n\n\nLa Réforme des retraites est adoptée par le Parlement"
    s = DiffSummary(old="a", new="b", records=1,
                    categories={**dict.fromkeys(CATEGORIES, 0), "encoding-changed": 1}, mojibake_fixed=1,
                    encoding_transitions=[], by_source=[], by_tld=[],
                    examples=[{"category": "encoding-changed", "target_uri": "http://x.fr/",
                               "old_encoding": "windows-1252", "new_encoding": "UTF-8",
                               "mojibake_fixed": True, "old_excerpt": old, "new_excerpt": new}])
    text = format_summary(s)
    assert "La RÃ©forme" in text and "La Réforme" in text


def test_a_reading_that_is_not_better_is_not_a_fix():
    """Two readings of the same bytes are always each other's re-encoding: a wrong override (a
    correct windows-1251 page read as KOI8-U, a correct ISO-8859-2 page read as windows-1250) must
    not count as mojibake fixed (found by a fresh user)."""
    for true, py, old_codec, new_encoding in (
        ("Правительство Москвы объявило о запуске программы", "cp1251", "cp1251", "KOI8-U"),
        ("Vláda ve středu schválila návrh zákona, žádosti, škola", "iso8859_2", "iso8859_2", "windows-1250"),
    ):
        data = true.encode(py)
        wrong = decode(data, new_encoding).text
        c = compare_texts(true, wrong, old_codecs=[old_codec], new_decoder="whatwg", new_encoding=new_encoding)
        assert not c.mojibake_fixed and c.mojibake_check == "reinterpreted", (true, wrong)
