"""Measure rule sets (and peers) on the stretch corpus (issue 29: pages in two encodings).

Usage (from the repository root)::

    python tools/eval_stretches.py                          # the default rules, every page
    python tools/eval_stretches.py --rules author-2026.12 --rules browser-2026.11 --peers bs4
    python tools/eval_stretches.py --split test --misses 20 # what the default rules get wrong

The pages are generated from ``tests/data/stretches/texts.jsonl`` by ``tests/stretch_pages.py``
(its docstring lists the classes: UTF-8 pages with a legacy paragraph or legacy attributes, an
English UTF-8 template around a legacy paragraph, legacy pages with a UTF-8 paragraph or UTF-8
attributes, UTF-8 pages with a one-byte corruption, pure pages). A page is right when the text
equals its truth: each part decoded with the encoding it was written in (a corrupted page: its
UTF-8 decode, U+FFFD included).

Columns: per system, pages exactly right of the pages of the class; ``split`` pages with a
stretch read in parts that must stay whole (a pure page or a corruption read in parts). Rows:
the classes, then the mixed classes by the language family.

Rule sets run through :meth:`redecode.rules.Rules.decide_and_decode` with the page's
``Content-Type``, no URL, ``kind="html"``. ``bs4``: ``UnicodeDammit`` on
``UnicodeDammit.detwingle(payload)`` (its repair of windows-1252 inside UTF-8), the header's charset
as a known definite encoding.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import stretch_pages as sp  # noqa: E402

from redecode.rules import DEFAULT_RULES, get_rules  # noqa: E402

System = Callable[[sp.Page], tuple[str, bool]]  # -> (text, read in parts)


def rules_system(name: str) -> System:
    rules = get_rules(name)

    def run(page: sp.Page) -> tuple[str, bool]:
        decision, decoded = rules.decide_and_decode(page.payload, content_type=[page.content_type],
                                                     url=None, kind="html")
        return decoded.text, bool(getattr(decision, "stretches", ()))
    return run


def peer_system(name: str) -> System | str:
    """The peer's system, or a string saying why it is not available."""
    if name != "bs4":
        return "unknown peer"
    try:
        from bs4 import UnicodeDammit
    except ImportError as e:
        return f"not installed ({e.name})"
    import logging  # noqa: PLC0415
    import warnings  # noqa: PLC0415

    warnings.filterwarnings("ignore", module="bs4")
    logging.getLogger("bs4").setLevel(logging.ERROR)

    def run(page: sp.Page) -> tuple[str, bool]:
        header = page.content_type.partition("charset=")[2] or None
        d = UnicodeDammit(UnicodeDammit.detwingle(page.payload),
                          known_definite_encodings=[header] if header else [], is_html=True)
        return d.unicode_markup or "", False
    return run


def evaluate(systems: dict[str, System], pages: list[sp.Page], *, misses: int = 0):
    """{system: {row: [right, total, split]}} and the first *misses* wrong pages per system."""
    table: dict[str, dict[str, list[int]]] = {s: defaultdict(lambda: [0, 0, 0]) for s in systems}
    wrong: dict[str, list[tuple[sp.Page, str]]] = defaultdict(list)
    for page in pages:
        rows = [page.cls]
        if page.cls in sp.MIXED:
            rows += [f"mixed {page.family}", "mixed (all)"]
        else:
            rows.append("whole (all)")
        for name, run in systems.items():
            text, parts = run(page)
            ok = text == page.truth
            for row in rows:
                cell = table[name][row]
                cell[0] += ok
                cell[1] += 1
                cell[2] += parts and page.cls not in sp.MIXED
            if not ok and len(wrong[name]) < misses:
                wrong[name].append((page, text))
    return table, wrong


def format_table(table: dict[str, dict[str, list[int]]]) -> str:
    names = list(table)
    rows = list(dict.fromkeys(r for t in table.values() for r in t))
    order = list(sp.CLASSES) + ["whole (all)", "mixed (all)"]
    rows.sort(key=lambda r: (order.index(r) if r in order else len(order), r))
    head = "| pages | " + " | ".join(names) + " |"
    out = [head, "|---|" + "---|" * len(names)]
    for r in rows:
        cells = []
        for n in names:
            right, total, split = table[n].get(r, [0, 0, 0])
            cell = f"{right}/{total}"
            if split:
                cell += f" ({split} split)"
            cells.append(cell)
        out.append(f"| {r} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", action="append", help=f"rule set (repeatable; default {DEFAULT_RULES})")
    ap.add_argument("--peers", default="", help="comma-separated: bs4")
    ap.add_argument("--split", choices=("dev", "test"), help="only the texts of this split")
    ap.add_argument("--classes", default=",".join(sp.CLASSES), help="comma-separated classes")
    ap.add_argument("--misses", type=int, default=0, help="show this many wrong pages per system")
    args = ap.parse_args(argv)
    systems: dict[str, System] = {n: rules_system(n) for n in (args.rules or [DEFAULT_RULES])}
    for p in filter(None, args.peers.split(",")):
        s = peer_system(p)
        if isinstance(s, str):
            print(f"{p}: {s}", file=sys.stderr)
        else:
            systems[p] = s
    pages = list(sp.pages(sp.load_texts(), split=args.split, classes=tuple(args.classes.split(","))))
    langs = len({p.lang for p in pages})
    table, wrong = evaluate(systems, pages, misses=args.misses)
    print(f"{len(pages)} pages in {langs} languages" + (f" ({args.split} split)" if args.split else ""))
    print(format_table(table))
    for name, items in wrong.items():
        for page, text in items:
            diff = next((i for i, (a, b) in enumerate(zip(text, page.truth)) if a != b),
                        min(len(text), len(page.truth)))
            print(f"\n{name} wrong: {page.name}\n  got:  {text[max(0, diff - 40):diff + 80]!r}\n"
                  f"  want: {page.truth[max(0, diff - 40):diff + 80]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
