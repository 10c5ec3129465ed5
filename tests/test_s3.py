"""Object storage (issue 11) against an S3-compatible server started here: moto in server mode on
127.0.0.1, a free port, credentials and endpoint given the standard way (AWS_* environment
variables). Skipped with the reason when s3fs or moto (the ``[s3]`` extra, ``moto[server]``) is
missing.

What is proved: outputs written to a bucket equal the local executor's (parts, rows, markers,
counts) and resume from the bucket; one record read back by offset costs a few ranged GETs, not
the file; inputs read from a bucket (a prefix, a glob, an ``@list`` in the bucket) give the local
run's rows, and ``read_record_at`` on an ``s3://`` URL reads the record with ranged reads.
"""

from __future__ import annotations

import collections
import glob
import io
import json
import os

import pyarrow.parquet as pq
import pytest

pytest.importorskip("s3fs", reason="s3fs not installed (pip install '.[s3]')")
pytest.importorskip("moto.server", reason="moto[server] not installed (pip install 'moto[server]')")

from redecode import archive, inputs, job, spark, storage  # noqa: E402
from s3_server import s3  # noqa: E402,F401 - the fixture

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "sample_warcs"))
_RUN_KEYS = ("started_at", "finished_at", "wall_seconds", "cpu_seconds", "executor")


def _archive_reads_urls() -> bool:
    """True once archive.py opens inputs through redecode.storage (the integrator's hook)."""
    return "storage" in vars(archive) and "storage" in vars(job)


needs_hook = pytest.mark.skipif(
    not _archive_reads_urls(),
    reason="reading archives from s3:// needs the storage hook in archive.py/job.py (issue 11 report)",
)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("local") / "out")
    assert job.run([SAMPLE], out, workers=1).exit_code == 0
    return out


def local_parts(out: str) -> dict[str, list[dict]]:
    return {os.path.basename(p): pq.read_table(p).to_pylist() for p in sorted(glob.glob(os.path.join(out, "*.parquet")))}


def s3_parts(url: str) -> dict[str, list[dict]]:
    return {
        name: pq.read_table(io.BytesIO(storage.read_bytes(storage.join(url, name)))).to_pylist()
        for name in storage.listdir(url)
        if name.endswith(".parquet")
    }


def s3_json(url: str) -> dict:
    return json.loads(storage.read_bytes(url))


def _strip(manifest: dict) -> dict:
    return {k: v for k, v in manifest.items() if k not in _RUN_KEYS}


def _local_marker(out: str, name: str) -> dict:
    with open(os.path.join(out, "_done", name), encoding="utf-8") as f:
        return json.load(f)


def _no_times(marker: dict) -> dict:
    return {k: v for k, v in marker.items() if k not in ("wall_seconds", "cpu_seconds")}


# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_output_to_bucket_equals_local(s3, local_run):
    """Local archives, run directory in a bucket: the same parts and rows, markers, manifest
    counts; nothing temporary is ever uploaded; a rerun resumes from the bucket's markers."""
    out = "s3://run-out/run-local-inputs"
    summary = spark.run_spark([SAMPLE], out, master="inline")
    assert summary.exit_code == 0
    expected = local_parts(local_run)
    assert s3_parts(out) == expected
    assert sorted(storage.listdir(out)) == sorted([*expected, "_done", "_inputs", "_run.json"])
    for name in storage.listdir(storage.join(out, "_done")):
        assert _no_times(s3_json(storage.join(out, "_done", name))) == _no_times(_local_marker(local_run, name))
    with open(os.path.join(local_run, "_run.json"), encoding="utf-8") as f:
        assert _strip(s3_json(storage.join(out, "_run.json"))) == _strip(json.load(f))

    again = spark.run_spark([SAMPLE], out, master="inline")
    assert again.manifest["executor"]["tasks"] == 0 and again.counts == summary.counts


def test_ranged_read_of_records_by_offset(s3, local_run):
    """Backfill's access pattern: seek to a record's warc_offset in an s3:// object and read just
    that gzip member; the bytes fetched are about the record's, far fewer than the file's."""
    from warcio.archiveiterator import ArchiveIterator

    name = "sample-crawl-00000.warc.gz"
    url = f"s3://arc-in/crawl/{name}"
    size = storage.size(url)
    rows = [r for rows in local_parts(local_run).values() for r in rows if r["warc_path"].endswith(name)]
    picked = [rows[len(rows) // 3], rows[-1]]
    before = storage.STATS.bytes_fetched, storage.STATS.requests
    for row in picked:
        with storage.open_input(url) as f:
            f.seek(row["warc_offset"])
            record = next(iter(ArchiveIterator(f)))
            assert record.rec_headers.get_header("WARC-Record-ID") == row["record_id"]
            assert record.rec_headers.get_header("WARC-Target-URI") == row["target_uri"]
    fetched = storage.STATS.bytes_fetched - before[0]
    requests = storage.STATS.requests - before[1]
    budget = sum(max(r["warc_length"], storage.MIN_BLOCK) + storage.MIN_BLOCK for r in picked)
    print(f"2 records by offset: {requests} ranged GETs, {fetched} of {size} bytes")
    assert 0 < fetched <= budget and fetched < size / 2
    assert requests <= 2 * len(picked)


def test_ranged_reader_streams_with_growing_blocks(s3):
    """Reading a whole object: the bytes are the file's, in few GETs (the block doubles)."""
    path = inputs.iter_inputs([SAMPLE])[0]
    with open(path, "rb") as f:
        want = f.read()
    with storage.open_input(f"s3://arc-in/crawl/{os.path.basename(path)}", min_block=4096, max_block=65536) as f:
        got = b"".join(iter(lambda: f.read(1000), b""))
        assert f.stats.bytes_fetched == len(want)
        assert f.stats.requests <= 4 + len(want) // 65536
        f.seek(-10, io.SEEK_END)
        assert f.read() == want[-10:]
    assert got == want


def test_expand_remote_inputs(s3):
    crawl = [f"s3://arc-in/crawl/{os.path.basename(p)}" for p in inputs.iter_inputs([SAMPLE])]
    assert inputs.expand_inputs(["s3://arc-in/crawl/"]) == crawl
    assert inputs.expand_inputs(["s3://arc-in/crawl/*.warc.gz"]) == [u for u in crawl if u.endswith(".warc.gz")]
    assert inputs.expand_inputs(["@s3://arc-in/list.txt"]) == crawl
    with pytest.raises(FileNotFoundError):
        inputs.expand_inputs(["s3://arc-in/nothing/*.warc.gz"])


def test_expand_remote_reports_archive_like_files_not_read(s3):
    """Archive-like names that are no input are reported, never passed over; a WACZ is an input
    (issue 26), and one that is not a zip is reported as unreadable."""
    s3.pipe_file("arc-in/mixed/a.warc.gz.bad", b"x")
    s3.pipe_file("arc-in/mixed/b.wacz", b"x")
    s3.pipe_file("arc-in/mixed/README.md", b"x")
    for p in inputs.iter_inputs([SAMPLE]):
        if p.endswith(".warc.gz"):
            s3.put_file(p, f"arc-in/mixed/{os.path.basename(p)}")
            break
    not_read: list[str] = []
    unreadable: dict[str, str] = {}
    got = inputs.expand_inputs(["s3://arc-in/mixed/"], not_read, unreadable)
    assert [u.rsplit("/", 1)[1] for u in got] == [os.path.basename(p)]
    assert sorted(not_read) == ["s3://arc-in/mixed/a.warc.gz.bad", "s3://arc-in/mixed/b.wacz"]
    assert list(unreadable) == ["s3://arc-in/mixed/b.wacz"] and "not a zip" in unreadable["s3://arc-in/mixed/b.wacz"]
    not_read = []
    inputs.expand_inputs(["s3://arc-in/mixed/*"], not_read, {})
    assert sorted(not_read) == ["s3://arc-in/mixed/a.warc.gz.bad", "s3://arc-in/mixed/b.wacz"]


@needs_hook
def test_inputs_from_bucket_equal_local(s3, local_run):
    """Archives and run directory both in buckets (inputs as an ``@list`` in the bucket): the local
    run's rows, except that warc_path is the URL."""
    out = "s3://run-out/run-s3-inputs"
    summary = spark.run_spark(["@s3://arc-in/list.txt"], out, master="inline")
    assert summary.exit_code == 0
    got = {_archive_of(rows): rows for rows in s3_parts(out).values()}
    expected = {_archive_of(rows): rows for rows in local_parts(local_run).values()}
    assert sorted(got) == sorted(expected)
    for name, rows in expected.items():
        url = f"s3://arc-in/crawl/{name}"
        assert got[name] == [{**r, "warc_path": url} for r in rows], name
    assert summary.counts == s3_json(storage.join(out, "_run.json"))["counts"]
    with open(os.path.join(local_run, "_run.json"), encoding="utf-8") as f:
        assert summary.counts == json.load(f)["counts"]


def _archive_of(rows: list[dict]) -> str:
    return os.path.basename(rows[0]["warc_path"])


@needs_hook
def test_read_record_at_url_uses_ranged_reads(s3, local_run):
    """``archive.read_record_at("s3://...", offset)`` (what backfill calls) gives the record
    iter_records gave, fetching about the record, not the file."""
    name = "sample-crawl-00000.warc.gz"
    local_path = os.path.join(SAMPLE, name)
    url = f"s3://arc-in/crawl/{name}"
    rows = [r for rows in local_parts(local_run).values() for r in rows if r["warc_path"] == local_path]
    row = rows[len(rows) // 2]
    before = storage.STATS.bytes_fetched
    remote = archive.read_record_at(url, row["warc_offset"])
    fetched = storage.STATS.bytes_fetched - before
    local = archive.read_record_at(local_path, row["warc_offset"])
    assert remote.warc_path == url
    local.warc_path = url
    assert remote == local
    assert fetched < storage.size(url) / 2
    print(f"read_record_at over S3: {fetched} bytes fetched for a {row['warc_length']}-byte record")


@pytest.mark.slow
def test_spark_tasks_write_to_bucket(s3, local_run):
    """local[2] Spark tasks (separate Python workers) reach the bucket with the driver's AWS_*
    settings (forwarded) and publish the same parts."""
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install '.[spark]')")
    out = "s3://run-out/run-spark"
    summary = spark.run_spark(
        [SAMPLE],
        out,
        master="local[2]",
        spark_conf={
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.driver.extraJavaOptions": "-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
        },
    )
    assert summary.manifest["executor"]["name"] == "spark" and summary.manifest["executor"]["tasks"] == 4
    assert s3_parts(out) == local_parts(local_run)


@pytest.mark.slow
@needs_hook
def test_backfill_reads_bucket_archives_by_range(s3, tmp_path):
    """Issue 11: a backfill over archives in a bucket re-reads only the records it needs, by
    ranged reads, and its output equals a full run with the new rules over the same URLs."""
    from redecode import job
    from redecode.backfill import backfill

    inputs = ["@s3://arc-in/list.txt"]
    prior, full, out = (str(tmp_path / n) for n in ("prior", "full", "bf"))
    job.run(inputs, prior, rules="seed-2026.10")
    job.run(inputs, full, rules="browser-2026.11")
    before = storage.STATS.bytes_fetched
    summary = backfill(prior, "browser-2026.11", out)
    fetched = storage.STATS.bytes_fetched - before
    assert summary.exit_code == 0
    assert local_parts(out) == local_parts(full)
    stats = summary.stats
    assert 0 < stats["rows_reread"] < stats["rows"]
    # ranged reads: the records re-read plus a bounded overhead per record (the ranged reader's
    # first block is 16 KiB, and the file kind is sniffed from its first bytes), not whole files
    assert fetched <= stats["bytes_read"] + stats["rows_reread"] * 64 * 1024


@needs_hook
def test_read_records_at_url_coalesces_ranged_reads(s3):
    """``archive.read_records_at("s3://...", spans)`` (what an index-driven run and backfill call)
    gives the records iter_records gives; spans close together share one ranged GET, spans far
    apart get one each (a GET per span, at most)."""
    name = "sample-crawl-00000.warc.gz"
    local_path = os.path.join(SAMPLE, name)
    url = f"s3://arc-in/crawl/{name}"
    local = list(archive.iter_records(local_path))
    spans = [(r.offset, r.length) for r in local]
    before = storage.STATS.requests
    remote = list(archive.read_records_at(url, spans))
    requests = storage.STATS.requests - before
    for r in local:
        r.warc_path = url
    assert remote == local
    assert requests <= 2  # the file's head, then every record in one GET (they are adjacent)
    every_other = spans[::3]
    before = storage.STATS.requests
    assert list(archive.read_records_at(url, every_other)) == local[::3]
    assert storage.STATS.requests - before <= 1 + len(every_other)


@pytest.mark.slow
def test_run_from_a_columnar_index_in_the_bucket(s3, local_run, tmp_path):
    """Common Crawl's way, on the local S3 server: the columnar index (Parquet, crawl=/subset=
    folders) in the bucket, ``--where`` over it, ``--prefix s3://commoncrawl/``: each selected
    record read by a ranged GET; the rows are the local full run's for those records."""
    import importlib.util

    from redecode.index import read_index
    from s3_server import CC_CRAWL, cc_key

    spec = importlib.util.spec_from_file_location("make_cc_index_s3", os.path.join(HERE, "..", "tools", "make_cc_index.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    warcs = sorted(glob.glob(os.path.join(SAMPLE, "*.warc.gz")))
    rows = [dict(r, warc_filename=cc_key(p)) for p in warcs for r in tool.index_rows(p, os.path.basename(p))]
    local = tmp_path / "table"
    part = tool.write_parquet(rows, str(local), crawl=CC_CRAWL[len("crawl-data/"):])
    table = "s3://commoncrawl/cc-index/table/cc-main/warc/"
    s3.put_file(part, f"{table[len('s3://'):]}{os.path.relpath(part, local)}")
    condition = "content_mime_type = 'text/html' AND fetch_status = 200 AND crawl = 'CC-MAIN-2026-44'"
    picked = [r for r in rows if r["content_mime_type"] == "text/html" and r["fetch_status"] == 200]
    index = read_index(table, prefix="s3://commoncrawl/", where=condition)
    assert index.selected == len(picked) > 0
    out = "s3://run-out/from-index"
    before = storage.STATS.requests
    with _ServerRequests() as requests:
        summary = job.run([], out, index=index, workers=1)
    gets = storage.STATS.requests - before
    assert summary.exit_code == 0
    # one HEAD per file before reading it (its fingerprint: size, ETag), one after (its size: an
    # object replaced while it was read); none in between (the reading takes the fingerprint's size)
    heads = collections.Counter(k for m, b, k in requests.seen if m == "HEAD" and b == "commoncrawl")
    assert sorted(heads) == sorted(path[len("s3://commoncrawl/"):] for path, _ in index.files), heads
    assert all(n <= 2 for n in heads.values()), heads
    got = [r for rows_ in s3_parts(out).values() for r in rows_]
    full = {r["record_id"]: r for rows_ in local_parts(local_run).values() for r in rows_}
    assert len(got) == len(picked)
    for r in got:
        assert r["warc_path"].startswith("s3://commoncrawl/crawl-data/")
        assert dict(r, warc_path=None) == dict(full[r["record_id"]], warc_path=None)
    assert (summary.counts["selected"], summary.counts["missing"]) == (len(picked), 0)
    # per file: its head, its records (close ones share a GET), the fingerprint's reads
    assert gets <= len(index.files) * 4 + len(picked)
    # another --where into the same --out is another selection: refused; --force replaces
    other = read_index(table, prefix="s3://commoncrawl/", where="fetch_status = 200")
    with pytest.raises(job.RunDirectoryConflict, match="record selection"):
        job.run([], out, index=other, workers=1)
    forced = job.run([], out, index=other, workers=1, force=True)
    got = [r for rows_ in s3_parts(out).values() for r in rows_]
    assert len(got) == other.selected == forced.counts["selected"] == forced.manifest["index"]["selected"]


@pytest.mark.slow
def test_common_crawl_walkthrough_of_the_docs(s3, tmp_path):
    """docs/operations.md's Common Crawl walk-through on the local S3 server, as written: the
    bucket laid out by tools/cc_local_bucket.py, then its `redecode run` and `redecode query`
    commands, whose closing line is the one the page quotes."""
    import importlib.util
    import re
    import shlex

    from click.testing import CliRunner

    from redecode_jobs.cli import cli

    text = open(os.path.join(HERE, "..", "docs", "operations.md"), encoding="utf-8").read()
    section = text[text.index("### Try it on the local S3 test server"):text.index("### On the real bucket")]
    block = section[section.index("```sh") + 5:section.index("```", section.index("```sh") + 5)]
    commands = [line for line in re.sub(r"\\\n\s*", " ", block).splitlines() if line.startswith(".venv/bin/redecode")]
    assert [c.split()[1] for c in commands] == ["run", "query"]
    spec = importlib.util.spec_from_file_location("cc_local_bucket", os.path.join(HERE, "..", "tools", "cc_local_bucket.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    cwd = os.getcwd()
    os.chdir(os.path.join(HERE, ".."))
    try:
        assert tool.main(sorted(glob.glob("sample_warcs/*.warc.gz"))) == 0
        # (the tool rewrote objects an earlier test of this module read: a new process sees them
        # afresh, this one's fsspec caches must be told)
        storage.filesystem("s3://commoncrawl")[0].invalidate_cache()
        results = [CliRunner().invoke(cli, shlex.split(c)[1:]) for c in commands]
    finally:
        os.chdir(cwd)
    assert results[0].exit_code == 0, results[0].output
    quoted = re.search(r"The run ends with `([^`]+)`", " ".join(section.split())).group(1)
    assert quoted in " ".join(results[0].output.split())
    assert results[1].exit_code == 0 and "windows-1251" in results[1].output


def test_wacz_in_the_bucket(s3, tmp_path):
    """A WACZ in a bucket: its WARC read where it lies by ranged reads, in full and through its
    index; a rerun finds it unchanged (its member's fingerprint, not a listing of its inside)."""
    import shared_paths

    from redecode.index import read_index

    wacz = shared_paths.CORPUS / "warcs" / "pywb" / "waczs" / "valid_example_1.wacz"
    if not wacz.exists():
        pytest.skip(shared_paths.absent(wacz))
    s3.put_file(str(wacz), "arc-in/waczs/crawl.wacz")
    url = "s3://arc-in/waczs/crawl.wacz"
    local = tmp_path / "local"
    job.run([str(wacz)], str(local))
    first = job.run([url], "s3://run-out/wacz")
    assert first.exit_code == 0 and [e["path"] for e in first.manifest["inputs"]] == [
        f"{url}#archive/example-collection.warc"]
    got = [r for rows in s3_parts("s3://run-out/wacz").values() for r in rows]
    want = [r for rows in local_parts(str(local)).values() for r in rows]
    assert [dict(r, warc_path=None) for r in got] == [dict(r, warc_path=None) for r in want]
    assert job.run([url], "s3://run-out/wacz").resumed == [f"{url}#archive/example-collection.warc"]
    indexed = job.run([], "s3://run-out/wacz-index", index=read_index(url))
    assert indexed.counts["selected"] == indexed.counts["read"] == 1


class _ServerRequests:
    """The requests moto's server (werkzeug) logs, as (method, bucket, prefix of a listing or key)."""

    def __init__(self) -> None:
        import logging
        import threading

        self.seen: list[tuple[str, str, str]] = []
        self._lock = threading.Lock()
        handler = logging.Handler()
        handler.emit = self._emit  # type: ignore[method-assign]
        self.handler = handler

    def _emit(self, record) -> None:
        import re
        from urllib.parse import parse_qs, unquote, urlsplit

        m = re.search(r'"(GET|PUT|HEAD|POST|DELETE) (\S+) HTTP', re.sub(r"\x1b\[[0-9;]*m", "", record.getMessage()))
        if not m:
            return
        method, target = m.groups()
        url = urlsplit(target)
        bucket, _, key = unquote(url.path).lstrip("/").partition("/")
        query = parse_qs(url.query)
        if method == "GET" and ("list-type" in query or "delimiter" in query or (not key and "location" not in url.query)):
            method, key = "LIST", query.get("prefix", [""])[0]
        with self._lock:
            self.seen.append((method, bucket, key))

    def __enter__(self) -> "_ServerRequests":
        import logging

        log = logging.getLogger("werkzeug")
        self._level, self._propagate = log.level, log.propagate
        log.setLevel(logging.INFO)
        log.addHandler(self.handler)
        return self

    def __exit__(self, *exc) -> None:
        import logging

        log = logging.getLogger("werkzeug")
        log.removeHandler(self.handler)
        log.setLevel(self._level)


def _tiny_warc(i: int) -> bytes:
    """One gzip member: one WARC response record with a small UTF-8 page."""
    import gzip
    import uuid

    body = f"<html><head><meta charset=\"utf-8\"><title>page {i}</title></head><body><p>Grüße {i}</p></body></html>".encode()
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.UUID(int=i)}>\r\n"
            f"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: http://example{i}.test/\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n").encode()
    return gzip.compress(head + http + b"\r\n\r\n", mtime=0)


@pytest.mark.slow
def test_a_rerun_with_nothing_to_do_lists_each_output_directory_once(s3, tmp_path):
    """Issue 26, done when: a rerun with nothing to do makes at most one listing request per output
    directory, no request per input (no HEAD, no GET of an input: sizes and ETags come from the
    inputs' listing) and one GET per task marker, besides the few requests of the run's lock.
    Counted on the server, in a fresh process (no listing cached from the first run), over 60 tiny
    inputs in 3 folders of a prefix."""
    import subprocess
    import sys

    n = 60
    for i in range(n):
        s3.pipe_file(f"arc-in/many/seg-{i % 3}/in-{i:03d}.warc.gz", _tiny_warc(i))
    out = "s3://run-out/many"
    command = [sys.executable, "-c", "from redecode_jobs.cli import main; main()", "run", "s3://arc-in/many/",
               "--out", out, "--max-part-bytes", str(16 << 20), "--workers", "1"]
    first = subprocess.run([*command, "--json"], capture_output=True, text=True, env=dict(os.environ))
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["counts"]["records_seen"] == n
    markers = [name for name in storage.listdir(f"{out}/_done") if name.endswith(".json")]
    assert 1 <= len(markers) < n  # a task holds many inputs
    with _ServerRequests() as requests:
        again = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ))
    assert again.returncode == 0, again.stderr
    assert f"{n} already complete, skipped" in " ".join(again.stderr.split()), again.stderr
    # the run's lock (issue 25: a conditional PUT, its checks and its removal): a few requests a run
    lock = [r for r in requests.seen if r[1:] == ("run-out", "many/_lock")]
    assert len(lock) <= 10, lock
    seen = [r for r in requests.seen if r[1:] != ("run-out", "many/_lock")]
    listings = collections.Counter((b, k) for m, b, k in seen if m == "LIST")
    ours = {k: c for (b, k), c in listings.items() if b == "run-out"}
    assert ours and all(c == 1 for c in ours.values()), listings  # once per output directory
    assert set(ours) <= {"many/", "many/_done/", "many/_inputs/"}, ours
    assert sum(c for (b, _), c in listings.items() if b == "arc-in") == 1, listings  # the inputs: one page
    assert not [r for r in seen if r[0] == "HEAD"], seen
    reads = [(b, k) for m, b, k in seen if m == "GET" and not (b == "run-out" and k.startswith("many/_done/"))]
    assert reads == [], reads  # no input read or fingerprinted, no part read
    assert sorted(k for m, b, k in seen if m == "GET" and b == "run-out") == sorted(
        f"many/_done/{name}" for name in markers)


@pytest.mark.slow
@pytest.mark.parametrize("layout", [[], ["--max-part-rows", "4", "--partition-by", "status"]],
                         ids=["flat", "partitioned"])  # (the two listings: of the folder, recursive)
def test_a_part_cut_short_in_the_bucket_is_made_again(s3, tmp_path, layout):
    """The sizes the markers record are compared with the bucket's listing (the one a rerun makes
    anyway): a part cut short in the bucket is made again, and the rows are whole."""
    import subprocess
    import sys

    for i in range(6):
        s3.pipe_file(f"arc-in/cut-{len(layout)}/in-{i}.warc.gz", _tiny_warc(i))
    out = f"s3://run-out/cut-{len(layout)}"
    command = [sys.executable, "-c", "from redecode_jobs.cli import main; main()", "run",
               f"s3://arc-in/cut-{len(layout)}/", "--out", out, "--workers", "1", *layout]
    first = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ))
    assert first.returncode == 0, first.stderr
    parts = sorted(p for p in storage.find(out) if p.endswith(".parquet") and "/_inputs/" not in p)
    victim = parts[-1]
    data = storage.read_bytes(victim)
    s3.pipe_file(victim.removeprefix("s3://"), data[:-20])
    again = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ))
    assert again.returncode == 0, again.stderr
    assert "with a part missing or damaged in --out, read again" in " ".join(again.stderr.split()), again.stderr
    assert storage.read_bytes(victim) == data
    rows = [r for p in parts for r in pq.read_table(io.BytesIO(storage.read_bytes(p))).to_pylist()]
    assert len(rows) == 6
