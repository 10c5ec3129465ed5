"""The compiled core (redecode._core) against the pure-Python reference it stands in for.

Every function of the compiled core has a pure-Python twin in the module that owns it
(redecode.decode's ``_PURE_DECODERS``, redecode.sniff's ``_utf8_valid_pure``); the twins must give
identical results. Checked exhaustively where the domain is finite (every 1- and 2-byte sequence
of each legacy encoding, alone and in context; EUC-JP's 3-byte sequences; every gb18030 4-byte BMP
pointer and the range boundaries; every single-byte table), and with property tests on arbitrary
bytes elsewhere. Both are also checked against the Encoding Standard itself: tests/test_decode.py
runs on whichever implementation is in use, and ``test_pure_path_suite`` runs the decoder and
decision suites again with ``REDECODE_PURE=1``.

"Identical" covers the text, the error count (how many U+FFFD; which byte is read again shows in the
text that follows), and for :func:`redecode.decode.decode_to_utf8` the UTF-8 bytes and the length.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import redecode.decode as d
import test_decode
from redecode import native, sniff
from redecode.labels import ENCODING_NAMES

ROOT = Path(__file__).resolve().parents[1]

if native.core is None:
    pytest.skip(
        f"the compiled core is not in use ({native.NOTICE or 'REDECODE_PURE is set'}): nothing to compare",
        allow_module_level=True,
    )

#: Each multi-byte encoding's lead bytes (test_decode's table), and ISO-2022-JP's double-byte
#: range, for the exhaustive comparisons of every two-byte sequence.
MULTI = {**test_decode.MULTI, "ISO-2022-JP": list(range(0x21, 0x7F))}
SINGLE = [n for n in ENCODING_NAMES if d._PURE_DECODERS[n] is d._decode_single_byte_pure]


def pure(data: bytes, name: str) -> tuple[str, int]:
    return d._PURE_DECODERS[name](data, name)


def compiled(data: bytes, name: str) -> tuple[str, int]:
    return d._CORE_DECODERS[name](data, name)


def differences(cases: list[bytes], name: str) -> list[str]:
    """The cases (hex) where the compiled decoder, or its UTF-8 output, differs from the pure one."""
    bad = []
    for data in cases:
        text, errors = pure(data, name)
        got = compiled(data, name)
        if got != (text, errors):
            bad.append(f"{name} {_short(data)}: pure {_short((text, errors))}, compiled {_short(got)}")
            continue
        u = native.core.decode_to_utf8(data, name)
        if u is None and name in ("UTF-16BE", "UTF-16LE", "replacement"):
            continue  # (not handled there: decode_to_utf8's callers use decode)
        if u != (text.encode("utf-8"), len(text), errors):
            bad.append(f"{name} {_short(data)}: to UTF-8 {_short(u)}, pure {_short((text, errors))}")
    return bad


def _short(x: object) -> str:
    s = x.hex(" ") if isinstance(x, bytes) else repr(x)
    return s if len(s) < 300 else f"{s[:150]}...{s[-150:]}"


def check(cases: list[bytes], name: str) -> None:
    bad = differences(cases, name)
    assert not bad, f"{len(bad)} differences, first: {bad[:5]}"


def test_implementation_is_reported():
    assert native.IMPLEMENTATION == "compiled" and native.NOTICE is None
    assert d._CORE_DECODERS and set(d._CORE_DECODERS) == set(ENCODING_NAMES)


# ------------------------------------------------------------------------------------------------
# Exhaustive: the finite domains


@pytest.mark.parametrize("name", list(MULTI))
def test_every_byte_and_pair(name):
    check([bytes([a]) for a in range(256)], name)
    check([bytes([a, b]) for a in range(256) for b in range(256)], name)


@pytest.mark.parametrize("name", list(MULTI))
def test_pairs_in_context(name):
    # Every pair after ASCII and before "A", before a lead byte (errors read bytes again across
    # pairs), and all pairs back to back in long inputs (the ASCII runs and the state across tokens).
    pairs = [bytes([lead, b]) for lead in MULTI[name] for b in range(256)]
    lead = bytes([MULTI[name][-1]])
    check([b"<p>" + p + b"A" for p in pairs], name)
    check([p + lead for p in pairs[::5]], name)
    check([b"".join(pairs[i : i + 2000]) for i in range(0, len(pairs), 2000)], name)
    check([b"".join(p + b"0123456789" for p in pairs[i : i + 1000]) for i in range(0, len(pairs), 1000)], name)


def test_euc_jp_three_byte_sequences():
    check([bytes([0x8F, x, y]) for x in range(256) for y in range(256)], "EUC-JP")
    check([bytes([0x8F, x, y, z]) for x in (0xA1, 0xB0, 0xFE) for y in range(256) for z in (0x41, 0x8F, 0xA1)],
          "EUC-JP")


def _gb4(pointer: int) -> bytes:
    b1, rest = divmod(pointer, 12600)
    b2, rest = divmod(rest, 1260)
    b3, b4 = divmod(rest, 10)
    return bytes([b1 + 0x81, b2 + 0x30, b3 + 0x81, b4 + 0x30])


@pytest.mark.parametrize("name", ["gb18030", "GBK"])
def test_gb18030_four_byte_ranges(name):
    # Every BMP pointer, alone (in blocks, joined) and every one of them at the boundaries of the
    # ranges table and of the null gaps, plus a sample of the supplementary planes.
    check([b"".join(_gb4(p) for p in range(i, min(i + 4000, 39420))) for i in range(0, 39420, 4000)], name)
    points = {0, 7457, 39419, 39420, 39421, 188999, 189000, 189001, 1237575, 1237576, 1237577, 1587599}
    for p, _cp in d._tables.INDEX_GB18030_RANGES:
        points.update({p - 1, p, p + 1})
    points.update(range(189000, 1237576, 997))
    units = [_gb4(p) for p in sorted(points) if 0 <= p < 126 * 12600]
    check(units, name)
    check([b"".join(units)], name)
    # cut and broken four-byte sequences: every third and fourth byte after a valid start
    check([_gb4(7457)[:2] + bytes([b]) for b in range(256)], name)
    check([_gb4(7457)[:3] + bytes([b]) for b in range(256)], name)
    check([_gb4(7457)[:3] + bytes([b]) + b"x" for b in range(256)], name)


def test_iso2022jp_escape_sequences():
    esc = [b"\x1b(B", b"\x1b(J", b"\x1b(I", b"\x1b$@", b"\x1b$B", b"\x1b(", b"\x1b$", b"\x1b", b"\x1b(X", b"\x1b$A"]
    body = [b"", b"!", b"0!", b"\\~", b"\x0e", b"\x80", b"\n", b"!!!", b"!\x1b", b"a"]
    check([e1 + b1 + e2 + b2 for e1 in esc for b1 in body for e2 in esc for b2 in body], "ISO-2022-JP")
    for e in esc:
        check([e + bytes([a, b]) for a in range(256) for b in range(0, 256, 3)], "ISO-2022-JP")


@pytest.mark.parametrize("name", SINGLE)
def test_single_byte_every_byte(name):
    check([bytes([b]) for b in range(256)], name)
    check([bytes(range(256)), bytes(range(255, -1, -1)), b"abc" + bytes(range(128, 256)) * 3 + b"xyz"], name)
    check([b"0123456789abcdef" * 3 + bytes([b]) + b"0123456789" for b in range(128, 256)], name)


def test_single_byte_runs_of_every_length_at_every_offset():
    # decode_to_utf8's four-bytes-a-step loop and its tail: runs of 0 to 40 non-ASCII bytes after 0
    # to 19 ASCII ones (every position in a 16-byte block), in tables with and without holes
    for name in ("windows-1251", "windows-1252", "KOI8-R", "ISO-8859-7", "windows-874"):
        check([b"x" * a + bytes(0x80 + (7 * j + a) % 128 for j in range(k)) + b"yz"[: k % 3]
               for a in range(20) for k in range(41)], name)


@pytest.mark.parametrize("name", ["GBK", "EUC-KR", "Big5", "Shift_JIS", "EUC-JP"])
def test_pair_runs_of_every_length_and_end(name):
    # the two-byte fast path to UTF-8, two pairs a step: runs of 0 to 9 made pairs ended by ASCII, a
    # lone lead, a pair that is not made (an error) or the end of input, at odd and even offsets
    leads = MULTI[name]
    made = [bytes([lead, t]) for lead in leads[:: max(1, len(leads) // 7)] for t in range(0x40, 0xFF, 29)]
    ends = [b"", b"A", bytes([leads[-1]]), bytes([leads[0], 0x7F]), bytes([leads[0], 0x20]), bytes([leads[0], 0xFF])]
    cases = []
    for k in range(10):
        for e in ends:
            for pre in (b"", b"a", b"ab"):
                for r in range(3):
                    cases.append(pre + b"".join(made[(r * 5 + j * 3) % len(made)] for j in range(k)) + e)
    check(cases, name)


@pytest.mark.slow
def test_utf8_sequences():
    edge = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0,
            0xF4, 0xF5, 0xFF]  # fmt: skip
    check([bytes([a]) for a in range(256)], "UTF-8")
    check([bytes([a, b]) for a in range(256) for b in range(256)], "UTF-8")
    check([bytes([a, b, c]) for a in range(0xC0, 0x100) for b in edge for c in edge], "UTF-8")
    check([bytes([a, b, c, e]) for a in range(0xE0, 0xF8) for b in edge for c in edge for e in edge], "UTF-8")
    check([b"x" * 13 + bytes([a, b]) + b"y" * 9 for a in range(0x80, 0x100) for b in edge], "UTF-8")


def test_utf8_sequences_in_long_inputs():
    # The wide validity check (32 bytes a step, for inputs of 64 bytes or more): every 1- and 2-byte
    # sequence, and the 3- and 4-byte ones of edge bytes, at each position around a 32-byte step
    # (a sequence across two steps reads the step before) and at the very end.
    edge = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0,
            0xF4, 0xF5, 0xFF]  # fmt: skip
    seqs = [bytes([a, b]) for a in range(0x80, 0x100) for b in range(256)]
    seqs += [bytes([a, b, c]) for a in range(0xC0, 0x100) for b in edge for c in edge]
    seqs += [bytes([a, b, c, e]) for a in range(0xE0, 0xF8) for b in edge for c in edge for e in edge]
    for at in (0, 29, 30, 31, 32, 63):
        check([b"x" * at + q + b"y" * (96 - at) for q in seqs[at % 7::7]], "UTF-8")
    check([b"z" * 90 + q for q in seqs[::5]], "UTF-8")  # cut at the end of the input
    text = "Ωμέγα 日本語 😀 ".encode()
    check([text * 20, text * 20 + b"\xe6", b"\xf0" + text * 20, text * 9 + b"\xed\xa0\x80" + text * 9], "UTF-8")


# ------------------------------------------------------------------------------------------------
# Property tests: arbitrary bytes

INTERESTING = sorted({0x00, 0x0A, 0x0E, 0x0F, 0x1B, 0x21, 0x24, 0x28, 0x30, 0x39, 0x3C, 0x40, 0x41, 0x42, 0x49,
                      0x4A, 0x5C, 0x5F, 0x7E, 0x7F, 0x80, 0x81, 0x84, 0x8E, 0x8F, 0x9F, 0xA0, 0xA1, 0xBF, 0xC2,
                      0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xFC, 0xFD, 0xFE, 0xFF})  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(ENCODING_NAMES), st.lists(st.sampled_from(INTERESTING), max_size=40))
def test_interesting_bytes(name, bs):
    check([bytes(bs)], name)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ENCODING_NAMES), st.binary(max_size=64))
def test_arbitrary_bytes(name, data):
    check([data], name)


@pytest.mark.slow
def test_long_random_inputs():
    # Long inputs (ASCII runs of every length between non-ASCII bytes) in every encoding.
    rng = random.Random(20)
    for name in ENCODING_NAMES:
        cases = []
        for _ in range(2):
            parts = []
            while sum(map(len, parts)) < 8000:
                parts.append(b"a" * rng.randrange(0, 20))
                parts.append(bytes(rng.choice(INTERESTING) if rng.random() < 0.6 else rng.randrange(256)
                                   for _ in range(rng.randrange(1, 6))))
            cases.append(b"".join(parts))
        check(cases, name)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40) | st.lists(st.sampled_from(INTERESTING), max_size=40).map(bytes), st.booleans())
def test_decode_to_utf8_with_bom_sniff(data, bom):
    payload = (b"\xef\xbb\xbf" if bom else b"") + data
    for name in ("UTF-8", "windows-1252", "Shift_JIS", "gb18030", "UTF-16LE", "replacement"):
        ref = d.decode(payload, name)
        got = d.decode_to_utf8(payload, name)
        if got is None:
            assert ref.encoding in ("UTF-16BE", "UTF-16LE", "replacement")
            continue
        assert (got.utf8, got.length, got.encoding, got.errors, got.bom_removed) == (
            ref.text.encode("utf-8"), len(ref.text), ref.encoding, ref.errors, ref.bom_removed)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "é", "€", "日", "😀", "\n"]), min_size=20, max_size=120).map(
    lambda cs: "".join(cs).encode()), st.integers(0, 400), st.sampled_from(INTERESTING))
def test_utf8_validity_of_long_text_with_one_byte_changed(data, at, byte):
    # valid UTF-8 of 20 to 480 bytes, and the same with one byte replaced: both widths of the check
    changed = bytearray(data)
    changed[at % len(changed)] = byte
    check([data, bytes(changed)], "UTF-8")


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=40) | st.lists(st.sampled_from(INTERESTING), max_size=40).map(bytes))
def test_utf8_validity(data):
    assert sniff._utf8_valid(data) == sniff._utf8_valid_pure(data)
    assert native.core.utf8_errors(data) == d._decode_utf8_pure(data, "UTF-8")[1]
    assert native.core.utf8_errors(data, True) == min(1, native.core.utf8_errors(data))


def _length_errors_pure(data: bytes) -> tuple[int, int]:
    text, errors = d._decode_utf8_pure(data, "UTF-8")
    return len(text), errors


def test_utf8_length_errors_every_short_sequence():
    # validate._utf8_counts: the compiled count of the UTF-8 decoder's characters and U+FFFD is
    # the pure decode's, for every 1- and 2-byte input, the 3- and 4-byte ones of edge bytes (also
    # after ASCII, before it, and in inputs long enough for the wide validity check first)
    edge = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0,
            0xF4, 0xF5, 0xFF]  # fmt: skip
    seqs = [bytes([a]) for a in range(256)] + [bytes([a, b]) for a in range(256) for b in range(256)]
    seqs += [bytes([a, b, c]) for a in range(0xC0, 0x100) for b in edge for c in edge]
    seqs += [bytes([a, b, c, e]) for a in range(0xE0, 0xF8) for b in edge for c in edge for e in edge]
    for q in seqs:
        for data in (q, b"ab" + q, q + b"z", b"x" * 70 + q + b"y" * 3):
            assert native.core.utf8_length_errors(data) == _length_errors_pure(data), data


@settings(max_examples=1000, deadline=None)
@given(st.binary(max_size=200) | st.lists(st.sampled_from(INTERESTING), max_size=80).map(bytes)
       | st.lists(st.sampled_from([b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xed\xa0\x80",
                                   b"\xe9", b"\x80", b"\xff", b" "]), max_size=80).map(b"".join))
def test_utf8_length_errors_is_the_pure_decode(data):
    assert native.core.utf8_length_errors(data) == _length_errors_pure(data)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from([b"a" * k for k in (1, 2, 3, 29, 31, 32, 33, 61, 95, 127, 128, 129, 200, 300)]
                                + [b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xc3", b"\xe2\x82",
                                   b"\xf0\x9f\x98", b"\x80", b"\xed\xa0\x80", b"\xff", b"\xe0\x80"]),
                max_size=30).map(b"".join))
def test_utf8_validity_across_ascii_runs(data):
    # the wide check's four-block ASCII step: sequences cut or wrong just before, inside and after
    # runs of ASCII of every length around 32 and 128 bytes, at every offset of the 32-byte steps
    want = _length_errors_pure(data)
    assert native.core.utf8_length_errors(data) == want, data
    assert sniff._utf8_valid(data) == (want[1] == 0)
    utf8, length, errors = native.core.decode_to_utf8(data, "UTF-8")
    assert (length, errors) == want and utf8 == d._decode_utf8_pure(data, "UTF-8")[0].encode("utf-8")


def test_utf8_validity_large():
    big = "日本語 text, ".encode() * 400_000
    for data in (big, big + b"\xc3", big[:-1] + b"\xff", b"a" * (3 << 20) + b"\xed\xa0\x80", b"a" * (1 << 20)):
        assert sniff._utf8_valid(data) == sniff._utf8_valid_pure(data)


# ------------------------------------------------------------------------------------------------
# The pure-Python path, as a machine without the compiled core runs it


@pytest.mark.slow
def test_pure_path_suite():
    """``REDECODE_PURE=1``: the decoder and decision suites pass on the pure-Python code (which
    is then what decode() runs), as on a machine where the core could not be built."""
    env = dict(os.environ, REDECODE_PURE="1", PYTHONDONTWRITEBYTECODE="1")
    probe = subprocess.run(
        [sys.executable, "-c", "from redecode import native; print(native.IMPLEMENTATION, native.NOTICE)"],
        env=env, capture_output=True, text=True, check=True,
    )
    assert probe.stdout.split() == ["pure", "None"]
    modules = ["test_decode.py", "test_decode_fastpath.py", "test_decode_vectors.py", "test_sniff.py",
               "test_sniff_fast.py", "test_properties.py", "test_sample_answer_key.py", "test_stretches.py"]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-x",
         *(str(ROOT / "tests" / m) for m in modules)],
        env=env, capture_output=True, text=True, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


# ------------------------------------------------------------------------------------------------
# WARC header fields (redecode.warc._fast_fields' fast branch)

from redecode import warc as archive  # noqa: E402

_FIELD_LINES = [
    b"WARC-Type: response", b"warc-type: request", b"WARC-TYPE :resource", b"WARC-Record-ID: <urn:uuid:1>",
    b"WARC-Record-ID:   <urn:uuid:2>  \t", b"WARC-Date:2026-01-01T00:00:00Z", b"Content-Length: 5",
    b"content-length:7", b"Content-Type: application/http; msgtype=response", b"X-Other: warc-type: x",
    b"WARC-Target-URI: http://example.com/a:b", b"WARC-Payload-Digest: sha1:AAAA", b"X-Empty:",
    b"WARC-Date: \x0b\x1c2026\x1f ", b"Content-Type:", b"WARC-Target-URI:<http://x/ y>",
]


def _head(lines: list[bytes]) -> bytes:
    return b"WARC/1.0\r\n" + b"".join(line + b"\r\n" for line in lines) + b"\r\n"


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_FIELD_LINES), max_size=10))
def test_warc_fields_is_the_fast_branch(lines):
    head = _head(lines)
    got = native.core.warc_fields(head, archive._WANTED, head.count(b"\n"))
    # the reference: _fast_fields with a field-by-field reader that must not be needed when the
    # compiled branch answers
    want = archive._fast_fields(head, lambda: pytest.fail("slow path")) if got is not None else None
    assert got == want
    if got is None:  # then the slow path is taken: some wanted name is not as "CRLF name:"
        low = head.lower().decode()
        assert any(n in low and f"\r\n{n}:" not in low for n in archive._WANTED)
    assert native.core.warc_fields(head, archive._WANTED, head.count(b"\n") + 1) is None
    assert native.core.warc_fields(head + b"\x80", archive._WANTED, head.count(b"\n")) is None


def test_the_notice_without_a_built_core_says_so(monkeypatch):
    # no extension module in the package (the install had no compiler): the notice says that,
    # not an import error from the middle of the package's own import
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.delenv("REDECODE_PURE", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "redecode._core" else real(name, *a))
    core, notice = native._load()
    assert core is None
    assert notice.startswith("the compiled decode core was not built (no redecode._core in the installed package)")


# ------------------------------------------------------------------------------------------------
# HTTP response heads (redecode.http.parse_response_head)

from redecode import http  # noqa: E402

_HEAD_PIECES = [
    b"HTTP/1.1 200 OK", b"HTTP/1.0 302", b"HTTP/1.1  404  Not Found ", b"HTTP/2 2x0 odd", b" HTTP/1.1\t301\t",
    b"HTTP/1.1 20", b"HTTP/1.1 \xb2\xb3\xb9 latin digits", b"\r\n", b"\n", b"\r", b"\r\r\n", b" ", b"\t", b":",
    b"Content-Type: text/html; charset=utf-8", b"content-type:text/plain", b"X-Empty:", b" folded",
    b"\tmore", b"Name : value ", b"no colon here", b"\x00\x80\xff\xe9", b"Set-Cookie: a=b; c=d",
    b"\n\n", b"\n\r\n", b"body",
]


def _both(block: bytes) -> None:
    got = http.parse_response_head(block)
    want = http._parse_response_head_pure(block)
    assert got == want, (block, got, want)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_HEAD_PIECES), max_size=24))
def test_http_head_is_the_pure_parse(pieces):
    block = b"".join(pieces)
    _both(block)
    _both(b"HTTP/" + block)
    _both(b"HTTP/1.1 200 OK\r\n" + block)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=80))
def test_http_head_on_arbitrary_bytes(data):
    _both(data)
    _both(b"HTTP/" + data)


# ------------------------------------------------------------------------------------------------
# The author's-text byte profile (redecode.validate): compiled measures against the pure ones

import contextlib  # noqa: E402

from redecode import validate  # noqa: E402


@contextlib.contextmanager
def _pure_validate():
    saved = validate._core
    validate._core = None
    try:
        yield
    finally:
        validate._core = saved


def _profile_measures(data: bytes, start: int, window: int, min_bytes: int, tries: int) -> tuple:
    p = dataclasses.replace(validate.BASELINE, signal_tries=tries, signal_window=max(window, 4))
    return (
        validate.binary_bytes(data),
        validate.runs_share(data, start, window=window, min_bytes=min_bytes),
        validate.symbols_in_words(data, start, window=window, min_bytes=min_bytes),
        validate.script_letters(data, "windows-1251", start, window=window, min_bytes=min_bytes),
        validate.script_letters(data, "windows-1253", start, window=window, min_bytes=min_bytes),
        validate._utf8_signal(data, p),
        validate.ByteProfile(data, "html").first_high,
        validate.ByteProfile(data, "html").high_bytes,
        validate._utf8_counts(data),
        validate._ed_bytes(data),
        validate._mostly_valid_of(data, *validate._utf8_counts(data)),
    )


import dataclasses  # noqa: E402

_PROFILE_PIECES = [b"a", b" ", b"<p>", b"\x00", b"\x07", b"\x1b", b"\x0b", b"\xc3\xa9", b"\xe6\x97\xa5",
                   b"\xf0\x9f\x98\x80", b"\xe9", b"\xa3", b"\xd7", b"\xb9", b"\xff", b"\x80", b"\xc3",
                   b"\xe6\x97", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xcf\xf0\xe8",
                   b"\xc1\xd2\xc9", b"\xa4\xa4\xa4\xe5"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_PROFILE_PIECES), max_size=60).map(b"".join) | st.binary(max_size=120),
       st.integers(0, 40), st.integers(0, 200), st.integers(1, 12), st.integers(1, 5))
def test_byte_profile_measures_are_the_pure_ones(data, start, window, min_bytes, tries):
    got = _profile_measures(data, start, window, min_bytes, tries)
    with _pure_validate():
        want = _profile_measures(data, start, window, min_bytes, tries)
    assert got == want, data


def test_byte_profile_measures_on_the_sample_payloads():
    from redecode.archive import iter_records

    for path in sorted((ROOT / "sample_warcs").glob("*.warc.gz")):
        for record in iter_records(str(path)):
            if not record.payload:
                continue
            data = record.payload
            for start in (0, validate.ByteProfile(data, "html").first_high):
                got = _profile_measures(data, start, validate.RUNS_WINDOW, validate.RUNS_MIN_BYTES, 3)
                with _pure_validate():
                    want = _profile_measures(data, start, validate.RUNS_WINDOW, validate.RUNS_MIN_BYTES, 3)
                assert got == want, (path.name, record.offset)


# The excerpt language evidence reads (validate.ByteProfile.excerpt): compiled spans against the
# pure ones (regular expressions)

_EXCERPT_PIECES = [b"a", b"bc", b" ", b"\n", b"\t\x0b\x0c\r", b"<", b">", b"<p>", b"</a>",
                   b"<a href='x'>", b"<" + b"t" * 255 + b">", b"<" + b"t" * 256 + b">",
                   b"<" + b"t" * 257 + b">", b"<" + b"<" * 3 + b">", b"w" * 200, b"\xe9", b"\xb9",
                   b"\xc1\xd2", b"\xa4\xa4\xa4\xe5", b"\x80", b"\xff", b"\xe6\x97\xa5" * 40]
_EXCERPT_SETS = [("windows-1252", "ISO-8859-2", "windows-1250", "windows-1254"),
                 ("windows-1251", "KOI8-R", "IBM866"), ("ISO-8859-7", "windows-1253"),
                 ("GBK", "Big5"), ("Shift_JIS", "EUC-JP"), ("windows-1252", "ISO-8859-15")]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_EXCERPT_PIECES), max_size=80).map(b"".join) | st.binary(max_size=300),
       st.sampled_from(_EXCERPT_SETS), st.integers(0, 300), st.integers(0, 3000), st.integers(1, 30))
def test_excerpt_spans_are_the_pure_ones(data, encodings, pos, cap, words):
    key = frozenset(encodings)
    runs = validate.differing_bytes(key)
    if runs is None:
        return
    got = native.core.excerpt_spans(data, validate._differing_table(key), pos, validate.EXCERPT_REACH,
                                    cap, words, validate.EXCERPT_CONTEXT_WORDS)
    assert got == validate._excerpt_spans(runs, data, pos, cap, words), data


def test_excerpt_spans_every_byte_between_the_words():
    # the scans' classes of a byte (whitespace, a tag's bracket, a word's byte: a table in the
    # compiled core) for every byte value, between words before and after a differing byte and
    # inside a tag
    key = frozenset(("windows-1252", "ISO-8859-2"))
    runs, table = validate.differing_bytes(key), validate._differing_table(key)
    for b in range(256):
        c = bytes([b])
        for data in (b"aa" + c + b"bb" + c + b"\xb9c" + c + b"dd" + c + b"ee",
                     b"x<p" + c + b"q>y \xb9 z<" + c + b">w", c * 3 + b"\xb9" + c * 3):
            for words in (1, 3):
                got = native.core.excerpt_spans(data, table, 0, validate.EXCERPT_REACH, 300, words,
                                                validate.EXCERPT_CONTEXT_WORDS)
                assert got == validate._excerpt_spans(runs, data, 0, 300, words), (b, data)


def test_excerpts_on_the_sample_payloads():
    from redecode.archive import iter_records
    from redecode.rules import get_rules
    from redecode.siblings import siblings

    params = validate.AuthorParams.from_rules(get_rules("author-2026.12.2"))
    sets = [(e, *siblings(e)) for e in ("windows-1252", "windows-1251", "GBK", "Shift_JIS", "EUC-KR",
                                        "ISO-8859-7", "windows-1255", "windows-1256")]
    compared = 0
    for path in sorted((ROOT / "sample_warcs").glob("*.warc.gz")):
        for record in iter_records(str(path)):
            if not record.payload:
                continue
            data = bytes(record.payload)
            for every in sets:
                got = validate.ByteProfile(data, "html", params).excerpt(every)
                with _pure_validate():
                    want = validate.ByteProfile(data, "html", params).excerpt(every)
                assert got == want, (path.name, record.offset, every)
                compared += bool(got)
    assert compared


# ------------------------------------------------------------------------------------------------
# Whole-page counts of the author's checks (issue 27): the compiled counts against the pure ones


def test_c1_controls_every_byte_of_every_single_byte_encoding():
    """Exhaustive: each byte alone, and all 256 in a row, under every single-byte encoding's C1 table
    (those with more than eight holes take the compiled count, the others memchr passes)."""
    every = bytes(range(256))
    for name in validate._C1_BYTES:
        for data in [bytes([b]) for b in range(256)] + [every, every * 3 + b"tail", b""]:
            got = validate.c1_controls(name, data)
            with _pure_validate():
                want = validate.c1_controls(name, data)
            assert got == want == sum(b in validate._C1_BYTES[name] for b in data), (name, data[:8])


def test_count_bytes_in_wants_a_table_of_256():
    with pytest.raises(ValueError):
        native.core.count_bytes_in(b"abc", b"\x01" * 255)


_TAGGY = st.lists(st.sampled_from([b"<", b">", b"<p>", b"</b >", b"a", b"\n", b"\xe9", b" ", b"<<", b">>", b"<x"]),
                  max_size=40).map(b"".join)


@settings(max_examples=500, deadline=None)
@given(st.one_of(_TAGGY, st.binary(max_size=200)))
def test_untag_is_the_tag_expression(data):
    """The excerpt's tags replaced in one compiled pass, as validate._TAG.sub does it."""
    assert native.core.untag(data) == validate._TAG.sub(b" ", data)


def test_untag_every_arrangement_of_three_brackets():
    """Every string of up to 6 bytes over ``<``, ``>``, ``a``: the same as the expression."""
    import itertools

    for n in range(7):
        for t in itertools.product(b"<>a", repeat=n):
            data = bytes(t)
            assert native.core.untag(data) == validate._TAG.sub(b" ", data), data


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000))
def test_byte_counts_is_the_pure_one(data):
    assert native.core.byte_counts(data) == validate._byte_counts_pure(data)


_CHARS = ["a", "\x7f", "\x80", "\xe9", "\xff", "\u0100", "\u0416", "\ud800", "\udfff", "\uffff", "\U00010000",
          "\U0001f600", "\U0010ffff", " ", "<p>"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_CHARS), max_size=60).map("".join) | st.text(max_size=200))
def test_non_ascii_chars_is_the_pure_count(text):
    got = validate._non_ascii_chars(text)
    with _pure_validate():
        want = validate._non_ascii_chars(text)
    assert got == want == sum(ord(c) > 0x7F for c in text)


def test_non_ascii_chars_at_each_string_width():
    """One-, two- and four-byte strings (CPython's kinds), each code point at the boundaries alone
    and after ASCII."""
    for c in _CHARS:
        for text in (c, "abc" + c, c * 1000, "x" * 999 + c):
            with _pure_validate():
                want = validate._non_ascii_chars(text)
            assert validate._non_ascii_chars(text) == want


_C1_PUA_CHARS = _CHARS + ["\x9f", "\xa0", "\u0080", "\udfff", "\ue000", "\uf8ff", "\uf900", "\udbff",
                          "\U000f0000"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_C1_PUA_CHARS), max_size=60).map("".join) | st.text(max_size=200))
def test_c1_or_pua_is_the_patterns_count(text):
    want = len(validate._C1_OR_PUA.findall(text))
    assert native.core.c1_or_pua(text) == want == sum(0x80 <= ord(c) <= 0x9F or 0xE000 <= ord(c) <= 0xF8FF
                                                      for c in text)


def test_c1_or_pua_at_each_string_width():
    """One-, two- and four-byte strings (CPython's kinds), each code point at the range
    boundaries alone, repeated and after ASCII."""
    for c in _C1_PUA_CHARS:
        for text in (c, "abc" + c, c * 1000, "x" * 999 + c, c + "\U00010000"):
            assert native.core.c1_or_pua(text) == len(validate._C1_OR_PUA.findall(text)), ascii(text)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_PROFILE_PIECES + [b"A", b"Z", b"z", b"\xc0", b"\xe0", b"\xdf", b"\xa8", b"\xb8",
                                       b"\x84", b"\x93", b"\xab", b"\xbb", b"\xa5", b"\xb5"]),
                max_size=60).map(b"".join) | st.binary(max_size=120),
       st.sampled_from(sorted(validate.SINGLE_BYTE)), st.booleans())
def test_anomalies_are_the_pure_count(data, encoding, quotes):
    """With and without quotes_are_text's table (quotation marks as spaces)."""
    got = validate.anomalies(data, encoding, quotes=quotes)
    with _pure_validate():
        want = validate.anomalies(data, encoding, quotes=quotes)
    assert got == want, (encoding, quotes, data)


def test_anomalies_every_byte_pair_of_windows_1251():
    """Exhaustive over one table: every pair of bytes (a case flip needs two)."""
    data = b"".join(bytes([a, b, 0x20]) for a in range(256) for b in range(256))
    for quotes in (False, True):
        got = validate.anomalies(data, "windows-1251", quotes=quotes)
        with _pure_validate():
            want = validate.anomalies(data, "windows-1251", quotes=quotes)
        assert got == want, quotes
    with pytest.raises(ValueError):
        native.core.class_anomalies(b"x", b"s" * 10)


# --------------------------------------------------------------------------------------------------
# Row assembly (redecode.row): the compiled setters and the integer range check against their twins

from redecode import row as _row  # noqa: E402
from redecode.schema import INT_RANGES  # noqa: E402

_INT_VALUES = st.one_of(
    st.none(), st.just(0), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**64, -2**70]),
    st.integers(min_value=-2**70, max_value=2**70), st.integers(min_value=-10**6, max_value=10**6))


@settings(max_examples=1500, deadline=None)
@given(st.lists(_INT_VALUES, min_size=len(INT_RANGES), max_size=len(INT_RANGES)))
def test_ints_within_is_the_pure_check(values):
    row = list(_row._EMPTY)
    for (_, slot, _, _), value in zip(_row._INT_RANGE_SLOTS, values):
        row[slot] = value
    assert native.core.ints_within(row, _row._INT_BOUNDS) == _row._ints_within_pure(row, _row._INT_BOUNDS)
    # and the row _in_range gives is the one the exact check gives (each value against its type)
    exact = all(value is None or lo <= value <= hi
                for (_, slot, lo, hi), value in zip(_row._INT_RANGE_SLOTS, values))
    if native.core.ints_within(row, _row._INT_BOUNDS):
        assert exact


def test_ints_within_at_the_bounds_of_each_type():
    for name, slot, lo, hi in _row._INT_RANGE_SLOTS:
        for value in (lo - 1, lo, lo + 1, -1, 1, hi - 1, hi, hi + 1):
            row = list(_row._EMPTY)
            row[slot] = value
            got = native.core.ints_within(row, _row._INT_BOUNDS)
            assert got == _row._ints_within_pure(row, _row._INT_BOUNDS), (name, value)
            assert _row._in_range(list(row))[slot] == (value if lo <= value <= hi else None), (name, value)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=-3, max_value=12), st.integers()), max_size=14),
       st.integers(min_value=0, max_value=3))
def test_put_at_and_put_named_are_the_pure_ones(pairs, short):
    slots = tuple(s for s, _ in pairs)
    values = tuple(v for _, v in pairs)[: max(len(pairs) - short, 0)]
    results = []
    for put in (native.core.put_at, _row._put_at_pure):
        row = list(range(10))
        try:
            put(row, slots, values)
        except IndexError:
            results.append("IndexError")  # (a slot outside the row, or too few values)
        else:
            results.append(row)
    assert results[0] == results[1]
    index = {f"c{i}": i for i in range(10)}
    named = {f"c{s}": v for s, v in pairs if 0 <= s < 10}
    a, b = list(range(10)), list(range(10))
    native.core.put_named(a, index, named)
    _row._put_named_pure(b, index, named)
    assert a == b
    with pytest.raises(KeyError):
        native.core.put_named(a, index, {"nope": 1})


def _warc_fields_reference(head: bytes, names: tuple, lines: int):
    """warc_fields as documented, by string searches: None unless ASCII with *lines* line feeds and
    every wanted name either found as CRLF name: (the first; the value to the next CRLF, stripped)
    or absent from the block."""
    if not head.isascii() or head.count(b"\n") != lines:
        return None
    text = head.decode("ascii")
    low = text.lower()
    out = {}
    for name in names:
        i = low.find(f"\r\n{name}:")
        if i < 0:
            if name in low:
                return None
            continue
        i += len(name) + 3
        j = text.find("\r\n", i)
        out[name] = (text[i:j] if j >= 0 else text[i:-1]).strip()
    return out


_HEAD_PIECES = [b"\r\n", b"\n", b"\r", b":", b" ", b"\t", b"\x0b", b"x", b"WARC/1.0", b"X-A: b", b"a" * 700,
                *(n.encode() for n in archive._WANTED), *(n.upper().encode() for n in archive._WANTED),
                b"Content-Type :", b"\r\nWARC-Type:", b"\r\ncontent-length:", b"\x80"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_HEAD_PIECES), max_size=40).map(b"".join) | st.binary(max_size=80),
       st.integers(min_value=-1, max_value=1))
def test_warc_fields_on_arbitrary_blocks(head, off):
    lines = head.count(b"\n") + off
    assert native.core.warc_fields(head, archive._WANTED, lines) == _warc_fields_reference(head, archive._WANTED, lines)


def test_warc_fields_on_a_block_larger_than_its_stack_buffer():
    lines = [f"X-Filler-{i}: {'v' * 90}".encode() for i in range(40)] + [
        b"WARC-Type: response", b"Content-Length: 12", b"WARC-Target-URI:  http://e.x/  "]
    head = _head(lines)
    assert len(head) > 2048
    want = _warc_fields_reference(head, archive._WANTED, head.count(b"\n"))
    assert want == {"warc-type": "response", "content-length": "12", "warc-target-uri": "http://e.x/"}
    assert native.core.warc_fields(head, archive._WANTED, head.count(b"\n")) == want
    for names in (("warc-type",), ("content-length", "warc-type"), ()):  # (other name tuples, in turn)
        assert native.core.warc_fields(head, names, head.count(b"\n")) == _warc_fields_reference(
            head, names, head.count(b"\n"))
    assert native.core.warc_fields(head, archive._WANTED, head.count(b"\n")) == want


# ------------------------------------------------------------------------------------------------
# prescan.head_scan's shortcut: "charset" in the lower-cased payload, found without the copy


def test_find_lower_every_arrangement_around_the_needle():
    # every string of up to 7 bytes over the needle's letters in both cases, a neighbour of
    # each case (B, b, D, d: one bit away), "@" and "`" (0x40, 0x60: the case bit of a non-letter)
    # and a high byte, each at every offset of a longer payload (both sides of an 8-byte step)
    import itertools

    alphabet = b"cChHB`@\xe3"
    for n in range(1, 6):
        for combo in itertools.product(alphabet, repeat=n):
            q = bytes(combo)
            for data in (q, b"x" * 5 + q, b"y" * 9 + q + b"z" * 3):
                for needle in (b"c", b"ch", b"chc", b"c@h", b"h`"):
                    assert native.core.find_lower(data, needle) == data.lower().find(needle), (data, needle)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from([b"charset", b"CHARSET", b"ChArSeT", b"charse", b"c", b"C", b"x" * 7,
                                 b"\xc3\xa9", b"<meta ", b"harset", b"\xe3", b"cHarset=", b"HTTP-EQUIV",
                                 b"http-Equiv", b"http_equiv", b"http\x0dequiv"]), max_size=30).map(b"".join)
       | st.binary(max_size=100))
def test_find_lower_is_the_lower_cased_find(data):
    assert native.core.find_lower(data, b"charset") == data.lower().find(b"charset")
    assert native.core.find_lower(data, b"http-equiv") == data.lower().find(b"http-equiv")


def test_find_lower_every_arrangement_on_both_sides_of_a_32_byte_step():
    # (the AVX2 pass takes 32 offsets a step from payloads of at least 64 + len(needle) - 1
    # bytes: each arrangement at offsets around its steps, the needle's first and last byte
    # on either side of one, and the scalar tail after the last step)
    import itertools

    alphabet = b"cChHB`@\xe3"
    needles = (b"c", b"ch", b"chc", b"c@h", b"h`", b"charset", b"http-equiv")
    for n in range(1, 5):
        for combo in itertools.product(alphabet, repeat=n):
            q = bytes(combo)
            for at in (0, 1, 29, 31, 32, 33, 62, 63, 64, 90):
                data = b"y" * at + q + b"z" * (100 - at)
                for needle in needles:
                    assert native.core.find_lower(data, needle) == data.lower().find(needle), (data, needle)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from([b"charset", b"CHARSET", b"ChArSeT", b"charse", b"c", b"C", b"x" * 7, b"x" * 31,
                                 b"\xc3\xa9", b"<meta ", b"harset", b"\xe3", b"cHarset=", b"HTTP-EQUIV", b"t",
                                 b"http-Equiv", b"http_equiv", b"http\x0dequiv", b"ch" * 20, b"CT" * 16]),
                max_size=60).map(b"".join)
       | st.binary(min_size=60, max_size=300))
def test_find_lower_is_the_lower_cased_find_in_long_payloads(data):
    for needle in (b"charset", b"http-equiv", b"c", b"ct", b"c-t"):
        assert native.core.find_lower(data, needle) == data.lower().find(needle), (data, needle)


def test_find_lower_wants_a_lower_case_needle():
    for needle in (b"", b"Charset", b"chArset", b"-equiv", b"char\xe9", b"\xe9"):
        with pytest.raises(ValueError):
            native.core.find_lower(b"abc", needle)


_HEAD_SCAN_PIECES = [b"<meta charset=utf-8>", b"<meta http-equiv=content-type content='text/html; ch&#97;rset=koi8-r'>",
                     b"<META HTTP-EQUIV=Content-Type CONTENT=\"text/html; &#67;harset=gbk\">", b"&amp;", b"&#99;",
                     b"&#x63;", b"<p>", b"<body>", b"x" * 300, b"\xe9", b"<script>var c='charset'</script>",
                     b"<!-- &#99;harset -->", b"CHARSET", b"http-equiv", b" ", b"\n"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_HEAD_SCAN_PIECES), max_size=25).map(b"".join), st.booleans())
def test_head_scan_shortcut_is_the_lower_cased_one(data, chromium):
    got, want = _head_scan_compiled_and_pure(data, chromium)
    assert got == want, data


def _head_scan_compiled_and_pure(data: bytes, chromium: bool):
    """prescan.head_scan of *data* with the compiled core (its find_lower shortcut) and without."""
    from redecode import prescan

    got = prescan.head_scan(data, chromium=chromium)
    saved = native.core
    native.core = None
    try:
        return got, prescan.head_scan(data, chromium=chromium)
    finally:
        native.core = saved


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_HEAD_SCAN_PIECES + [b"<p>" * 22000, b"&amp;" * 1100]), max_size=12).map(b"".join),
       st.booleans())
def test_head_scan_shortcut_is_the_lower_cased_one_past_64_kib(data, chromium):
    # (the compiled core's shortcut reads payloads up to 1 MiB; without it, 64 KiB: past that the
    # scan runs, which is what the shortcut must agree with)
    got, want = _head_scan_compiled_and_pure(data, chromium)
    assert got == want, data[:200]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([b"&amp;", b"&#99;", b"&#x63;", b"&#67;", b"&#38;", b"&#", b"&", b"#", b"x" * 40,
                                 b"&amp;" * 1100, b"&#32;" * 300]), max_size=14).map(b"".join),
       st.integers(0, 40), st.integers(-1, 8000))
def test_spelled_from_is_the_patterns_search(data, skip, k):
    # prescan._spelled_from: the first numeric reference to a letter of "charset" from the "&" it
    # is given on (the pattern's search), else k; past 1024 "&" it searches from the first "&#"
    from redecode import prescan

    amp = data.find(b"&", min(skip, len(data)))
    if amp < 0:
        return
    end = len(data) if k < 0 else min(k, len(data))
    if amp >= end:
        return
    m = prescan._SPELLS_CHARSET_LETTER.search(data, amp, end)
    assert prescan._spelled_from(data, amp, k, end) == (m.start() if m is not None else k)


@settings(max_examples=1500, deadline=None)
@given(st.binary(max_size=60), st.lists(st.lists(st.integers(-80, 80), min_size=2, max_size=2), max_size=8))
def test_join_spans_is_the_join_of_the_slices(data, spans):
    # (the excerpt's join: ByteProfile._cut; slices as Python takes them, out of range included)
    assert native.core.join_spans(data, spans) == b"\n".join(data[a:b] for a, b in spans)


def test_ascii_lower_is_bytes_lower():
    every = bytes(range(256))
    for data in (b"", every, every[::-1] * 3, bytes(range(0x3F, 0x5D)) * 9 + b"Z", b"A"):
        for k in range(0, 40):
            assert native.core.ascii_lower(data[k:]) == data[k:].lower()


def test_binary_bytes_every_byte_at_every_place_of_a_word():
    # (the compiled count skips eight bytes at a time: each byte alone, at each place of two words
    # and the tail, among letters and among high bytes)
    for b in range(256):
        for k in range(19):
            for fill in (b"a", b"\xe9", b"\x1f"):
                data = fill * k + bytes([b]) + fill * (18 - k)
                got = validate.binary_bytes(data)
                with _pure_validate():
                    want = validate.binary_bytes(data)
                assert got == want, data


# --------------------------------------------------------------------------------------------------
# The checks' byte passes and utf8_length_errors, 64 bytes a step (bit masks made with AVX2 where
# the processor has it, else byte by byte): both paths against the pure twins, across the steps'
# bounds


@contextlib.contextmanager
def _simd(on: bool):
    was = native.core._simd(on)
    try:
        yield
    finally:
        native.core._simd(was)


_SIMD_PATHS = [True, False]


def _length_errors_edges() -> list[bytes]:
    edge = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0,
            0xF4, 0xF5, 0xFF]  # fmt: skip
    seqs = [bytes([a, b]) for a in range(256) for b in range(256)]
    seqs += [bytes([a, b, c]) for a in range(0xC0, 0x100) for b in edge for c in edge]
    seqs += [bytes([a, b, c, e]) for a in range(0xE0, 0xF8) for b in edge for c in edge for e in edge]
    return seqs


@pytest.mark.parametrize("simd", _SIMD_PATHS)
def test_utf8_length_errors_every_short_sequence_at_the_steps_bounds(simd):
    # every 2-byte input, the 3- and 4-byte ones of edge bytes, placed so that they cross the
    # bound of a 64-byte step (and of its two 32-byte halves) at each of their bytes, after ASCII
    # and after a stray byte (the step's masks carry the bytes before)
    with _simd(simd):
        for q in _length_errors_edges():
            for at in (29, 31, 61, 62, 63, 64):
                for lead in (b"x", b"\x80", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98"):
                    data = lead * (at // len(lead)) + b"x" * (at % len(lead)) + q + b"\xff" + b"y" * 70
                    assert native.core.utf8_length_errors(data) == _length_errors_pure(data), data


@pytest.mark.parametrize("simd", _SIMD_PATHS)
@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from([b"a" * k for k in (1, 2, 31, 32, 33, 63, 64, 65, 127, 128)]
                                + [b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xc3", b"\xe2\x82",
                                   b"\xf0\x9f\x98", b"\x80", b"\xbf", b"\xed\xa0\x80", b"\xed\x9f\xbf", b"\xff",
                                   b"\xe0\x80", b"\xe0\xa0\x80", b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf",
                                   b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\xcf\xf0\xe8", b"\xe4\xf5"]),
                max_size=60).map(b"".join) | st.binary(max_size=300))
def test_utf8_length_errors_is_the_pure_decode_on_both_paths(simd, data):
    with _simd(simd):
        assert native.core.utf8_length_errors(data) == _length_errors_pure(data), data


def _checks(data: bytes, start: int, window: int, min_bytes: int) -> tuple:
    return (
        validate.runs_share(data, start, window=window, min_bytes=min_bytes),
        validate.symbols_in_words(data, start, window=window, min_bytes=min_bytes),
        *(validate.script_letters(data, e, start, window=window, min_bytes=min_bytes)
          for e in ("windows-1251", "windows-1253", "KOI8-R", "windows-874")),
        *(validate.anomalies(data[start:start + window], e, quotes=q)
          for e in ("windows-1251", "windows-1252", "ISO-8859-7") for q in (False, True)),
    )


# pieces that make runs of high bytes of every parity, symbols between letters (asa, asasa) in
# windows-1252, case flips, and every class of the letter tables
_CHECK_PIECES = [b"a", b"Z", b" ", b"<p>", b"\xe9", b"\xbf\xf3\xb3", b"a\xbfa", b"\xe6\xb3", b"\xc0\xe0", b"\xe0\xc0",
                 b"\xa9", b"\xd7", b"\xff", b"\x80", b"\x93", b"\xab", b"\xb8\xa8", b"\xcf\xf0\xe8",
                 b"\xc1\xd2\xc9", b"\xa4\xa4\xa4\xe5", b"x" * 31, b"\xe0" * 33, b"\xe0" * 64, b"a\xb3" * 5]


@pytest.mark.parametrize("simd", _SIMD_PATHS)
@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_CHECK_PIECES), max_size=90).map(b"".join) | st.binary(max_size=400),
       st.integers(0, 70), st.integers(0, 400), st.integers(1, 12))
def test_checks_passes_are_the_pure_ones_on_both_paths(simd, data, start, window, min_bytes):
    with _simd(simd):
        got = _checks(data, start, window, min_bytes)
    with _pure_validate():
        want = _checks(data, start, window, min_bytes)
    assert got == want, (data, start, window, min_bytes)


@pytest.mark.parametrize("simd", _SIMD_PATHS)
def test_runs_share_every_run_at_every_offset_of_a_step(simd):
    # a run of r bytes above 0x7F (r = 1..130) at each offset 0..129: its pairs, and how the runs
    # open at a 64-byte step's bounds are joined
    with _simd(simd):
        for r in range(1, 131):
            for at in range(0, 130):
                data = b"a" * at + b"\xe0" * r + b"a" * 3 + b"\xe0" * (r % 7)
                for start in (0, at % 64):
                    got = validate.runs_share(data, start, min_bytes=1)
                    with _pure_validate():
                        want = validate.runs_share(data, start, min_bytes=1)
                    assert got == want, (r, at, start)


@pytest.mark.parametrize("simd", _SIMD_PATHS)
def test_symbols_in_words_every_chain_at_every_offset_of_a_step(simd):
    # chains a(sa)^j of j = 1..9 symbols between letters at each offset 50..130, around a step's
    # bound (the counts of "asa" and "asasa" without overlap)
    with _simd(simd):
        for j in range(1, 10):
            for at in range(50, 131):
                for tail in (b"", b"a", b"\xbf", b"\xbfa", b" \xbf"):
                    data = b"\xe9" * 40 + b" " * (at - 40) + b"a" + b"\xbfa" * j + tail + b"\xe9" * 40
                    got = validate.symbols_in_words(data, 0, min_bytes=1)
                    with _pure_validate():
                        want = validate.symbols_in_words(data, 0, min_bytes=1)
                    assert got == want, (j, at, tail)


def test_checks_passes_want_a_table_of_256():
    for f in (native.core.symbols_in_words, native.core.script_letters):
        with pytest.raises(ValueError):
            f(b"abc", b"a" * 255, 0, 10, 1)


def _pair_forms(name: str) -> tuple[list[bytes], list[bytes]]:
    """Two-byte sequences of the multi-byte *name* that its pure decoder reads as one character:
    those whose UTF-8 form is 3 bytes, and those whose form is 2 (Latin, Greek, Cyrillic)."""
    three, two = [], []
    for lead in MULTI[name]:
        for t in range(0x40, 0xFF, 3):
            text, errors = pure(bytes([lead, t]), name)
            if errors == 0 and len(text) == 1:
                (three if 0x800 <= ord(text) <= 0xFFFF else two if 0x80 <= ord(text) < 0x800 else []).append(
                    bytes([lead, t]))
    return three, two


@pytest.mark.parametrize("simd", _SIMD_PATHS)
@pytest.mark.parametrize("name", ["GBK", "EUC-KR", "Big5", "Shift_JIS", "EUC-JP", "gb18030"])
def test_long_pair_runs_eight_a_step(simd, name):
    # decode_to_utf8's pairs eight a step (AVX2: their forms gathered, 3-byte forms packed):
    # runs of 0 to 40 pairs after 0 to 3 ASCII bytes, all of 3-byte forms or with a 2-byte form
    # or an error at one place, ended by ASCII, a lone lead, an error or the end of input
    three, two = _pair_forms(name)
    assert three and two
    lead = MULTI[name][0]
    ends = [b"", b"A", bytes([lead]), bytes([lead, 0x7F]), bytes([lead, 0x20])]
    cases = []
    for k in range(41):
        run = [three[(k * 7 + j * 13) % len(three)] for j in range(k)]
        variants = [run]
        for at in {0, k // 2, k - 1} if k else ():
            variants.append(run[:at] + [two[(k + at) % len(two)]] + run[at + 1:])
            variants.append(run[:at] + [bytes([lead, 0x7F])] + run[at + 1:])
        for v in variants:
            for pre in (b"", b"a", b"ab", b"abc"):
                for e in ends[k % 3:k % 3 + 3]:
                    cases.append(pre + b"".join(v) + e)
    with _simd(simd):
        check(cases, name)


@pytest.mark.parametrize("simd", _SIMD_PATHS)
def test_single_byte_to_utf8_thirty_two_a_step(simd):
    # decode_to_utf8's single-byte loop, 32 bytes a step with AVX2: blocks all ASCII, with 0 to 9
    # non-ASCII bytes at spread places (Latin text: ASCII stretches stored whole, each other byte's
    # form from the table) and denser ones, at every offset of a step, in tables with and without
    # holes (U+FFFD counted)
    rnd = random.Random(27)
    for name in ("windows-1252", "windows-1251", "ISO-8859-7", "windows-874", "KOI8-R", "ISO-8859-8"):
        cases = []
        for length in (32, 33, 63, 64, 65, 96, 130):
            for k in range(0, 12):
                for _ in range(4):
                    data = bytearray(rnd.choice(b"abc <p>xyz") for _ in range(length))
                    for at in rnd.sample(range(length), min(k, length)):
                        data[at] = rnd.randrange(0x80, 0x100)
                    for pre in (b"", b"q", b"\xe9" + b"q" * 30):
                        cases.append(pre + bytes(data))
        cases += [bytes(range(0x80, 0x100)) * 3, b"a" * 31 + bytes(range(0x80, 0x100)), b"\xff" * 64 + b"a" * 64]
        with _simd(simd):
            check(cases, name)


@pytest.mark.parametrize("simd", _SIMD_PATHS)
def test_single_byte_to_str_blocks_and_the_switch_to_16_bit(simd):
    # decode_single_byte with AVX2: 8-bit characters 32 bytes a step until a byte whose character
    # is above U+00FF (windows-1252's 0x80 is U+20AC, 0x81 no character), then 16-bit units 16 bytes
    # a step (sparse blocks widened and patched, dense ones through the table): that byte at every
    # offset up to 100, after Latin text and after dense non-ASCII text
    cases = []
    for body in (b"caf\xe9 cr\xe8me br\xfbl\xe9e " * 8, bytes(range(0xA0, 0x100)) * 2, b"plain ascii text! " * 8):
        for at in range(0, 101):
            for wide in (b"\x80", b"\x81", b"\x9c"):
                data = body[:at] + wide + body[at:]
                cases += [data, data + b"\xe9" * 17, data[:at + 1] + b"x" * (at % 19)]
    with _simd(simd):
        for name in ("windows-1252", "windows-1250", "ISO-8859-7", "windows-874"):
            check(cases, name)


@pytest.mark.parametrize("background", [b"a", "é".encode(), "日".encode(), b"ab\xc3\xa9"])
def test_utf8_validity_a_sequence_at_every_offset_of_the_128_byte_steps(background):
    # the wide validity check reads 128 bytes a step and, where they are not all ASCII, checks
    # their four 32-byte blocks in turn: a valid, cut or invalid sequence at every offset of the
    # first three steps, in ASCII and in non-ASCII text, with every tail length after it
    for seq in (b"\xe2\x82\xac", b"\xe2\x82", b"\xff", b"\xed\xa0\x80", b"\xf0\x9f\x98\x80", b"\xf0\x9f", b"\x80"):
        for at in range(0, 390):
            page = (background * 400)[:at]
            page = page[:len(page) - (len(page) % len(background))] if len(background) > 1 else page
            for tail in (b"", b"x", b"z" * 37):
                data = page + seq + tail + (background * 3 if at % 2 else b"")
                want = _length_errors_pure(data)
                assert native.core.utf8_length_errors(data) == want, (at, seq, tail)
                utf8, length, errors = native.core.decode_to_utf8(data, "UTF-8")
                assert (length, errors) == want, (at, seq, tail)
                assert sniff._utf8_valid(data) == (want[1] == 0)
