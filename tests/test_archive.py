"""redecode.archive: records, offsets, payloads and errors of WARC / ARC / raw-response Parquet inputs.

Reference counts come from warcio's own ArchiveIterator (read directly in the tests, not through
the code under test) and from ``../shared/corpus/MANIFEST.md``; expected payloads from the pages
themselves.
"""

from __future__ import annotations

import dataclasses
import glob
import gzip
import hashlib
import json
import os
import random

import pytest
from warcio.archiveiterator import ArchiveIterator as WarcioIterator

from redecode import warc
from redecode.archive import (
    ArchiveError,
    ArchiveRecord,
    find_record_start,
    iter_records,
    read_record_at,
)

from redecode.inputs import iter_inputs

import shared_paths

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "warcs")
SHARED = str(shared_paths.CORPUS / "warcs")
ARCHIVE_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".warc.gz.bad")
PAYLOAD_TYPES = {"response", "resource", "revisit"}


def _archives(root: str) -> list[str]:
    return sorted(f for f in glob.glob(os.path.join(root, "**", "*"), recursive=True) if f.endswith(ARCHIVE_SUFFIXES))


LOCAL = _archives(DATA)
SHARED_FILES = _archives(SHARED)


def _shared(rel: str) -> str:
    path = os.path.join(SHARED, rel)
    if not os.path.exists(path):
        pytest.skip(shared_paths.absent(path))
    return path


def _ids(paths):
    return [os.path.relpath(p, os.path.dirname(os.path.dirname(p))) for p in paths]


def _local(rel: str) -> str:
    return os.path.join(DATA, rel)


def warcio_reference(path: str) -> tuple[list[tuple[int, str]], bool]:
    """(offset, WARC-Type) of every record warcio can read, and whether warcio stopped with an error."""
    out: list[tuple[int, str]] = []
    failed = False
    with open(path, "rb") as fh:
        it = WarcioIterator(fh)  # warcio's defaults, as `warcio index` reads
        try:
            for rec in it:
                out.append((it.get_record_offset(), rec.rec_type))
        except Exception:
            failed = True
    return out, failed


def read_all(path: str, **kw) -> tuple[list[ArchiveRecord], ArchiveError | None]:
    recs: list[ArchiveRecord] = []
    try:
        for r in iter_records(path, **kw):
            recs.append(r)
    except ArchiveError as exc:
        return recs, exc
    return recs, None


# ------------------------------------------------------------------ counts and errors, every file


#: Files where we read more than warcio, on purpose, and the test that pins what we read instead.
BEYOND_WARCIO = {
    "IAH-20080430204825-00000-blackbook-truncated.arc":
        "no newline between ARC records: warcio skips each next record's header line and stops at "
        "the second; read by the declared lengths (test_arc_without_blank_lines_read_by_declared_lengths)",
    "example-wrong-chunks.warc.gz":
        "a record's header and body in two gzip members: warcio stops at the second member; read "
        "across them (test_records_kept.py::test_record_split_over_gzip_members_is_read)",
    "link-extraction-test.warc":
        "a version line right after a block: warcio skips it as a stray line and stops; it starts "
        "the next record (test_records_kept.py::test_version_line_right_after_a_block_starts_a_record)",
}


def _check_counts_and_errors(path: str) -> None:
    if os.path.basename(path) in BEYOND_WARCIO:
        ref, ref_failed = warcio_reference(path)
        recs, err = read_all(path)
        assert ref_failed and err is None and len(recs) > len(ref)
        return
    ref, ref_failed = warcio_reference(path)
    recs, err = read_all(path)
    want = sum(1 for _, t in ref if t in PAYLOAD_TYPES)
    got = sum(1 for r in recs if r.record_type in PAYLOAD_TYPES)
    assert got == want, (path, got, want)
    assert len(recs) == len(ref)
    if ref_failed:
        assert err is not None, "warcio stops on this file: we must end with ArchiveError"
    if err is not None:
        assert err.path == path and isinstance(err.offset, int) and err.offset >= 0
        assert str(err).startswith(f"{path}: at offset {err.offset}: ")
        if not ref_failed:
            # warcio reads to the end without complaint only when the last block is cut short
            assert recs and (recs[-1].error_kind == "truncated" or recs[-1].missing_bytes is not None)


@pytest.mark.parametrize("path", LOCAL, ids=_ids(LOCAL))
def test_counts_match_warcio_local(path):
    _check_counts_and_errors(path)


@pytest.mark.corpus
@pytest.mark.parametrize("path", SHARED_FILES or [None], ids=_ids(SHARED_FILES) or ["absent"])
def test_counts_match_warcio_shared(path):
    if path is None:
        pytest.skip(shared_paths.absent(SHARED))
    _check_counts_and_errors(path)


# ------------------------------------------------------------------ FastWARC == warcio


def _as_tuples(recs):
    return [dataclasses.astuple(r) for r in recs]


def _outcome(path, reader):
    recs, err = read_all(path, reader=reader)
    return _as_tuples(recs), (None if err is None else (err.offset, err.message))


@pytest.mark.parametrize("path", LOCAL + SHARED_FILES, ids=_ids(LOCAL + SHARED_FILES))
def test_auto_reader_identical_to_warcio(path):
    """Every field of every record, and the final error, are the same whichever reader ran."""
    assert _outcome(path, "auto") == _outcome(path, "warcio")


# Files FastWARC alone reads differently from warcio, and why; the checked "auto" reader hands them
# (from the first differing record on) to warcio, see test_auto_reader_identical_to_warcio.
FASTWARC_DIFFERS = {
    "fold.warc": "LF-only WARC header lines: FastWARC reads them as one field",
    "utf8field.warc": "non-ASCII field name: the record extent cannot be checked",
    "example-trunc.warc": "Content-Length shorter than the block: FastWARC stops",
    "example-bad-non-chunked.warc.gz": "one gzip member for all records: FastWARC reads on, warcio stops",
    "example-bad.warc.gz.bad": "one gzip member for all records",
    "example-wrong-chunks.warc.gz": "gzip members that do not match records",
    "example.warc": "(pywb's copy) a Content-Length 2 bytes short",
    "missing-status-text.warc": "'\\r\\r\\n' line ends: FastWARC returns an empty block",
    "clipped.warc.gz": "the file ends inside a gzip member: FastWARC's error names the short block",
    "link-extraction-test.warc": "no blank line between a block and the next record: checked by warcio",
}


def _fastwarc_expected_same(path: str) -> bool:
    name = os.path.basename(path)
    if path.endswith((".arc", ".arc.gz")):
        return False
    if name == "example.warc":
        return "pywb" not in path
    return name not in FASTWARC_DIFFERS


CLEAN = [p for p in LOCAL + SHARED_FILES if _fastwarc_expected_same(p)]


@pytest.mark.parametrize("path", CLEAN, ids=_ids(CLEAN))
def test_fastwarc_unchecked_equals_warcio_on_clean_files(path):
    assert _outcome(path, "fastwarc") == _outcome(path, "warcio")


@pytest.mark.parametrize("path", CLEAN, ids=_ids(CLEAN))
def test_auto_uses_fastwarc_on_clean_files(path, monkeypatch):
    def no_fallback(*a, **k):
        raise AssertionError("auto fell back to warcio on a clean file")

    monkeypatch.setattr(warc, "_iter_warcio", no_fallback)
    recs, err = read_all(path)
    assert err is None and recs


def test_auto_hands_back_to_fastwarc(tmp_path, monkeypatch):
    """One odd record (LF-only header lines) is read by warcio; FastWARC reads the rest."""
    data = open(_local("generated/codings.warc"), "rb").read()
    recs, _ = read_all(_local("generated/codings.warc"), max_record_bytes=1 << 20)
    r = recs[2]
    head_end = data.index(b"\r\n\r\n", r.offset) + 4
    odd = data[r.offset : head_end].replace(b"\r\n", b"\n")
    p = tmp_path / "odd.warc"
    p.write_bytes(data[: r.offset] + odd + data[head_end:])
    by_warcio = []
    real = warc._iter_warcio

    def counting(*a, **k):
        for raw in real(*a, **k):
            by_warcio.append(raw.offset)
            yield raw

    monkeypatch.setattr(warc, "_iter_warcio", counting)
    auto = _outcome(str(p), "auto")
    assert by_warcio == [r.offset]
    monkeypatch.setattr(warc, "_iter_warcio", real)
    assert auto == _outcome(str(p), "warcio")
    assert len(auto[0]) == len(recs) and auto[1] is None


def test_bench_like_file_stays_on_fastwarc(monkeypatch):
    """A generated multi-record gzip WARC of the benchmark's shape never falls back."""
    path = _local("generated/codings.warc.gz")
    monkeypatch.setattr(warc, "_iter_warcio", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    assert len(read_all(path, max_record_bytes=1 << 20)[0]) == len(CODINGS["cases"])


# ------------------------------------------------------------------ record fields


def test_example_warc_fields():
    recs, err = read_all(_local("warcio/example.warc.gz"))
    assert err is None
    assert [r.record_type for r in recs] == ["warcinfo", "warcinfo", "response", "request", "revisit", "request"]
    resp = recs[2]
    assert resp.offset == 784 and resp.length == 1228  # warcio's CDX offset/length
    assert resp.record_id == "<urn:uuid:a9c51e3e-0221-11e7-bf66-0242ac120005>"
    assert resp.target_uri == "http://example.com/"
    assert resp.warc_date == "2017-03-06T04:02:06Z"
    assert resp.is_http and resp.http_status == 200
    assert resp.content_type_values == ["text/html"]
    assert ("Content-Encoding", "gzip") in resp.http_headers
    assert resp.payload.startswith(b"<!doctype html>")  # gzip removed
    assert resp.payload_length == 606  # the gzip body as stored (HTTP Content-Length: 606)
    assert len(resp.payload) > 606
    assert resp.payload_digest == "sha1:G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK"
    assert resp.error_kind is None
    revisit = recs[4]
    assert revisit.http_status == 200 and revisit.payload == b""
    assert recs[0].payload is None and recs[0].content_type_values == ["application/warc-fields"]
    assert recs[3].payload is None  # request: counted, not decoded


def test_uncompressed_offsets_exclude_trailing_crlf():
    recs, _ = read_all(_local("warcio/example.warc"))
    assert [(r.offset, r.length) for r in recs][:3] == [(0, 484), (488, 705), (1197, 1365)]


def test_chunked_payload():
    recs, _ = read_all(_local("warcio/example-iana.org-chunked.warc"))
    (resp,) = [r for r in recs if r.record_type == "response"]
    assert ("Transfer-Encoding", "chunked") in resp.http_headers
    assert resp.payload.startswith(b"<!doctype html>")
    assert resp.payload.rstrip().endswith(b"</html>")
    assert b"\r\n0\r\n" not in resp.payload


def test_resource_record():
    recs, _ = read_all(_local("warcio/example-resource.warc.gz"))
    (res,) = [r for r in recs if r.record_type == "resource"]
    assert not res.is_http and res.http_status is None and res.http_headers is None
    assert len(res.payload) == 1303 and res.payload_length == 1303
    assert res.content_type_values and res.content_type_values[0].startswith("text/html")


def test_missing_reason_phrase():
    recs, _ = read_all(_shared("pywb/warcs/missing-status-text.warc"))
    assert recs[0].http_status == 302 and recs[0].payload == b""
    assert ("Location", "http://www.iana.org/badst") in recs[0].http_headers


def test_warc_0_17():
    path = _shared("webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.warc.gz")
    recs, err = read_all(path)
    assert err is None and len(recs) == 23
    assert any(r.record_type == "response" and r.http_status == 200 for r in recs)


def test_target_uri_repairs():
    recs, _ = read_all(_local("warcio/example-space-in-target-uri.warc.gz"))
    uris = [r.target_uri for r in recs if r.target_uri]
    assert uris and all(" " not in u for u in uris)
    assert any("%20" in u for u in uris)
    recs, _ = read_all(_local("warcio/example-wget-bad-target-uri.warc.gz"))
    assert all(not (r.target_uri or "").startswith("<") for r in recs)


def test_arc_records():
    recs, err = read_all(_local("warcio/example.arc.gz"))
    assert err is None
    assert [r.record_type for r in recs] == ["warcinfo", "response"]
    resp = recs[1]
    assert resp.target_uri == "http://example.com/" and resp.http_status == 200
    assert resp.warc_date == "2014-02-16T05:02:21Z"
    assert resp.payload.startswith(b"<!doctype html>")


def test_arc_ids_deterministic():
    a, _ = read_all(_local("warcio/example.arc"))
    b, _ = read_all(_local("warcio/example.arc"))
    assert [r.record_id for r in a] == [r.record_id for r in b]
    assert len({r.record_id for r in a}) == len(a)
    assert all(r.record_id.startswith("<urn:uuid:") for r in a)


def test_bad_arc_records_read():
    # MANIFEST: bad.arc is an ARC header and 3 responses with invalid lengths
    recs, _ = read_all(_local("warcio/bad.arc"))
    assert [r.record_type for r in recs] == ["warcinfo", "response", "response", "response"]


# ------------------------------------------------------------------ content codings in archives


CODINGS = json.load(open(_local("generated/codings.json")))


@pytest.mark.parametrize("name", ["generated/codings.warc.gz", "generated/codings.warc"])
def test_generated_codings(name):
    recs, err = read_all(_local(name), max_record_bytes=1 << 20)
    assert err is None
    by_case = {r.target_uri.rsplit("/", 1)[1]: r for r in recs}
    assert set(by_case) == set(CODINGS["cases"])
    for case, want in CODINGS["cases"].items():
        r = by_case[case]
        if want == "page":
            assert r.error_kind is None and r.warning is None, (case, r.error)
            assert hashlib.sha1(r.payload).hexdigest() == CODINGS["page_sha1"], case
        elif want == "prefix":
            assert r.error_kind is None and r.warning, case
            assert r.payload and r.payload.startswith(b"<!DOCTYPE html>"), case
        else:
            assert r.payload is None and r.error_kind == want, (case, r.error_kind)
            assert r.error
        assert r.http_status == 200 and r.content_type_values == ["text/html; charset=windows-1252"]


def test_generated_fixture_is_current(tmp_path):
    """The committed codings.* files are what make_codings.py writes."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_codings", _local("generated/make_codings.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.HERE = str(tmp_path)
    mod.main()
    for f in ("codings.warc", "codings.warc.gz", "codings.json"):
        assert (tmp_path / f).read_bytes() == open(_local(f"generated/{f}"), "rb").read(), f


@pytest.mark.parametrize("ext", [".warc", ".warc.gz"])
def test_webarchive_discovery_compression(ext):
    """The same page served with Content-Encoding none / gzip / br decodes to the same payload."""
    base = "webarchive-discovery/compression/transfer_compression_{}" + ext
    payloads = {}
    for coding in ("none", "gzip", "brotli"):
        recs, err = read_all(_shared(base.format(coding)))
        assert err is None
        html = [r for r in recs if r.record_type == "response" and r.payload and b"<html" in r.payload.lower()]
        assert html, coding
        payloads[coding] = html[0]
    assert payloads["none"].payload == payloads["gzip"].payload == payloads["brotli"].payload
    assert any(v.lower() == "br" for k, v in payloads["brotli"].http_headers if k.lower() == "content-encoding")


def test_too_large_record_reported_with_head():
    recs, err = read_all(_local("warcio/example-iana.org-chunked.warc"), max_record_bytes=1000)
    (resp,) = [r for r in recs if r.record_type == "response"]
    assert resp.error_kind == "too-large" and resp.payload is None
    assert resp.http_status == 200 and resp.content_type_values  # head still parsed
    assert err is None


def test_gzip_bomb_in_archive_capped():
    recs, _ = read_all(_local("generated/codings.warc.gz"), max_record_bytes=1 << 20)
    (bomb,) = [r for r in recs if r.target_uri.endswith("/gzip-bomb")]
    assert bomb.error_kind == "too-large" and bomb.payload is None


def test_huge_record_not_loaded(tmp_path):
    """A record far over the cap is reported too large after reading only a prefix of its block."""
    import resource

    size = 32 * 1024 * 1024
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
    warc_head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:big>\r\n"
        b"WARC-Target-URI: http://big.test/\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n"
        b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n" % (len(head) + size)
    )
    path = tmp_path / "big.warc"
    with open(path, "wb") as fh:
        fh.write(warc_head + head)
        block = b"<" * (1 << 20)
        for _ in range(size >> 20):
            fh.write(block)
        fh.write(b"\r\n\r\n")
    read_bytes = []
    real = warc._read_block

    def archive_read_block(read, n, cap):
        def counting(k):
            b = read(k)
            read_bytes.append(len(b))
            return b

        return real(counting, n, cap)

    for reader in ("auto", "warcio"):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            warc._read_block = archive_read_block
            recs, err = read_all(str(path), reader=reader, max_record_bytes=1024 * 1024)
        finally:
            warc._read_block = real
        assert err is None and len(recs) == 1
        assert recs[0].error_kind == "too-large" and recs[0].http_status == 200 and recs[0].payload is None
        assert recs[0].payload_length == size
        grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        assert grown_mb < 16, grown_mb
        assert sum(read_bytes) <= 1024 * 1024  # a prefix for the HTTP head, not the block
        read_bytes.clear()


# ------------------------------------------------------------------ broken archives


def _records_gz_members(path):
    data = open(path, "rb").read()
    recs, _ = read_all(path)
    return data, recs


def test_truncated_gz_inside_member(tmp_path):
    data, recs = _records_gz_members(_local("warcio/example.warc.gz"))
    cut = recs[2].offset + recs[2].length // 2  # inside the response member
    p = tmp_path / "cut.warc.gz"
    p.write_bytes(data[:cut])
    for reader in ("auto", "warcio"):
        got, err = read_all(str(p), reader=reader)
        assert [r.offset for r in got if r.missing_bytes is None] == [recs[0].offset, recs[1].offset]
        # the cut record keeps what inflated (issue 25): a prefix of its payload
        assert len(got) == 3 and got[2].missing_bytes > 0 and got[2].error_kind is None
        assert recs[2].payload.startswith(got[2].payload) and len(got[2].payload) < len(recs[2].payload)
        assert isinstance(err, ArchiveError) and err.offset == recs[2].offset


def test_truncated_uncompressed_inside_block(tmp_path):
    data = open(_local("warcio/example.warc"), "rb").read()
    recs, _ = read_all(_local("warcio/example.warc"))
    cut = recs[2].offset + recs[2].length - 100
    p = tmp_path / "cut.warc"
    p.write_bytes(data[:cut])
    got, err = read_all(str(p))
    # the cut record keeps the bytes there (issue 25): 100 bytes of its block are missing
    assert len(got) == 3 and got[2].error_kind is None and got[2].missing_bytes == 100
    assert got[2].payload and recs[2].payload.startswith(got[2].payload)
    assert "cut short" in got[2].warning
    assert err.offset == recs[2].offset and "cut short" in err.message


@pytest.mark.parametrize("name, into", [("warcio/example.warc.gz", 40), ("warcio/example.warc", 60)])
def test_truncated_inside_warc_header(tmp_path, name, into):
    data = open(_local(name), "rb").read()
    recs, _ = read_all(_local(name))
    p = tmp_path / os.path.basename(name)
    p.write_bytes(data[: recs[2].offset + into])  # the file ends inside the third record's header
    for reader in ("auto", "warcio"):
        got, err = read_all(str(p), reader=reader)
        assert [r.error_kind for r in got[:2]] == [None, None]
        assert all(r.error_kind == "truncated" and r.payload is None for r in got[2:])
        assert isinstance(err, ArchiveError) and err.offset == recs[2].offset
        assert "cut short" in err.message


def test_garbage_between_records(tmp_path):
    data, recs = _records_gz_members(_local("warcio/example.warc.gz"))
    split = recs[3].offset
    p = tmp_path / "garbage.warc.gz"
    p.write_bytes(data[:split] + b"this is not a record\r\n" * 3 + data[split:])
    ref, ref_failed = warcio_reference(str(p))
    got, err = read_all(str(p))
    assert len(got) == len(ref)
    assert (err is not None) == ref_failed
    assert _outcome(str(p), "auto") == _outcome(str(p), "warcio")


@pytest.mark.parametrize("delta", [-7, +7])
def test_lying_content_length(tmp_path, delta):
    raw = open(_local("warcio/example.warc"), "rb").read()
    recs, _ = read_all(_local("warcio/example.warc"))
    resp = recs[2]
    old = b"Content-Length: 975\r\n"
    i = raw.index(old, resp.offset)
    p = tmp_path / "lie.warc"
    p.write_bytes(raw[:i] + b"Content-Length: %d\r\n" % (975 + delta) + raw[i + len(old) :])
    got, err = read_all(str(p))
    ref, ref_failed = warcio_reference(str(p))
    assert sum(r.record_type in PAYLOAD_TYPES for r in got) == sum(t in PAYLOAD_TYPES for _, t in ref)
    assert (err is not None) or not ref_failed
    assert _outcome(str(p), "auto") == _outcome(str(p), "warcio")


def test_not_an_archive(tmp_path):
    p = tmp_path / "x.warc"
    p.write_bytes(b"hello, this is not a WARC\n" * 10)
    got, err = read_all(str(p))
    assert got == [] and err.offset == 0
    p = tmp_path / "x.warc.gz"
    p.write_bytes(gzip.compress(b"hello, this is not a WARC\n" * 10))
    got, err = read_all(str(p))
    assert got == [] and err.offset == 0


def test_missing_file():
    with pytest.raises(ArchiveError) as ei:
        list(iter_records("/nonexistent/file.warc.gz"))
    assert ei.value.path == "/nonexistent/file.warc.gz" and "cannot open" in ei.value.message


def test_empty_file(tmp_path):
    p = tmp_path / "empty.warc.gz"
    p.write_bytes(b"")
    assert read_all(str(p)) == ([], None)


def test_fuzz_mutated_archives_only_raise_archive_error(tmp_path):
    """Random byte flips, cuts and insertions: iteration ends normally or with ArchiveError."""
    rnd = random.Random(20261129)
    sources = [
        _local("warcio/example.warc.gz"),
        _local("warcio/example.warc"),
        _local("generated/codings.warc.gz"),
        _local("generated/codings.warc"),
    ]
    for n in range(80):
        data = bytearray(open(sources[n % len(sources)], "rb").read())
        for _ in range(rnd.randint(1, 4)):
            op = rnd.random()
            pos = rnd.randrange(len(data))
            if op < 0.4:
                data[pos] = rnd.randrange(256)
            elif op < 0.6:
                del data[pos : pos + rnd.randint(1, 50)]
            elif op < 0.8:
                data[pos:pos] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 20)))
            else:  # line structure: blank lines, bare LFs, a stray record start
                data[pos:pos] = rnd.choice([b"\r\n", b"\r\n\r\n", b"\n", b" ", b"WARC/1.0\r\n"])
        p = tmp_path / f"m{n}{'.warc.gz' if sources[n % len(sources)].endswith('gz') else '.warc'}"
        p.write_bytes(bytes(data))
        for reader in ("auto", "warcio"):
            recs, err = read_all(str(p), reader=reader, max_record_bytes=1 << 20)
            assert err is None or isinstance(err, ArchiveError)
        assert _outcome(str(p), "auto") == _outcome(str(p), "warcio"), p


# ------------------------------------------------------------------ random access


ROUNDTRIP = [
    _local("warcio/example.warc.gz"),
    _local("warcio/example.warc"),
    _local("warcio/example.arc"),
    _local("warcio/example.arc.gz"),
    _local("warcio/example-iana.org-chunked.warc"),
    _local("generated/codings.warc.gz"),
    _local("generated/codings.warc"),
    _local("jwarc/cc.warc.gz"),
]


@pytest.mark.parametrize("path", ROUNDTRIP, ids=_ids(ROUNDTRIP))
def test_read_record_at_roundtrip(path):
    recs, _ = read_all(path, max_record_bytes=1 << 20)
    assert recs
    for r in recs:
        assert read_record_at(path, r.offset, max_record_bytes=1 << 20) == r


@pytest.mark.corpus
def test_read_record_at_roundtrip_shared():
    paths = [
        "pywb/warcs/iana.warc.gz",
        "webarchive-discovery/gov.uk-revisit-warcs/BL-20140325121225068-00000-32090~opera~8443.warc.gz",
        "webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.arc.gz",
        "webarchive-discovery/compression/transfer_compression_brotli.warc",
    ]
    for rel in paths:
        path = _shared(rel)
        recs, _ = read_all(path)
        for r in recs:
            assert read_record_at(path, r.offset) == r, (rel, r.offset)


def test_read_record_at_reads_only_that_record(tmp_path):
    data, recs = _records_gz_members(_local("warcio/example.warc.gz"))
    # corrupt everything after the response member: reading it by offset must not notice
    p = tmp_path / "tail-garbage.warc.gz"
    end = recs[2].offset + recs[2].length
    p.write_bytes(data[:end] + b"\x00garbage" * 100)
    assert read_record_at(str(p), recs[2].offset) == dataclasses.replace(recs[2], warc_path=str(p))


def test_read_record_at_bad_offset():
    with pytest.raises(ArchiveError) as ei:
        read_record_at(_local("warcio/example.warc.gz"), 5)
    assert ei.value.offset == 5


# ------------------------------------------------------------------ Parquet of raw responses


def _write_parquet(path, rows, with_time=True):
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {
        "url": pa.array([r[0] for r in rows], pa.string()),
        "content_type": pa.array([r[1] for r in rows], pa.string()),
        "body": pa.array([r[2] for r in rows], pa.binary()),
    }
    if with_time:
        cols["fetch_time"] = pa.array(
            [dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)] * len(rows), pa.timestamp("s", tz="UTC")
        )
    pq.write_table(pa.table(cols), path, row_group_size=3)


def test_parquet_input(tmp_path):
    rows = [(f"http://p.test/{i}", "text/html; charset=utf-8" if i % 2 else None, b"<p>%d</p>" % i) for i in range(8)]
    rows.append(("http://p.test/null", "text/html", None))
    path = str(tmp_path / "raw.parquet")
    _write_parquet(path, rows)
    recs, err = read_all(path)
    assert err is None and len(recs) == 9
    r = recs[3]
    assert (r.offset, r.record_type, r.target_uri, r.payload) == (3, "response", "http://p.test/3", b"<p>3</p>")
    assert r.content_type_values == ["text/html; charset=utf-8"] and recs[2].content_type_values == []
    assert r.warc_date == "2026-01-02T03:04:05Z" and r.payload_length == len(b"<p>3</p>")
    assert recs[8].payload is None
    again, _ = read_all(path)
    assert [x.record_id for x in again] == [x.record_id for x in recs]
    assert len({x.record_id for x in recs}) == 9
    for x in recs:
        assert read_record_at(path, x.offset) == x
    too_big, _ = read_all(path, max_record_bytes=4)
    assert too_big[3].error_kind == "too-large" and too_big[3].payload is None


def test_parquet_missing_columns(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = str(tmp_path / "bad.parquet")
    pq.write_table(pa.table({"url": ["x"]}), path)
    recs, err = read_all(path)
    assert recs == [] and "body" in err.message and err.offset == 0


# ------------------------------------------------------------------ inputs


def test_iter_inputs(tmp_path):
    for rel in ["a/x.warc.gz", "a/b/y.arc", "a/b/z.parquet", "a/notes.txt", "c.warc", "d.arc.gz"]:
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"")
    t = str(tmp_path)
    got = iter_inputs([f"{t}/a", f"{t}/*.warc", f"{t}/d.arc.gz", f"{t}/a/x.warc.gz"])
    assert got == sorted(
        [f"{t}/a/x.warc.gz", f"{t}/a/b/y.arc", f"{t}/a/b/z.parquet", f"{t}/c.warc", f"{t}/d.arc.gz"]
    )
    assert iter_inputs([f"{t}/a/notes.txt"]) == [f"{t}/a/notes.txt"]  # an explicit file is taken as given
    assert iter_inputs([f"{t}/**/*.arc*"]) == sorted([f"{t}/a/b/y.arc", f"{t}/d.arc.gz"])
    with pytest.raises(FileNotFoundError, match="nothing"):
        iter_inputs([f"{t}/nothing*"])


# ------------------------------------------------------------------ ranges (parallel reading of one file)


RANGE_FILES = [
    _local("warcio/example.warc.gz"),
    _local("warcio/example.warc"),
    _local("warcio/example.arc"),
    _local("warcio/example.arc.gz"),
    _local("generated/codings.warc.gz"),
    _local("generated/codings.warc"),
    _local("jwarc/fold.warc"),
]


@pytest.mark.parametrize("path", RANGE_FILES, ids=_ids(RANGE_FILES))
def test_find_record_start_exact(path):
    recs, _ = read_all(path, max_record_bytes=1 << 20)
    offsets = [r.offset for r in recs]
    for i, off in enumerate(offsets):
        assert find_record_start(path, off) == off
        following = offsets[i + 1] if i + 1 < len(offsets) else None
        assert find_record_start(path, off + 1) == following


def _ranges_equal_whole(path, parts, **kw):
    whole, err = read_all(path, **kw)
    assert err is None
    size = os.path.getsize(path)
    starts = [0]
    for k in range(1, parts):
        s = find_record_start(path, size * k // parts)
        if s is not None and s > starts[-1]:
            starts.append(s)
    got = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else None
        stream = iter_records(path, start=start, end=end, **kw)
        got.extend(stream)
        assert stream.next_offset == end
    assert got == whole
    return len(starts)


@pytest.mark.parametrize("path", RANGE_FILES, ids=_ids(RANGE_FILES))
@pytest.mark.parametrize("parts", [2, 3, 5])
def test_ranges_read_the_whole_file(path, parts):
    _ranges_equal_whole(path, parts, max_record_bytes=1 << 20)


@pytest.mark.corpus
def test_ranges_read_the_whole_file_shared():
    path = _shared("pywb/warcs/iana.warc.gz")
    assert _ranges_equal_whole(path, 4) == 4


def test_ranges_parquet(tmp_path):
    rows = [(f"http://p.test/{i}", "text/html", b"<p>%d</p>" % i) for i in range(10)]
    path = str(tmp_path / "raw.parquet")
    _write_parquet(path, rows)
    assert find_record_start(path, 4) == 4 and find_record_start(path, 10) is None
    first = iter_records(path, end=4)
    assert [r.offset for r in first] == [0, 1, 2, 3] and first.next_offset == 4
    rest = iter_records(path, start=4)
    assert [r.offset for r in rest] == list(range(4, 10)) and rest.next_offset is None


def test_range_start_inside_a_record_is_caught(tmp_path):
    """A WARC stored inside a payload fakes a record start; next_offset of the range before says so."""
    inner = open(_local("warcio/example.warc"), "rb").read()
    outer_block = b"HTTP/1.1 200 OK\r\nContent-Type: application/warc\r\n\r\n" + inner
    head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:outer>\r\n"
        b"WARC-Target-URI: http://x.test/a.warc\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n"
        b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n" % len(outer_block)
    )
    p = tmp_path / "nested.warc"
    p.write_bytes(head + outer_block + b"\r\n\r\n")
    fake = find_record_start(str(p), 10)
    assert fake is not None and fake > 0  # the inner file's first record looks like a start
    first = iter_records(str(p), end=fake)
    assert len(list(first)) == 1
    assert first.next_offset is None  # it read to the end: ``fake`` was not a record of this file


# ------------------------------------------------------------------ ARC records without blank lines


def _arc_by_declared_lengths(data: bytes) -> list[tuple[int, int, bytes]]:
    """(offset, length, URL) of each ARC v1 record, walking the declared lengths as the Java ARC
    readers do (the header line, then Archive-length bytes; newlines between records skipped, none
    required). Written from the ARC file format description, independently of the readers."""
    out = []
    pos = 0
    while pos < len(data):
        while data[pos:pos + 1] in (b"\n", b"\r"):
            pos += 1
        if pos >= len(data):
            break
        eol = data.index(b"\n", pos)
        fields = data[pos:eol].split(b" ")
        end = eol + 1 + int(fields[-1])
        out.append((pos, end - pos, fields[0]))
        pos = end
    return out


@pytest.mark.corpus
def test_arc_without_blank_lines_read_by_declared_lengths():
    """Heritrix's IAH-20080430204825-00000-blackbook-truncated.arc (webarchive-commons' own test
    file, via webarchive-discovery): no newline between its records. warcio skips the first line
    after each block, so reading stopped at the second record; the declared lengths give 9."""
    path = _shared("webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.arc")
    with open(path, "rb") as f:
        walked = _arc_by_declared_lengths(f.read())
    assert len(walked) == 9
    recs, err = read_all(path)
    assert err is None
    assert [(r.offset, r.length) for r in recs] == [(o, n) for o, n, _ in walked]
    assert [r.target_uri for r in recs[1:]] == [u.decode() for _, _, u in walked[1:]]
    assert all(r.record_type == "response" and r.error_kind is None for r in recs[1:])
    for r in recs:
        assert read_record_at(path, r.offset) == r
    # the same records as the file's gzip-per-record copy, which always read
    gz, _ = read_all(path + ".gz")
    assert [_fields_but_extent(r) for r in recs] == [_fields_but_extent(r) for r in gz]


def _fields_but_extent(r):
    d = dataclasses.asdict(r)
    for k in ("warc_path", "offset", "length", "record_id"):
        d.pop(k)
    return d


def test_arc_without_blank_lines_fixture():
    path = os.path.join(HERE, "data", "broken", "arc-no-blank-lines.arc")
    with open(path, "rb") as f:
        walked = _arc_by_declared_lengths(f.read())
    recs, err = read_all(path)
    assert err is None and len(recs) == len(walked) == 4
    assert [(r.offset, r.length) for r in recs] == [(o, n) for o, n, _ in walked]


def test_record_factory_is_the_dataclass():
    """warc._record (a record without the keyword call) sets every field of ArchiveRecord: the
    ones it is given, the HTTP ones empty, the rest their dataclass defaults."""
    from redecode.record import ArchiveRecord

    got = warc._record("a.warc.gz", 10, 20, "response", "<urn:x>", "http://e.x/", "2024-01-01T00:00:00Z",
                       30, "sha1:X", "a warning")
    want = ArchiveRecord(warc_path="a.warc.gz", offset=10, length=20, record_type="response", record_id="<urn:x>",
                         target_uri="http://e.x/", warc_date="2024-01-01T00:00:00Z", content_type_values=[],
                         http_status=None, http_headers=None, payload=None, payload_length=30,
                         payload_digest="sha1:X", warning="a warning")
    assert got == want
    for f in dataclasses.fields(ArchiveRecord):  # (a field added later must be set by the factory too)
        assert getattr(got, f.name) == getattr(want, f.name), f.name
    assert got.content_type_values is not warc._record("b", 0, 0, "", None, None, None, 0, None, None).content_type_values


@pytest.mark.parametrize("headers", [
    [],
    [("Content-Type", "text/html"), ("content-type", "a"), ("CONTENT-TYPE", "b")],
    [("Content-Encoding", "gzip")], [("Transfer-Encoding", "chunked")], [("TRANSFER-encoding", "")],
    [("Content-Typ", "x"), ("Content-Types", "y"), ("Content-Type ", "z"), ("Content-\u0130ype", "w")],
    [("K\u212aContent-Type", "k"), ("Content-Encodin\u212a", "k"), ("X", "1"), ("", "")],
])
def test_head_facts_are_the_pure_ones(headers):
    pure = warc._head_facts_pure(headers)
    if warc._head_facts is not None:
        assert warc._head_facts(headers) == pure
    want_ct = [v for k, v in headers if k.lower() == "content-type"]
    assert pure == (want_ct, any(k.lower() in ("content-encoding", "transfer-encoding") for k, _ in headers))
