"""No module imports another module's private name.

A name with a leading underscore is its module's own business; code elsewhere that needs it gets a
public name where it belongs. Checked on the imports and attribute accesses of lib/redecode,
jobs/ and tools/, parsed with ``ast``: ``from .x import _y``, and ``m._y`` where ``m`` is a module
of this project bound by an import. A package may import its own private modules
(``from . import _tables``, the generated tables; ``from . import _core``, the compiled core); dunder names are not private.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"redecode": ROOT / "lib" / "redecode", "redecode_jobs": ROOT / "jobs"}
FILES = sorted([*PACKAGES["redecode"].glob("*.py"), *PACKAGES["redecode_jobs"].glob("*.py"),
                *(ROOT / "tools").glob("*.py")])


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _package_of(path: Path) -> str | None:
    for package, directory in PACKAGES.items():
        if path.parent == directory:
            return package
    return None


def _modules(package: str) -> set[str]:
    # (.pyx: the compiled core, a module of the package like the others)
    return {p.stem for p in [*PACKAGES[package].glob("*.py"), *PACKAGES[package].glob("*.pyx")]
            if p.stem != "__init__"}


def _resolve(node: ast.ImportFrom, package: str | None) -> str | None:
    """The absolute module a ``from ... import`` names, or None when it is not this project's."""
    if node.level:
        if package is None or node.level > 1:
            return None
        return f"{package}.{node.module}" if node.module else package
    module = node.module or ""
    return module if module.split(".")[0] in PACKAGES else None


def violations(path: Path, package: str | None = None) -> list[str]:
    package = package or _package_of(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    aliases: set[str] = set()  # local names bound to one of this project's modules
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in PACKAGES:
                    aliases.add(a.asname or a.name.split(".")[0])
                    if any(_private(part) for part in a.name.split(".")[1:]):
                        found.append(f"{path.name}:{node.lineno}: import {a.name}")
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node, package)
            if target is None:
                continue
            top = target.split(".")[0]
            for a in node.names:
                is_module = target == top and a.name in _modules(top)
                if is_module:
                    aliases.add(a.asname or a.name)
                if _private(a.name) and not (is_module and top == package):
                    found.append(f"{path.name}:{node.lineno}: from {target} import {a.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and _private(node.attr)):
            found.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_no_private_name_of_another_module(path):
    assert violations(path) == []


def test_the_check_sees_a_private_import(tmp_path):
    """The checker itself finds each kind of reach (so a passing run means something)."""
    probe = tmp_path / "_probe_private_names.py"
    probe.write_text("from .query import _sql_str\nfrom . import decode\nx = decode._DECODERS\n"
                     "from . import _tables\n", encoding="utf-8")
    got = violations(probe, package="redecode")
    assert got == ["_probe_private_names.py:1: from redecode.query import _sql_str",
                   "_probe_private_names.py:3: decode._DECODERS"]
