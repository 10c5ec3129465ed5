"""Encoding Standard decoders, exact to the standard, fast where Python's codecs provably agree.

Spec concept -> function (Encoding Standard, whatwg/encoding @ ``TABLES_REVISION``; section names
as in the standard):

==============================================  ==================================================
Encoding Standard                               here
==============================================  ==================================================
"decode" (BOM sniff, then the decoder)          ``decode(data, encoding)``
"decode", the output as UTF-8 bytes             ``decode_to_utf8(data, encoding)``
the decoder alone (no BOM sniff)                ``decode(data, encoding, bom_sniff=False)``
"BOM sniff"                                     :func:`bom_sniff`
"UTF-8 decoder"                                 ``_decode_utf8``
"single-byte decoder" (+ its 28 indexes)        ``_decode_single_byte`` (``codecs.charmap_decode``)
"gb18030 decoder" (GBK's decoder is the same)   ``_decode_multibyte`` -> ``_decode_tokens``
"Big5 decoder", "EUC-JP decoder",               ``_decode_multibyte`` -> ``_decode_tokens``
"Shift_JIS decoder", "EUC-KR decoder"
"index gb18030 ranges code point"               :func:`gb18030_ranges_code_point`
"ISO-2022-JP decoder"                           ``_decode_iso2022jp``
"replacement decoder"                           ``_decode_replacement``
"shared UTF-16 decoder"                         ``_decode_utf16``
"x-user-defined decoder"                        ``_decode_single_byte`` (U+F780 + byte - 0x80)
==============================================  ==================================================

Error mode is always "replacement": each decoder error inserts one U+FFFD and is counted in
``DecodeResult.errors``; which bytes an error consumes and which are read again ("restore") is
exactly the standard's (e.g. a Shift_JIS lead byte followed by an ASCII byte that makes no character
gives U+FFFD and then that ASCII character; followed by a non-ASCII byte, one U+FFFD for both).

How it is fast (figures: ``tests/benchmarks/bench_decoders.py``). With the compiled core
(:mod:`redecode.native`; ``lib/redecode/_core.pyx``), the legacy decoders are C loops written
straight from the index tables, one pass over the bytes (``_core.decode_multibyte``,
``_core.decode_single_byte``), UTF-8 errors are counted on the bytes, and
:func:`decode_to_utf8` gives the text as UTF-8 bytes without building a ``str`` (the job's Parquet
writer stores UTF-8). Without it (not built, or ``REDECODE_PURE=1``), the pure-Python decoders
below run; they are the reference the compiled ones are tested against (``tests/test_core.py``):

* single-byte encodings and x-user-defined: one ``codecs.charmap_decode`` call with a table built
  from the index (what Python's own cp125x codecs do, with the standard's table).
* UTF-8 / UTF-16: Python's strict decoder when it succeeds (then identical). Else, for UTF-8,
  Python's ``replace`` (CPython replaces each maximal subpart with one U+FFFD, as the standard does;
  pinned by exhaustive tests), for UTF-16 ``surrogatepass`` then one U+FFFD per lone surrogate.
* Shift_JIS, EUC-JP, EUC-KR, Big5, GBK, gb18030: the closest Python codec (cp932, euc_jp, cp949,
  big5hkscs, gbk then gb18030), strict, where ``tools/gen_tables.py`` proved it equal to the
  standard for this input: it compared the codec with the standard on every unit the codec accepts
  and recorded, per codec, characters to fix afterwards (e.g. euc_jp's U+301C for ``A1 C1`` is
  U+FF5E), characters and byte sequences whose presence sends the input to the slow path, for the
  Python minor version it ran on (other versions: no fast path); for Big5 the disputed units are
  looked for in the input, where markup makes the text scans slow (``_big5_scan``). Otherwise the
  slow, spec-exact path, per chunk of ~16 KB cut where the decoders are provably in step (so one bad byte does not
  slow a whole page): ``re.split`` cuts the chunk into runs of single-byte tokens and runs of
  two-byte tokens (a lead byte and the byte it consumes), mapped in bulk by ``charmap_decode`` and
  by a 65,536-entry list (EUC-JP's three-byte JIS X 0212 tokens are first folded into pairs); no
  Python loop runs per byte or per character.
* ISO-2022-JP: Python's ``iso2022_jp``, strict, on inputs whose shape (one ``re`` match: only the
  standard's four escape sequences, never two in a row, JIS X 0208 runs of bytes 0x21..0x7E only, no
  0x0E/0x0F) rules out every way that codec departs from the standard besides its table, whose
  disagreements ``tools/gen_tables.py`` computed as for the codecs above. Otherwise the slow path:
  escape sequences found with ``bytes.find``; the runs between them decoded per state with the
  same tools.

Deviations: none known. ``bom_sniff=False`` is the "decode without BOM handling" of encoding_rs
(not a named Encoding Standard algorithm; "UTF-8 decode without BOM" is its UTF-8 case).
"""

from __future__ import annotations

import codecs
import re
import sys
from array import array
from collections.abc import Callable, Iterable

from . import _tables, native
from . import lazy as _lazy
from .dataclass_code import dataclass, unchecked_new
from .labels import ENCODING_NAMES, get_encoding
# (TABLES_REVISION: whatwg/encoding's revision of the tables; DECODER_VERSION, bumped whenever the
# output of decode() can change for some input: both go into the rules digest, which is made
# without importing this module, so they are defined with the rules' parameters)
from .params import DECODER_VERSION, TABLES_REVISION

__all__ = ["DECODER_VERSION", "TABLES_REVISION", "DecodeResult", "Utf8DecodeResult", "bom_sniff", "decode",
           "decode_spec_path", "decode_to_utf8", "decoder_family"]


_FFFD = "\ufffd"
_NULL = _tables.NULL
#: The compiled core (lib/redecode/_core.pyx), or None: then the pure-Python decoders run. See the
#: end of this module and redecode.native.
_core = native.core


@dataclass(frozen=True, slots=True)
class DecodeResult:
    """The result of :func:`decode`.

    ``text``: the decoded text (``str``, code points). ``encoding``: the encoding actually used (the
    BOM's when ``bom_sniff`` found one, else the one asked for), a canonical Encoding Standard name.
    ``errors``: number of decoder errors, i.e. U+FFFD characters inserted by the decoder (a U+FFFD
    that the input encodes validly is not counted). ``bom_removed``: whether a BOM was found and
    removed (also readable as ``bom``).
    """

    text: str
    encoding: str
    errors: int
    bom_removed: bool

    @property
    def bom(self) -> bool:
        """Alias of ``bom_removed``."""
        return self.bom_removed


def bom_sniff(data: bytes) -> str | None:
    """Encoding Standard "BOM sniff": ``"UTF-8"``, ``"UTF-16BE"``, ``"UTF-16LE"`` or None.

    Looks at the first 3 bytes only: ``EF BB BF``, ``FE FF``, ``FF FE`` (so ``FF FE 00 00`` is
    UTF-16LE: the Encoding Standard has no UTF-32). The one BOM sniff of this project: the encoding
    decision (:mod:`redecode.sniff`) and every rule-set procedure use it.
    """
    if data[:3] == b"\xef\xbb\xbf":
        return "UTF-8"
    if data[:2] == b"\xfe\xff":
        return "UTF-16BE"
    if data[:2] == b"\xff\xfe":
        return "UTF-16LE"
    return None


def _resolve(data, encoding: str, bom_sniff: bool) -> tuple[str, bytes, bool]:
    """``(name, payload, bom)``: the Encoding Standard name of *encoding* (a name or a label) and
    the bytes to decode, after BOM sniffing when *bom_sniff* (Encoding Standard, "decode": a BOM
    overrides the encoding and is removed). Raises ``LookupError`` for an unknown label."""
    name = encoding if encoding in _DECODERS else get_encoding(encoding)
    if name is None:
        raise LookupError(f"not an Encoding Standard encoding name or label: {encoding!r}")
    data = bytes(data)
    if bom_sniff:
        sniffed = _bom_sniff(data)
        if sniffed is not None:
            return sniffed, (data[3:] if sniffed == "UTF-8" else data[2:]), True
    return name, data, False


def decode(data: bytes, encoding: str, *, bom_sniff: bool = True) -> DecodeResult:
    """Encoding Standard "decode": *data* (bytes) in *encoding* -> :class:`DecodeResult`.

    *encoding* is a canonical name (``ENCODING_NAMES``); a label is also accepted and resolved with
    "get an encoding". With ``bom_sniff`` (the default) a UTF-8 or UTF-16 BOM at the start of *data*
    overrides *encoding* and is removed, as the standard's "decode" does; with ``bom_sniff=False``
    the decoder runs on *data* as is (a BOM decodes as U+FEFF, or as whatever the encoding makes of
    those bytes). Never raises for ``bytes`` input and a valid encoding.

    Raises ``LookupError`` if *encoding* is neither a name nor a label of the Encoding Standard.
    """
    if type(data) is bytes and encoding in _DECODERS and not (bom_sniff and data.startswith(_BOMS)):
        text, errors = _DECODERS[encoding](data, encoding)  # (what _resolve gives: the name, no BOM)
        return _new_result(text, encoding, errors, False)
    name, data, bom = _resolve(data, encoding, bom_sniff)
    text, errors = _DECODERS[name](data, name)
    return _new_result(text, name, errors, bom)


_bom_sniff = bom_sniff
#: (:func:`decode_to_utf8`) the byte strings :func:`bom_sniff` finds a BOM at the start of
_BOMS = (b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe")


#: ``DecodeResult(text, encoding, errors, bom_removed)``, a third of its ``__init__``'s cost (a
#: decode per reading)
_new_result = unchecked_new(DecodeResult)


# --------------------------------------------------------------------------------------------------
# UTF-8, UTF-16, replacement


def _decode_utf8(data: bytes, name: str) -> tuple[str, int]:
    if _core is not None:
        return _decode_utf8_core(data, name)
    return _decode_utf8_pure(data, name)


def _decode_utf8_pure(data: bytes, _name: str) -> tuple[str, int]:
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError:
        pass
    # CPython's "replace" emits one U+FFFD per maximal subpart, as the standard's UTF-8 decoder does
    # (checked exhaustively in tests/test_decode_utf.py). A U+FFFD can only come validly from
    # EF BF BD, and EF is never consumed as a continuation byte, so every EF BF BD in the input is a
    # valid U+FFFD.
    text = data.decode("utf-8", "replace")
    return text, text.count(_FFFD) - data.count(b"\xef\xbf\xbd")


_SURROGATE = _lazy.pattern(__name__, "_SURROGATE", "[\ud800-\udfff]")


def _decode_utf16(data: bytes, name: str) -> tuple[str, int]:
    codec = "utf-16-be" if name == "UTF-16BE" else "utf-16-le"
    try:
        return data.decode(codec), 0
    except UnicodeDecodeError:
        pass
    odd = len(data) & 1
    # surrogatepass keeps unpaired surrogates as lone code points; valid pairs are combined by the
    # decoder itself. The standard turns each unpaired surrogate into one U+FFFD.
    text = data[: len(data) - odd].decode(codec, "surrogatepass")
    if odd:
        # End of queue with a pending byte: one error. If a lead surrogate is also pending (the last
        # whole code unit is an unpaired lead surrogate), the standard clears both with ONE error.
        if text and "\ud800" <= text[-1] <= "\udbff":
            text = text[:-1]
        text += _FFFD
        errors = 1
    else:
        errors = 0
    text, n = _SURROGATE.subn(_FFFD, text)
    return text, errors + n


def _decode_replacement(data: bytes, _name: str) -> tuple[str, int]:
    # One error for the whole (non-empty) input, then finished.
    return (_FFFD, 1) if data else ("", 0)


# --------------------------------------------------------------------------------------------------
# Single-byte encodings and x-user-defined: charmap tables (U+FFFE = undefined for charmap_decode)

_ASCII = "".join(map(chr, range(128)))
_CHARMAPS: dict[str, str] = {name: _ASCII + high for name, high in _tables.SINGLE_BYTE.items()}
_CHARMAPS["x-user-defined"] = _ASCII + "".join(chr(0xF780 + b) for b in range(128))


# Encodings whose index has no null entry cannot produce an error.
_HAS_HOLES = {name: _NULL in table for name, table in _CHARMAPS.items()}


def _decode_single_byte(data: bytes, name: str) -> tuple[str, int]:
    if _core is not None:
        return _core.decode_single_byte(data, name)
    return _decode_single_byte_pure(data, name)


def _decode_single_byte_pure(data: bytes, name: str) -> tuple[str, int]:
    # windows-1252 maps 0x81 to U+0081 (the index has it); Python's cp1252 has no mapping, so the
    # index, not cp1252, is the table. No index maps to U+FFFD, so every U+FFFD is an error.
    text, _ = codecs.charmap_decode(data, "replace", _CHARMAPS[name])
    # "in" returns at the first hit and scans fast; count() only runs when there are errors.
    return text, text.count(_FFFD) if _HAS_HOLES[name] and _FFFD in text else 0


# --------------------------------------------------------------------------------------------------
# Multi-byte encodings: token tables


def _trail_error(b: int) -> str:
    # A lead byte followed by a byte that makes no character: error; an ASCII byte is restored and
    # read again (it then decodes as itself in every one of these decoders), any other byte is
    # consumed by the error.
    return _FFFD + chr(b) if b < 0x80 else _FFFD


def _index_at(index: str, pointer: int | None) -> str | None:
    if pointer is None or pointer >= len(index):
        return None
    c = index[pointer]
    return None if c == _NULL else c


def _lead_table(leads: range | list[int], pair: Callable[[int, int], str | None],
                errors: Iterable[int] = ()) -> dict[str, str]:
    """Tokens of a two-byte decoder: each lead byte alone (an error at the end of the input), each
    lead byte followed by any byte (``pair``'s character, or an error per :func:`_trail_error`),
    and each byte of *errors* alone (an error)."""
    table: dict[str, str] = dict.fromkeys(map(chr, errors), _FFFD)
    for lead in leads:
        table[chr(lead)] = _FFFD  # lead byte then end of queue
        for b in range(256):
            out = pair(lead, b)
            table[chr(lead) + chr(b)] = _trail_error(b) if out is None else out
    return table


def _build_shift_jis() -> dict[str, str]:
    jis = _tables.INDEX_JIS0208

    def pair(lead: int, b: int) -> str | None:
        offset = 0x40 if b < 0x7F else 0x41
        lead_offset = 0x81 if lead < 0xA0 else 0xC1
        pointer = None
        if 0x40 <= b <= 0x7E or 0x80 <= b <= 0xFC:
            pointer = (lead - lead_offset) * 188 + b - offset
        if pointer is not None and 8836 <= pointer <= 10715:
            return chr(0xE000 - 8836 + pointer)  # EUDC
        return _index_at(jis, pointer)

    table = _lead_table([*range(0x81, 0xA0), *range(0xE0, 0xFD)], pair)
    table["\x80"] = "\x80"
    for b in range(0xA1, 0xE0):
        table[chr(b)] = chr(0xFF61 - 0xA1 + b)
    for b in (0xA0, 0xFD, 0xFE, 0xFF):
        table[chr(b)] = _FFFD
    return table


_BIG5_SPECIAL = {1133: "\u00ca\u0304", 1135: "\u00ca\u030c", 1164: "\u00ea\u0304", 1166: "\u00ea\u030c"}


def _build_big5() -> dict[str, str]:
    big5 = _tables.INDEX_BIG5

    def pair(lead: int, b: int) -> str | None:
        offset = 0x40 if b < 0x7F else 0x62
        pointer = None
        if 0x40 <= b <= 0x7E or 0xA1 <= b <= 0xFE:
            pointer = (lead - 0x81) * 157 + (b - offset)
        if pointer in _BIG5_SPECIAL:
            return _BIG5_SPECIAL[pointer]
        return _index_at(big5, pointer)

    return _lead_table(range(0x81, 0xFF), pair, errors=(0x80, 0xFF))


def _build_euc_kr() -> dict[str, str]:
    euc_kr = _tables.INDEX_EUC_KR

    def pair(lead: int, b: int) -> str | None:
        pointer = (lead - 0x81) * 190 + (b - 0x41) if 0x41 <= b <= 0xFE else None
        return _index_at(euc_kr, pointer)

    return _lead_table(range(0x81, 0xFF), pair, errors=(0x80, 0xFF))


def _build_euc_jp() -> dict[str, str]:
    jis0208 = _tables.INDEX_JIS0208
    jis0212 = _tables.INDEX_JIS0212

    def pair(lead: int, b: int) -> str | None:
        if lead == 0x8E:
            return chr(0xFF61 - 0xA1 + b) if 0xA1 <= b <= 0xDF else None
        if lead == 0x8F:
            # 8F followed by A1..FE is a three-byte token (below); only reached at end of input.
            return _FFFD if 0xA1 <= b <= 0xFE else None
        if 0xA1 <= b <= 0xFE:
            return _index_at(jis0208, (lead - 0xA1) * 94 + b - 0xA1)
        return None

    table = _lead_table([0x8E, 0x8F, *range(0xA1, 0xFF)], pair)
    for second in range(0xA1, 0xFF):
        prefix = "\x8f" + chr(second)
        for b in range(256):
            out = _index_at(jis0212, (second - 0xA1) * 94 + b - 0xA1) if 0xA1 <= b <= 0xFE else None
            table[prefix + chr(b)] = _trail_error(b) if out is None else out
    for b in [*range(0x80, 0x8E), *range(0x90, 0xA1), 0xFF]:
        table[chr(b)] = _FFFD
    return table


def gb18030_ranges_code_point(pointer: int) -> int | None:
    """Encoding Standard "index gb18030 ranges code point" for *pointer*, or None (null)."""
    if 39419 < pointer < 189000 or pointer > 1237575:
        return None
    if pointer == 7457:
        return 0xE7C7
    ranges = _tables.INDEX_GB18030_RANGES
    lo, hi = 0, len(ranges)
    while hi - lo > 1:  # last range start <= pointer
        mid = (lo + hi) // 2
        if ranges[mid][0] <= pointer:
            lo = mid
        else:
            hi = mid
    offset, cp_offset = ranges[lo]
    return cp_offset + pointer - offset


class _GB18030Others(dict):
    """Four-byte and end-of-input tokens (bytes) -> output, computed on first use and cached."""

    __slots__ = ()

    def __missing__(self, key: bytes) -> str:
        if len(key) < 4:
            return _FFFD  # a lead, digit (and second lead) cut by the end of input: one error
        b1, b2, b3, b4 = key
        pointer = (b1 - 0x81) * 12600 + (b2 - 0x30) * 1260 + (b3 - 0x81) * 10 + b4 - 0x30
        cp = gb18030_ranges_code_point(pointer)
        out = _FFFD if cp is None else chr(cp)
        if len(self) < 200_000:  # bounded: at most 1.6 M distinct keys exist
            self[key] = out
        return out


def _build_gb18030() -> dict[str, str]:
    gb = _tables.INDEX_GB18030

    def pair(lead: int, b: int) -> str | None:
        offset = 0x40 if b < 0x7F else 0x41
        if 0x40 <= b <= 0x7E or 0x80 <= b <= 0xFE:
            return _index_at(gb, (lead - 0x81) * 190 + (b - offset))
        # 0x30..0x39 here: the four-byte pattern did not complete; the standard restores the digit
        # (and what followed) and errors once, which the token "lead digit" -> U+FFFD digit matches.
        return None

    table = _lead_table(range(0x81, 0xFF), pair)
    table["\x80"] = "\u20ac"
    table["\xff"] = _FFFD
    return table


_L = b"[\\x81-\\xfe]"
_DIGIT = b"[\\x30-\\x39]"
# Each pattern has group 1 = a run of two-byte tokens (a lead byte and the byte it consumes,
# whatever it is), and for EUC-JP and gb18030 group 2 = one longer or end-of-input token. Bytes
# between matches are single-byte tokens (a lead byte can only be left there as the last byte of
# the input, where it is an error). This mirrors the decoders' left-to-right tokenization exactly.
# The runs are possessive (++): nothing follows them in the pattern, so backtracking could not change
# a match, and sre runs a possessive repeat several times faster.
_SPLIT_PATTERNS = {
    "Shift_JIS": rb"((?:[\x81-\x9f\xe0-\xfc][\x00-\xff])++)",
    "Big5": rb"((?:[\x81-\xfe][\x00-\xff])++)",
    "EUC-KR": rb"((?:[\x81-\xfe][\x00-\xff])++)",
    # 8F starts a three-byte token when followed by A1..FE (jis0212), else a two-byte one.
    "EUC-JP": rb"((?:[\x8e\xa1-\xfe][\x00-\xff])++)|(\x8f(?:[\xa1-\xfe][\x00-\xff]?|[\x00-\xff])?)",
    # A lead and a digit are a two-byte token (U+FFFD, digit read again) unless a four-byte
    # sequence follows or the input ends within one (then one error for all of it).
    "gb18030": (
        b"((?:" + _L + b"(?:[^\\x30-\\x39]|" + _DIGIT + b"(?!" + _L + b"(?:" + _DIGIT + rb"|\Z))(?!\Z)))++)"
        b"|(" + _L + _DIGIT + _L + _DIGIT + b"|" + _L + _DIGIT + _L + rb"?\Z)"
    ),
}
def _build_iso2022jp_lead() -> dict[str, str]:
    """ISO-2022-JP in its "leading byte" state, within a run free of ESC: a byte 0x21..0x7E and the
    next byte (consumed whatever it is) -> jis0208 or one error; any other byte -> one error."""
    jis = _tables.INDEX_JIS0208

    def pair(lead: int, b: int) -> str | None:
        out = _index_at(jis, (lead - 0x21) * 94 + b - 0x21) if 0x21 <= b <= 0x7E else None
        return _FFFD if out is None else out  # the trailing byte is never read again

    table = {chr(b): _FFFD for b in range(256)}
    table.update(_lead_table(range(0x21, 0x7F), pair))
    # ESC joins runs decoded together (see _iso2022jp_runs): a lead byte before it is an error.
    table["\x1b"] = _RUN_SEP
    for lead in range(0x21, 0x7F):
        table[chr(lead) + "\x1b"] = _FFFD + _RUN_SEP
    return table


_SPLIT_PATTERNS["ISO-2022-JP-lead"] = rb"((?:[\x21-\x7e][\x00-\xff])++)"
_BUILDERS: dict[str, Callable[[], dict[str, str]]] = {
    "ISO-2022-JP-lead": _build_iso2022jp_lead,
    "Shift_JIS": _build_shift_jis,
    "Big5": _build_big5,
    "EUC-KR": _build_euc_kr,
    "EUC-JP": _build_euc_jp,
    "gb18030": _build_gb18030,
}


@dataclass(frozen=True, slots=True)
class _Tokenizer:
    split: re.Pattern[bytes]
    groups: int
    leads: frozenset[int]  # bytes that start a multi-byte token
    sep: bytes  # a lead byte: never inside a run of single-byte tokens (except last in the input)
    singles: str  # charmap_decode table for single-byte tokens; sep maps to _SENTINEL
    pairs: list[str]  # two-byte token, as a native-order uint16, -> output; 0 maps to _SENTINEL
    others: dict[bytes | None, str]  # group-2 tokens -> output


# In no index and in no token table: used to split joined outputs back into runs.
_SENTINEL = "\uffff"
_TOKENIZERS: dict[str, _Tokenizer] = {}
_LITTLE = sys.byteorder == "little"
_LEADS = {
    "Shift_JIS": [*range(0x81, 0xA0), *range(0xE0, 0xFD)],
    "Big5": list(range(0x81, 0xFF)),
    "EUC-KR": list(range(0x81, 0xFF)),
    "EUC-JP": [0x8E, 0x8F, *range(0xA1, 0xFF)],
    "gb18030": list(range(0x81, 0xFF)),
    "ISO-2022-JP-lead": list(range(0x21, 0x7F)),
}


def _tokenizer(name: str) -> _Tokenizer:
    try:
        return _TOKENIZERS[name]
    except KeyError:
        pass
    table = _BUILDERS[name]()
    singles = [chr(b) for b in range(128)] + [_FFFD] * 128
    pairs = [_FFFD] * 65536
    others: dict[bytes | None, str] = _GB18030Others() if name == "gb18030" else {}
    others[None] = ""  # re.split gives None for a group that did not take part in the match
    for key, out in table.items():
        assert _SENTINEL not in out
        raw = key.encode("latin-1")
        if name == "EUC-JP" and raw[0] == 0x8F:
            others[raw] = out
        elif len(raw) == 1:
            singles[raw[0]] = out
        else:
            lead, trail = raw
            pairs[lead | trail << 8 if _LITTLE else lead << 8 | trail] = out
    if name == "EUC-JP":
        others[b"\x8f"] = _FFFD
        for lead in (0x8E, *range(0xA1, 0xFF)):
            # Tokens that end a clean run (see _EUCJP_SPLIT_8F): a lead byte and 8F.
            others[bytes((lead, 0x8F))] = pairs[lead | 0x8F << 8 if _LITTLE else lead << 8 | 0x8F]
        for second in range(0xA1, 0xFF):
            # The JIS X 0212 token 8F L T as folded by _eucjp_fold_0212: the pair (L - 0x80, T).
            # No token of a run has a lead byte 0x21..0x7E, so these entries are otherwise unused.
            for b in range(256):
                lead = second - 0x80
                pairs[lead | b << 8 if _LITTLE else lead << 8 | b] = others[bytes((0x8F, second, b))]
    sep = _LEADS[name][-1]
    singles[sep] = _SENTINEL
    assert pairs[0] == _FFFD  # 00 00 is no token: free to act as the run separator
    pairs[0] = _SENTINEL
    split = re.compile(_SPLIT_PATTERNS[name])
    tok = _Tokenizer(split, split.groups, frozenset(_LEADS[name]), bytes([sep]), "".join(singles), pairs, others)
    _TOKENIZERS[name] = tok
    return tok


# EUC-JP with 0x8F in the input (JIS X 0212): runs of clean tokens, where no byte 8F is a trail
# byte and every 8F starts a three-byte token 8F L T (L in A1..FE, T not 8F); group 2 is any other
# token with an 8F (a lead and 8F; 8F L 8F; 8F and a byte outside A1..FE), or 8F / 8F L cut by the
# end of the input. Tokens are the decoder's either way: from a token start, a lead byte followed
# by a byte other than 8F starts a clean token, and every other case is in group 2. In a clean run
# the bytes 8F are exactly the token starts of the three-byte tokens, which _eucjp_fold_0212 turns
# into pairs (every token then two bytes, for the uint16 table).
_EUCJP_SPLIT_8F = _lazy.pattern(__name__, "_EUCJP_SPLIT_8F",
    rb"((?:[\x8e\xa1-\xfe][^\x8f]|\x8f[\xa1-\xfe][^\x8f])++)"
    rb"|([\x8e\xa1-\xfe]\x8f|\x8f(?:[\xa1-\xfe](?:\x8f|\Z)|[^\xa1-\xfe]|\Z))"
)
_EUCJP_8F_FLAG = bytes(0x80 if b == 0x8F else 0 for b in range(256))
_FAST_RUN = 4096  # bytes; a run with 8F at least this long is first offered to the fast path


def _eucjp_fold_0212(runs: bytes) -> bytes:
    """Clean EUC-JP runs (see ``_EUCJP_SPLIT_8F``; bytes, joined by ``00 00``) with each three-byte
    token 8F L T rewritten as the two bytes L-0x80 (0x21..0x7E, a lead byte no run token has) and
    T, so that every token is two bytes at an even offset. The byte after each 8F is flagged by a
    ``translate`` shifted one byte on (big-integer arithmetic, one C pass each), cleared of its bit
    7, and the 8F bytes, now the only ones (L-0x80 and T are not 8F), are deleted."""
    n = len(runs)
    flags = int.from_bytes(runs.translate(_EUCJP_8F_FLAG), "little") << 8
    folded = (int.from_bytes(runs, "little") ^ flags).to_bytes(n + 1, "little")[:n]
    return folded.replace(b"\x8f", b"")


def _decode_tokens(data: bytes, name: str) -> tuple[str, int]:
    """Spec-exact decode of a stateless multi-byte encoding (Shift_JIS, EUC-JP, EUC-KR, Big5,
    gb18030).

    ``re.split`` cuts the input into runs of single-byte tokens, runs of two-byte tokens and (EUC-JP,
    gb18030) longer tokens. All single-byte runs are joined (with a lead byte as separator) and
    decoded by one ``charmap_decode``; all two-byte runs are joined (with ``00 00`` as separator),
    read as an ``array("H")`` so each token becomes one integer, and mapped through a 65,536-entry
    list; the outputs are split back on a sentinel and interleaved. No Python-level
    loop runs per byte or per token. (EUC-JP input with 8F: see ``_EUCJP_SPLIT_8F`` and
    ``_eucjp_fold_0212``.)
    """
    tok = _tokenizer(name)
    with_8f = name == "EUC-JP" and b"\x8f" in data
    parts = (_EUCJP_SPLIT_8F if with_8f else tok.split).split(data)
    step = tok.groups + 1
    singles = parts[0::step]
    # A lead byte is left in a single-byte run only as the last byte of the input: one error.
    tail = ""
    last = singles[-1]
    if last and last[-1] in tok.leads:
        singles[-1] = last[:-1]
        tail = _FFFD
    single_text = codecs.charmap_decode(tok.sep.join(singles), "strict", tok.singles)[0]
    parts[0::step] = single_text.split(_SENTINEL)
    runs = parts[1::step]
    if runs:
        if step == 3:
            runs = [r or b"" for r in runs]
        fast_runs: dict[int, str] = {}
        if with_8f and "EUC-JP" in _FAST:
            # A run is whole tokens, decoded from the initial state to the initial state: its decode
            # alone is its part of the whole decode, and the fast path (when it applies) is that
            # decode. Tried on long runs only: it costs a codec call per run.
            for i, r in enumerate(runs):
                if len(r) >= _FAST_RUN and b"\x8f" in r:
                    fast = _fast(r, "EUC-JP")
                    if fast:
                        fast_runs[i] = fast[0]
            if fast_runs:
                runs = [b"" if i in fast_runs else r for i, r in enumerate(runs)]
        joined = b"\x00\x00".join(runs)
        if with_8f and b"\x8f" in joined:
            joined = _eucjp_fold_0212(joined)
        # array("H") reads each two-byte token as one native uint16 (a memcpy); str.translate or a
        # UTF-16 decode would not do: they pair up surrogate-valued tokens.
        run_texts = "".join(map(tok.pairs.__getitem__, array("H", joined))).split(_SENTINEL)
        for i, text in fast_runs.items():
            run_texts[i] = text
        parts[1::step] = run_texts
    legit = 0
    if step == 3:
        others = parts[2::3]
        # U+FFFD is in no index; only gb18030's four-byte 84 31 A4 37 encodes it validly.
        legit = others.count(b"\x84\x31\xa4\x37") if name == "gb18030" else 0
        parts[2::3] = map(tok.others.__getitem__, others)
    text = "".join(parts) + tail
    return text, text.count(_FFFD) - legit


# Fast path: the closest Python codec, strictly, when its output has no character of the
# disagreement set computed by tools/gen_tables.py (only valid for the Python minor version it was
# computed with).
_FAST_OK = tuple(sys.version_info[:2]) == tuple(_tables.FAST_PATH_PYTHON)

# Presence checks are one C-level pass each: CPython finds a character in a UCS-2/UCS-4 string with
# memchr on its low byte, which is very fast unless that byte is the low byte of a frequent
# character (an ASCII one, in markup): then every such character is a false hit costing a restart,
# and counting (one plain loop, fixed cost) is faster. Which one is cheaper is estimated from the
# frequency of that ASCII character in the first 8,192 characters of the text. Only speed depends
# on this choice, never the result.
_SAMPLE = 8192


def _probe(chars: str) -> Callable[[str, str], object]:
    """The presence test for *chars* in a text: ``str.__contains__``, or for a character whose low
    byte is ASCII, a test that counts instead when that ASCII character is frequent."""
    if len(chars) != 1 or ord(chars) <= 0xFF or ord(chars) & 0xFF >= 0x80:
        return str.__contains__
    ascii_char = chr(ord(chars) & 0xFF)

    def present(text: str, c: str) -> object:
        # More than one false hit per 64 characters: counting is the cheaper full pass.
        if text.count(ascii_char, 0, _SAMPLE) * 64 > min(len(text), _SAMPLE):
            return text.count(c)
        return c in text

    return present


@dataclass(frozen=True, slots=True)
class _FastCodec:
    """One entry of ``_tables.FAST_PATH`` (see tools/gen_tables.py ``analyse_codec``), with a
    presence test chosen per character."""

    codec: str
    slow_chars: tuple[tuple[str, Callable[[str, str], object]], ...]
    # (first byte of the unit, the codec's output for it, presence test for that output, unit)
    slow_units: tuple[tuple[int, str, Callable[[str, str], object], bytes], ...]
    # (char, replacement, errors per occurrence, first bytes of its units, presence test, units)
    fix: tuple[tuple[str, str, int, bytes, Callable[[str, str], object], tuple[bytes, ...]], ...]
    # Some replacement is itself a fixed character (gb18030 swaps U+E7C7 and U+1E3F): the fixes
    # must be applied simultaneously (str.translate) rather than one str.replace after another.
    chained: bool
    # Input -> the disputed units (slow units and fixed characters' units) that are tokens of it,
    # or None (then the text checks decide); only for Big5 (see _big5_scan).
    scan: Callable[[bytes], set[bytes] | None] | None = None


def _fast_codec(entry: tuple, key: str) -> _FastCodec:
    codec, fix, slow_chars, slow_units = entry
    keys = {c for c, *_ in fix}
    units = [u for u, _out in slow_units] + [u for *_, us in fix for u in us]
    return _FastCodec(
        codec,
        tuple((c, _probe(c)) for c in slow_chars),
        tuple((u[0], out, _probe(out), u) for u, out in slow_units),
        tuple((c, rep, err, bytes(sorted({u[0] for u in us})), _probe(c), us) for c, rep, err, us in fix),
        any(rep in keys for _c, rep, *_ in fix),
        _big5_scan(units) if key == "Big5" and codec == "big5hkscs" else None,
    )


# Big5: every disputed unit of big5hkscs is two bytes, A1 or A2 and a trail byte, and six of their
# characters share their low byte with an ASCII character frequent in markup (", <, >, d, tab), so that
# each of their text checks is a full pass over the text. On input big5hkscs decoded strictly, the
# units are looked for in the input instead (one regex per lead byte, a literal-prefix scan), and
# each occurrence is a token or not according to the bytes before it (see _big5_token_start). Pages
# where A1 or A2 is frequent (the A1 row is Big5's punctuation) keep the text checks: there the
# scan stops at every A1. Only speed depends on that choice.
_BIG5_HIGH_RUN = _lazy.pattern(__name__, "_BIG5_HIGH_RUN", rb"[\xa1-\xfe]*+")
_BIG5_WINDOW = 512  # bytes looked at before an occurrence
_BIG5_MAX_MISALIGNED = 64  # occurrences per lead byte that are no token, before giving up


def _big5_token_start(data: bytes, p: int) -> bool | None:
    """Whether byte offset *p* of *data*, which big5hkscs decoded strictly, starts a token; None
    when the bytes A1..FE before *p* fill the window. In such input every lead byte (81..FE) takes
    the next byte as its trail (40..7E or A1..FE), so a byte below 0x80 (a single-byte token or a
    trail byte) is followed by a token start, a byte 81..A0 is a lead byte (no trail byte is), and
    a run of bytes A1..FE that follows a token start pairs up from its start."""
    lo = max(0, p - _BIG5_WINDOW)
    k = _BIG5_HIGH_RUN.match(data[lo:p][::-1]).end()  # bytes A1..FE right before p
    q = p - k
    if q == 0:
        return k % 2 == 0
    if q == lo:
        return None
    # data[q - 1] is below 0x80 (q starts a token) or 81..A0 (a lead byte: q + 1 starts a token).
    return k % 2 == (0 if data[q - 1] < 0x80 else 1)


def _big5_scan(units: list[bytes]) -> Callable[[bytes], set[bytes] | None]:
    """The scan of the input for *units* (big5hkscs's disputed units, bytes) described above."""
    leads = sorted({u[0] for u in units})
    # Two-byte units whose lead bytes are A1..FE (where _big5_token_start looks back from) and whose
    # trail bytes are no lead byte of a unit: a match of one lead's pattern cannot hide another.
    assert all(len(u) == 2 and 0xA1 <= u[0] <= 0xFE and u[1] not in leads for u in units), units
    patterns = []
    for lead in leads:
        trails = bytes(sorted(u[1] for u in units if u[0] == lead))
        patterns.append((bytes([lead]), re.compile(re.escape(bytes([lead])) + b"[" + re.escape(trails) + b"]")))

    def scan(data: bytes) -> set[bytes] | None:
        """The units that are tokens of *data* (or whose alignment the window leaves open); None
        when the text checks are cheaper (a lead byte frequent in 8 samples of 1,024 bytes spread
        over the input: pages often start with kilobytes of ASCII) or too many occurrences are
        misaligned."""
        step = max(len(data) // 8, 1024)
        for lead, _pattern in patterns:
            hits = sampled = 0
            for start in range(0, len(data), step):
                hits += data.count(lead, start, start + 1024)
                sampled += min(1024, len(data) - start)
            if hits * 64 > sampled:
                return None
        found: set[bytes] = set()
        for lead, pattern in patterns:
            misaligned = 0
            # A match's second byte is no lead byte of a unit, so matches cannot hide one another.
            for m in pattern.finditer(data):
                unit = m.group()
                if unit in found:
                    continue
                if _big5_token_start(data, m.start()) is False:
                    misaligned += 1
                    if misaligned > _BIG5_MAX_MISALIGNED:
                        return None
                else:
                    found.add(unit)
        return found

    return scan


# encoding -> Python codecs tried in order.
_FAST: dict[str, tuple[_FastCodec, ...]] = (
    {key: tuple(_fast_codec(entry, key) for entry in chain) for key, chain in _tables.FAST_PATH.items()}
    if _FAST_OK
    else {}
)


def _fast(data: bytes, key: str) -> tuple[str, int] | None:
    """The closest Python codec's strict decode, with the generator's fixes applied, when provably
    equal to the standard's decode; else None. For the stateless multi-byte encodings."""
    if data.isascii():
        return data.decode("ascii"), 0
    return _fast_codecs(data, _FAST.get(key, ()))


def _fast_codecs(data: bytes, chain: tuple[_FastCodec, ...]) -> tuple[str, int] | None:
    """Try each codec of *chain* in turn (see :func:`_fast`)."""
    for fc in chain:
        try:
            text = data.decode(fc.codec)
        except UnicodeDecodeError:
            continue
        for c, present in fc.slow_chars:
            if present(text, c):
                return None
        tokens = fc.scan(data) if fc.scan else None
        if tokens is not None:
            # The units that are tokens of the input are known: a slow unit among them sends the
            # input to the slow path, a fixed character is replaced when one of its units is.
            if any(unit in tokens for *_, unit in fc.slow_units):
                return None
            fix = [f for f in fc.fix if not tokens.isdisjoint(f[5])]
        else:
            for lead, out, present, unit in fc.slow_units:
                # Three necessary conditions, cheapest first: a memchr, a text scan, a substring
                # search.
                if lead in data and present(text, out) and unit in data:
                    return None
            fix = fc.fix
        errors = 0
        found: list[tuple[str, str]] = []
        for c, rep, err, leads, present, _units in fix:
            for lead in leads:  # memchr over the input first: the text scan costs more
                if lead in data:
                    break
            else:
                continue
            if present(text, c):
                found.append((c, rep))
                if err:
                    errors += text.count(c) * err
        if found:
            if fc.chained:
                text = text.translate({ord(c): rep for c, rep in found})
            else:
                # One str.replace per character: a C loop, where str.translate looks up a dict per
                # character (~10x the decode itself on CJK text).
                for c, rep in found:
                    text = text.replace(c, rep)
        return text, errors
    return None


# Bytes that no decoder of Shift_JIS, EUC-JP, EUC-KR, Big5 or gb18030 ever consumes as part of a
# multi-byte sequence (trail bytes start at 0x40 or 0xA1; gb18030's digits are 0x30..0x39). Before
# such a byte the decoder is in its initial state or has a pending sequence that the byte ends with
# one error, the byte being read again: exactly what the end of input does to the same pending
# sequence -- except gb18030's pending "lead digit" and "lead digit lead", which the end of input
# swallows whole, so no cut is made after a digit or after a digit and a lead there.
_SAFE_CUT = _lazy.pattern(__name__, "_SAFE_CUT", rb"[\x00-\x2f\x3a-\x3f]")
_CHUNK = 16384  # bytes; the slow path re-decodes only the chunks that need it


def _chunks(data: bytes, key: str):
    start, n, chunk = 0, len(data), _CHUNK
    while n - start > 2 * chunk:
        pos = start + chunk
        while True:
            m = _SAFE_CUT.search(data, pos)
            if m is None:
                yield data[start:]
                return
            p = m.start()
            if key != "gb18030" or not (
                0x30 <= data[p - 1] <= 0x39 or (0x81 <= data[p - 1] <= 0xFE and 0x30 <= data[p - 2] <= 0x39)
            ):
                break
            pos = p + 1
        yield data[start:p]
        start = p
    yield data[start:]


def _decode_multibyte(data: bytes, name: str) -> tuple[str, int]:
    if _core is not None:
        return _core.decode_multibyte(data, name)
    return _decode_multibyte_pure(data, name)


def _decode_multibyte_pure(data: bytes, name: str) -> tuple[str, int]:
    key = "gb18030" if name == "GBK" else name  # the GBK decoder is the gb18030 decoder
    fast = _fast(data, key)
    if fast is not None:
        return fast
    if len(data) <= 2 * _CHUNK:
        return _decode_tokens(data, key)
    # Decoding chunks cut at the boundaries above and concatenating equals decoding the whole, so
    # only the chunks with errors or disagreement characters take the slow path.
    out: list[str] = []
    errors = 0
    for chunk in _chunks(data, key):
        text, e = _fast(chunk, key) or _decode_tokens(chunk, key)
        errors += e
        out.append(text)
    return "".join(out), errors


# --------------------------------------------------------------------------------------------------
# ISO-2022-JP

# ISO-2022-JP's single-byte states as charmap_decode tables (one output character per byte; U+FFFD
# marks an error, and no valid byte of these states decodes to U+FFFD).
_ISO2022JP_ASCII = "".join(_FFFD if b in (0x0E, 0x0F) or b >= 0x80 else chr(b) for b in range(256))
_ISO2022JP_ROMAN = _ISO2022JP_ASCII[:0x5C] + "\u00a5" + _ISO2022JP_ASCII[0x5D:0x7E] + "\u203e" + _ISO2022JP_ASCII[0x7F:]
_ISO2022JP_KATAKANA = "".join(chr(0xFF61 - 0x21 + b) if 0x21 <= b <= 0x5F else _FFFD for b in range(256))

_ASCII_STATE, _ROMAN, _KATAKANA, _LEAD = range(4)
_ESCAPES = {b"(B": _ASCII_STATE, b"(J": _ROMAN, b"(I": _KATAKANA, b"$@": _LEAD, b"$B": _LEAD}


# Separates the runs of one state when they are decoded together; ESC (never inside a run) is
# the joining byte and decodes to it. A noncharacter, in no index.
_RUN_SEP = "\ufdd0"
_ISO2022JP_TABLES = {
    state: table[:0x1B] + _RUN_SEP + table[0x1C:]
    for state, table in ((_ASCII_STATE, _ISO2022JP_ASCII), (_ROMAN, _ISO2022JP_ROMAN), (_KATAKANA, _ISO2022JP_KATAKANA))
}


def _iso2022jp_runs(state: int, runs: list[bytes]) -> list[str]:
    """Decode ESC-free runs all in *state*, each from the state's start; a leading byte cut by a
    run's end is one error either way (ESC in trailing byte state, or end of queue)."""
    joined = b"\x1b".join(runs)
    if state == _LEAD:
        text = _decode_tokens(joined, "ISO-2022-JP-lead")[0]
    else:
        text = codecs.charmap_decode(joined, "strict", _ISO2022JP_TABLES[state])[0]
    out = text.split(_RUN_SEP)
    assert len(out) == len(runs)
    return out


# ISO-2022-JP fast path: Python's iso2022_jp codec, on inputs of this shape only (checked by one
# match): bytes other than ESC (ASCII state), then any number of escape sequences, each ESC ( B /
# ESC ( J followed by a non-empty run without ESC, or ESC $ @ / ESC $ B followed by a non-empty run
# of bytes 0x21..0x7E; no 0x0E or 0x0F anywhere (checked by memchr). On such an input:
#
# * every ESC starts one of the standard's four escape sequences, so neither decoder sees any other
#   (iso2022_jp also accepts e.g. ESC $ ( B, and passes a lone ESC through: the standard's errors);
# * every escape sequence is followed by a byte that unsets the standard's "ISO-2022-JP output" flag
#   before the next one, so the standard's error for two escape sequences in a row never occurs;
# * the ASCII and Roman runs hold no ESC, 0x0E, 0x0F, and both decoders map each byte alone (a byte
#   0x80..0xFF makes iso2022_jp fail, so the strict decode rejects the input);
# * the JIS X 0208 runs hold only 0x21..0x7E, which both decoders read in pairs from the run's start
#   (iso2022_jp passes C0 controls through in that state, where the standard has errors: the shape
#   excludes them); a run of odd length makes the strict decode fail (a lead byte before ESC or the
#   end of input).
#
# So both decoders read the same units in the same states, and tools/gen_tables.py compared every
# such unit (each byte in the ASCII and Roman states, each pair 0x21..0x7E after ESC $ @ and
# ESC $ B): the disagreements are fixed or sent to the slow path exactly as for the other codecs.
#
# The match is one sre repeat over the escape sequences and their runs; its cost is mostly per
# iteration, so the usual alternation (a JIS X 0208 run, then an ASCII or Roman run) is unrolled to
# four runs per iteration, with fewer as fallbacks: every alternative takes the next runs of the one
# parse (each run is maximal), so the match ends where the plain (J|A)*+ would.
_ISO2022JP_J = rb"\x1b\$[@B][\x21-\x7e]++"  # ESC $ @ or ESC $ B and a JIS X 0208 run
_ISO2022JP_A = rb"\x1b\([BJ][^\x1b]++"  # ESC ( B or ESC ( J and an ASCII or Roman run
_ISO2022JP_SHAPE = _lazy.pattern(__name__, "_ISO2022JP_SHAPE",
    rb"[^\x1b]*+(?:%s|%s|%s|%s)*+"
    % (_ISO2022JP_J + _ISO2022JP_A + _ISO2022JP_J + _ISO2022JP_A, _ISO2022JP_J + _ISO2022JP_A, _ISO2022JP_J, _ISO2022JP_A)
)


def _fast_iso2022jp(data: bytes) -> tuple[str, int] | None:
    """Python's iso2022_jp, fixed as the generator proved, on inputs of the shape above; else None."""
    chain = _FAST.get("ISO-2022-JP")
    if not chain or b"\x0e" in data or b"\x0f" in data or _ISO2022JP_SHAPE.match(data).end() != len(data):
        return None
    return _fast_codecs(data, chain)


def _decode_iso2022jp(data: bytes, name: str) -> tuple[str, int]:
    if _core is not None:
        return _core.decode_multibyte(data, name)
    return _decode_iso2022jp_pure(data, name)


def _decode_iso2022jp_pure(data: bytes, _name: str) -> tuple[str, int]:
    if data.isascii() and b"\x1b" not in data and b"\x0e" not in data and b"\x0f" not in data:
        return data.decode("ascii"), 0
    return _fast_iso2022jp(data) or _decode_iso2022jp_slow(data)


def _decode_iso2022jp_slow(data: bytes) -> tuple[str, int]:
    """Spec-exact ISO-2022-JP decoder (any input)."""
    # Pass 1, the state machine over escape sequences: the run between two ESC bytes is decoded
    # in one state throughout. Pass 2 decodes all runs of each state in one batch.
    runs: tuple[list[bytes], ...] = ([], [], [], [])
    order: list[int | str] = []  # a state (its next run) or a literal error
    state = output_state = _ASCII_STATE
    output = False  # "ISO-2022-JP output": true right after an escape sequence
    i, n = 0, len(data)
    while True:
        j = data.find(b"\x1b", i)
        run = data[i:] if j < 0 else data[i:j]
        if run:
            runs[state].append(run)
            order.append(state)
            output = False
        if j < 0:
            break
        # Escape start at j.
        esc = data[j + 1 : j + 3]
        new = _ESCAPES.get(esc) if len(esc) == 2 else None
        if new is not None:
            state = output_state = new
            if output:  # two escape sequences in a row
                order.append(_FFFD)
            output = True
            i = j + 3
            continue
        # Not an escape sequence: error, and the bytes after ESC are read again in the output state.
        order.append(_FFFD)
        output = False
        state = output_state
        i = j + 1
        if i >= n:
            break
    decoded = [iter(_iso2022jp_runs(k, r)) if r else iter(()) for k, r in enumerate(runs)]
    text = "".join([x if isinstance(x, str) else next(decoded[x]) for x in order])
    # No valid byte sequence of ISO-2022-JP decodes to U+FFFD: each one is an error.
    return text, text.count(_FFFD)


_DECODERS: dict[str, Callable[[bytes, str], tuple[str, int]]] = {}
for _name in ENCODING_NAMES:
    if _name in _CHARMAPS:
        _DECODERS[_name] = _decode_single_byte
_DECODERS.update(
    {
        "UTF-8": _decode_utf8,
        "UTF-16BE": _decode_utf16,
        "UTF-16LE": _decode_utf16,
        "replacement": _decode_replacement,
        "ISO-2022-JP": _decode_iso2022jp,
        "Shift_JIS": _decode_multibyte,
        "EUC-JP": _decode_multibyte,
        "EUC-KR": _decode_multibyte,
        "Big5": _decode_multibyte,
        "GBK": _decode_multibyte,
        "gb18030": _decode_multibyte,
    }
)
assert set(_DECODERS) == set(ENCODING_NAMES), set(ENCODING_NAMES) ^ set(_DECODERS)

_FAMILIES = {
    _decode_single_byte: "single-byte",
    _decode_multibyte: "multi-byte",
    _decode_utf8: "UTF-8",
    _decode_utf16: "UTF-16",
    _decode_iso2022jp: "ISO-2022-JP",
    _decode_replacement: "replacement",
}


def decoder_family(encoding: str) -> str | None:
    """Which of the Encoding Standard's decoders *encoding* (a canonical name) runs: ``single-byte``
    (the "single-byte decoder", also x-user-defined's here), ``multi-byte`` (the gb18030/GBK,
    Big5, EUC-JP, Shift_JIS and EUC-KR decoders, which keep no state between characters),
    ``UTF-8``, ``UTF-16``, ``ISO-2022-JP`` (stateful: escapes switch modes) or ``replacement``;
    None for a name that is not a canonical encoding name. For code that reasons about decoders
    (:mod:`redecode.equivalence`)."""
    return _FAMILIES.get(_DECODERS.get(encoding))  # type: ignore[arg-type]


def decode_spec_path(data: bytes, encoding: str) -> tuple[str, int]:
    """``(text, errors)`` of *data* by the spec-exact path of a multi-byte or ISO-2022-JP decoder,
    never the fast path through a Python codec (``tools/gen_tables.py`` proves the fast path equal
    to it). No BOM sniffing. ``KeyError`` for another encoding."""
    if encoding == "ISO-2022-JP":
        return _decode_iso2022jp_slow(data)
    if _DECODERS[encoding] is not _decode_multibyte:
        raise KeyError(f"{encoding} has no spec path apart from its decoder")
    return _decode_tokens(data, encoding)

# --------------------------------------------------------------------------------------------------
# The compiled core (lib/redecode/_core.pyx; see redecode.native): the same decoders as C loops
# straight from the index tables. The pure-Python decoders above stay the reference and the fallback
# (tests/test_core.py proves both give the same text and error count).

#: The pure-Python decoders by encoding name: the reference, and what runs without the compiled
#: core. (_DECODERS holds the functions above, which call the compiled core when there is one.)
_PURE_DECODERS: dict[str, Callable[[bytes, str], tuple[str, int]]] = {
    name: {
        _decode_single_byte: _decode_single_byte_pure,
        _decode_multibyte: _decode_multibyte_pure,
        _decode_iso2022jp: _decode_iso2022jp_pure,
        _decode_utf8: _decode_utf8_pure,
    }.get(fn, fn)
    for name, fn in _DECODERS.items()
}


def _decode_utf8_core(data: bytes, _name: str) -> tuple[str, int]:
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError:
        pass
    # The errors are counted on the bytes (no scan of the text); CPython's "replace" is the
    # standard's decoder (see _decode_utf8).
    return data.decode("utf-8", "replace"), _core.utf8_errors(data)


@dataclass(frozen=True, slots=True)
class Utf8DecodeResult:
    """The result of :func:`decode_to_utf8`: the text as UTF-8 bytes.

    ``utf8``: ``text.encode("utf-8")`` of the :class:`DecodeResult` text (bytes); ``length``: the
    text's length in code points (``len(text)``); ``encoding``, ``errors``, ``bom_removed``: as in
    :class:`DecodeResult`.
    """

    utf8: bytes
    length: int
    encoding: str
    errors: int
    bom_removed: bool


def decode_to_utf8(data: bytes, encoding: str, *, bom_sniff: bool = True) -> Utf8DecodeResult | None:
    """Encoding Standard "decode" as :func:`decode` does it, the text given as UTF-8 bytes and its
    length without building a ``str`` (what a writer of UTF-8 files needs): ``utf8`` equals
    ``decode(data, encoding, bom_sniff=bom_sniff).text.encode("utf-8")``, the other fields equal
    its. For valid UTF-8 input ``utf8`` is the input itself (after the BOM, when one is removed).

    Returns None where only :func:`decode` can answer: without the compiled core
    (:mod:`redecode.native`), and for UTF-16BE/LE and replacement. Raises ``LookupError`` as
    :func:`decode` does.
    """
    if _core is None:
        _resolve(b"", encoding, False)  # the same LookupError for an unknown label
        return None
    if type(data) is bytes and encoding in _DECODERS and not (bom_sniff and data.startswith(_BOMS)):
        name, bom = encoding, False  # (what _resolve gives: a name, bytes, no BOM)
    else:
        name, data, bom = _resolve(data, encoding, bom_sniff)
    r = _core.decode_to_utf8(data, name)
    if r is None:
        return None
    return _new_utf8(r[0], r[1], name, r[2], bom)


_new_utf8 = unchecked_new(Utf8DecodeResult)  # (Utf8DecodeResult(...), as _new_result)


#: The compiled decoders by encoding name (empty without the compiled core).
_CORE_DECODERS: dict[str, Callable[[bytes, str], tuple[str, int]]] = {}
if _core is not None:
    for _name, _fn in _DECODERS.items():
        _CORE_DECODERS[_name] = {
            _decode_single_byte: _core.decode_single_byte,
            _decode_multibyte: _core.decode_multibyte,
            _decode_iso2022jp: _core.decode_multibyte,
            _decode_utf8: _decode_utf8_core,
        }.get(_fn, _fn)
