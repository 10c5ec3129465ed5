"""Which implementation runs: the compiled core or the pure-Python reference.

The compiled core (``redecode._core``, built by ``setup.py`` from ``lib/redecode/_core.pyx`` with
Cython when a C compiler is there) holds C versions of byte loops whose pure-Python versions stay in
the modules that own them (:mod:`redecode.decode`, :mod:`redecode.sniff`, :mod:`redecode.stretches`)
as the reference: both give identical results (``tests/test_core.py``, ``tests/test_stretches.py``).
Each of those modules asks :data:`core` once, at import.

``REDECODE_PURE=1`` (any value but empty or ``0``) in the environment makes every module use the
pure-Python code, for comparison or to rule the compiled code out when investigating.
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["IMPLEMENTATION", "NOTICE", "core"]


def _load() -> tuple[ModuleType | None, str | None]:
    if os.environ.get("REDECODE_PURE", "").strip() not in ("", "0"):
        return None, None
    import importlib.util  # noqa: PLC0415 - only here, once per process

    if importlib.util.find_spec(f"{__package__}._core") is None:
        # the usual case without a compiler: no extension module in the package
        return None, (
            "the compiled decode core was not built (no redecode._core in the installed package); "
            "decoding with the pure-Python decoders (same output, slower). Reinstall with a C "
            "compiler present to build it."
        )
    try:
        from . import _core
    except ImportError as exc:  # built, but it does not load (another Python, a missing symbol)
        return None, (
            f"the compiled decode core was built but does not load ({exc}); decoding with the "
            "pure-Python decoders (same output, slower). Reinstall with a C compiler present to "
            "rebuild it."
        )
    # In a checkout (an editable install), a core older than its source is not used.
    source = os.path.join(os.path.dirname(__file__), "_core.pyx")
    try:
        stale = os.path.getmtime(source) > os.path.getmtime(_core.__file__)
    except OSError:
        stale = False
    if stale:
        return None, (
            "the compiled decode core is older than lib/redecode/_core.pyx; decoding with the "
            "pure-Python decoders (same output, slower). Rebuild it: pip install -e ."
        )
    return _core, None


#: The compiled core module, or None (not built, or ``REDECODE_PURE`` set).
core: ModuleType | None
#: Why the compiled core is not in use although it was not turned off (a one-line notice), else None.
NOTICE: str | None
core, NOTICE = _load()
#: ``"compiled"`` or ``"pure"``.
IMPLEMENTATION: str = "compiled" if core is not None else "pure"
