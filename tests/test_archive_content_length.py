"""redecode.archive: a Content-Length that lies never loses a record silently (issue 10).

ISO 28500 section 4: a record is its header, ``Content-Length`` bytes of block, then CRLFCRLF. When a
changed Content-Length makes the block end elsewhere, the reader must either read every record of the
file, or end with ``ArchiveError`` naming an offset; a record cut short by a smaller Content-Length
gets a ``warning`` (its leftover bytes were skipped) unless only blank lines were dropped. Whichever
reader runs (FastWARC checked, or warcio), the records and the final error are the same.

The mutants: every single-digit change of every Content-Length field of a small WARC (exhaustive),
and a seeded sample of Content-Length values near the true one (which reaches the "swallows the next
record and ends one line short of the one after" case that loses a record without the tail check).
Plain and gzip-per-record files.
"""

from __future__ import annotations

import dataclasses
import random
import re
import zlib

import pytest

from redecode.archive import ArchiveError, iter_records

CAP = 1 << 20


def _page(text: str, pad: int) -> bytes:
    return (
        "<!doctype html><html><head><title>t</title></head><body><p>"
        + text
        + "</p>"
        + "<p>filler text</p>\r\n" * pad
        + "</body></html>"
    ).encode()


def _record(n: int, rtype: str, block: bytes, content_type: str) -> bytes:
    head = (
        "WARC/1.0\r\n"
        f"WARC-Type: {rtype}\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{n:012d}>\r\n"
        "WARC-Date: 2026-11-29T00:00:00Z\r\n"
        "WARC-Target-URI: http://example.com/\r\n"
        f"Content-Type: {content_type}\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    return head + block + b"\r\n\r\n"


def _http(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + body


def _records() -> list[bytes]:
    """Records of varied size and ending (a body ending in a newline, one that does not)."""
    return [
        _record(0, "warcinfo", b"software: test\r\nformat: WARC File Format 1.0\r\n", "application/warc-fields"),
        _record(1, "response", _http(_page("one", 3)), "application/http; msgtype=response"),
        _record(2, "request", b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", "application/http; msgtype=request"),
        _record(3, "response", _http(_page("three", 0) + b"\n"), "application/http; msgtype=response"),
        _record(4, "resource", _page("four", 8), "text/html"),
        _record(5, "response", _http(_page("five", 1)), "application/http; msgtype=response"),
        _record(6, "metadata", b"via: http://example.com/\r\n", "application/warc-fields"),
        _record(7, "response", _http(_page("seven", 2)), "application/http; msgtype=response"),
    ]


IDS = [f"<urn:uuid:00000000-0000-4000-8000-{n:012d}>" for n in range(8)]
_CL = re.compile(rb"\r\nContent-Length: ([0-9]+)\r\n")


def _with_length(rec: bytes, new: int) -> tuple[bytes, int]:
    """The record with its WARC Content-Length set to ``new``; also the true length."""
    m = _CL.search(rec)
    return rec[: m.start(1)] + str(new).encode() + rec[m.end(1) :], int(m.group(1))


def _outcome(path: str, reader: str):
    recs, err = [], None
    try:
        for r in iter_records(path, max_record_bytes=CAP, reader=reader):
            recs.append(r)
    except ArchiveError as exc:
        err = exc
    return recs, err


def _mutants(seed: int) -> list[tuple[int, int]]:
    """(record index, new Content-Length): every one-digit change, then a seeded sample near the truth."""
    out = []
    for k, rec in enumerate(_records()):
        true = int(_CL.search(rec).group(1))
        digits = str(true)
        for i, d in enumerate(digits):
            for new in "0123456789":
                if new != d and not (i == 0 and new == "0"):
                    out.append((k, int(digits[:i] + new + digits[i + 1 :])))
    rnd = random.Random(seed)
    recs = _records()
    for _ in range(160):
        k = rnd.randrange(len(recs))
        true = int(_CL.search(recs[k]).group(1))
        # up to the end of the record after next: lands inside the next record, on its last line,
        # on the blank lines around it ...
        nxt = sum(len(r) for r in recs[k + 1 : k + 3])
        new = true + rnd.randint(-min(true, 60), nxt + 8)
        if new != true:
            out.append((k, new))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("compressed", [False, True], ids=["warc", "warc.gz"])
def test_content_length_changes_never_lose_a_record(tmp_path, compressed):
    base = _records()
    path = str(tmp_path / ("m.warc.gz" if compressed else "m.warc"))
    stats = {"clean": 0, "error": 0, "warned": 0, "swallowed": 0}
    for k, new in _mutants(20261129 + compressed):
        rec, true = _with_length(base[k], new)
        recs = base[:k] + [rec] + base[k + 1 :]
        if compressed:
            recs = [_gz(r) for r in recs]
        data = b"".join(recs)
        with open(path, "wb") as f:
            f.write(data)
        where = f"record {k}: Content-Length {true} -> {new} ({'gz' if compressed else 'plain'})"
        got, err = _outcome(path, "auto")
        ref, ref_err = _outcome(path, "warcio")
        # the same records and the same error whichever reader ran
        assert [dataclasses.astuple(r) for r in got] == [dataclasses.astuple(r) for r in ref], where
        assert (err and (err.offset, err.message)) == (ref_err and (ref_err.offset, ref_err.message)), where
        ids = [r.record_id for r in got]
        # the records before the changed one are read as they are
        assert ids[:k] == IDS[:k], where
        if err is not None:
            stats["error"] += 1
            start_k = sum(len(r) for r in recs[:k])
            assert start_k <= err.offset <= len(data), (where, err)
            if "inside the block" in err.message:
                stats["swallowed"] += 1
            continue
        stats["clean"] += 1
        # no error: every record has its row (none swallowed silently)
        assert sorted(set(ids)) == IDS, (where, ids)
        mine = got[ids.index(IDS[k])]
        if new < true and mine.error_kind is None:
            dropped = base[k][_CL.search(base[k]).end() + 2 :][new:true]
            if mine.warning:
                stats["warned"] += 1
                assert "shorter than the record block" in mine.warning, (where, mine.warning)
            else:
                # only blank lines were dropped: the block is the same text
                assert dropped.strip(b" \t\r\n") == b"", (where, dropped)
    # every outcome was exercised, the swallowing one included (in gzip a block cannot run into the
    # next member: such a record is cut short instead)
    assert stats["clean"] and stats["error"], stats
    if not compressed:
        assert stats["warned"] and stats["swallowed"], stats


def _gz(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return c.compress(data) + c.flush()


def test_swallowed_record_is_named(tmp_path):
    """Record 1's Content-Length covers records 2 and 3 but for record 3's last line ("ml>\\n" and
    the CRLFCRLF): record 1 is failed (truncated), and the iteration ends with ArchiveError at
    record 2's offset, for both readers."""
    base = _records()
    true = int(_CL.search(base[1]).group(1))
    rec, _ = _with_length(base[1], true + 4 + len(base[2]) + len(base[3]) - 8)
    p = tmp_path / "swallow.warc"
    p.write_bytes(b"".join(base[:1] + [rec] + base[2:]))
    assert base[3].endswith(b"ml>\n\r\n\r\n")
    for reader in ("auto", "warcio"):
        got, err = _outcome(str(p), reader)
        assert [r.record_id for r in got] == IDS[:2], reader
        assert got[1].error_kind == "truncated" and "holds the start of another record" in got[1].error
        assert err is not None and err.offset == len(base[0]) + len(base[1]), (reader, err)
        assert str(err.offset) in str(err)


def test_shorter_content_length_warns(tmp_path):
    base = _records()
    true = int(_CL.search(base[5]).group(1))
    rec, _ = _with_length(base[5], true - 10)
    p = tmp_path / "short.warc"
    p.write_bytes(b"".join(base[:5] + [rec] + base[6:]))
    for reader in ("auto", "warcio"):
        got, err = _outcome(str(p), reader)
        assert err is None and [r.record_id for r in got] == IDS
        assert got[5].warning == (
            "Content-Length %d is shorter than the record block (or bytes that are not a record "
            "follow it); 14 bytes before the next record ignored" % (true - 10)
        )
        assert all(r.warning is None for i, r in enumerate(got) if i != 5)
