"""The decision's fast paths (``sniff``), each against the slower code it replaces.

Optimisations only: ``tld_of``'s regular-expression path against the function as it was before
it (copied below as the reference) and the compiled twin of that regular expression
(``_core.url_tld``) against it, ``_new_decision`` against ``Decision(**kw)``, the cached
Content-Type facts against Fetch "extract a MIME type" + "get an encoding" uncached, and the
positional ``decide`` against ``choose(gather(...))``. The decisions themselves are pinned by
``test_sniff.py``, ``test_html5lib_encoding.py`` and ``test_properties.py``.
"""

from __future__ import annotations

import dataclasses
import pickle
from urllib.parse import urlsplit

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from redecode import native, sniff, tld
from redecode.labels import get_encoding
from redecode.mime import extract_mime_type
from redecode.sniff import Decision, Detection, choose, decide, gather, tld_of


def _tld_of_reference(url: str | None) -> str | None:
    """``sniff.tld_of`` before its regular-expression path (commit 8e203b7), verbatim."""
    if not url:
        return None
    k = url.find("://")
    if 0 < k < 16:
        start = k + 3
        end = len(url)
        for ch in "/?#":
            e = url.find(ch, start, end)
            if e >= 0:
                end = e
        host = url[start:end]
        if host and "@" not in host and "[" not in host and "\\" not in host and host.isascii():
            host = host.split(":", 1)[0].rstrip(".").lower()
            dot = host.rfind(".")
            if dot < 0:
                return None
            tld = host[dot + 1 :]
            return tld if tld and not tld.isdigit() else None
    u = url.strip().strip("<>")
    if "//" not in u:
        u = "//" + u
    try:
        host = urlsplit(u).hostname
    except ValueError:
        return None
    if not host:
        return None
    host = host.rstrip(".")
    if "." not in host or ":" in host:
        return None
    tld = host.rsplit(".", 1)[1]
    if not tld or tld.isdigit():
        return None
    return tld


_URL_PIECES = ["http", "https", "HTTP", "ftp", "a:b", "://", "//", ":", "/", "?", "#", "@", "[", "]", "\\",
               ".", "..", "www", "Example", "example", "CO", "jp", "ru", "1", "192", "-", "_", "xn--fiqs8s",
               "\u212a", "\u017f", "\u0661", "é", " ", "\n", "\t", "<", ">", ":80", ":8080", ":x", "a" * 20]
urls = st.lists(st.sampled_from(_URL_PIECES), max_size=14).map("".join)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(urls | st.text(max_size=40))
@example("http://www.example.jp/")
@example("https://WWW.EXAMPLE.CO.JP:8080/a?b#c")
@example("http://example.com./")
@example("http://example.com../")
@example("http://example.com\n")
@example("http://example.co\u212a/")
@example("http://example.1b/")
@example("http://example.b-1:\u0661/")
@example("abcdefghijklmnop://a.b/")
@example("abcdefghijklmno://a.b/")
@example("a:b://x.jp/")
@example("http://a.b.c")
@example("://a.b/")
@example("http://a.b.1/")
@example("http://a.b.12:80/")
@example("http://a..b/")
@example("http://.b/")
def test_tld_of_equals_reference(url):
    assert tld_of(url) == _tld_of_reference(url)


def _simple_url_tld(url: str) -> str | None:
    m = tld._SIMPLE_URL_TLD.match(url)
    return m.group(1).lower() if m is not None else None


@pytest.mark.skipif(native.core is None, reason="no compiled core")
@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(["", "http://", "https://", "a://", "abcdefghijklmno://"]).flatmap(
    lambda scheme: (urls | st.text(max_size=30)).map(lambda rest: scheme + rest)))
@example("http://www.example.jp/")
@example("https://WWW.EXAMPLE.CO.JP:8080/a?b#c")
@example("http://example.com./")
@example("http://example.com../")
@example("http://example.com\n")
@example("http://example.co\u212a/")
@example("http://example.b-1:\u0661/")
@example("abcdefghijklmnop://a.b/")
@example("http://a.b.:80")
@example("http://.b/")
@example("http://a..b/")
@example("http://a.b-/")
@example("http://-.b/")
def test_compiled_url_tld_equals_the_regex(url):
    assert native.core.url_tld(url) == _simple_url_tld(url)


def test_tld_of_on_usual_urls_takes_the_regex():
    for url in ("http://www.example.jp/", "https://Shop.Example.CO.UK:443/x?y", "http://a.b/#z", "http://a.ru"):
        assert tld._SIMPLE_URL_TLD.match(url) is not None  # (sniff.tld_of is redecode.tld's)
        assert tld_of(url) == _tld_of_reference(url)


# ------------------------------------------------------------------------------------------------
# Decision construction

_FIELDS = [f.name for f in dataclasses.fields(Decision)]


@given(st.lists(st.one_of(st.none(), st.text(max_size=5), st.integers(), st.floats(allow_nan=False),
                          st.booleans(), st.tuples(st.text(max_size=3))),
                min_size=len(_FIELDS), max_size=len(_FIELDS)))
def test_new_decision_is_a_plain_decision(values):
    fast = sniff._new_decision(*values)
    slow = Decision(**dict(zip(_FIELDS, values)))
    assert type(fast) is Decision
    assert fast == slow
    assert repr(fast) == repr(slow)
    assert dataclasses.astuple(fast) == dataclasses.astuple(slow)
    assert pickle.loads(pickle.dumps(fast)) == slow
    assert dataclasses.replace(fast, encoding="x") == dataclasses.replace(slow, encoding="x")
    try:
        hash(slow)
    except TypeError:
        pass  # unhashable field values (not what decide makes)
    else:
        assert hash(fast) == hash(slow)


def test_new_decision_is_frozen():
    d = sniff._new_decision(*range(len(_FIELDS)))
    for name in _FIELDS:
        try:
            setattr(d, name, None)
        except dataclasses.FrozenInstanceError:
            continue
        raise AssertionError(f"{name} could be set")
    assert not hasattr(d, "__dict__")


# ------------------------------------------------------------------------------------------------
# Content-Type facts, cached

_CT_PIECES = ["text/html", "text/plain", "TEXT/HTML", ";", " ", "charset=", "Charset=", "charset =", '"',
              "utf-8", "UTF-8", "gbk", "foo", "windows-UTF-8", ",", "\t", "*/*", "x=y", "\\", "é", "unicode"]
ct_value = st.lists(st.sampled_from(_CT_PIECES), max_size=8).map("".join)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.lists(ct_value, min_size=1, max_size=3))
@example(["text/html; charset=" + "x" * 300])
def test_header_facts_equal_uncached(values):
    charset = extract_mime_type(values)[1]
    want = (charset, get_encoding(charset) if charset is not None else None)
    assert sniff._header_facts(values) == want
    assert sniff._header_facts(tuple(values)) == want  # and again, from the cache


def test_header_facts_cache_is_bounded():
    sniff._header_facts(["text/html; charset=" + "x" * 300])
    assert ("text/html; charset=" + "x" * 300,) not in sniff._HEADER_FACTS
    for i in range(sniff._HEADER_FACTS_MAX + 10):
        sniff._header_facts([f"text/html; charset=label-{i}"])
    assert len(sniff._HEADER_FACTS) <= sniff._HEADER_FACTS_MAX


# ------------------------------------------------------------------------------------------------
# decide (positional internals) == choose(gather(...))

_PAYLOAD_PIECES = [b"<meta charset=utf-8>", b"<meta charset=bogus>", b'<meta http-equiv="Content-Type" '
                   b'content="text/html; charset=koi8-r">', b"<?xml version='1.0' encoding='EUC-JP'?>",
                   b"\xef\xbb\xbf", b"\xff\xfe", b"caf\xc3\xa9", b"caf\xe9", b"<p>", b" " * 300, b"<script>",
                   b"</script>", b"x"]
payloads = st.lists(st.sampled_from(_PAYLOAD_PIECES), max_size=12).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(payloads, st.lists(ct_value, max_size=2), st.sampled_from([None, "http://a.jp/", "http://b.com:80/x"]),
       st.sampled_from(["html", "xml", "text"]), st.booleans(), st.booleans(), st.booleans())
@pytest.mark.slow
def test_decide_equals_choose_of_gather(payload, content_type, url, kind, utf8_step, late_meta, chromium):
    kw = dict(content_type=content_type, url=url, kind=kind, utf8_step=utf8_step, late_meta=late_meta,
              chromium_tokenizer=chromium)
    det = Detection("windows-1251", 0.5, "test@1")
    got = decide(payload, detector=lambda p, t: det, **kw)
    facts = gather(payload, **kw)
    assert got == choose(facts, detection=det, utf8_step=utf8_step)
    assert decide(payload, **kw) == choose(facts, detection=None, utf8_step=utf8_step)


def test_amend_is_dataclasses_replace():
    d = sniff.decide(b"<meta charset=koi8-r><p>\xf0\xd2\xc9\xd7\xc5\xd4", content_type=("text/html",),
                     url="http://example.ru/")
    for changes in ({}, {"encoding": "windows-1251"}, {"validation": "overridden: x", "browser_encoding": "KOI8-R"},
                    {name: None for name in sniff._DECISION_FIELDS}):
        assert sniff.amend(d, **changes) == dataclasses.replace(d, **changes)
    try:
        sniff.amend(d, not_a_field=1)
    except TypeError:
        pass
    else:
        raise AssertionError("amend took a name that is not a Decision field")
