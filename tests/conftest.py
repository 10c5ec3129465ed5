"""Test-wide settings.

Hypothesis's property tests run without its per-example wall-clock deadline (200 ms by default): a
test here asserts what the code computes, never how fast, and a deadline fails a correct example
on a busy machine (two cores shared with other work). Speed is the benchmark's business
(tests/benchmarks/). A test's own ``@settings(...)`` still sets its number of examples.
"""

from hypothesis import settings

settings.register_profile("redecode", deadline=None)
settings.load_profile("redecode")
