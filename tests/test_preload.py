"""Rules.preload: what the first record would load is loaded before the workers fork, and the
rows do not change."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from redecode.rules import DEFAULT_RULES, RULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "sample_warcs")

# In a fresh interpreter: preload, then decide and decode every text payload of sample_warcs
# (undeclared legacy pages included: the detectors run), and report which modules that loaded.
_PROBE = r"""
import json, sys
from redecode.archive import iter_records
from redecode.inputs import iter_inputs
from redecode.job import process_archive
from redecode.rules import get_rules
rules = get_rules(sys.argv[1])
if sys.argv[2] == "preload":
    rules.preload()
before = set(sys.modules)
rows = []
for path in iter_inputs([sys.argv[3]]):
    for row in process_archive(path, rules):
        rows.append([row["record_id"], row["encoding"], row["source"], row["decode_errors"], row["text"]])
print(json.dumps({"new_modules": sorted(set(sys.modules) - before), "rows": rows}))
"""


def _probe(rules: str, mode: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", _PROBE, rules, mode, SAMPLES],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RULES))
def test_preload_loads_what_records_would_and_changes_no_row(name):
    cold = _probe(name, "cold")
    warm = _probe(name, "preload")
    # The cold run did load modules on its records (detectors, codecs): preload had work to do.
    assert cold["new_modules"], "sample_warcs no longer makes the job load anything lazily"
    # After preload, the records load no detector or codec module of their own.
    lazy = [m for m in warm["new_modules"]
            if m.split(".")[0] in ("cchardet", "charset_normalizer", "chardetng_py", "encodings")
            or m.startswith("_codecs")]
    assert lazy == []
    assert warm["rows"] == cold["rows"]
    assert len(warm["rows"]) > 0


@pytest.mark.parametrize("name", sorted(RULES))
def test_preload_returns_none_and_is_repeatable(name):
    assert RULES[name].preload() is None
    assert RULES[name].preload() is None


def test_detect_preload_refuses_an_unknown_engine():
    from redecode import detect

    with pytest.raises(KeyError, match="unknown detector engine"):
        detect.preload("no-such-engine")


def test_the_job_preloads_before_forking_workers_only(tmp_path, monkeypatch):
    """With several workers the parent preloads once (they share it); one process loads lazily."""
    from redecode import job
    from redecode.rules import Rules

    calls = []
    real = Rules.preload
    monkeypatch.setattr(Rules, "preload", lambda self: calls.append(self.name) or real(self))
    job.run([SAMPLES], str(tmp_path / "one"), workers=1)
    assert calls == []
    job.run([SAMPLES], str(tmp_path / "two"), workers=2)
    assert calls == [DEFAULT_RULES]
