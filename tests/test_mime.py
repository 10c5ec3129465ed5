"""MIME types: MIME Sniffing "parse a MIME type" / "serialize", Fetch "extract a MIME type" and
"get, decode, and split", "rules for identifying an unknown MIME type", and text_kind.

Expected values are the standards' own examples (MIME Sniffing's note on ``charset`` in "parse a
MIME type"; Fetch's example tables for "extract a MIME type" and "get, decode, and split") and
cases worked by hand from the algorithms' steps.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redecode.mime import (
    MimeType,
    extract_mime_type,
    parse_mime_type,
    sniff_unknown_mime_type,
    split_header_values,
    text_kind,
)

# (input, serialized result or None for failure)
PARSE = [
    # MIME Sniffing, "parse a MIME type", the note after the algorithm.
    ('text/html;charset="shift_jis"iso-2022-jp', "text/html;charset=shift_jis"),
    # Worked from the steps.
    ("text/html;charset=gbk", "text/html;charset=gbk"),
    ("TEXT/HTML;CHARSET=GBK", "text/html;charset=GBK"),
    ("text/html;charset=gbk(", 'text/html;charset="gbk("'),
    ("text/html;x=(;charset=gbk", 'text/html;x="(";charset=gbk'),
    ("text/html;charset=gbk;charset=windows-1255", "text/html;charset=gbk"),
    ("text/html;charset=();charset=GBK", 'text/html;charset="()"'),
    ("text/html;charset =gbk", "text/html"),
    ("text/html ;charset=gbk", "text/html;charset=gbk"),
    ("text/html; charset=gbk", "text/html;charset=gbk"),
    ("text/html;charset= gbk", 'text/html;charset=" gbk"'),
    ("text/html; charset = gbk", "text/html"),
    ("text/html;charset=\x0bgbk", 'text/html'),
    ("text/html;\x0ccharset=gbk", "text/html"),
    ('text/html;charset="gbk"', "text/html;charset=gbk"),
    ('text/html;charset="gbk', "text/html;charset=gbk"),
    ('text/html;charset=gbk"', 'text/html;charset="gbk\\""'),
    ('text/html;charset="\\ gbk"', 'text/html;charset=" gbk"'),
    ('text/html;charset="\\g\\b\\k"', "text/html;charset=gbk"),
    ('text/html;charset="gbk"x', "text/html;charset=gbk"),
    ('text/html;charset="";charset=GBK', 'text/html;charset=""'),
    ("text/html;charset=;charset=GBK", "text/html;charset=GBK"),
    ("text/html;charset=\u00e5", 'text/html;charset="\u00e5"'),
    ("text/html;charset=\U0001f4a9", "text/html"),
    ("text/html;\u212aoi=x;charset=koi8-r", "text/html;charset=koi8-r"),
    ("x/x;test", "x/x"),
    ('x/x;test="\\', 'x/x;test="\\\\"'),
    ("x/x;x= ", "x/x"),
    ("x/x;x=\t", "x/x"),
    ("x/x\n\r\t ;x=x", "x/x;x=x"),
    ("\n\r\t x/x;x=x\n\r\t ", "x/x;x=x"),
    ("x/x;\n\r\t x=x\n\r\t ;x=y", "x/x;x=x"),
    ("text/html;test=\u00fftest;charset=gbk", 'text/html;test="\u00fftest";charset=gbk'),
    ("text/html;", "text/html"),
    ("image/svg+xml", "image/svg+xml"),
    # Failures.
    ("", None),
    ("\t", None),
    ("/", None),
    ("bogus", None),
    ("bogus/", None),
    ("bogus/ ", None),
    ("bogus/bogus/;", None),
    ("</>", None),
    ("(/)", None),
    ("\u00ff/\u00ff", None),
    ("text/html(;doesnot=matter", None),
    ("{/}", None),
    ("\u0100/\u0100", None),
    ("text /html", None),
    ("text/ html", None),
    ('"text/html"', None),
]


@pytest.mark.parametrize(("value", "expected"), PARSE)
def test_parse_and_serialize(value, expected):
    got = parse_mime_type(value)
    assert (got.serialize() if got is not None else None) == expected


def test_mime_type_fields():
    m = parse_mime_type('Text/HTML; Charset="Shift_JIS"; charset=utf-8; q=1')
    assert (m.type, m.subtype, m.essence) == ("text", "html", "text/html")
    assert m.parameters == (("charset", "Shift_JIS"), ("q", "1"))
    assert m.charset == "Shift_JIS"
    assert m.get("q") == "1" and m.get("nope") is None
    assert parse_mime_type("text/html").charset is None
    with pytest.raises(AttributeError):
        m.type = "x"  # frozen


def test_spaces_around_equals_is_not_a_charset_parameter():
    # Issue "Browser-exact encoding decisions", step 2.
    assert parse_mime_type("text/html; charset = utf-8").charset is None
    assert parse_mime_type("text/html; charset= utf-8").charset == " utf-8"
    assert parse_mime_type("text/html; charset=utf-8 ").charset == "utf-8"


# Fetch, "extract a MIME type", the example table (each inner list: the header lines).
EXTRACT = [
    (["text/plain;charset=gbk, text/html"], "text/html", None),
    (["text/html;charset=gbk;a=b, text/html;x=y"], "text/html;x=y;charset=gbk", "gbk"),
    (["text/html;charset=gbk;a=b", "text/html;x=y"], "text/html;x=y;charset=gbk", "gbk"),
    (["text/html;charset=gbk", "x/x", "text/html;x=y"], "text/html;x=y", None),
    (["text/html", "cannot-parse"], "text/html", None),
    (["text/html", "*/*"], "text/html", None),
    (["text/html", ""], "text/html", None),
    # Worked from the steps.
    ([], None, None),
    (["cannot-parse"], None, None),
    (["*/*"], None, None),
    (['text/html; charset="a,b"'], 'text/html;charset="a,b"', "a,b"),
    (["text/html; charset=utf-8", "text/html; charset=big5"], "text/html;charset=big5", "big5"),
    (["text/html; charset=utf-8", "TEXT/HTML"], "text/html;charset=utf-8", "utf-8"),
    (["text/html; charset = foo"], "text/html", None),
]


@pytest.mark.parametrize(("values", "serialized", "charset"), EXTRACT)
def test_extract_mime_type(values, serialized, charset):
    mime, got_charset = extract_mime_type(values)
    assert (mime.serialize() if mime is not None else None) == serialized
    assert got_charset == charset


# Fetch, "get, decode, and split", the example table (header lines -> values).
SPLIT = [
    (["nosniff,"], ["nosniff", ""]),
    (['""'], ['""']),
    (['text/html;", x/x'], ['text/html;", x/x']),
    (['text/html;"', "x/x"], ['text/html;", x/x']),
    (['x/x;test="hi",y/y'], ['x/x;test="hi"', "y/y"]),
    (['x/x;test="hi"', "y/y"], ['x/x;test="hi"', "y/y"]),
    (["x / x,,,1"], ["x / x", "", "", "1"]),
    (['"1,2", 3'], ['"1,2"', "3"]),
]


@pytest.mark.parametrize(("values", "expected"), SPLIT)
def test_split_header_values(values, expected):
    assert split_header_values(values) == expected


def test_extract_cache_is_transparent():
    long = "text/html; x=" + "y" * 1000 + "; charset=koi8-r"
    assert extract_mime_type([long])[1] == "koi8-r"
    assert extract_mime_type(("text/html; charset=gbk",)) == extract_mime_type(["text/html; charset=gbk"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=4))
def test_extract_never_raises(values):
    mime, charset = extract_mime_type(values)
    assert mime is None or isinstance(mime, MimeType)
    assert charset is None or (mime is not None and charset == mime.charset)


# MIME Sniffing, "rules for identifying an unknown MIME type" (sniff-scriptable flag set).
SNIFF = [
    (b"<!DOCTYPE HTML>", "text/html"),
    (b"\n\t <!doctype html><html>", "text/html"),
    (b"<html>", "text/html"),
    (b"<HTML lang=en>", "text/html"),
    (b"<head>", "text/html"),
    (b"<script>x", "text/html"),
    (b"<iframe ", "text/html"),
    (b"<h1>", "text/html"),
    (b"<div>", "text/html"),
    (b"<font>", "text/html"),
    (b"<table>", "text/html"),
    (b"<a href=x>", "text/html"),
    (b"<style>", "text/html"),
    (b"<title>", "text/html"),
    (b"<b>", "text/html"),
    (b"<body>", "text/html"),
    (b"<br>", "text/html"),
    (b"<p>", "text/html"),
    (b"<!-- x -->", "text/html"),
    (b"<html", "text/plain"),  # no tag-terminating byte: no match, and no binary byte
    (b"<htmlx>", "text/plain"),
    (b"<?xml version='1.0'?>", "text/xml"),
    (b"  <?xml version='1.0'?>", "text/xml"),
    (b"%PDF-1.7", "application/pdf"),
    (b" %PDF-1.7", "text/plain"),
    (b"%!PS-Adobe-3.0", "application/postscript"),
    (b"\xfe\xff\x00<", "text/plain"),
    (b"\xff\xfe<\x00", "text/plain"),
    (b"\xef\xbb\xbfhi", "text/plain"),
    (b"GIF89a\x01\x00", "image/gif"),
    (b"GIF87a\x01\x00", "image/gif"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "image/png"),
    (b"\xff\xd8\xff\xe0", "image/jpeg"),
    (b"BM\x00\x00", "image/bmp"),
    (b"\x00\x00\x01\x00\x01", "image/x-icon"),
    (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
    (b"RIFF\x10\x00\x00\x00WAVEfmt ", "audio/wave"),
    (b"ID3\x03\x00", "audio/mpeg"),
    (b"OggS\x00\x02", "application/ogg"),
    (b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom", "video/mp4"),
    (b"\x1f\x8b\x08\x00", "application/x-gzip"),
    (b"PK\x03\x04", "application/zip"),
    (b"Rar!\x1a\x07\x00", "application/x-rar-compressed"),
    (b"plain words\r\n", "text/plain"),
    (b"", "text/plain"),
    (b"text\x00with nul", "application/octet-stream"),
    (b"\x1b$B ISO-2022-JP", "text/plain"),  # ESC (0x1B) is not a binary data byte
    (b"sub\x1a", "application/octet-stream"),
    (b"vt\x0b", "application/octet-stream"),
    (b"ff\x0c cr\r", "text/plain"),
    (b"{\"json\": 1}", "text/plain"),
]


@pytest.mark.parametrize(("payload", "expected"), SNIFF)
def test_sniff_unknown_mime_type(payload, expected):
    assert sniff_unknown_mime_type(payload) == expected


def test_sniff_reads_only_the_resource_header():
    # Binary bytes after the first 1445 bytes are not looked at.
    assert sniff_unknown_mime_type(b"a" * 1445 + b"\x00") == "text/plain"
    assert sniff_unknown_mime_type(b"a" * 1444 + b"\x00") == "application/octet-stream"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_sniff_never_raises(payload):
    assert "/" in sniff_unknown_mime_type(payload)


KINDS = [
    ("text/html", "html"),
    ("TEXT/HTML", "html"),
    ("application/xhtml+xml", "xml"),
    ("text/xml", "xml"),
    ("application/xml", "xml"),
    ("image/svg+xml", "xml"),
    ("application/rss+xml", "xml"),
    ("application/atom+xml", "xml"),
    ("text/plain", "text"),
    ("text/css", "text"),
    ("text/javascript", "text"),
    ("text/csv", "text"),
    ("application/json", None),
    ("application/javascript", None),
    ("image/png", None),
    ("application/octet-stream", None),
    ("", None),
    (None, None),
]


@pytest.mark.parametrize(("essence", "kind"), KINDS)
def test_text_kind(essence, kind):
    assert text_kind(essence) == kind
