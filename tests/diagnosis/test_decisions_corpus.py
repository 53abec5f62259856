"""The decision corpus's labels are well-formed: every log labelled, values from the allowed sets, the key in
the log, every relabelled log present in its set, and the frozen split disjoint. No accuracy is asserted here
(``benchmarks/bench_decision.py`` measures that)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from healer.model import Category

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DECISIONS = FIXTURES / "decisions"
SHARED = FIXTURES.parent.parent.parent / "shared" / "corpus"

OWNERS = {"code", "metadata", "repository", "platform", "upstream", "history", "nobody"}
DECISION_VALUES = {"change", "rerun", "escalate", "nothing"}
PURPOSES = {
    "test",
    "lint",
    "build",
    "typecheck",
    "install",
    "bot",
    "policy",
    "release",
    "deploy",
    "docs",
    "scheduled",
    "auth",
    "artifact",
    "toolchain",
    "container",
    "coverage",
    "links",
    "health",
    "killed",
    "timeout",
    "cancelled",
}
KINDS = {c.value for c in Category}
FIELDS = {
    "repo",
    "purpose",
    "job",
    "step",
    "workflow",
    "owner",
    "decision",
    "accept",
    "key",
    "source",
    "license",
}

LABELS: dict[str, dict[str, object]] = json.loads((DECISIONS / "labels.json").read_text(encoding="utf-8"))


def _check_common(label: dict[str, object]) -> None:
    assert label["owner"] in OWNERS
    assert label["decision"] in DECISION_VALUES
    assert label["purpose"] in PURPOSES
    assert isinstance(label["repo"], str) and label["repo"].strip()
    # only the PR's code goes to fix rules or the agent; a cancelled job is nobody's and needs nothing
    assert (label["decision"] == "change") == (label["owner"] == "code")
    assert (label["owner"] == "nobody") == (label["decision"] == "nothing")


def test_every_log_has_a_label_and_every_label_a_log() -> None:
    logs = {p.stem for p in (DECISIONS / "logs").glob("*.log")}
    assert logs == set(LABELS)
    assert len(logs) >= 100


@pytest.mark.parametrize("name", sorted(LABELS))
def test_label_is_well_formed(name: str) -> None:
    label = LABELS[name]
    assert set(label) == FIELDS
    _check_common(label)
    accept = label["accept"]
    assert isinstance(accept, list) and accept and set(accept) <= KINDS and len(set(accept)) == len(accept)
    for field in ("job", "step", "workflow", "source", "license"):
        assert isinstance(label[field], str) and label[field].strip()
    text = (DECISIONS / "logs" / f"{name}.log").read_text(encoding="utf-8")
    assert str(label["key"]) and str(label["key"]) in text


@pytest.mark.parametrize(
    ("relabel", "labels"),
    [
        ("relabel-heldout.json", FIXTURES / "heldout" / "labels.json"),
        ("relabel-corpus.json", SHARED / "logs" / "labels.json"),
        ("relabel-logchunks.json", SHARED / "logchunks-dev" / "labels.json"),
    ],
)
def test_relabel_covers_its_set(relabel: str, labels: Path) -> None:
    data: dict[str, dict[str, object]] = json.loads((DECISIONS / relabel).read_text(encoding="utf-8"))
    for entry in data.values():
        assert set(entry) <= {"repo", "purpose", "owner", "decision", "step", "workflow"}
        _check_common(entry)
    if not labels.is_file():
        pytest.skip(f"{labels} is not here (the shared corpus sits beside the project)")
    original = json.loads(labels.read_text(encoding="utf-8"))
    assert set(data) == set(original)


def test_split_is_frozen_and_disjoint() -> None:
    split = json.loads((DECISIONS / "split.json").read_text(encoding="utf-8"))
    dev, test = set(split["dev"]), set(split["test"])
    assert dev and test and not dev & test
    assert "rule_for_new" in split
