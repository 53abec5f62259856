import re
import textwrap

import pytest

from healer.config import (
    INPUTS,
    WORKFLOW_ONLY,
    CheckSettings,
    Config,
    ConfigError,
    check_settings,
    config_from_env,
    explicit_inputs,
    load_config_file,
)
from healer.model import Action

SOURCE = ".github/ci-healer.yml"


def load(text, base=None, explicit=frozenset()):
    return load_config_file(textwrap.dedent(text), base or Config(), source=SOURCE, explicit=explicit)


@pytest.mark.parametrize("text", [None, "", "  \n", "# only a comment\n", "---\n"], ids=repr)
def test_no_file_or_an_empty_one_changes_nothing(text):
    base = Config(max_attempts=5)
    assert (
        load_config_file(text, base, source=SOURCE) is base
        or load_config_file(text, base, source=SOURCE) == base
    )


def test_file_values_are_applied_with_their_types():
    config = load(
        """
        max-attempts: 2
        max-reruns: "0"
        delivery: push
        dry-run: yes
        rerun-timeouts: "true"
        deny-authors: ["dependabot[bot]", snyk-bot]
        protected-paths: "docs/**, setup.py"
        agent-command: claude -p "$(cat "$HEALER_FRAME")"
        escalation-mention: "@octo/ci"
        log-read-limit: 8MiB
        """
    )
    assert config.log_read_limit == 8 * 1024 * 1024
    assert config.max_attempts == 2
    assert config.max_reruns == 0
    assert config.delivery == "push"
    assert config.dry_run is True and config.rerun_timeouts is True
    assert config.deny_authors == ("dependabot[bot]", "snyk-bot")
    assert config.protected_paths == ("docs/**", "setup.py")
    assert config.agent_command == 'claude -p "$(cat "$HEALER_FRAME")"'
    assert config.escalation_mention == "@octo/ci"
    assert config.github_token == ""


def test_workflow_inputs_set_to_other_values_win_over_the_file():
    env = {"HEALER_MAX_ATTEMPTS": "5", "HEALER_DELIVERY": "pull-request", "HEALER_DENY_AUTHORS": "bot-a"}
    base = config_from_env(env)
    explicit = explicit_inputs(env)
    assert explicit == {"max-attempts", "deny-authors"}
    config = load("max-attempts: 1\ndelivery: comment\ndeny-authors: [bot-b]\n", base, explicit)
    assert config.max_attempts == 5  # the workflow said 5
    assert config.delivery == "comment"  # the workflow left the default
    assert config.deny_authors == ("bot-a",)


def test_explicit_inputs_compare_values_not_spelling():
    env = {spec.env: spec.default for spec in INPUTS}
    env["HEALER_DENY_AUTHORS"] = "dependabot[bot],renovate[bot]"
    env["HEALER_DRY_RUN"] = "False"
    assert explicit_inputs(env) == frozenset()
    assert explicit_inputs({"HEALER_MAX_ATTEMPTS": "oops"}) == {"max-attempts"}


def test_an_overridden_file_value_is_still_validated():
    with pytest.raises(ConfigError, match="max-attempts"):
        load("max-attempts: lots\n", explicit={"max-attempts"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "max-attempts: three",
            "`.github/ci-healer.yml`: `max-attempts` must be a whole number from 0 to 20, not 'three'",
            id="not-a-number",
        ),
        pytest.param("max-attempts: 99", "`max-attempts` must be from 0 to 20, not 99", id="out-of-range"),
        pytest.param("max-attempts: 2.5", "`max-attempts` must be a whole number, not 2.5", id="float"),
        pytest.param(
            "max-attempts: yes", "`max-attempts` must be a whole number, not True; quote", id="bool-for-int"
        ),
        pytest.param(
            "opt-out-label: off", "`opt-out-label` must be text, not False; quote it", id="bool-for-text"
        ),
        pytest.param(
            "delivery: email", "`delivery` must be one of pull-request, push, comment, none", id="choice"
        ),
        pytest.param("dry-run: maybe", "`dry-run` must be true or false, not 'maybe'", id="bad-bool"),
        pytest.param(
            "delivery: [push]", "`delivery` must be a single value, not a list", id="list-for-scalar"
        ),
        pytest.param("delivery:", "`delivery` has no value; give one or remove the key", id="empty-value"),
        pytest.param(
            "deny-authors: [{a: 1}]", "`deny-authors` must be a list of text items", id="list-of-maps"
        ),
        pytest.param("max-attempt: 2", "unknown key `max-attempt`; did you mean `max-attempts`?", id="typo"),
        pytest.param(
            "max_attempts: 2", "did you mean `max-attempts`? (keys are kebab-case)", id="snake-case"
        ),
        pytest.param(
            "colour: blue", "unknown key `colour`; the known keys are `agent-command`", id="unknown"
        ),
        pytest.param("1: x", "key 1 must be text", id="number-key"),
        pytest.param("github-token: ghs_x", "`github-token` cannot be set in the config file", id="token"),
        pytest.param("agent-token: true", "`agent-token` cannot be set in the config file", id="agent-token"),
        pytest.param("bot-login: mallory", "`bot-login` cannot be set in the config file", id="bot-login"),
        pytest.param(
            "config-file: x.yml", "`config-file` cannot be set in the config file", id="config-file"
        ),
        pytest.param(
            "- max-attempts: 2", "`.github/ci-healer.yml` must be a mapping of keys to values", id="list"
        ),
        pytest.param("max-attempts: [1", "`.github/ci-healer.yml` is not valid YAML", id="bad-yaml"),
        pytest.param(
            "rules: {a: 1}", "`rules` must be a list of rules (mappings), not a mapping", id="rules-map"
        ),
        pytest.param("rules: [{id: a}, x]", "`rules` item 2 must be a mapping, not 'x'", id="rules-item"),
        pytest.param(
            "checks: [test]", "`checks` must map check names to settings, not a list", id="checks-list"
        ),
        pytest.param(
            "checks: {test: 3}", "`checks` → `test` must be true, false or a mapping", id="check-number"
        ),
        pytest.param(
            "checks: {test: {enabled: 0}}", "`enabled` must be true or false, not 0", id="check-enabled"
        ),
        pytest.param(
            "checks: {test: {max-attempts: 50}}",
            "`checks` → `test`: `max-attempts` must be from 0 to 20",
            id="check-max-attempts",
        ),
        pytest.param(
            "checks: {test: {action: heal}}",
            "`action` must be one of rerun, fix, agent, escalate, ignore",
            id="check-action",
        ),
        pytest.param(
            "checks: {test: {enable: false}}",
            "unknown key `enable`; did you mean `enabled`?",
            id="check-typo",
        ),
        pytest.param(
            "checks: {3.10: false}", "`checks` key 3.1 must be a check name; quote it", id="check-float-key"
        ),
        # YAML keeps the last of two equal keys without a word: a second `rules:` would drop the first list
        pytest.param(
            "max-attempts: 2\ndelivery: push\nmax-attempts: 5\n",
            "key `max-attempts` is given twice (again at line 3); keep one",
            id="duplicate-key",
        ),
        pytest.param(
            "rules:\n  - id: a\n    category: test\n    match: x\n    match: y\n",
            "key `match` is given twice (again at line 5); keep one",
            id="duplicate-key-in-a-rule",
        ),
        pytest.param(
            "checks:\n  docs: false\n  docs: true\n",
            "key `docs` is given twice (again at line 3); keep one",
            id="duplicate-check",
        ),
    ],
)
def test_mistakes_name_the_file_the_key_and_the_fix(text, message):
    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        load(text)
    assert SOURCE in str(caught.value)


def test_yaml_errors_give_the_line():
    with pytest.raises(ConfigError, match=r"at line 3"):
        load("max-attempts: 2\ndelivery: push\nfork-policy: ignore: now\n")


def test_a_huge_file_is_refused():
    with pytest.raises(ConfigError, match="larger than 64 KiB"):
        load("# " + "x" * 70_000)


def test_every_input_but_the_workflow_only_ones_can_be_set_in_the_file():
    for spec in INPUTS:
        text = f"{spec.name}: {spec.default!r}\n" if spec.default else f"{spec.name}: ''\n"
        if spec.name in WORKFLOW_ONLY:
            with pytest.raises(ConfigError, match="cannot be set in the config file"):
                load(text)
        else:
            load(text)


def test_rules_are_passed_through_raw():
    config = load(
        """
        rules:
          - id: flaky-network
            category: transient
            match: ['ECONNRESET']
          - id: codespell
            category: lint
            action: fix
            fix: codespell -w
        """
    )
    assert [rule["id"] for rule in config.rules] == ["flaky-network", "codespell"]
    assert config.rules[1]["fix"] == "codespell -w"


def test_checks_settings_by_name_and_glob():
    config = load(
        """
        checks:
          docs: false
          "test (*)":
            max-attempts: 1
            max-reruns: 2
          "test (windows)":
            action: escalate
          lint:
            enabled: true
            action: ignore
        """
    )
    assert check_settings(config, "docs") == CheckSettings(enabled=False)
    assert check_settings(config, "test (3.12)") == CheckSettings(max_attempts=1, max_reruns=2)
    assert check_settings(config, "test (windows)") == CheckSettings(action=Action.ESCALATE)
    assert check_settings(config, "lint") == CheckSettings(enabled=True, action=Action.IGNORE)
    assert check_settings(config, "build") == CheckSettings()


def test_an_exact_check_name_wins_over_an_earlier_glob():
    config = load('checks:\n  "test*": {max-attempts: 1}\n  "test (x)": {max-attempts: 2}\n')
    assert check_settings(config, "test (x)").max_attempts == 2
    assert check_settings(config, "test (y)").max_attempts == 1


def test_log_read_limit_in_the_file_takes_plain_bytes_and_names_the_key_when_wrong():
    assert load("log-read-limit: 1048576").log_read_limit == 1024 * 1024
    with pytest.raises(ConfigError, match="`log-read-limit` must be a number of bytes"):
        load("log-read-limit: lots")


# -- learned rules (.github/ci-healer/rules/learned.yml) ---------------------------------------------


def test_the_learned_rules_file_gives_its_rules_raw():
    from healer.config import Config, load_learned_file

    text = "rules:\n  - id: learned.abc\n    category: lint\n    match: '^x$'\n"
    config = load_learned_file(text, Config())
    assert config.learned_rules == ({"id": "learned.abc", "category": "lint", "match": "^x$"},)
    assert load_learned_file(None, Config()) == Config()
    assert load_learned_file("rules:\n", Config()).learned_rules == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("rules: [", "not valid YAML at line", id="yaml"),
        pytest.param("- id: x\n", "a mapping with one key", id="bare-list"),
        pytest.param("rules: []\nother: 1\n", "a mapping with one key", id="other-key"),
        pytest.param("rules: [3]\n", "item 1 must be a mapping", id="item"),
        pytest.param("rules: []\n" + "#" * (512 * 1024), "larger than 512 KiB", id="huge"),
    ],
)
def test_a_broken_learned_rules_file_names_itself(text, message):
    from healer.config import Config, ConfigError, load_learned_file

    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        load_learned_file(text, Config())
    assert "`.github/ci-healer/rules/learned.yml`" in str(caught.value)


def test_learn_is_an_input_and_a_file_key_defaulting_to_on():
    from healer.config import Config, config_from_env, load_config_file

    assert Config().learn is True
    assert config_from_env({"HEALER_LEARN": "false"}).learn is False
    assert load_config_file("learn: false\n", Config(), source="c.yml").learn is False
