"""The sample crawl (``sample_warcs/``) decodes as its answer key says (issue 5).

The answer key ``sample_warcs/expected.jsonl`` is written by ``tools/make_sample_warcs.py`` from the
standards and the pages' true encodings, with its own reference decoder built from the WHATWG index
files; it never uses this project's decoder. Here the job runs on the whole directory through the
library (``redecode.job.run``) and every output row is checked against the key.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import shared_paths

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_warcs"
GENERATOR = ROOT / "tools" / "make_sample_warcs.py"
CORPUS = shared_paths.CORPUS
BROWSER_STEPS = ("bom", "transport", "prescan", "head-scan", "xml-declaration", "utf8-valid", "detector", "default")
COLUMNS = ["record_id", "warc_path", "warc_offset", "target_uri", "record_type", "encoding", "source",
           "status", "skip_reason", "decode_errors", "text", "error"]


def _expected() -> list[dict]:
    with (SAMPLE / "expected.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


EXPECTED = _expected()


def _key_of_expected(e: dict) -> tuple[str, str | int]:
    # Parquet rows have no WARC-Record-ID (the job synthesises one): match them by file and row
    # index, which the job writes as warc_offset (sample_warcs/README.md, "The answer key").
    if e["record_id"] is not None:
        return ("id", e["record_id"].strip("<>"))
    return (e["input"], e["row"])


def _key_of_row(r: dict) -> tuple[str, str | int]:
    if os.path.basename(r["warc_path"] or "").endswith(".parquet"):
        return (os.path.basename(r["warc_path"]), r["warc_offset"])
    return ("id", (r["record_id"] or "").strip("<>"))


@pytest.fixture(scope="module", params=["browser-2026.11", "author-2026.12"])
def rows(request, tmp_path_factory) -> dict[tuple[str, str], list[dict]]:
    """The job's rows for ``sample_warcs/``, by answer-key key (a list, to catch duplicates), under
    the browser rules and the default (author's-text) rules: the sample's pages declare their
    encodings truly or not at all, so both give the key's text (the author's rules weigh, and keep,
    the meta that disagrees with a true header)."""
    from redecode.job import run

    import pyarrow.parquet as pq

    out = tmp_path_factory.mktemp("sample-run")
    run([str(SAMPLE)], str(out), rules=request.param, workers=1, quiet=True)
    parts = sorted(out.glob("*.parquet"))
    assert parts, f"the job wrote no Parquet part into {out}"
    by_key: dict[tuple[str, str], list[dict]] = {}
    for part in parts:
        for r in pq.read_table(part, columns=COLUMNS).to_pylist():
            by_key.setdefault(_key_of_row(r), []).append(r)
    return by_key


def test_one_row_per_answer_key_record(rows):
    expected_keys = {_key_of_expected(e) for e in EXPECTED}
    assert len(expected_keys) == len(EXPECTED)
    missing = sorted(k for k in expected_keys if k not in rows)
    extra = sorted(k for k in rows if k not in expected_keys)
    duplicated = sorted(k for k, v in rows.items() if len(v) > 1)
    assert (missing, extra, duplicated) == ([], [], [])


@pytest.mark.parametrize("e", EXPECTED, ids=[e["case"] for e in EXPECTED])
def test_record_decodes_as_the_answer_key_says(rows, e):
    found = rows.get(_key_of_expected(e))
    assert found, f"no row for {e['case']} ({e['input']} {e['target_uri']})"
    r = found[0]
    assert r["target_uri"] == e["target_uri"]
    assert (r["status"], r["skip_reason"], r["error"]) == (e["status"], e["skip_reason"], None)
    if e["status"] == "skipped":
        assert (r["encoding"], r["text"]) == (None, None)
    else:
        assert r["encoding"] in [e["encoding"], *e["equivalent_encodings"]], (r["encoding"], e["encoding"])
        assert r["source"] == e["source"]
        assert r["decode_errors"] == e["decode_errors"]
        assert not r["text"].startswith("\ufeff")
        got = hashlib.sha256(r["text"].encode("utf-8")).hexdigest()
        assert got == e["text_sha256"], f"text of {e['case']} differs from the answer key"


def test_parquet_rows_are_row_indexes_of_the_file():
    """``row`` of a Parquet entry is the 0-based row index in that file (not the key's line number)."""
    import pyarrow.parquet as pq

    for name in {e["input"] for e in EXPECTED if e["input"].endswith(".parquet")}:
        urls = pq.read_table(SAMPLE / name, columns=["url"]).column("url").to_pylist()
        entries = [e for e in EXPECTED if e["input"] == name]
        assert sorted(e["row"] for e in entries) == list(range(len(urls)))
        assert all(urls[e["row"]] == e["target_uri"] for e in entries)


def test_every_browser_step_occurs(rows):
    seen = {r["source"] for found in rows.values() for r in found if r["status"] == "decoded"}
    assert set(BROWSER_STEPS) <= seen, sorted(set(BROWSER_STEPS) - seen)
    assert set(BROWSER_STEPS) <= {e["source"] for e in EXPECTED}


def test_sample_is_small():
    total = sum(p.stat().st_size for p in SAMPLE.iterdir() if p.is_file())
    assert total < 10 * 1024 * 1024


def _sha256_tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_generator_rebuilds_identical_bytes(tmp_path):
    if not (CORPUS / "MANIFEST.md").exists():
        pytest.skip(shared_paths.absent(CORPUS / "MANIFEST.md"))
    out = tmp_path / "sample"
    subprocess.run([sys.executable, str(GENERATOR), "--corpus", str(CORPUS), "--out", str(out)],
                   check=True, capture_output=True)
    assert _sha256_tree(out) == _sha256_tree(SAMPLE)


def test_reference_decoder_matches_encoding_rs_vectors():
    """The answer key's own decoder reproduces encoding_rs' decode vectors (errors included)."""
    data = CORPUS / "encoding_rs-test-data" / "test_data"
    if not data.exists():
        pytest.skip(shared_paths.absent(data))
    spec = importlib.util.spec_from_file_location("make_sample_warcs", GENERATOR)
    gen = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, gen)  # dataclasses look their module up while the class is built
    spec.loader.exec_module(gen)
    ref = gen.RefDecoder(CORPUS / "whatwg-encoding")
    for name, encoding in (("big5", "Big5"), ("euc_kr", "EUC-KR"), ("gb18030", "gb18030"),
                           ("jis0208", "EUC-JP"), ("jis0212", "EUC-JP"), ("shift_jis", "Shift_JIS")):
        text, _ = ref.decode((data / f"{name}_in.txt").read_bytes(), encoding)
        assert text == (data / f"{name}_in_ref.txt").read_bytes().decode("utf-8"), name
