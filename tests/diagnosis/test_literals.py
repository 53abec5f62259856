"""The rules' pre-filter: the words an expression cannot match without, and that it never drops a match."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from healer.diagnosis.rules import load_rules
from healer.diagnosis.rules.literals import any_required_words, required_words

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        pytest.param(r"^npm ERR! code E(?:RESOLVE|404)", {"npm err! code e"}, id="literal-run"),
        pytest.param(r"(?i)connection reset|ECONNRESET", {"connection reset", "econnreset"}, id="branches"),
        pytest.param(r"^!{3,} KeyboardInterrupt !{3,}$", {" keyboardinterrupt "}, id="repeats-around"),
        pytest.param(r"[Pp]ermission denied", {"ermission denied"}, id="class-breaks-the-run"),
        pytest.param(r"(?:foo)?barbaz", {"barbaz"}, id="optional-part-skipped"),
        pytest.param(r"\d+ failed|ab", None, id="a-branch-too-short"),
        pytest.param(r".*", None, id="nothing-required"),
    ],
)
def test_the_required_words_of_an_expression(pattern: str, words: set[str] | None) -> None:
    found = required_words(re.compile(pattern))
    assert (set(found) if found is not None else None) == words


def test_no_shipped_rule_loses_a_match_to_the_pre_filter() -> None:
    # every line that a rule's expression matches, in a tenth of the held-out logs (to stay fast), holds one
    # of the expression's required words
    block = "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in sorted((FIXTURES / "heldout").glob("*.log"))[::10]
    )
    checked = 0
    for rule in load_rules():
        words = rule._words
        if words is None:
            continue
        for pattern in rule._match_block:
            for match in pattern.finditer(block):
                start = block.rfind("\n", 0, match.start()) + 1
                end = block.find("\n", match.end())
                line = block[start : end if end != -1 else len(block)].lower()
                checked += 1
                assert any(word in line for word in words), (rule.id, line)
    assert checked > 100


@pytest.mark.parametrize(
    ("patterns", "words"),
    [
        pytest.param(
            [r"^sudo: a terminal is required", r"no askpass"],
            {"sudo: a terminal is required", "no askpass"},
            id="union",
        ),
        pytest.param([r"(?i)Killed", r"^\S+$"], None, id="one-unknown"),
        pytest.param([r"error\[E\d+\]"], {"error[e"}, id="one"),
    ],
)
def test_the_required_words_of_a_rules_expressions_are_the_union_of_each_ones(
    patterns: list[str], words: set[str] | None
) -> None:
    found = any_required_words(tuple(re.compile(p) for p in patterns))
    assert (set(found) if found is not None else None) == words


def test_a_rules_alternation_is_compiled_only_once_a_log_holds_its_words() -> None:
    (rule,) = load_rules(
        [
            {
                "id": "x.compile",
                "category": "build",
                "match": [r"^error\[E\d{4}\]: ", r"^error: could not compile"],
            }
        ],
        shipped=False,
    )
    assert rule.may_hit("all tests passed\n", "all tests passed\n") is False
    assert "_match_any" not in vars(rule)  # ruled out by its words alone, nothing compiled beyond validation
    text = "error[E0061]: this function takes 2 arguments but 1 argument was supplied\n"
    assert rule.may_hit(text, text.lower()) is True and rule.hits(text.rstrip())
