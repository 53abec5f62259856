"""The action's inputs: the one table of them and their defaults (:data:`INPUTS`), and :class:`Config`.

The action's inputs arrive as ``HEALER_<NAME>`` environment variables (composite actions get no ``INPUT_*``).
``INPUTS`` below is the single source of the defaults: ``action.yml`` and the README's inputs table mirror it,
and a test checks that they agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from healer.config.values import (
    DELIVERIES,
    FORK_POLICIES,
    STAGES,
    UNKNOWN_ACTIONS,
    ConfigError,
    api_url,
    boolean,
    byte_size,
    choice,
    days,
    event_names,
    text,
    text_list,
    whole_number,
)


@dataclass(frozen=True)
class Input:
    name: str  # the action input (kebab-case)
    default: str
    description: str
    parse: Callable[[str, str], Any]
    secret: bool = False

    @property
    def env(self) -> str:
        return "HEALER_" + self.name.upper().replace("-", "_")

    @property
    def attr(self) -> str:
        return self.name.replace("-", "_")


INPUTS: tuple[Input, ...] = (
    Input(
        "github-token",
        "",
        "Token for the GitHub API and for pushing fix branches (empty: the workflow's `GITHUB_TOKEN`). "
        "Needs `contents: write`, `pull-requests: write`, `actions: write` (re-runs, CI on fix branches), "
        "`checks: read`.",
        text,
        secret=True,
    ),
    Input(
        "agent-command",
        "",
        "Shell command run in the PR-head checkout with the heal frame on stdin and in "
        "`$HEALER_FRAME`. Empty: only fix rules and re-runs; a check with nothing to try is listed, with "
        "its decisive line, in one short notice per pull request.",
        text,
    ),
    Input(
        "max-attempts",
        "3",
        "Heal attempts per (pull request, check) before escalating.",
        whole_number(0, 20),
    ),
    Input(
        "max-reruns",
        "1",
        "Re-runs per (check, commit) for transient and infrastructure failures.",
        whole_number(0, 5),
    ),
    Input(
        "delivery",
        "pull-request",
        "How a change is delivered: `pull-request`, `push`, `comment` or `none`.",
        choice(*DELIVERIES),
    ),
    Input(
        "setup-command",
        "",
        "Command run in the PR-head checkout before fix rules, the agent and verification (install the "
        "project's dependencies and tools); what it creates is never part of the change.",
        text,
    ),
    Input(
        "verify-command",
        "",
        "Command run after a fix to verify it; empty: the failing step's own command "
        "when it is a lint/format/typecheck tool on `PATH`.",
        text,
    ),
    Input(
        "bot-login", "github-actions[bot]", "Login whose comments the healer trusts as its own ledger.", text
    ),
    Input(
        "fork-policy",
        "diagnose",
        "For fork PRs: `diagnose` (a comment; no fork code runs), `rules` (fix rules run on the fork's code "
        "in the heal stage, without the token or a model key), `heal` (the agent too) or `ignore`. `rules` "
        "and `heal` need the two stages (`stage`): in one job a fork is diagnosed.",
        choice(*FORK_POLICIES),
    ),
    Input(
        "protected-paths",
        "",
        "Paths (globs, one per line) a fix may not touch, besides `.github/workflows/`.",
        text_list,
    ),
    Input(
        "max-diff-lines",
        "400",
        "Largest diff (added + removed lines) the healer delivers.",
        whole_number(1, 100_000),
    ),
    Input("agent-timeout-minutes", "20", "Time limit of the agent command.", whole_number(1, 360)),
    Input("config-file", ".github/ci-healer.yml", "Config file, read from the default branch.", text),
    Input("dry-run", "false", "Do everything but write: print the plan and the frame.", boolean),
    Input(
        "agent-token",
        "false",
        "Pass the GitHub token to the agent as `GITHUB_TOKEN` (off: the agent gets none).",
        boolean,
    ),
    Input(
        "unknown-action",
        "agent",
        "What to do with failures no rule recognises, in a step that checks the code: `agent` or `escalate` "
        "(in any other step they are escalated).",
        choice(*UNKNOWN_ACTIONS),
    ),
    Input("rerun-timeouts", "false", "Re-run a timed-out job once before escalating.", boolean),
    Input("opt-out-label", "ci-healer:off", "A PR with this label is left alone.", text),
    Input(
        "allow-authors",
        "",
        "If set, only PRs by these logins are healed (one per line or comma-separated).",
        text_list,
    ),
    Input("deny-authors", "dependabot[bot], renovate[bot]", "PRs by these logins are not healed.", text_list),
    Input("escalation-label", "", "Label added to the PR when the healer escalates.", text),
    Input(
        "escalation-mention",
        "",
        "Who the escalation comment mentions (e.g. `@org/team`); empty: nobody.",
        text,
    ),
    Input("max-jobs", "5", "Failed jobs inspected per run.", whole_number(1, 50)),
    Input(
        "ledger-key",
        "",
        "Secret that signs the healer's comment markers (HMAC); with it, markers it did not sign are "
        'ignored. See docs/configuration.md, "Signed ledger".',
        text,
        secret=True,
    ),
    Input(
        "events",
        "pull_request, pull_request_target, push",
        "Events whose runs count as a PR's CI (a `push` only to the PR's own head branch); runs of other "
        "events (`schedule`, `workflow_dispatch`, `merge_group`, `workflow_run`, …) are skipped.",
        event_names,
    ),
    Input(
        "log-read-limit",
        "4MiB",
        "Log bytes read per failed job, from its end backwards (e.g. `8MiB`, `512KiB`, plain bytes).",
        byte_size(64 * 1024, 1024**3),
    ),
    Input(
        "isolation",
        "user",
        "Who runs code from the PR head: `user` (a throwaway user without sudo, created for the run; needs "
        "root or passwordless sudo, else no PR code runs) or `none` (the runner's user, which holds the "
        "token).",
        choice("user", "none"),
    ),
    Input(
        "agent-api-key",
        "",
        "The agent's model key, when your agent reads it under a name the healer does not know (the known "
        "ones, `ANTHROPIC_API_KEY`, `CODEX_API_KEY`, `OPENAI_API_KEY`, …, are found in the step's `env:`). "
        "Like them it stays with the healer's model proxy and never reaches code from the pull request.",
        text,
        secret=True,
    ),
    Input(
        "model-api-url",
        "",
        "Where the model proxy forwards the agent's requests (a gateway's base URL, https); empty: the "
        "provider's own API (`https://api.anthropic.com`, `https://api.openai.com`).",
        api_url,
    ),
    Input(
        "agent-token-budget",
        "2000000",
        "Model tokens (input, cached input included, plus output, as the provider counts them) the agent may "
        "spend in one heal; past it the proxy refuses its requests. 0: no limit.",
        whole_number(0, 10**12),
    ),
    Input(
        "agent-request-budget",
        "300",
        "Model requests the agent may make in one heal. 0: no limit.",
        whole_number(0, 10**9),
    ),
    Input(
        "max-agent-tokens-per-pr",
        "6000000",
        "Model tokens the agent may spend over all heal attempts of one pull request (read from the "
        "attempts' markers). 0: no limit.",
        whole_number(0, 10**12),
    ),
    Input(
        "dashboard",
        "false",
        "On `schedule` and `workflow_dispatch` events the action reports (`healer report`); with this on, "
        'it also keeps one issue, "CI healer dashboard", up to date in place (needs `issues: write`).',
        boolean,
    ),
    Input(
        "report-window",
        "30d",
        "How far back a report reads the healer's comments (days, e.g. `30d`, or weeks, `4w`).",
        days(1, 366),
    ),
    Input(
        "stage",
        "all",
        "`all`: one job heals and delivers. `heal`: run what touches the PR's code and write the heal "
        "bundle (a read-only token, no write); `deliver`: check the bundle of `bundle-path` again and "
        "deliver it (no PR code runs). See docs/two-stages.md.",
        choice(*STAGES),
    ),
    Input(
        "bundle-path",
        "",
        "The heal bundle: where `stage: heal` writes it (output `bundle-path`) and `stage: deliver` reads "
        "it (a file, or the folder an artifact was downloaded to); empty: `ci-healer-bundle/` under "
        "RUNNER_TEMP, for both stages.",
        text,
    ),
    Input(
        "learn",
        "true",
        "Learn from fixes a person merged: propose each as a rule in a pull request against the default "
        "branch (`.github/ci-healer/rules/learned.yml`; see docs/learning.md). `false`: propose none.",
        boolean,
    ),
)


@dataclass(frozen=True)
class Config:
    """Everything a run is configured with. Defaults come from :data:`INPUTS`."""

    github_token: str = field(default="", repr=False)
    agent_command: str = ""
    max_attempts: int = 3
    max_reruns: int = 1
    delivery: str = "pull-request"
    setup_command: str = ""
    verify_command: str = ""
    bot_login: str = "github-actions[bot]"
    fork_policy: str = "diagnose"
    protected_paths: tuple[str, ...] = ()
    max_diff_lines: int = 400
    agent_timeout_minutes: int = 20
    config_file: str = ".github/ci-healer.yml"
    dry_run: bool = False
    agent_token: bool = False
    unknown_action: str = "agent"
    rerun_timeouts: bool = False
    opt_out_label: str = "ci-healer:off"
    allow_authors: tuple[str, ...] = ()
    deny_authors: tuple[str, ...] = ("dependabot[bot]", "renovate[bot]")
    escalation_label: str = ""
    escalation_mention: str = ""
    max_jobs: int = 5
    ledger_key: str = field(default="", repr=False)
    events: tuple[str, ...] = ("pull_request", "pull_request_target", "push")
    log_read_limit: int = 4 * 1024 * 1024
    # paths the repository lets a fix change on purpose although the guard would refuse them (`guard: allow`)
    guard_allow: tuple[str, ...] = ()
    isolation: str = "user"
    agent_api_key: str = field(default="", repr=False)
    model_api_url: str = ""
    agent_token_budget: int = 2_000_000
    agent_request_budget: int = 300
    max_agent_tokens_per_pr: int = 6_000_000
    dashboard: bool = False
    report_window: int = 30  # days
    learn: bool = True
    stage: str = "all"
    bundle_path: str = ""
    # repository rules from the config file (raw mappings, validated by ``healer.diagnosis.rules``)
    rules: tuple[Mapping[str, Any], ...] = ()
    # learned rules from `.github/ci-healer/rules/learned.yml` on the default branch (raw mappings)
    learned_rules: tuple[Mapping[str, Any], ...] = ()
    # per-check overrides or disabling from the config file: {"check name": {"enabled": False, ...}}
    checks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # known flaky tests from the config file: globs over failing test ids (``healer.ledger.flaky``)
    flaky_tests: tuple[str, ...] = ()


def config_from_env(env: Mapping[str, str]) -> Config:
    """Read every input from its ``HEALER_*`` variable; a missing variable takes the default."""
    values: dict[str, Any] = {}
    for spec in INPUTS:
        raw = env.get(spec.env)
        values[spec.attr] = spec.parse(spec.name, spec.default if raw is None else raw)
    known = {f.name for f in fields(Config)}
    return Config(**{k: v for k, v in values.items() if k in known})


def with_overrides(config: Config, **changes: Any) -> Config:
    return replace(config, **changes)


def explicit_inputs(env: Mapping[str, str]) -> frozenset[str]:
    """The inputs the workflow sets to something other than their default; these win over the config file.

    ``action.yml`` passes every input, defaults included, so "set" can only mean "set to another value": an
    input left at its default value lets the file decide.
    """
    names = set()
    for spec in INPUTS:
        raw = env.get(spec.env)
        if raw is None:
            continue
        try:
            if spec.parse(spec.name, raw) == spec.parse(spec.name, spec.default):
                continue
        except ConfigError:
            pass  # config_from_env reports it
        names.add(spec.name)
    return frozenset(names)
