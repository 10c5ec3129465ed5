"""Encoding Standard decoders, checked exhaustively against an independent reference.

The reference decoders below are a literal, byte-at-a-time reading of the Encoding Standard's decoder
algorithms (whatwg/encoding @ a985b62), with a real I/O queue and "restore", built from
tests/data/whatwg/indexes.json. They share no code or tables with redecode.decode. Slow, and only
run on small inputs.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redecode.decode import DECODER_VERSION, TABLES_REVISION, DecodeResult, decode
from redecode.labels import ENCODING_NAMES

WHATWG = Path(__file__).resolve().parent / "data" / "whatwg"
INDEXES = json.loads((WHATWG / "indexes.json").read_text("utf-8"))
_ENCODINGS = json.loads((WHATWG / "encodings.json").read_text("utf-8"))
SINGLE_BYTE = [
    enc["name"] for g in _ENCODINGS if g["heading"] == "Legacy single-byte encodings" for enc in g["encodings"]
]
FFFD = "\ufffd"
EOQ = None  # end-of-queue
ERROR = object()
CONTINUE = object()
FINISHED = object()


def index_cp(name: str, pointer: int | None) -> int | None:
    if pointer is None:
        return None
    idx = INDEXES[name]
    return idx[pointer] if 0 <= pointer < len(idx) else None


def ranges_cp(pointer: int) -> int | None:
    if 39419 < pointer < 189000 or pointer > 1237575:
        return None
    if pointer == 7457:
        return 0xE7C7
    offset, cp_offset = max((p, c) for p, c in INDEXES["gb18030-ranges"] if p <= pointer)
    return cp_offset + pointer - offset


def is_ascii(b: int) -> bool:
    return b is not None and b < 0x80


class Queue:
    def __init__(self, data: bytes):
        self.items = list(data)
        self.pos = 0

    def read(self):
        if self.pos < len(self.items):
            self.pos += 1
            return self.items[self.pos - 1]
        return EOQ

    def restore(self, *bs):
        self.items[self.pos : self.pos] = list(bs)


def run(handler_factory, data: bytes) -> tuple[str, int]:
    """Encoding Standard "process a queue" in replacement error mode."""
    q = Queue(data)
    handler = handler_factory()
    out: list[str] = []
    errors = 0
    while True:
        byte = q.read()
        result = handler(q, byte)
        if result is FINISHED:
            return "".join(out), errors
        if result is ERROR:
            out.append(FFFD)
            errors += 1
        elif result is not CONTINUE:
            out.extend(chr(c) for c in result)
        if byte is EOQ and result is not ERROR and result is not CONTINUE:
            raise AssertionError("code point at end of queue")


def utf8():
    s = {"cp": 0, "needed": 0, "seen": 0, "lo": 0x80, "hi": 0xBF}

    def h(q, b):
        if b is EOQ:
            if s["needed"]:
                s["needed"] = 0
                return ERROR
            return FINISHED
        if s["needed"] == 0:
            if b <= 0x7F:
                return [b]
            if 0xC2 <= b <= 0xDF:
                s["needed"], s["cp"] = 1, b & 0x1F
            elif 0xE0 <= b <= 0xEF:
                if b == 0xE0:
                    s["lo"] = 0xA0
                if b == 0xED:
                    s["hi"] = 0x9F
                s["needed"], s["cp"] = 2, b & 0xF
            elif 0xF0 <= b <= 0xF4:
                if b == 0xF0:
                    s["lo"] = 0x90
                if b == 0xF4:
                    s["hi"] = 0x8F
                s["needed"], s["cp"] = 3, b & 0x7
            else:
                return ERROR
            return CONTINUE
        if not s["lo"] <= b <= s["hi"]:
            s.update(cp=0, needed=0, seen=0, lo=0x80, hi=0xBF)
            q.restore(b)
            return ERROR
        s["lo"], s["hi"] = 0x80, 0xBF
        s["cp"] = (s["cp"] << 6) | (b & 0x3F)
        s["seen"] += 1
        if s["seen"] != s["needed"]:
            return CONTINUE
        cp = s["cp"]
        s.update(cp=0, needed=0, seen=0)
        return [cp]

    return h


def utf16(be: bool):
    s = {"lead_byte": None, "lead_surrogate": None}

    def h(q, b):
        if b is EOQ:
            if s["lead_byte"] is not None or s["lead_surrogate"] is not None:
                s["lead_byte"] = s["lead_surrogate"] = None
                return ERROR
            return FINISHED
        if s["lead_byte"] is None:
            s["lead_byte"] = b
            return CONTINUE
        cu = (s["lead_byte"] << 8) + b if be else (b << 8) + s["lead_byte"]
        s["lead_byte"] = None
        if s["lead_surrogate"] is not None:
            ls = s["lead_surrogate"]
            s["lead_surrogate"] = None
            if 0xDC00 <= cu <= 0xDFFF:
                return [0x10000 + ((ls - 0xD800) << 10) + (cu - 0xDC00)]
            bs = [cu >> 8, cu & 0xFF] if be else [cu & 0xFF, cu >> 8]
            q.restore(*bs)
            return ERROR
        if 0xD800 <= cu <= 0xDBFF:
            s["lead_surrogate"] = cu
            return CONTINUE
        if 0xDC00 <= cu <= 0xDFFF:
            return ERROR
        return [cu]

    return h


def single_byte(name: str):
    idx = INDEXES["iso-8859-8" if name == "ISO-8859-8-I" else name.lower()]

    def h(q, b):
        if b is EOQ:
            return FINISHED
        if b < 0x80:
            return [b]
        cp = idx[b - 0x80]
        return ERROR if cp is None else [cp]

    return h


def x_user_defined():
    def h(q, b):
        if b is EOQ:
            return FINISHED
        return [b] if b < 0x80 else [0xF780 + b - 0x80]

    return h


def replacement():
    s = {"seen": False}

    def h(q, b):
        if b is EOQ:
            return FINISHED
        if not s["seen"]:
            s["seen"] = True
            return ERROR
        return FINISHED

    return h


def gb18030():
    s = {"first": 0, "second": 0, "third": 0}

    def h(q, b):
        if b is EOQ:
            if s["first"] or s["second"] or s["third"]:
                s.update(first=0, second=0, third=0)
                return ERROR
            return FINISHED
        if s["third"]:
            if not 0x30 <= b <= 0x39:
                q.restore(s["second"], s["third"], b)
                s.update(first=0, second=0, third=0)
                return ERROR
            cp = ranges_cp(
                (s["first"] - 0x81) * 12600 + (s["second"] - 0x30) * 1260 + (s["third"] - 0x81) * 10 + b - 0x30
            )
            s.update(first=0, second=0, third=0)
            return ERROR if cp is None else [cp]
        if s["second"]:
            if 0x81 <= b <= 0xFE:
                s["third"] = b
                return CONTINUE
            q.restore(s["second"], b)
            s.update(first=0, second=0)
            return ERROR
        if s["first"]:
            if 0x30 <= b <= 0x39:
                s["second"] = b
                return CONTINUE
            lead = s["first"]
            s["first"] = 0
            pointer = None
            offset = 0x40 if b < 0x7F else 0x41
            if 0x40 <= b <= 0x7E or 0x80 <= b <= 0xFE:
                pointer = (lead - 0x81) * 190 + (b - offset)
            cp = index_cp("gb18030", pointer)
            if cp is not None:
                return [cp]
            if is_ascii(b):
                q.restore(b)
            return ERROR
        if b < 0x80:
            return [b]
        if b == 0x80:
            return [0x20AC]
        if 0x81 <= b <= 0xFE:
            s["first"] = b
            return CONTINUE
        return ERROR

    return h


def big5():
    s = {"lead": 0}
    special = {1133: [0xCA, 0x304], 1135: [0xCA, 0x30C], 1164: [0xEA, 0x304], 1166: [0xEA, 0x30C]}

    def h(q, b):
        if b is EOQ:
            if s["lead"]:
                s["lead"] = 0
                return ERROR
            return FINISHED
        if s["lead"]:
            lead, s["lead"] = s["lead"], 0
            pointer = None
            offset = 0x40 if b < 0x7F else 0x62
            if 0x40 <= b <= 0x7E or 0xA1 <= b <= 0xFE:
                pointer = (lead - 0x81) * 157 + (b - offset)
            if pointer in special:
                return special[pointer]
            cp = index_cp("big5", pointer)
            if cp is not None:
                return [cp]
            if is_ascii(b):
                q.restore(b)
            return ERROR
        if b < 0x80:
            return [b]
        if 0x81 <= b <= 0xFE:
            s["lead"] = b
            return CONTINUE
        return ERROR

    return h


def euc_jp():
    s = {"jis0212": False, "lead": 0}

    def h(q, b):
        if b is EOQ:
            if s["lead"]:
                s["lead"] = 0
                return ERROR
            return FINISHED
        if s["lead"] == 0x8E and 0xA1 <= b <= 0xDF:
            s["lead"] = 0
            return [0xFF61 - 0xA1 + b]
        if s["lead"] == 0x8F and 0xA1 <= b <= 0xFE:
            s["jis0212"] = True
            s["lead"] = b
            return CONTINUE
        if s["lead"]:
            lead, s["lead"] = s["lead"], 0
            cp = None
            if 0xA1 <= lead <= 0xFE and 0xA1 <= b <= 0xFE:
                cp = index_cp("jis0212" if s["jis0212"] else "jis0208", (lead - 0xA1) * 94 + b - 0xA1)
            s["jis0212"] = False
            if cp is not None:
                return [cp]
            if is_ascii(b):
                q.restore(b)
            return ERROR
        if b < 0x80:
            return [b]
        if b in (0x8E, 0x8F) or 0xA1 <= b <= 0xFE:
            s["lead"] = b
            return CONTINUE
        return ERROR

    return h


def shift_jis():
    s = {"lead": 0}

    def h(q, b):
        if b is EOQ:
            if s["lead"]:
                s["lead"] = 0
                return ERROR
            return FINISHED
        if s["lead"]:
            lead, s["lead"] = s["lead"], 0
            pointer = None
            offset = 0x40 if b < 0x7F else 0x41
            lead_offset = 0x81 if lead < 0xA0 else 0xC1
            if 0x40 <= b <= 0x7E or 0x80 <= b <= 0xFC:
                pointer = (lead - lead_offset) * 188 + b - offset
            if pointer is not None and 8836 <= pointer <= 10715:
                return [0xE000 - 8836 + pointer]
            cp = index_cp("jis0208", pointer)
            if cp is not None:
                return [cp]
            if is_ascii(b):
                q.restore(b)
            return ERROR
        if b < 0x80 or b == 0x80:
            return [b]
        if 0xA1 <= b <= 0xDF:
            return [0xFF61 - 0xA1 + b]
        if 0x81 <= b <= 0x9F or 0xE0 <= b <= 0xFC:
            s["lead"] = b
            return CONTINUE
        return ERROR

    return h


def euc_kr():
    s = {"lead": 0}

    def h(q, b):
        if b is EOQ:
            if s["lead"]:
                s["lead"] = 0
                return ERROR
            return FINISHED
        if s["lead"]:
            lead, s["lead"] = s["lead"], 0
            pointer = (lead - 0x81) * 190 + (b - 0x41) if 0x41 <= b <= 0xFE else None
            cp = index_cp("euc-kr", pointer)
            if cp is not None:
                return [cp]
            if is_ascii(b):
                q.restore(b)
            return ERROR
        if b < 0x80:
            return [b]
        if 0x81 <= b <= 0xFE:
            s["lead"] = b
            return CONTINUE
        return ERROR

    return h


def iso_2022_jp():
    s = {"state": "ascii", "out_state": "ascii", "lead": 0, "output": False}

    def h(q, b):
        st_ = s["state"]
        if st_ in ("ascii", "roman", "katakana", "lead"):
            if b == 0x1B:
                s["state"] = "esc-start"
                return CONTINUE
            if b is EOQ:
                return FINISHED
            s["output"] = False
            if st_ == "ascii":
                return [b] if b < 0x80 and b not in (0x0E, 0x0F) else ERROR
            if st_ == "roman":
                if b == 0x5C:
                    return [0xA5]
                if b == 0x7E:
                    return [0x203E]
                return [b] if b < 0x80 and b not in (0x0E, 0x0F) else ERROR
            if st_ == "katakana":
                return [0xFF61 - 0x21 + b] if 0x21 <= b <= 0x5F else ERROR
            if 0x21 <= b <= 0x7E:
                s["lead"] = b
                s["state"] = "trail"
                return CONTINUE
            return ERROR
        if st_ == "trail":
            if b == 0x1B:
                s["state"] = "esc-start"
                return ERROR
            s["state"] = "lead"
            if b is not EOQ and 0x21 <= b <= 0x7E:
                cp = index_cp("jis0208", (s["lead"] - 0x21) * 94 + b - 0x21)
                return ERROR if cp is None else [cp]
            return ERROR
        if st_ == "esc-start":
            if b in (0x24, 0x28):
                s["lead"] = b
                s["state"] = "esc"
                return CONTINUE
            if b is not EOQ:
                q.restore(b)
            s["output"] = False
            s["state"] = s["out_state"]
            return ERROR
        # escape
        lead, s["lead"] = s["lead"], 0
        new = None
        if lead == 0x28 and b == 0x42:
            new = "ascii"
        elif lead == 0x28 and b == 0x4A:
            new = "roman"
        elif lead == 0x28 and b == 0x49:
            new = "katakana"
        elif lead == 0x24 and b in (0x40, 0x42):
            new = "lead"
        if new is not None:
            s["state"] = s["out_state"] = new
            output = s["output"]
            s["output"] = True
            return ERROR if output else CONTINUE
        if b is EOQ:
            q.restore(lead)
        else:
            q.restore(lead, b)
        s["output"] = False
        s["state"] = s["out_state"]
        return ERROR

    return h


def reference(data: bytes, name: str) -> tuple[str, int]:
    """Encoding Standard decoder for *name* on *data*, no BOM handling: (text, errors)."""
    factories = {
        "UTF-8": utf8,
        "UTF-16BE": lambda: utf16(True),
        "UTF-16LE": lambda: utf16(False),
        "gb18030": gb18030,
        "GBK": gb18030,
        "Big5": big5,
        "EUC-JP": euc_jp,
        "Shift_JIS": shift_jis,
        "EUC-KR": euc_kr,
        "ISO-2022-JP": iso_2022_jp,
        "replacement": replacement,
        "x-user-defined": x_user_defined,
    }
    factory = factories.get(name) or (lambda: single_byte(name))
    return run(factory, data)


def check(data: bytes, name: str) -> None:
    got = decode(data, name, bom_sniff=False)
    want_text, want_errors = reference(data, name)
    assert (got.text, got.errors) == (want_text, want_errors), (name, data.hex(" "))


def check_many(units: list[bytes], name: str) -> None:
    """Each unit decoded alone; reports every mismatch at once."""
    bad = []
    for u in units:
        got = decode(u, name, bom_sniff=False)
        want = reference(u, name)
        if (got.text, got.errors) != want:
            bad.append((u.hex(" "), got.text, got.errors, want))
    assert not bad, (name, len(bad), bad[:10])


# ------------------------------------------------------------------------------------------------
# Interface


def test_interface():
    assert TABLES_REVISION == "a985b62a9b45c17da3e17a9f0a0b4e30c34c4a8a"
    assert isinstance(DECODER_VERSION, str) and DECODER_VERSION
    r = decode(b"abc", "windows-1252")
    assert r == DecodeResult("abc", "windows-1252", 0, False)
    assert r.bom is False
    with pytest.raises(AttributeError):
        r.text = "x"  # frozen
    assert not hasattr(r, "__dict__")  # slots


def test_accepts_labels_and_rejects_unknown():
    assert decode(b"\x81", "latin1").encoding == "windows-1252"
    assert decode(b"\x81", "latin1").text == "\x81"
    with pytest.raises(LookupError):
        decode(b"", "utf-7")


@pytest.mark.parametrize(
    ("data", "asked", "encoding", "text", "bom"),
    [
        (b"\xef\xbb\xbfa", "windows-1252", "UTF-8", "a", True),
        (b"\xfe\xff\x00a", "UTF-8", "UTF-16BE", "a", True),
        (b"\xff\xfea\x00", "Shift_JIS", "UTF-16LE", "a", True),
        (b"\xff\xfe\x00\x00", "UTF-8", "UTF-16LE", "\x00", True),  # no UTF-32
        (b"\xef\xbb\xbf", "replacement", "UTF-8", "", True),
        (b"\xef\xbbX", "UTF-8", "UTF-8", "\ufffdX", False),
        (b"a\xef\xbb\xbf", "UTF-8", "UTF-8", "a\ufeff", False),
        (b"\xef\xbb\xbf\xef\xbb\xbf", "UTF-8", "UTF-8", "\ufeff", True),  # only one BOM removed
    ],
)
def test_bom_sniff(data, asked, encoding, text, bom):
    r = decode(data, asked)
    assert (r.text, r.encoding, r.bom_removed) == (text, encoding, bom)


def test_bom_sniff_off():
    assert decode(b"\xef\xbb\xbfa", "UTF-8", bom_sniff=False) == DecodeResult("\ufeffa", "UTF-8", 0, False)
    assert decode(b"\xef\xbb\xbf", "windows-1252", bom_sniff=False).text == "ï»¿"
    assert decode(b"\xff\xfea\x00", "UTF-16BE", bom_sniff=False).text == "\ufffe\u6100"


def test_replacement():
    assert decode(b"", "replacement") == DecodeResult("", "replacement", 0, False)
    assert decode(b"abc\xff", "replacement") == DecodeResult("\ufffd", "replacement", 1, False)
    assert decode(b"x", "iso-2022-kr").encoding == "replacement"


def test_all_40_encodings_decode_ascii():
    assert len(ENCODING_NAMES) == 40
    for name in ENCODING_NAMES:
        r = decode(b"Hello, world!\n", name, bom_sniff=False)
        if name == "replacement":
            assert r.text == "\ufffd"
        elif name.startswith("UTF-16"):
            assert r.errors == 0 and len(r.text) == 7
        else:
            assert (r.text, r.errors) == ("Hello, world!\n", 0), name


# ------------------------------------------------------------------------------------------------
# Issue examples (expected values from the index files, quoted in the issue)


@pytest.mark.parametrize(
    ("name", "data", "text", "errors"),
    [
        ("Shift_JIS", b"\x81\x60", "\uff5e", 0),
        ("Shift_JIS", b"\x87\x40", "\u2460", 0),
        ("EUC-JP", b"\xa1\xc1", "\uff5e", 0),
        ("EUC-KR", b"\x94\xee", "\ubdc1", 0),
        ("GBK", b"\x80", "\u20ac", 0),
        ("gb18030", b"\x80", "\u20ac", 0),
        ("Big5", b"\xa3\xe1", "\u20ac", 0),
        ("Big5", b"\xf9\xfe", "\uffed", 0),
        ("Big5", b"\x88\x62\x88\x64\x88\xa3\x88\xa5", "\u00ca\u0304\u00ca\u030c\u00ea\u0304\u00ea\u030c", 0),
        ("windows-1252", b"\x81\x8d\x8f\x90\x9d", "\x81\x8d\x8f\x90\x9d", 0),
        ("Shift_JIS", b"\x81A", "\u3001", 0),
        ("Shift_JIS", b"\x81 ", "\ufffd ", 1),  # ASCII trail re-read after the error
        ("Shift_JIS", b"\x81", "\ufffd", 1),  # truncated at end
        ("Shift_JIS", b"\x81\xff", "\ufffd", 1),  # non-ASCII trail consumed
        ("EUC-KR", b"\xb0<", "\ufffd<", 1),
        ("Big5", b"\x81\x40", "\ufffd@", 1),
        ("gb18030", b"\x81\x30", "\ufffd", 1),
        ("gb18030", b"\x81\x30\x81", "\ufffd", 1),
        ("gb18030", b"\x81\x30\x81\x30", "\x80", 0),
        ("gb18030", b"\x84\x31\xa4\x37", "\ufffd", 0),  # U+FFFD encoded validly: not an error
        ("gb18030", b"\x84\x31\xa4\x39", "\uffff", 0),  # pointer 39419: the last BMP one
        ("gb18030", b"\x84\x31\xa5\x30", "\ufffd", 1),  # pointer 39420: null
        ("gb18030", b"\xe3\x32\x9a\x35", "\U0010ffff", 0),
        ("gb18030", b"\xe3\x32\x9a\x36", "\ufffd", 1),
        ("gb18030", b"\x90\x30\x81\x30", "\U00010000", 0),
        ("gb18030", b"\x82\x30\xc3\x53", "\ufffd0\u80a7", 1),
        ("UTF-8", b"\xef\xbf\xbd\xff", "\ufffd\ufffd", 1),
        ("UTF-16LE", b"\x00\xd8", "\ufffd", 1),
        ("UTF-16LE", b"\x00\xd8\x00", "\ufffd", 1),  # lead surrogate + odd byte: one error
        ("UTF-16LE", b"A\x00\x00", "A\ufffd", 1),
        ("UTF-16BE", b"\xdc\x00\xd8\x00\xdc\x00", "\ufffd\U00010000", 1),
        ("x-user-defined", b"\x80\xff", "\uf780\uf7ff", 0),
    ],
)
def test_examples(name, data, text, errors):
    r = decode(data, name, bom_sniff=False)
    assert (r.text, r.errors) == (text, errors)
    assert reference(data, name) == (text, errors)  # the reference agrees with the hand values


# ------------------------------------------------------------------------------------------------
# Exhaustive checks against the index files


@pytest.mark.parametrize("name", [*SINGLE_BYTE, "x-user-defined"])
def test_single_byte_every_byte(name):
    data = bytes(range(256))
    check(data, name)
    for b in range(256):
        check(bytes([b]), name)
    r = decode(data, name, bom_sniff=False)
    if name != "x-user-defined":
        idx = INDEXES["iso-8859-8" if name == "ISO-8859-8-I" else name.lower()]
        assert r.errors == idx.count(None)
        assert r.text == "".join(map(chr, range(128))) + "".join(FFFD if c is None else chr(c) for c in idx)


def _pairs(leads) -> list[bytes]:
    return [bytes([lead, b]) for lead in leads for b in range(256)]


MULTI = {
    "Shift_JIS": [*range(0x81, 0xA0), *range(0xE0, 0xFD)],
    "EUC-KR": list(range(0x81, 0xFF)),
    "Big5": list(range(0x81, 0xFF)),
    "GBK": list(range(0x81, 0xFF)),
    "gb18030": list(range(0x81, 0xFF)),
    "EUC-JP": [0x8E, 0x8F, *range(0xA1, 0xFF)],
}


@pytest.mark.parametrize("name", list(MULTI))
def test_multibyte_every_byte_and_pair(name):
    check_many([bytes([b]) for b in range(256)], name)
    check_many(_pairs(MULTI[name]), name)


@pytest.mark.parametrize("name", list(MULTI))
def test_multibyte_pairs_in_context(name):
    # All pairs in one input, each followed by "A" and then by a lead byte (error paths re-read
    # bytes across pair boundaries), and all pairs back to back: the state machine across tokens.
    pairs = _pairs(MULTI[name])
    check(b"".join(p + b"A" for p in pairs), name)
    lead = bytes([MULTI[name][-1]])
    check(b"".join(p + lead for p in pairs[::7]), name)
    check(b"".join(pairs[::3]), name)


@pytest.mark.parametrize("name", list(MULTI))
def test_multibyte_valid_pairs_fast_path(name):
    # Valid pairs only, concatenated: the fast path (when the Python codec agrees) must equal the
    # standard. Every valid pair, and runs of them.
    valid = [p for p in _pairs(MULTI[name]) if reference(p, name)[1] == 0 and not p.isascii()]
    for chunk in range(0, len(valid), 500):
        check(b"".join(valid[chunk : chunk + 500]), name)


def test_euc_jp_three_byte_every_sequence():
    check_many([bytes([0x8F, x, y]) for x in range(0xA1, 0xFF) for y in range(256)], "EUC-JP")
    check_many([bytes([0x8F, x]) for x in range(256)], "EUC-JP")
    check_many([bytes([0x8E, x]) for x in range(256)], "EUC-JP")


def _gb4(pointer: int) -> bytes:
    b1, rest = divmod(pointer, 12600)
    b2, rest = divmod(rest, 1260)
    b3, b4 = divmod(rest, 10)
    return bytes([b1 + 0x81, b2 + 0x30, b3 + 0x81, b4 + 0x30])


def test_gb18030_four_byte_bmp_all_pointers():
    # Pointers 0..39419 (BMP) in one input, plus both sides of the null gap and the upper bound.
    data = b"".join(_gb4(p) for p in range(39420))
    r = decode(data, "gb18030", bom_sniff=False)
    want = "".join(chr(ranges_cp(p)) for p in range(39420))
    assert r.text == want
    assert r.errors == 0
    assert decode(data, "GBK", bom_sniff=False).text == want


def test_gb18030_four_byte_boundaries():
    points = {0, 7457, 39419, 39420, 39421, 188999, 189000, 189001, 1237575, 1237576, 1237577}
    for p, _cp in INDEXES["gb18030-ranges"]:
        points.update({p - 1, p, p + 1})
    points.update(range(189000, 1237576, 9973))
    units = [_gb4(p) for p in sorted(points) if 0 <= p < 126 * 12600]
    check_many(units, "gb18030")
    # No four-byte sequence decodes to a surrogate, and the largest valid one is U+10FFFF.
    assert ranges_cp(1237575) == 0x10FFFF
    assert decode(_gb4(1237575), "gb18030").text == "\U0010ffff"
    for p in (39420, 100000, 188999, 1237576):
        assert decode(_gb4(p), "gb18030").text == FFFD
    # Last byte outside 0x30..0x39 after three valid bytes: second, third and byte are read again.
    check_many([_gb4(7457)[:3] + bytes([b]) for b in range(256)], "gb18030")
    check_many([bytes([0x81, d, 0x81]) for d in range(0x30, 0x3A)], "gb18030")


def test_gb18030_2022_mappings():
    # The 2024 adoption of GB18030-2022 changed mappings; the index is authoritative. Spot-check the
    # index against decode for every pointer whose code point moved out of the PUA.
    idx = INDEXES["gb18030"]
    moved = [p for p, cp in enumerate(idx) if cp is not None and 0xFE10 <= cp <= 0xFE19 or cp in range(0x9FB4, 0x9FBC)]
    assert moved
    for p in moved:
        lead, trail = divmod(p, 190)
        trail += 0x40 if trail < 0x3F else 0x41
        assert decode(bytes([lead + 0x81, trail]), "gb18030").text == chr(idx[p])


# ------------------------------------------------------------------------------------------------
# UTF-8 and UTF-16


def test_utf8_every_one_and_two_byte_sequence():
    check_many([bytes([a]) for a in range(256)], "UTF-8")
    check_many([bytes([a, b]) for a in range(0x80, 256) for b in range(256)], "UTF-8")


def test_utf8_three_and_four_byte_boundaries():
    edge = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0,
            0xF4, 0xF5, 0xFF]  # fmt: skip
    leads = [0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4]
    check_many([bytes([a, b, c]) for a in leads for b in edge for c in edge], "UTF-8")
    check_many([bytes([a, b, c, d]) for a in leads[8:] for b in edge for c in edge for d in edge], "UTF-8")


def test_utf16_surrogates_and_odd_byte():
    units = [0x0041, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFFFD, 0xFEFF]
    seqs = [[]]
    for _ in range(4):
        seqs = [s + [u] for s in seqs for u in units] + [[]]
    cases = set()
    for s in seqs:
        for be in (True, False):
            data = b"".join(u.to_bytes(2, "big" if be else "little") for u in s)
            for tail in (b"", b"\x00", b"\xd8"):
                cases.add((data + tail, be))
    bad = []
    for data, be in sorted(cases):
        name = "UTF-16BE" if be else "UTF-16LE"
        got = decode(data, name, bom_sniff=False)
        if (got.text, got.errors) != reference(data, name):
            bad.append((name, data.hex(" ")))
    assert not bad, bad[:10]


# ------------------------------------------------------------------------------------------------
# ISO-2022-JP


ISO2022_ALPHABET = [0x1B, 0x24, 0x28, 0x42, 0x4A, 0x49, 0x40, 0x21, 0x30, 0x5C, 0x7E, 0x5F, 0x60, 0x0E, 0x0F,
                    0x0A, 0x80, 0xFF, 0x7F, 0x20]  # fmt: skip


def test_iso2022jp_escape_state_vectors():
    esc = [b"\x1b(B", b"\x1b(J", b"\x1b(I", b"\x1b$@", b"\x1b$B", b"\x1b(", b"\x1b$", b"\x1b", b"\x1b(X"]
    body = [b"", b"!", b"0!", b"\\~", b"\x0e", b"\x80", b"\n", b"!!!"]
    cases = [e1 + b1 + e2 + b2 for e1 in esc for b1 in body for e2 in esc for b2 in body]
    check_many(cases, "ISO-2022-JP")


def test_iso2022jp_every_jis0208_pair():
    pairs = [bytes([a, b]) for a in range(0x21, 0x7F) for b in range(0x21, 0x7F)]
    check(b"\x1b$B" + b"".join(pairs) + b"\x1b(B", "ISO-2022-JP")
    check(b"\x1b(I" + bytes(range(256)), "ISO-2022-JP")
    check(b"\x1b(J" + bytes(range(256)), "ISO-2022-JP")
    check(bytes(range(256)), "ISO-2022-JP")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ISO2022_ALPHABET), max_size=24))
def test_iso2022jp_random(bs):
    check(bytes(bs), "ISO-2022-JP")


# ------------------------------------------------------------------------------------------------
# Differential property tests: every encoding, arbitrary bytes (never raises, equals reference)

INTERESTING = sorted({0x00, 0x0A, 0x1B, 0x24, 0x28, 0x30, 0x39, 0x40, 0x41, 0x5C, 0x7E, 0x7F, 0x80, 0x81, 0x84,
                      0x87, 0x8E, 0x8F, 0x9F, 0xA0, 0xA1, 0xA4, 0xB0, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0,
                      0xF4, 0xFC, 0xFD, 0xFE, 0xFF, 0xD8, 0xDC})  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ENCODING_NAMES), st.lists(st.sampled_from(INTERESTING), max_size=16))
def test_differential_interesting_bytes(name, bs):
    check(bytes(bs), name)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ENCODING_NAMES), st.binary(max_size=24), st.booleans())
def test_total_on_arbitrary_bytes(name, data, sniff):
    r = decode(data, name, bom_sniff=sniff)
    assert isinstance(r.text, str) and r.errors >= 0
    assert r.encoding in ENCODING_NAMES
    if not sniff:
        assert (r.text, r.errors) == reference(data, name)


def test_random_long_inputs():
    rng = random.Random(4)
    for name in ENCODING_NAMES:
        for _ in range(3):
            data = bytes(rng.choice(INTERESTING) if rng.random() < 0.7 else rng.randrange(256) for _ in range(300))
            check(data, name)


# ------------------------------------------------------------------------------------------------
# Chunked slow path: cutting long inputs at "safe" bytes must not change the result


CHUNK_ALPHABET = sorted(set(INTERESTING) | {0x3C, 0x3E, 0x20, 0x31, 0x35, 0x82, 0xA4, 0xC1})


@pytest.mark.parametrize("name", ["Shift_JIS", "EUC-JP", "EUC-KR", "Big5", "GBK", "gb18030"])
@settings(max_examples=150, deadline=None)
@given(data=st.lists(st.sampled_from(CHUNK_ALPHABET), min_size=10, max_size=60), chunk=st.integers(1, 6))
def test_chunked_equals_whole(name, data, chunk):
    import redecode.decode as d

    saved = d._CHUNK
    d._CHUNK = chunk
    try:
        check(bytes(data), name)
    finally:
        d._CHUNK = saved


@pytest.mark.parametrize("name", ["Shift_JIS", "EUC-JP", "EUC-KR", "Big5", "gb18030"])
def test_long_input_with_sparse_errors(name):
    # ~70 KB of valid text with errors and gb18030 partial four-byte sequences before '<'.
    valid = [p for p in _pairs(MULTI[name])[::97] if reference(p, name)[1] == 0]
    rng = random.Random(7)
    pieces = []
    for i in range(20000):
        pieces.append(rng.choice(valid))
        if i % 5 == 0:
            pieces.append(b"<p>\n")
        if i % 4000 == 0:
            pieces.append(rng.choice([b"\x81\x30<", b"\x81\x30\x81<", b"\xff", b"\x81", b"\xa1 "]))
    data = b"".join(pieces)
    assert len(data) > 40000
    check(data, name)


# ------------------------------------------------------------------------------------------------
# Fast path: fixes and slow-path triggers (the slow path is disabled to prove which path ran)


@pytest.mark.parametrize(
    ("name", "data", "text", "errors", "fast"),
    [
        ("EUC-JP", b"\xa1\xc1" * 3 + b"abc", "\uff5e" * 3 + "abc", 0, True),  # euc_jp: U+301C, fixed
        ("EUC-JP", b"~\xa1\xc1", "~\uff5e", 0, True),
        ("EUC-JP", b"~\x8f\xa2\xb7", "~\uff5e", 0, False),  # euc_jp gives "~": slow path
        ("Shift_JIS", b"\xa0abc\xfd", "\ufffdabc\ufffd", 2, True),  # cp932: U+F8F0/U+F8F1, fixed
        ("Shift_JIS", b"\x81\x60", "\uff5e", 0, True),
        ("Big5", b"\xa1\xe3\xa2\x46", "\uff5e\uffe0", 0, True),
        ("Big5", b"\xa2\x41", "\u2215", 0, False),
        ("gb18030", b"\xa8\xbc\x81\x35\xf4\x37", "\u1e3f\ue7c7", 0, True),  # swapped by gb18030 codec
        ("gb18030", b"\xa6\xd9\xfe\x59", "\ufe10\u9fb4", 0, True),  # GB18030-2022 mappings
        ("GBK", b"\xa6\xd9", "\ufe10", 0, True),
        ("EUC-KR", b"\x94\xee", "\ubdc1", 0, True),
        ("EUC-KR", b"\x80A", "\ufffdA", 1, False),
    ],
)
def test_fast_path_fixes(monkeypatch, name, data, text, errors, fast):
    import redecode.decode as d

    assert d._FAST, "fast path disabled on this Python version"
    if fast:
        monkeypatch.setattr(d, "_decode_tokens", lambda *a: pytest.fail("slow path taken"))
    r = decode(data, name, bom_sniff=False)
    assert (r.text, r.errors) == (text, errors)
    assert reference(data, name) == (text, errors)


def test_results_are_the_frozen_dataclasses():
    """decode and decode_to_utf8 build their results without the dataclasses' __init__ (a
    builder class of the same slots): the same type, value, repr and hash, and as frozen."""
    import dataclasses

    import redecode.decode as d

    r = d.decode(b"caf\xe9", "windows-1252")
    assert type(r) is d.DecodeResult and r == d.DecodeResult("café", "windows-1252", 0, False)
    assert repr(r) == repr(d.DecodeResult("café", "windows-1252", 0, False))
    assert hash(r) == hash(d.DecodeResult("café", "windows-1252", 0, False))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.text = "x"
    for data, enc in ((b"\xef\xbb\xbfcaf\xc3\xa9", "windows-1252"), (b"caf\xe9", "windows-1252"), (b"abc", "utf-8")):
        u = d.decode_to_utf8(data, enc)
        if u is None:
            continue  # (no compiled core)
        ref = d.decode(data, enc)
        want = d.Utf8DecodeResult(ref.text.encode("utf-8"), len(ref.text), ref.encoding, ref.errors, ref.bom_removed)
        assert type(u) is d.Utf8DecodeResult and u == want and repr(u) == repr(want) and hash(u) == hash(want)
        with pytest.raises(dataclasses.FrozenInstanceError):
            u.errors = 1
