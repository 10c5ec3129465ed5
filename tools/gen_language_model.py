"""Generate ``lib/redecode/data/language-model.json.gz``: the character models of
:mod:`redecode.language` (do not edit the output; regenerate it).

Usage (from the repository root; the sources are packages from PyPI, installed only here)::

    pip install wordfreq==3.1.1 langdetect==1.0.9 babel==2.19.0
    python tools/gen_language_model.py

For each language, counts of characters and of character pairs in words, with ``^`` and ``$``
for a word's start and end, letters lower-cased (``str.lower``), NFC, and folded as
:data:`redecode.language.FOLD` says (ș as ş, Persian ی as ي...). The counts come from
general text, never from an encoding detector's test suite:

- ``wordfreq`` 3.1.1 (data CC BY-SA 4.0, Robyn Speer and contributors: word frequencies from
  Wikipedia, subtitles, news, books, web text and more): each of the language's most frequent
  :data:`TOP_WORDS` words counts its frequency (per 10^9 words) for each character and pair it
  holds. ``sh`` (Serbo-Croatian in Latin letters) gives ``hr``, and, transliterated letter by
  letter to Serbian Cyrillic, ``sr``. Chinese (``zh``) is wordfreq's list (simplified) plus, for
  each traditional character of wordfreq's own traditional-to-simplified table, the counts of its
  simplified character: one model that reads both scripts as Chinese.
- ``langdetect`` 1.0.9 (Apache-2.0, Nakatani Shuyo; n-gram counts from Wikipedia abstracts) for
  the languages wordfreq lacks: ``et``, ``th``; its 1- and 2-grams, a space read as ``^``/``$``.
- CLDR through ``babel`` 2.19.0 (Unicode License v3; CLDR 49): every string of the locale's data
  (names of languages, territories, scripts, currencies, units, months, days...), each word
  counting one, for the languages neither has: ``be``, ``eo``, ``mt``, ``ga``.

Letters of a major script (:data:`SCRIPTS`) that holds less than :data:`NATIVE_SHARE` of a
language's letters are borrowings and are dropped with their pairs (Latin words in Russian
text, Cyrillic in langdetect's Estonian), so no reading in another script is explained by that
language. Pairs seen less than :data:`MIN_PAIR_SHARE` of a language's pair count are dropped (rare pairs
fall back to the character's own probability), and so are characters below
:data:`MIN_CHAR_SHARE`. The output records each source's version and the counts, as integers, in
JSON sorted by key, gzip with a zero mtime: the same sources give the same bytes. Its sha256 is
the model's version in the rules digest (:func:`redecode.language.versions`).
"""

from __future__ import annotations

import gzip
import json
import sys
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "lib" / "redecode" / "data" / "language-model.json.gz"

TOP_WORDS = 40_000
MIN_PAIR_SHARE = 2e-6
MIN_CHAR_SHARE = 2e-7
NATIVE_SHARE = 0.05
#: the scripts a language's letters may be borrowed from (first word of the Unicode name); marks
#: such as the katakana-hiragana prolonged sound mark or the ideographic iteration mark stay
SCRIPTS = frozenset("LATIN CYRILLIC GREEK ARABIC HEBREW THAI HANGUL HIRAGANA KATAKANA CJK "
                    "DEVANAGARI BENGALI TAMIL".split())

WORDFREQ = ("ar bg bn ca cs da de el en es fa fi fr he hi hu id is it ja ko lt lv mk ms nb nl pl "
            "pt ro ru sk sl sv ta tr uk ur vi zh").split()
LANGDETECT = ("et", "th")
CLDR = ("be", "eo", "mt", "ga")

#: Serbian Latin -> Cyrillic (Vuk's alphabet; digraphs first)
_SR = {"lj": "љ", "nj": "њ", "dž": "џ", "a": "а", "b": "б", "c": "ц", "č": "ч", "ć": "ћ",
       "d": "д", "đ": "ђ", "e": "е", "f": "ф", "g": "г", "h": "х", "i": "и", "j": "ј", "k": "к",
       "l": "л", "m": "м", "n": "н", "o": "о", "p": "п", "r": "р", "s": "с", "š": "ш", "t": "т",
       "u": "у", "v": "в", "z": "з", "ž": "ж"}


def _to_cyrillic(word: str) -> str | None:
    out, i = [], 0
    while i < len(word):
        if word[i:i + 2] in _SR:
            out.append(_SR[word[i:i + 2]])
            i += 2
        elif word[i] in _SR:
            out.append(_SR[word[i]])
            i += 1
        else:
            return None
        # (a Latin word with q, w, x, y is foreign: left out)
    return "".join(out)


def _norm(word: str) -> str:
    from redecode.language import FOLD

    return unicodedata.normalize("NFC", word).lower().translate(FOLD)


def _count(words: dict[str, float]) -> tuple[Counter, Counter]:
    chars: Counter = Counter()
    pairs: Counter = Counter()
    for word, weight in words.items():
        w = _norm(word)
        if not w or not any(ch.isalpha() for ch in w):
            continue
        seq = ["^", *w, "$"]
        for ch in w:
            chars[ch] += weight
        for a, b in zip(seq, seq[1:]):
            pairs[a + b] += weight
    return chars, pairs


def _wordfreq(lang: str) -> dict[str, float]:
    import wordfreq

    freqs = wordfreq.get_frequency_dict(lang, wordlist="best")
    top = sorted(freqs.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_WORDS]
    return {w: f * 1e9 for w, f in top}


def _traditional_variants() -> dict[str, list[str]]:
    """simplified character -> the traditional characters wordfreq maps to it."""
    import msgpack
    import wordfreq

    path = Path(wordfreq.__file__).parent / "data" / "_chinese_mapping.msgpack.gz"
    with gzip.open(path) as f:
        mapping = msgpack.load(f, raw=False, strict_map_key=False)  # a str.translate table
    out: dict[str, list[str]] = {}
    for cp, simp in sorted(mapping.items()):
        trad = chr(cp)
        if len(simp) == 1 and len(simp) == 1 and trad != simp:
            out.setdefault(simp, []).append(trad)
    return out


def _langdetect(lang: str) -> tuple[Counter, Counter]:
    import langdetect

    path = Path(langdetect.__file__).parent / "profiles" / lang
    freq = json.loads(path.read_text(encoding="utf-8"))["freq"]
    chars: Counter = Counter()
    pairs: Counter = Counter()
    for gram, n in freq.items():
        g = _norm(gram)
        if len(g) == 1 and g.isalpha():
            chars[g] += n
        elif len(g) == 2 and g != "  ":
            a = "^" if g[0] == " " else g[0]
            b = "$" if g[1] == " " else g[1]
            if (a == "^" or a.isalpha()) and (b == "$" or b.isalpha()):
                pairs[a + b] += n
    return chars, pairs


def _cldr_strings(obj, out: list[str]) -> None:
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict) or hasattr(obj, "items"):
        for k in sorted(obj.keys(), key=str):
            _cldr_strings(obj[k], out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _cldr_strings(v, out)


def _cldr(lang: str) -> dict[str, float]:
    from babel import localedata

    strings: list[str] = []
    _cldr_strings(localedata.load(lang), strings)
    words: Counter = Counter()
    for s in strings:
        if "{" in s or "'" in s and len(s) < 3:
            continue
        for tok in s.replace("{0}", " ").split():
            tok = "".join(ch for ch in tok if ch.isalpha() or unicodedata.category(ch) == "Mn")
            if tok:
                words[tok] += 1
    return dict(words)


def _script(ch: str) -> str:
    return unicodedata.name(ch, "?").split(" ", 1)[0]


def _prune(chars: Counter, pairs: Counter) -> tuple[dict[str, int], dict[str, int]]:
    # letters of a script that holds less than NATIVE_SHARE of the language's letters are
    # borrowings (Latin words in Russian text, Cyrillic in langdetect's Estonian): dropped, so
    # that a reading in another script is never explained by this language
    mass: Counter = Counter()
    for c, n in chars.items():
        mass[_script(c)] += n
    total = sum(mass.values()) or 1
    foreign = {sc for sc, m in mass.items() if m / total < NATIVE_SHARE and sc in SCRIPTS}
    chars = Counter({c: n for c, n in chars.items() if _script(c) not in foreign})
    pairs = Counter({p: n for p, n in pairs.items()
                     if not any(ch not in "^$" and _script(ch) in foreign for ch in p)})
    ct = sum(chars.values()) or 1
    pt = sum(pairs.values()) or 1
    scale = 1e9 / ct
    c = {k: max(1, round(v * scale)) for k, v in sorted(chars.items()) if v / ct >= MIN_CHAR_SHARE}
    p = {k: max(1, round(v * scale)) for k, v in sorted(pairs.items()) if v / pt >= MIN_PAIR_SHARE}
    return c, p


def build() -> dict:
    import babel
    import langdetect  # noqa: F401
    import wordfreq

    from redecode.versions import version

    langs: dict[str, dict] = {}

    def add(code: str, source: str, chars: Counter, pairs: Counter) -> None:
        c, p = _prune(chars, pairs)
        langs[code] = {"source": source, "chars": c, "pairs": p}

    for lang in WORDFREQ:
        words = _wordfreq(lang)
        if lang == "zh":
            variants = _traditional_variants()
            chars, pairs = _count(words)
            tc, tp = Counter(), Counter()
            # traditional: every simplified character's counts (and pairs) under each variant
            for w, f in words.items():
                tw = "".join(variants.get(ch, [ch])[0] for ch in w)
                if tw != w:
                    a, b = _count({tw: f})
                    tc.update(a)
                    tp.update(b)
            chars.update(tc)
            pairs.update(tp)
            add("zh", "wordfreq", chars, pairs)
        else:
            add(lang, "wordfreq", *_count(words))
    add("tl", "wordfreq:fil", *_count(_wordfreq("fil")))
    sh = _wordfreq("sh")
    add("hr", "wordfreq:sh", *_count(sh))
    cyr = {}
    for w, f in sh.items():
        c = _to_cyrillic(_norm(w))
        if c:
            cyr[c] = cyr.get(c, 0.0) + f
    add("sr", "wordfreq:sh transliterated", *_count(cyr))
    for lang in LANGDETECT:
        add(lang, "langdetect", *_langdetect(lang))
    for lang in CLDR:
        add(lang, "cldr", *_count(_cldr(lang)))
    return {
        "generated": "by tools/gen_language_model.py: do not edit; regenerate",
        "licence": "derived from wordfreq data (CC BY-SA 4.0), langdetect profiles (Apache-2.0), "
                   "CLDR (Unicode License v3): see LANGUAGE-MODEL.md beside this file",
        "format": 1,
        "sources": {"wordfreq": wordfreq.__version__ if hasattr(wordfreq, "__version__")
                    else version("wordfreq"), "langdetect": version("langdetect"),
                    "babel": babel.__version__, "cldr": _cldr_version()},
        "top_words": TOP_WORDS, "min_pair_share": MIN_PAIR_SHARE,
        "min_char_share": MIN_CHAR_SHARE,
        "languages": dict(sorted(langs.items())),
    }


def _cldr_version() -> str:
    try:
        from babel.core import get_global

        return str(get_global("cldr").get("version", "?")) if get_global("cldr") else "?"
    except Exception:  # noqa: BLE001
        return "?"


def encode(model: dict) -> bytes:
    """The file's bytes: JSON sorted by key, gzip with no name and a zero mtime."""
    import io

    data = json.dumps(model, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as f:
        f.write(data)
    return buf.getvalue()


def main() -> int:
    model = build()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(encode(model))
    n = {k: (len(v["chars"]), len(v["pairs"])) for k, v in model["languages"].items()}
    print(f"{len(n)} languages, {OUT.stat().st_size} bytes -> {OUT}\n{n}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
