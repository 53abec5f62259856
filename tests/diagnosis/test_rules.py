"""The rule engine: validation with errors a person can act on, ordering, and cheap matching."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from healer.diagnosis.rules import PACKS, RuleError, load_rules, parse_rules, read_rule_file, shipped_rules
from healer.model import Action, Category

GOOD = {"id": "acme.flaky", "category": "transient", "match": "ECONNRESET"}


def test_the_shipped_packs_load_and_cover_every_ecosystem() -> None:
    rules = shipped_rules()
    sources = {rule.source for rule in rules}
    assert sources == {f"healer/diagnosis/rules/{name}" for name in PACKS}
    assert len({rule.id for rule in rules}) == len(rules)
    for rule in rules:
        assert rule.action is not Action.FIX or rule.fix, rule.id


def test_every_shipped_rule_says_in_one_plain_sentence_what_its_failure_is() -> None:
    # the escalation comment, the fix pull request and `healer diagnose` give the description as the reason a
    # check failed: a short line of plain text, no Markdown that would render or mention that would notify
    for rule in shipped_rules():
        text = rule.description
        assert text, f"{rule.id} has no description"
        assert len(text) <= 160, (rule.id, len(text))
        assert text == " ".join(text.split()), (rule.id, "one line, single spaces")
        assert text.endswith("."), (rule.id, "a sentence")
        markup = re.search(r"[`*_#@<>|\[\]]|\bhttps?://", text.replace("PHP_CodeSniffer", ""))
        assert markup is None, (rule.id, text)


def test_fix_rules_ship_for_the_safe_autofixes() -> None:
    fixes = {rule.id: rule.fix for rule in shipped_rules() if rule.action is Action.FIX}
    commands = {command for fix in fixes.values() for command in fix}
    for expected in (
        "ruff check --fix {files}",
        "ruff format {files}",
        "black {files}",
        "isort {files}",
        "npx --no-install prettier --write {files}",
        "codespell -w {files}",
        "rustfmt --edition {edition} {files}",
        "gofmt -w {files}",
        "go mod tidy",
    ):
        assert expected in commands


# formatters whose fix rule must name the reported files; sbt-scalafmt (one sbt command word) cannot
NARROW_FORMATTERS = (
    "rust.rustfmt", "format.terraform-fmt", "elixir.mix-format", "dotnet.format", "bazel.buildifier",
    "php.cs-fixer", "zig.fmt", "lint.typos", "go.gofmt", "js.prettier", "lua.stylua", "dart.format",
)  # fmt: skip


def test_formatter_fix_rules_name_the_reported_files_never_the_whole_repository() -> None:
    fixes = {rule.id: rule.fix for rule in shipped_rules() if rule.fix}
    for rule_id in NARROW_FORMATTERS:
        assert rule_id in fixes, rule_id
        for command in fixes[rule_id]:
            assert {"{files}", "{file}"} & set(command.split()), (rule_id, command)


def test_python_fix_rules_name_the_reported_files_never_the_whole_repository() -> None:
    python = [rule for rule in shipped_rules() if rule.id.startswith("python.") and rule.fix]
    assert python
    for rule in python:
        for command in rule.fix:
            assert command.split()[-1] == "{files}", (rule.id, command)
            assert " . " not in f" {command} ", (rule.id, command)


def test_a_rule_gets_its_categorys_default_action() -> None:
    (rule,) = parse_rules([GOOD], source="x.yml")
    assert rule.action is Action.RERUN
    assert rule.category is Category.TRANSIENT
    assert rule.confidence == 0.8


def _error(rule: Any) -> str:
    with pytest.raises(RuleError) as caught:
        parse_rules([rule], source=".github/ci-healer.yml")
    return str(caught.value)


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        pytest.param({"category": "test", "match": "x"}, "`id` is required", id="no-id"),
        pytest.param({**GOOD, "category": "flaky"}, "`category` must be one of", id="bad-category"),
        pytest.param({**GOOD, "match": "(unclosed"}, "not a valid regular expression", id="bad-regex"),
        pytest.param({**GOOD, "match": []}, "`match` must be a string or a non-empty list", id="empty-match"),
        pytest.param({"id": "a", "category": "test"}, "`match` is required", id="no-match"),
        pytest.param({**GOOD, "confidence": 2}, "`confidence` must be a number from 0 to 1", id="confidence"),
        pytest.param({**GOOD, "confidence": True}, "`confidence` must be a number", id="confidence-bool"),
        pytest.param({**GOOD, "exit_code": "1"}, "`exit_code` must be an integer", id="exit-code"),
        pytest.param({**GOOD, "action": "retry"}, "`action` must be one of", id="bad-action"),
        pytest.param({**GOOD, "action": "fix"}, "no `fix` commands are given", id="fix-without-commands"),
        pytest.param(
            {**GOOD, "fix": ["make fmt"]}, "only used with `action: fix`", id="commands-without-fix"
        ),
        pytest.param({**GOOD, "context": [1]}, "`context` must be two integers", id="context"),
        pytest.param({**GOOD, "matches": "x"}, "unknown field(s) matches", id="typo"),
        pytest.param({**GOOD, "command": 3}, "`command` must hold non-empty strings", id="command-type"),
        pytest.param(
            {"id": "fmt", "category": "format", "match": "x"}, "the default for this category", id="format"
        ),
        pytest.param("just a string", "a rule must be a mapping", id="not-a-mapping"),
    ],
)
def test_invalid_rules_name_the_file_the_rule_and_the_problem(rule: Any, problem: str) -> None:
    message = _error(rule)
    assert message.startswith(".github/ci-healer.yml: rule ")
    assert problem in message
    if isinstance(rule, dict) and "id" in rule:
        assert f"rule {rule['id']!r}" in message
    else:
        assert "rule #1" in message


def test_duplicate_ids_in_one_file_are_refused() -> None:
    with pytest.raises(RuleError, match="'acme.flaky': the id is used twice"):
        parse_rules([GOOD, GOOD], source="x.yml")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param("rules: [\n", "not valid YAML", id="yaml"),
        pytest.param(
            "rules:\n  - id: a\n    id: b\n    category: test\n    match: x\n", "duplicate key 'id'", id="dup"
        ),
        pytest.param("other: 1\n", "no `rules:` list found", id="no-rules"),
        pytest.param("rules: 3\n", "`rules` must be a list", id="not-a-list"),
    ],
)
def test_rule_files_that_cannot_be_read_as_rules(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "rules.yml"
    path.write_text(text)
    with pytest.raises(RuleError) as caught:
        read_rule_file(path)
    assert str(caught.value).startswith(str(path))
    assert problem in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_missing_rule_file(tmp_path: Path) -> None:
    with pytest.raises(RuleError, match="cannot read the rule file"):
        read_rule_file(tmp_path / "nope.yml")


def test_repository_rules_come_first_and_replace_shipped_ids(tmp_path: Path) -> None:
    path = tmp_path / "extra.yml"
    path.write_text("rules:\n  - id: python.black\n    category: lint\n    match: 'would reformat'\n")
    rules = load_rules([GOOD], files=[path])
    ids = [rule.id for rule in rules]
    assert ids[:2] == ["acme.flaky", "python.black"]
    assert ids.count("python.black") == 1
    black = rules.get("python.black")
    assert black is not None and black.repository and black.category is Category.LINT


def test_conditions_on_step_command_job_and_exit_code() -> None:
    (rule,) = parse_rules(
        [{**GOOD, "step": "^Run tests$", "command": "pytest", "job": "^unit", "exit_code": [1, 2]}],
        source="x.yml",
    )
    ok = {"step": ["Run tests"], "command": "python -m pytest", "job": "unit (3.12)", "exit_code": 2}
    assert rule.applies_to(**ok)
    for key, value in [("step", ["Lint"]), ("command", "ruff"), ("job", "e2e"), ("exit_code", 3)]:
        assert not rule.applies_to(**{**ok, key: value}), key
    assert not rule.applies_to(**{**ok, "command": None})


def test_a_command_the_rule_does_not_blame_vetoes_it() -> None:
    (rule,) = parse_rules([{**GOOD, "unless_command": r"\bgo get \S+@v\d"}], source="x.yml")
    where = {"step": ["Run go mod download"], "job": "build", "exit_code": 1}
    assert rule.applies_to(**where, command="go mod download")
    assert rule.applies_to(**where, command=None)  # a command not shown vetoes nothing
    assert not rule.applies_to(**where, command="go get example.com/m@v1.4.2")


def test_expressions_with_inline_flags_combine() -> None:
    (rule,) = parse_rules([{**GOOD, "match": ["(?i)connection reset", "^EOF$"], "also": "x"}], source="x.yml")
    assert rule.hits("Connection RESET by peer")
    assert rule.hits("EOF")
    assert not rule.hits("an EOF here")


# seconds: see test_no_shipped_expression_backtracks_on_hostile_lines
BACKTRACK_BOUND = 5.0
LINE_CHARS = st.sampled_from(list("aeE0123456789 :./_-=[]()'\"`*!#>|\t") + ["FAILED", "error", "##[error]"])


@settings(max_examples=60, deadline=None)
@given(st.lists(LINE_CHARS, min_size=0, max_size=1400).map("".join))
def test_no_shipped_expression_backtracks_on_hostile_lines(line: str) -> None:
    line = line[:4096]
    start = time.perf_counter()
    for rule in shipped_rules():
        rule.hits(line)
        rule.supports(line)
        rule.vetoed(line)
    # Linear matching takes milliseconds; a backtracking pattern takes minutes on such lines. The bound is
    # wide so that a loaded machine never fails it, and still far below what backtracking costs.
    assert time.perf_counter() - start < BACKTRACK_BOUND


@pytest.mark.parametrize("repeat", ["=", " ", "a", "1 failed, ", "x.go:1:1: ", "E   ", "-" * 3, "\t"])
def test_long_repetitive_lines_stay_fast(repeat: str) -> None:
    line = (repeat * 4096)[:4096]
    start = time.perf_counter()
    for rule in shipped_rules():
        rule.hits(line)
        rule.supports(line)
    assert time.perf_counter() - start < BACKTRACK_BOUND


def test_the_shipped_packs_and_tables_read_the_same_with_either_yaml_parser() -> None:
    # libyaml's parser where PyYAML has it, the pure-Python one where it does not: the same data either way
    import yaml

    from healer.diagnosis import yamltext

    folder = Path(yamltext.__file__).parent
    files = sorted([*folder.glob("*.yml"), *(folder / "rules").glob("*.yml")])
    assert len(files) > 30
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert yamltext.safe_load(text) == yaml.load(text, Loader=yaml.SafeLoader), path.name  # noqa: S506
