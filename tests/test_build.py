"""The build of the optional compiled core (setup.py) never fails the install.

Without a working C compiler the extension is left out with a one-line notice, and the package
runs its pure-Python decoders (tests/test_core.py ``test_pure_path_suite`` runs the decoder suites
that way). Built from a clean copy of the checkout (a fresh machine has no build/ directory and no
in-place core).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

#: Each builds the package (pip wheel) from a copy of the checkout: the slow tier.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: What a fresh checkout does not hold: build outputs, environments, caches.
_NOT_IN_A_CHECKOUT = shutil.ignore_patterns(".git", ".venv", "env", "build", "dist", "*.egg-info", "__pycache__",
                                            "*.so", "*.pyd", "*.c", ".pytest_cache", ".hypothesis")


def _checkout(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=_NOT_IN_A_CHECKOUT)
    return src


def _wheel_without_a_compiler(src: Path, out: Path) -> tuple[str, list[str]]:
    """What `pip install .` does (a PEP 517 build in an isolated environment with the build
    requirements of pyproject.toml), with a C compiler and linker that always fail: pip's output
    and the wheel's file names."""
    env = dict(os.environ, CC="false", CXX="false", LDSHARED="false", PIP_DISABLE_PIP_VERSION_CHECK="1")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(out), str(src)],
        env=env, capture_output=True, text=True,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    (wheel,) = out.glob("warc_redecode-*.whl")
    return output, zipfile.ZipFile(wheel).namelist()


def test_build_without_a_compiler_says_so_and_succeeds(tmp_path):
    output, names = _wheel_without_a_compiler(_checkout(tmp_path), tmp_path / "wheel")
    notices = {line.strip() for line in output.splitlines() if line.strip().startswith("warc-redecode: ")}
    assert len(notices) == 1, output[-3000:]
    notice = notices.pop()
    assert "the compiled decode core was not built" in notice and "pure-Python decoders will be used" in notice
    assert "redecode/decode.py" in names
    assert not [n for n in names if n.endswith((".so", ".pyd"))], names


def test_a_failed_build_does_not_ship_an_earlier_builds_core(tmp_path):
    # An earlier build (from an older .pyx) left its binary in build/; this build fails to compile.
    src = _checkout(tmp_path)
    build_lib = src / "build" / f"lib.{sysconfig.get_platform()}-{sys.implementation.cache_tag}" / "redecode"
    build_lib.mkdir(parents=True)
    stale = build_lib / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}"
    stale.write_bytes(b"not a current build")
    os.utime(stale, (946684800, 946684800))  # 2000-01-01: older than the C the build generates
    _, names = _wheel_without_a_compiler(src, tmp_path / "wheel")
    assert not [n for n in names if n.endswith((".so", ".pyd"))], names
