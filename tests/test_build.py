"""The build of the optional compiled core (setup.py) never fails the install.

Without a working C compiler the extension is left out with a one-line notice, and the package
runs its pure-Python decoders (tests/test_core.py ``test_pure_path_suite`` runs the decoder suites
that way).
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_build_without_a_compiler_says_so_and_succeeds(tmp_path):
    # What `pip install .` does (a PEP 517 build in an isolated environment with the build
    # requirements of pyproject.toml), with a C compiler and linker that always fail.
    env = dict(os.environ, CC="false", CXX="false", LDSHARED="false", PIP_DISABLE_PIP_VERSION_CHECK="1")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(tmp_path), str(ROOT)],
        env=env, capture_output=True, text=True,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    notices = {line.strip() for line in output.splitlines() if line.strip().startswith("warc-redecode: ")}
    assert len(notices) == 1, output[-3000:]
    notice = notices.pop()
    assert "the compiled decode core was not built" in notice and "pure-Python decoders will be used" in notice
    (wheel,) = tmp_path.glob("warc_redecode-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "redecode/decode.py" in names
    assert not [n for n in names if n.endswith((".so", ".pyd"))], names
