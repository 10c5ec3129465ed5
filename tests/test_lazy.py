"""redecode.lazy: regular expressions compiled on first use (issue 27's fixed cost).

The stand-in must match exactly as ``re.compile`` of the same source does (it is the same compiled
pattern), replace itself in its module on first use, and a run's start-up must compile none of
the patterns the decision modules define.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types

import pytest

from redecode import lazy


def _module(name: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    return mod


@pytest.fixture
def home():
    mod = _module("_test_lazy_home")
    yield mod
    del sys.modules["_test_lazy_home"]


def test_first_use_compiles_and_replaces_the_stand_in(home):
    home._P = lazy.pattern(home.__name__, "_P", rb"[\x80-\xff]+", re.ASCII)
    stand_in = home._P
    assert isinstance(stand_in, lazy.LazyPattern)
    m = home._P.search(b"abc\xe9\xe8def")
    assert m.span() == (3, 5)
    assert isinstance(home._P, re.Pattern)  # the module's name is now the compiled pattern
    assert home._P.pattern == rb"[\x80-\xff]+" and home._P.flags == re.compile(rb"[\x80-\xff]+", re.ASCII).flags
    # a reference taken before the first use forwards to the same compiled pattern
    assert stand_in.compiled() is home._P
    assert stand_in.findall(b"\xff a \xfe\xfd") == [b"\xff", b"\xfe\xfd"]
    assert lazy.compiled(stand_in) is home._P and lazy.compiled(home._P) is home._P


def test_a_name_rebound_meanwhile_is_left_alone(home):
    p = lazy.pattern(home.__name__, "_Q", r"a+")
    home._Q = "something else"
    assert p.match("aab").group() == "aa"
    assert home._Q == "something else"


def test_a_copy_forwards_too(home):
    import copy
    import pickle

    p = lazy.pattern(home.__name__, "_C", r"b+")
    for other in (copy.copy(p), copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert other.search("abba").span() == (1, 3)


def test_a_bad_pattern_raises_re_error_on_first_use(home):
    home._BAD = lazy.pattern(home.__name__, "_BAD", r"(")
    with pytest.raises(re.error):
        home._BAD.match("x")


@pytest.mark.parametrize("source, flags, text", [
    (r"\s+", 0, "a \t\nb\u3000c"),
    (r"(?i)k", 0, "K\u212ak"),
    (rb"<[^<>]*>", 0, b"<a> x </b>"),
    (r"[^:]{1,15}://(?:[A-Za-z0-9-]+\.)+([A-Za-z][A-Za-z0-9-]*)", re.M, "http://a.b.example.jp/"),
])
def test_matches_as_re_compile_does(home, source, flags, text):
    home._R = lazy.pattern(home.__name__, "_R", source, flags)
    ref = re.compile(source, flags)
    assert [m.span() for m in home._R.finditer(text)] == [m.span() for m in ref.finditer(text)]
    dash = b"-" if isinstance(text, bytes) else "-"
    assert home._R.sub(dash, text) == ref.sub(dash, text)


def test_start_up_compiles_none_of_the_decision_modules_patterns():
    """Importing what ``redecode run`` imports (and what rule sets' digests need), and the decision
    modules a run imports when it decides its first record, compiles no pattern of the modules that
    define them lazily: their stand-ins are all still uncompiled."""
    code = """
import json, sys
import redecode_jobs.cli, redecode_jobs.run_cmd
from redecode import lazy, rules
rules.RULES[rules.DEFAULT_RULES].digest
from redecode import decode, detect, prescan, sniff, stretches, validate
found = {}
for name, mod in list(sys.modules.items()):
    if name.startswith("redecode."):
        for attr, value in vars(mod).items():
            if isinstance(value, lazy.LazyPattern):
                found[f"{name}.{attr}"] = value._compiled is not None
print(json.dumps(found))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    found = json.loads(out)
    assert len(found) >= 20, found  # prescan, decode, sniff, validate, stretches, warc, row, detect
    assert not any(found.values()), sorted(k for k, v in found.items() if v)


def test_a_module_is_imported_on_first_use_and_replaces_the_stand_in(home):
    sys.modules.pop("json.tool", None)  # (a standard module no test imports, so its import is seen)
    home._tool = lazy.module(home.__name__, "_tool", "json.tool")
    stand_in = home._tool
    assert isinstance(stand_in, lazy.LazyModule) and "json.tool" not in sys.modules
    assert callable(home._tool.main)  # the first attribute imports it
    assert "json.tool" in sys.modules
    assert home._tool is sys.modules["json.tool"]  # the module's name is now the module itself
    # a reference taken before the first use forwards to the same module
    assert stand_in.loaded() is home._tool and stand_in.main is home._tool.main


def test_a_module_name_rebound_meanwhile_is_left_alone(home):
    m = lazy.module(home.__name__, "_m", "json")
    home._m = "something else"
    assert m.dumps([1]) == "[1]"
    assert home._m == "something else"


def test_a_missing_module_raises_on_use_not_at_binding(home):
    home._missing = lazy.module(home.__name__, "_missing", "redecode._no_such_module")
    with pytest.raises(ModuleNotFoundError):
        home._missing.anything
    assert isinstance(home._missing, lazy.LazyModule)
