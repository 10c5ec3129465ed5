"""A file cut short anywhere inside a record is never read as complete, whatever the record type.

The oracle is warcio's reading of the whole file (record offsets and lengths): a copy of the file
cut at a record boundary is a complete, shorter archive; cut inside a record's header or block,
reading it must end in ArchiveError (the job's outcome ``truncated`` or ``error``), also when the
cut record is a request or metadata record that gets no row (a fresh user found such a cut
reported as complete).
"""

from __future__ import annotations

import os

import pytest
from warcio.archiveiterator import ArchiveIterator

from redecode.archive import ArchiveError, iter_records

HERE = os.path.dirname(__file__)
FILES = [
    os.path.join(HERE, "data", "warcs", "warcio", name)
    for name in ("example.warc", "example.warc.gz", "example-digest.warc", "example-iana.org-chunked.warc",
                 "example-resource.warc.gz")
] + [os.path.join(HERE, "data", "warcs", "jwarc", "cc.warc.gz"),
     os.path.join(HERE, "data", "warcs", "generated", "codings.warc")]


def _extents(path: str, data: bytes) -> list[tuple[int, int, int]]:
    """(start, end of header + block, start of the next record) of each record: offsets and
    Content-Length from warcio on the whole file. gzip: a record is its member, start to end."""
    starts, lengths = [], []
    with open(path, "rb") as f:
        it = ArchiveIterator(f)
        for record in it:
            starts.append(it.get_record_offset())
            lengths.append(int(record.rec_headers.get_header("Content-Length")))
    ends = starts[1:] + [len(data)]
    if path.endswith(".gz"):
        return [(s, e, e) for s, e in zip(starts, ends)]
    return [(s, data.index(b"\r\n\r\n", s) + 4 + n, e) for s, n, e in zip(starts, lengths, ends)]


def _cuts(extents: list[tuple[int, int, int]]) -> list[tuple[int, bool]]:
    """(cut position, must fail) for positions inside records and at their boundaries (a cut in
    the blank lines after a block is left out: neither reading is wrong there)."""
    cuts = []
    for start, body_end, end in extents:
        for p in (start + 1, start + 10, (start + body_end) // 2, body_end - 1):
            if start < p < body_end:
                cuts.append((p, True))
        cuts.append((end, False))  # a record boundary: a complete, shorter archive
    return sorted(set(cuts))


def _reads_to_end(path: str) -> bool:
    try:
        for _ in iter_records(path):
            pass
    except ArchiveError:
        return False
    return True


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p) for p in FILES])
def test_a_cut_inside_any_record_is_never_complete(path, tmp_path):
    with open(path, "rb") as f:
        data = f.read()
    extents = _extents(path, data)
    assert extents
    wrong = []
    for pos, must_fail in _cuts(extents):
        cut = tmp_path / f"cut-{pos}{'.warc.gz' if path.endswith('.gz') else '.warc'}"
        cut.write_bytes(data[:pos])
        complete = _reads_to_end(str(cut))
        if complete == must_fail:
            wrong.append((pos, "read as complete" if complete else "refused at a record boundary"))
        cut.unlink()
    assert wrong == []
