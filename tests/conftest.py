"""Test-wide settings.

Hypothesis's property tests run without its per-example wall-clock deadline (200 ms by default): a
test here asserts what the code computes, never how fast, and a deadline fails a correct example
on a busy machine (two cores shared with other work). Speed is the benchmark's business
(tests/benchmarks/). A test's own ``@settings(...)`` still sets its number of examples.

SIGINT: the tests that stop a run with it (tests/test_stops.py, tests/test_repair_resume.py) need
it to reach the run. A test runner started where SIGINT is ignored (a script's background job,
``nohup``) would pass that on to every process it starts, and Python keeps an ignored SIGINT
ignored: so Python's own handler is put back here, and the processes the tests start get the
default action.
"""

import signal

from hypothesis import settings

if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile("redecode", deadline=None)
settings.load_profile("redecode")
