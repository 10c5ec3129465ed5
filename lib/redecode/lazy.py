"""Regular expressions compiled, and modules imported, the first time they are used, not when the
module naming them is imported.

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

Modules. ``_name = lazy.module(__name__, "_name", "redecode.sniff")`` at a module's top level
stands for ``from redecode import sniff as _name``: the first attribute taken from it
(``_name.decide``) imports the module with :func:`importlib.import_module`, puts the module into
the namespace under ``_name`` in place of the stand-in and answers with the module's attribute.
For the decision modules, which a run that reads no record never uses: importing them costs
about 0.1 G instructions (issue 27's empty run), while a rule set's digest, which every run
needs, does not need them (:mod:`redecode.procedures`).
"""

from __future__ import annotations

import importlib
import re
import sys
import types
from typing import Any

__all__ = ["LazyModule", "LazyPattern", "compiled", "module", "pattern"]


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


class LazyModule:
    """``import target``, made on first use (see the module docstring). ``loaded()`` gives the
    module; any other attribute is the module's."""

    __slots__ = ("_module", "_name", "_target")

    def __init__(self, module: str, name: str, target: str):
        self._module = module
        self._name = name
        self._target = target

    def loaded(self) -> types.ModuleType:
        """The module (imported now if it was not yet; raises what the import raises)."""
        mod = importlib.import_module(self._target)
        namespace = getattr(sys.modules.get(self._module), "__dict__", None)
        if namespace is not None and namespace.get(self._name) is self:
            namespace[self._name] = mod
        return mod

    def __getattr__(self, attr: str) -> Any:
        if attr in LazyModule.__slots__:  # (a slot not set yet, as in a copy under construction)
            raise AttributeError(attr)
        return getattr(self.loaded(), attr)

    def __repr__(self) -> str:
        return f"lazy.module({self._target!r})"


def module(module: str, name: str, target: str) -> LazyModule:
    """A stand-in for the module *target* (its full name) bound at the top level of module *module*
    (its ``__name__``) as *name*, imported on first use (see the module docstring)."""
    return LazyModule(module, name, target)
