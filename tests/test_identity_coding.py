"""A Content-Encoding the stored body does not carry (issue 16, the ClueWeb09 quirk).

Some WARC writers stored the decoded body and kept the ``Content-Encoding: gzip`` field. Chromium
fails such a response (ERR_CONTENT_DECODING_FAILED), and so do the browser rules; the author's-text
rules take the body as is, with a warning, when it is not in the coding and sniffs as text (MIME
Sniffing), while a real stream that is corrupt still fails under every rule set.
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import brotli
import pytest

from redecode.archive import iter_records
from redecode.http import decode_body
from redecode.row import IDENTITY_NOTE, IDENTITY_VALIDATION, record_row
from redecode.rules import get_rules

PAGE = (b"<!DOCTYPE html><html><head><title>ClueWeb09-style record</title></head><body>"
        b"<p>Gr\xc3\xbc\xc3\x9fe aus K\xc3\xb6ln</p></body></html>")
TEXT = PAGE.decode("utf-8")


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate", "br", "zstd"])
def test_identity_of_a_body_not_in_its_coding(coding):
    res = decode_body(PAGE, [("Content-Encoding", coding)])
    assert res.payload is None and res.error_kind == "content-encoding"
    assert res.identity == PAGE


@pytest.mark.parametrize("coding,stream", [
    ("gzip", gzip.compress(PAGE, mtime=0)),
    ("deflate", zlib.compress(PAGE)),
    ("br", brotli.compress(PAGE)),
])
def test_a_corrupt_stream_has_no_identity(coding, stream):
    bad = stream[:6] + bytes(b ^ 0x5A for b in stream[6:40]) + stream[40:]
    res = decode_body(bad, [("Content-Encoding", coding)])
    if res.payload is None:
        assert res.identity is None, (coding, res.error)


def test_binary_not_in_its_coding_has_no_identity():
    res = decode_body(b"\x00\x01not brotli\xff" * 8, [("Content-Encoding", "br")])
    assert res.payload is None and res.identity is None


def test_only_the_outermost_coding_offers_the_body():
    # "gzip, br": br was applied last; if its decode fails the stored body is offered, but a failure
    # of the inner gzip (after a good br) is a real failure.
    res = decode_body(brotli.compress(PAGE), [("Content-Encoding", "gzip, br")])
    assert res.payload is None and res.identity is None


def _warc(records: list[tuple[str, bytes, list[tuple[str, str]]]]) -> bytes:
    out = []
    for i, (uri, body, headers) in enumerate(records):
        http = b"HTTP/1.1 200 OK\r\n" + b"".join(f"{k}: {v}\r\n".encode() for k, v in headers) + b"\r\n"
        block = http + body
        out.append(
            b"WARC/1.0\r\nWARC-Type: response\r\n"
            + f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-00000000000{i}>\r\n".encode()
            + f"WARC-Target-URI: {uri}\r\nWARC-Date: 2009-01-01T00:00:00Z\r\n".encode()
            + b"Content-Type: application/http; msgtype=response\r\n"
            + f"Content-Length: {len(block)}\r\n\r\n".encode() + block + b"\r\n\r\n")
    return b"".join(out)


def test_clueweb09_shaped_records(tmp_path):
    coded = [("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")]
    path = tmp_path / "clueweb09-like.warc"
    corrupt = gzip.compress(PAGE, mtime=0)
    corrupt = corrupt[:12] + b"\x00" * 20 + corrupt[32:]
    path.write_bytes(_warc([("http://example.com/plain", PAGE, coded),
                            ("http://example.com/corrupt", corrupt, coded)]))
    records = list(iter_records(str(path)))
    assert len(records) == 2

    plain_author = record_row(records[0], get_rules("author-2026.12"))
    assert (plain_author["status"], plain_author["text"]) == ("decoded", TEXT)
    assert plain_author["encoding"] == "UTF-8" and plain_author["decode_errors"] == 0
    assert IDENTITY_NOTE in plain_author["warning"] and "gzip" in plain_author["warning"]
    # a browser fails such a response: it picks no encoding, and the verdict says so
    assert plain_author["browser_encoding"] is None
    assert plain_author["validation"] == IDENTITY_VALIDATION

    plain_browser = record_row(records[0], get_rules("browser-2026.11"))
    assert (plain_browser["status"], plain_browser["error_kind"]) == ("failed", "content-encoding")

    for name in ("author-2026.12", "browser-2026.11"):
        row = record_row(records[1], get_rules(name))
        assert (row["status"], row["error_kind"]) == ("failed", "content-encoding"), name


def test_the_report_shows_bodies_a_browser_shows_nothing_for(tmp_path):
    # the report's overrides section counts them under "(nothing shown)", verdict identity
    from redecode.job import run
    from redecode.report import collect

    coded = [("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "clueweb09-like.warc").write_bytes(
        _warc([("http://example.com/a", PAGE, coded), ("http://example.com/b", PAGE, coded)]))
    out = tmp_path / "out"
    run([str(tmp_path / "in")], str(out), workers=1)
    rows = collect(str(out)).sections["overrides"].rows
    assert [r[:3] for r in rows] == [("(nothing shown) -> UTF-8", "identity", 2)], rows


CLUEWEB = Path(__file__).resolve().parent / "data" / "warcs" / "resiliparse" / "clueweb-quirk-3.warc.gz"


def test_clueweb09_records_have_the_same_verdict_in_query_and_report(tmp_path):
    """Resiliparse's ClueWeb09 file (tests/data/warcs/README.md): three EUC-JP responses stored
    decoded under Content-Encoding: gzip. Under the author rules each is decoded as identity, and
    `redecode query` shows the verdict the report's chart draws: `identity`, in the row's
    validation; a browser shows nothing (browser_encoding null)."""
    from click.testing import CliRunner

    from redecode.job import run
    from redecode.report import collect
    from redecode_jobs.cli import cli

    out = tmp_path / "out"
    run([str(CLUEWEB)], str(out), workers=1)
    got = CliRunner().invoke(cli, ["query", str(out), "--format", "json",
                                   "SELECT split_part(validation, ':', 1) AS verdict, browser_encoding, "
                                   "encoding, count(*) AS records FROM decodes GROUP BY ALL"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout) == [
        {"verdict": "identity", "browser_encoding": None, "encoding": "EUC-JP", "records": 3}]
    rows = collect(str(out)).sections["overrides"].rows
    assert [r[:3] for r in rows] == [("(nothing shown) -> EUC-JP", "identity", 3)]
    # query's standard report names what a browser shows for them in the report's words
    got = CliRunner().invoke(cli, ["query", str(out), "--format", "json"])
    assert json.loads(got.stdout)["sections"]["overrides"]["rows"] == [
        {"browser_encoding": "(nothing shown)", "encoding": "EUC-JP", "source": "transport", "verdict": "identity",
         "records": 3, "replacement_chars": 0}]


def test_backfill_replays_the_identity_verdict(tmp_path):
    """A row decoded as identity (a UTF-8 body, which backfill can rebuild from the text), replayed
    by backfill under rules that also decode such bodies (here the same rule set with an output
    option): the same row as a full decode, verdict included."""
    from redecode.backfill import replay_row

    old = get_rules("author-2026.12")
    new = old.with_outputs(normalize="NFC")
    path = tmp_path / "clueweb09-like.warc"
    path.write_bytes(_warc([("http://example.com/plain", PAGE,
                             [("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")])]))
    record = next(iter_records(str(path)))
    full = record_row(record, new)
    replayed = replay_row(record_row(record, old), old, new, replayable=True)
    assert full["validation"] == IDENTITY_VALIDATION
    assert replayed is not None and replayed["validation"] == full["validation"]
    assert {k: replayed[k] for k in full if k != "text_utf8"} == {k: full[k] for k in full if k != "text_utf8"}
