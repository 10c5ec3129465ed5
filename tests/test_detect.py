"""Tests for redecode.detect: detection restricted to Encoding Standard encodings."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redecode import detect as D
from redecode.labels import ENCODING_NAMES

import shared_paths

ALLOWED = set(ENCODING_NAMES) - {"replacement"}
ENGINES = list(D.ENGINES)
CORPUS = shared_paths.CORPUS / "chardet-tests"

# Fixtures: text in a language, encoded in its legacy encoding; expected = that encoding's
# Encoding Standard name (the truth, not what any detector said).
GERMAN = ("Die Größe der Straße in München überrascht viele Besucher. Können wir über die "
          "schönen Gärten und die Brücken am Fluss sprechen? Äpfel, Öl und Übungen. ") * 8
RUSSIAN = ("Москва является столицей Российской Федерации и крупнейшим городом страны. "
           "Здесь находятся многие музеи, театры и университеты. ") * 8
JAPANESE = ("日本語の文章です。東京は日本の首都であり、多くの人々が住んでいます。"
            "今日は天気がとても良いので、公園を散歩しました。") * 8
CHINESE = ("中华人民共和国的首都是北京，这是一个历史悠久的城市。我们今天去公园散步，"
           "天气非常好。") * 8
KOREAN = ("대한민국의 수도는 서울입니다. 오늘은 날씨가 매우 좋아서 공원에서 산책을 했습니다. "
          "한국어 문장입니다. ") * 8

FIXTURES = [
    ("de", GERMAN, "cp1252", "windows-1252"),
    ("ru", RUSSIAN, "cp1251", "windows-1251"),
    ("jp", JAPANESE, "shift_jis", "Shift_JIS"),
    ("cn", CHINESE, "gbk", "GBK"),
    ("kr", KOREAN, "euc_kr", "EUC-KR"),
]


def same_text(data: bytes, a: str, b: str) -> bool:
    from redecode.decode import decode

    return decode(data, a, bom_sniff=False).text == decode(data, b, bom_sniff=False).text


@pytest.mark.parametrize(
    ("name", "expected", "how"),
    [
        ("windows-1252", "windows-1252", "exact"),
        ("Shift_JIS", "Shift_JIS", "exact"),
        # Encoding Standard labels ("get an encoding").
        ("ISO-8859-1", "windows-1252", "label"),
        ("ascii", "windows-1252", "label"),
        ("TIS-620", "windows-874", "label"),
        ("ISO-8859-9", "windows-1254", "label"),
        ("GB2312", "GBK", "label"),
        ("SHIFT_JIS", "Shift_JIS", "label"),
        ("utf-16", "UTF-16LE", "label"),
        # Python codec names whose codec a standard label also resolves to.
        ("latin_1", "windows-1252", "codec"),
        ("cp932", "Shift_JIS", "codec"),
        ("utf_8", "UTF-8", "codec"),
        ("euc_jp", "EUC-JP", "codec"),
        ("big5hkscs", "Big5", "codec"),
        ("iso8859_2", "ISO-8859-2", "codec"),
        # Documented nearest supersets.
        ("cp949", "EUC-KR", "nearest"),
        ("MAC-CYRILLIC", "x-mac-cyrillic", "nearest"),
        ("utf_8_sig", "UTF-8", "nearest"),
        # No standard decoder: dropped (replacement is never an answer).
        ("EUC-TW", None, "dropped"),
        ("UTF-32", None, "dropped"),
        ("johab", None, "dropped"),
        ("IBM855", None, "dropped"),
        ("ISO-2022-KR", None, "dropped"),
        ("HZ-GB-2312", None, "dropped"),
        ("replacement", None, "dropped"),
        ("x-no-such", None, "dropped"),
        ("", None, "dropped"),
        (None, None, "dropped"),
    ],
)
def test_standard_encoding(name, expected, how):
    assert D.standard_encoding(name) == (expected, how)


def test_python_codec_map_only_standard_names():
    assert set(D._python_codec_map().values()) <= ALLOWED
    assert set(D.NEAREST.values()) <= ALLOWED


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("tld", "text", "codec", "expected"), FIXTURES, ids=[f[0] for f in FIXTURES])
def test_engines_on_fixtures(engine, tld, text, codec, expected):
    data = ("<html><body><p>" + text + "</p></body></html>").encode(codec)
    d = D.detect(data, tld=tld, engine=engine)
    assert d is not None
    assert d.encoding in ALLOWED
    assert same_text(data, d.encoding, expected), (d.encoding, expected)
    assert 0.0 <= d.confidence <= 1.0


def test_default_engine_is_cascade_and_exact_on_fixtures():
    assert D.DEFAULT_ENGINE == "cascade"
    for tld, text, codec, expected in FIXTURES:
        data = text.encode(codec)
        for bounds in ({}, {"max_bytes": D.DEFAULT_MAX_BYTES,
                            "min_nonascii": D.DEFAULT_MIN_NONASCII,
                            "consult_bytes": D.DEFAULT_CONSULT_BYTES},
                       {"max_bytes": 300, "min_nonascii": 100, "consult_bytes": 200}):
            d = D.detect(data, tld=tld, **bounds)
            assert d is not None and same_text(data, d.encoding, expected), (tld, bounds)


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=600), tld=st.one_of(st.none(), st.text(max_size=6)))
def test_detect_total_and_restricted(data, tld):
    for engine in ENGINES:
        d = D.detect(data, tld=tld, engine=engine)
        assert d is None or (d.encoding in ALLOWED and 0.0 <= d.confidence <= 1.0)


@pytest.mark.parametrize("tld", ["DE", "co.uk", "日本", "xn--p1ai", " jp ", "", None])
def test_chardetng_odd_tlds_do_not_panic(tld):
    d = D.detect(JAPANESE.encode("shift_jis"), tld=tld, engine="chardetng")
    assert d is not None and d.encoding == "Shift_JIS"


def test_chardetng_confidence_mapping():
    # chardetng's boolean assessment -> chardetng-py's own 0.99 / 0.01.
    d = D.detect(GERMAN.encode("cp1252"), tld="de", engine="chardetng")
    assert d.confidence in (0.99, 0.01)


def test_detector_ids():
    for engine, dist in D.ENGINES.items():
        if engine in ("majority", "cascade", "cchardet"):
            continue
        assert D.detector_id(engine) == f"{engine}@{importlib.metadata.version(dist)}"
    import cchardet

    assert D.detector_id("cchardet") == f"cchardet@{cchardet.__version__}"
    assert D.detector_id("majority") == "majority(" + ",".join(
        D.detector_id(e) for e in D.MAJORITY_OF) + ")"
    assert D.detector_id("cascade") == "cascade(" + ",".join(
        D.detector_id(e) for e in D.MAJORITY_OF) + ";consult=windows-1251,windows-1252)"
    assert re.fullmatch(r"[a-z-]+@\S+", D.detect(b"\xe4\xf6\xfc" * 20, tld="de",
                                                  engine="chardetng").detector)


def test_unknown_engine():
    with pytest.raises(ValueError, match="unknown detector engine 'nope'; known: chardetng"):
        D.detect(b"x", tld=None, engine="nope")


def test_non_standard_answer_is_dropped(monkeypatch):
    import cchardet

    monkeypatch.setattr(cchardet, "detect", lambda b: {"encoding": "EUC-TW", "confidence": 0.9})
    raw = D.detect_raw(b"\xa4\xa4\xa4\xe5" * 10, tld=None, engine="cchardet")
    assert (raw.answer, raw.encoding, raw.mapping) == ("EUC-TW", None, "dropped")
    assert D.detect(b"\xa4\xa4\xa4\xe5" * 10, tld=None, engine="cchardet") is None


def _fake_engines(monkeypatch, answers, calls=None):
    def fake(engine, data, tld, allow_utf8, whole):
        if calls is not None:
            calls.append((engine, data, whole))
        return D.RawDetection(answer=answers[engine], encoding=answers[engine], mapping="exact",
                              confidence=0.5, detector=engine)

    monkeypatch.setattr(D, "_run", fake)


def test_majority_vote_and_tie_break(monkeypatch):
    answers = {"chardetng": "windows-1250", "cchardet": "windows-1252",
               "charset-normalizer": "windows-1252"}
    _fake_engines(monkeypatch, answers)
    r = D.detect_raw(b"x", tld=None, engine="majority")
    assert (r.encoding, r.confidence) == ("windows-1252", 2 / 3)
    answers["charset-normalizer"] = "ISO-8859-2"
    r = D.detect_raw(b"x", tld=None, engine="majority")
    assert (r.encoding, r.confidence) == ("windows-1250", 1 / 3)  # no majority: chardetng


def test_cascade_consults_only_on_chardetngs_weak_answers(monkeypatch):
    answers = {"chardetng": "Shift_JIS", "cchardet": "EUC-JP", "charset-normalizer": "EUC-JP"}
    calls: list = []
    _fake_engines(monkeypatch, answers, calls)
    r = D.detect_raw(b"\x82\xa0", tld="jp", engine="cascade")
    # Not a weak answer: chardetng alone decides, the others are not even run.
    assert [c[0] for c in calls] == ["chardetng"]
    assert (r.encoding, r.confidence, r.detector) == ("Shift_JIS", 0.5, D.detector_id("cascade"))
    for weak in sorted(D.CASCADE_CONSULT):
        # cchardet and charset-normalizer outvote chardetng.
        calls.clear()
        answers.update({"chardetng": weak, "cchardet": "x-mac-cyrillic",
                        "charset-normalizer": "x-mac-cyrillic"})
        r = D.detect_raw(b"\xcc\xee", tld=None, engine="cascade")
        assert [c[0] for c in calls] == list(D.MAJORITY_OF)
        assert (r.encoding, r.confidence) == ("x-mac-cyrillic", 2 / 3)
        # No majority: chardetng's answer.
        answers["charset-normalizer"] = "KOI8-R"
        r = D.detect_raw(b"\xcc\xee", tld=None, engine="cascade")
        assert (r.encoding, r.confidence) == (weak, 1 / 3)
        # charset-normalizer sides with chardetng.
        answers["charset-normalizer"] = weak
        r = D.detect_raw(b"\xcc\xee", tld=None, engine="cascade")
        assert (r.encoding, r.confidence) == (weak, 2 / 3)
        # cchardet agrees with chardetng: that is a majority whatever the third says, so
        # charset-normalizer is not run.
        calls.clear()
        answers.update({"cchardet": weak, "charset-normalizer": "x-mac-cyrillic"})
        r = D.detect_raw(b"\xcc\xee", tld=None, engine="cascade")
        assert [c[0] for c in calls] == ["chardetng", "cchardet"]
        assert (r.encoding, r.confidence) == (weak, 2 / 3)


def test_tld_vote_breaks_only_a_tie(monkeypatch):
    """The author's-text rules' detector: the TLD's encoding wins only when the engines have no
    majority and one of them named it (then 2 of 4 voters: confidence 0.5)."""
    answers = {"chardetng": "windows-1252", "cchardet": "windows-1258", "charset-normalizer": "windows-1250"}
    _fake_engines(monkeypatch, answers)
    for engine in ("cascade", "majority"):
        r = D.detect_raw(b"\xe0", tld="vn", engine=engine, tld_vote="windows-1258")
        assert (r.encoding, r.confidence) == ("windows-1258", 0.5), engine
        r = D.detect_raw(b"\xe0", tld="vn", engine=engine)  # no vote: chardetng's answer
        assert (r.encoding, r.confidence) == ("windows-1252", 1 / 3), engine
        # the TLD's encoding that no engine named does not win
        r = D.detect_raw(b"\xe0", tld="th", engine=engine, tld_vote="windows-874")
        assert r.encoding == "windows-1252", engine
    # a majority is never overruled
    answers["charset-normalizer"] = "windows-1252"
    r = D.detect_raw(b"\xe0", tld="vn", engine="cascade", tld_vote="windows-1258")
    assert (r.encoding, r.confidence) == ("windows-1252", 2 / 3)
    # chardetng's strong answers are not put to the vote at all
    answers["chardetng"] = "Shift_JIS"
    assert D.detect_raw(b"\xe0", tld="vn", engine="cascade", tld_vote="windows-1258").encoding == "Shift_JIS"


def test_recent_answers_are_the_engines_answers(monkeypatch):
    calls = []
    real = D._run_engine

    def spy(*args):
        calls.append(args[0])
        return real(*args)

    monkeypatch.setattr(D, "_run_engine", spy)
    monkeypatch.setattr(D, "_RECENT", {})
    data = "Grüße aus Köln, schöne Straße".encode("cp1252") * 3
    first = D.detect_raw(data, tld="de", engine="chardetng")
    again = D.detect_raw(data, tld="de", engine="chardetng")
    assert first == again and calls == ["chardetng"]
    D.detect_raw(data, tld="at", engine="chardetng")  # another TLD is another question
    assert calls == ["chardetng", "chardetng"]


def test_cascade_equals_majority_on_weak_answers(monkeypatch):
    # Whatever the three engines answer, a consulted cascade answers what majority answers.
    names = ["windows-1251", "windows-1252", "x-mac-cyrillic", None]
    for a in sorted(D.CASCADE_CONSULT):
        for b in names:
            for c in names:
                answers = {"chardetng": a, "cchardet": b, "charset-normalizer": c}
                _fake_engines(monkeypatch, answers)
                want = D.detect_raw(b"\xe0", tld=None, engine="majority")
                got = D.detect_raw(b"\xe0", tld=None, engine="cascade")
                assert got.encoding == want.encoding, answers


def test_engines_see_the_sample_and_chardetng_is_told_it_is_not_the_end(monkeypatch):
    answers = {"chardetng": "windows-1251", "cchardet": "KOI8-R",
               "charset-normalizer": "windows-1251"}
    calls: list = []
    _fake_engines(monkeypatch, answers, calls)
    page = b"<p>" + b"\xcf\xf0\xe8\xe2\xe5\xf2 " * 2000 + b"</p>\n"
    D.detect_raw(page, tld=None, engine="cascade", max_bytes=1000, min_nonascii=500)
    sample = D.detector_sample(page, max_bytes=1000, min_nonascii=500)
    assert [(e, d, w) for e, d, w in calls] == [(e, sample, False) for e in D.MAJORITY_OF]
    calls.clear()
    D.detect_raw(page[:900], tld=None, engine="cascade", max_bytes=1000, min_nonascii=500)
    assert all(d == page[:900] and w for _, d, w in calls)  # short payload: whole, and the end
    calls.clear()
    D.detect_raw(page, tld=None, engine="chardetng")  # no bounds: whole payload
    assert calls == [("chardetng", page, True)]
    # consult_bytes: the consulted engines see the sample's first bytes, cut between characters.
    calls.clear()
    D.detect_raw(page, tld=None, engine="cascade", max_bytes=1000, min_nonascii=500,
                 consult_bytes=100)
    assert calls[0] == ("chardetng", sample, False)
    head = calls[1][1]
    assert calls[1:] == [("cchardet", head, False), ("charset-normalizer", head, False)]
    assert sample.startswith(head) and 90 < len(head) <= 100 and head.endswith(b" ")
    with pytest.raises(ValueError, match="at least 1"):
        D.detect_raw(page, tld=None, engine="cascade", consult_bytes=0)


# --- detector_sample ---------------------------------------------------------------------


def test_sample_short_payload_is_the_payload():
    data = b"<p>caf\xe9</p>\n" * 10
    assert D.detector_sample(data, max_bytes=len(data), min_nonascii=1) == data
    assert D.detector_sample(b"", max_bytes=1, min_nonascii=1) == b""


def test_sample_keeps_only_lines_with_non_ascii_or_esc_in_order():
    lines = [b"<html><head><style>p{}</style>", b"<p>Gr\xfc\xdfe</p>", b"<script>x=1</script>",
             b"\x1b$B$3$s\x1b(B", b"<div>plain</div>", b"<p>\xe9t\xe9</p>"]
    data = b"\n".join(lines * 50)
    s = D.detector_sample(data, max_bytes=200, min_nonascii=10)
    # 2 + 2 + 2 evidence bytes a round: the 10th is in the second round's ESC line.
    assert s == b"\n".join([lines[1], lines[3], lines[5], lines[1], lines[3]])
    # 12 + 1 + 10 + 1 + 10 + 1 + 12 + 1 + 10 = 58 bytes; the next line is cut to the 1 byte left.
    s = D.detector_sample(data, max_bytes=60, min_nonascii=1000)
    assert s == b"\n".join([lines[1], lines[3], lines[5], lines[1], lines[3], b"<"])


def test_sample_cut_keeps_multibyte_characters_whole():
    # One long line: cut at the last ASCII non-digit byte before the bound, so the sample
    # decodes without error in the page's own encoding.
    for text, codec in ((JAPANESE, "shift_jis"), (CHINESE, "gb18030"), (KOREAN, "euc_kr"),
                        (RUSSIAN, "cp1251")):
        line = ("<p>" + text.replace("。", "。<br>") + "</p>").encode(codec) * 20
        for bound in range(1000, 1040):
            s = D.detector_sample(line, max_bytes=bound, min_nonascii=10**6)
            assert len(s) <= bound and line.startswith(s)
            s.decode(codec)  # no split character
            assert len(s) > bound - 200


def test_sample_with_no_safe_cut_is_cut_at_the_bound():
    data = "中文".encode("gbk") * 5000  # D6 D0 CE C4: no ASCII byte at all
    s = D.detector_sample(data, max_bytes=1001, min_nonascii=10**6)
    assert s == data[:1001]
    # chardetng still says GBK (or its superset gb18030): it is told that the stream goes on past
    # the cut character. (Told that the stream ends there, it answers windows-1251.)
    d = D.detect(data, tld=None, engine="chardetng", max_bytes=1001, min_nonascii=10**6)
    assert d.encoding in ("GBK", "gb18030") and same_text(data, d.encoding, "GBK")


def test_sample_finds_text_far_into_the_page():
    head = b"<html><head><script>\n" + b"var a = 1;\n" * 20000 + b"</script></head>\n"
    page = head + ("<p>" + JAPANESE + "</p>\n").encode("shift_jis") * 10
    s = D.detector_sample(page, max_bytes=4096, min_nonascii=2048)
    assert s and s.isascii() is False and len(s) <= 4096
    d = D.detect(page, tld=None, max_bytes=4096, min_nonascii=2048)
    assert d is not None and d.encoding == "Shift_JIS"


def test_sample_bounds_must_be_positive():
    for kw in ({"max_bytes": 0, "min_nonascii": 1}, {"max_bytes": 1, "min_nonascii": 0}):
        with pytest.raises(ValueError, match="at least 1"):
            D.detector_sample(b"x", **kw)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=3000), max_bytes=st.integers(1, 1500),
       min_nonascii=st.integers(1, 800))
def test_sample_properties(data, max_bytes, min_nonascii):
    s = D.detector_sample(data, max_bytes=max_bytes, min_nonascii=min_nonascii)
    assert s == D.detector_sample(data, max_bytes=max_bytes, min_nonascii=min_nonascii)
    if len(data) <= max_bytes:
        assert s == data
        return
    assert len(s) <= max_bytes
    lines = data.split(b"\n")
    kept = s.split(b"\n") if s else []
    evidence = [ln for ln in lines if not ln.isascii() or b"\x1b" in ln]
    # Whole evidence lines in order, the last one possibly cut short.
    assert kept[:-1] == evidence[: len(kept) - 1]
    if kept:
        assert evidence[len(kept) - 1].startswith(kept[-1])
    if evidence and not kept:
        assert False, "a payload with evidence gives a non-empty sample"


_SAMPLE_PIECES = [b"a", b"7", b" ", b"<", b"\n", b"\n\n", b"\x1b", b"\x80", b"\xe9", b"\xc3\xa9",
                  b"\x1b$B", b"abc def", b"\xa4\xa2" * 3, b"12\xff34"]


def _compiled_sample():
    from redecode import native

    if native.core is None:
        pytest.skip("the compiled core is not built")
    return native.core.detector_sample


@settings(max_examples=3000, deadline=None)
@given(data=st.lists(st.sampled_from(_SAMPLE_PIECES), max_size=60).map(b"".join) | st.binary(max_size=400),
       max_bytes=st.integers(1, 120), min_nonascii=st.integers(1, 40))
def test_compiled_sample_is_the_pure_one(data, max_bytes, min_nonascii):
    compiled = _compiled_sample()
    if len(data) <= max_bytes:
        return  # (detector_sample returns such data itself)
    assert compiled(data, max_bytes, min_nonascii) == D._detector_sample_pure(data, max_bytes, min_nonascii)


def test_compiled_sample_every_arrangement_of_five_kinds_of_byte():
    # Every payload of up to 6 bytes made of an ASCII letter, a digit, LF, ESC and a high byte,
    # at every bound below its length and small evidence counts: the compiled sample is the pure
    # one (lines, cuts at a digit or high byte, the separator counted in the room).
    import itertools

    compiled = _compiled_sample()
    for n in range(2, 7):
        for combo in itertools.product(b"a7\n\x1b\xe9", repeat=n):
            data = bytes(combo)
            for max_bytes in range(1, n):
                for min_nonascii in (1, 2, 3):
                    assert compiled(data, max_bytes, min_nonascii) == \
                        D._detector_sample_pure(data, max_bytes, min_nonascii), (data, max_bytes, min_nonascii)


def test_compiled_sample_on_long_pages():
    compiled = _compiled_sample()
    head = b"<html><head><script>\n" + b"var a = 1;\n" * 3000 + b"</script></head>\n"
    for text, codec in ((JAPANESE, "shift_jis"), (CHINESE, "gb18030"), (RUSSIAN, "cp1251")):
        page = head + ("<p>" + text + "</p>\n").encode(codec) * 40 + b"\x1b$B\n" + b"x" * 9000
        for max_bytes, min_nonascii in ((4096, 2048), (1000, 10**6), (50000, 10**6), (4096, 1)):
            assert compiled(page, max_bytes, min_nonascii) == D._detector_sample_pure(page, max_bytes, min_nonascii)


def test_chardet_compatible_is_charset_normalizers_detect():
    import charset_normalizer

    data = GERMAN.encode("cp1252")
    res = charset_normalizer.detect(data)
    assert D.chardet_compatible(data) == (res["encoding"], res["confidence"])
    assert D.chardet_compatible(b"")[0] == charset_normalizer.detect(b"")["encoding"]


@pytest.mark.corpus
def test_default_engine_at_least_chardetng_on_chardet_tests():
    """Issue 3 step 7: the default detector is at least as accurate as chardetng on
    chardet-tests served without declarations (pages that reach the detector step)."""
    if not CORPUS.is_dir():
        pytest.skip(shared_paths.absent(CORPUS))
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    try:
        import eval_detectors as E
    finally:
        sys.path.pop(0)
    pages = [p for p in E.chardet_pages(CORPUS, []) if not E._is_utf8(p[1])]
    from redecode.rules import get_rules, DEFAULT_RULES

    rules = get_rules(DEFAULT_RULES)
    shipped = (f"{rules.detector}@{rules.detector_min_nonascii}/{rules.detector_max_bytes}"
               f"/{rules.detector_consult_bytes}")
    res = E.evaluate(pages, {n: E.engine(n) for n in ("chardetng", shipped)})
    assert res[shipped]["right"] >= res["chardetng"]["right"]


def test_default_rules_detect_on_a_bounded_sample(monkeypatch):
    from redecode.rules import DEFAULT_RULES, get_rules

    rules = get_rules(DEFAULT_RULES)
    assert (rules.detector, rules.detector_max_bytes, rules.detector_min_nonascii,
            rules.detector_consult_bytes) == ("cascade", D.DEFAULT_MAX_BYTES,
                                              D.DEFAULT_MIN_NONASCII, D.DEFAULT_CONSULT_BYTES)
    seen: list[int] = []
    real = D._run

    def spy(engine, data, tld, allow_utf8, whole):
        seen.append(len(data))
        return real(engine, data, tld, allow_utf8, whole)

    monkeypatch.setattr(D, "_run", spy)
    body = ("<p>" + RUSSIAN + "</p>\n").encode("cp1251") * 200  # ~150 KB, every line Cyrillic
    page = b"<html><head><title>x</title></head><body>\n" + body + b"</body></html>"
    d = rules.decide(page, content_type=["text/html"], url="http://example.ru/", kind="html")
    assert (d.source, d.encoding) == ("detector", "windows-1251")
    assert seen and max(seen) <= D.DEFAULT_MAX_BYTES and len(page) > 30 * D.DEFAULT_MAX_BYTES


def test_next_evidence_across_blocks():
    # The block scan finds exactly what a plain regular-expression search finds.
    pattern = re.compile(rb"[\x80-\xff\x1b]")
    for hit in (0, 1, 4095, 4096, 4097, 8191, 8192, 20000):
        for byte in (b"\x80", b"\xff", b"\x1b"):
            data = b"a" * hit + byte + b"b" * 5000 + b"\xe9"
            for pos in (0, 1, max(hit - 1, 0), hit, hit + 1):
                m = pattern.search(data, pos)
                assert D._next_evidence(data, pos) == (m.start() if m else -1), (hit, byte, pos)
    assert D._next_evidence(b"x" * 10000, 0) == -1
    assert D._next_evidence(b"", 0) == -1


@settings(max_examples=60, deadline=None)
@given(pad=st.integers(0, 12000), data=st.binary(max_size=400), max_bytes=st.integers(1, 600),
       min_nonascii=st.integers(1, 300))
def test_sample_properties_past_the_first_block(pad, data, max_bytes, min_nonascii):
    payload = b"<!-- x -->\n" * (pad // 11) + data + b"\n\xe9" * 3
    s = D.detector_sample(payload, max_bytes=max_bytes, min_nonascii=min_nonascii)
    if len(payload) <= max_bytes:
        assert s == payload
        return
    assert s and len(s) <= max_bytes
    evidence = [ln for ln in payload.split(b"\n") if not ln.isascii() or b"\x1b" in ln]
    kept = s.split(b"\n")
    assert kept[:-1] == evidence[: len(kept) - 1]
    assert evidence[len(kept) - 1].startswith(kept[-1])
