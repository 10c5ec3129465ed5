"""The README and docs/ state what the code does: the column table is the schema's, the CLI reference
is `--help`, the commands they name exist, their links lead somewhere, and the README stays short
and keeps the two fresh-machine commands (the run on sample_warcs/, and the tests exactly as CI
runs them). The SQL examples of docs/queries.md are run by test_query.py, the ```pycon examples
of the README by test_api.py."""

import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import cli_reference  # noqa: E402
import readme_columns  # noqa: E402

from redecode_jobs.cli import cli  # noqa: E402

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def readme() -> str:
    return read(README)


def test_column_table_is_the_schema():
    assert readme_columns.current(read(ROOT / "docs" / "columns.md")) == readme_columns.table(), (
        "docs/columns.md's column table is stale: run .venv/bin/python tools/readme_columns.py --write")


def test_cli_reference_is_the_help():
    assert read(ROOT / "docs" / "cli.md") == cli_reference.page(), (
        "docs/cli.md is stale: run .venv/bin/python tools/cli_reference.py --write")


def test_cli_reference_has_every_command():
    text = read(ROOT / "docs" / "cli.md")
    for command in cli.list_commands(None):
        assert f"## redecode {command}\n" in text
        assert f"Usage: redecode {command} [OPTIONS]" in text


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_commands_named_exist(page):
    named = set(re.findall(r"`(?:\.venv/bin/)?redecode ([a-z][a-z-]*)", read(page)))
    assert named <= set(cli.list_commands(None)), named - set(cli.list_commands(None))


def test_readme_names_every_command():
    named = set(re.findall(r"`redecode ([a-z-]+)", readme()))
    assert named == set(cli.list_commands(None))


def test_ci_runs_the_readme_test_command():
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    command = [line for line in ci.splitlines() if line.startswith("python3 -m venv")][0]
    assert command in readme()


def test_readme_runs_the_job_on_a_fresh_machine():
    """The Quick start's first command creates the venv, installs, and runs the job on sample_warcs/
    (one command, continued over lines with a backslash)."""
    block = re.search(r"```sh\n(python3 -m venv .*?)```", readme(), re.S).group(1)
    command = " ".join(part.strip() for part in block.replace("\\\n", "\n").splitlines())
    assert re.fullmatch(r"python3 -m venv \.venv && \.venv/bin/pip install -q -e '\.\[[a-z,]+\]' "
                        r"&& \.venv/bin/redecode run sample_warcs --out out", command), command


def test_readme_is_short():
    lines = readme().splitlines()
    assert len(lines) <= 170, f"README.md has {len(lines)} lines; move the detail to a docs/ page"


def test_every_docs_page_is_reached_from_the_readme():
    """Following links from the README reaches every docs/ page."""
    seen, todo = {README.resolve()}, [README]
    while todo:
        page = todo.pop()
        for target in re.findall(r"\]\(([^)#\s]+)", read(page)):
            dest = (page.parent / target).resolve()
            if dest.suffix == ".md" and dest.exists() and dest not in seen:
                seen.add(dest)
                todo.append(dest)
    missing = sorted(p.name for p in DOCS if p.resolve() not in seen)
    assert not missing, f"docs/ pages no link leads to: {missing}"


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation but '-' and '_' dropped, spaces as '-'."""
    out = set()
    for heading in re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_relative_links_resolve(page):
    text = read(page)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"```.*?```", "", text, flags=re.S)):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(read(dest)):
            broken.append(target)
    assert not broken, broken


def test_quick_start_shows_what_the_commands_print(tmp_path, monkeypatch):
    """The Quick start's run line and query table are what the commands print on sample_warcs/."""
    from click.testing import CliRunner

    text = readme()
    start = text.index("## Quick start")
    quick = text[start:text.index("\n## ", start + 1)]
    printed = re.search(r"It prints `([^`]+)`", quick).group(1)
    sql = re.search(r'redecode query out "(.*?)"', quick, re.S).group(1)
    table = re.search(r"```text\n(.*?)```", quick, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    os.symlink(ROOT / "sample_warcs", tmp_path / "sample_warcs")
    runner = CliRunner()
    ran = runner.invoke(cli, ["run", "sample_warcs", "--out", "out", "--workers", "1"])
    assert ran.exit_code == 0, ran.output
    assert ran.stderr.strip() == printed
    queried = runner.invoke(cli, ["query", "out", sql])
    assert queried.exit_code == 0, queried.output
    assert queried.stdout == table
