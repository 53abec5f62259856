"""Measure the classifier on a folder of labelled job logs (``labels.json`` beside ``*.log``).

A label has ``accept`` (categories that count as right, the preferred one first) and either ``key`` (a piece
of the decisive line) or ``key_lines`` (lines that explain the failure, any one of which will do); ``job``
names the check when the log's file name is not it. Shared by the corpus and the held-out accuracy tests.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from healer.diagnosis.classify import classify
from healer.diagnosis.readback import read_back
from healer.diagnosis.rules import RuleSet
from healer.logsource import FileLogSource
from healer.model import Evidence, Job


@dataclass(frozen=True)
class Outcome:
    name: str
    accept: tuple[str, ...]
    got: str
    rule: str
    key_found: bool
    excerpt_lines: int
    excerpt_bytes: int

    @property
    def expected(self) -> str:
        return self.accept[0]

    @property
    def category_ok(self) -> bool:
        return self.got in self.accept


def load_labels(folder: Path) -> dict[str, dict[str, Any]]:
    labels: dict[str, dict[str, Any]] = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    return labels


def measure(folder: Path, rules: RuleSet) -> list[Outcome]:
    """Diagnose every labelled log of ``folder`` as the healer would (read back from the end)."""
    results = []
    for name, label in sorted(load_labels(folder).items()):
        job = Job(id=1, name=str(label.get("job", name)), status="completed", conclusion="failure")
        diagnosis = classify(Evidence(job=job, log=read_back(FileLogSource(folder / f"{name}.log"))), rules)
        excerpt = "\n".join(diagnosis.excerpt)
        keys = [label["key"]] if "key" in label else label["key_lines"]
        results.append(
            Outcome(
                name=name,
                accept=tuple(str(c) for c in label["accept"]),
                got=diagnosis.category.value,
                rule=diagnosis.rule,
                key_found=any(str(key) in excerpt for key in keys),
                excerpt_lines=len(diagnosis.excerpt),
                excerpt_bytes=len(excerpt.encode("utf-8")),
            )
        )
    return results


def confusion_table(outcomes: list[Outcome]) -> str:
    """Rows: the preferred label; columns: the diagnosed category (an accepted alternative is right)."""
    categories = sorted({o.expected for o in outcomes} | {o.got for o in outcomes})
    counts = Counter((o.expected, o.got) for o in outcomes)
    width = max(len(c) for c in categories) + 1
    rows = ["expected \\ got".ljust(width + 2) + " ".join(c[:5].rjust(5) for c in categories)]
    for expected in categories:
        cells = " ".join(str(counts[(expected, got)] or ".").rjust(5) for got in categories)
        rows.append(expected.ljust(width + 2) + cells)
    return "\n".join(rows)


def report(outcomes: list[Outcome]) -> tuple[float, float]:
    """Print the confusion table, the two figures and the misses (visible with ``-s``); return the figures."""
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
    return category, key
