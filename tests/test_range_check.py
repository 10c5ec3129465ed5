"""Every number from an archive is range-checked before it becomes a typed column (issue 17,
case 1): a record that cannot be represented is a ``failed`` row (``out-of-range``) naming the
field, never a crashed part; the other records and inputs, and ``_run.json``, are unaffected."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from redecode.record import ArchiveRecord
from redecode.row import record_row
from redecode.rules import DEFAULT_RULES, RULES
from redecode import schema
from redecode.schema import SCHEMA
from redecode_jobs.cli import cli

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = sorted((ROOT / "sample_warcs").glob("*.warc.gz"))[0]
HUGE = 100000000000000000000  # the Content-Length: past 2**63 - 1
#: from the Arrow types (two's complement of bit_width bits), not from the code under test
INT_RANGES = {f.name: (-(1 << (f.type.bit_width - 1)), (1 << (f.type.bit_width - 1)) - 1)
              for f in SCHEMA if pa.types.is_integer(f.type)}


def _record(uri: str, body: bytes, content_length: int | None = None) -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + body
    length = len(http) if content_length is None else content_length
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{abs(hash(uri)) % 10**12:012d}>\r\n"
        f"WARC-Target-URI: {uri}\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()
    return head + http + b"\r\n\r\n"


def test_int_ranges_are_the_arrow_types():
    """Exhaustive over the schema's integer columns: the range is exactly what Arrow stores."""
    assert schema.INT_RANGES == INT_RANGES
    for name, (lowest, highest) in INT_RANGES.items():
        typ = SCHEMA.field(name).type
        pa.array([lowest, highest], typ)  # fits
        for outside in (lowest - 1, highest + 1):
            with pytest.raises((OverflowError, pa.ArrowInvalid)):
                pa.array([outside], typ)


def _plain(**overrides) -> ArchiveRecord:
    fields = dict(warc_path="x.warc", offset=0, length=100, record_type="response", record_id="<urn:x>",
                  target_uri="http://example.com/", warc_date=None, content_type_values=["text/html"],
                  http_status=200, http_headers=[], payload=b"<p>hello", payload_length=8,
                  payload_digest=None)
    fields.update(overrides)
    return ArchiveRecord(**fields)


@pytest.mark.parametrize("attribute,column", [
    ("offset", "warc_offset"), ("length", "warc_length"), ("http_status", "http_status"),
])
@pytest.mark.parametrize("side", ["low", "high"])
def test_each_record_number_at_and_past_its_bounds(attribute, column, side):
    lowest, highest = INT_RANGES[column]
    at, past = (lowest, lowest - 1) if side == "low" else (highest, highest + 1)
    rules = RULES[DEFAULT_RULES]
    row = record_row(_plain(**{attribute: at}), rules)
    assert row[column] == at and row["error_kind"] != "out-of-range"
    row = record_row(_plain(**{attribute: past}), rules)
    assert row["status"] == "failed" and row["error_kind"] == "out-of-range"
    assert row[column] is None and f"{column} {past} is outside the range of {SCHEMA.field(column).type}" in row["error"]
    assert row["text"] is None
    pa.Table.from_pylist([{c: row[c] for c in SCHEMA.names}], schema=SCHEMA)  # the row can be written


def test_payload_length_past_int64():
    row = record_row(_plain(payload=None, payload_length=HUGE, error_kind="too-large", error="big"),
                     RULES[DEFAULT_RULES])
    assert (row["status"], row["error_kind"], row["payload_length"]) == ("failed", "out-of-range", None)
    assert row["error"].endswith("; big")  # the record's own error is kept after the range error


@pytest.mark.parametrize("compressed", [False, True])
def test_content_length_past_int64_is_a_failed_row(tmp_path, compressed):
    records = [_record("http://a.example/", b"<p>before"), _record("http://b.example/", b"<p>x", HUGE)]
    if compressed:
        data = b"".join(gzip.compress(r) for r in records)
        name = "huge.warc.gz"
    else:
        data = b"".join(records)
        name = "huge.warc"
    (tmp_path / name).write_bytes(data)
    out = tmp_path / "out"
    args = ["run", str(tmp_path / name), str(ARCHIVE), "--out", str(out), "-q"]
    for attempt in range(2):  # and a rerun does not crash either
        result = CliRunner().invoke(cli, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert result.exit_code in (0, 1), result.output
    manifest = json.loads((out / "_run.json").read_text())
    assert len(manifest["inputs"]) == 2
    entry = next(e for e in manifest["inputs"] if e["path"].endswith(name))
    rows = pq.read_table(out / entry["part"]).to_pylist()
    assert [r["target_uri"] for r in rows] == ["http://a.example/", "http://b.example/"]
    assert rows[0]["status"] == "decoded"
    assert rows[1]["status"] == "failed" and rows[1]["error_kind"] == "out-of-range"
    # the block there is the HTTP head and "<p>x": the record is cut short by the rest of its claim
    # (issue 25: missing_bytes), a number no int64 holds
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>x"
    assert f"missing_bytes {HUGE - len(block)} is outside the range of int64" in rows[1]["error"]
    assert rows[1]["missing_bytes"] is None and rows[1]["payload_length"] == 4
    counts = entry["counts"]
    assert counts["records_seen"] == counts["decoded"] + counts["skipped"] + counts["failed"] == 2
