"""`run --sample FRACTION` and `--limit N` (issue 18, item 2): which records a run takes.

The reference is a full run over the same inputs: a sample keeps exactly the row records whose
WARC-Record-ID hashes (SHA-256, first 8 bytes, big-endian) below FRACTION * 2**64, the formula the
docs give; a limit keeps the first N rows in input order (inputs sorted, records by offset).
Neither depends on the worker count or the shard size; both are recorded in the manifest and the
markers, and a run with another selection into the same --out is refused.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode import job
from redecode.query import report
from redecode.rundir import RunDirectoryConflict
from redecode.selection import Selection
from redecode_jobs.cli import cli

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "sample_warcs"))
_KEY = ("warc_path", "warc_offset")


def rows_of(out: str) -> list[dict]:
    rows = []
    for part in sorted(glob.glob(os.path.join(out, "*.parquet"))):
        rows.extend(pq.read_table(part).to_pylist())
    return sorted(rows, key=lambda r: (r["warc_path"], r["warc_offset"]))


def manifest(out: str) -> dict:
    with open(os.path.join(out, "_run.json"), encoding="utf-8") as f:
        return json.load(f)


def in_sample(record_id: str, fraction: float) -> bool:
    # the documented formula, written out here independently of redecode.selection
    return int.from_bytes(hashlib.sha256(record_id.encode()).digest()[:8], "big") < fraction * 2 ** 64


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("full") / "out")
    assert job.run([SAMPLE], out).exit_code == 0
    return rows_of(out), manifest(out)


def test_selection_values_checked():
    for bad in ({"limit": 0}, {"limit": 1.5}, {"sample": 0}, {"sample": 1.01}, {"sample": -0.1}):
        with pytest.raises(ValueError):
            Selection(**bad)
    assert Selection().to_json() is None and Selection.from_json(None).everything
    assert Selection.from_json({"limit": 3, "sample": 0.5}) == Selection(limit=3, sample=0.5)


@pytest.mark.parametrize("fraction", [0.25, 0.5])
def test_sample_keeps_the_records_the_hash_names(full, fraction, tmp_path):
    rows, full_manifest = full
    out = str(tmp_path / "out")
    summary = job.run([SAMPLE], out, selection=Selection(sample=fraction))
    assert summary.exit_code == 0
    got = rows_of(out)
    expected = [r for r in rows if in_sample(r["record_id"], fraction)]
    assert 0 < len(expected) < len(rows)
    assert got == expected  # the same rows, every column
    c = summary.counts
    assert c["records_seen"] == len(expected)
    assert c["records_seen"] + c["not_sampled"] == full_manifest["counts"]["records_seen"]
    assert c["records_total"] == full_manifest["counts"]["records_total"]  # every record is read
    m = manifest(out)
    assert m["selection"] == {"limit": None, "sample": fraction}
    for entry in m["inputs"]:
        assert entry["outcome"] == "complete"


def test_sample_independent_of_workers_and_shards(tmp_path):
    selection = Selection(sample=0.5)
    job.run([SAMPLE], str(tmp_path / "one"), selection=selection, workers=1)
    job.run([SAMPLE], str(tmp_path / "cut"), selection=selection, workers=2, shard_bytes=64 * 1024)
    cut = manifest(str(tmp_path / "cut"))
    assert any(len(e["parts"]) > 1 for e in cut["inputs"])  # the files were cut into shards
    assert rows_of(str(tmp_path / "one")) == rows_of(str(tmp_path / "cut"))


def test_smaller_sample_is_a_subset(tmp_path):
    job.run([SAMPLE], str(tmp_path / "small"), selection=Selection(sample=0.3))
    job.run([SAMPLE], str(tmp_path / "large"), selection=Selection(sample=0.6))
    small = {r["record_id"] for r in rows_of(str(tmp_path / "small"))}
    large = {r["record_id"] for r in rows_of(str(tmp_path / "large"))}
    assert small and small < large


def _first(rows: list[dict], n: int) -> list[dict]:
    # input order: inputs sorted by path (as given), records by offset
    return sorted(rows, key=lambda r: (r["warc_path"], r["warc_offset"]))[:n]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("limit", [1, 7, 12])
def test_limit_takes_the_first_rows_in_input_order(full, limit, workers, tmp_path):
    rows, _ = full
    out = str(tmp_path / "out")
    summary = job.run([SAMPLE], out, selection=Selection(limit=limit), workers=workers, shard_bytes=64 * 1024)
    assert summary.exit_code == 0
    assert rows_of(out) == _first(rows, limit)
    m = manifest(out)
    assert m["counts"]["records_seen"] == limit
    reached = [e["path"] for e in m["inputs"]]
    every = sorted({r["warc_path"] for r in rows})
    assert reached == every[: len(reached)]
    assert m["inputs"][-1]["outcome"] == "limited" and all(e["outcome"] == "complete" for e in m["inputs"][:-1])
    assert all(len(e["parts"]) == 1 for e in m["inputs"])  # one shard per input under a limit
    not_reached = m["selection"]["inputs_not_reached"]
    assert not_reached["count"] == len(every) - len(reached) and not_reached["names"] == every[len(reached):]
    # a limited input did not fail: the standard report lists no failed input
    assert report(out).sections["failed_inputs"].rows == []


def test_limit_after_sample(full, tmp_path):
    rows, _ = full
    out = str(tmp_path / "out")
    job.run([SAMPLE], out, selection=Selection(limit=5, sample=0.5))
    assert rows_of(out) == _first([r for r in rows if in_sample(r["record_id"], 0.5)], 5)


def test_limit_above_the_total_reads_everything(full, tmp_path):
    rows, full_manifest = full
    out = str(tmp_path / "out")
    summary = job.run([SAMPLE], out, selection=Selection(limit=10_000))
    assert rows_of(out) == rows
    assert summary.counts == full_manifest["counts"]
    m = manifest(out)
    assert all(e["outcome"] == "complete" for e in m["inputs"])
    assert m["selection"]["inputs_not_reached"]["count"] == 0


@pytest.mark.parametrize("inputs", [1, 2, 4])
def test_limit_met_at_an_input_s_last_row_reads_it_to_its_end(full, inputs, tmp_path):
    """--limit N where N is the number of rows of the first inputs: the last of them is read to its
    end (the records after its last row, metadata, are read and counted as a full run counts them),
    so it is complete, not limited (was: `--limit 44` on the 44-record sample marked the last input
    limited)."""
    rows, full_manifest = full
    every = [e for e in full_manifest["inputs"]]
    limit = sum(e["rows"] for e in every[:inputs])
    out = str(tmp_path / "out")
    assert job.run([SAMPLE], out, selection=Selection(limit=limit)).exit_code == 0
    m = manifest(out)
    assert [(e["path"], e["outcome"], e["counts"]) for e in m["inputs"]] == [
        (e["path"], "complete", e["counts"]) for e in every[:inputs]]
    assert m["selection"]["inputs_not_reached"]["names"] == [e["path"] for e in every[inputs:]]
    assert rows_of(out) == _first(rows, limit)


def test_rerun_with_the_same_selection_resumes(tmp_path):
    out = str(tmp_path / "out")
    first = job.run([SAMPLE], out, selection=Selection(limit=9))
    stamps = {p: os.stat(p).st_mtime_ns for p in glob.glob(os.path.join(out, "*.parquet"))}
    again = job.run([SAMPLE], out, selection=Selection(limit=9))
    assert again.resumed == sorted(e["path"] for e in first.manifest["inputs"])
    assert {p: os.stat(p).st_mtime_ns for p in glob.glob(os.path.join(out, "*.parquet"))} == stamps
    assert again.counts == first.counts


@pytest.mark.parametrize("first, second", [
    (Selection(limit=9), Selection(limit=12)),
    (Selection(limit=9), Selection()),
    (Selection(), Selection(sample=0.5)),
    (Selection(sample=0.5), Selection(sample=0.25)),
])
def test_another_selection_into_the_same_out_is_refused(first, second, full, tmp_path):
    out = str(tmp_path / "out")
    job.run([SAMPLE], out, selection=first)
    before = rows_of(out)
    with pytest.raises(RunDirectoryConflict) as info:
        job.run([SAMPLE], out, selection=second)
    assert "record selection" in str(info.value) and "--force" in str(info.value)
    assert rows_of(out) == before  # nothing written
    summary = job.run([SAMPLE], out, selection=second, force=True)
    rows, _ = full
    kept = [r for r in rows if second.sample is None or in_sample(r["record_id"], second.sample)]
    assert rows_of(out) == (_first(kept, second.limit) if second.limit else kept)
    recorded = dict(summary.manifest["selection"] or {})
    recorded.pop("inputs_not_reached", None)
    assert (recorded or None) == second.to_json()


def test_cli_limit_and_sample(tmp_path):
    out = str(tmp_path / "out")
    result = CliRunner().invoke(cli, ["run", SAMPLE, "--out", out, "--limit", "4", "--sample", "0.5"])
    assert result.exit_code == 0, result.output
    assert "4 records" in result.stderr and "not reached" in result.stderr
    assert manifest(out)["selection"]["limit"] == 4 and manifest(out)["selection"]["sample"] == 0.5
    again = CliRunner().invoke(cli, ["run", SAMPLE, "--out", out, "--limit", "5"])
    assert again.exit_code == 2
    assert "another record selection" in again.output
    assert "They differ first in record selection (--limit 5 here, --sample 0.5 --limit 4 there)." in again.output
    # the same rules: said once, not as if they differed
    from redecode.rules import DEFAULT_RULES, get_rules

    rules = get_rules(DEFAULT_RULES)
    parts = len(glob.glob(os.path.join(out, "*.parquet")))
    assert f"holds {parts} part(s) made with another record selection, under this run's rules too " \
           f"({rules.name} ({rules.digest[:12]}))." in " ".join(again.output.split())
    for bad in (["--limit", "0"], ["--sample", "0"], ["--sample", "1.5"]):
        result = CliRunner().invoke(cli, ["run", SAMPLE, "--out", str(tmp_path / "x"), *bad])
        assert result.exit_code == 2, (bad, result.output)


def test_the_closing_line_counts_every_input(tmp_path):
    """--limit over several inputs: the closing line says how many inputs were read of how many,
    and how many --limit left unread (was "1 inputs, ... (3 inputs not reached (--limit))")."""
    from redecode.inputs import iter_inputs

    inputs = iter_inputs([SAMPLE])
    out = str(tmp_path / "out")
    result = CliRunner().invoke(cli, ["run", SAMPLE, "--out", out, "--limit", "2", "--workers", "1"])
    assert result.exit_code == 0, result.output
    m = manifest(out)
    read, unreached = len(m["inputs"]), m["selection"]["inputs_not_reached"]["count"]
    assert read + unreached == len(inputs) and unreached > 0
    c = m["counts"]
    assert result.stderr.splitlines()[-1] == (
        f"{read} of {len(inputs)} inputs read (--limit 2: the other {unreached} not reached), "
        f"{c['records_seen']} records: {c['decoded']} decoded, {c['skipped']} skipped, {c['failed']} failed -> {out}")
    again = CliRunner().invoke(cli, ["run", SAMPLE, "--out", out, "--limit", "2", "--workers", "1"])
    assert again.stderr.splitlines()[-1].startswith(
        f"{read} of {len(inputs)} inputs read (--limit 2: the other {unreached} not reached; "
        f"{read} already complete, skipped; --force redoes them), ")
