"""Tests for redecode.rules: shipped rule sets, digests, and each procedure on small fixtures.

Expected values come from the libraries and standards themselves: Python's codecs for
``seed-2026.10``, a transcription of requests 2.32's documented formula for ``requests-2.32``
(below, written from requests' source, independent of ``redecode.rules``), and the Encoding
Standard decoders for ``browser-2026.11``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import charset_normalizer
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from redecode import procedures, sniff
from redecode import rules as R
from redecode import validate as V
from redecode.decode import decode as whatwg_decode
from redecode.labels import ENCODING_NAMES
from redecode_jobs.rules_cmd import rules as rules_cmd

BROWSER = R.get_rules("browser-2026.11")
SEED = R.get_rules("seed-2026.10")
REQ = R.get_rules("requests-2.32")

GERMAN = ("Die Größe der Straße in München überrascht viele Besucher. Können wir über die "
          "schönen Gärten und die Brücken am Fluss sprechen? Äpfel, Öl und Übungen. ") * 8


def page(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}<title>t</title></head><body><p>{body}</p></body></html>"


# --- registry ------------------------------------------------------------------------------


def test_shipped_rules_and_default():
    assert list(R.RULES) == ["author-2026.12.7", "author-2026.12.6", "author-2026.12.5", "author-2026.12.4", "author-2026.12.3", "author-2026.12.2", "author-2026.12", "browser-2026.11", "seed-2026.10",
                             "requests-2.32"]
    # issue 16: the author's text by default; issue 30: with language as evidence
    assert R.DEFAULT_RULES == "author-2026.12.7"
    assert R.BROWSER_RULES == "browser-2026.11"
    for name, rules in R.RULES.items():
        assert R.get_rules(name) is rules and rules.name == name and rules.description


def test_unknown_rules_message():
    with pytest.raises(KeyError) as e:
        R.get_rules("browser-1999")
    assert e.value.args[0] == ("unknown rules 'browser-1999'; known rules: author-2026.12.7, author-2026.12.6, author-2026.12.5, author-2026.12.4, author-2026.12.3, author-2026.12.2, author-2026.12, "
                               "browser-2026.11, seed-2026.10, requests-2.32")


def test_rules_are_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        BROWSER.detector = "cchardet"  # type: ignore[misc]


# --- digest --------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", list(R.RULES.values()), ids=list(R.RULES))
def test_digest_is_sha256_of_canonical_json(rules):
    doc = {"parameters": rules.parameters(), "versions": rules.versions()}
    canon = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert rules.digest == hashlib.sha256(canon.encode()).hexdigest()
    v = rules.versions()
    assert v["encoding_standard"] and v["decision_code"] == R.DECISION_CODE_VERSION
    assert v["decoder"].startswith("whatwg@" if rules.decoders == "whatwg" else "python@")
    assert "@" in v["detector"]


@pytest.mark.parametrize("rules", list(R.RULES.values()), ids=list(R.RULES))
def test_digest_stable_for_equal_parameters(rules):
    twin = dataclasses.replace(rules)
    assert twin is not rules and twin.digest == rules.digest
    # Name and description are labels, not parameters: same behaviour, same digest.
    assert dataclasses.replace(rules, name="x", description="y").digest == rules.digest
    assert len({r.digest for r in R.RULES.values()}) == len(R.RULES)


def _changed(value):
    if isinstance(value, bool):
        return not value
    if value is None:
        return True
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):
        return value + (("x-label", "cp1252"),)
    raise AssertionError(value)


@pytest.mark.parametrize("rules", list(R.RULES.values()), ids=list(R.RULES))
def test_any_parameter_change_changes_digest(rules):
    fields = [f.name for f in dataclasses.fields(rules) if f.name not in ("name", "description")]
    # The output options (with_outputs) and parameters added later (author) are parameters only
    # when set, so a shipped rule set keeps its digest; set, every field is one.
    unset = {f for f in R.OMITTED_WHEN_UNSET if not getattr(rules, f)}
    assert set(fields) - unset == set(rules.parameters())
    with_all = dataclasses.replace(rules.with_outputs(normalize="NFC", graphemes=True, language=True),
                                   author=rules.author or V.BASELINE)
    assert set(fields) == set(with_all.parameters())
    seen = {rules.digest}
    for f in fields:
        old = getattr(rules, f)
        if f == "author":
            new = dataclasses.replace(old or V.BASELINE, defect_rate=(old or V.BASELINE).defect_rate + 1)
        else:
            new = _changed(old)
        if f == "detector":
            new = "cchardet" if old != "cchardet" else "chardetng"
        other = dataclasses.replace(rules, **{f: new})
        assert other.digest not in seen, f
        seen.add(other.digest)
    # A changed label_map entry (same length) changes it too.
    if rules.label_map:
        lm = (("iso-8859-1", "latin-1"),) + rules.label_map[1:]
        assert dataclasses.replace(rules, label_map=lm).digest not in seen


def test_every_author_parameter_changes_the_digest():
    """Every threshold of the author's-text decision is a parameter (validate.AuthorParams): set on
    a rule set, each one changes its digest."""
    base = dataclasses.replace(R.RULES["author-2026.12"], author=V.BASELINE)
    seen = {base.digest, R.RULES["author-2026.12"].digest}
    for f in dataclasses.fields(V.AuthorParams):
        old = getattr(V.BASELINE, f.name)
        new = not old if isinstance(old, bool) else old + 1 if isinstance(old, int) else (
            old + 0.01 if isinstance(old, float) else (old or "") + "x")
        other = dataclasses.replace(base, author=dataclasses.replace(V.BASELINE, **{f.name: new}))
        assert other.digest not in seen, f.name
        seen.add(other.digest)


@pytest.mark.parametrize(
    ("target", "attr"),
    [("params", "TABLES_REVISION"), ("params", "DECODER_VERSION"), ("rules", "DECISION_CODE_VERSION")],
)
def test_version_changes_change_digest(monkeypatch, target, attr):
    # (the decoders' versions are defined in redecode.params, which redecode.decode re-exports)
    mod = R._params if target == "params" else R
    before = {n: r.digest for n, r in R.RULES.items()}
    R._digest.cache_clear()
    monkeypatch.setattr(mod, attr, getattr(mod, attr) + "-changed")
    try:
        after = {n: r.digest for n, r in R.RULES.items()}
    finally:
        R._digest.cache_clear()
    changed = {n for n in before if before[n] != after[n]}
    if attr == "DECODER_VERSION":
        assert changed == {"author-2026.12.7", "author-2026.12.6", "author-2026.12.5", "author-2026.12.4", "author-2026.12.3", "author-2026.12.2", "author-2026.12", "browser-2026.11"}  # Python-codec rules do not use it
    else:
        assert changed == set(R.RULES)


def test_tld_default_table_changes_browser_digest(monkeypatch):
    before = {n: r.digest for n, r in R.RULES.items()}
    R._digest.cache_clear()
    monkeypatch.setitem(sniff.TLD_DEFAULTS, "ua", "windows-1251")
    try:
        after = {n: r.digest for n, r in R.RULES.items()}
    finally:
        R._digest.cache_clear()
    assert {n for n in before if before[n] != after[n]} == {"author-2026.12.7", "author-2026.12.6", "author-2026.12.5", "author-2026.12.4", "author-2026.12.3", "author-2026.12.2", "author-2026.12", "browser-2026.11"}


def test_author_tables_change_only_the_author_digest(monkeypatch):
    from redecode import aliases, procedures

    before = {n: r.digest for n, r in R.RULES.items()}
    R._digest.cache_clear()
    procedures._author_tables_digest.cache_clear()
    monkeypatch.setitem(aliases.ALIASES, "win1251", ("KOI8-R", "curated"))
    try:
        after = {n: r.digest for n, r in R.RULES.items()}
    finally:
        R._digest.cache_clear()
        procedures._author_tables_digest.cache_clear()
    assert {n for n in before if before[n] != after[n]} == {"author-2026.12.7", "author-2026.12.6", "author-2026.12.5", "author-2026.12.4", "author-2026.12.3", "author-2026.12.2", "author-2026.12"}


def test_the_siblings_table_changes_only_the_digest_of_rules_that_read_it(monkeypatch):
    from redecode import siblings

    before = {n: r.digest for n, r in R.RULES.items()}
    R._digest.cache_clear()
    siblings.table_digest.cache_clear()
    monkeypatch.setitem(siblings.SIBLING_FAMILIES, "extra", (("KOI8-R", "windows-1252"), "a test"))
    try:
        after = {n: r.digest for n, r in R.RULES.items()}
    finally:
        R._digest.cache_clear()
        siblings.table_digest.cache_clear()
    assert {n for n in before if before[n] != after[n]} == {"author-2026.12.7", "author-2026.12.6", "author-2026.12.5", "author-2026.12.4", "author-2026.12.3", "author-2026.12.2"}


def test_detector_version_changes_digest(monkeypatch):
    before = BROWSER.digest
    R._digest.cache_clear()
    real = R._detect.detector_id
    monkeypatch.setattr(R._detect, "detector_id", lambda e: real(e) + ".post1")
    try:
        assert BROWSER.digest != before
    finally:
        R._digest.cache_clear()


# --- counting decoder ----------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=200),
       codec=st.sampled_from(["utf-8", "cp1252", "cp932", "gb18030", "cp949", "big5hkscs",
                              "utf-16-le", "iso8859-1", "euc_jp"]))
def test_python_decode_matches_replace(data, codec):
    text, n = R.python_decode(data, codec)
    assert text == data.decode(codec, errors="replace")
    assert n <= text.count("\ufffd")
    if codec in ("cp1252", "iso8859-1"):  # no byte decodes to a literal U+FFFD
        assert n == text.count("\ufffd")


def test_python_decode_does_not_count_literal_fffd():
    assert R.python_decode(b"a\xef\xbf\xbdb\xff", "utf-8") == ("a\ufffdb\ufffd", 1)


# --- seed-2026.10 --------------------------------------------------------------------------


def seed(payload: bytes, ct=("text/html",)):
    d = SEED.decide(payload, content_type=list(ct), url="http://example.de/", kind="html")
    return d, SEED.decode(payload, d)


def test_seed_label_map():
    assert dict(R.SEED_LABEL_MAP) == {
        "iso-8859-1": "cp1252", "latin1": "cp1252", "ascii": "cp1252", "us-ascii": "cp1252",
        "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030",
        "shift_jis": "cp932", "sjis": "cp932", "x-sjis": "cp932", "windows-31j": "cp932",
        "euc-kr": "cp949", "ks_c_5601-1987": "cp949", "big5": "big5hkscs",
    }


@pytest.mark.parametrize(
    ("bom", "name", "codec"),
    [(b"\xef\xbb\xbf", "UTF-8", "utf-8"), (b"\xff\xfe", "UTF-16LE", "utf-16-le"),
     (b"\xfe\xff", "UTF-16BE", "utf-16-be")],
)
def test_seed_bom(bom, name, codec):
    body = page("café")
    payload = bom + body.encode(codec)
    d, r = seed(payload, ("text/html; charset=iso-8859-1",))
    assert (d.source, d.bom, d.encoding, d.confidence) == ("bom", name, name, "certain")
    assert (r.text, r.decoder, r.errors, r.bom_removed) == (body, f"python:{codec}", 0, True)


@pytest.mark.parametrize(
    ("ct", "meta", "text", "codec_used", "encoding", "source"),
    [
        ("text/html; charset=Shift_JIS", "", "日本語のページ", "cp932", "Shift_JIS", "transport"),
        ('text/html; charset="x-sjis"', "", "日本語のページ", "cp932", "Shift_JIS", "transport"),
        ("text/html; charset=iso-8859-1", "", "Grüße “quoted”", "cp1252", "windows-1252", "transport"),
        ("text/html; charset=EUC-KR", "", "한국어 페이지", "cp949", "EUC-KR", "transport"),
        ("text/html; charset=big5", "", "中文網頁", "big5hkscs", "Big5", "transport"),
        ("text/html; charset=koi8-r", "", "Привет", "koi8-r", "KOI8-R", "transport"),
        ("text/html", '<meta charset="gb2312">', "中文网页", "gb18030", "gb18030", "prescan"),
        ("text/html", '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">',
         "Привет", "cp1251", "windows-1251", "prescan"),
    ],
)
def test_seed_declared(ct, meta, text, codec_used, encoding, source):
    body = page(text, meta)
    payload = body.encode(codec_used)
    d, r = seed(payload, (ct,))
    assert (d.source, d.encoding, d.codec) == (source, encoding, codec_used)
    expected = payload.decode(codec_used, errors="replace")
    assert (r.text, r.encoding, r.decoder, r.errors) == (expected, encoding, f"python:{codec_used}", 0)


def test_seed_cp1252_undefined_bytes_are_errors():
    payload = page("a\x81b\x9dc").encode("latin-1")
    d, r = seed(payload, ("text/html; charset=latin1",))
    assert r.text == payload.decode("cp1252", errors="replace") and r.errors == 2
    assert r.decoder == "python:cp1252" and d.encoding == "windows-1252"


def test_seed_meta_regex_takes_a_non_declaration():
    # Not a declaration for a browser; the seed's regex takes it and decodes UTF-8 as gb18030.
    body = page("Grüße", '<meta name="description" content="charset=gbk">')
    payload = body.encode("utf-8")
    d, r = seed(payload)
    assert (d.source, d.meta_charset, d.codec) == ("prescan", "gbk", "gb18030")
    assert r.text == payload.decode("gb18030", errors="replace") != body


def test_seed_meta_window_is_1024_bytes():
    body = "<!--" + "x" * 1100 + "-->" + page("Grüße", '<meta charset="windows-1251">')
    d, r = seed(body.encode("utf-8"))
    assert (d.source, d.meta_charset, d.codec, r.text) == ("utf8-valid", None, "utf-8", body)


def test_seed_unknown_header_label_then_meta_and_conflict():
    payload = page("Привет", '<meta charset="windows-1251">').encode("cp1251")
    d, _ = seed(payload, ("text/html; charset=foo",))
    assert (d.source, d.codec, d.ignored_labels, d.header_charset) == ("prescan", "cp1251", ("foo",), "foo")
    payload = page("abc", '<meta charset="big5">').encode("ascii")
    d, _ = seed(payload, ("text/html; charset=utf-8",))
    assert (d.source, d.codec, d.conflict) == ("transport", "utf-8", ("prescan:big5",))


def test_seed_non_text_codec_is_skipped():
    payload = page("ok").encode("ascii")
    d, r = seed(payload, ("text/html; charset=base64",))
    assert d.ignored_labels == ("base64",) and d.source == "utf8-valid" and r.text == page("ok")


def test_seed_codec_without_standard_equivalent():
    payload = page("\u2591\u2592").encode("cp437")
    d, r = seed(payload, ("text/html; charset=cp437",))
    assert (d.encoding, d.codec, r.decoder) == (None, "cp437", "python:cp437")
    assert r.text == page("\u2591\u2592") and r.encoding is None


def test_seed_undeclared_utf8_and_detector_and_default():
    body = page("Grüße aus Köln")
    d, r = seed(body.encode("utf-8"))
    assert (d.source, d.encoding, d.utf8_valid, r.text) == ("utf8-valid", "UTF-8", True, body)

    payload = page(GERMAN).encode("cp1252")
    best = charset_normalizer.from_bytes(payload).best()
    d, r = seed(payload)
    assert d.source == "detector" and d.codec == procedures.text_codec(best.encoding)
    assert r.text == payload.decode(best.encoding, errors="replace")
    assert d.detector.startswith("charset-normalizer@") and 0 <= d.detector_confidence <= 1

    payload = bytes(range(256)) * 2
    assert charset_normalizer.from_bytes(payload).best() is None
    d, r = seed(payload)
    assert (d.source, d.encoding, d.codec) == ("default", "windows-1252", "cp1252")
    # Python cp1252 leaves 0x81 0x8D 0x8F 0x90 0x9D undefined: 5 per copy, 2 copies.
    assert r.text == payload.decode("cp1252", errors="replace") and r.errors == 10


# --- requests-2.32 -------------------------------------------------------------------------


def requests_text(content: bytes, content_type: str | None) -> str:
    """requests 2.32 Response.text, transcribed from requests/utils.py and models.py."""

    def _parse_content_type_header(header):
        tokens = header.split(";")
        content_type, params = tokens[0].strip(), tokens[1:]
        params_dict = {}
        items_to_strip = "\"' "
        for param in params:
            param = param.strip()
            if param:
                key, value = param, True
                index_of_equals = param.find("=")
                if index_of_equals != -1:
                    key = param[:index_of_equals].strip(items_to_strip)
                    value = param[index_of_equals + 1:].strip(items_to_strip)
                params_dict[key.lower()] = value
        return content_type, params_dict

    def get_encoding_from_headers(headers):
        content_type = headers.get("content-type")
        if not content_type:
            return None
        content_type, params = _parse_content_type_header(content_type)
        if "charset" in params:
            return params["charset"].strip("'\"")
        if "text" in content_type:
            return "ISO-8859-1"
        if "application/json" in content_type:
            return "utf-8"

    encoding = get_encoding_from_headers({"content-type": content_type} if content_type else {})
    if not content:
        return ""
    if encoding is None:
        encoding = charset_normalizer.detect(content)["encoding"]
    try:
        return str(content, encoding, errors="replace")
    except (LookupError, TypeError):
        return str(content, errors="replace")


REQ_CASES = [
    ("text/html", page(GERMAN).encode("cp1252"), "default", "iso8859-1"),
    ("text/html; charset=utf-8", page("Grüße").encode("utf-8"), "transport", "utf-8"),
    ('text/html; charset="Shift_JIS"', page("日本語").encode("shift_jis"), "transport", "shift_jis"),
    ("text/html; charset='gbk'", page("中文").encode("gbk"), "transport", "gbk"),
    ("text/plain", "Grüße “x”".encode("cp1252"), "default", "iso8859-1"),
    ("application/json", '{"a": "Grüße"}'.encode("utf-8"), "default", "utf-8"),
    ("application/xhtml+xml", page(GERMAN).encode("cp1252"), "detector", None),
    (None, page("Привет мир, как дела? " * 20).encode("cp1251"), "detector", None),
    ("TEXT/HTML", page(GERMAN).encode("cp1252"), "detector", None),  # substring test is case-sensitive
    ("text/html; charset=foo", page("Grüße").encode("utf-8"), "default", "utf-8"),
    ("text/html; charset=windows-UTF-8", page("Grüße").encode("utf-8"), "default", "utf-8"),
    ("text/html; charset=", page("Grüße").encode("cp1252"), "default", "utf-8"),
    (None, bytes(range(256)) * 2, "default", "utf-8"),  # no detection answer -> str(c, None) TypeError
    (None, b"\xff" * 100, "detector", "cp1125"),
    ("text/html", b"", "default", "iso8859-1"),
]


@pytest.mark.parametrize(("ct", "payload", "source", "codec"), REQ_CASES)
def test_requests_matches_requests_formula(ct, payload, source, codec):
    d = REQ.decide(payload, content_type=[ct] if ct else [], url="http://example.com/", kind="html")
    r = REQ.decode(payload, d)
    assert r.text == requests_text(payload, ct)
    assert d.source == source
    if codec is not None:
        assert d.codec == codec
    assert r.decoder == f"python:{d.codec}"
    assert d.encoding is None or d.encoding in ENCODING_NAMES


def test_requests_iso_8859_1_is_latin1_recorded_as_windows_1252():
    payload = page("a\x93b\x81").encode("latin-1")
    d = REQ.decide(payload, content_type=["text/html"], url=None, kind="html")
    r = REQ.decode(payload, d)
    assert (d.encoding, r.decoder, r.errors) == ("windows-1252", "python:iso8859-1", 0)
    assert "\x93" in r.text and "\x81" in r.text  # C1 controls, not windows-1252's quotes


def test_requests_repeated_headers_are_joined_last_charset_wins():
    payload = page("Grüße").encode("cp1252")
    cts = ["text/html; charset=utf-8", "text/html; charset=iso-8859-1"]
    d = REQ.decide(payload, content_type=cts, url=None, kind="html")
    assert d.codec == "iso8859-1" and d.header_charset == "iso-8859-1"
    assert REQ.decode(payload, d).text == requests_text(payload, ", ".join(cts))


def test_requests_bom_removed_deviation():
    body = page("Grüße")
    payload = b"\xef\xbb\xbf" + body.encode("utf-8")
    d = REQ.decide(payload, content_type=["text/html; charset=utf-8"], url=None, kind="html")
    r = REQ.decode(payload, d)
    assert requests_text(payload, "text/html; charset=utf-8") == "\ufeff" + body
    assert (r.text, r.bom_removed, d.bom) == (body, True, "UTF-8")
    # Under ISO-8859-1 the BOM is mojibake and stays.
    d = REQ.decide(payload, content_type=["text/html"], url=None, kind="html")
    assert REQ.decode(payload, d).text == requests_text(payload, "text/html")


def test_requests_charset_without_value_deviation():
    # requests would raise AttributeError (True.strip); we treat it as no charset.
    payload = page("x").encode("ascii")
    d = REQ.decide(payload, content_type=["text/html; charset"], url=None, kind="html")
    assert (d.source, d.codec) == ("default", "iso8859-1")


def test_python_rules_reject_foreign_decisions():
    d = BROWSER.decide(b"abc", content_type=["text/html"], url=None, kind="html")
    with pytest.raises(TypeError, match="CodecDecision"):
        SEED.decode(b"abc", d)


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=300), ct=st.sampled_from(
    [[], ["text/html"], ["text/html; charset=utf-16"], ["application/json"],
     ["text/html; charset=x-user-defined"], ["text/html; charset"]]))
def test_rules_total_on_arbitrary_bytes(data, ct):
    for rules in R.RULES.values():
        d = rules.decide(data, content_type=ct, url="http://a.jp/", kind="html")
        r = rules.decode(data, d)
        assert isinstance(r.text, str) and r.errors >= 0
        assert r.encoding is None or r.encoding in ENCODING_NAMES


# --- browser-2026.11 -----------------------------------------------------------------------


def test_browser_header_and_meta_and_whatwg_decoder():
    payload = page("中文网页").encode("gbk")
    d = BROWSER.decide(payload, content_type=["text/html; charset=gb2312"], url=None, kind="html")
    r = BROWSER.decode(payload, d)
    assert (d.source, d.encoding, r.decoder) == ("transport", "GBK", "whatwg")
    assert r.text == whatwg_decode(payload, "GBK").text == page("中文网页")


def test_browser_undeclared_legacy_uses_default_detector():
    payload = page(GERMAN).encode("cp1252")
    d = BROWSER.decide(payload, content_type=["text/html"], url="http://www.example.de/x", kind="html")
    r = BROWSER.decode(payload, d)
    assert (d.source, d.encoding, d.tld) == ("detector", "windows-1252", "de")
    assert d.detector == R._detect.detector_id(BROWSER.detector)
    assert r.text == page(GERMAN) and r.errors == 0


def test_browser_undeclared_utf8_and_bom():
    body = page("Grüße")
    d = BROWSER.decide(body.encode(), content_type=["text/html"], url=None, kind="html")
    assert (d.source, d.encoding) == ("utf8-valid", "UTF-8")
    payload = b"\xef\xbb\xbf" + body.encode()
    d = BROWSER.decide(payload, content_type=["text/html; charset=big5"], url=None, kind="html")
    r = BROWSER.decode(payload, d)
    assert (d.source, r.text, r.bom_removed) == ("bom", body, True)


# --- CLI -----------------------------------------------------------------------------------


def test_cli_rules_json():
    res = CliRunner().invoke(rules_cmd, ["--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["default"] == "author-2026.12.7"
    assert [d["name"] for d in doc["rules"]] == list(R.RULES)
    for d in doc["rules"]:
        rules = R.get_rules(d["name"])
        assert d["digest"] == rules.digest and len(d["digest"]) == 64
        assert d["parameters"] == rules.parameters() and d["description"] == rules.description
        assert d["versions"] == rules.versions()


def test_cli_rules_text():
    res = CliRunner().invoke(rules_cmd, [])
    assert res.exit_code == 0
    assert res.output.startswith("author-2026.12.7 (default)\n")
    for rules in R.RULES.values():
        assert rules.name in res.output and f"digest: {rules.digest}" in res.output
    assert CliRunner().invoke(rules_cmd, ["--help"]).exit_code == 0


# --------------------------------------------------------------------------------------------
# Output options (issue 21): run --normalize / --graphemes are part of the digest


@pytest.mark.parametrize("rules", list(R.RULES.values()), ids=list(R.RULES))
def test_output_options_unset_keep_the_digest(rules):
    same = rules.with_outputs()
    assert same == rules and same.digest == rules.digest
    assert "unicode" not in rules.versions() and "graphemes" not in rules.versions()
    assert "language_identifier" not in rules.versions()
    assert rules.outputs() == {"normalize": None, "graphemes": False, "language": False}


@pytest.mark.parametrize("rules", list(R.RULES.values()), ids=list(R.RULES))
def test_each_output_option_changes_the_digest(rules):
    import unicodedata

    import regex

    variants = {
        "nfc": rules.with_outputs(normalize="NFC"),
        "nfkc": rules.with_outputs(normalize="NFKC"),
        "graphemes": rules.with_outputs(graphemes=True),
        "both": rules.with_outputs(normalize="NFC", graphemes=True),
        "language": rules.with_outputs(language=True),
    }
    digests = {rules.digest} | {v.digest for v in variants.values()}
    assert len(digests) == 6
    assert all(v.name == rules.name and v.procedure == rules.procedure for v in variants.values())
    assert variants["nfc"].parameters()["normalize"] == "NFC"
    assert variants["nfc"].versions()["unicode"] == unicodedata.unidata_version
    assert variants["graphemes"].versions()["graphemes"] == f"regex@{regex.__version__}"
    assert variants["both"].outputs() == {"normalize": "NFC", "graphemes": True, "language": False}
    assert variants["language"].versions()["language_identifier"].startswith("pycld2 ")
    # the rule set with the same options, rebuilt from its outputs, is the same rule set
    assert rules.with_outputs(**variants["both"].outputs()).digest == variants["both"].digest


def test_unicode_version_changes_the_digest_of_a_normalizing_rule_set(monkeypatch):
    import redecode.textforms

    nfc = R.get_rules("browser-2026.11").with_outputs(normalize="NFC")
    plain = R.get_rules("browser-2026.11")
    before = (nfc.digest, plain.digest)
    R._digest.cache_clear()
    monkeypatch.setattr(redecode.textforms, "UNICODE_VERSION", "99.0.0")
    try:
        assert nfc.digest != before[0]
        assert plain.digest == before[1]
    finally:
        R._digest.cache_clear()


def test_unknown_normalization_form_is_refused():
    with pytest.raises(ValueError, match="unknown normalization form 'NFD': NFC or NFKC"):
        R.get_rules("browser-2026.11").with_outputs(normalize="NFD")


def test_known_rules_with_output_options():
    nfc = R.get_rules("author-2026.12").with_outputs(normalize="NFKC", graphemes=True)
    assert R.known_rules(nfc.name, nfc.digest, "NFKC", True) == nfc
    assert R.known_rules(nfc.name, nfc.digest) is None  # the digest is the one with the options
    plain = R.get_rules("author-2026.12")
    assert R.known_rules(plain.name, plain.digest) is plain
    assert R.known_rules(plain.name, plain.digest, "NFC") is None


def test_the_decide_arguments_are_remembered_per_rule_set_object():
    """procedures._decide_arguments (what the author's procedure passes to validate.decide for
    every record) gives the by-value caches' objects, remembered per rule set object, and made again
    when the browser rules object changes."""
    import dataclasses

    from redecode import procedures as P
    from redecode import rules as R

    rules = R.get_rules("author-2026.12.7")
    args = P._decide_arguments(rules)
    assert args == (P.Browser._detector(rules.browser()), P._author_detector(rules), P._author_params(rules))
    assert P._decide_arguments(rules) is args
    copy = dataclasses.replace(rules)
    assert copy is not rules and P._decide_arguments(copy) == args
    browser = R.RULES[R.BROWSER_RULES]
    try:
        R.RULES[R.BROWSER_RULES] = dataclasses.replace(browser, detector=None)
        assert P._decide_arguments(rules)[0] is None
    finally:
        R.RULES[R.BROWSER_RULES] = browser
    assert P._decide_arguments(rules) == args
