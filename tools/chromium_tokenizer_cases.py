#!/usr/bin/env python3
"""The Chromium measurements of the meta scan's tokenizer rules (issue 16, item 2): character
references in a ``<meta>``'s attribute values and the comment end ``--!>``.

The cases live here (:data:`CASES`: name, body bytes, note); the browser oracle
(``../shared/tools/browser_oracle``, headless Chromium) gives ``document.characterSet`` for each;
``tests/data/chromium-tokenizer/chromium-156.jsonl`` holds both, and
``tests/test_chromium_tokenizer.py`` reads it (CI never runs the oracle).

Usage::

    python tools/chromium_tokenizer_cases.py write DIR      # DIR/NAME.body + NAME.headers
    $ORACLE_PY ../shared/tools/browser_oracle/browser_oracle.py DIR -o oracle.jsonl
    python tools/chromium_tokenizer_cases.py merge oracle.jsonl --chromium 156.0.8078.114

Every case is served as ``text/html`` without a charset from ``http://oracle.test/NAME``, so an
undeclared page gets Chromium's fallback, windows-1252 (an ASCII page at an unknown TLD). Every
declaration in these pages names another encoding, so ``characterSet`` shows whether a meta was
taken; the pages are ASCII (but for the A0 byte of ``ot_extract_nbsp_raw``), so the detector
has nothing to say.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "chromium-tokenizer" / "chromium-156.jsonl"
URL = "http://oracle.test/"
CONTENT_TYPE = "text/html"

TAIL = b"</head><body><p>plain ASCII text</p></body></html>\n"
PRE = b"<!DOCTYPE html><html><head>"
PRE_BODY = b"<!DOCTYPE html><html><head></head><body>"
ISO = b"<meta charset=iso-8859-15>"  # the later meta, taken when an earlier construct hides the first
CT = b'<meta http-equiv="Content-Type" content='

CASES: list[tuple[str, bytes, str]] = []


def page(head: bytes) -> bytes:
    return PRE + head + TAIL


def case(name: str, body: bytes, note: str) -> None:
    CASES.append((name, body, note))


def hidden_or_not(name: str, opener: bytes, note: str) -> None:
    """``opener`` + a KOI8-R meta + ``<!-- b -->`` + an ISO-8859-15 meta: KOI8-R when the
    opener's construct has ended before the first meta, ISO-8859-15 when it runs to the ``-->``."""
    case(name, page(opener + b"<meta charset=koi8-r><!-- b -->" + ISO), note)


def pad_comment(total: int) -> bytes:
    """A comment of exactly *total* bytes."""
    return b"<!--" + b"x" * (total - 7) + b"-->"


# --- controls
case("ctl_none", page(b"<title>t</title>"), "no declaration: the fallback")
case("ctl_plain", page(b'<meta charset="iso-8859-15">'), "plain declaration")

# --- character references in the charset attribute's value
for _name, _value in [
    ("cr_charset_dec", b'"iso&#45;8859&#45;15"'),
    ("cr_charset_hex", b'"iso&#x2D;8859&#x2D;15"'),
    ("cr_charset_hex_upper_x", b'"iso&#X2d;8859&#X2D;15"'),
    ("cr_charset_sq", b"'iso&#45;8859&#45;15'"),
    ("cr_charset_unquoted", b"iso&#45;8859&#45;15"),
    ("cr_charset_unquoted_ref_before_gt", b"koi8&#x2D;r"),
    ("cr_charset_unquoted_nosemi_before_gt", b"koi8-r&#x20"),
    ("cr_charset_all_refs", b'"&#107;&#x6F;&#105;&#56;&#45;&#x72;"'),
    ("cr_charset_ref_is_whole_word", b'"&#x69;&#x73;&#x6f;-8859-15"'),
    ("cr_charset_leading_zeros", b'"koi8&#0000045;r"'),
    ("cr_charset_leading_zeros_hex", b'"koi8&#x000002d;r"'),
    ("cr_charset_nosemi_dec", b'"koi8&#45r"'),
    ("cr_charset_nosemi_hex", b'"koi8&#x2Dr"'),
    ("cr_charset_nosemi_hex_eats_digits", b'"iso&#x2D8859-15"'),
    ("cr_charset_nosemi_unquoted_end", b"koi8-r&#32"),
    ("cr_charset_named_lowbar", b'"shift&lowbar;jis"'),
    ("cr_charset_named_colon", b'"iso&lowbar;8859-2&colon;1987"'),
    ("cr_charset_named_not_legacy_nosemi", b'"shift&lowbarjis"'),
    ("cr_charset_named_amp", b'"koi8&amp;r"'),
    ("cr_charset_named_quot", b'"&quot;koi8-r&quot;"'),
    ("cr_charset_named_unknown", b'"koi8&bogus;-r"'),
    ("cr_charset_ws_refs", b'"&#32;koi8-r&#9;&#10;"'),
    ("cr_charset_cr_ref", b'"koi8-r&#13;"'),
    ("cr_charset_ff_ref", b'"koi8-r&#12;"'),
    ("cr_charset_vt_ref", b'"koi8-r&#11;"'),
    ("cr_charset_nbsp_ref", b'"koi8-r&nbsp;"'),
    ("cr_charset_nul_ref_end", b'"koi8-r&#0;"'),
    ("cr_charset_nul_ref_mid", b'"koi8&#0;-r"'),
    ("cr_charset_surrogate", b'"koi8&#xD82D;r"'),
    ("cr_charset_too_big", b'"koi8&#x11002D;r"'),
    ("cr_charset_wrap32_hex", b'"koi8&#x10000002D;r"'),
    ("cr_charset_wrap32_dec", b'"koi8&#4294967341;r"'),
    ("cr_charset_wrap64_hex", b'"koi8&#x1000000000000002D;r"'),
    ("cr_charset_c1_remapped", b'"koi8&#150;r"'),
    ("cr_charset_c1_unmapped", b'"koi8&#x81;r"'),
    ("cr_charset_no_digits_dec", b'"koi8&#;-r"'),
    ("cr_charset_no_digits_hex", b'"koi8&#x;-r"'),
    ("cr_charset_trailing_amp", b'"koi8-r&"'),
]:
    case(_name, page(b"<meta charset=" + _value + b">"), "charset value " + _value.decode())

case("cr_charset_in_name", page(b'<meta char&#115;et="koi8-r">'), "reference in the attribute name")
case("cr_charset_second_attr", page(b'<meta name=x charset="iso&#45;8859&#45;15">'), "charset not the first attribute")
case("cr_charset_utf16", page(b'<meta charset="utf&#45;16">'), "utf-16 spelled with a reference: UTF-8")

# --- character references in content and http-equiv values
for _name, _value in [
    ("cr_content_hex", b'"text/html; charset=iso&#x2D;8859&#x2D;15"'),
    ("cr_content_dec", b'"text/html; charset=iso&#45;8859&#45;15"'),
    ("cr_content_unquoted", b"text/html;charset=iso&#45;8859&#45;15"),
    ("cr_content_quot", b'"text/html; charset=&quot;koi8-r&quot;"'),
    ("cr_content_quot_nosemi_at_end", b"'text/html; charset=&quot;koi8-r&quot'"),
    ("cr_content_quot_nosemi_then_alnum", b"'text/html; charset=&quot;koi8-r&quotx'"),
    ("cr_content_quot_nosemi_then_eq", b"'text/html; charset=&quot;koi8-r&quot='"),
    ("cr_content_quot_nosemi_then_space", b"'text/html; charset=&quot;koi8-r&quot x'"),
    ("cr_content_quot_upper_legacy", b"'text/html; charset=&QUOT;koi8-r&QUOT'"),
    ("cr_content_quot_wrong_case", b"'text/html; charset=&Quot;koi8-r&Quot;'"),
    ("cr_content_apos", b'"text/html; charset=&apos;koi8-r&apos;"'),
    ("cr_content_apos_dec", b'"text/html; charset=&#39;koi8-r&#39;"'),
    ("cr_content_semicolon_ref", b'"text/html; charset=koi8-r&#59;x"'),
    ("cr_content_space_ref", b'"text/html; charset=koi8-r&#32;x"'),
    ("cr_content_spelled_charset", b'"text/html; &#99;harset=koi8-r"'),
    ("cr_content_spelled_charset_upper", b'"text/html; &#x43;HARSET=koi8-r"'),
    ("cr_content_equals_named", b'"text/html; charset&equals;koi8-r"'),
    ("cr_content_first_charset_spelled", b'"&#99;harset=koi8-r; charset=iso-8859-15"'),
]:
    case(_name, page(CT + _value + b">"), "content value " + _value.decode())

case("cr_content_no_pragma", page(b'<meta content="text/html; charset=iso&#45;8859&#45;15">'),
     "content with references, no http-equiv")
case("cr_httpequiv_dec", page(b'<meta http-equiv="Content&#45;Type" content="text/html; charset=koi8-r">'),
     "reference in the http-equiv value")
case("cr_httpequiv_unquoted", page(b'<meta http-equiv=content&#x2d;type content="text/html; charset=koi8-r">'),
     "reference in an unquoted http-equiv value")
case("cr_httpequiv_named_dash", page(b'<meta http-equiv="content&dash;type" content="text/html; charset=koi8-r">'),
     "&dash; is U+2010, not '-'")
case("cr_other_tag_apos", page(b"<a title='&#39;><meta charset=koi8-r>'>" + ISO),
     "a reference never ends a quoted value")
case("cr_title_text", page(b"<title>&#60;meta charset=koi8-r&#62;</title>" + ISO), "references in text are text")

# --- references across the 1024-byte window, and in late metas
_META = b'<meta charset="iso&#45;8859&#45;15">'
_PRAGMA = b'<meta http-equiv="Content-Type" content="text/html; charset=iso&#x2D;8859&#x2D;15">'
_body = PRE + pad_comment(1022 - _META.find(b"&#45;") - len(PRE)) + _META + TAIL
assert _body.find(b"&#45;") == 1022
case("cr_window_straddle_head", _body, "meta at 1004, its first reference at bytes 1022-1026")
_body = PRE_BODY + b"x" * (1022 - _META.find(b"&#45;") - len(PRE_BODY)) + _META + b"<p>after</p></body></html>\n"
assert _body.find(b"&#45;") == 1022
case("cr_window_straddle_body", _body, "after <body>: meta at 1004, its first reference at bytes 1022-1026")
_body = PRE + pad_comment(1021 - _PRAGMA.find(b"&#x2D;") - len(PRE)) + _PRAGMA + TAIL
assert _body.find(b"&#x2D;") == 1021
case("cr_window_straddle_pragma", _body, "pragma: its first reference at bytes 1021-1026")
case("cr_late_head", PRE + b"<title>t</title>" + pad_comment(2000) + _META + TAIL,
     "meta with references at byte 2043, in the head")
case("cr_late_head_pragma", PRE + b"<title>t</title>" + pad_comment(2000) + _PRAGMA + TAIL,
     "pragma with references at byte 2043, in the head")
case("cr_late_body", PRE_BODY + b"<p>" + b"x" * 2000 + b"</p>" + _META + b"</body></html>\n",
     "meta with references past 1024 after <body>: not taken")

# --- the end of a comment
hidden_or_not("cm_bang_gt", b"<!-- a --!>", "--!> ends a comment")
hidden_or_not("cm_bang_gt_newline", b"<!-- a\n--!>", "--!> after a newline")
hidden_or_not("cm_bang_x", b"<!-- a --!x>", "--!x> does not")
hidden_or_not("cm_bang_bang_gt", b"<!-- a --!!>", "--!!> does not")
hidden_or_not("cm_bang_dash_gt", b"<!-- a --!->", "--!-> does not")
hidden_or_not("cm_bang_dash_dash_gt", b"<!-- a --!-->", "--!--> ends at its -->")
hidden_or_not("cm_dash_dash_space_gt", b"<!-- a -- >", "-- > does not")
hidden_or_not("cm_dash_bang_gt", b"<!-- a -!>", "-!> does not")
hidden_or_not("cm_triple_dash_bang_gt", b"<!-- a ---!>", "---!> ends")
hidden_or_not("cm_abrupt_empty", b"<!-->", "<!--> ends")
hidden_or_not("cm_abrupt_dash", b"<!--->", "<!---> ends")
hidden_or_not("cm_open_bang_gt", b"<!--!>", "<!--!> does not end")
hidden_or_not("cm_open_dash_bang_gt", b"<!---!>", "<!---!> does not end")
hidden_or_not("cm_open_dashdash_bang_gt", b"<!----!>", "<!----!> ends")
hidden_or_not("cm_nested_open_bang_gt", b"<!-- x <!--!>", "<!--!> inside a comment ends it")
hidden_or_not("cm_bogus_bang_gt", b"<!x --!>", "a bogus comment ends at the first >")
case("cm_late_bang_gt", PRE + b"<title>t</title><!--" + b"x" * 2000 + b"--!><meta charset=koi8-r>" + TAIL,
     "a 2 KB comment in the head closed by --!>, then a meta")
case("cm_late_dash_space_gt",
     PRE + b"<title>t</title><!--" + b"x" * 2000 + b"-- ><meta charset=koi8-r><!-- b -->" + ISO + TAIL,
     "a 2 KB comment in the head with -- >, then two metas")
_head = PRE + b"<title>t</title><!--"
_body = _head + b"x" * (1022 - len(_head)) + b"--!><meta charset=koi8-r>" + TAIL
assert _body.find(b"--!>") == 1022
case("cm_straddle_bang_gt", _body, "--!> at bytes 1022-1025, then a meta")
_head = PRE_BODY + b"<!--"
_body = _head + b"x" * (1010 - len(_head)) + b"--!><meta charset=koi8-r><p>x</p></body></html>\n"
assert _body.find(b"<meta") == 1014
case("cm_body_bang_gt_before_1024", _body, "after <body>: --!>, then a meta at 1014 (before 1024)")
case("cm_late_bang_gt_then_body", PRE + b"<!--" + b"x" * 1500 + b"--!><p>x</p><meta charset=koi8-r>" + TAIL,
     "--!> past 1024, then body content, then a meta: not taken")

# --- measured while here: other places where the meta scan may differ from Chromium
case("ot_script_escape", page(b"<script><!--<script></script><meta charset=koi8-r>--></script>" + ISO),
     "script data (double) escaped states")
case("ot_script_escape_simple", page(b"<script><!--</script><meta charset=koi8-r>-->" + ISO),
     "<!-- in a script, then </script>")
case("ot_empty_charset_then_pragma",
     page(b'<meta charset="" content="text/html; charset=koi8-r" http-equiv="content-type">'),
     "an empty charset attribute, then a pragma")
case("ot_pragma_then_bogus_charset",
     page(b'<meta http-equiv="content-type" content="text/html; charset=koi8-r" charset="bogus">'),
     "a pragma, then an unknown charset attribute")
case("ot_bogus_content_then_charset", page(b'<meta content="text/html; charset=bogus" charset="koi8-r">'),
     "an unknown label in content, then charset")
case("ot_charset_then_content_pragma",
     page(b'<meta charset="koi8-r" http-equiv=content-type content="charset=iso-8859-15">'),
     "charset, then a pragma")
case("ot_duplicate_charset", page(b"<meta charset=bogus charset=koi8-r>"), "a duplicate charset attribute")
case("ot_charset_then_bogus_charset", page(b'<meta charset="koi8-r" charset="bogus">'),
     "a duplicate charset attribute, the known label first")
case("ot_duplicate_content",
     page(b'<meta http-equiv=content-type content="charset=koi8-r" content="charset=iso-8859-15">'),
     "a duplicate content attribute")
case("ot_duplicate_http_equiv",
     page(b'<meta http-equiv=refresh http-equiv=content-type content="charset=koi8-r">'),
     "a duplicate http-equiv, content-type the second")
case("ot_extract_quote_ends_unquoted", page(CT + b"\"text/html; charset=koi8-r'x\">"),
     "an unquoted content label followed by a quote")
case("ot_extract_vt_before_label", page(CT + b'"text/html; charset=\x0bkoi8-r">'), "VT before the content label")
case("ot_extract_vt_before_eq", page(CT + b'"text/html; charset\x0b=koi8-r">'), "VT before the = in content")
case("ot_extract_nbsp_raw", page(CT + b'"text/html; charset=koi8-r\xa0">'), "a raw A0 byte after the content label")

assert len({c[0] for c in CASES}) == len(CASES)


def write(directory: Path) -> None:
    """The case directory the oracle reads: NAME.body, NAME.headers (and no NAME.url: the oracle
    serves NAME from ``http://oracle.test/NAME``)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, body, _ in CASES:
        (directory / f"{name}.body").write_bytes(body)
        (directory / f"{name}.headers").write_bytes(b"Content-Type: %s\r\n" % CONTENT_TYPE.encode())


def merge(oracle_jsonl: Path, version: str) -> None:
    """Write :data:`DATA` from the cases and the oracle's JSON Lines output."""
    measured = {}
    for line in oracle_jsonl.read_text().splitlines():
        row = json.loads(line)
        if row.get("characterSet") is None:
            raise SystemExit(f"{row['id']}: no characterSet ({row.get('error')}); run the oracle again")
        measured[row["id"]] = row["characterSet"]
    missing = [name for name, _, _ in CASES if name not in measured]
    if missing:
        raise SystemExit(f"not measured: {', '.join(missing)}")
    DATA.parent.mkdir(parents=True, exist_ok=True)
    with DATA.open("w", encoding="ascii") as f:
        for name, body, note in CASES:
            row = {"name": name, "note": note, "body": body.decode("latin-1"), "chromium": version,
                   "characterSet": measured[name]}
            f.write(json.dumps(row, ensure_ascii=True) + "\n")
    print(f"{DATA}: {len(CASES)} cases", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write the case directory for the browser oracle")
    w.add_argument("directory", type=Path)
    m = sub.add_parser("merge", help="write the data file from the oracle's output")
    m.add_argument("oracle_jsonl", type=Path)
    m.add_argument("--chromium", required=True, help="Chromium version the oracle reported")
    args = parser.parse_args(argv)
    if args.command == "write":
        write(args.directory)
    else:
        merge(args.oracle_jsonl, args.chromium)


if __name__ == "__main__":
    main()
