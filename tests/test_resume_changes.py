"""Resume never skips what changed (issue 17, cases 2 and 10): a marker records the input's size,
mtime and a hash of both ends, and its outcome; a file that grew, was cut short or rewritten is
read again whole (its old parts go first); a file that was cut short or unreadable is retried;
the summary says what was skipped, resumed, re-read."""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode.job import run
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def _builder():
    spec = importlib.util.spec_from_file_location("make_broken_inputs_resume", ROOT / "tools" / "make_broken_inputs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


build = _builder()


def _rows(out: Path) -> list[tuple]:
    rows = []
    for part in sorted(out.glob("*.parquet")):
        for r in pq.read_table(part).to_pylist():
            rows.append((r["warc_path"], r["warc_offset"], r["record_id"], r["status"], r["text"]))
    return sorted(rows)


def _clean(paths: list[Path], tmp_path: Path, name: str, **kwargs) -> list[tuple]:
    out = tmp_path / f"clean-{name}"
    run([str(p) for p in paths], str(out), **kwargs)
    return _rows(out)


def _members(path: Path) -> list[bytes]:
    """The gzip members of a one-member-per-record file, as stored."""
    data = path.read_bytes()
    out, pos = [], 0
    while pos < len(data):
        d = __import__("zlib").decompressobj(31)
        d.decompress(data[pos:])
        end = len(data) - len(d.unused_data)
        out.append(data[pos:end])
        pos = end
    return out


@pytest.fixture
def warc(tmp_path) -> Path:
    path = tmp_path / "in" / "crawl.warc.gz"
    path.parent.mkdir()
    build.corpus_warc(str(path), 30, seed=7)
    return path


def _more_records(tmp_path: Path, n: int, seed: int) -> bytes:
    extra = tmp_path / f"extra-{seed}.warc.gz"
    build.corpus_warc(str(extra), n, seed=seed)
    return extra.read_bytes()


def test_appended_records_are_read(warc, tmp_path):
    out = tmp_path / "out"
    first = run([str(warc)], str(out))
    assert first.exit_code == 0
    with open(warc, "ab") as f:
        f.write(_more_records(tmp_path, 5, seed=8))
    again = run([str(warc)], str(out))
    assert again.resumed == []  # on main: "already complete", the 5 new records never read
    assert again.changed == [str(warc)]
    assert again.manifest["counts"]["records_seen"] == 35
    assert _rows(out) == _clean([warc], tmp_path, "appended")


def test_cut_short_then_restored_is_retried(warc, tmp_path):
    whole = warc.read_bytes()
    warc.write_bytes(whole[: len(whole) - 300])  # inside the last gzip member
    out = tmp_path / "out"
    cut = run([str(warc)], str(out))
    assert cut.exit_code == 1 and cut.manifest["inputs"][0]["outcome"] == "truncated"
    warc.write_bytes(whole)
    fixed = run([str(warc)], str(out))
    assert fixed.exit_code == 0
    assert fixed.manifest["inputs"][0]["outcome"] == "complete"
    assert _rows(out) == _clean([warc], tmp_path, "restored")


def test_truncated_input_is_retried_even_when_unchanged(warc, tmp_path):
    whole = warc.read_bytes()
    warc.write_bytes(whole[: len(whole) - 300])
    out = tmp_path / "out"
    run([str(warc)], str(out))
    again = run([str(warc)], str(out))
    assert again.retried == [str(warc)] and again.resumed == []
    assert again.exit_code == 1


def test_unreadable_then_present_is_retried(warc, tmp_path):
    listed = tmp_path / "list.txt"
    missing = tmp_path / "in" / "later.warc.gz"
    listed.write_text(f"{warc}\n{missing}\n")
    out = tmp_path / "out"
    first = run([f"@{listed}"], str(out))
    assert first.exit_code == 1
    assert [e["outcome"] for e in first.manifest["inputs"]] == ["complete", "error"]
    shutil.copy(warc, missing)
    second = run([f"@{listed}"], str(out))
    assert second.exit_code == 0
    assert second.resumed == [str(warc)] and second.retried == [str(missing)]
    assert [e["outcome"] for e in second.manifest["inputs"]] == ["complete", "complete"]
    assert _rows(out) == _clean([warc, missing], tmp_path, "present")


def test_a_file_replaced_by_a_shorter_one_leaves_no_stale_rows(warc, tmp_path):
    out = tmp_path / "out"
    kwargs = {"shard_bytes": 8 * 1024}
    many = run([str(warc)], str(out), **kwargs)
    assert len(many.manifest["inputs"][0]["parts"]) > 2
    members = _members(warc)
    warc.write_bytes(b"".join(members[:4]))  # a complete, shorter file: one shard
    fewer = run([str(warc)], str(out), **kwargs)
    assert fewer.changed == [str(warc)]
    assert len(fewer.manifest["inputs"][0]["parts"]) == 1
    assert _rows(out) == _clean([warc], tmp_path, "shorter", **kwargs)
    assert len(list(out.glob("*.parquet"))) == 1 and len(list((out / "_done").glob("*.json"))) == 1


@pytest.mark.parametrize("where", ["first", "last"])
def test_same_size_rewrite_at_either_end_is_read_again(warc, tmp_path, where):
    plain = warc.with_suffix("")  # crawl.warc, uncompressed: a word can change in place
    plain.write_bytes(gzip.decompress(warc.read_bytes()))
    out = tmp_path / "out"
    run([str(plain)], str(out))
    data = plain.read_bytes()
    word = b"gamma"
    at = data.index(word) if where == "first" else data.rindex(word)
    stat = plain.stat()
    plain.write_bytes(data[:at] + word.upper() + data[at + len(word):])
    os.utime(plain, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime
    again = run([str(plain)], str(out))
    assert again.changed == [str(plain)]
    assert _rows(out) == _clean([plain], tmp_path, f"rewrite-{where}")
    assert any("GAMMA" in (r[4] or "") for r in _rows(out))


def test_touched_file_is_read_again(warc, tmp_path):
    out = tmp_path / "out"
    run([str(warc)], str(out))
    st = warc.stat()
    os.utime(warc, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    again = run([str(warc)], str(out))
    assert again.changed == [str(warc)] and again.resumed == []


def test_markers_record_what_they_covered(warc, tmp_path):
    out = tmp_path / "out"
    run([str(warc)], str(out))
    marker = json.loads(next((out / "_done").glob("*.json")).read_text())
    st = warc.stat()
    assert marker["input"]["size"] == st.st_size == marker["size"]
    assert marker["input"]["mtime"] == st.st_mtime_ns
    assert len(marker["input"]["sha256"]) == 64
    assert marker["outcome"] == "complete"


def test_summary_after_a_stopped_multi_shard_run(warc, tmp_path):
    """A run stopped after some shards of an input: the rerun finishes it and does not call it
    "already complete" (case 10's last sentence)."""
    out = tmp_path / "out"
    kwargs = {"shard_bytes": 8 * 1024}
    first = run([str(warc)], str(out), **kwargs)
    markers = sorted((out / "_done").glob("*.json"))
    assert len(markers) > 2
    for marker in markers[1:]:  # as a run stopped after its first shard leaves it
        part = out / (marker.stem + ".parquet")
        marker.unlink()
        part.unlink()
    again = run([str(warc)], str(out), **kwargs)
    assert again.resumed == []
    assert again.partial == [str(warc)]
    assert _rows(out) == _clean([warc], tmp_path, "stopped", **kwargs)
    assert again.manifest["counts"] == first.manifest["counts"]


def test_cli_summary_line(warc, tmp_path):
    out = tmp_path / "out"
    second = tmp_path / "in" / "second.warc.gz"
    shutil.copy(warc, second)
    CliRunner().invoke(cli, ["run", str(tmp_path / "in"), "--out", str(out), "-q"])
    with open(warc, "ab") as f:
        f.write(_more_records(tmp_path, 2, seed=11))
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "in"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert ("2 inputs (1 already complete, skipped; 1 changed since the last run, read again; "
            "--force redoes them), 62 records") in result.output


# --- the run directory's own parts: a rerun never takes a part that is not as written ---------


def test_markers_record_their_parts_sizes(warc, tmp_path):
    out = tmp_path / "out"
    run([str(warc)], str(out))
    marker = json.loads(next((out / "_done").glob("*.json")).read_text())
    assert marker["part_bytes"] == {marker["part"]: (out / marker["part"]).stat().st_size}


@pytest.mark.parametrize("damage", ["cut short", "replaced", "removed"])
def test_a_part_not_as_written_is_made_again(warc, tmp_path, damage):
    """A part cut short (a copy that stopped), replaced by another Parquet file or removed by hand:
    the rerun reads its input again instead of calling it complete, says so, and the rows are a
    clean run's."""
    out = tmp_path / "out"
    first = run([str(warc)], str(out))
    (part,) = out.glob("*.parquet")
    if damage == "cut short":
        part.write_bytes(part.read_bytes()[:-100])
    elif damage == "replaced":  # a valid Parquet file of the same name, with a row less
        table = pq.read_table(part)
        pq.write_table(table.slice(0, table.num_rows - 1), part)
    else:
        part.unlink()
    again = run([str(warc)], str(out))
    assert again.remade == [str(warc)]
    assert again.resumed == [] and again.partial == [] and again.changed == [] and again.retried == []
    assert _rows(out) == _clean([warc], tmp_path, "remade")
    assert again.manifest["counts"] == first.manifest["counts"]
    third = run([str(warc)], str(out))
    assert third.resumed == [str(warc)] and third.remade == []


def test_one_shard_of_several_made_again(warc, tmp_path):
    """An input cut into shards: only the shard whose part was cut short is read again, and the
    input is said to be remade, not "partly done before"."""
    out = tmp_path / "out"
    kwargs = {"shard_bytes": 8 * 1024}
    run([str(warc)], str(out), **kwargs)
    parts = sorted(out.glob("*.parquet"))
    assert len(parts) > 2
    parts[1].write_bytes(parts[1].read_bytes()[:-50])
    mtimes = {p.name: p.stat().st_mtime_ns for p in parts}
    again = run([str(warc)], str(out), **kwargs)
    assert again.remade == [str(warc)] and again.partial == [] and again.resumed == []
    assert [p.name for p in parts if p.stat().st_mtime_ns != mtimes[p.name]] == [parts[1].name]
    assert _rows(out) == _clean([warc], tmp_path, "one-shard", **kwargs)


def test_a_marker_without_part_sizes_resumes_on_presence(warc, tmp_path):
    """Markers written before sizes were recorded: their parts count when present, as before."""
    out = tmp_path / "out"
    run([str(warc)], str(out))
    (marker,) = (out / "_done").glob("*.json")
    data = json.loads(marker.read_text())
    del data["part_bytes"]
    marker.write_text(json.dumps(data))
    again = run([str(warc)], str(out))
    assert again.resumed == [str(warc)] and again.remade == []


def test_a_part_not_as_written_in_a_bounded_layout(warc, tmp_path):
    """A task's marker (several inputs in parts cut to size) records each part's size: one part
    cut short makes the task again, and every input it holds is said to be remade."""
    from redecode.layout import Layout

    second = tmp_path / "in" / "second.warc.gz"
    build.corpus_warc(str(second), 12, seed=9)
    out = tmp_path / "out"
    layout = Layout(max_part_rows=10)
    run([str(warc), str(second)], str(out), layout=layout)
    (marker,) = (out / "_done").glob("*.json")
    data = json.loads(marker.read_text())
    assert len(data["parts"]) > 1
    assert data["part_bytes"] == {p: (out / p).stat().st_size for p in data["parts"]}
    cut = out / data["parts"][-1]
    cut.write_bytes(cut.read_bytes()[:-10])
    again = run([str(warc), str(second)], str(out), layout=layout)
    assert again.remade == sorted([str(warc), str(second)]) and again.resumed == []
    clean = tmp_path / "clean-bounded"
    run([str(warc), str(second)], str(clean), layout=layout)
    assert _rows_anywhere(out) == _rows_anywhere(clean)


def _rows_anywhere(out: Path) -> list[tuple]:
    rows = []
    for part in sorted(out.rglob("*.parquet")):
        if "_inputs" in part.parts:
            continue
        for r in pq.read_table(part).to_pylist():
            rows.append((r["warc_path"], r["warc_offset"], r["record_id"], r["status"], r["text"]))
    return sorted(rows)


def test_cli_summary_line_names_a_part_made_again(warc, tmp_path):
    out = tmp_path / "out"
    CliRunner().invoke(cli, ["run", str(warc), "--out", str(out), "-q"])
    next(out.glob("*.parquet")).unlink()
    result = CliRunner().invoke(cli, ["run", str(warc), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 input (1 with a part missing or damaged in --out, read again), 30 records" in result.output
