"""Decoder equivalences: when two decoders provably give the same text for the same bytes.

Contract. Backfill reuses a prior row's text under new rules only when :func:`same_text` proves
that the new rules' decoder gives that text for the record's bytes without reading them. Every
equivalence is computed from the decoders themselves, never listed by hand:

- the same decoder (``decoder`` string, and for ``whatwg`` the same encoding) at the same version
  (``Rules.versions()["decoder"]`` and ``["encoding_standard"]``): same bytes -> same text;
- zero decode errors in the prior row, no BOM, and both decoders single-byte with equal mappings for
  every byte the prior decoder maps (:func:`byte_table`, over all 256 bytes);
- zero decode errors, no BOM, a Python codec whose units are at most two bytes and that has no
  modes (:func:`python_units`, found with its incremental decoder), an Encoding Standard decoder
  that keeps no mode between units (:func:`redecode.decode.decoder_family`), and a prior text
  without any character of the units the two decoders decode differently
  (:func:`units_disagreeing`: e.g. cp932 and Shift_JIS differ only on ``A0``, ``FD``-``FF``; cp949
  and EUC-KR on none);
- zero decode errors, no BOM or a UTF-8 one, and both decoders UTF-8 (a valid UTF-8 payload decodes
  identically in Python's and the Encoding Standard's UTF-8 decoder, both of which reject
  surrogates and overlongs; every procedure removes a UTF-8 BOM);
- an ``ascii_only`` payload under two ASCII-compatible decoders (:func:`ascii_compatible`, checked
  over every ASCII byte and every pair of ASCII bytes, which rules out escape sequences).

A decoder is named by a key: ``("whatwg", encoding)`` or ``("python", codec)``
(:func:`decoder_key`). The tables are computed on first use and cached (``WHATWG_BYTE_TABLES``,
the single-byte table of every Encoding Standard encoding, on first access).

Deviations: none; a pair of decoders not proved equal is treated as different (the record is read
again).
"""

from __future__ import annotations

import codecs
import functools
import sys

from .decode import decode, decoder_family
from .labels import ENCODING_NAMES

__all__ = [
    "WHATWG_BYTE_TABLES",
    "ascii_compatible",
    "byte_table",
    "decoder_key",
    "python_units",
    "same_text",
    "units_disagreeing",
]


def decoder_key(decoder: str | None, encoding: str | None) -> tuple[str, str] | None:
    """``("whatwg", encoding)`` or ``("python", codec)`` from a row's ``decoder``/``encoding``."""
    if decoder == "whatwg" and encoding:
        return ("whatwg", encoding)
    if decoder and decoder.startswith("python:"):
        return ("python", decoder[len("python:"):])
    return None


def _decode_strict(key: tuple[str, str], data: bytes) -> str | None:
    """*data* decoded by *key*'s decoder without BOM sniffing; None on any decode error."""
    family, name = key
    if family == "whatwg":
        r = decode(data, name, bom_sniff=False)
        return None if r.errors else r.text
    try:
        return data.decode(name)
    except (UnicodeDecodeError, LookupError, TypeError, ValueError):
        return None


def _decode_replace(key: tuple[str, str], data: bytes) -> str | None:
    """*data* decoded by *key*'s decoder without BOM sniffing, errors as U+FFFD; None if the
    Python codec does not exist."""
    family, name = key
    if family == "whatwg":
        return decode(data, name, bom_sniff=False).text
    try:
        return data.decode(name, errors="replace")
    except (LookupError, TypeError, ValueError):
        return None


def _single_byte_by_construction(key: tuple[str, str]) -> bool:
    """Whether *key*'s decoder is stateless single-byte by construction: this project's
    Encoding Standard "single-byte decoder" (and x-user-defined, which shares it), or a Python
    codec that decodes with a 256-entry charmap (``decoding_table``) or with the C latin-1 /
    ASCII decoders. (Behavioural tests alone cannot see a 3-byte escape such as ISO-2022-JP's
    ``ESC ( J``; the construction can.)"""
    family, name = key
    if family == "whatwg":
        return decoder_family(name) == "single-byte"
    try:
        info = codecs.lookup(name)
    except LookupError:
        return False
    if info.decode in (codecs.latin_1_decode, codecs.ascii_decode):
        return True
    module = sys.modules.get(getattr(info.decode, "__module__", "") or "")
    table = getattr(module, "decoding_table", None)
    return isinstance(table, str) and len(table) == 256


@functools.cache
def byte_table(key: tuple[str, str]) -> tuple[str | None, ...] | None:
    """The 256-entry table of a single-byte decoder (``None`` where the byte is an error), or None
    when the decoder is not single-byte. Single-byte means: the decoder is built as one (the
    Encoding Standard's single-byte decoder, :func:`_single_byte_by_construction`; a Python
    charmap codec); and, checked here: every byte alone decodes to one
    character or is an error; all 256 bytes at once (forwards and backwards) give those
    characters; and every byte that is an error alone (a multi-byte decoder's lead bytes are:
    they are incomplete at the end of the input) is still an error followed by the next byte's
    own character when any of the 256 bytes follows it, i.e. it starts no sequence."""
    if not _single_byte_by_construction(key):
        return None
    singles: list[str | None] = []
    for b in range(256):
        t = _decode_strict(key, bytes([b]))
        if t is not None and len(t) != 1:
            return None
        singles.append(t)
    valid = bytes(b for b in range(256) if singles[b] is not None)
    for order in (valid, valid[::-1]):
        t = _decode_strict(key, order)
        if t is None or t != "".join(singles[b] for b in order):  # type: ignore[misc]
            return None
    rep = [c if c is not None else "\ufffd" for c in singles]
    for x in range(256):
        if singles[x] is None:
            data = b"".join(bytes([x, y]) for y in range(256))
            if _decode_replace(key, data) != "".join("\ufffd" + rep[y] for y in range(256)):
                return None
    return tuple(singles)


@functools.cache
def ascii_compatible(key: tuple[str, str]) -> bool:
    """Whether every ASCII-only byte string decodes to the same characters under *key*'s decoder:
    checked on every ASCII byte alone and every pair of ASCII bytes (a stateful decoder such as
    ISO-2022-JP or UTF-7 fails on its escape's first two bytes)."""
    for a in range(128):
        if _decode_strict(key, bytes([a])) != chr(a):
            return False
    if key[0] == "python":
        for a in range(128):
            for b in range(128):
                if _decode_strict(key, bytes([a, b])) != chr(a) + chr(b):
                    return False
        return True
    # The Encoding Standard's decoders are slower in Python: one decode per first byte of all
    # pairs "a b" for b in 0..127, separated so that each pair starts in the initial state:
    # a stateless decoder gives back the input; an escape-driven one does not.
    for a in range(128):
        data = b"".join(bytes([a, b]) for b in range(128))
        if _decode_strict(key, data) != data.decode("ascii"):
            return False
    return True


@functools.cache
def python_units(codec: str) -> dict[bytes, str] | None:
    """Every unit a Python codec decodes from its initial state without error -- each single byte
    and each two-byte sequence that completes a character -- mapped to its text; None when the
    codec has longer units, modes (a sequence that changes the decoder's state, as ISO-2022's
    and HZ's escapes do) or units that decode to nothing. Found with the codec's incremental
    decoder: after each unit its state must be back to the initial ``(b"", 0)``."""
    try:
        dec = codecs.getincrementaldecoder(codec)("strict")
    except (LookupError, TypeError):
        return None
    initial = (b"", 0)
    units: dict[bytes, str] = {}
    for x in range(256):
        dec.reset()
        try:
            t = dec.decode(bytes([x]), final=False)
            state = dec.getstate()
        except UnicodeDecodeError:
            continue
        if t:
            if state != initial:
                return None
            units[bytes([x])] = t
            continue
        if state != (bytes([x]), 0):
            return None  # consumed silently: a mode switch
        for y in range(256):
            dec.reset()
            try:
                t = dec.decode(bytes([x, y]), final=False)
                state = dec.getstate()
            except UnicodeDecodeError:
                continue
            if not t or state != initial:
                return None  # a unit longer than two bytes, or a mode
            units[bytes([x, y])] = t
    return units


@functools.cache
def units_disagreeing(codec: str, encoding: str) -> frozenset[str] | None:
    """The characters produced by the units of Python codec *codec* (:func:`python_units`) that
    the Encoding Standard decoder of *encoding*, run on the unit alone, decodes differently or
    with an error (e.g. cp932's ``A0`` -> U+F8F0, an error in Shift_JIS; big5hkscs's ``A1 45``
    -> U+2022 where Big5 gives U+2027). None when the decoders cannot be compared unit by unit:
    the codec has longer units or modes, or the standard's decoder is not one that keeps no mode
    between units by construction (its multi-byte, single-byte and UTF-8 decoders).

    A text that *codec* decoded without error and that contains none of these characters is
    made only of units on which both decoders agree, so the standard's decoder gives the same
    text for the same bytes."""
    if decoder_family(encoding) not in ("multi-byte", "single-byte", "UTF-8"):
        return None
    units = python_units(codec)
    if units is None:
        return None
    bad: set[str] = set()
    for unit, text in units.items():
        r = decode(unit, encoding, bom_sniff=False)
        if r.errors or r.text != text:
            bad.update(text)
    return frozenset(bad)


def _is_utf8(key: tuple[str, str]) -> bool:
    return key == ("whatwg", "UTF-8") or (key[0] == "python" and _python_name(key[1]) == "utf-8")


@functools.cache
def _python_name(codec: str) -> str | None:
    try:
        return codecs.lookup(codec).name
    except LookupError:
        return None


def same_text(old: tuple[str, str], new: tuple[str, str], *, errors: int, bom: str | None,
              ascii_only: bool | None, same_version: bool, text: str | None = None) -> bool:
    """Whether decoder *new* provably gives the text that decoder *old* gave with *errors* decode
    errors on a payload with BOM *bom* and ASCII-only flag *ascii_only* (see the module
    docstring). *same_version*: the two rule sets' decoder versions are equal; *text*: the text
    *old* made (for the unit-by-unit comparison of a Python multi-byte codec with the standard's
    decoder)."""
    if old == new and same_version:
        return True
    if errors == 0 and bom in (None, "UTF-8") and _is_utf8(old) and _is_utf8(new):
        # Both UTF-8 decoders give the same text for valid UTF-8, and every path removes a UTF-8
        # BOM: the WHATWG decode sniffs it, the seed procedure strips it (source "bom"),
        # requests strips the leading U+FEFF of a utf* codec's text.
        return True
    if bom is not None:
        # BOM handling differs between the decoders (WHATWG decode sniffs it; the Python-codec
        # procedures strip it in their own ways): read again.
        return False
    if ascii_only and ascii_compatible(old) and ascii_compatible(new):
        return True
    if errors != 0:
        return False
    t_old, t_new = byte_table(old), byte_table(new)
    if t_old is not None and t_new is not None and all(a is None or a == b for a, b in zip(t_old, t_new)):
        return True
    if old[0] == "python" and new[0] == "whatwg" and text is not None:
        bad = units_disagreeing(old[1], new[1])
        return bad is not None and bad.isdisjoint(text)
    return False


def __getattr__(name: str):
    # WHATWG_BYTE_TABLES: every Encoding Standard encoding's single-byte table (None for the
    # multi-byte and stateful ones), computed on first access (each decoder run over all 256 bytes:
    # a few hundred ms that a run, which never replays, does not pay).
    if name == "WHATWG_BYTE_TABLES":
        tables = {enc: byte_table(("whatwg", enc)) for enc in ENCODING_NAMES}
        globals()[name] = tables
        return tables
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
