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

:func:`unchecked_new` makes, for a frozen dataclass with slots made per record, a function that
builds its instances without the dataclass's ``__init__``; its text goes through the same
``exec``, so it is compiled ahead of time too.
"""

# (no "from __future__ import annotations" here: the builtin exec below, for texts not held,
# compiles with the flags of the code that calls it, and must compile as dataclasses does)

import builtins
import dataclasses
import types
from dataclasses import dataclass

__all__ = ["dataclass", "precompiled", "unchecked_new"]

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


def unchecked_new(cls):
    """A function ``new(field, ...)`` that makes an instance of *cls*, a frozen dataclass with
    slots, from its fields' values (positional in field order, even for a ``kw_only`` class, or by
    name; a field's plain default applies): the same as ``cls(...)`` (class, values, equality,
    hash, repr) and as frozen, for a tenth to a third of the cost of the dataclass's ``__init__``,
    which sets each slot through ``object.__setattr__``. For classes made once or more per record.

    How: *new* fills an object of a plain class with the same slots, one attribute store a
    field, then sets its class to *cls* (CPython allows ``__class__`` assignment between classes
    of identical layout). No ``__post_init__`` runs and no value is converted or checked: the
    caller gives what the ``__init__`` would store. The function's text is compiled through
    :mod:`dataclasses`' ``exec`` (:func:`_exec`), so it comes from :mod:`redecode._dataclass_code`
    like the generated methods. Raises ``TypeError`` when *cls* is not a dataclass whose slots are
    its fields, or has a field without ``__init__`` parameter or with a ``default_factory``."""
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    if getattr(cls, "__slots__", None) != names or any(
            not f.init or f.default_factory is not dataclasses.MISSING for f in fields):
        raise TypeError(f"{cls.__qualname__}: not a dataclass with slots whose fields all take plain values")
    defaults = [f.default for f in fields if f.default is not dataclasses.MISSING]
    params = ", ".join(f.name if f.default is dataclasses.MISSING else f"{f.name}=_default_{f.name}"
                       for f in fields)
    outer = ", ".join(["_new", "_builder", "_cls"]
                      + [f"_default_{f.name}" for f in fields if f.default is not dataclasses.MISSING])
    text = (f"def __create_fn__({outer}):\n"
            f"  def new({params}):\n"
            "    o = _new(_builder)\n"
            + "".join(f"    o.{name} = {name}\n" for name in names)
            + "    o.__class__ = _cls\n"
            "    return o\n"
            "  return new")
    ns: dict = {}
    vars(dataclasses).get("exec", _builtin_exec)(text, {"__builtins__": builtins, "__name__": cls.__module__}, ns)
    builder = type(f"_{cls.__name__}Builder", (), {"__slots__": names, "__module__": cls.__module__})
    new = ns["__create_fn__"](object.__new__, builder, cls, *defaults)
    new.__name__ = new.__qualname__ = f"new_{cls.__name__}"
    new.__module__ = cls.__module__
    new.__doc__ = f"``{cls.__name__}(...)`` without its ``__init__`` (:func:`redecode.dataclass_code.unchecked_new`)."
    return new


if getattr(dataclasses, "_create_fn", None) is not None and "exec" not in vars(dataclasses):
    dataclasses.exec = _exec  # (the module's name "exec", which _create_fn calls)
