"""The prescan's fast path (``prescan._skip_plain`` and ``prescan._plain_meta``, two compiled
regular expressions) against the full state machine (``prescan._scan`` from byte 0).

The fast path is an optimisation only: it must give the full scan's answer, every field of the
:class:`~redecode.prescan.MetaResult` (encoding, label, offset, end, pragma, remap, ignored
labels), on every input and every window size; the compiled ``_core.skip_plain`` (what
:func:`~redecode.prescan.prescan` calls where the core is built) must give ``_skip_plain``'s
offset for every input and bound. The expected values here are the full scan's,
which ``test_prescan.py`` checks against two independent oracles (a literal transcription of
the HTML Standard's prescan, and the tokenizer states Chromium runs) and
``test_html5lib_encoding.py`` against html5lib-tests and Chromium's measured answers.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from redecode import native
from redecode import prescan as P

HTML5LIB = Path(__file__).parent / "data" / "html5lib"


def full(data: bytes, window: int = P.WINDOW):
    """The full Chromium-mode prescan over ``data[:window]``: the state machine from byte 0,
    without the fast path and without the no-"charset" shortcut."""
    d = bytes(data[:window])
    return P._scan(d, False, True, d.lower())


def check(data: bytes) -> None:
    """prescan == full scan for the whole input and for every window size (so every place a
    window can cut a construct), and the fast path's two parts each agree with the full scan."""
    for w in range(len(data) + 2):
        assert P.prescan(data, window=w) == full(data, w), (data, w)
    d = bytes(data)
    low = d.lower()
    same_skip(low)
    same_meta(low)
    k = P._declaration_bound(d, low)  # the first "charset", or a reference that may spell it
    if k >= 0:
        pos = P._skip_plain(low, k)
        assert 0 <= pos <= k
        # the loop from where the fast path stopped gives the loop's answer from byte 0
        assert P._scan(d, False, True, low, pos) == P._scan(d, False, True, low), (data, pos)
    # _plain_meta at every "<meta" (not only where _skip_plain stops): when it answers, the
    # full scan from that "<" gives the same result.
    i = low.find(b"<meta")
    while i >= 0:
        got = P._plain_meta(d, low, i)
        if got is not None:
            assert got == P._scan(d, False, True, low, i), (data, i)
        i = low.find(b"<meta", i + 1)


def same_skip(low: bytes) -> None:
    """The compiled fast path (``_core.skip_plain``) stops where its twin ``_skip_plain`` (the
    regular expressions) does, for every bound in and past *low*."""
    if native.core is None:
        return
    for end in range(len(low) + 2):
        assert native.core.skip_plain(low, end) == P._skip_plain(low, end), (low, end)


def _meta_regex(low: bytes, lt: int) -> tuple[bool, int, int, int] | None:
    """``_core.meta_plain``'s twin: the two regular expressions of ``_plain_meta``."""
    m = P._META_CHARSET.match(low, lt)
    pragma = m is None
    if pragma:
        m = P._META_PRAGMA.match(low, lt)
        if m is None:
            return None
    return (pragma, *m.span(m.lastindex), m.end())


def same_meta(low: bytes) -> None:
    """The compiled reading of the two usual metas (``_core.meta_plain``) is its regular
    expressions' at every offset of *low*."""
    if native.core is None:
        return
    for lt in range(len(low) + 1):
        assert native.core.meta_plain(low, lt) == _meta_regex(low, lt), (low, lt)


# Markup pieces chosen to reach every alternative of the fast path's patterns and every way out
# of them: plain and non-plain attribute syntax (quotes in names, "=" as a name's first byte,
# spaces around "=", values cut by the end), comments and "<!-->", "</" + non-letter, "<?",
# runs of "<", raw-text elements in both cases and their end tags with each terminator,
# <plaintext>, long tag names, "charset" outside metas, and metas of the two fast shapes with
# variations that must fall back (unknown labels, a later charset attribute, unquoted values,
# character references in any attribute of a meta, UTF-16 and x-user-defined remaps).
_PIECES = [
    b"<", b">", b"/", b"=", b" ", b"\t", b"\n", b"\x0c", b"\r", b'"', b"'", b"-", b"!", b"?", b"x",
    b"\x00", b"\xff", b"\xc3\xa9", b"<<", b"<<<", b"< ", b"<1", b"<!", b"<!--", b"-->", b"--", b"<!-->",
    b"<!--->", b"--!>", b"--!", b"<!--!>", b"<!---!>", b"<!----!>", b"-!>", b"--!->", b"<!DOCTYPE html>", b"<?xml?>", b"</", b"</>", b"</ >", b"</1>", b"<a", b"<A", b"</a",
    b"</A >", b"<a/", b"<p ", b"<div>", b"</div>", b"<html lang=en>", b'<html lang="en">', b"<head>",
    b"</head>", b"<body>", b"<br/>", b"<img src=x alt='y'/>", b'<a href="x>y">', b"<a href=x>y>",
    b'<a b="c"d="e">', b"<a b=c=d>", b'<a =x>', b'<a b ="c>d">', b'<a b/="c>d">', b'<a b= "c">',
    b'<a b = \'c>d\' >', b'<a b"c=d>', b"<a b'c>", b"<a b=>", b"<a b= >", b'<a b="c" / >',
    b"<" + b"a" * 12 + b" b=c>", b"<abcdefghijk/>", b"<title>", b"</title>", b"<TITLE>", b"</TITLE >",
    b"</title", b"<title/>", b"</title/>", b"<script>", b"</script>", b"<SCRIPT type=text/plain>",
    b"</script ", b"<style>", b"</style>", b"<textarea>", b"</textarea>", b"<xmp>", b"</xmp>",
    b"<iframe>", b"</iframe>", b"<noembed>", b"</noembed>", b"<noframes>", b"</noframes>",
    b"<noscript>", b"</noscript>", b"<plaintext>", b"<titles>", b"</titlex>", b"<scripts>",
    b"<meta", b"<META", b"<meta/", b"<meta ", b"<meta name=x>", b'<meta name="description" content="x">',
    b"charset", b"CHARSET", b" charset", b"charset=", b" charset=", b"=utf-8", b"utf-8", b"koi8-r",
    b"bogus", b"utf-16", b"x-user-defined", b"content", b" content=", b" http-equiv=", b"content-type",
    b'"content-type"', b"'Content-Type'", b'"text/html; charset=gbk"', b"'text/html;charset=big5'",
    b'"charset=bogus"', b'"text/html"', b"&#x75;tf-8", b"&", b"&#", b"&#45;", b"&quot;", b"&#99;harset", b"&amp;",
    b'<meta name="a&amp;b">', b"<meta name=a&b content=x>", b'<meta charset="koi8&#45;r">',
    b"<meta charset=koi8&#x2D;r>", b'<meta charset="utf-8" name="a&amp;b">',
    b'<meta http-equiv="Content-Type" content="text/html; charset=iso&#x2D;8859&#x2D;15">',
    b"<meta content='&#99;harset=koi8-r' http-equiv=content-type>",
    b'<meta http-equiv="content&#45;type" content="text/html; charset=gbk">',
    b'<meta http-equiv=content-type content="text/html; charset=&quot;big5&quot;">',
    b'<meta http-equiv="Content-Type" content="&#99;harset=koi8-r; charset=big5">',
    b'<meta charset="utf-8">', b"<meta charset=koi8-r>", b"<META CHARSET='big5'/>",
    b"<meta charset=bogus>", b'<meta charset="utf-16">', b"<meta charset=x-user-defined>",
    b'<meta charset = " utf-8 " >', b"<meta charset= koi8-r>", b'<meta  charset="utf-8" name=x>',
    b"<meta/charset=gbk/>", b"<meta charset=utf-8/>", b'<meta charset="koi8-r" charset="big5">',
    b'<meta charset=utf-8 content="text/html; charset=big5" http-equiv=content-type>',
    b'<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />',
    b"<meta http-equiv=content-type content='text/html; charset=euc-jp'>",
    b'<meta http-equiv=content-type content="text/html; charset=koi8-r">',
    b'<meta content="text/html; charset=iso-8859-2" http-equiv="Content-Type">',
    b"<meta content='text/html; charset=shift_jis' http-equiv=content-type >",
    b'<meta http-equiv="Content-Type" content="text/html; charset=bogus">',
    b'<meta http-equiv="Content-Type" content="text/html">',
    b'<meta http-equiv="Content-Type" content="text/html; charset=utf-8" charset="koi8-r">',
    b'<meta http-equiv="Content-Type"content="text/html; charset=utf-16be">',
    b'<meta http-equiv="refresh" content="0; charset=utf-8">',
    b'<meta content="text/html; charset=utf-8">',
    b'<meta http-equiv="Content-Type" http-equiv=x content="charset=gb2312">',
    b"<meta http-equiv=content-type/ content='charset=big5'>",
    b'<meta http-equiv = "content-type" content = "charset = \'sjis\'" / >',
    b'<meta name="x" content="charset=utf-8" http-equiv="content-type">',
]
markup = st.lists(st.sampled_from(_PIECES), max_size=40).map(b"".join)
# Tags with random attribute bytes: what the attribute grammar must get exactly right.
_ATTR_BYTES = st.lists(st.sampled_from([b" ", b"\t", b"/", b"=", b'"', b"'", b">", b"a", b"B", b"charset",
                                        b"content", b"http-equiv", b"content-type", b"utf-8", b";", b"<"]),
                       max_size=14).map(b"".join)
tag_soup = st.lists(
    st.tuples(st.sampled_from([b"<a", b"<meta", b"<script", b"<title", b"</a", b"</script", b"<x"]), _ATTR_BYTES)
    .map(b"".join)
    | st.sampled_from(_PIECES),
    max_size=30,
).map(b"".join)
# Few pieces, so that their interactions (a construct read one way hiding or revealing the next)
# come up often: each piece opens or closes something.
_STRUCTURE = [b"<!--", b"<!-->", b"-->", b"--", b"--!>", b"!", b"-", b"<!", b"<?", b"</", b"<", b">", b"/>", b'"',
              b"'", b"=", b" ", b"&#45;", b"&#99;harset=", b"<meta content=",
              b"/", b"<a", b"<a b=", b"<a b", b"</a", b"<script>", b"</script>", b"<title>", b"</title",
              b"<meta charset=utf-8>", b'<meta charset="koi8-r"', b"<meta charset=bogus>", b"<plaintext>",
              b"<meta http-equiv=content-type content='charset=big5'>", b"x"]
structure = st.lists(st.sampled_from(_STRUCTURE), max_size=24).map(b"".join)


@settings(max_examples=1000, deadline=None)
@given(structure)
@example(b"<!--> <script> --> <meta charset=utf-8>")
@example(b"<a b='>' <script>'> <meta charset=utf-8>")
# a regular expression that gave back bytes of a tag name or an unquoted value would read these
# another way (the tag ending at the last ">", the label "koi8-r")
@example(b"<ab=\"x y'><script>\" z><meta charset=utf-8>")
@example(b"<meta charset=koi8-ru=\" x'>\"><meta charset=big5>")
@example(b"<meta charset=koi8-ru=\" x'>\">")
# comment ends in Chromium's tokenizer: "--!>" (not the "--" of "<!--"), "<!-->", "<!--->"
@example(b"<!-- --!><meta charset=utf-8>")
@example(b"<!--!><meta charset=utf-8>--><meta charset=big5>")
@example(b"<!---!><meta charset=utf-8>--><meta charset=big5>")
@example(b"<!----!><meta charset=utf-8>")
@example(b"<!-- --!-><meta charset=utf-8>--!><meta charset=big5>")
# character references: a meta with "&" is never skipped, a value with "&" never read by the
# fast path; "charset" spelled with references before the window's first "charset"
@pytest.mark.slow
@example(b"<meta charset=koi8&#45;r>")
@example(b"<meta http-equiv=content-type content='&#99;harset=koi8-r'><meta charset=utf-8>")
@example(b"<meta http-equiv=content-type content='&#99;harset=koi8-r'>")
@example(b'<meta http-equiv=content-type content="charset=&quot;koi8-r&quot;">')
def test_fast_equals_full_on_structure(data):
    check(data)


@settings(max_examples=500, deadline=None)
@given(markup)
@example(b'<a href="x"><meta charset="utf-8">')
@example(b'<script>"<meta charset=koi8-r>"</script><meta charset=utf-8>')
@example(b"<!--><meta charset=koi8-r>")
@example(b'<a b="c" ="x><meta charset=koi8-r>"><meta charset=utf-8>')
@example(b"<meta charset=bogus><meta charset=big5>")
@example(b'<meta http-equiv="Content-Type" content="text/html; charset=utf-8" charset="koi8-r">')
def test_fast_equals_full_on_markup(data):
    check(data)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(tag_soup)
def test_fast_equals_full_on_tag_soup(data):
    check(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_fast_equals_full_on_bytes(data):
    check(data)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=40, max_size=150).map(b"".join))
def test_fast_equals_full_past_the_window(data):
    """Long inputs: the default 1024-byte window cuts them."""
    assert P.prescan(data) == full(data)
    for w in (1, 100, 500, 1023, 1024, 1025):
        assert P.prescan(data, window=w) == full(data, w)


# Every construct's opening and closing bytes and the raw-text names, often cut by the bound:
# where the compiled fast path could read a construct otherwise than its regular expressions.
_SKIP_TOKENS = [bytes([c]) for c in b"<>/!?-=\"' \t\n\x0b\x0c\rabcdeilmnoprstxyA\x80"] + [
    b"<!--", b"-->", b"--!>", b"<title", b"</title", b"<script", b"</script", b"</SCRIPT", b"<plaintext",
    b"<xmp", b"</xmp", b"<noframes", b"</noframes", b"<iframe", b"textarea", b"<style", b"<noembed"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_SKIP_TOKENS), max_size=40).map(b"".join))
@example(b"<title x=1>t</TITLE ><a b= 'c'>")
@example(b"<a b=\"c<!-- --!>")
@example(b"<!---><p><!--->x")
def test_compiled_skip_plain(data):
    same_skip(data.lower())
    same_skip(data)  # (upper-case letters too: end tags are matched ignoring case)


# The two usual metas' bytes, cut and joined every way: where the compiled reading could differ.
_META_TOKENS = [b"<meta", b"<meta ", b"<meta/", b" ", b"\t", b"\x0b", b"/", b"=", b'"', b"'", b">", b"&", b";",
                b"charset", b"http-equiv", b"content", b"content-type", b'"content-type"', b"'content-type'",
                b"utf-8", b"x", b"-", b"a=b", b"text/html; charset=gbk"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_META_TOKENS), max_size=16).map(b"".join))
@example(b'<meta http-equiv=content-type content="text/html; charset=gbk"/ >')
@example(b"<meta content='x' http-equiv='content-type'>")
@example(b"<meta charset=utf-8")
@example(b'<meta charset="utf-8')
def test_compiled_meta_plain(data):
    same_meta(data.lower())


def _dat_cases() -> list[bytes]:
    cases = []
    for name in ("tests1.dat", "tests2.dat", "test-yahoo-jp.dat"):
        raw = (HTML5LIB / name).read_bytes()
        cases += [chunk.partition(b"\n#encoding\n")[0] for chunk in raw.split(b"#data\n")[1:]]
    return cases


@pytest.mark.parametrize("data", _dat_cases(), ids=lambda d: repr(d[:40]))
def test_fast_equals_full_on_html5lib_dat(data):
    assert P.prescan(data) == full(data)
    assert P.prescan(data, window=len(data) + 1) == full(data, len(data) + 1)
    check(data[:600])


def test_fast_path_is_taken_for_the_usual_shapes():
    """The fast path answers the common page shapes itself (else it would only cost time)."""
    head = b'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta name="viewport" content="width=device-width">\n'
    head += b"<!-- c --><title>t</title>\n<link rel=stylesheet href='/a.css'>\n"
    for meta in (b'<meta charset="UTF-8">', b"<meta charset=utf-8 />",
                 b'<meta http-equiv="Content-Type" content="text/html; charset=windows-1251" />',
                 b'<meta content="text/html; charset=Shift_JIS" http-equiv="content-type">'):
        data = head + meta
        low = data.lower()
        pos = P._skip_plain(low, low.find(b"charset"))
        assert pos == len(head)
        got = P._plain_meta(data, low, pos)
        assert got is not None and got == full(data)


# Exhaustive: every sequence of up to three pieces of a small alphabet, each followed by
# suffixes that hold a declaration (and that close quotes, raw text or tags the sequence may have
# left open), so that any difference in how the sequence is read shows in the answer.
_ALPHABET = [b"<!--", b"<!-->", b"-->", b"--!>", b"-", b"!", b"&", b"<!", b"<?", b"</", b"</a", b"</a/b=", b"<a", b"<a/b=", b"<", b">",
             b"/", b"=", b'"', b"'", b" ", b"b", b"<script>", b"</script", b"<title>", b"</title/>",
             b"<plaintext>", b"<meta", b"<meta charset", b"<meta http-equiv=content-type content="]
_SUFFIXES = [b"<meta charset=utf-8>", b"\"'></title><meta charset=koi8-r>", b"\"' x>-->\"><meta charset=big5>",
             b"=gbk content='charset=euc-kr' http-equiv=content-type >", b"--!><meta charset=gbk>",
             b"#45;euc-jp http-equiv=content-type content='&#99;harset=koi8-r'>"]


def _product(n: int):
    for k in range(1, n + 1):
        yield from itertools.product(_ALPHABET, repeat=k)


@pytest.mark.parametrize("suffix", _SUFFIXES)
def test_fast_equals_full_exhaustive(suffix):
    seen = set()
    for parts in _product(3):
        data = b"".join(parts) + suffix
        if data in seen:
            continue
        seen.add(data)
        assert P.prescan(data) == full(data), data


_CONTENT_PIECES = [b"charset", b"CHARSET", b"=", b" ", b"\t", b";", b"'", b'"', b"utf-8", b"koi8-r", b"bogus",
                   b"text/html", b"x", b",", b"\\", b"&#99;harset", b"&#x43;HARSET", b"&quot;", b"&#59;", b"&#32;",
                   b"&#45;", b"&"]


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_CONTENT_PIECES), max_size=10).map(b"".join), st.booleans(), st.booleans())
@example(b"text/html; charset=utf-8", True, False)
@example(b"charset=utf-8'", True, False)
@example(b"charset=utf-8;charset=koi8-r", True, True)
@example(b"charset utf-8; charset=koi8-r", False, False)
@example(b"charset = utf-8; charset=koi8-r", True, False)
@example(b"charset= utf-8", True, False)
@example(b"charset=", True, False)
@example(b"&#99;harset=koi8-r; charset=utf-8", True, False)
@example(b"charset=&quot;koi8-r&quot;", True, True)
def test_pragma_content_values(value, double, reverse):
    """The pragma's fast path (a plain label right after the first "charset=") against
    "extracting a character encoding from a meta element" in the full scan."""
    q = b'"' if double else b"'"
    value = value.replace(q, b"")
    content = b"content=" + q + value + q
    equiv = b'http-equiv="Content-Type"'
    meta = b"<meta " + (content + b" " + equiv if reverse else equiv + b" " + content) + b">"
    for data in (meta, b"<p>" + meta + b"<meta charset=big5>"):
        check(data)
