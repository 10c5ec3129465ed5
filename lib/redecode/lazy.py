"""Regular expressions compiled the first time they are used, not when their module is imported.

Contract. ``_NAME = lazy.pattern(__name__, "_NAME", source, flags)`` at a module's top level stands
for ``_NAME = re.compile(source, flags)``. Nothing is compiled then; the first attribute taken
from it (``_NAME.match``, ``_NAME.sub``...) compiles the pattern with :func:`re.compile`, puts the
compiled pattern into the module's namespace under ``_NAME`` in place of the stand-in (so every
later use in that module is the compiled pattern's own, at no cost) and answers with the compiled
pattern's attribute. A reference taken elsewhere before that (``from module import _NAME``) keeps
forwarding to the same compiled pattern. Matching is :mod:`re`'s, unchanged: the stand-in only
defers the compilation.

Why: Python compiles a regular expression with the pure-Python compiler of :mod:`re` (0.1 to 7 M
instructions a pattern); the patterns this package's modules define cost about 60 M instructions
at import, which every process paid, also a run that reads no page or few (issue 27's fixed cost,
issue 26's small selections), and a command that never matches them.
"""

from __future__ import annotations

import re
import sys
from typing import Any

__all__ = ["LazyPattern", "compiled", "pattern"]


class LazyPattern:
    """``re.compile(source, flags)``, made on first use (see the module docstring). ``compiled()``
    gives the compiled pattern; any other attribute is the compiled pattern's."""

    __slots__ = ("_module", "_name", "_source", "_flags", "_compiled")

    def __init__(self, module: str, name: str, source: str | bytes, flags: int = 0):
        self._module = module
        self._name = name
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern | None = None

    def compiled(self) -> re.Pattern:
        """The compiled pattern (compiled now if it was not yet; raises :class:`re.error` as
        :func:`re.compile` would for a bad pattern)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._source, self._flags)
            namespace = getattr(sys.modules.get(self._module), "__dict__", None)
            if namespace is not None and namespace.get(self._name) is self:
                namespace[self._name] = compiled
        return compiled

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):  # (a slot not set yet, as in a copy under construction: no recursion)
            raise AttributeError(attr)
        return getattr(self.compiled(), attr)

    def __repr__(self) -> str:
        return f"lazy.pattern({self._source!r}, {self._flags!r})"


def pattern(module: str, name: str, source: str | bytes, flags: int = 0) -> LazyPattern:
    """A stand-in for ``re.compile(source, flags)`` bound at the top level of module *module*
    (its ``__name__``) as *name*, compiled on first use (see the module docstring)."""
    return LazyPattern(module, name, source, flags)


def compiled(p: "LazyPattern | re.Pattern") -> re.Pattern:
    """The compiled pattern *p* stands for: *p* itself when it is one already (a module's name
    for it, read after its first use), else ``p.compiled()``. For code that keeps the pattern
    (a cache, a table) rather than using it at once."""
    return p.compiled() if type(p) is LazyPattern else p
