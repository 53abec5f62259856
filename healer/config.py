"""Inputs and ``.github/ci-healer.yml`` → :class:`Config`, validated, with one table of defaults.

The action's inputs arrive as ``HEALER_<NAME>`` environment variables (composite actions get no ``INPUT_*``).
``INPUTS`` below is the single source of the defaults: ``action.yml`` and the README's inputs table mirror it,
and a test checks that they agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any


class ConfigError(Exception):
    """An input or config-file value is wrong; the message names it and says how to fix it."""


DELIVERIES = ("pull-request", "push", "comment", "none")
FORK_POLICIES = ("diagnose", "ignore")
UNKNOWN_ACTIONS = ("agent", "escalate")


def _bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off", ""):
        return False
    raise ConfigError(f"input `{name}` must be true or false, not {raw!r}")


def _int(low: int, high: int) -> Callable[[str, str], int]:
    def parse(name: str, raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise ConfigError(f"input `{name}` must be a whole number from {low} to {high}, not {raw!r}") from None
        if not low <= value <= high:
            raise ConfigError(f"input `{name}` must be from {low} to {high}, not {value}")
        return value

    return parse


def _choice(*choices: str) -> Callable[[str, str], str]:
    def parse(name: str, raw: str) -> str:
        value = raw.strip()
        if value not in choices:
            raise ConfigError(f"input `{name}` must be one of {', '.join(choices)}, not {raw!r}")
        return value

    return parse


def _text(name: str, raw: str) -> str:
    return raw.strip()


def _list(name: str, raw: str) -> tuple[str, ...]:
    """A list input: one item per line, or comma-separated."""
    items = raw.replace(",", "\n").splitlines()
    return tuple(item.strip() for item in items if item.strip())


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
    Input("github-token", "", "Token for the GitHub API and for pushing fix branches. "
          "Needs `contents: write`, `pull-requests: write`, `actions: write` (re-runs), `checks: read`.",
          _text, secret=True),
    Input("agent-command", "", "Shell command run in the PR-head checkout with the heal frame on stdin and in "
          "`$HEALER_FRAME`. Empty: only fix rules and re-runs, the rest is escalated.", _text),
    Input("max-attempts", "3", "Heal attempts per (pull request, check) before escalating.", _int(0, 20)),
    Input("max-reruns", "1", "Re-runs per (check, commit) for transient and infrastructure failures.", _int(0, 5)),
    Input("delivery", "pull-request", "How a change is delivered: `pull-request`, `push`, `comment` or `none`.",
          _choice(*DELIVERIES)),
    Input("verify-command", "", "Command run after a fix to verify it; empty: the failing step's own command "
          "when it is a lint/format/typecheck tool on `PATH`.", _text),
    Input("bot-login", "github-actions[bot]", "Login whose comments the healer trusts as its own ledger.", _text),
    Input("fork-policy", "diagnose", "For fork PRs: `diagnose` (comment only, no fork code runs) or `ignore`.",
          _choice(*FORK_POLICIES)),
    Input("protected-paths", "", "Paths (globs, one per line) a fix may not touch, besides `.github/workflows/`.",
          _list),
    Input("max-diff-lines", "400", "Largest diff (added + removed lines) the healer delivers.", _int(1, 100_000)),
    Input("agent-timeout-minutes", "20", "Time limit of the agent command.", _int(1, 360)),
    Input("config-file", ".github/ci-healer.yml", "Config file, read from the default branch.", _text),
    Input("dry-run", "false", "Do everything but write: print the plan and the frame.", _bool),
    Input("agent-token", "false", "Pass the GitHub token to the agent as `GITHUB_TOKEN` (off: the agent gets none).",
          _bool),
    Input("unknown-action", "agent", "What to do with failures no rule recognises: `agent` or `escalate`.",
          _choice(*UNKNOWN_ACTIONS)),
    Input("rerun-timeouts", "false", "Re-run a timed-out job once before escalating.", _bool),
    Input("opt-out-label", "ci-healer:off", "A PR with this label is left alone.", _text),
    Input("allow-authors", "", "If set, only PRs by these logins are healed (one per line or comma-separated).",
          _list),
    Input("deny-authors", "dependabot[bot], renovate[bot]", "PRs by these logins are not healed.", _list),
    Input("escalation-label", "", "Label added to the PR when the healer escalates.", _text),
    Input("escalation-mention", "", "Who the escalation comment mentions (e.g. `@org/team`); empty: nobody.",
          _text),
    Input("max-jobs", "5", "Failed jobs inspected per run.", _int(1, 50)),
)


@dataclass(frozen=True)
class Config:
    """Everything a run is configured with. Defaults come from :data:`INPUTS`."""

    github_token: str = field(default="", repr=False)
    agent_command: str = ""
    max_attempts: int = 3
    max_reruns: int = 1
    delivery: str = "pull-request"
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
    # repository rules from the config file (raw mappings, validated by ``healer.rules``)
    rules: tuple[Mapping[str, Any], ...] = ()
    # per-check overrides or disabling from the config file: {"check name": {"enabled": False, ...}}
    checks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


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
