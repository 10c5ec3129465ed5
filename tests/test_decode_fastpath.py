"""Fast paths of redecode.decode against the spec-exact slow paths and the independent reference.

Every fast path (a Python codec plus the checks and fixes computed by tools/gen_tables.py) must give
exactly what the slow path gives, for every input: inputs built from the units where the codec and
the standard disagree (fixed characters, slow units, also misaligned), from valid units around them,
and, for ISO-2022-JP, from every escape sequence, control byte and JIS X 0208 pair the shape check
has to accept or refuse.
"""

from __future__ import annotations

import functools
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_decode import MULTI, _pairs, reference

import redecode.decode as d
from redecode import _tables
from redecode.decode import decode

FAST_ON = bool(d._FAST)
needs_fast = pytest.mark.skipif(not FAST_ON, reason="fast path disabled on this Python version")

STATELESS = ["Shift_JIS", "EUC-JP", "EUC-KR", "Big5", "GBK", "gb18030"]


def slow(data: bytes, name: str) -> tuple[str, int]:
    """The spec-exact path alone (no fast path anywhere, also not for the runs it decodes)."""
    saved, d._FAST = d._FAST, {}
    try:
        if name == "ISO-2022-JP":
            return d._decode_iso2022jp_slow(data)
        return d._decode_tokens(data, "gb18030" if name == "GBK" else name)
    finally:
        d._FAST = saved


def agree(data: bytes, name: str) -> None:
    r = decode(data, name, bom_sniff=False)
    assert (r.text, r.errors) == slow(data, name), (name, data.hex(" "))


def _key(name: str) -> str:
    return "gb18030" if name == "GBK" else name


@functools.cache
def disputed_units(name: str) -> tuple[bytes, ...]:
    """The units at which the codecs of the fast path disagree with the standard, and the slow
    units (their bytes; for ISO-2022-JP the JIS X 0208 pairs)."""
    units: set[bytes] = set()
    for codec, fix, _slow_chars, slow_units in _tables.FAST_PATH.get(_key(name), ()):
        fix_chars = {c for c, *_ in fix}
        for u, _out in slow_units:
            units.add(u)
        if name == "ISO-2022-JP":
            for a in range(0x21, 0x7F):
                for b in range(0x21, 0x7F):
                    u = bytes([a, b])
                    if set((b"\x1b$B" + u).decode(codec, "replace")) & fix_chars:
                        units.add(u)
            continue
        candidates = [bytes([b]) for b in range(256)] + _pairs(MULTI[name])
        candidates += [bytes([0x8F, x, y]) for x in (0xA2, 0xA9) for y in range(0xA1, 0xFF)]
        candidates += [c.encode(codec) for c in fix_chars]  # e.g. gb18030's four-byte units
        for p in candidates:
            try:
                out = p.decode(codec)
            except UnicodeDecodeError:
                continue
            if set(out) & fix_chars:
                units.add(p)
    return tuple(sorted(units))


@functools.cache
def valid_units(name: str, n: int = 400) -> tuple[bytes, ...]:
    rng = random.Random(name)
    pairs = [p for p in _pairs(MULTI[name]) if not p.isascii()]
    rng.shuffle(pairs)
    out = []
    for p in pairs:
        if reference(p, name)[1] == 0:
            out.append(p)
            if len(out) == n:
                break
    return tuple(out)


# ------------------------------------------------------------------------------------------------
# Stateless multi-byte encodings


@needs_fast
@pytest.mark.parametrize("name", STATELESS)
def test_disputed_units_fast_equals_slow(name):
    units = disputed_units(name)
    if name not in ("EUC-KR", "GBK"):  # cp949 and gbk agree with the standard everywhere
        assert units
    valid = valid_units(name, 50)
    for u in units:
        for ctx in (b"", b"a", b"<p>", valid[0], valid[1] + b" "):
            agree(ctx + u + ctx, name)
            agree(u * 3, name)
        agree(b"".join(valid[:10]) + u + b"".join(valid[10:20]), name)
        # Misaligned: the unit's bytes across two units (a lead byte before it swallows its first).
        for lead in MULTI[name][:: max(1, len(MULTI[name]) // 8)]:
            agree(bytes([lead]) + u + b"x", name)
    agree(b"".join(units), name)
    agree(b"".join(units) + b"\xff", name)


@needs_fast
@pytest.mark.parametrize("name", STATELESS)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_mixed_units_fast_equals_slow(name, data):
    pool = [*disputed_units(name), *valid_units(name, 60)] + [b"a", b"<", b" ", b"~", b"\\", b"\x80", b"\xff", b"\n"]
    pieces = data.draw(st.lists(st.sampled_from(pool), max_size=40))
    raw = b"".join(pieces)
    agree(raw, name)
    assert (decode(raw, name, bom_sniff=False).text, decode(raw, name, bom_sniff=False).errors) == reference(raw, name)


@needs_fast
@pytest.mark.parametrize("name", STATELESS)
def test_fast_path_taken_for_disputed_units(monkeypatch, name):
    # A fixed character never costs the slow path; a slow unit does, but only when present.
    fix_chars = {c for _codec, fix, _s, _u in _tables.FAST_PATH[_key(name)] for c, *_ in fix}
    codec = _tables.FAST_PATH[_key(name)][0][0]
    fixed = []
    for u in disputed_units(name):
        try:
            out = u.decode(codec)
        except UnicodeDecodeError:
            continue
        if set(out) <= fix_chars:
            fixed.append(u)
    want = [slow(u, name) for u in fixed]
    monkeypatch.setattr(d, "_decode_tokens", lambda *a: pytest.fail("slow path taken"))
    for u, w in zip(fixed, want):
        r = decode(u + b"abc", name, bom_sniff=False)
        assert (r.text, r.errors) == (w[0] + "abc", w[1]), u


# ------------------------------------------------------------------------------------------------
# ISO-2022-JP


ESCAPES = [b"\x1b(B", b"\x1b(J", b"\x1b$@", b"\x1b$B", b"\x1b(I", b"\x1b$(B", b"\x1b$)B", b"\x1b", b"\x1bN", b"\x1b$A"]
ASCII_BITS = [b"a", b"\\", b"~", b"\n", b"\r\n", b"\t", b" ", b"\x00", b"\x0e", b"\x0f", b"\x7f", b"\x80", b"!", b"!!"]


def _jis_pairs() -> list[bytes]:
    return [bytes([a, b]) for a in range(0x21, 0x7F) for b in range(0x21, 0x7F)]


@needs_fast
def test_iso2022jp_every_pair_fast_equals_slow(monkeypatch):
    # Every JIS X 0208 pair after ESC $ B and ESC $ @, in inputs of the fast path's shape: equal to
    # the slow path and the reference, and decoded by the fast path.
    pairs = _jis_pairs()
    cases = []
    for esc in (b"\x1b$B", b"\x1b$@"):
        for i in range(0, len(pairs), 47):
            cases.append(b"x" + esc + b"".join(pairs[i : i + 47]) + b"\x1b(Bz\n")
        cases.append(esc + b"".join(pairs) + b"\x1b(J\\~")
    for c in cases[::5]:
        assert reference(c, "ISO-2022-JP") == slow(c, "ISO-2022-JP")
    for c in cases:
        agree(c, "ISO-2022-JP")
    # The pairs iso2022_jp decodes (the others make its strict decode fail): the fast path.
    fast = []
    for esc in (b"\x1b$B", b"\x1b$@"):
        ok = []
        for p in pairs:
            try:
                (esc + p).decode("iso2022_jp")
            except UnicodeDecodeError:
                continue
            ok.append(p)
        assert len(ok) > 6800
        fast += [b"x" + esc + b"".join(ok[i : i + 61]) + b"\x1b(J\\~\n" for i in range(0, len(ok), 61)]
    want = [slow(c, "ISO-2022-JP") for c in fast]
    monkeypatch.setattr(d, "_decode_iso2022jp_slow", lambda *a: pytest.fail("slow path taken"))
    for c, w in zip(fast, want):
        r = decode(c, "ISO-2022-JP", bom_sniff=False)
        assert (r.text, r.errors) == w, c[:20]


@needs_fast
@pytest.mark.parametrize(
    "data",
    [
        b"\x1b$B!!\n!!\x1b(B",  # control byte in the JIS X 0208 state: errors in the standard
        b"\x1b$B!!\x1b(B\n\x1b$B!!",  # the same output from iso2022_jp, no error
        b"\x1b$B\x1b(Ba",  # two escape sequences in a row
        b"a\x1b$B",  # escape sequence at the end
        b"\x1b$(B!!\x1b(B",  # accepted by iso2022_jp only
        b"\x1b$)B!!",
        b"a\x1bb",  # lone ESC
        b"\x0e\x0f",
        b"\x1b(J\x0e",
        b"\x1b(I!\x1b(B",  # katakana
        b"\x1b$B!A!B!]!q!r\"L\x1b(B",  # the six fixed pairs
        b"\x1b$B!\x1b(B",  # odd run
        b"\x1b$B!!!",
        b"\x1b(J\\~\x1b(B\\~",
        b"\x1b$@!!\x1b$B!!\x1b(Ba",
    ],
)
@pytest.mark.parametrize("tail", [b"", b"a", b"\x1b(Bz"])
def test_iso2022jp_shape_cases(data, tail):
    agree(data + tail, "ISO-2022-JP")
    r = decode(data + tail, "ISO-2022-JP", bom_sniff=False)
    assert (r.text, r.errors) == reference(data + tail, "ISO-2022-JP")


@needs_fast
@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(ESCAPES),
            st.sampled_from(ASCII_BITS),
            st.sampled_from([b"!A", b"!B", b"!]", b"!q", b"!r", b'"L', b"0!", b"F|", b"t&", b"~~", b"!"]),
        ),
        max_size=30,
    )
)
def test_iso2022jp_random_fast_equals_slow(pieces):
    data = b"".join(pieces)
    agree(data, "ISO-2022-JP")
    r = decode(data, "ISO-2022-JP", bom_sniff=False)
    assert (r.text, r.errors) == reference(data, "ISO-2022-JP")


# The shape as documented in decode.py, one run per repeat (the decoder's pattern is unrolled).
PLAIN_SHAPE = re.compile(rb"[^\x1b]*+(?:\x1b(?:\([BJ][^\x1b]++|\$[@B][\x21-\x7e]++))*+")
SHAPE_PIECES = [b"\x1b$B", b"\x1b$@", b"\x1b(B", b"\x1b(J", b"\x1b(I", b"\x1b$(B", b"\x1b$A", b"\x1b", b"!!", b"0!",
                b"a", b"\n", b" ", b"\x80", b"~", b"\x0e", b"\x1b$B!!", b"\x1b$@0!", b"\x1b(Ba", b"\x1b(J~"]  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(SHAPE_PIECES), max_size=40))
def test_iso2022jp_shape_unrolled(pieces):
    data = b"".join(pieces)
    assert d._ISO2022JP_SHAPE.match(data).end() == PLAIN_SHAPE.match(data).end()


def test_iso2022jp_shape_unrolled_every_position():
    # A valid page with one bad piece at every position: the match ends where the plain one does.
    good = (b"<p>\x1b$B!!0!\x1b(Bab\x1b$@~~\x1b(J\\\n") * 8
    for bad in (b"\x1b$B\n", b"\x1b(B\x1b$B", b"\x1b$(B", b"\x1b", b"\x1b(I!", b" "):
        for pos in range(len(good) + 1):
            data = good[:pos] + bad + good[pos:]
            assert d._ISO2022JP_SHAPE.match(data).end() == PLAIN_SHAPE.match(data).end(), (bad, pos)


@needs_fast
def test_iso2022jp_long_pages(monkeypatch):
    rng = random.Random(2022)
    pairs = _jis_pairs()
    pieces = []
    for _ in range(3000):
        pieces.append(b"<p class=\"c\">" + bytes([rng.choice(b"abc \n\t\\~")]) * rng.randint(0, 3))
        pieces.append(rng.choice([b"\x1b$B", b"\x1b$@"]) + b"".join(rng.choices(pairs, k=rng.randint(1, 12))))
        pieces.append(rng.choice([b"\x1b(B", b"\x1b(J"]) + b"</p>\n")
    data = b"".join(pieces)
    want = slow(data, "ISO-2022-JP")
    assert decode(data, "ISO-2022-JP", bom_sniff=False).errors == want[1]
    assert decode(data, "ISO-2022-JP", bom_sniff=False).text == want[0]
    for bad in (b"\x1b$B\n", b"\x1b(B\x1b$B", b"\x1b$(B", b"\x0e"):
        pos = rng.randrange(len(data))
        agree(data[:pos] + bad + data[pos:], "ISO-2022-JP")


# ------------------------------------------------------------------------------------------------
# EUC-JP token path with JIS X 0212 (runs that take three-byte tokens)

EUCJP_PIECES = [b"\x8f\xb0\xa1", b"\x8f\xa2\xb7", b"\x8f\xa2\xaf", b"\x8f\xfe\xfe", b"\x8f\xa1", b"\x8f", b"\x8f\x20",
                b"\x8f\x8f", b"\x8f\xa1\x8f", b"\x8f\xa1\x20", b"\xa1\x8f", b"\xb0\xa1", b"\xa1\xc1", b"\x8e\xb1",
                b"\x8e\x8f", b"\xa4\xa2", b"a", b" ", b"~", b"\xff", b"\x80", b"\xa1"]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(EUCJP_PIECES), max_size=40))
def test_eucjp_jis0212_runs(pieces):
    data = b"".join(pieces)
    want = reference(data, "EUC-JP")
    assert slow(data, "EUC-JP") == want  # clean runs folded to pairs, other 8F tokens alone
    assert d._decode_tokens(data, "EUC-JP") == want  # the fast path for such runs where it applies
    r = decode(data, "EUC-JP", bom_sniff=False)
    assert (r.text, r.errors) == want


def test_eucjp_jis0212_dense_long():
    rng = random.Random(212)
    units = [bytes([0x8F, a, b]) for a in range(0xA1, 0xFF) for b in range(0xA1, 0xFF)][::7]
    units += [bytes([a, b]) for a in range(0xA1, 0xFF) for b in range(0xA1, 0xFF)][::11]
    data = b"".join(rng.choices(units, k=20000))
    for tail in (b"", b"\xa1", b"\x8f\xa1", b"\xa1 ", b"<p>"):
        want = slow(data + tail, "EUC-JP")
        assert d._decode_tokens(data + tail, "EUC-JP") == want
        r = decode(data + tail, "EUC-JP", bom_sniff=False)
        assert (r.text, r.errors) == want
    sample = data[:3000] + b"\x8f\xa1 " + data[3000:6000]
    assert slow(sample, "EUC-JP") == reference(sample, "EUC-JP")
    # Errors inside long runs (the fast path refuses them; the fold takes them) and tokens that
    # cut a clean run (a lead byte and 8F, 8F L 8F, 8F and a byte outside A1..FE).
    for bad in (b"\x8f\xa1\xa0", b"\x8f\xa2\x41", b"\xa1\x8f", b"\x8f\xb0\x8f", b"\x8f\x41", b"\x8f\x8f\xa1"):
        sample = data[:30000] + bad + data[30000:60000] + bad + data[60000:]
        want = reference(sample, "EUC-JP")
        assert slow(sample, "EUC-JP") == want, bad
        r = decode(sample, "EUC-JP", bom_sniff=False)
        assert (r.text, r.errors) == want, bad


def _eucjp_tokens(data: bytes) -> list[bytes]:
    """The EUC-JP decoder's tokens of *data* (whole tokens assumed), by its byte rules alone."""
    out, i = [], 0
    while i < len(data):
        n = 3 if data[i] == 0x8F and i + 1 < len(data) and 0xA1 <= data[i + 1] <= 0xFE else 2
        out.append(data[i : i + n])
        i += n
    return out


def test_eucjp_every_three_byte_token():
    # Every 8F L T between two-byte tokens, at the start and at the end of runs: against the
    # reference decoder (T an ASCII byte is an error and T read again; T = 8F is not a clean token).
    units = [bytes([0x8F, a, b]) for a in range(0xA1, 0xFF) for b in range(256)]
    for sep in (b"\xa4\xa2", b"\xa1\x41", b"\x8e\xb1", b"<", b""):
        data = sep.join(units) + sep
        want = reference(data, "EUC-JP")
        assert slow(data, "EUC-JP") == want, sep
        r = decode(data, "EUC-JP", bom_sniff=False)
        assert (r.text, r.errors) == want, sep


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"\x8f\xb0\xa1", b"\x8f\xa1\x41", b"\x8f\xfe\x00", b"\x8f\xa1\xff", b"\xa4\xa2",
                                 b"\x8e\xb1", b"\xa1\x00", b"\xfe\xa1", b"\xb0\x8e"]), max_size=60))
def test_eucjp_fold_0212(tokens):
    # A clean run folded: each 8F L T becomes L-0x80 T, two-byte tokens stay, in order.
    run = b"".join(tokens)
    assert _eucjp_tokens(run) == tokens
    want = b"".join(t if len(t) == 2 else bytes([t[1] - 0x80, t[2]]) for t in tokens)
    assert d._eucjp_fold_0212(run) == want
    assert d._eucjp_fold_0212(run + b"\x00\x00" + run) == want + b"\x00\x00" + want


# ------------------------------------------------------------------------------------------------
# Big5: the disputed units looked for in the input (decode._big5_scan), not in the text

# More than 8,192 bytes without A1 or A2: the scan is used for what follows.
BIG5_FILLER = b"\xa4\xa4\xa4@ <p>" * 1100
BIG5_PIECES = [b"a", b"E", b"<", b"\xa4\xa1", b"\xa4\xa2", b"\xa4E", b"\xa4\xc2", b"\x88b", b"\x8e\xa1", b"\xa0\xe3",
               b"\xa1\x40", b"\xc2\xe3", b"\xa4", b"\xa1", b"\xa2", b"\x80", b"\xff"]  # fmt: skip


def _big5_token_starts(data: bytes) -> set[int]:
    """Offsets where the Big5 decoder starts a token (a lead byte 81..FE takes the next byte)."""
    starts, i = set(), 0
    while i < len(data):
        starts.add(i)
        i += 2 if 0x81 <= data[i] <= 0xFE else 1
    return starts


def _big5_scanned_units() -> set[bytes]:
    fc = d._FAST["Big5"][0]
    return {unit for *_, unit in fc.slow_units} | {u for f in fc.fix for u in f[5]}


@needs_fast
def test_big5_scan_units_are_the_disputed_units():
    assert _big5_scanned_units() == set(disputed_units("Big5"))


@needs_fast
@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(BIG5_PIECES + list(disputed_units("Big5"))), max_size=40))
def test_big5_scan_fast_equals_slow(pieces):
    data = BIG5_FILLER + b"".join(pieces)
    agree(data, "Big5")
    try:
        data.decode("big5hkscs")
    except UnicodeDecodeError:
        return  # the scan only runs on input the codec decoded strictly
    starts = _big5_token_starts(data)
    for p in range(len(data)):
        if data[p] in (0xA1, 0xA2):
            assert d._big5_token_start(data, p) == (p in starts), p
    found = d._FAST["Big5"][0].scan(data)
    assert found is not None
    assert found == {data[s : s + 2] for s in starts} & _big5_scanned_units()


@needs_fast
def test_big5_scan_every_alignment():
    # Each disputed unit as a token and as bytes across two tokens, after every kind of byte
    # before it: start of input, ASCII, a run of A1..FE of either parity, a lead byte 81..A0.
    prefixes = [b"", b"a", b"\xa4\xa4", b"\xa4\xa4" * 3, b"\x88b", b"\x8e\xa1", b"\x88", b"\xa4", b"\xa4\xa4\xa4"]
    for u in disputed_units("Big5"):
        for prefix in prefixes:
            for suffix in (b"", b"a", b"\xa4\xa4", b"\xa1"):
                agree(prefix + u + suffix, "Big5")
                agree(BIG5_FILLER + prefix + u + suffix, "Big5")
                agree(BIG5_FILLER + prefix + u + BIG5_FILLER, "Big5")


@needs_fast
def test_big5_scan_window_and_fallbacks():
    fc = d._FAST["Big5"][0]
    long_run = b"\xa4\xa4" * 400  # longer than the window: alignment left open, taken as a token
    for u in disputed_units("Big5"):
        for run in (long_run, b"\xa4" + long_run):
            data = BIG5_FILLER + run + u + b"a"
            agree(data, "Big5")
            agree(b"a" + run + u + b"a", "Big5")
    data = BIG5_FILLER + b"\xa4\xa4" * 300 + b"\xa4\xa1E"
    assert d._big5_token_start(data, len(data) - 2) is None
    assert fc.scan(data) == {b"\xa1E"}
    # Many misaligned occurrences: the text checks decide.
    data = BIG5_FILLER + b"\xa4\xa1E" * 100
    assert fc.scan(data) is None
    agree(data, "Big5")
    agree(data + b"\xa1E", "Big5")
    # A1 frequent (punctuation), also after a long ASCII head: the text checks decide.
    for head in (b"", b"<script>x</script>\n" * 1000):
        data = head + b"\xa1\x41\xa4\xa4" * 3000 + b"\xa1E"
        assert fc.scan(data) is None
        agree(data, "Big5")
