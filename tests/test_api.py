"""The public API (``import redecode``, issue 18 item 5): ``decode_payload``, ``iter_records``,
``get_rules``; its doctests run here, and what it answers is the answer key's and the job's.

The examples in docstrings are doctests: every module of ``lib/redecode`` that has one is run,
from the checkout's root (the examples name ``sample_warcs/`` files relative to it).
"""

from __future__ import annotations

import doctest
import hashlib
import importlib
import json
import pkgutil
from pathlib import Path

import pytest

import redecode
from redecode.row import record_row

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_warcs"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _doctests() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder()
    found = []
    names = ["redecode"] + [f"redecode.{m.name}" for m in pkgutil.iter_modules(redecode.__path__)]
    for name in sorted(names):
        module = importlib.import_module(name)
        found += [t for t in finder.find(module, name) if t.examples]
    return found


DOCTESTS = _doctests()


def test_the_api_has_doctests():
    names = {t.name for t in DOCTESTS}
    assert {"redecode", "redecode.api", "redecode.api.decode_payload"} <= names, sorted(names)


@pytest.mark.parametrize("test", DOCTESTS, ids=[t.name for t in DOCTESTS])
def test_doctest(test, monkeypatch):
    monkeypatch.chdir(ROOT)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {test.name} failed (see above)"


def test_exports():
    assert set(redecode.__all__) <= set(dir(redecode))
    assert redecode.iter_records is importlib.import_module("redecode.archive").iter_records
    assert redecode.get_rules is importlib.import_module("redecode.rules").get_rules
    assert redecode.get_rules(redecode.DEFAULT_RULES).name == redecode.DEFAULT_RULES


# ------------------------------------------------------------------ answers: the answer key's


def _expected() -> list[dict]:
    with (SAMPLE / "expected.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _sample_records() -> dict[tuple, redecode.ArchiveRecord]:
    """Every record of ``sample_warcs/`` by answer-key key: WARC-Record-ID, or (file, row) for
    Parquet, whose rows have no id (sample_warcs/README.md, "The answer key")."""
    out = {}
    for path in sorted(SAMPLE.iterdir()):
        if path.suffix not in (".gz", ".parquet"):
            continue
        for r in redecode.iter_records(str(path)):
            key = (path.name, r.offset) if path.suffix == ".parquet" else ("id", r.record_id.strip("<>"))
            out[key] = r
    return out


@pytest.fixture(scope="module")
def sample_records():
    return _sample_records()


def _key(e: dict) -> tuple:
    return ("id", e["record_id"].strip("<>")) if e["record_id"] is not None else (e["input"], e["row"])


DECODED = [e for e in _expected() if e["status"] == "decoded"]


@pytest.mark.parametrize("rules", ["author-2026.12", "browser-2026.11"])
@pytest.mark.parametrize("e", DECODED, ids=[e["case"] for e in DECODED])
def test_decode_payload_gives_the_answer_key(sample_records, e, rules):
    """Each decoded record of the sample, through the API, as ``sample_warcs/expected.jsonl`` (written
    from the pages' true encodings by its own reference decoder) says; both shipped rule sets that
    the sample's answer key holds for (see test_sample_answer_key.py)."""
    r = sample_records[_key(e)]
    got = redecode.decode_payload(r.payload, content_type=r.content_type_values, url=r.target_uri,
                                  rules=rules)
    assert got.decision.encoding in [e["encoding"], *e["equivalent_encodings"]]
    assert got.decision.source == e["source"]
    assert got.decoded.errors == e["decode_errors"]
    assert hashlib.sha256(got.text.encode("utf-8")).hexdigest() == e["text_sha256"]
    assert got.rules.name == rules


def test_not_text_records_are_refused(sample_records):
    """What the job skips as ``not-text`` the API refuses, with the way to decode it anyway."""
    not_text = [e for e in _expected() if e["skip_reason"] == "not-text"]
    assert not_text, "the sample has no not-text record"
    for e in not_text:
        r = sample_records[_key(e)]
        with pytest.raises(ValueError, match=r"^not text: the payload's MIME type is .*; pass kind="):
            redecode.decode_payload(r.payload, content_type=r.content_type_values, url=r.target_uri)


def test_decode_payload_is_the_jobs_decision(sample_records):
    """The same rules on the same bytes give the same answer as the job's row (record_row)."""
    rules = redecode.get_rules(redecode.DEFAULT_RULES)
    compared = 0
    for r in sample_records.values():
        if r.record_type not in ("response", "resource"):
            continue
        row = record_row(r, rules)
        if row["status"] != "decoded":
            continue
        got = redecode.decode_payload(r.payload, content_type=r.content_type_values, url=r.target_uri)
        assert (got.text, got.decision.encoding, got.decision.source, got.decision.confidence,
                got.decoded.errors, got.decision.browser_encoding) == (
                   row["text"], row["encoding"], row["source"], row["confidence"], row["decode_errors"],
                   row["browser_encoding"]), r.target_uri
        compared += 1
    assert compared >= 20


# ------------------------------------------------------------------ arguments


PAGE = "<p>Le café de la gare est fermé à cause des grèves.</p>".encode("windows-1252")


def test_content_type_values_in_header_order():
    """Fetch "extract a MIME type": a later value of the same essence keeps an earlier charset."""
    payload = "<p>中文网页内容</p>".encode("gbk")
    got = redecode.decode_payload(payload, content_type=["text/html; charset=gbk", "text/html"],
                                  rules="browser-2026.11")
    assert (got.decision.encoding, got.decision.source, got.decision.header_charset) == ("GBK", "transport", "gbk")
    got = redecode.decode_payload(payload, content_type=("text/html; charset=gbk", "text/plain"),
                                  rules="browser-2026.11")
    assert got.decision.source != "transport" and got.kind == "text"


def test_no_content_type_sniffs_the_kind():
    assert redecode.decode_payload(b"<!DOCTYPE html><p>x").kind == "html"
    assert redecode.decode_payload(b"<?xml version='1.0'?><a/>").kind == "xml"
    assert redecode.decode_payload(b"plain words").kind == "text"
    assert redecode.decode_payload(b"").text == ""


def test_rules_object_or_name():
    rules = redecode.get_rules("browser-2026.11")
    a = redecode.decode_payload(PAGE, content_type="text/html; charset=utf-8", rules=rules)
    b = redecode.decode_payload(PAGE, content_type="text/html; charset=utf-8", rules="browser-2026.11")
    assert a == b and a.rules is rules


def test_bytes_like_payloads():
    want = redecode.decode_payload(PAGE, content_type="text/html")
    assert redecode.decode_payload(bytearray(PAGE), content_type="text/html") == want
    assert redecode.decode_payload(memoryview(PAGE), content_type="text/html") == want


def test_errors():
    with pytest.raises(TypeError, match=r"^payload must be bytes \(the archived body\), not str"):
        redecode.decode_payload("<p>text</p>")
    with pytest.raises(TypeError):
        redecode.decode_payload(12)
    with pytest.raises(KeyError, match="unknown rules 'nope'; known rules: author-2026.12.6, author-2026.12.5, author-2026.12.4, author-2026.12.3, author-2026.12.2, author-2026.12, "):
        redecode.decode_payload(PAGE, rules="nope")
    with pytest.raises(ValueError, match=r"^kind must be one of html, xml, text, not 'json'$"):
        redecode.decode_payload(PAGE, kind="json")
    png = b"\x89PNG\r\n\x1a\n" + bytes(40)
    with pytest.raises(ValueError, match=r"^not text: the payload's MIME type is image/png; "):
        redecode.decode_payload(png, content_type="image/png")
    with pytest.raises(ValueError, match=r"^not text: the payload's MIME type is image/png; "):
        redecode.decode_payload(png)  # sniffed
    assert redecode.decode_payload(png, content_type="image/png", kind="text").kind == "text"


def test_iter_records_errors(tmp_path):
    missing = tmp_path / "missing.warc.gz"
    with pytest.raises(redecode.ArchiveError, match="cannot open"):
        list(redecode.iter_records(missing))


# ------------------------------------------------------------------ the documentation's examples

#: Documentation pages whose ```pycon blocks are doctests (each page's blocks run as one session).
DOC_PAGES = ["README.md"]


def _pycon_blocks(text: str) -> str:
    """The ```pycon fenced blocks of a Markdown page, joined with blank lines between them."""
    blocks, inside, current = [], False, []
    for line in text.splitlines():
        if line.strip() == "```pycon":
            inside, current = True, []
        elif inside and line.strip() == "```":
            inside = False
            blocks.append("\n".join(current))
        elif inside:
            current.append(line)
    return "\n\n".join(blocks) + "\n"


@pytest.mark.parametrize("page", DOC_PAGES)
def test_documentation_examples(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = (ROOT / page).read_text(encoding="utf-8")
    source = _pycon_blocks(text)
    test = doctest.DocTestParser().get_doctest(source, {}, page, page, 0)
    assert test.examples, f"{page} has no ```pycon example"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {page} failed (see above)"
