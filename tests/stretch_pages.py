"""Pages of the stretch corpus (issue 29: pages in two encodings), generated from
``tests/data/stretches/texts.jsonl`` (``tools/make_stretch_corpus.py``).

Each language is written in its usual legacy encodings (:data:`LEGACY`: windows-1251 and KOI8-R
for Russian, Shift_JIS and EUC-JP for Japanese...); a text an encoding cannot hold is written as
its authors would (:data:`FALLBACKS`: ’ as ', ș as ş...) or left out. Pages (:func:`pages`), per
language, legacy encoding and article of the UDHR (the page's heading and two paragraphs, three
interface strings of ``django.contrib.auth`` as navigation):

=================  =================================================================================
class              page
=================  =================================================================================
``utf8+para``      a UTF-8 page whose second paragraph (a pasted comment) is in the legacy encoding
``utf8+attr``      a UTF-8 page whose ``alt``/``title`` attributes and a form value are legacy
``en+para``        an English UTF-8 template (typographic quotes, ©) around a legacy paragraph
``legacy+para``    a legacy page with a UTF-8 paragraph (a widget)
``legacy+attr``    a legacy page whose ``alt``/``title`` attributes are UTF-8
``corrupt``        a UTF-8 page with one byte deleted, inserted, replaced, or the page cut inside a
                   character (the text to get is the UTF-8 decode: U+FFFD stays)
``pure-utf8``      the UTF-8 page whole (must not change)
``pure-legacy``    the legacy page whole (must not change)
=================  =================================================================================

Mixed and pure pages come declared in a ``<meta charset>`` (the page's main encoding: UTF-8 for
the UTF-8 pages, the legacy one for the legacy pages), in the HTTP header, or not at all
(``where``: ``meta``, ``header``, ``none``). A page is right when a rule set's text equals
:attr:`Page.truth`: each part decoded (Encoding Standard decoders) with the encoding it was
written in. Deterministic: the choices (which texts, which byte is corrupted) come from a
``random.Random`` seeded with the page's name.
"""

from __future__ import annotations

import json
import random
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from redecode.decode import decode

TEXTS = Path(__file__).resolve().parent / "data" / "stretches" / "texts.jsonl"

#: language -> its usual legacy encodings (the first one is the commonest)
LEGACY: dict[str, tuple[str, ...]] = {
    "ru": ("windows-1251", "KOI8-R"), "uk": ("windows-1251", "KOI8-U"), "bg": ("windows-1251",),
    "sr": ("windows-1251",), "mk": ("windows-1251",), "be": ("windows-1251",),
    **{lang: ("windows-1252",) for lang in ("fr", "de", "es", "it", "pt", "nl", "da", "sv", "nb",
                                           "fi", "is", "ca", "ga")},
    "pl": ("windows-1250", "ISO-8859-2"), "cs": ("windows-1250", "ISO-8859-2"),
    "sk": ("windows-1250",), "sl": ("windows-1250",), "hr": ("windows-1250",),
    "hu": ("windows-1250",), "ro": ("windows-1250",),
    "tr": ("windows-1254",), "et": ("windows-1257",), "lt": ("windows-1257",),
    "lv": ("windows-1257",), "eo": ("ISO-8859-3",), "mt": ("ISO-8859-3",),
    "el": ("windows-1253", "ISO-8859-7"), "he": ("windows-1255",), "ar": ("windows-1256",),
    "fa": ("windows-1256",), "vi": ("windows-1258",), "th": ("windows-874",),
    "zh-Hans": ("GBK",), "zh-Hant": ("Big5",), "ja": ("Shift_JIS", "EUC-JP"), "ko": ("EUC-KR",),
}

#: How authors wrote a character their encoding lacks (used only where it lacks it).
FALLBACKS: dict[str, str] = {
    "\u2010": "-", "\u2011": "-", "\u2013": "-", "\u2014": "-", "\u2019": "'", "\u2018": "'",
    "\u02bc": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2026": "...", "\u00a0": " ",
    "\u0219": "\u015f", "\u021b": "\u0163", "\u0218": "\u015e", "\u021a": "\u0162",
    "\u06cc": "\u064a", "\u06a9": "\u0643", "\u0654": "", "\u066c": ",",
}

_PY_CODEC = {"GBK": "gbk", "Big5": "big5hkscs", "Shift_JIS": "cp932", "EUC-JP": "euc_jp",
             "EUC-KR": "cp949", "KOI8-R": "koi8_r", "KOI8-U": "koi8_u", "windows-874": "cp874",
             **{f"windows-{n}": f"cp{n}" for n in range(1250, 1259)},
             **{f"ISO-8859-{n}": f"iso8859_{n}" for n in (2, 3, 4, 5, 6, 7, 8, 13, 15)}}

CLASSES = ("utf8+para", "utf8+attr", "en+para", "legacy+para", "legacy+attr", "corrupt",
           "pure-utf8", "pure-legacy")
MIXED = ("utf8+para", "utf8+attr", "en+para", "legacy+para", "legacy+attr")


@dataclass(frozen=True, slots=True)
class Text:
    id: str
    lang: str
    family: str
    split: str
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class Page:
    name: str              # lang/encoding/article/class/where
    lang: str
    family: str
    split: str
    cls: str               # one of CLASSES
    encoding: str          # the legacy encoding of the page's legacy part (or of the pure page)
    where: str             # meta | header | none
    payload: bytes
    content_type: str
    truth: str


def load_texts(path: Path = TEXTS) -> list[Text]:
    with open(path, encoding="utf-8") as f:
        return [Text(**json.loads(line)) for line in f if line.strip()]


@cache
def _reverse(encoding: str) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for b in range(0x80, 0x100):
        r = decode(bytes([b]), encoding, bom_sniff=False)
        if not r.errors and len(r.text) == 1:
            out.setdefault(r.text, bytes([b]))
    return out


def _windows_1258_form(text: str) -> str:
    """Vietnamese as windows-1258 writes it: each letter with its marks (NFD) as the precomposed
    letter windows-1258 has (â ê ô ă ơ ư đ and Latin-1's letters) with whichever of its marks
    makes one, then the other marks combining (tone marks: ``ậ`` is ``â`` and U+0323, though NFD
    orders the dot below first)."""
    rev = _reverse("windows-1258")
    out = unicodedata.normalize("NFD", text)
    result: list[str] = []
    i = 0
    while i < len(out):
        base, marks = out[i], []
        i += 1
        while i < len(out) and unicodedata.combining(out[i]):
            marks.append(out[i])
            i += 1
        for m in list(marks):
            composed = unicodedata.normalize("NFC", base + m)
            if len(composed) == 1 and composed in rev:
                base = composed
                marks.remove(m)
        result.append(base + "".join(marks))
    return "".join(result)


def encode(text: str, encoding: str) -> tuple[str, bytes] | None:
    """``(text as written in *encoding*, bytes)`` whose Encoding Standard decode is that text;
    None when *encoding* cannot hold it. UTF-8 holds everything."""
    if encoding == "UTF-8":
        return text, text.encode("utf-8")
    if encoding == "windows-1258":
        text = _windows_1258_form(text)
    codec = _PY_CODEC[encoding]
    text = "".join(FALLBACKS.get(ch, ch) if ch >= "\x80" and not _holds(ch, codec) else ch
                   for ch in text)
    try:
        data = text.encode(codec)
    except UnicodeEncodeError:
        return None
    r = decode(data, encoding, bom_sniff=False)
    if r.errors or r.text != text:
        return None
    return text, data


def _holds(ch: str, codec: str) -> bool:
    try:
        ch.encode(codec)
    except UnicodeEncodeError:
        return False
    return True


# --- page templates: ASCII markup, the parts as placeholders ---------------------------------


def _page(lang: str, head: str, *, title: str, nav: list[str], heading: str, paras: list[str],
          img_alt: str, img_title: str, value: str, footer: str) -> list[str | tuple[str, str]]:
    """A page as pieces: markup (str, ASCII) and ``(part, key)`` holes filled by the caller."""
    out: list[str | tuple[str, str]] = [f'<!DOCTYPE html>\n<html lang="{lang}"><head>{head}<title>',
                                        (title, "title"), "</title>\n"
                                        '<link rel="stylesheet" href="/static/site.css"></head>\n<body>\n<nav><ul>\n']
    for i, item in enumerate(nav):
        out += [f'<li><a href="/section/{i}/">', (item, f"nav{i}"), "</a></li>\n"]
    out += ["</ul></nav>\n<main><article>\n<h1>", (heading, "heading"), "</h1>\n"]
    for i, p in enumerate(paras):
        out += [f'<div class="block-{i}"><p>', (p, f"para{i}"), "</p></div>\n"]
    out += ['<figure><img src="/media/photo.jpg" width="640" height="480" alt="', (img_alt, "alt"),
            '" title="', (img_title, "img_title"), '"></figure>\n<form action="/search"><input name="q" value="',
            (value, "value"), '"><button>OK</button></form>\n</article></main>\n<footer><p>', (footer, "footer"),
            "</p><p>Copyright 2024 Example. All rights reserved.</p></footer>\n</body></html>\n"]
    return out


#: English interface strings for the ``en+para`` template (UTF-8: typographic quotes, ©, —).
_EN = {"title": "Comments — Example Forum", "nav": ["Home", "Latest posts", "Members’ area"],
       "heading": "Reader comments", "para": "We publish our readers’ letters as they were sent to us — "
       "the “comments” below come straight from our old archive.", "alt": "Photo © Example",
       "img_title": "Photo © Example", "value": "Search…", "footer": "Contact — Privacy — Terms"}


def pages(texts: list[Text], *, split: str | None = None,
          classes: tuple[str, ...] = CLASSES) -> Iterator[Page]:
    """Every page of the corpus (see the module docstring)."""
    by_lang: dict[str, list[Text]] = {}
    for t in texts:
        by_lang.setdefault(t.lang, []).append(t)
    for lang, ts in by_lang.items():
        articles = sorted({t.id.split(":")[1] for t in ts if t.id.startswith("udhr:")}, key=int)
        ui = [t for t in ts if t.kind == "ui"]
        for art in articles:
            at = {t.id: t for t in ts if t.id.startswith(f"udhr:{art}:")}
            heading = at.get(f"udhr:{art}:0")
            paras = [at[k] for k in sorted(at) if not k.endswith(":0")]
            if heading is None or len(paras) < 2:
                continue
            if split is not None and heading.split != split:
                continue
            for encoding in LEGACY[lang]:
                yield from _article_pages(lang, heading, paras, ui, art, encoding, classes)


def _article_pages(lang: str, heading: Text, paras: list[Text], ui: list[Text], art: str,
                   encoding: str, classes: tuple[str, ...]) -> Iterator[Page]:
    base = f"{lang}/{encoding}/{art}"
    rnd = random.Random(base)
    uis = [t.text for t in ui] or [heading.text]
    pick = rnd.sample(uis, min(6, len(uis)))
    while len(pick) < 6:
        pick.append(heading.text)
    parts = {"title": heading.text, "nav0": pick[0], "nav1": pick[1], "nav2": pick[2],
             "heading": heading.text, "para0": paras[0].text, "para1": paras[1].text,
             "alt": pick[3], "img_title": pick[4], "value": pick[5].split(" ")[0],
             "footer": pick[2]}
    family = heading.family

    def build(cls: str, where: str, main: str, other: str, other_keys: set[str],
              text_parts: dict[str, str]) -> Page | None:
        label = {"UTF-8": "utf-8"}.get(main, main.lower())
        head = f'<meta charset="{label}">' if where == "meta" else ""
        ct = f"text/html; charset={label}" if where == "header" else "text/html"
        pieces = _page(lang, head, title=text_parts["title"],
                       nav=[text_parts[f"nav{i}"] for i in range(3)], heading=text_parts["heading"],
                       paras=[text_parts["para0"], text_parts["para1"]], img_alt=text_parts["alt"],
                       img_title=text_parts["img_title"], value=text_parts["value"],
                       footer=text_parts["footer"])
        payload: list[bytes] = []
        truth: list[str] = []
        for piece in pieces:
            if isinstance(piece, str):
                payload.append(piece.encode("ascii"))
                truth.append(piece)
                continue
            text, key = piece
            enc = other if key in other_keys else main
            got = encode(text, enc)
            if got is None:
                return None
            truth.append(got[0])
            payload.append(got[1])
        return Page(f"{base}/{cls}/{where}", lang, family, heading.split, cls, encoding, where,
                    b"".join(payload), ct, "".join(truth))

    attrs = {"alt", "img_title", "value"}
    for where in ("meta", "header", "none"):
        if "utf8+para" in classes:
            p = build("utf8+para", where, "UTF-8", encoding, {"para1"}, parts)
            if p:
                yield p
        if "utf8+attr" in classes:
            p = build("utf8+attr", where, "UTF-8", encoding, attrs, parts)
            if p:
                yield p
        if "en+para" in classes:
            en = {**parts, **{k: v for k, v in _EN.items() if k != "nav" and k != "para"},
                  "nav0": _EN["nav"][0], "nav1": _EN["nav"][1], "nav2": _EN["nav"][2],
                  "para0": _EN["para"]}
            p = build("en+para", where, "UTF-8", encoding, {"para1"}, en)
            if p:
                yield p
        if "legacy+para" in classes:
            p = build("legacy+para", where, encoding, "UTF-8", {"para1"}, parts)
            if p:
                yield p
        if "legacy+attr" in classes:
            p = build("legacy+attr", where, encoding, "UTF-8", attrs, parts)
            if p:
                yield p
        if "pure-utf8" in classes:
            p = build("pure-utf8", where, "UTF-8", "UTF-8", set(), parts)
            if p:
                yield p
        if "pure-legacy" in classes:
            p = build("pure-legacy", where, encoding, encoding, set(), parts)
            if p:
                yield p
    if "corrupt" in classes:
        pure = build("pure-utf8", "meta", "UTF-8", "UTF-8", set(), parts)
        if pure is not None:
            for how in ("delete", "insert-ascii", "insert-high", "replace", "cut"):
                payload = _corrupt(pure.payload, how, random.Random(f"{base}/{how}"))
                if payload is None:
                    continue
                yield Page(f"{base}/corrupt-{how}/meta", lang, family, heading.split, "corrupt",
                           encoding, "meta", payload, "text/html",
                           decode(payload, "UTF-8", bom_sniff=False).text)


def _corrupt(payload: bytes, how: str, rnd: random.Random) -> bytes | None:
    """*payload* (UTF-8) with one byte changed as *how* says, at a byte of a multi-byte sequence
    (the page must then hold at least one U+FFFD); None when it has none."""
    high = [i for i, b in enumerate(payload) if b >= 0x80]
    if not high:
        return None
    for _ in range(20):
        i = rnd.choice(high)
        if how == "delete":
            out = payload[:i] + payload[i + 1:]
        elif how == "insert-ascii":
            out = payload[:i] + bytes([rnd.choice(b"aeiostx")]) + payload[i:]
        elif how == "insert-high":
            out = payload[:i] + bytes([rnd.randrange(0x80, 0x100)]) + payload[i:]
        elif how == "replace":
            out = payload[:i] + bytes([rnd.randrange(0x80, 0x100)]) + payload[i + 1:]
        else:  # cut inside the character
            if payload[i] < 0xC0:
                continue
            out = payload[:i + 1]
        if decode(out, "UTF-8", bom_sniff=False).errors:
            return out
    return None
