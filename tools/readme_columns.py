"""Print (or --write) the column table of docs/columns.md from lib/redecode/schema.py, the single
source (the table was in the README before the docs/ pages; the name stayed).

    .venv/bin/python tools/readme_columns.py            # print the table
    .venv/bin/python tools/readme_columns.py --write    # rewrite it in docs/columns.md
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from redecode.schema import COLUMN_DOCS, SCHEMA

PAGE = Path(__file__).resolve().parent.parent / "docs" / "columns.md"
HEADER = "| column | type | meaning |\n|---|---|---|\n"


def table() -> str:
    """The Markdown table, one row per schema column in order."""
    rows = []
    for field in SCHEMA:
        typ = str(field.type).replace("list<item: string>", "list<string>")
        rows.append(f"| `{field.name}` | {typ} | {COLUMN_DOCS[field.name]} |\n")
    return HEADER + "".join(rows)


def current(page: str) -> str:
    """The column table as it stands in the text ``page`` (empty string when absent)."""
    match = re.search(re.escape(HEADER) + r"(?:\|.*\|\n)*", page)
    return match.group(0) if match else ""


def main() -> None:
    text = PAGE.read_text(encoding="utf-8")
    if "--write" in sys.argv:
        PAGE.write_text(text.replace(current(text), table()), encoding="utf-8")
    else:
        sys.stdout.write(table())


if __name__ == "__main__":
    main()
