"""Record indexes (issue 26): CDX, CDXJ and Common Crawl's columnar Parquet read into the records a
run reads, per file in offset order (``redecode.index``), and ``run --index`` over them.

What is proved: every index format gives the same selection for the same records (pywb's own
iana.cdx and iana.cdxj; a Common Crawl-shaped CDXJ and Parquet index built by
``tools/make_cc_index.py`` from warcio's indexer); ``--where`` selects through DuckDB before any
archive is opened, confined to the index files; a run from an index gives exactly the rows a full
run gives those records (same record ids, every column), one per index line, and says how many
records were selected, read and missing; a rerun skips what is done and a changed index re-reads
only the files whose records changed (and removes those it no longer names); what selects the
records (the index, --where, --prefix) is the run directory's selection: another one into it is
refused, --force leaves exactly the new selection's records, old markers without it are refused.
"""

from __future__ import annotations

import glob
import gzip
import importlib.util
import json
import os
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode import job
from redecode.index import IndexError_, read_index
from redecode.record import Spans
from redecode_jobs.cli import cli

import shared_paths

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "sample_warcs")
PYWB = shared_paths.CORPUS / "warcs" / "pywb"
_RUN_KEYS = ("started_at", "finished_at", "wall_seconds", "cpu_seconds")


def _tool():
    spec = importlib.util.spec_from_file_location("make_cc_index", ROOT / "tools" / "make_cc_index.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


make_cc_index = _tool()


def _pywb(rel: str) -> str:
    path = PYWB / rel
    if not path.exists():
        pytest.skip(shared_paths.absent(path))
    return str(path)


def _rows(out) -> list[dict]:
    return [r for p in sorted(glob.glob(os.path.join(str(out), "*.parquet"))) for r in pq.read_table(p).to_pylist()]


@pytest.fixture(scope="module")
def sample_full(tmp_path_factory):
    """A full run over sample_warcs: record id -> row."""
    out = tmp_path_factory.mktemp("full") / "out"
    assert job.run([SAMPLE], str(out)).exit_code == 0
    return {r["record_id"]: r for r in _rows(out)}


@pytest.fixture(scope="module")
def cc_index(tmp_path_factory):
    """The sample's records indexed as Common Crawl publishes them: CDXJ (gzip) and Parquet
    (crawl=/subset= folders), file names relative to the sample folder."""
    where = tmp_path_factory.mktemp("index")
    warcs = sorted(glob.glob(os.path.join(SAMPLE, "*.warc.gz")))
    rows = make_cc_index.build(warcs, root=SAMPLE)
    make_cc_index.write_cdxj(rows, str(where / "cc.cdxj.gz"))
    make_cc_index.write_parquet(rows, str(where / "table"))
    return where, rows


# ------------------------------------------------------------------ reading indexes


def test_pywb_cdx_and_cdxj_select_the_same_records():
    cdxj = read_index(_pywb("cdxj/iana.cdxj"), prefix="../warcs/")
    cdx = read_index(_pywb("cdx/iana.cdx"), prefix="../warcs/")
    assert cdxj.files == cdx.files
    ((path, spans),) = cdxj.files
    assert path == os.path.normpath(_pywb("warcs/iana.warc.gz"))
    lines = [json.loads(line.split(" ", 2)[2]) for line in open(_pywb("cdxj/iana.cdxj"))]
    assert list(spans) == sorted((int(d["offset"]), int(d["length"])) for d in lines)
    assert cdxj.entries == cdxj.selected == len(lines) == 171


def test_every_format_gives_the_same_selection(cc_index, tmp_path):
    where, rows = cc_index
    plain = tmp_path / "cc.cdxj"
    plain.write_bytes(gzip.decompress((where / "cc.cdxj.gz").read_bytes()))
    # a CDX 11-field index with its header, as `cdx-indexer` writes one
    cdx = tmp_path / "cc.cdx"
    cdx.write_text(" CDX N b a m s k r M S V g\n" + "".join(
        f"{r['url_surtkey']} 20260101000000 {r['url']} {r['content_mime_type'] or '-'} {r['fetch_status'] or '-'} "
        f"{r['content_digest'] or '-'} - - {r['warc_record_length']} {r['warc_record_offset']} {r['warc_filename']}\n"
        for r in rows))
    selections = [read_index(str(p), prefix=SAMPLE + "/") for p in
                  (where / "cc.cdxj.gz", plain, cdx, where / "table", where)]
    assert all(s.files == selections[0].files for s in selections[1:])
    assert selections[0].selected == len(rows)
    assert selections[-1].entries == 2 * len(rows)  # the folder holds the CDXJ and the table: each record once
    by_file = {p: list(s) for p, s in selections[0].files}
    for r in rows:
        assert (r["warc_record_offset"], r["warc_record_length"]) in by_file[os.path.join(SAMPLE, r["warc_filename"])]


def test_relative_names_are_relative_to_the_index(tmp_path):
    (tmp_path / "idx").mkdir()
    (tmp_path / "idx" / "a.cdxj").write_text(
        'com,x)/ 20260101000000 {"url": "http://x.com/", "offset": "5", "length": "7", "filename": "w/a.warc.gz"}\n'
        'com,x)/ 20260101000000 {"url": "http://x.com/", "offset": "1", "length": "2", "filename": "s3://b/k.warc.gz"}\n'
        'com,x)/ 20260101000000 {"url": "http://x.com/", "offset": "5", "length": "7", "filename": "w/a.warc.gz"}\n')
    ix = read_index(str(tmp_path / "idx" / "a.cdxj"))
    assert [(p, list(s)) for p, s in ix.files] == sorted([("s3://b/k.warc.gz", [(1, 2)]),
                                                          (str(tmp_path / "idx" / "w" / "a.warc.gz"), [(5, 7)])])
    assert (ix.entries, ix.selected) == (3, 2)  # the repeated line is one record
    ix = read_index(str(tmp_path / "idx" / "a.cdxj"), prefix="s3://commoncrawl/")
    assert [p for p, _ in ix.files] == ["s3://commoncrawl/s3://b/k.warc.gz", "s3://commoncrawl/w/a.warc.gz"]


def test_cdx_without_lengths(tmp_path):
    p = tmp_path / "nine.cdx"
    p.write_text("com,x)/ 20260101000000 http://x.com/ text/html 200 AAAA - 300 a.warc.gz\n"
                 "com,x)/b 20260101000000 http://x.com/b text/html 200 AAAA - 100 a.warc.gz\n")
    ((path, spans),) = read_index(str(p)).files
    assert list(spans) == [(100, None), (300, None)]


@pytest.mark.parametrize("text, message", [
    ('!meta 0 {"format": "cdxj-gzip-1.0"}\ncom,x)/ 20201007212236 {"offset": 0, "length": 194}\n', "ZipNum"),
    ("com,x)/ 2020 {\"url\": \"u\", \"offset\": \"1\"}\n", "no \"filename\""),
    ("com,x)/ 2020 {\"filename\": \"a\", \"offset\": \"x1\"}\n", "is not a number"),
    ("com,x)/ 2020 {not json\n", "not a CDXJ line"),
    ("a b c\n", "3 fields where the CDX format has 9 or 11"),
    ("\n\n", "no index line"),
])
def test_unreadable_indexes_say_why(tmp_path, text, message):
    p = tmp_path / "bad.cdxj"
    p.write_text(text)
    with pytest.raises(IndexError_) as ei:
        read_index(str(p))
    assert message in str(ei.value) and str(p) in str(ei.value)


def test_missing_index(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_index(str(tmp_path / "nope.cdxj"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no index file"):
        read_index(str(tmp_path / "empty"))


def test_spans_are_sorted_unique_and_pickle():
    import pickle

    spans = Spans.of([(30, 5), (10, None), (20, 3), (10, 9)])
    assert list(spans) == [(10, None), (20, 3), (30, 5)]
    assert (len(spans), spans.first, spans.end, spans.bytes) == (3, 10, 35, 8)
    assert pickle.loads(pickle.dumps(spans)) == spans and hash(spans) == hash(Spans.of(list(spans)))
    assert list(spans[1:]) == [(20, 3), (30, 5)]
    with pytest.raises(ValueError):
        Spans(spans._offsets[::-1], spans._lengths)


# ------------------------------------------------------------------ --where


def test_where_selects_in_both_formats(cc_index):
    where, rows = cc_index
    condition = "content_mime_type = 'text/html' AND fetch_status = 200 AND url NOT LIKE '%.com/%'"
    expected = sorted((r["warc_filename"], r["warc_record_offset"]) for r in rows
                      if r["content_mime_type"] == "text/html" and r["fetch_status"] == 200 and ".com/" not in r["url"])
    assert 0 < len(expected) < len(rows)
    for source in (where / "cc.cdxj.gz", where / "table"):
        ix = read_index(str(source), where=condition)
        got = sorted((os.path.basename(p), o) for p, s in ix.files for o, _ in s)
        assert got == [(os.path.basename(f), o) for f, o in expected]
        assert ix.entries == len(expected) and ix.where == condition
    # the partition folders are columns
    assert read_index(str(where / "table"), where="crawl = 'CC-MAIN-2026-44' AND subset = 'warc'").selected == len(rows)
    # the CDXJ and the table together name every record twice: each read once
    both = read_index(str(where), prefix=SAMPLE + "/", where="true")
    assert (both.entries, both.selected) == (2 * len(rows), len(rows))
    assert both.files == read_index(str(where / "table"), prefix=SAMPLE + "/").files
    assert read_index(str(where / "table"), where="crawl = 'CC-MAIN-1999-01'").files == ()


@pytest.mark.parametrize("condition, message", [
    ("no_such_column = 1", "no_such_column"),
    ("1 = 1); DROP TABLE x; SELECT (1", "not statements"),
    ("EXISTS (SELECT * FROM read_text('/etc/passwd'))", "/etc/passwd"),
])
def test_where_is_one_condition_over_the_index_only(cc_index, condition, message):
    where, _ = cc_index
    with pytest.raises(IndexError_) as ei:
        read_index(str(where / "table"), where=condition)
    assert message in str(ei.value)


def test_no_duckdb_without_where(cc_index):
    """Reading an index without --where never imports DuckDB (its import costs start-up)."""
    import subprocess

    where, _ = cc_index
    code = ("import sys; from redecode.index import read_index; "
            f"read_index({str(where / 'table')!r}); read_index({str(where / 'cc.cdxj.gz')!r}); "
            "print('duckdb' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------ runs from an index


def test_pywb_iana_one_row_per_index_line(tmp_path):
    """pywb's iana.cdxj over iana.warc.gz: one row per index line, each the full run's row."""
    warc = os.path.normpath(_pywb("warcs/iana.warc.gz"))
    full = tmp_path / "full"
    assert job.run([warc], str(full)).exit_code == 0
    by_id = {r["record_id"]: r for r in _rows(full)}
    out = tmp_path / "out"
    summary = job.run([], str(out), index=read_index(_pywb("cdxj/iana.cdxj"), prefix="../warcs/"))
    rows = _rows(out)
    lines = [json.loads(line.split(" ", 2)[2]) for line in open(_pywb("cdxj/iana.cdxj"))]
    assert len(rows) == len(lines) == 171
    assert sorted(r["warc_offset"] for r in rows) == sorted(int(d["offset"]) for d in lines)
    assert all(by_id[r["record_id"]] == r for r in rows)
    c = summary.counts
    assert (c["selected"], c["read"], c["missing"], c["records_seen"]) == (171, 171, 0, 171)
    # the selection names what selected the records: the index (its absolute path), no --where, the prefix
    assert summary.manifest["selection"] == {"limit": None, "sample": None, "index": True,
                                             "index_paths": [os.path.abspath(_pywb("cdxj/iana.cdxj"))],
                                             "where": None, "prefix": "../warcs/"}
    assert summary.manifest["index"]["entries"] == 171


def test_selected_records_equal_a_full_run(cc_index, sample_full, tmp_path):
    where, rows = cc_index
    picked = [r for r in rows if make_cc_index.selection_key(r) % 4 == 0]  # about a quarter
    part = tmp_path / "part.cdxj"
    make_cc_index.write_cdxj(picked, str(part))
    out = tmp_path / "out"
    summary = job.run([], str(out), index=read_index(str(part), prefix=SAMPLE + "/"), workers=2)
    got = _rows(out)
    assert summary.exit_code == 0 and len(got) == len(picked) > 0
    assert sorted((os.path.basename(r["warc_path"]), r["warc_offset"]) for r in got) == \
        sorted((r["warc_filename"], r["warc_record_offset"]) for r in picked)
    for r in got:
        assert r == sample_full[r["record_id"]]
    assert summary.counts["selected"] == summary.counts["read"] == len(picked)


def test_where_run_equals_the_index_of_the_same_records(cc_index, tmp_path):
    where, rows = cc_index
    condition = "content_languages = 'rus' OR content_charset = 'SHIFT_JIS'"
    picked = [r for r in rows if r["content_languages"] == "rus" or r["content_charset"] == "SHIFT_JIS"]
    assert picked
    part = tmp_path / "picked.cdxj"
    make_cc_index.write_cdxj(picked, str(part))
    a, b = tmp_path / "a", tmp_path / "b"
    job.run([], str(a), index=read_index(str(part), prefix=SAMPLE + "/"))
    job.run([], str(b), index=read_index(str(where / "table"), prefix=SAMPLE + "/", where=condition))
    assert _rows(a) == _rows(b) and len(_rows(a)) == len(picked)


def test_missing_records_and_files_are_counted(tmp_path):
    warc = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")
    rows = make_cc_index.index_rows(warc, warc)
    rows[1] = dict(rows[1], warc_record_offset=rows[1]["warc_record_offset"] + 3)  # no record starts there
    rows.append(dict(rows[0], warc_filename=str(tmp_path / "gone.warc.gz")))
    part = tmp_path / "x.cdxj"
    make_cc_index.write_cdxj(rows, str(part))
    out = tmp_path / "out"
    summary = job.run([], str(out), index=read_index(str(part)))
    c = summary.counts
    assert (c["selected"], c["read"], c["missing"]) == (len(rows), len(rows) - 2, 2)
    assert summary.exit_code == 1
    outcomes = {e["path"]: e["outcome"] for e in summary.manifest["inputs"]}
    assert outcomes == {warc: "damaged", str(tmp_path / "gone.warc.gz"): "error"}
    assert "1 of" in next(e["error"] for e in summary.manifest["inputs"] if e["path"] == warc)


def test_rerun_skips_and_a_changed_index_rereads_only_what_changed(cc_index, tmp_path):
    where, rows = cc_index
    first = [r for r in rows if make_cc_index.selection_key(r) % 3 == 0]
    part = tmp_path / "a.cdxj"
    make_cc_index.write_cdxj(first, str(part))
    out = tmp_path / "out"
    job.run([], str(out), index=read_index(str(part), prefix=SAMPLE + "/"))
    again = job.run([], str(out), index=read_index(str(part), prefix=SAMPLE + "/"))
    assert len(again.resumed) == len({r["warc_filename"] for r in first}) and again.partial == []
    # one more record of one file: only that file is read again
    extra = next(r for r in rows if make_cc_index.selection_key(r) % 3 == 1)
    make_cc_index.write_cdxj(first + [extra], str(part))
    third = job.run([], str(out), index=read_index(str(part), prefix=SAMPLE + "/"))
    assert len(third.resumed) == len(again.resumed) - (extra["warc_filename"] in {r["warc_filename"] for r in first})
    assert len(_rows(out)) == len(first) + 1


def test_a_full_run_directory_refuses_an_index_run(cc_index, tmp_path):
    where, _ = cc_index
    out = tmp_path / "out"
    job.run([os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")], str(out))
    with pytest.raises(job.RunDirectoryConflict, match="--index"):
        job.run([], str(out), index=read_index(str(where / "cc.cdxj.gz"), prefix=SAMPLE + "/"))


def test_cli(cc_index, tmp_path):
    where, rows = cc_index
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", "--index", str(where / "table"), "--prefix", SAMPLE + "/",
                                      "--where", "content_languages = 'rus'", "--out", str(out)])
    n = sum(r["content_languages"] == "rus" for r in rows)
    assert result.exit_code == 0, result.output
    assert f"(index: {n} selected, {n} read, 0 missing from their file)" in result.output
    manifest = json.loads((out / "_run.json").read_text())
    assert manifest["index"]["where"] == "content_languages = 'rus'" and manifest["counts"]["selected"] == n
    for args, message in (([], "give INPUT... (archives to re-decode) or --index"),
                          ([SAMPLE, "--index", str(where / "table")], "not both"),
                          ([SAMPLE, "--where", "1=1"], "--where selects rows of an index"),
                          (["--index", str(where / "table"), "--where", "nope = 2"], "nope"),
                          (["--index", str(tmp_path / "none.cdxj")], "no such file")):
        result = CliRunner().invoke(cli, ["run", *args, "--out", str(tmp_path / "o2")])
        assert result.exit_code == 2 and message in result.output, (args, result.output)


def test_a_folder_of_common_crawl_cdx_shards(cc_index, tmp_path):
    """Common Crawl's CDXJ index is cdx-00000.gz ... beside cluster.idx (a ZipNum index, not read)."""
    where, rows = cc_index
    folder = tmp_path / "indexes"
    folder.mkdir()
    (folder / "cdx-00000.gz").write_bytes((where / "cc.cdxj.gz").read_bytes())
    (folder / "cluster.idx").write_text("com,x)/ 20260101000000\tcdx-00000.gz\t0\t100\t1\n")
    ix = read_index(str(folder), prefix=SAMPLE + "/")
    assert ix.sources == (str(folder / "cdx-00000.gz"),) and ix.selected == len(rows)


# ------------------------------------------------------------------ one selection per run directory


def _cli_run(*args):
    return CliRunner().invoke(cli, ["run", *map(str, args)])


def _by_file(rows: list[dict]) -> dict[str, set]:
    out: dict[str, set] = {}
    for r in rows:
        out.setdefault(r["warc_filename"], set()).add(r["warc_record_offset"])
    return out


def test_another_where_into_the_same_out_is_refused_and_force_replaces(cc_index, tmp_path):
    """Issue 26 (a user's report): a second run with another --where into one --out is refused
    (exit 2, both selections named); with --force the directory holds exactly the new selection's
    records, and _run.json's counts agree with its index."""
    where, rows = cc_index
    table, out = where / "table", tmp_path / "out"
    condition = "content_languages = 'rus'"
    first = _cli_run("--index", table, "--prefix", SAMPLE + "/", "--out", out)
    assert first.exit_code == 0, first.output
    before = sorted((r["warc_path"], r["warc_offset"]) for r in _rows(out))
    assert len(before) == len(rows)
    # the same selection again: nothing to do
    again = _cli_run("--index", table, "--prefix", SAMPLE + "/", "--out", out)
    n_files = len({r["warc_filename"] for r in rows})
    assert again.exit_code == 0 and f"({n_files} already complete, skipped" in again.output, again.output
    # another condition: refused, nothing removed
    refused = _cli_run("--index", table, "--prefix", SAMPLE + "/", "--where", condition, "--out", out)
    assert refused.exit_code == 2, refused.output
    message = " ".join(refused.output.split())
    assert "another record selection" in message and "--force" in message
    assert f'--where "{condition}" here, --index {table} --prefix {SAMPLE}/ there' in message, message
    assert sorted((r["warc_path"], r["warc_offset"]) for r in _rows(out)) == before
    # --force: exactly the new selection's records
    forced = _cli_run("--index", table, "--prefix", SAMPLE + "/", "--where", condition, "--out", out, "--force")
    assert forced.exit_code == 0, forced.output
    picked = [r for r in rows if r["content_languages"] == "rus"]
    got = _rows(out)
    assert sorted((os.path.basename(r["warc_path"]), r["warc_offset"]) for r in got) == \
        sorted((r["warc_filename"], r["warc_record_offset"]) for r in picked)
    manifest = json.loads((out / "_run.json").read_text())
    c = manifest["counts"]
    assert c["selected"] == c["read"] == manifest["index"]["selected"] == c["records_seen"] == len(picked)
    assert manifest["selection"]["where"] == manifest["index"]["where"] == condition
    assert len(manifest["inputs"]) == manifest["index"]["files"]
    # and the same --where once more: nothing to do
    once_more = _cli_run("--index", table, "--prefix", SAMPLE + "/", "--where", condition, "--out", out)
    assert once_more.exit_code == 0 and "already complete, skipped" in once_more.output, once_more.output


def test_conditions_selecting_other_files_do_not_mix(cc_index, tmp_path):
    """Two conditions naming records of different files: the second is refused (the directory
    would otherwise keep the first's files as earlier inputs, rows of both selections)."""
    where, rows = cc_index
    files = sorted({r["warc_filename"] for r in rows})
    out = tmp_path / "out"
    job.run([], str(out), index=read_index(str(where / "table"), prefix=SAMPLE + "/",
                                           where=f"warc_filename = '{files[0]}'"))
    with pytest.raises(job.RunDirectoryConflict, match="record selection"):
        job.run([], str(out), index=read_index(str(where / "table"), prefix=SAMPLE + "/",
                                               where=f"warc_filename = '{files[1]}'"))
    assert {os.path.basename(r["warc_path"]) for r in _rows(out)} == {files[0]}


def test_another_index_or_prefix_is_another_selection(cc_index, tmp_path):
    where, rows = cc_index
    out = tmp_path / "out"
    job.run([], str(out), index=read_index(str(where / "cc.cdxj.gz"), prefix=SAMPLE + "/"))
    # the same records through another index, or the same index under another prefix
    for index in (read_index(str(where / "table"), prefix=SAMPLE + "/"),
                  read_index(str(where / "cc.cdxj.gz"), prefix=os.path.relpath(SAMPLE) + "/")):
        with pytest.raises(job.RunDirectoryConflict, match="record selection"):
            job.run([], str(out), index=index)
    # the same index under another spelling of its path (relative): the same selection
    again = job.run([], str(out), index=read_index(os.path.relpath(where / "cc.cdxj.gz"), prefix=SAMPLE + "/"))
    assert again.partial == [] and len(again.resumed) == len({r["warc_filename"] for r in rows})


def test_markers_of_an_index_run_that_did_not_record_its_index(cc_index, tmp_path):
    """Markers written before the selection named its index (``"index": true`` alone) are read
    (from_json) as an index selection of unknown identity, which no run's selection equals: a run
    into such a directory is refused as another selection, --force replaces its output."""
    from redecode.selection import Selection

    old = {"limit": None, "sample": None, "index": True}
    assert Selection.from_json(old).to_json() == old and Selection.from_json(old).index_paths is None
    assert "not recorded" in Selection.from_json(old).describe()
    where, rows = cc_index
    out = tmp_path / "out"
    index = read_index(str(where / "cc.cdxj.gz"), prefix=SAMPLE + "/")
    job.run([], str(out), index=index)
    for path in glob.glob(str(out / "_done" / "*.json")):
        marker = json.loads(Path(path).read_text())
        marker["selection"] = old
        Path(path).write_text(json.dumps(marker))
    with pytest.raises(job.RunDirectoryConflict, match="not recorded"):
        job.run([], str(out), index=index)
    summary = job.run([], str(out), index=index, force=True)
    assert summary.exit_code == 0 and len(_rows(out)) == len(rows) == summary.counts["selected"]


def test_a_changed_index_removes_the_files_it_no_longer_names(cc_index, tmp_path):
    """The same index whose content changed: a file it no longer names leaves the directory (its
    rows with it); the others are not read again; the counts are the index's."""
    where, rows = cc_index
    files = sorted({r["warc_filename"] for r in rows})
    part, out = tmp_path / "sel.cdxj", tmp_path / "out"
    make_cc_index.write_cdxj(rows, str(part))
    job.run([], str(out), index=read_index(str(part), prefix=SAMPLE + "/"))
    kept = [r for r in rows if r["warc_filename"] != files[0]]
    make_cc_index.write_cdxj(kept, str(part))
    summary = job.run([], str(out), index=read_index(str(part), prefix=SAMPLE + "/"))
    assert summary.dropped == [os.path.join(SAMPLE, files[0])]
    assert len(summary.resumed) == len(files) - 1 and summary.partial == []
    assert _by_file([dict(warc_filename=os.path.basename(r["warc_path"]), warc_record_offset=r["warc_offset"])
                     for r in _rows(out)]) == _by_file(kept)
    c = summary.counts
    assert c["selected"] == summary.manifest["index"]["selected"] == c["records_seen"] == len(kept)
    assert [e["path"] for e in summary.manifest["inputs"]] == [os.path.join(SAMPLE, f) for f in files[1:]]


def test_an_archive_cut_inside_a_selected_record_is_truncated_as_in_a_full_run(tmp_path):
    """The file ends inside a record the index selects: its row (failed or cut short, as a full
    run gives it) and the rows before it are kept, the input's outcome is ``truncated`` and the run
    exits 1 as a full run of the same file does; the spans after it (past the file's end) count as
    missing, so selected = read + missing."""
    source = os.path.join(SAMPLE, "sample-crawl-00002.warc.gz")
    rows = make_cc_index.index_rows(source, source)
    data = open(source, "rb").read()
    cut_at = rows[-3]["warc_record_offset"] + rows[-3]["warc_record_length"] // 2
    warc = tmp_path / "cut.warc.gz"
    warc.write_bytes(data[:cut_at])
    rows = [dict(r, warc_filename=str(warc)) for r in rows]
    index = tmp_path / "cut.cdxj"
    make_cc_index.write_cdxj(rows, str(index))

    full = job.run([str(warc)], str(tmp_path / "full"))
    by_index = job.run([], str(tmp_path / "by_index"), index=read_index(str(index)))
    (entry,) = by_index.manifest["inputs"]
    (full_entry,) = full.manifest["inputs"]
    assert full_entry["outcome"] == entry["outcome"] == "truncated"
    assert full.exit_code == by_index.exit_code == 1
    assert entry["error_offset"] == full_entry["error_offset"] == rows[-3]["warc_record_offset"]
    assert "cut short" in entry["error"]
    c = by_index.counts
    assert (c["selected"], c["read"], c["missing"]) == (len(rows), len(rows) - 2, 2)
    assert _rows(tmp_path / "by_index") == [r for r in _rows(tmp_path / "full")
                                            if r["warc_offset"] <= rows[-3]["warc_record_offset"]]
