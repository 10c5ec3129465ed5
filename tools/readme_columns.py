"""Print (or --check) the README's column table from lib/redecode/schema.py, the single source.

    .venv/bin/python tools/readme_columns.py            # print the table
    .venv/bin/python tools/readme_columns.py --write    # rewrite it in README.md
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from redecode.schema import COLUMN_DOCS, SCHEMA

README = Path(__file__).resolve().parent.parent / "README.md"
HEADER = "| column | type | meaning |\n|---|---|---|\n"


def table() -> str:
    """The Markdown table, one row per schema column in order."""
    rows = []
    for field in SCHEMA:
        typ = str(field.type).replace("list<item: string>", "list<string>")
        rows.append(f"| `{field.name}` | {typ} | {COLUMN_DOCS[field.name]} |\n")
    return HEADER + "".join(rows)


def current(readme: str) -> str:
    """The column table as it stands in ``readme`` (empty string when absent)."""
    match = re.search(re.escape(HEADER) + r"(?:\|.*\|\n)*", readme)
    return match.group(0) if match else ""


def main() -> None:
    text = README.read_text(encoding="utf-8")
    if "--write" in sys.argv:
        README.write_text(text.replace(current(text), table()), encoding="utf-8")
    else:
        sys.stdout.write(table())


if __name__ == "__main__":
    main()
