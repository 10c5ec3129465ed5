"""Decoder throughput: redecode.decode vs the closest Python codec (not a test; not collected).

Run: ``.venv/bin/python tests/benchmarks/bench_decoders.py [--size MB]``.

For each encoding, a synthetic ~1 MB page (ASCII markup around runs of text in the encoding's
script, characters drawn from the index, no characters of the fast-path disagreement set), then:

* ``valid``: ``decode()`` on it vs ``bytes.decode(codec)`` (``ratio`` = decode time / codec time);
* ``slow``: the same page with one invalid byte sequence at the end, which sends the multi-byte
  decoders down the spec-exact path (and UTF-8/UTF-16 down their repair path);
* ``slow-dense``: text of the script only, no ASCII (the worst case for the token path), with one
  invalid byte sequence at the end;
* ``spec-dense``: the same input through the spec-exact path alone, with every fast path disabled
  (also the ones the slow path uses for parts of the input it proved it can hand over).

MB/s are input megabytes (10^6 bytes) per second, best of 25 runs for valid input (decode and codec alternated), of 9 for the slow path.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "lib"))

from redecode import _tables  # noqa: E402
import redecode.decode as _decode_module  # noqa: E402
from redecode.decode import _FAST, decode  # noqa: E402

# encoding -> (closest Python codec, characters to draw text from, invalid tail)
CJK_RANGES = {
    "Shift_JIS": ("cp932", ["\u3041-\u3093", "\u4e00-\u9fa0"], b"\x81\x20"),
    "EUC-JP": ("euc_jp", ["\u3041-\u3093", "\u4e00-\u9fa0"], b"\xa1\x20"),
    "EUC-KR": ("cp949", ["\uac00-\ud7a3"], b"\xa1\x20"),
    "Big5": ("big5hkscs", ["\u4e00-\u9fa0"], b"\x81\x20"),
    "GBK": ("gb18030", ["\u4e00-\u9fa0"], b"\xff"),
    "gb18030": ("gb18030", ["\u4e00-\u9fa0"], b"\xff"),
}
SINGLE = {
    "windows-1252": ("cp1252", "àéèêëïîôöùûüçÀÉÈ«»€"),
    "windows-1251": ("cp1251", "абвгдежзийклмнопрстуфхцчшщьыэюяАБВГД"),
    "KOI8-R": ("koi8_r", "абвгдежзийклмнопрстуфхцчшщьыэюяАБВГД"),
    "ISO-8859-2": ("iso8859_2", "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ"),
    "windows-874": ("cp874", "กขฃคฅฆงจฉชซฌญฎฏ"),
}
MARKUP = '<p class="c">{}</p>\n<a href="/x/y?z=1">{}</a>\n'


def _chars(ranges: list[str], codec: str, name: str) -> list[str]:
    key = "gb18030" if name == "GBK" else name
    # Leave out characters that the fast path fixes up or that send it to the slow path.
    disagree = {c for _codec, fix, slow, _b in _tables.FAST_PATH.get(key, ()) for c in [*slow, *(f[0] for f in fix)]}
    out = []
    for r in ranges:
        lo, hi = ord(r[0]), ord(r[-1])
        for cp in range(lo, hi + 1):
            c = chr(cp)
            if c in disagree:
                continue
            try:
                enc = c.encode(codec)
            except UnicodeEncodeError:
                continue
            if decode(enc, name, bom_sniff=False).text == c:
                out.append(c)
    return out


def page(chars: list[str], size: int, seed: int = 1, ascii_share: bool = True) -> str:
    rng = random.Random(seed)
    parts, n = [], 0
    while n < size:
        a = "".join(rng.choices(chars, k=rng.randint(5, 40)))
        b = "".join(rng.choices(chars, k=rng.randint(2, 10)))
        s = MARKUP.format(a, b) if ascii_share else a + b
        parts.append(s)
        n += len(s) * 2
    return "".join(parts)


def best(fn, data: bytes, runs: int = 9) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn(data)
        times.append(time.perf_counter() - t)
    return min(times)


def best_pair(fa, fb, data: bytes, runs: int = 25) -> tuple[float, float]:
    """Best times of two functions measured alternately (the machine may be shared and noisy)."""
    ta, tb = [], []
    for _ in range(runs):
        t = time.perf_counter()
        fa(data)
        ta.append(time.perf_counter() - t)
        t = time.perf_counter()
        fb(data)
        tb.append(time.perf_counter() - t)
    return min(ta), min(tb)


def mbps(n: int, t: float) -> float:
    return n / t / 1e6


def row(label: str, name: str, codec: str | None, valid: bytes, slow: bytes | None, dense: bytes | None) -> None:
    t_dec, t_codec = best_pair(lambda d: decode(d, name, bom_sniff=False), lambda d: d.decode(codec, "replace"), valid)
    cells = [
        f"{label:14}",
        f"{codec or '-':10}",
        f"valid {mbps(len(valid), t_dec):8.1f} MB/s",
        f"codec {mbps(len(valid), t_codec):8.1f} MB/s",
        f"ratio {t_dec / t_codec:5.2f}",
    ]
    if slow is not None:
        t_slow = best(lambda d: decode(d, name, bom_sniff=False), slow)
        cells.append(f"slow {mbps(len(slow), t_slow):7.1f} MB/s")
    if dense is not None:
        t_dense = best(lambda d: decode(d, name, bom_sniff=False), dense)
        cells.append(f"slow-dense {mbps(len(dense), t_dense):6.1f} MB/s")
        saved, _decode_module._FAST = _decode_module._FAST, {}
        try:
            t_spec = best(lambda d: decode(d, name, bom_sniff=False), dense, runs=3)
        finally:
            _decode_module._FAST = saved
        cells.append(f"spec-dense {mbps(len(dense), t_spec):6.1f} MB/s")
    print("  ".join(cells), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=float, default=1.0, help="page size in MB (default 1)")
    args = ap.parse_args()
    size = int(args.size * 1e6)
    print(f"Python {sys.version.split()[0]}; fast paths: {sorted(_FAST)}; page ~{args.size} MB", flush=True)

    latin = "The quick brown fox jumps over the lazy dog, éàü. "
    text = page(list(latin), size)
    utf8 = text.encode("utf-8")
    row("UTF-8", "UTF-8", "utf-8", utf8, utf8 + b"\xff", None)
    cjk = page(_chars(["\u4e00-\u9fa0"], "utf-8", "UTF-8"), size)
    u8cjk = cjk.encode("utf-8")
    row("UTF-8 (CJK)", "UTF-8", "utf-8", u8cjk, u8cjk + b"\xff", None)
    u16 = cjk.encode("utf-16-le")
    row("UTF-16LE", "UTF-16LE", "utf-16-le", u16, u16 + b"\x00\xd8", None)

    for name, (codec, alphabet) in SINGLE.items():
        data = page(list(alphabet) + list("abc def "), size).encode(codec)
        row(name, name, codec, data, None, None)
    row("x-user-defined", "x-user-defined", "latin-1", bytes(range(256)) * (size // 256), None, None)

    for name, (codec, ranges, bad) in CJK_RANGES.items():
        chars = _chars(ranges, codec, name)
        valid = page(chars, size).encode(codec)
        dense = page(chars, size, ascii_share=False).encode(codec) + bad
        row(name, name, codec, valid, valid + bad, dense)

    jis = page(_chars(["\u3041-\u3093", "\u4e00-\u9fa0"], "iso2022_jp", "ISO-2022-JP"), size // 4).encode("iso2022_jp")
    row("ISO-2022-JP", "ISO-2022-JP", "iso2022_jp", jis, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
