"""Build step for the optional compiled decode core, ``redecode._core`` (lib/redecode/_core.pyx).

Everything else about the package is in pyproject.toml. Cython (a build requirement there) turns the
``.pyx`` into C and the C compiler builds the extension. When either step fails (no compiler, no
Python headers, no Cython), the build goes on without the extension, says so in one line, and the
package runs its pure-Python decoders: the same output, more slowly. ``REDECODE_BUILD_CORE=0``
skips the extension on purpose.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NOTICE = (
    "warc-redecode: the compiled decode core was not built ({why}); "
    "the pure-Python decoders will be used (same output, slower)"
)


def _notice(why: str) -> None:
    # (A core built earlier in a checkout from an older .pyx is not used: redecode.native checks.)
    sys.stderr.write(NOTICE.format(why=why) + "\n")


class OptionalBuildExt(build_ext):
    """build_ext that turns a failure to build into the notice above instead of an error."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # a missing compiler surfaces here on some platforms
            _notice(_reason(exc))

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # CompileError, LinkError, DistutilsExecError, OSError...
            _notice(_reason(exc))
            if not self.inplace:
                # A binary an earlier build left in build/ was made from another source: it must
                # not go into this wheel (an installed copy has no .pyx beside it to be checked
                # against, as redecode.native does in a checkout).
                stale = self.get_ext_fullpath(ext.name)
                if os.path.exists(stale):
                    os.remove(stale)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}".rstrip(": ")


def extensions() -> list[Extension]:
    if os.environ.get("REDECODE_BUILD_CORE", "1") == "0":
        _notice("REDECODE_BUILD_CORE=0")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        _notice("Cython is not installed")
        return []
    ext = Extension("redecode._core", ["lib/redecode/_core.pyx"])
    try:
        return cythonize([ext], quiet=True, language_level=3)
    except Exception as exc:
        _notice(_reason(exc))
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
