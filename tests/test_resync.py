"""Resync after damage (issue 17, case 7).

Every record of a ``.warc.gz`` is its own gzip member (ISO 28500 annex D), so one damaged member
costs that record only: the member is recorded in the input's ``damaged`` list (offset, length,
error), reading goes on at the next member that starts a valid record, the exit code is still 1,
and the counts reconcile. For an uncompressed WARC reading goes on at the next ``WARC/<version>``
line that parses as a record header.

Expected values come from the undamaged file (the clean run's rows and the record offsets that
warcio gives), never from the code under test."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode.archive import ArchiveError, iter_records
from redecode.job import run
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_warcs" / "sample-crawl-00000.warc.gz"
KEY = ("warc_offset", "record_id", "status", "error_kind", "encoding", "text")


def _rows(out: Path) -> list[tuple]:
    rows = []
    for part in sorted(out.glob("*.parquet")):
        rows.extend(tuple(r[k] for k in KEY) for r in pq.read_table(part, columns=list(KEY)).to_pylist())
    return sorted(rows, key=lambda r: r[0])


def _members(path: Path) -> list[tuple[int, int]]:
    """(offset, length) of every gzip member (= record) of an undamaged file, as warcio indexes it."""
    from warcio.archiveiterator import ArchiveIterator  # the reference: warcio's own indexer

    spans = []
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh)
        for record in it:
            it.read_to_end(record)
            spans.append(it.member_info)
    return spans


def _flip(src: Path, dst: Path, positions: list[int]) -> None:
    data = bytearray(src.read_bytes())
    for p in positions:
        data[p] ^= 0xFF
    dst.write_bytes(bytes(data))


def _reconciles(manifest: dict, out: Path) -> None:
    counts = manifest["counts"]
    assert counts["records_seen"] == counts["decoded"] + counts["skipped"] + counts["failed"]
    assert counts["records_seen"] == sum(pq.read_metadata(p).num_rows for p in out.glob("*.parquet"))


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, Path, list[tuple[int, int]]]:
    """A .warc.gz of a few hundred members (the sample crawls concatenated: gzip members
    concatenate), its clean run directory, and its members."""
    d = tmp_path_factory.mktemp("big")
    path = d / "big.warc.gz"
    data = b"".join(p.read_bytes() for p in sorted((ROOT / "sample_warcs").glob("*.warc.gz")))
    path.write_bytes(data * 4)
    clean = d / "clean"
    summary = run([str(path)], str(clean), shard_bytes=256 * 1024)
    assert summary.exit_code == 0
    return path, clean, _members(path)


def _member_of(members: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    return next((o, n) for o, n in members if o <= pos < o + n)


def test_one_damaged_member_costs_its_record_only(big, tmp_path):
    path, clean, members = big
    offset, length = members[len(members) * 5 // 8]  # "a byte flipped at 40 MB of a 64 MB WARC"
    damaged = tmp_path / "damaged.warc.gz"
    _flip(path, damaged, [offset + length // 2])
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", str(damaged), "--out", str(out), "-q"])
    assert result.exit_code == 1, result.output
    assert f"at offset {offset}" in result.output
    manifest = json.loads((out / "_run.json").read_text())
    (entry,) = manifest["inputs"]
    assert entry["outcome"] == "damaged"
    assert entry["error_offset"] == offset
    assert [(d["offset"], d["length"]) for d in entry["damaged"]] == [(offset, length)]
    assert "damaged gzip member" in entry["damaged"][0]["error"]
    # every other record is read, as in the clean run
    assert [r for r in _rows(out) if r[0] != offset] == [r for r in _rows(clean) if r[0] != offset]
    _reconciles(manifest, out)


def test_one_damaged_member_with_shards(big, tmp_path):
    """The same with the file cut into shards (the damaged one, and the input, are read again
    whole: rows never depend on how the file was cut)."""
    path, clean, members = big
    offset, length = members[len(members) // 3]
    damaged = tmp_path / "damaged.warc.gz"
    _flip(path, damaged, [offset + length // 2])
    out = tmp_path / "out"
    summary = run([str(damaged)], str(out), shard_bytes=256 * 1024, workers=2)
    assert summary.exit_code == 1
    (entry,) = summary.manifest["inputs"]
    assert [(d["offset"], d["length"]) for d in entry["damaged"]] == [(offset, length)]
    assert [r for r in _rows(out) if r[0] != offset] == [r for r in _rows(clean) if r[0] != offset]
    _reconciles(summary.manifest, out)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_random_flips_cost_only_the_members_they_hit(big, tmp_path, seed):
    """Up to three bytes flipped anywhere (gzip header, deflate data, trailer): the records of the
    members not hit are read exactly as in the clean run; each member hit is a damaged stretch or
    a row of its own (a member whose WARC header still inflates gets a failed row); counts reconcile."""
    path, clean, members = big
    rng = random.Random(seed)
    size = path.stat().st_size
    positions = sorted(rng.randrange(size) for _ in range(rng.randint(1, 3)))
    hit = {_member_of(members, p) for p in positions}
    damaged = tmp_path / "damaged.warc.gz"
    _flip(path, damaged, positions)
    out = tmp_path / "out"
    summary = run([str(damaged)], str(out))
    (entry,) = summary.manifest["inputs"]
    hit_offsets = {o for o, _ in hit}
    got = _rows(out)
    assert [r for r in got if r[0] not in hit_offsets] == [r for r in _rows(clean) if r[0] not in hit_offsets]
    for d in entry["damaged"]:
        # a damaged stretch starts at a member that was hit and ends at a member start
        assert d["offset"] in hit_offsets, (positions, entry["damaged"])
        assert d["offset"] + d["length"] in {o for o, _ in members}
    _reconciles(summary.manifest, out)
    if entry["outcome"] != "complete":
        assert summary.exit_code == 1


def test_damaged_members_first_and_last(big, tmp_path):
    """The first member damaged: the rest is read. The last member damaged: nothing follows it,
    so the input is cut short there (truncated), the earlier damage still listed."""
    path, clean, members = big
    (first, first_len), (last, last_len) = members[0], members[-1]
    damaged = tmp_path / "damaged.warc.gz"
    _flip(path, damaged, [first + first_len // 2, last + last_len // 2])
    out = tmp_path / "out"
    summary = run([str(damaged)], str(out))
    assert summary.exit_code == 1
    (entry,) = summary.manifest["inputs"]
    assert entry["outcome"] == "truncated"
    assert entry["damaged"][0]["offset"] == first
    assert entry["damaged"][0]["length"] == first_len
    assert [r for r in _rows(out) if r[0] not in (first, last)] == [
        r for r in _rows(clean) if r[0] not in (first, last)]
    _reconciles(summary.manifest, out)


@pytest.mark.parametrize("mode", ["auto", "warcio"])  # (fastwarc: unchecked, for benchmarks)
def test_library_resync_same_with_every_reader(tmp_path, mode):
    spans = _members(SAMPLE)
    offset, length = spans[len(spans) // 2]
    damaged = tmp_path / "damaged.warc.gz"
    _flip(SAMPLE, damaged, [offset + length // 2])
    with pytest.raises(ArchiveError) as raised:  # without resync: the reading stops there
        list(iter_records(damaged, reader=mode))
    assert raised.value.offset == offset
    stream = iter_records(damaged, reader=mode, resync=True)
    assert [r.offset for r in stream] == [o for o, _ in spans if o != offset]
    assert [(d.offset, d.length) for d in stream.damaged] == [(offset, length)]


# ------------------------------------------------------------------------------------------------
# uncompressed WARC


def _record(rtype: str, body: bytes, uri: str = "http://example.com/") -> bytes:
    head = (f"WARC/1.0\r\nWARC-Type: {rtype}\r\nWARC-Record-ID: <urn:uuid:{rtype}-{len(body)}-{uri}>\r\n"
            f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: {uri}\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode() + body + b"\r\n\r\n"


def _response(n: int) -> bytes:
    return _record("response", f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page {n}</p>".encode(),
                   f"http://example.com/{n}")


@pytest.mark.parametrize("junk", [
    b"garbage line\r\n",  # a line that is not a record between two records
    b"WARC/1.0\r\nno colon here\r\n\r\n",  # a header that does not parse
    b"\x00" * 1000 + b"\r\n",  # binary damage
])
def test_uncompressed_goes_on_at_the_next_warc_line(tmp_path, junk):
    recs = [_response(i) for i in range(3)]
    data = recs[0] + junk + recs[1] + recs[2]
    path = tmp_path / "damaged.warc"
    path.write_bytes(data)
    out = tmp_path / "out"
    summary = run([str(path)], str(out))
    assert summary.exit_code == 1
    (entry,) = summary.manifest["inputs"]
    assert entry["outcome"] == "damaged"
    second = len(recs[0]) + len(junk)
    assert [(d["offset"], d["offset"] + d["length"]) for d in entry["damaged"]] == [(len(recs[0]), second)]
    assert [(r[0], r[2]) for r in _rows(out)] == [(0, "decoded"), (second, "decoded"),
                                                   (second + len(recs[1]), "decoded")]
    _reconciles(summary.manifest, out)


def test_uncompressed_record_glued_to_garbage_is_found(tmp_path):
    """Garbage need not end in a line break: the WARC/1.0 version line right after it starts the
    next record."""
    recs = [_response(i) for i in range(2)]
    path = tmp_path / "glued.warc"
    path.write_bytes(recs[0] + b"\xff\xfegarbage" + recs[1])
    summary = run([str(path)], str(tmp_path / "out"))
    (entry,) = summary.manifest["inputs"]
    assert entry["outcome"] == "damaged"
    assert [(d["offset"], d["length"]) for d in entry["damaged"]] == [(len(recs[0]), 9)]
    assert [(r[0], r[2]) for r in _rows(tmp_path / "out")] == [(0, "decoded"), (len(recs[0]) + 9, "decoded")]


def test_uncompressed_warc_in_a_damaged_stretch_that_does_not_parse_is_passed_over(tmp_path):
    """A version line in the garbage whose record cannot be read (warcio takes its header, but it
    has no Content-Length) is damage too: the stretches run on to the real record after it."""
    recs = [_response(i) for i in range(2)]
    junk = b"garbage WARC/1.0\r\nthis is not a header\r\n\r\n"
    path = tmp_path / "fake.warc"
    path.write_bytes(recs[0] + junk + recs[1])
    summary = run([str(path)], str(tmp_path / "out"))
    (entry,) = summary.manifest["inputs"]
    stretches = [(d["offset"], d["offset"] + d["length"]) for d in entry["damaged"]]
    assert stretches[0][0] == len(recs[0]) and stretches[-1][1] == len(recs[0]) + len(junk)
    assert all(a[1] == b[0] for a, b in zip(stretches, stretches[1:]))  # one after the other
    assert [(r[0], r[2]) for r in _rows(tmp_path / "out")] == [(0, "decoded"), (len(recs[0]) + len(junk), "decoded")]
    _reconciles(summary.manifest, tmp_path / "out")


def test_a_record_swallowed_by_a_wrong_content_length_is_read_on_its_own(tmp_path):
    """Record 0's Content-Length runs 100 bytes into record 1: record 0 fails (truncated), record 1
    is read from its own offset (a damaged entry of length 0 names it), record 2 as usual."""
    recs = [_response(i) for i in range(3)]
    head, rest = recs[0].split(b"\r\n\r\n", 1)
    length = len(rest) - 4
    first = head.replace(f"Content-Length: {length}".encode(), f"Content-Length: {length + 100}".encode())
    first += b"\r\n\r\n" + rest
    path = tmp_path / "swallow.warc"
    path.write_bytes(first + recs[1] + recs[2])
    out = tmp_path / "out"
    summary = run([str(path)], str(out))
    assert summary.exit_code == 1
    (entry,) = summary.manifest["inputs"]
    assert entry["outcome"] == "damaged"
    assert [(d["offset"], d["length"]) for d in entry["damaged"]] == [(len(first), 0)]
    assert [(r[0], r[2], r[3]) for r in _rows(out)] == [
        (0, "failed", "truncated"), (len(first), "decoded", None), (len(first) + len(recs[1]), "decoded", None)]
    _reconciles(summary.manifest, out)


def test_a_swallowed_record_s_message_says_what_happened(tmp_path):
    """The input's error says once what became of the reading: it went on at the swallowed record,
    with nothing skipped (was "...; reading stops; 0 bytes skipped, reading went on at offset N")."""
    recs = [_response(i) for i in range(2)]
    head, rest = recs[0].split(b"\r\n\r\n", 1)
    length = len(rest) - 4
    first = head.replace(f"Content-Length: {length}".encode(), f"Content-Length: {length + 100}".encode())
    first += b"\r\n\r\n" + rest
    path = tmp_path / "swallow.warc"
    path.write_bytes(first + recs[1])
    (entry,) = run([str(path)], str(tmp_path / "out")).manifest["inputs"]
    assert entry["error"] == (
        f"{path}: at offset {len(first)}: a record here is inside the block of the record at offset 0, "
        f"whose Content-Length ({length + 100}) runs past its end; reading went on at this record, "
        "no byte skipped")


def test_diff_rules_reads_past_damage_as_run_does(tmp_path):
    """diff --rules compares the records a run reads: those after a damaged member too; the input
    is listed in input_errors (exit 1)."""
    from redecode.diff import diff_rules

    spans = _members(SAMPLE)
    offset, length = spans[len(spans) // 2]
    damaged = tmp_path / "damaged.warc.gz"
    _flip(SAMPLE, damaged, [offset + length // 2])
    summary = diff_rules([str(damaged)], "browser-2026.11", "author-2026.12")
    ran = run([str(damaged)], str(tmp_path / "out"))
    assert summary.exit_code(check=False) == 1
    assert [e["path"] for e in summary.input_errors] == [str(damaged)]
    assert f"at offset {offset}" in summary.input_errors[0]["error"]
    assert summary.records == ran.manifest["counts"]["records_seen"]
    rows_before = sum(r.offset < offset and r.record_type in ("response", "resource", "revisit")
                      for r in iter_records(SAMPLE))
    assert summary.records > rows_before  # the records after the damage are compared too


# ------------------------------------------------------------------------------------------------
# with the selections and inputs of issue 18: --limit, --sample, .warc.lz4


def test_limit_reads_past_damage_and_stops_at_the_limit(big, tmp_path):
    """--limit N over an input damaged before its Nth row: the rows are the first N rows of the
    same input read without a limit (damage passed over), the damage is listed and the outcome is
    ``damaged`` (an error, exit 1), and the next run with the same limit reads it again."""
    path, clean, members = big
    offset, length = members[10]
    damaged = tmp_path / "damaged.warc.gz"
    _flip(path, damaged, [offset + length // 2])
    full = tmp_path / "full"
    assert run([str(damaged)], str(full)).exit_code == 1
    assert [r for r in _rows(full) if r[0] != offset] == [r for r in _rows(clean) if r[0] != offset]
    limit = 60
    out = tmp_path / "out"
    args = ["run", str(damaged), "--out", str(out), "--limit", str(limit), "-q"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    manifest = json.loads((out / "_run.json").read_text())
    (entry,) = manifest["inputs"]
    assert entry["outcome"] == "damaged"
    assert [(d["offset"], d["length"]) for d in entry["damaged"]] == [(offset, length)]
    assert _rows(out) == _rows(full)[:limit]
    _reconciles(manifest, out)
    again = CliRunner().invoke(cli, args[:-1])
    assert again.exit_code == 1
    assert "1 cut short, damaged or unreadable before, read again" in again.stderr
    assert _rows(out) == _rows(full)[:limit]


def test_sample_reads_past_damage(big, tmp_path):
    """--sample over a damaged input: the sampled rows of every record the damage did not hit are
    those of the clean input's sample."""
    path, clean, members = big
    offset, length = members[len(members) // 2]
    damaged = tmp_path / "damaged.warc.gz"
    _flip(path, damaged, [offset + length // 2])
    outs = {}
    for name, src in (("clean", path), ("damaged", damaged)):
        outs[name] = tmp_path / name
        result = CliRunner().invoke(cli, ["run", str(src), "--out", str(outs[name]), "--sample", "0.5", "-q"])
        assert result.exit_code == (1 if name == "damaged" else 0), result.output
    (entry,) = json.loads((outs["damaged"] / "_run.json").read_text())["inputs"]
    assert entry["outcome"] == "damaged"
    assert [(d["offset"], d["length"]) for d in entry["damaged"]] == [(offset, length)]
    sampled = _rows(outs["clean"])
    assert 0 < len(sampled) < len(_rows(clean))
    assert [r for r in _rows(outs["damaged"]) if r[0] != offset] == [r for r in sampled if r[0] != offset]


def test_lz4_damaged_frame_costs_its_record_only(tmp_path):
    """A .warc.lz4 (one LZ4 frame per record) whose frame header is damaged: reading goes on at
    the next frame FastWARC reads a record from. Offsets are frame starts, as FastWARC reads the
    undamaged file. (LZ4 frames carry no mandatory checksum: a flipped byte inside the compressed
    data may inflate to other bytes without an error; that is not detectable damage.)"""
    from test_lz4 import recompress

    lz4 = Path(recompress(str(SAMPLE), str(tmp_path / "clean.warc.lz4")))
    offsets = [r.offset for r in iter_records(lz4)]
    index = len(offsets) // 2
    offset, next_offset = offsets[index], offsets[index + 1]
    damaged = tmp_path / "damaged.warc.lz4"
    _flip(lz4, damaged, [offset + 8])  # inside the frame's header / first block header
    with pytest.raises(ArchiveError):
        list(iter_records(damaged))
    clean_out, out = tmp_path / "clean", tmp_path / "out"
    assert run([str(lz4)], str(clean_out)).exit_code == 0
    summary = run([str(damaged)], str(out))
    assert summary.exit_code == 1
    (entry,) = summary.manifest["inputs"]
    assert entry["outcome"] == "damaged"
    assert [(d["offset"], d["length"]) for d in entry["damaged"]] == [(offset, next_offset - offset)]
    assert [r for r in _rows(out) if r[0] != offset] == [r for r in _rows(clean_out) if r[0] != offset]
    _reconciles(summary.manifest, out)


def _confirm_candidates(data: bytes) -> list[int]:
    """Offsets where a record start could be looked for: 0, every gzip magic, every ``WARC/``, and
    every line start (at most 400 of them, spread over the file)."""
    found = {0}
    for needle in (b"\x1f\x8b", b"WARC/"):
        i = data.find(needle)
        while i >= 0:
            found.add(i)
            i = data.find(needle, i + 1)
    lines = [i + 1 for i in range(len(data)) if data[i] == 0x0A]
    found.update(lines[:: max(1, len(lines) // 400)])
    return sorted(o for o in found if o < len(data))


@pytest.mark.parametrize("path", sorted(
    [p for d in ("tests/data/warcs", "tests/data/broken") for p in (ROOT / d).rglob("*.warc*")
     if p.is_file() and p.stat().st_size]
    + list((ROOT / "sample_warcs").glob("*.warc.gz")),
    key=str), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_record_start_fastwarc_vouches_for_is_one_warcio_reads(path):
    """find_record_start's check of a candidate (warc._confirm) asks the checked FastWARC reading
    first and warcio only where FastWARC cannot vouch: at every candidate offset of every test
    WARC, well-formed or broken, it answers as warcio alone does (the reference)."""
    from redecode import warc

    data = path.read_bytes()
    for offset in _confirm_candidates(data):
        assert warc._confirm(str(path), offset, False) == warc._confirm_warcio(str(path), offset, False), offset


def test_cutting_a_warc_gz_into_shards_needs_no_warcio(tmp_path):
    """Finding where each shard of a .warc.gz starts reads the candidates with FastWARC: a run
    of a well-formed file imports warcio for nothing (with its email, six, bz2 and lzma)."""
    import subprocess
    import sys

    path = tmp_path / "big.warc.gz"
    path.write_bytes(b"".join(p.read_bytes() for p in sorted((ROOT / "sample_warcs").glob("*.warc.gz"))) * 4)
    code = ("import sys; from redecode.job import plan_shards; "
            f"shards = plan_shards({str(path)!r}, shard_bytes=64 * 1024); "
            "print(len(shards), 'warcio' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) > 2 and out[1] == "False"
