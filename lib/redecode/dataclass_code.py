"""The methods :mod:`dataclasses` generates for this package's dataclasses, compiled ahead of time.

``from .dataclass_code import dataclass`` is ``from dataclasses import dataclass`` (the same
function) that first makes :mod:`dataclasses` take the code of the methods it generates
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, a frozen class's ``__setattr__`` and
``__delattr__``) from :mod:`redecode._dataclass_code` when it holds the source text
:mod:`dataclasses` is about to compile.

Why. Python 3.11's :mod:`dataclasses` writes each method as source text and compiles it with
``exec`` each time a module defining a dataclass is imported: this package's 38 dataclasses on a
run's path are about 200 texts, 70 KB, and their parsing and compiling cost 0.15 G instructions
(about 30 ms of CPU) in every process that reads records: 15% of what re-decoding a 2% index
selection of the 100 MB benchmark crawl costs (issue 26), a quarter of an empty run (issue 27).
:mod:`redecode._dataclass_code` holds the same texts as functions of a module, which Python
compiles once to its bytecode cache like any other module, so a process only loads them.

How. :mod:`dataclasses` (3.11: ``_create_fn``) runs ``exec(text, globals, ns)`` where ``text``
defines one function, ``__create_fn__``, which it then calls. :func:`_exec`, set as the name
``exec`` in :mod:`dataclasses`' namespace (shadowing the builtin for that module only), does the
same with the code object compiled from that very text when :mod:`redecode._dataclass_code` has
it: it binds ``__create_fn__`` in ``ns`` to a function of that code over ``globals``, which is
what ``exec`` of the text does. Any other text, any other call, goes to the builtin ``exec``, so
other libraries' dataclasses, and this package's under another Python version (whose
:mod:`dataclasses` writes other texts), are made exactly as before. The classes are the same:
same methods, signatures, annotations, names; only a method's code object names
``_dataclass_code.py`` as its file instead of ``<string>``. ``tests/test_dataclass_code.py``
proves every text this package's dataclasses generate is in :mod:`redecode._dataclass_code` on
the Python it was generated for, with code equal to what compiling the text gives.

After changing a dataclass (its fields, defaults, options), regenerate:
``python tools/gen_dataclass_code.py`` (the test says so when it is needed).
"""

# (no "from __future__ import annotations" here: the builtin exec below, for texts not held,
# compiles with the flags of the code that calls it, and must compile as dataclasses does)

import builtins
import dataclasses
import types
from dataclasses import dataclass

__all__ = ["dataclass", "precompiled"]

_builtin_exec = builtins.exec
#: source text -> the code object of the ``__create_fn__`` it defines (loaded on first use)
_CODE: dict[str, types.CodeType] | None = None


def precompiled() -> dict[str, types.CodeType]:
    """The texts :mod:`redecode._dataclass_code` holds, each with the code object of the
    ``__create_fn__`` function it defines (empty when that module was generated for another
    Python version than this one)."""
    global _CODE
    if _CODE is None:
        import sys  # noqa: PLC0415

        from . import _dataclass_code as generated  # noqa: PLC0415

        if tuple(sys.version_info[:2]) != generated.PYTHON:
            _CODE = {}
        else:
            _CODE = {text: fn.__code__ for text, fn in zip(generated.TEXTS, generated.FUNCTIONS)}
    return _CODE


def _exec(source, globals=None, locals=None, /, **kwargs):  # noqa: A002 - exec's own parameters
    """``exec`` for :mod:`dataclasses`: a generated method's text found in
    :func:`precompiled` is "executed" by binding its function in *locals*; anything else is
    the builtin ``exec``."""
    if (type(source) is str and type(locals) is dict and type(globals) is dict and not kwargs
            and "__builtins__" in globals):
        code = precompiled().get(source)
        if code is not None:
            locals["__create_fn__"] = types.FunctionType(code, globals)
            return None
    return _builtin_exec(source, globals, locals, **kwargs)


if getattr(dataclasses, "_create_fn", None) is not None and "exec" not in vars(dataclasses):
    dataclasses.exec = _exec  # (the module's name "exec", which _create_fn calls)
