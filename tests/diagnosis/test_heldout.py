"""Accuracy on held-out job logs the rules were not written against: category and decisive text, both >= 95%.

The logs in ``fixtures/heldout`` are the real output of real tools (pytest, mypy, eslint, jest, cargo,
gcc, javac, go, shellcheck, npm, pip …) run on small broken projects, plus the runner's own failure
messages, laid out the way the Actions runner writes a job log. Run with ``-s`` to see the confusion
table and the misses.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from labelled_logs import Outcome, load_labels, measure, report

from healer.diagnosis.classify import MAX_EXCERPT_BYTES, MAX_EXCERPT_LINES, classify
from healer.diagnosis.rules import load_rules
from healer.model import Category, Diagnosis, Evidence, Job, LogTail

HELDOUT = Path(__file__).parent.parent / "fixtures" / "heldout"
BAR = 0.95
CATEGORIES = {category.value for category in Category}


@pytest.fixture(scope="module")
def outcomes() -> list[Outcome]:
    return measure(HELDOUT, load_rules())


def test_every_log_is_labelled_with_known_categories_and_a_key() -> None:
    labels = load_labels(HELDOUT)
    assert len(labels) >= 60
    assert {path.stem for path in HELDOUT.glob("*.log")} == set(labels)
    for name, label in labels.items():
        assert set(label["accept"]) <= CATEGORIES, name
        # The key is a piece of the log itself, so a miss means the excerpt left it out.
        assert str(label["key"]) in (HELDOUT / f"{name}.log").read_text(encoding="utf-8"), name


def test_category_and_decisive_text_accuracy_on_held_out_logs(outcomes: list[Outcome]) -> None:
    category, key = report(outcomes)
    assert category >= BAR
    assert key >= BAR


def test_every_excerpt_stays_small(outcomes: list[Outcome]) -> None:
    for o in outcomes:
        assert o.excerpt_lines <= MAX_EXCERPT_LINES, o.name
        assert o.excerpt_bytes <= MAX_EXCERPT_BYTES, o.name


def _diagnose(log: str) -> Diagnosis:
    job = Job(id=1, name="check", status="completed", conclusion="failure")
    tail = LogTail(text=log, bytes_read=len(log.encode("utf-8")), truncated=False)
    return classify(Evidence(job=job, log=tail), load_rules())


def _job_log(command: str, output: str, exit_code: int = 1) -> str:
    lines = [
        "##[group]Run actions/checkout@v5",
        "##[endgroup]",
        f"##[group]Run {command}",
        command,
        "shell: /usr/bin/bash -e {0}",
        "##[endgroup]",
        *output.splitlines(),
        f"##[error]Process completed with exit code {exit_code}.",
    ]
    return "".join(f"2026-11-02T09:14:03.{n:07d}Z {line}\n" for n, line in enumerate(lines))


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        pytest.param("pytest -q tests/unit", "test", id="pytest"),
        pytest.param("bundle exec rake test", "test", id="rake-test"),
        pytest.param("npx vue-tsc --noEmit", "typecheck", id="vue-tsc"),
        pytest.param("vale docs/", "lint", id="vale"),
        pytest.param("shfmt -d scripts/", "format", id="shfmt-diff"),
        pytest.param("xcodebuild -scheme App build", "build", id="xcodebuild"),
        pytest.param("conda env create -f environment.yml", "dependency", id="conda"),
        # a release script's failure is the repository's release set-up (healer.diagnosis.owner)
        pytest.param("./scripts/release.sh", "config", id="release-script"),
        pytest.param("./scripts/frobnicate.sh", "unknown", id="no-prior"),
    ],
)
def test_an_unrecognised_failure_takes_its_category_from_the_command(command: str, expected: str) -> None:
    # output no rule knows: only the step's command says what kind of check failed
    output = "step 1/3 ok\nstep 2/3 ok\nthe widget frobnicator gave up (state 7)"
    diagnosis = _diagnose(_job_log(command, output))
    assert diagnosis.category.value == expected
    assert any("frobnicator gave up" in line for line in diagnosis.excerpt)


def test_a_rule_that_reads_the_output_beats_the_command_prior() -> None:
    output = 'Exception in thread "main" java.lang.IllegalStateException: x'
    diagnosis = _diagnose(_job_log("pytest -q", output))
    assert diagnosis.rule == "jvm.exception"


def test_the_runners_post_job_lines_stay_out_of_the_excerpt() -> None:
    log = _job_log("pytest -q", "E   assert 3 == 2\n1 failed in 0.01s")
    log += "".join(
        f"2026-11-02T09:15:00.{n:07d}Z {line}\n"
        for n, line in enumerate(["Post job cleanup.", "[command]/usr/bin/git version", "git version 2.51.0"])
    )
    diagnosis = _diagnose(log + "2026-11-02T09:15:01.0000000Z Cleaning up orphan processes\n")
    assert diagnosis.category is Category.TEST
    assert "1 failed in 0.01s" in diagnosis.excerpt
    assert not any("Post job" in line or "git version" in line for line in diagnosis.excerpt)
