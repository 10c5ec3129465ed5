"""Measure rule sets (and peers) on the language corpus (issue 30, item 6).

Usage (from the repository root)::

    python tools/eval_language.py                        # the default rules, the test split
    python tools/eval_language.py --rules author-2026.12 --rules browser-2026.11 \\
        --peers charset-normalizer,chardetng,resiliparse,bs4 --split test --every 5
    python tools/eval_language.py --split dev --misses 30 # what the rules still get wrong

The pages are generated from ``tests/data/language/texts.jsonl`` by ``tests/language_pages.py``
(its docstring says how: every legacy encoding of the text's script that holds it; declared
right, declared with each confusable sibling's label, in a meta and in the header, undeclared;
short and long pages). A page is right when the text equals the Encoding Standard's decode of
the page in the encoding it was written in.

Columns, per system: ``kept`` correct declarations kept (pages declared with their encoding, or
with a sibling that reads the same text: every one must be right), ``lies`` sibling lies
recovered, ``undecl`` undeclared pages right, ``all`` every page right. Rows: the text's language
family, then the lies by the true encoding's family and size.

Rule sets run through :meth:`redecode.rules.Rules.decide_and_decode` with the page's
``Content-Type``, no URL, ``kind="html"``. Peers see what a library user would give them: the
payload (its meta included) and no header, except bs4's ``UnicodeDammit``, which also gets the
header's charset as a known definite encoding; a peer's answer is mapped to the Encoding Standard
(:func:`redecode.detect.standard_encoding`) and the page decoded with the standard's decoder.
A peer that is not installed is listed as such and left out.

``--every N`` takes every Nth page of each text (deterministic, the same pages for every
system); peers are slow (charset-normalizer about 10 ms a page).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import language_pages as lp  # noqa: E402

from redecode.decode import decode  # noqa: E402
from redecode.detect import standard_encoding  # noqa: E402
from redecode.rules import DEFAULT_RULES, get_rules  # noqa: E402

System = Callable[[lp.Page], str]


def rules_system(name: str) -> System:
    rules = get_rules(name)

    def run(page: lp.Page) -> str:
        _, decoded = rules.decide_and_decode(page.payload, content_type=[page.content_type],
                                             url=None, kind="html")
        return decoded.text
    return run


def _decode_as(page: lp.Page, answer: str | None) -> str:
    enc, _ = standard_encoding(answer)
    if enc is None:
        return ""
    return decode(page.payload, enc).text


def _header_charset(page: lp.Page) -> str | None:
    return page.label if page.where == "header" else None


def peer_system(name: str) -> System | str:
    """The peer's system, or a string saying why it is not available."""
    try:
        if name == "charset-normalizer":
            from charset_normalizer import from_bytes

            def run(page: lp.Page) -> str:
                best = from_bytes(page.payload).best()
                return _decode_as(page, best.encoding if best else None)
        elif name == "chardetng":
            import chardetng_py

            def run(page: lp.Page) -> str:
                return _decode_as(page, chardetng_py.detect(page.payload, allow_utf8=True))
        elif name == "resiliparse":
            from resiliparse.parse.encoding import detect_encoding

            def run(page: lp.Page) -> str:
                return _decode_as(page, detect_encoding(page.payload))
        elif name == "bs4":
            import warnings

            from bs4 import UnicodeDammit

            warnings.filterwarnings("ignore", module="bs4")

            def run(page: lp.Page) -> str:
                h = _header_charset(page)
                d = UnicodeDammit(page.payload, known_definite_encodings=[h] if h else [],
                                  is_html=True)
                return _decode_as(page, d.original_encoding)
        else:
            return "unknown peer"
    except ImportError as e:
        return f"not installed ({e.name})"
    return run


def evaluate(systems: dict[str, System], pages: list[lp.Page], *, misses: int = 0):
    """{system: Counter((row, column) -> [right, total])} plus per-system CPU seconds."""
    table: dict[str, dict[tuple[str, str], list[int]]] = {
        s: defaultdict(lambda: [0, 0]) for s in systems}
    seconds: Counter[str] = Counter()
    wrong: dict[str, list[tuple[lp.Page, str]]] = defaultdict(list)
    for page in pages:
        column = {"right": "kept", "equivalent": "kept", "lie": "lies",
                  "undeclared": "undecl"}[page.kind]
        rows = [f"family {page.text.family}", "all"]
        if page.kind == "lie":
            rows.append(f"lies {lp.FAMILY_OF.get(page.encoding, '-')} {page.size}")
        for name, run in systems.items():
            t0 = time.process_time()
            text = run(page)
            seconds[name] += time.process_time() - t0
            ok = text == page.truth
            for row in rows:
                for col in (column, "all"):
                    cell = table[name][(row, col)]
                    cell[0] += ok
                    cell[1] += 1
            if not ok and len(wrong[name]) < misses:
                wrong[name].append((page, text))
    return table, seconds, wrong


def format_table(table, seconds, npages: int) -> str:
    names = list(table)
    rows = sorted({r for t in table.values() for r, _ in t},
                  key=lambda r: (r != "all", r.split()[0] != "family", r))
    cols = ("kept", "lies", "undecl", "all")
    head = ["row".ljust(24)] + [f"{n[:22]:>22}" for n in names]
    out = ["  ".join(head), "  ".join([" " * 24] + [f"{'  '.join(c[:6].rjust(6) for c in cols):>22}"
                                                      for _ in names])]
    for r in rows:
        cells = []
        for n in names:
            parts = []
            for c in cols:
                right, total = table[n].get((r, c), [0, 0])
                parts.append(f"{right}/{total}" if total else "-")
            cells.append(" ".join(p.rjust(11) for p in parts))
        out.append(f"{r:<24}  " + "  ".join(cells))
    out.append("ms/page".ljust(24) + "  " + "  ".join(
        f"{1000 * seconds[n] / max(npages, 1):>22.2f}" for n in names))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", action="append", help=f"a rules name (default {DEFAULT_RULES})")
    ap.add_argument("--peers", default="", help="comma-separated: charset-normalizer, chardetng, "
                    "resiliparse, bs4")
    ap.add_argument("--split", choices=("dev", "test", "all"), default="test")
    ap.add_argument("--sizes", default="short,long")
    ap.add_argument("--langs", default="", help="comma-separated language codes (default all)")
    ap.add_argument("--every", type=int, default=1, help="every Nth page of each text")
    ap.add_argument("--misses", type=int, default=0, help="list this many wrong pages per system")
    args = ap.parse_args(argv)

    systems: dict[str, System] = {n: rules_system(n) for n in (args.rules or [DEFAULT_RULES])}
    for peer in filter(None, args.peers.split(",")):
        s = peer_system(peer)
        if isinstance(s, str):
            print(f"peer {peer}: {s}", file=sys.stderr)
        else:
            systems[peer] = s
    langs = set(filter(None, args.langs.split(",")))
    texts = [t for t in lp.load_texts() if not langs or t.lang in langs]
    pages = []
    for t in texts:
        if args.split != "all" and t.split != args.split:
            continue
        pages.extend(list(lp.pages(t, sizes=tuple(args.sizes.split(","))))[::args.every])
    nl = len({p.text.lang for p in pages})
    print(f"{len(pages)} pages of {len({(p.text.lang, p.text.id) for p in pages})} texts in "
          f"{nl} languages (split {args.split}, every {args.every})")
    table, seconds, wrong = evaluate(systems, pages, misses=args.misses)
    print(format_table(table, seconds, len(pages)))
    for name, items in wrong.items():
        if not items:
            continue
        print(f"\n{name}: wrong pages (first {len(items)})")
        for page, text in items:
            body = page.truth[page.truth.find("<h1>"):][:60] if "<h1>" in page.truth else ""
            got = text[text.find("<h1>"):][:60] if "<h1>" in text else text[:60]
            print(f"  {page.text.lang} {page.text.id} {page.encoding} {page.size} {page.kind} "
                  f"{page.where}:{page.label}  want {body!r} got {got!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
