"""The dataclass methods compiled ahead of time (redecode.dataclass_code, redecode._dataclass_code):
every text Python's dataclasses generates for this package's dataclasses is there, with the code
compiling that text gives, so the classes are made exactly as without it; other texts go to the
builtin exec; and every module that defines a dataclass takes ``dataclass`` from
redecode.dataclass_code (else its classes are compiled at each import, issues 26 and 27)."""

from __future__ import annotations

import ast
import dataclasses
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from redecode import _dataclass_code as generated
from redecode import dataclass_code

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted([*(ROOT / "lib" / "redecode").glob("*.py"), *(ROOT / "jobs").glob("*.py")])
REGENERATE = "regenerate lib/redecode/_dataclass_code.py: python tools/gen_dataclass_code.py"

needs_its_python = pytest.mark.skipif(
    tuple(sys.version_info[:2]) != generated.PYTHON,
    reason=f"_dataclass_code.py was generated for Python {generated.PYTHON}: under "
           f"{sys.version_info[:2]} dataclass_code uses none of it (the classes are compiled as without it)")


def _same_code(a: types.CodeType, b: types.CodeType) -> bool:
    """Equal code objects but for where they say they come from (file, line numbers)."""
    for attr in ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount",
                 "co_posonlyargcount", "co_kwonlyargcount", "co_flags", "co_name", "co_qualname",
                 "co_nlocals", "co_stacksize", "co_exceptiontable"):
        if getattr(a, attr, None) != getattr(b, attr, None):
            return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType) or isinstance(y, types.CodeType):
            if not (isinstance(x, types.CodeType) and isinstance(y, types.CodeType) and _same_code(x, y)):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


@needs_its_python
def test_each_function_is_its_text_compiled():
    assert len(generated.TEXTS) == len(generated.FUNCTIONS) == len(set(generated.TEXTS))
    for text, fn in zip(generated.TEXTS, generated.FUNCTIONS):
        module = compile(text, "<string>", "exec", dont_inherit=True)  # as dataclasses' exec compiles it
        (code,) = [c for c in module.co_consts if isinstance(c, types.CodeType)]
        assert _same_code(code, fn.__code__), text


@needs_its_python
def test_every_text_this_packages_dataclasses_generate_is_there():
    """Import every module in a fresh interpreter, noting each text dataclasses compiles for a
    class of this package: all are in _dataclass_code (after changing a dataclass, regenerate)."""
    code = (
        "import builtins, dataclasses, importlib, json, sys\n"
        "sys.path[:0] = [sys.argv[1]]\n"
        "import gen_dataclass_code as g\n"
        "print(json.dumps(g.captured_texts()))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(ROOT / "tools")], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    missing = sorted(set(json.loads(proc.stdout)) - set(generated.TEXTS))
    assert not missing, f"{len(missing)} texts missing: {REGENERATE}\n" + "\n\n".join(missing[:3])


@needs_its_python
def test_a_class_is_made_as_without_it():
    """redecode.params run twice, its dataclasses made by the builtin exec and through
    dataclass_code: the same methods (code, names, annotations, globals), the same behaviour."""
    import importlib.util

    import redecode.params

    texts = []

    def noting(source, globals=None, locals=None, /, **kwargs):  # noqa: A002
        texts.append(source)
        # (compiled without this module's "from __future__ import annotations", as dataclasses compiles)
        return dataclass_code._builtin_exec(compile(source, "<string>", "exec", dont_inherit=True), globals,
                                            locals, **kwargs)

    def made_with(exec_):
        spec = importlib.util.spec_from_file_location("redecode.params", redecode.params.__file__)
        module = importlib.util.module_from_spec(spec)
        saved = vars(dataclasses)["exec"]
        dataclasses.exec = exec_
        try:
            spec.loader.exec_module(module)
        finally:
            dataclasses.exec = saved
        return module.AuthorParams

    compiled = made_with(noting)
    assert texts and all(t in dataclass_code.precompiled() for t in texts)
    loaded = made_with(dataclass_code._exec)
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
        a, b = getattr(compiled, name), getattr(loaded, name)
        # (__repr__ is dataclasses' recursion guard around the generated function)
        a, b = getattr(a, "__wrapped__", a), getattr(b, "__wrapped__", b)
        assert _same_code(a.__code__, b.__code__), name
        assert (a.__qualname__, a.__annotations__, a.__defaults__, a.__kwdefaults__, a.__module__) == (
            b.__qualname__, b.__annotations__, b.__defaults__, b.__kwdefaults__, b.__module__)
        assert a.__code__.co_filename == "<string>" and b.__code__.co_filename == generated.__file__
    assert repr(loaded()) == repr(compiled())
    assert hash(loaded()) == hash(compiled())
    assert loaded() == loaded() and loaded() != loaded(siblings=not loaded().siblings)
    with pytest.raises(dataclasses.FrozenInstanceError):
        loaded().siblings = True


def test_other_texts_and_calls_go_to_the_builtin_exec():
    ns: dict = {}
    dataclass_code._exec("x = 1 + 1", {"__builtins__": __builtins__}, ns)
    assert ns == {"x": 2}
    # compiled as dataclasses compiles (no future flags of redecode.dataclass_code's or this module's)
    dataclass_code._exec("def f(a: int): pass", {"__builtins__": __builtins__}, ns)
    assert ns["f"].__annotations__ == {"a": int}
    g = {"__builtins__": __builtins__}
    dataclass_code._exec("y = 3", g)  # (no locals: the globals are)
    assert g["y"] == 3


def test_dataclasses_execs_through_it():
    assert vars(dataclasses)["exec"] is dataclass_code._exec
    assert dataclass_code.dataclass is dataclasses.dataclass


def _defines_a_dataclass(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for d in node.decorator_list:
                target = d.func if isinstance(d, ast.Call) else d
                if (isinstance(target, ast.Name) and target.id == "dataclass") or (
                        isinstance(target, ast.Attribute) and target.attr == "dataclass"):
                    return True
    return False


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_modules_with_dataclasses_take_dataclass_from_dataclass_code(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if not _defines_a_dataclass(tree) or path.name == "dataclass_code.py":
        return
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert any(n.module == "dataclass_code" and n.level == 1 and any(a.name == "dataclass" for a in n.names)
               for n in imports), f"{path.name}: use `from .dataclass_code import dataclass`"
    assert not any(n.module == "dataclasses" and any(a.name == "dataclass" for a in n.names) for n in imports)


def _unchecked_cases():
    from redecode import decode, language, sniff, validate

    decision = sniff.Decision(encoding="UTF-8", source="bom", confidence="certain")
    decoded = decode.DecodeResult("x", "UTF-8", 0, False)
    return [
        (decode.DecodeResult, dict(text="Grüße", encoding="windows-1252", errors=2, bom_removed=True),
         decode._new_result),
        (decode.Utf8DecodeResult, dict(utf8=b"\xc3\xa9", length=1, encoding="UTF-8", errors=0, bom_removed=False),
         decode._new_utf8),
        (validate.Evidence, dict(kind="meta", where="meta", encoding="KOI8-R", weight=3), validate._new_evidence),
        (validate.Validated, dict(decision=decision, decoded=decoded, verdict=None), validate._new_validated),
        (validate.LanguageFinding, dict(primary="KOI8-R", scores={"KOI8-R": 1.5}, best=None, lead=-0.5, joined="x"),
         validate._new_finding),
        (language.Plausibility, dict(language="ru", bits=12.5, score=0.5, units=25, evidence=25, defects=0),
         language._new_plausibility),
        (sniff.Decision, {f.name: getattr(decision, f.name) for f in dataclasses.fields(sniff.Decision)},
         sniff._new_decision),
    ]


@pytest.mark.parametrize("cls, values, module_new", _unchecked_cases(), ids=lambda c: getattr(c, "__name__", ""))
def test_unchecked_new_makes_what_the_class_makes(cls, values, module_new):
    """unchecked_new(cls)(...) is cls(...): the same class, fields, equality, hash and repr, and as
    frozen, positional (in field order) or by name; the modules' own (_new_result, ...) are such."""
    new = dataclass_code.unchecked_new(cls)
    made = cls(**values)
    for fast in (new(*values.values()), new(**values), module_new(*values.values())):
        assert type(fast) is cls and fast == made and repr(fast) == repr(made)
        assert [getattr(fast, f.name) for f in dataclasses.fields(cls)] == list(values.values())
        if cls.__hash__ is not None and all(isinstance(v, (str, int, float, bytes, bool, type(None)))
                                           for v in values.values()):
            assert hash(fast) == hash(made)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(fast, dataclasses.fields(cls)[0].name, None)


def test_unchecked_new_defaults_and_refusals():
    from redecode import validate

    assert validate._new_evidence("meta", "meta", "KOI8-R") == validate.Evidence("meta", "meta", "KOI8-R")
    assert validate._new_finding("a", {}, None, 0.0).joined is None

    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        a: list = dataclasses.field(default_factory=list)

    for cls in (NoSlots, Factory):
        with pytest.raises(TypeError):
            dataclass_code.unchecked_new(cls)
