"""Every decision column is covered by replay, and every derived column by backfill's replay.

The schema gives each column a kind (``redecode.schema.COLUMN_KINDS``): made by the record -> row
code, a fact of the payload found whatever the rules, a decision of the rules' procedure, derived
from the text and the rules' output options, or the rules' identity. A procedure fills the decision
columns (``Procedure.fill``) and its ``replay`` must give every one of them from a stored row, so
that backfill never leaves a column of the prior rules in a row it says the new rules made; the
derived columns are made from the text by ``row.text_columns`` for a full decode and a replayed row
alike. The oracle is the full decode: ``record_row`` of the same record under the new rules.
"""

from __future__ import annotations

import itertools
import os

import pytest

from redecode import schema
from redecode.archive import iter_records
from redecode.backfill import replay_row
from redecode.inputs import iter_inputs
from redecode.job import ROW_RECORD_TYPES, record_row
from redecode.procedures import PROCEDURES, CodecDecision, Decoded, Procedure
from redecode.row import text_columns
from redecode.rules import RULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "sample_warcs")
KINDS = {schema.RECORD, schema.FACT, schema.DECISION, schema.DERIVED, schema.RULES}


def test_every_column_has_one_kind():
    assert set(schema.COLUMN_KINDS) == set(schema.COLUMNS)
    assert set(schema.COLUMN_KINDS.values()) == KINDS
    assert [c for c, k in schema.COLUMN_KINDS.items() if k == schema.RULES] == ["rules", "rules_digest"]


class _Recorder(dict):
    """A row that records which columns were set."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.set: set[str] = set()

    def __setitem__(self, key, value):
        self.set.add(key)
        super().__setitem__(key, value)

    def update(self, *a, **k):
        d = dict(*a, **k)
        self.set.update(d)
        super().update(d)


@pytest.mark.parametrize("name", sorted(PROCEDURES))
def test_fill_sets_exactly_the_decision_columns(name):
    decision = CodecDecision(encoding="windows-1252", source="default", confidence="tentative", codec="cp1252")
    decoded = Decoded(text="x", encoding="windows-1252", decoder="python:cp1252", errors=0, bom_removed=False)
    row = _Recorder(schema.empty_row())
    PROCEDURES[name].fill(row, decision, decoded)
    assert row.set == set(schema.DECISION_COLUMNS)


@pytest.mark.parametrize("outputs", [{}, {"normalize": "NFKC", "graphemes": True}])
def test_text_columns_sets_exactly_the_derived_columns(outputs):
    rules = RULES["browser-2026.11"].with_outputs(**outputs)
    for text in ("x", None):
        row = _Recorder(schema.empty_row(), text=text)
        row.set.clear()
        text_columns(row, rules)
        assert row.set - {"_text_utf8"} == set(schema.DERIVED_COLUMNS)


@pytest.fixture(scope="module")
def records():
    found = []
    for path in iter_inputs([SAMPLE]):
        found += [r for r in iter_records(path) if r.record_type in ROW_RECORD_TYPES]
    assert found
    return found


@pytest.mark.parametrize("new_name", sorted(RULES))
def test_replay_gives_every_decision_column_as_a_full_decode(new_name, records):
    new = RULES[new_name]
    replayed = 0
    for old, record in itertools.product(RULES.values(), records):
        prior = record_row(record, old)
        if prior["status"] != schema.STATUS_DECODED:
            continue
        columns = new.steps.replay(prior, old, new)
        if columns is None:
            continue
        replayed += 1
        assert set(columns) == set(schema.DECISION_COLUMNS), (old.name, record.offset)
        full = record_row(record, new)
        assert columns == {c: full[c] for c in schema.DECISION_COLUMNS}, (old.name, record.warc_path, record.offset)
    if type(new.steps).replay is not Procedure.replay:
        # a procedure with its own replay: the sample crawl must exercise it
        assert replayed > 0, f"{new_name}: no decision of the sample crawl was replayed"


#: The shipped rule sets, and one asked for every output option (its derived columns are not NULL).
WITH_OUTPUTS = {**RULES, "browser-2026.11+nfkc+graphemes": RULES["browser-2026.11"].with_outputs(
    normalize="NFKC", graphemes=True)}


@pytest.mark.slow
@pytest.mark.parametrize("new_name", sorted(WITH_OUTPUTS))
def test_backfill_replay_gives_every_decision_and_derived_column_as_a_full_decode(new_name, records):
    new = WITH_OUTPUTS[new_name]
    columns = schema.DECISION_COLUMNS + schema.DERIVED_COLUMNS
    replayed = 0
    for old, record in itertools.product(RULES.values(), records):
        prior = record_row(record, old)
        prior.pop("_text_utf8", None)  # a stored row has only the columns
        if prior["status"] != schema.STATUS_DECODED:
            continue
        row = replay_row(prior, old, new, replayable=True)
        if row is None:
            continue
        replayed += 1
        full = record_row(record, new)
        assert {c: row[c] for c in columns} == {c: full[c] for c in columns}, (old.name, record.offset)
    if type(new.steps).replay is not Procedure.replay:
        assert replayed > 0, f"{new_name}: no decision of the sample crawl was replayed"
