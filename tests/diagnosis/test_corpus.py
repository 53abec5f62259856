"""Accuracy on a corpus of real failed job logs: the category and the decisive text, both >= 95%.

Run with ``-s`` to see the confusion table (expected category → diagnosed category).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from labelled_logs import Outcome, load_labels, measure, report

from healer.diagnosis.rules import load_rules

CORPUS = Path(__file__).parent.parent / "fixtures" / "corpus"
BAR = 0.95


@pytest.fixture(scope="module")
def outcomes() -> list[Outcome]:
    return measure(CORPUS, load_rules())


def test_the_corpus_is_complete() -> None:
    labels = load_labels(CORPUS)
    assert len(labels) >= 50
    assert {path.stem for path in CORPUS.glob("*.log")} == set(labels)


def test_category_and_decisive_text_accuracy(outcomes: list[Outcome]) -> None:
    category, key = report(outcomes)
    assert category >= BAR
    assert key >= BAR
