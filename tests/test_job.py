"""The job end to end (issue 2): CLI, schema round trip, manifest counts, resume, replay."""

from __future__ import annotations

import glob
import gzip
import json
import os
import shutil

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from warcio.archiveiterator import ArchiveIterator

from redecode import job
from redecode.schema import COLUMNS, REQUIRED_COLUMNS, SCHEMA, SCHEMA_VERSION, SCHEMA_VERSION_KEY
from redecode.rules import DEFAULT_RULES, RULES
from redecode_jobs.cli import cli

import shared_paths

HERE = os.path.dirname(__file__)
WARCS = os.path.join(HERE, "data", "warcs")
GOOD = [
    os.path.join(WARCS, "warcio", name)
    for name in ("example.warc.gz", "example-iana.org-chunked.warc", "example-resource.warc.gz", "example.arc.gz")
] + [os.path.join(WARCS, "jwarc", "cc.warc.gz")]
TRUNCATED = os.path.join(HERE, "data", "broken", "content-length-larger-at-end.warc")
SAMPLE = os.path.join(HERE, "..", "sample_warcs")


def warcio_counts(path: str) -> dict[str, int]:
    """Record types as warcio (independently of this project) reads them."""
    counts: dict[str, int] = {}
    with open(path, "rb") as f:
        for record in ArchiveIterator(f, arc2warc=True):
            counts[record.rec_type] = counts.get(record.rec_type, 0) + 1
    return counts


def rows_of(out: str) -> list[dict]:
    rows = []
    for part in sorted(glob.glob(os.path.join(out, "*.parquet"))):
        rows.extend(pq.read_table(part).to_pylist())
    return rows


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def good_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("run") / "out")
    result = invoke("run", *GOOD, "--out", out, "--workers", "1", "--quiet")
    assert result.exit_code == 0, result.output
    return out


def test_one_row_per_response_resource_revisit(good_run):
    rows = rows_of(good_run)
    expected = 0
    for path in GOOD:
        c = warcio_counts(path)
        expected += c.get("response", 0) + c.get("resource", 0) + c.get("revisit", 0)
    assert len(rows) == expected > 0
    assert {r["status"] for r in rows} <= {"decoded", "skipped", "failed"}


def test_schema_round_trip(good_run):
    parts = glob.glob(os.path.join(good_run, "*.parquet"))
    assert len(parts) == len(GOOD)
    for part in parts:
        meta = pq.read_metadata(part)
        assert meta.metadata[SCHEMA_VERSION_KEY].decode() == SCHEMA_VERSION
        schema = pq.read_schema(part)
        assert schema.names == list(COLUMNS)
        assert schema.names[: len(REQUIRED_COLUMNS)] == list(REQUIRED_COLUMNS)
        for field in SCHEMA:
            assert schema.field(field.name).type == field.type
        assert meta.row_group(0).column(0).compression == "ZSTD"


def test_manifest_counts_reconcile(good_run):
    with open(os.path.join(good_run, "_run.json")) as f:
        manifest = json.load(f)
    rows = rows_of(good_run)
    c = manifest["counts"]
    assert c["records_seen"] == c["decoded"] + c["skipped"] + c["failed"] == len(rows)
    assert c["decoded"] == sum(r["status"] == "decoded" for r in rows)
    assert c["skipped"] == sum(r["status"] == "skipped" for r in rows)
    total_types: dict[str, int] = {}
    for path in GOOD:
        for k, v in warcio_counts(path).items():
            total_types[k] = total_types.get(k, 0) + v
    # warcio calls ARC's file header 'warcinfo' when converting ARC to WARC headers.
    assert c["by_record_type"] == total_types
    assert c["records_total"] == sum(total_types.values())
    assert sorted(e["path"] for e in manifest["inputs"]) == sorted(GOOD)
    for entry in manifest["inputs"]:
        assert entry["outcome"] == "complete"
        assert entry["size"] == os.path.getsize(entry["path"])
        ec = entry["counts"]
        assert ec["records_seen"] == ec["decoded"] + ec["skipped"] + ec["failed"] == entry["rows"]
    assert manifest["rules"]["name"] == DEFAULT_RULES
    assert len(manifest["rules"]["digest"]) == 64
    for dep in ("warcio", "pyarrow", "charset-normalizer", "python"):
        assert manifest["dependencies"][dep]
    assert manifest["wall_seconds"] >= 0 and manifest["cpu_seconds"] >= 0


def test_rows_carry_provenance(good_run):
    rows = [r for r in rows_of(good_run) if r["status"] == "decoded"]
    assert rows
    for r in rows:
        assert r["encoding"] and r["source"] and r["confidence"] in ("certain", "tentative", "irrelevant")
        assert r["rules"] == DEFAULT_RULES and len(r["rules_digest"]) == 64
        assert r["decode_errors"] >= 0 and r["text_length"] == len(r["text"])
        assert not r["text"].startswith("\ufeff")
        assert r["warc_offset"] >= 0 and r["warc_length"] > 0


def test_resume_skips_complete_inputs(tmp_path):
    out = str(tmp_path / "out")
    assert invoke("run", *GOOD[:2], "--out", out, "-q").exit_code == 0
    markers = sorted(glob.glob(os.path.join(out, "_done", "*.json")))
    before = {m: os.stat(m).st_mtime_ns for m in markers}
    # remove one part: only that input is redone
    victim = sorted(glob.glob(os.path.join(out, "*.parquet")))[0]
    os.unlink(victim)
    assert invoke("run", *GOOD[:2], "--out", out, "-q").exit_code == 0
    after = {m: os.stat(m).st_mtime_ns for m in markers}
    changed = [m for m in markers if before[m] != after[m]]
    assert len(changed) == 1 and os.path.exists(victim)
    # --force redoes everything
    assert invoke("run", *GOOD[:2], "--out", out, "-q", "--force").exit_code == 0
    forced = {m: os.stat(m).st_mtime_ns for m in markers}
    assert all(forced[m] != after[m] for m in markers)
    with open(os.path.join(out, "_run.json")) as f:
        manifest = json.load(f)
    assert manifest["counts"]["records_seen"] == len(rows_of(out))


def test_leftover_tmp_files_are_removed(tmp_path):
    out = tmp_path / "out"
    (out / "_done").mkdir(parents=True)
    (out / ".tmp-half.parquet").write_bytes(b"PAR1garbage")
    assert invoke("run", GOOD[0], "--out", str(out), "-q").exit_code == 0
    assert not list(out.glob(".tmp-*"))


def test_truncated_input_keeps_rows_and_exits_1(tmp_path):
    out = str(tmp_path / "out")
    result = CliRunner().invoke(cli, ["run", GOOD[0], TRUNCATED, "--out", out, "-q"])
    assert result.exit_code == 1
    assert TRUNCATED in result.stderr and "offset" in result.stderr
    assert "Traceback" not in result.output
    with open(os.path.join(out, "_run.json")) as f:
        manifest = json.load(f)
    by_path = {e["path"]: e for e in manifest["inputs"]}
    assert by_path[GOOD[0]]["outcome"] == "complete"
    assert by_path[TRUNCATED]["outcome"] == "truncated"
    assert by_path[TRUNCATED]["error_offset"] is not None


def test_json_summary_on_stdout(tmp_path):
    out = str(tmp_path / "out")
    result = invoke("run", GOOD[0], "--out", out, "--json")
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert summary["counts"]["records_seen"] == len(rows_of(out))
    assert summary["rules"] == DEFAULT_RULES


def test_directory_and_glob_inputs(tmp_path):
    src = tmp_path / "in" / "nested"
    src.mkdir(parents=True)
    for path in GOOD[:2]:
        shutil.copy(path, src)
    out1, out2 = str(tmp_path / "o1"), str(tmp_path / "o2")
    assert invoke("run", str(tmp_path / "in"), "--out", out1, "-q").exit_code == 0
    assert invoke("run", str(src / "*.warc*"), "--out", out2, "-q").exit_code == 0
    assert len(rows_of(out1)) == len(rows_of(out2)) > 0


def test_unknown_input_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "nothing-here.warc"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2


def _comparable(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (r["warc_path"], r["warc_offset"]))


def test_replay_same_rows_across_runs_and_worker_counts(tmp_path):
    """Issue 6: the same rules on the same bytes give identical rows, whatever the worker count."""
    inputs = [SAMPLE] + GOOD
    outs = []
    for workers, shard_bytes in ((1, None), (2, None), (2, 64 * 1024)):
        out = str(tmp_path / f"w{workers}-{shard_bytes}")
        job.run(inputs, out, workers=workers, shard_bytes=shard_bytes)
        outs.append(_comparable(rows_of(out)))
    assert outs[0] == outs[1] == outs[2]
    assert len(outs[0]) > 40


def test_shards_cover_exactly_the_records_of_a_file(tmp_path):
    """A file cut into shards gives the rows of the unsharded file, and a rerun with another shard
    size leaves no stale part behind (no record twice in OUT/*.parquet)."""
    big = os.path.join(SAMPLE, "sample-crawl-00000.warc.gz")
    assert len(job.plan_shards(big, shard_bytes=32 * 1024)) > 3
    whole, cut = str(tmp_path / "whole"), str(tmp_path / "cut")
    job.run([big], whole)
    job.run([big], cut, shard_bytes=32 * 1024, workers=2)
    assert _comparable(rows_of(whole)) == _comparable(rows_of(cut))
    job.run([big], cut)  # one shard again, into the same directory
    assert _comparable(rows_of(whole)) == _comparable(rows_of(cut))
    assert len(glob.glob(os.path.join(cut, "*.parquet"))) == 1


CORPUS_WARCS = str(shared_paths.CORPUS / "warcs")


def _corpus_files() -> list[str]:
    if not os.path.isdir(CORPUS_WARCS):
        return []
    found = []
    for root, _, files in os.walk(CORPUS_WARCS):
        for name in files:
            if name.endswith((".warc", ".warc.gz", ".arc", ".arc.gz", ".warc.gz.bad")):
                found.append(os.path.join(root, name))
    return sorted(found)


def _warcio_rows(path: str) -> tuple[int, bool]:
    """(response/resource/revisit records warcio reads, whether warcio stopped with an error)."""
    n = 0
    try:
        with open(path, "rb") as f:
            for record in ArchiveIterator(f, arc2warc=True):
                if record.rec_type in ("response", "resource", "revisit"):
                    n += 1
    except Exception:
        return n, True
    return n, False


#: Files the job reads further than warcio, on purpose -> their copy that warcio reads whole, whose
#: records are the expected ones: ARC records without blank lines between them, read by their
#: declared lengths (issue 18; test_archive.py::test_arc_without_blank_lines_read_by_declared_lengths).
READ_BEYOND_WARCIO = {
    "IAH-20080430204825-00000-blackbook-truncated.arc": "IAH-20080430204825-00000-blackbook-truncated.arc.gz",
}
#: Files whose records span gzip members, read across them (issue 25, item 6;
#: test_records_kept.py::test_record_split_over_gzip_members_is_read): their records are those of
#: the members inflated as one stream.
READ_AS_ONE_STREAM = {"example-wrong-chunks.warc.gz"}


@pytest.mark.corpus
@pytest.mark.skipif(not _corpus_files(), reason=shared_paths.absent(CORPUS_WARCS))
@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: os.path.relpath(p, CORPUS_WARCS))
def test_corpus_archive_rows_match_warcio(path, tmp_path):
    """Issue 2: for every real archive, one row per response/resource/revisit record warcio reads;
    a malformed archive ends with a clear error (file and offset) and exit code 1, no traceback."""
    copy = READ_BEYOND_WARCIO.get(os.path.basename(path))
    if os.path.basename(path) in READ_AS_ONE_STREAM:
        # the oracle: warcio over the file's gzip members inflated as one stream (RFC 1952)
        plain = tmp_path / "inflated.warc"
        plain.write_bytes(gzip.decompress(open(path, "rb").read()))
        expected, copy_failed = _warcio_rows(str(plain))
        assert not copy_failed and _warcio_rows(path)[1]  # warcio stops on the file itself
        warcio_failed = False
    elif copy is not None:
        expected, copy_failed = _warcio_rows(os.path.join(os.path.dirname(path), copy))
        assert not copy_failed and expected > _warcio_rows(path)[0]
        warcio_failed = False
    else:
        expected, warcio_failed = _warcio_rows(path)
    out = str(tmp_path / "out")
    result = CliRunner().invoke(cli, ["run", path, "--out", out, "-q", "--workers", "1"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    rows = rows_of(out)
    if result.exit_code == 1:
        assert path in result.stderr and "offset" in result.stderr
        assert len(rows) >= expected or warcio_failed
    else:
        assert result.exit_code == 0, result.output
        assert not warcio_failed, "warcio failed on a file the job read to its end"
        assert len(rows) == expected


def test_the_refusal_names_the_rule_sets_and_the_first_difference(tmp_path):
    """A run into a directory made with other rules: the message names both rule sets and their
    first difference in a few lines (it listed every differing parameter and version, about 1,500
    characters, for two real rule sets); -v lists every difference."""
    from redecode.rules import get_rules

    out = str(tmp_path / "out")
    assert invoke("run", GOOD[0], "--out", out, "-q").exit_code == 0
    author, browser = get_rules(DEFAULT_RULES), get_rules("browser-2026.11")
    differ = [k for here, there in ((browser.parameters(), author.parameters()),
                                    (browser.versions(), author.versions()))
              for k in set(here) | set(there) if here.get(k) != there.get(k)]
    assert "procedure" in differ and len(differ) > 2
    parts = len(glob.glob(os.path.join(out, "*.parquet")))
    result = CliRunner().invoke(cli, ["run", GOOD[0], "--out", out, "--rules", browser.name])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [  # one line: the command line is right, no Usage: form
        f"redecode: error: {out} holds {parts} part(s) made with other rules: {author.name} ({author.digest[:12]}); "
        f"this run uses {browser.name} ({browser.digest[:12]}). They differ first in procedure (browser "
        f"here, author there), and in {len(differ) - 1} more (-v lists them). Write to another --out, or "
        "add --force to replace them."]
    verbose = CliRunner().invoke(cli, ["run", GOOD[0], "--out", out, "--rules", browser.name, "-v"])
    details = [line for line in verbose.stderr.splitlines() if ": they differ in: " in line]
    assert len(details) == 1 and details[0].startswith(f"redecode: info: {out}: they differ in: procedure (")
    assert sorted(d.split(" (")[0] for d in details[0].split(": they differ in: ")[1].split("; ")) == sorted(differ)


def test_other_rules_into_the_same_directory_is_refused(tmp_path):
    """One --out holds one rule set's output: parts, manifest and queries never mix rules."""
    out = str(tmp_path / "out")
    assert invoke("run", GOOD[0], "--out", out, "-q").exit_code == 0
    result = CliRunner().invoke(cli, ["run", GOOD[0], "--out", out, "-q", "--rules", "seed-2026.10"])
    assert result.exit_code == 2
    assert "other rules" in result.output and "--force" in result.output
    assert {r["rules"] for r in rows_of(out)} == {DEFAULT_RULES}
    # --force replaces them
    assert invoke("run", GOOD[0], "--out", out, "-q", "--rules", "seed-2026.10", "--force").exit_code == 0
    assert {r["rules"] for r in rows_of(out)} == {"seed-2026.10"}


def test_earlier_inputs_stay_in_the_manifest(tmp_path):
    """A nightly run that adds archives to the same --out: the manifest lists every input whose
    rows are in the directory, so rows and manifest reconcile."""
    out = str(tmp_path / "out")
    assert invoke("run", GOOD[0], "--out", out, "-q").exit_code == 0
    assert invoke("run", GOOD[1], "--out", out, "-q").exit_code == 0
    with open(os.path.join(out, "_run.json")) as f:
        manifest = json.load(f)
    assert sorted(e["path"] for e in manifest["inputs"]) == sorted(GOOD[:2])
    assert manifest["counts"]["records_seen"] == len(rows_of(out))


def test_output_inside_an_input_directory_is_not_read_as_input(tmp_path):
    src = tmp_path / "crawl"
    src.mkdir()
    shutil.copy(GOOD[0], src)
    out = str(src / "out")
    for _ in range(2):
        result = invoke("run", str(src), "--out", out, "-q")
        assert result.exit_code == 0, result.output
    with open(os.path.join(out, "_run.json")) as f:
        assert [os.path.basename(e["path"]) for e in json.load(f)["inputs"]] == [os.path.basename(GOOD[0])]


def test_an_unreadable_input_is_an_error_not_a_truncation(tmp_path):
    bogus = tmp_path / "not-an-archive.warc"
    bogus.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    out = str(tmp_path / "out")
    result = CliRunner().invoke(cli, ["run", str(bogus), GOOD[0], "--out", out, "-q"])
    assert result.exit_code == 1
    with open(os.path.join(out, "_run.json")) as f:
        by_path = {e["path"]: e for e in json.load(f)["inputs"]}
    assert by_path[str(bogus)]["outcome"] == "error"
    assert by_path[GOOD[0]]["outcome"] == "complete"


# -- outcome "error" vs "truncated" ------------------------------------------------------------


def _warc_record(rtype: str, body: bytes, *, content_length: bool = True, extra: str = "") -> bytes:
    head = (f"WARC/1.0\r\nWARC-Type: {rtype}\r\nWARC-Record-ID: <urn:uuid:{rtype}-{len(body)}>\r\n"
            f"WARC-Date: 2024-01-01T00:00:00Z\r\n{extra}")
    if rtype == "response":
        head += "WARC-Target-URI: http://example.com/\r\nContent-Type: application/http; msgtype=response\r\n"
    if content_length:
        head += f"Content-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body + b"\r\n\r\n"


_INFO = _warc_record("warcinfo", b"software: test\r\n")
_RESP = _warc_record("response", b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>caf\xc3\xa9</p>")


def _outcome_of(tmp_path, name: str, data: bytes) -> tuple[dict, list[dict]]:
    path = tmp_path / name
    path.write_bytes(data)
    out = str(tmp_path / f"out-{name}")
    result = CliRunner().invoke(cli, ["run", str(path), "--out", out, "-q"])
    with open(os.path.join(out, "_run.json")) as f:
        (entry,) = json.load(f)["inputs"]
    assert result.exit_code == (0 if entry["outcome"] == "complete" else 1)
    return entry, rows_of(out)


def test_outcome_error_for_a_file_gzipped_as_one_stream(tmp_path):
    import gzip

    entry, rows = _outcome_of(tmp_path, "one-stream.warc.gz", gzip.compress(_INFO + _RESP + _RESP))
    assert (entry["outcome"], entry["error_offset"], rows) == ("error", 0, [])
    assert "warcio recompress" in entry["error"]


def test_outcome_error_for_an_unreadable_first_record(tmp_path):
    # a first (and only) record with no Content-Length, and one whose header cannot be read at all
    entry, rows = _outcome_of(tmp_path, "no-length.warc", _warc_record("warcinfo", b"x", content_length=False))
    assert (entry["outcome"], entry["error_offset"], rows) == ("error", 0, [])
    entry, rows = _outcome_of(tmp_path, "bad-head.warc", "WARC/1.0\r\n\u2603: snowman\r\n\r\n".encode())
    assert (entry["outcome"], entry["error_offset"], rows) == ("error", 0, [])
    assert entry["counts"]["by_record_type"] == {job.NO_RECORD_TYPE: 1}


def test_outcome_damaged_when_a_record_follows_an_unreadable_first_record(tmp_path):
    # issue 17, case 7: reading goes on at the next WARC/ line that parses; exit 1 still
    bad = _warc_record("warcinfo", b"x", content_length=False)
    entry, rows = _outcome_of(tmp_path, "no-length.warc", bad + _RESP)
    assert (entry["outcome"], entry["error_offset"]) == ("damaged", 0)
    assert [(r["status"], r["warc_offset"]) for r in rows] == [("decoded", len(bad))]
    assert [(d["offset"], d["length"]) for d in entry["damaged"]] == [(0, len(bad))]
    head = "WARC/1.0\r\n\u2603: snowman\r\n\r\n".encode()
    entry, rows = _outcome_of(tmp_path, "bad-head.warc", head + _RESP)
    assert (entry["outcome"], entry["error_offset"]) == ("damaged", 0)
    assert [(r["status"], r["warc_offset"]) for r in rows] == [("decoded", len(head))]
    assert entry["counts"]["by_record_type"] == {job.NO_RECORD_TYPE: 1, "response": 1}


def test_outcome_truncated_when_rows_came_before_the_damage(tmp_path):
    # damage after a row: truncated, the row kept
    entry, rows = _outcome_of(tmp_path, "late.warc", _RESP + _warc_record("warcinfo", b"x", content_length=False))
    assert entry["outcome"] == "truncated" and entry["error_offset"] > 0
    assert [r["status"] for r in rows] == ["decoded"]
    # a response cut inside the file's first record still gets its failed row: truncated, not error
    entry, rows = _outcome_of(tmp_path, "cut.warc", _RESP[:-20])
    assert entry["outcome"] == "truncated" and entry["error_offset"] == 0
    assert [(r["status"], r["error_kind"]) for r in rows] == [("failed", "truncated")]


@pytest.mark.parametrize("outputs", [{}, {"normalize": "NFC", "graphemes": True}], ids=["plain", "outputs"])
@pytest.mark.parametrize("rules", sorted(RULES))
def test_rows_with_utf8_text_are_the_rows(rules, outputs):
    """process_archive(utf8_text=True), what the Parquet writer is given (lists of values,
    row.record_values), makes the same rows as without, its text carried as UTF-8 bytes
    (writer.TEXT_UTF8_KEY) where the compiled core could
    skip building a str: every column equal once the text is taken from those bytes (the derived
    columns too, with and without the output options)."""
    from redecode.row import as_dict
    from redecode.writer import TEXT_UTF8_KEY

    r = RULES[rules].with_outputs(**outputs)
    for path in sorted(glob.glob(os.path.join(SAMPLE, "*.warc.gz"))):
        plain = list(job.process_archive(path, r))
        fast = [as_dict(values) for values in job.process_archive(path, r, utf8_text=True)]
        assert len(plain) == len(fast)
        for a, b in zip(plain, fast):
            if b["text"] is None and b.get(TEXT_UTF8_KEY) is not None:
                b = dict(b, text=b[TEXT_UTF8_KEY].decode("utf-8"))
            assert {c: a[c] for c in COLUMNS} == {c: b[c] for c in COLUMNS}
