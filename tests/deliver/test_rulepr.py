"""The learned-rules file takes one more rule: a new file, or the existing one kept and the rule appended."""

from __future__ import annotations

import pytest
import yaml

from healer.deliver.rulepr import HEADER, LearnedFileError, rule_yaml, with_rule

RULE = {
    "id": "learned.0123456789ab",
    "category": "lint",
    "match": ["^x: [\\w./-]+$"],
    "action": "agent",
    "hint": "h",
}


def test_a_new_file_gets_a_header_and_the_rule() -> None:
    text = with_rule(None, RULE)
    assert text.startswith(HEADER)
    assert yaml.safe_load(text) == {"rules": [RULE]}


def test_an_existing_file_keeps_its_content_comments_included() -> None:
    existing = "# ours\nrules:\n  - id: learned.aaaaaaaaaaaa  # kept\n    category: test\n    match: a\n"
    text = with_rule(existing, RULE)
    assert text.startswith(existing)
    assert [r["id"] for r in yaml.safe_load(text)["rules"]] == ["learned.aaaaaaaaaaaa", RULE["id"]]


@pytest.mark.parametrize("existing", ["rules: []\n", "rules:\n", "# nothing yet\n"])
def test_an_empty_list_gets_the_rule(existing: str) -> None:
    assert yaml.safe_load(with_rule(existing, RULE)) == {"rules": [RULE]}


@pytest.mark.parametrize(
    ("existing", "problem"),
    [
        pytest.param(with_rule(None, RULE), "already holds the rule", id="same-id"),
        pytest.param("rules: [\n", "not valid YAML", id="yaml"),
        pytest.param("- a\n", "a mapping with a `rules:` list", id="list"),
        pytest.param("rules:\n  - id: a\nother: 1\n", "the list is not last", id="not-last"),
    ],
)
def test_a_file_the_rule_cannot_join_is_refused(existing: str, problem: str) -> None:
    with pytest.raises(LearnedFileError, match=problem):
        with_rule(existing, RULE)


def test_hostile_text_in_a_rule_stays_data() -> None:
    rule = {**RULE, "hint": "x\n- id: evil\n  action: fix\n  fix: [rm -rf /]\n'\"#"}
    assert yaml.safe_load(with_rule(None, rule)) == {"rules": [rule]}
    assert yaml.safe_load(rule_yaml(rule)) == [rule]
