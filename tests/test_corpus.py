"""Accuracy on a corpus of real failed job logs: the category and the decisive text, both >= 95%.

Run with ``-s`` to see the confusion table (expected category → diagnosed category).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from healer.classify import classify
from healer.logs import read_tail
from healer.model import Evidence, Job
from healer.rules import load_rules

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
BAR = 0.95


@dataclass(frozen=True)
class Outcome:
    name: str
    expected: str
    accept: tuple[str, ...]
    got: str
    rule: str
    key_found: bool

    @property
    def category_ok(self) -> bool:
        return self.got in self.accept


@pytest.fixture(scope="module")
def outcomes() -> list[Outcome]:
    labels = json.loads((CORPUS / "labels.json").read_text(encoding="utf-8"))
    rules = load_rules()
    results = []
    for name, label in sorted(labels.items()):
        tail = read_tail(CORPUS / f"{name}.log")
        job = Job(id=1, name=name, status="completed", conclusion="failure")
        diagnosis = classify(Evidence(job=job, log=tail), rules)
        keys = [label["key"]] if "key" in label else label["key_lines"]
        excerpt = "\n".join(diagnosis.excerpt)
        results.append(
            Outcome(
                name=name,
                expected=label["accept"][0],
                accept=tuple(label["accept"]),
                got=diagnosis.category.value,
                rule=diagnosis.rule,
                key_found=any(key in excerpt for key in keys),
            )
        )
    return results


def confusion_table(outcomes: list[Outcome]) -> str:
    """Rows: the preferred label; columns: the diagnosed category (an accepted alternative is right)."""
    categories = sorted({o.expected for o in outcomes} | {o.got for o in outcomes})
    counts = Counter((o.expected, o.got) for o in outcomes)
    width = max(len(c) for c in categories) + 1
    header = "expected \\ got".ljust(width + 2) + " ".join(c[:5].rjust(5) for c in categories)
    rows = [header]
    for expected in categories:
        cells = " ".join(str(counts[(expected, got)] or ".").rjust(5) for got in categories)
        rows.append(expected.ljust(width + 2) + cells)
    return "\n".join(rows)


def test_the_corpus_is_complete() -> None:
    labels = json.loads((CORPUS / "labels.json").read_text(encoding="utf-8"))
    assert len(labels) >= 50
    assert {path.stem for path in CORPUS.glob("*.log")} == set(labels)


def test_category_and_decisive_text_accuracy(outcomes: list[Outcome]) -> None:
    total = len(outcomes)
    category = sum(o.category_ok for o in outcomes) / total
    key = sum(o.key_found for o in outcomes) / total
    print()
    print(confusion_table(outcomes))
    print(f"category in accept: {category:.1%}   decisive text in excerpt: {key:.1%}   ({total} logs)")
    for o in outcomes:
        if not (o.category_ok and o.key_found):
            print(
                f"  miss: {o.name}: got {o.got} ({o.rule}), accept {list(o.accept)}, key found {o.key_found}"
            )
    assert category >= BAR
    assert key >= BAR
