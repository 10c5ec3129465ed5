"""Measure language engines for issue 30: sibling discrimination, identification, cost.

Usage (from the repository root)::

    python tools/eval_language_engines.py --split dev            # discrimination, identification
    python tools/eval_language_engines.py --engines ngram,cld2   # a subset

Engines: ``ngram`` (:mod:`redecode.language`, the pinned model), ``cld2`` (pycld2),
``lingua`` (lingua-language-detector, all languages, high accuracy mode), ``py3langid``
(normalised probabilities), ``cn`` (charset-normalizer's coherence minus its mess ratio). Library
engines that are not installed are reported and left out.

(a) Discrimination: for every text of the split (its title and sentence as plain text), every
encoding of its script that holds it (``tests/language_pages.py``) and every confusable sibling
whose decode of the same bytes differs: is the true reading more plausible than the sibling's?
Counted per class (true encoding's family); ``ngram`` also with its margin (score difference in
bits per character of evidence). A tie counts as wrong.

(b) Identification: each text's language (``zh-Hans``/``zh-Hant`` count as ``zh``; CLD2's
``no`` as ``nb``), exact match, on the split's texts: short (title and sentence), and the title
alone.

(c) Cost: process CPU time per KB on a long page (about 20 KB, mostly markup) and on its text.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import language_pages as lp  # noqa: E402

from redecode import language  # noqa: E402
from redecode.decode import decode  # noqa: E402

ALIAS = {"zh-Hans": "zh", "zh-Hant": "zh", "no": "nb", "iw": "he", "zh-Hant-TW": "zh",
         "zh-TW": "zh", "zh-CN": "zh", "zh-cn": "zh", "zh-tw": "zh", "nn": "nb"}


def _norm(code: str | None) -> str | None:
    return ALIAS.get(code, code) if code else None


def engines(names: list[str]):
    """name -> (plausibility(text) -> float, identify(text) -> code)"""
    out = {}
    for name in names:
        try:
            if name == "ngram":
                out[name] = (None, lambda t: language.identify_ngram(t, markup=False).language)
            elif name == "cld2":
                import pycld2

                def _cld2(t):
                    try:
                        return pycld2.detect(t)
                    except pycld2.error:  # C1 controls and the like: "invalid UTF-8"
                        return False, 0, (("Unknown", "un", 0, 0.0),)

                def cld2_p(t):
                    ok, _, details = _cld2(t)
                    return details[0][3] * (1 if ok else 0.5) if details[0][1] != "un" else 0.0

                def cld2_i(t):
                    ok, _, details = _cld2(t)
                    return details[0][1] if details[0][1] != "un" else None
                out[name] = (cld2_p, cld2_i)
            elif name == "lingua":
                from lingua import LanguageDetectorBuilder

                det = LanguageDetectorBuilder.from_all_languages().build()

                def lingua_p(t):
                    vals = det.compute_language_confidence_values(t)
                    return vals[0].value if vals else 0.0

                def lingua_i(t):
                    lang = det.detect_language_of(t)
                    return lang.iso_code_639_1.name.lower() if lang else None
                out[name] = (lingua_p, lingua_i)
            elif name == "py3langid":
                from py3langid.langid import _load_identifier

                ident = _load_identifier(norm_probs=True)
                out[name] = (lambda t: ident.classify(t)[1], lambda t: ident.classify(t)[0])
            elif name == "cn":
                from charset_normalizer.cd import coherence_ratio
                from charset_normalizer.md import mess_ratio

                def cn_p(t):
                    coh = coherence_ratio(t)
                    return (coh[0][1] if coh else 0.0) - mess_ratio(t)

                def cn_i(t):
                    coh = coherence_ratio(t)
                    return None  # charset-normalizer names languages in English, not codes
                out[name] = (cn_p, cn_i)
        except ImportError as e:
            print(f"engine {name}: not installed ({e.name})", file=sys.stderr)
    return out


def discrimination(texts, engs, margins=(0.0, 0.5, 1.0, 2.0)):
    table: dict[str, Counter] = defaultdict(Counter)
    seconds: Counter = Counter()
    for t in texts:
        plain = f"{t.title}\n{t.sentence}"
        for enc in lp.encodings_for(t.family):
            e = lp.encode(plain, enc)
            if e is None:
                continue
            truth, data = e
            for sib in lp.SIBLINGS.get(enc, ()):
                lie = decode(data, sib, bom_sniff=False).text
                if lie == truth:
                    continue
                cls = f"{lp.FAMILY_OF[enc]} {enc}>{sib}" if lp.FAMILY_OF[enc] in (
                    "cyrillic", "japanese", "chinese", "greek", "hebrew", "arabic") else \
                    f"latin {t.family}"
                for row in (cls, "all"):
                    table[row]["pairs"] += 1
                for name, (plaus, _) in engs.items():
                    t0 = time.process_time()
                    if name == "ngram":
                        r = language.plausibility({enc: truth, sib: lie}, markup=False)
                        diff = r[enc].score - r[sib].score
                        bits = r[enc].bits - r[sib].bits
                        for row in (cls, "all"):
                            for m in margins:
                                table[row][f"ngram>{m}"] += diff > m
                            for m in (10, 20, 40):
                                table[row][f"ngram>{m}bits"] += bits > m
                            table[row]["ngram:wrong-by>1"] += diff < -1.0
                            table[row]["ngram:wrong>10b"] += bits < -10
                    else:
                        ok = plaus(truth) > plaus(lie)
                        for row in (cls, "all"):
                            table[row][name] += ok
                    seconds[name] += time.process_time() - t0
    return table, seconds


def identification(texts, engs):
    res: dict[str, Counter] = defaultdict(Counter)
    per_lang: dict[str, Counter] = defaultdict(Counter)
    for t in texts:
        want = _norm(t.lang)
        for kind, s in (("short", f"{t.title}\n{t.sentence}"), ("title", t.title)):
            res[kind]["n"] += 1
            for name, (_, ident) in engs.items():
                got = _norm(ident(s))
                res[kind][name] += got == want
                if kind == "short" and got != want:
                    per_lang[name][f"{t.lang}->{got}"] += 1
    return res, per_lang


def cost(engs):
    texts = lp.load_texts()
    t = next(x for x in texts if x.lang == "ru")
    page = lp._long(t.title, t.sentence, "")
    out = {}
    for name, (_, ident) in engs.items():
        n = 200
        t0 = time.process_time()
        for _ in range(n):
            ident(page) if name != "ngram" else language.identify_ngram(page)
        out[name] = 1000 * (time.process_time() - t0) / n / (len(page.encode()) / 1024)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    ap.add_argument("--engines", default="ngram,cld2,lingua,py3langid,cn")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: disc,ident,cost")
    args = ap.parse_args(argv)
    engs = engines(args.engines.split(","))
    texts = [t for t in lp.load_texts() if args.split == "all" or t.split == args.split]
    skip = set(args.skip.split(","))
    print(f"{len(texts)} texts (split {args.split}); engines {', '.join(engs)}")
    if "disc" not in skip:
        table, seconds = discrimination(texts, engs)
        cols = sorted({c for row in table.values() for c in row if c != "pairs"})
        print("\n(a) true reading more plausible than the sibling's (pairs)")
        print(f"{'class':<34}{'pairs':>7}" + "".join(f"{c:>17}" for c in cols))
        for row in sorted(table, key=lambda r: (r != "all", r)):
            print(f"{row:<34}{table[row]['pairs']:>7}" + "".join(
                f"{table[row][c]:>17}" for c in cols))
        print("cpu s " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
    if "ident" not in skip:
        res, per_lang = identification(texts, engs)
        print("\n(b) identification, exact language")
        for kind, c in res.items():
            print(f"{kind:<8} n={c['n']:<6}" + "".join(f"{name} {c[name]:>5}  " for name in engs))
        for name, c in per_lang.items():
            print(f"  {name} misses: " + ", ".join(f"{k} {v}" for k, v in c.most_common(14)))
    if "cost" not in skip:
        print("\n(c) ms per KB of a long page (identify)")
        for name, ms in cost(engs).items():
            print(f"  {name:<10} {ms:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
