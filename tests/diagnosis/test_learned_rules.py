"""Learned rules: the `hint` field, and where they rank (after the repository's own, before shipped)."""

from __future__ import annotations

import pytest

from healer.diagnosis.classify import classify
from healer.diagnosis.rules import RuleError, load_rules, parse_rules
from healer.model import Action, Category, Evidence, Job, LogTail

LOG = (
    "##[group]Run python scripts/check_client.py\n"
    "python scripts/check_client.py\n"
    "##[endgroup]\n"
    "client drift: widgets/client.py was generated from spec 4f2a9c1, the spec is now 9b0e77d\n"
    "##[error]Process completed with exit code 3.\n"
)
LEARNED = {
    "id": "learned.0123456789ab",
    "category": "build",
    "match": r"^client drift: \S+ was generated from spec [0-9a-f]{7,40}, the spec is now [0-9a-f]{7,40}$",
    "action": "agent",
    "hint": "Last time the agent regenerated widgets/client.py (fix PR #12).",
}


def _diagnose(rules):
    job = Job(1, "client", "completed", "failure")
    return classify(Evidence(job, LogTail(LOG, len(LOG), False)), rules)


def test_a_learned_rule_matches_before_the_shipped_ones_and_carries_its_hint() -> None:
    rules = load_rules(learned=[LEARNED])
    [rule] = [r for r in rules if r.learned]
    assert (rule.id, rule.repository, rule.hint) == (LEARNED["id"], True, LEARNED["hint"])
    assert rules.rules[0] is rule  # before every shipped rule
    diagnosis = _diagnose(rules)
    assert (diagnosis.rule, diagnosis.category, diagnosis.action) == (
        LEARNED["id"],
        Category.BUILD,
        Action.AGENT,
    )


def test_without_the_learned_rule_no_rule_knows_the_failure() -> None:
    assert _diagnose(load_rules()).rule == "none"


def test_the_repositorys_own_rule_wins_over_a_learned_one_of_higher_confidence() -> None:
    own = {"id": "acme.client", "category": "build", "confidence": 0.5, "match": "client drift"}
    rules = load_rules([own], learned=[{**LEARNED, "confidence": 0.99}])
    assert _diagnose(rules).rule == "acme.client"


def test_a_learned_rule_with_a_repository_rules_id_is_left_out() -> None:
    own = {"id": LEARNED["id"], "category": "lint", "match": "nothing like it"}
    rules = load_rules([own], learned=[LEARNED])
    assert [r.category for r in rules if r.id == LEARNED["id"]] == [Category.LINT]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        pytest.param({"hint": 3}, "`hint` must be text", id="not-text"),
        pytest.param({"hint": "x" * 2001}, "at most 2000", id="too-long"),
        pytest.param({"action": "escalate"}, "only shown to the agent", id="not-agent"),
    ],
)
def test_invalid_hints_are_refused_like_any_rule_mistake(change: dict[str, object], problem: str) -> None:
    with pytest.raises(RuleError, match=problem) as caught:
        load_rules(learned=[{**LEARNED, **change}])
    assert ".github/ci-healer/rules/learned.yml: rule 'learned.0123456789ab'" in str(caught.value)


def test_a_hint_is_an_ordinary_field_of_repository_rules_too() -> None:
    [rule] = parse_rules([LEARNED], source="x.yml", repository=True)
    assert rule.hint.startswith("Last time") and not rule.learned


def test_healer_diagnose_shows_which_learned_rule_matched(tmp_path) -> None:
    import argparse
    import io
    import json

    from healer.deliver.rulepr import with_rule
    from healer.diagnosis import diagnose

    learned = tmp_path / "learned.yml"
    learned.write_text(with_rule(None, LEARNED))  # the file exactly as a rule pull request writes it
    log = tmp_path / "client.log"
    log.write_text(LOG)
    parser = argparse.ArgumentParser(prog="healer")
    diagnose.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["diagnose", "--json", "--rules", str(learned), str(log)])
    out = io.StringIO()
    assert diagnose.run(args, {}, out=out, err=io.StringIO()) == 0
    assert json.loads(out.getvalue())["rule"] == LEARNED["id"]
