"""Pages of the language corpus (issue 30, item 6), generated from ``tests/data/language/texts.jsonl``.

Each text (a title and a sentence in one language, see ``tools/make_language_corpus.py``) is
encoded in every legacy encoding of the Encoding Standard that can hold it: the bytes' Encoding
Standard decode (:func:`redecode.decode.decode`) must equal the text, else the encoding is left
out. Which encodings are tried (:func:`encodings_for`): those of the language's script
(:data:`SCRIPT_ENCODINGS`): for Chinese GBK, gb18030 and Big5, for Japanese Shift_JIS, EUC-JP
and ISO-2022-JP, for Korean EUC-KR, for Cyrillic, Greek, Hebrew, Arabic and Thai the single-byte
encodings of that script, for Latin-script languages the Latin single-byte ones. (gb18030 holds
any text, EUC-KR and Shift_JIS hold Cyrillic and Greek, windows-1256 holds é: no page in those
languages is written so, and the pages would only repeat ASCII-compatible readings.) Characters an
encoding lacks are written as its authors wrote them (:data:`FALLBACKS`: ‐ as -, ’ as ', ș as ş,
Persian ی as ي...), only for that encoding; a text that still does not fit is left out of it.
Vietnamese in windows-1258 is written as that encoding writes it (base letter, then a combining
tone mark: the decode is that form, not NFC). Texts with no non-ASCII character are left out
(every ASCII-compatible reading is the same text).

Then each encoded text becomes pages (:func:`pages`), in two sizes: ``short`` (a title and one
sentence, about 300 bytes) and ``long`` (the same inside about 20 KB of ASCII markup and
boilerplate: scripts, styles, navigation, a footer; the text sits in the middle). For each size:

- ``right``: declared with its encoding's name, in a ``<meta charset>`` (``meta``) or the HTTP
  header's ``charset`` (``header``);
- ``sibling``: declared with the name of each confusable sibling of its encoding
  (:data:`SIBLINGS`, the families of issue 30 item 2), meta and header; where the sibling's decode
  gives the same text the page is counted with the right declarations (class ``equivalent``),
  else it is a lie (class ``lie``);
- ``undeclared``: no charset anywhere (``text/html``, no meta), no URL.

A page is right when the text a rule set gives equals the standard's decode of the page with the
encoding the text was written in. Pages with the same bytes and the same declaration are produced
once. The split (``dev``/``test``) is the text's.
"""

from __future__ import annotations

import codecs
import json
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from redecode.decode import decode

TEXTS = Path(__file__).resolve().parent / "data" / "language" / "texts.jsonl"

#: Confusable siblings (issue 30, item 2): an encoding's lie candidates are the others of its
#: family. windows-1258 joins the Latin family: Vietnamese under windows-1252 is one of the
#: lies the issue's held-out set has.
FAMILIES: dict[str, tuple[str, ...]] = {
    "cyrillic": ("KOI8-R", "KOI8-U", "windows-1251", "ISO-8859-5", "IBM866", "x-mac-cyrillic"),
    "latin": ("windows-1252", "ISO-8859-2", "windows-1250", "windows-1254", "windows-1257",
              "ISO-8859-13", "ISO-8859-3", "ISO-8859-4", "ISO-8859-15", "ISO-8859-16",
              "windows-1258"),
    "greek": ("ISO-8859-7", "windows-1253"),
    "hebrew": ("ISO-8859-8", "windows-1255"),
    "arabic": ("ISO-8859-6", "windows-1256"),
    "japanese": ("Shift_JIS", "EUC-JP", "ISO-2022-JP"),
    "chinese": ("GBK", "gb18030", "Big5"),
    "korean": ("EUC-KR",),
}
SIBLINGS: dict[str, tuple[str, ...]] = {
    enc: tuple(e for e in fam if e != enc) for fam in FAMILIES.values() for enc in fam}

#: Every single-byte encoding of the Encoding Standard (ISO-8859-8-I decodes as ISO-8859-8 and
#: is left out; windows-1252 is also ISO-8859-1's).
SINGLE_BYTE = ("IBM866", "ISO-8859-2", "ISO-8859-3", "ISO-8859-4", "ISO-8859-5", "ISO-8859-6",
               "ISO-8859-7", "ISO-8859-8", "ISO-8859-10", "ISO-8859-13", "ISO-8859-14",
               "ISO-8859-15", "ISO-8859-16", "KOI8-R", "KOI8-U", "macintosh", "windows-874",
               "windows-1250", "windows-1251", "windows-1252", "windows-1253", "windows-1254",
               "windows-1255", "windows-1256", "windows-1257", "windows-1258", "x-mac-cyrillic")
LATIN = ("windows-1252", "windows-1250", "windows-1254", "windows-1257", "windows-1258",
         "ISO-8859-2", "ISO-8859-3", "ISO-8859-4", "ISO-8859-10", "ISO-8859-13", "ISO-8859-14",
         "ISO-8859-15", "ISO-8859-16", "macintosh")
#: family (tools/make_language_corpus.py) -> the encodings its texts are written in
SCRIPT_ENCODINGS: dict[str, tuple[str, ...]] = {
    "cyrillic": FAMILIES["cyrillic"], "greek": FAMILIES["greek"], "hebrew": FAMILIES["hebrew"],
    "arabic": FAMILIES["arabic"], "thai": ("windows-874",), "japanese": FAMILIES["japanese"],
    "korean": FAMILIES["korean"], "chinese": FAMILIES["chinese"],
    **{f: LATIN for f in ("western", "central", "turkish", "baltic", "south-european",
                          "vietnamese")},
}
assert all(set(v) <= set(SINGLE_BYTE) | {"GBK", "gb18030", "Big5", "Shift_JIS", "EUC-JP",
                                         "ISO-2022-JP", "EUC-KR"} for v in SCRIPT_ENCODINGS.values())

#: How authors wrote a character their encoding lacks (used only where the encoding lacks it).
FALLBACKS: dict[str, str] = {
    "\u2010": "-", "\u2011": "-", "\u2013": "-", "\u2014": "-", "\u2019": "'", "\u2018": "'",
    "\u02bc": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2026": "...", "\u00a0": " ", "\u2318": "Cmd",
    "\u0219": "\u015f", "\u021b": "\u0163", "\u0218": "\u015e", "\u021a": "\u0162",  # ș ț -> ş ţ
    "\u06cc": "\u064a", "\u06a9": "\u0643", "\u0654": "", "\u066c": ",",  # Persian in Arabic encodings
}

#: Python codecs tried first for the multi-byte encodings (each result is checked against the
#: standard's decoder; characters they refuse are looked up in the decoder's own table).
_PY_CODEC = {"GBK": "gbk", "gb18030": "gb18030", "Big5": "big5hkscs", "Shift_JIS": "cp932",
             "EUC-JP": "euc_jp", "ISO-2022-JP": "iso2022_jp", "EUC-KR": "cp949"}

FAMILY_OF = {enc: fam for fam, encs in FAMILIES.items() for enc in encs}


@dataclass(frozen=True, slots=True)
class Text:
    id: str
    source: str
    lang: str
    family: str
    split: str
    title: str
    sentence: str


@dataclass(frozen=True, slots=True)
class Page:
    text: Text
    encoding: str          # the encoding the page was written in
    size: str              # short | long
    where: str             # meta | header | none
    label: str | None      # the declared label (None: undeclared)
    kind: str              # right | equivalent | lie | undeclared
    payload: bytes
    content_type: str
    truth: str             # the standard's decode of the payload with `encoding`

    @property
    def declared(self) -> bool:
        return self.kind in ("right", "equivalent")


def load_texts(path: Path = TEXTS) -> list[Text]:
    with open(path, encoding="utf-8") as f:
        return [Text(**{k: v for k, v in json.loads(line).items() if k in Text.__slots__})
                for line in f if line.strip()]


@cache
def _reverse(encoding: str) -> dict[str, bytes]:
    """Character -> bytes from the standard decoder: every byte and byte pair it reads as one
    character without error (the first, i.e. lowest, sequence wins)."""
    out: dict[str, bytes] = {}
    for b in range(256):
        r = decode(bytes([b]), encoding, bom_sniff=False)
        if not r.errors and len(r.text) == 1:
            out.setdefault(r.text, bytes([b]))
    if encoding not in SINGLE_BYTE and encoding != "ISO-2022-JP":
        for lead in range(0x81, 0xFF):
            for trail in range(0x40, 0xFF):
                seq = bytes([lead, trail])
                r = decode(seq, encoding, bom_sniff=False)
                if not r.errors and len(r.text) == 1:
                    out.setdefault(r.text, seq)
    return out


def _windows_1258_form(text: str) -> str:
    """Vietnamese as windows-1258 writes it: NFD, then the base letters it has precomposed
    (â ê ô ă ơ ư đ and their capitals, plus Latin-1 letters) composed again; tone marks stay
    combining."""
    rev = _reverse("windows-1258")
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", text):
        if out and unicodedata.combining(ch):
            composed = unicodedata.normalize("NFC", out[-1] + ch)
            if len(composed) == 1 and composed in rev:
                out[-1] = composed
                continue
        out.append(ch)
    return "".join(out)


def encode(text: str, encoding: str) -> tuple[str, bytes] | None:
    """``(text as written in *encoding*, bytes)`` whose standard decode is that text, or None
    when *encoding* cannot hold *text*."""
    if encoding == "windows-1258":
        text = _windows_1258_form(text)
    text = _fallback(text, encoding)
    data: bytes | None = None
    if encoding in _PY_CODEC:
        try:
            data = text.encode(_PY_CODEC[encoding])
        except UnicodeEncodeError:
            data = None
        if data is not None and decode(data, encoding, bom_sniff=False).text != text:
            data = None
    if data is None and encoding != "ISO-2022-JP":
        rev = _reverse(encoding)
        parts = []
        for ch in text:
            b = ch.encode("ascii") if ch < "\x80" else rev.get(ch)
            if b is None:
                return None
            parts.append(b)
        data = b"".join(parts)
    if data is None:
        return None
    r = decode(data, encoding, bom_sniff=False)
    if r.errors or r.text != text:
        return None
    return text, data


def encodings_for(family: str) -> tuple[str, ...]:
    return SCRIPT_ENCODINGS[family]


def _fallback(text: str, encoding: str) -> str:
    if encoding == "ISO-2022-JP" or all(ch < "\x80" for ch in text):
        return text
    rev = _reverse(encoding)
    return "".join(FALLBACKS.get(ch, ch) if ch >= "\x80" and ch not in rev else ch for ch in text)


def _short(title: str, sentence: str, meta: str) -> str:
    return (f"<!DOCTYPE html>\n<html><head>{meta}<title>{title}</title></head>\n"
            f"<body><h1>{title}</h1>\n<p>{sentence}</p>\n</body></html>\n")


_NAV = "".join(f'<li><a href="/section/{i}/index.html" class="nav-link item-{i}">Section {i}</a></li>\n'
               for i in range(60))
_STYLE = "".join(f".block-{i} {{ margin: {i}px 0; padding: 0 {i % 7}px; color: #{i:02x}{i:02x}a0; }}\n"
                 for i in range(70))
_SCRIPT = "".join(f"  window.dataLayer.push({{event: 'view_{i}', value: {i * 37 % 101}, "
                  f"path: location.pathname}});\n" for i in range(90))
_FOOTER = "".join(f'<a href="https://example.com/legal/{i}">Terms and conditions {i}</a> | '
                  for i in range(40))


def _long(title: str, sentence: str, meta: str) -> str:
    return (f"<!DOCTYPE html>\n<html><head>{meta}<title>{title}</title>\n"
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<style>\n{_STYLE}</style>\n<script>\nwindow.dataLayer = window.dataLayer || [];\n"
            f"{_SCRIPT}</script>\n</head>\n<body>\n<nav><ul>\n{_NAV}</ul></nav>\n"
            f'<main><article><h1>{title}</h1>\n<p>{sentence}</p>\n</article></main>\n'
            f"<footer>{_FOOTER}\n<p>Copyright 2024 Example Inc. All rights reserved.</p></footer>\n"
            f"<script>\n{_SCRIPT}</script>\n</body></html>\n")


SIZES = {"short": _short, "long": _long}


def pages(text: Text, *, sizes: tuple[str, ...] = ("short", "long")) -> Iterator[Page]:
    """Every page of *text* (see the module docstring), deduplicated on (bytes, declaration)."""
    seen: set[tuple[bytes, str]] = set()
    if all(ch < "\x80" for ch in text.title + text.sentence):
        return
    for encoding in encodings_for(text.family):
        enc_t = encode(text.title, encoding)
        enc_s = encode(text.sentence, encoding)
        if enc_t is None or enc_s is None:
            continue
        (title, tb), (sentence, sb) = enc_t, enc_s
        labels = [(encoding, "right")] + [(s, "sibling") for s in SIBLINGS.get(encoding, ())]
        for size in sizes:
            make = SIZES[size]
            variants: list[tuple[str, str | None, str, str]] = []
            for label, kind in labels:
                variants.append(("meta", label, f'<meta charset="{label.lower()}">', "text/html"))
                variants.append(("header", label, "", f"text/html; charset={label.lower()}"))
            variants.append(("none", None, "", "text/html"))
            for where, label, meta, ct in variants:
                # ASCII markup around the encoded title and sentence (ISO-2022-JP: the escapes
                # return to ASCII at the end of each piece, so concatenation is safe)
                skeleton = make("\x00T\x00", "\x00S\x00", meta).encode("ascii")
                payload = skeleton.replace(b"\x00T\x00", tb).replace(b"\x00S\x00", sb)
                key = (payload, ct)
                if key in seen:
                    continue
                seen.add(key)
                truth = make(title, sentence, meta)
                if decode(payload, encoding, bom_sniff=False).text != truth:
                    continue  # cannot happen for ASCII-compatible encodings; guard anyway
                if label is None:
                    kind = "undeclared"
                elif label == encoding:
                    kind = "right"
                elif decode(payload, label, bom_sniff=False).text == truth:
                    kind = "equivalent"
                else:
                    kind = "lie"
                yield Page(text, encoding, size, where, label, kind, payload, ct, truth)


def all_pages(texts: list[Text], *, split: str | None = None,
              sizes: tuple[str, ...] = ("short", "long")) -> Iterator[Page]:
    for t in texts:
        if split is None or t.split == split:
            yield from pages(t, sizes=sizes)
