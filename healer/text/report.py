"""The Actions side of a run: the step's environment (:class:`Actions`), workflow commands on stdout, and
what the run did (:class:`Outcome`) as step outputs and the job summary.

Workflow commands (``::error::``, ``::add-mask::``, ``::group::``) are parsed by the runner from any line a
step prints, so text the healer does not control (log excerpts, agent output, the frame) is printed between
``::stop-commands::<token>`` and ``::<token>::``: a log line saying ``::add-mask::`` or ``::error::`` stays
text.
"""

from __future__ import annotations

import contextlib
import secrets
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from healer.model import Plan, PullRequest, RunEvent
from healer.text.frames import Frames, clip_summary, render_summary
from healer.text.spans import needs_stop_commands, one_line
from healer.text.tokens import forms


def escape_data(text: str) -> str:
    """Escape a workflow command's message (``%``, CR, LF), as the runner's toolkit does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


class SetupError(Exception):
    """The step's environment or inputs are missing something; the message says what to set."""


@dataclass(frozen=True)
class Actions:
    """The Actions environment of the step (``GITHUB_*``, ``RUNNER_TEMP``)."""

    event_name: str
    event_path: str
    repository: str
    api_url: str
    server_url: str
    workspace: Path
    output: str | None
    summary: str | None
    temp: Path
    # whether `github-token` is the workflow's own GITHUB_TOKEN (action.yml compares them); None: unknown
    workflow_token: bool | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Actions:
        missing = [
            n for n in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY") if not env.get(n)
        ]
        if missing:
            raise SetupError(
                f"{', '.join(missing)} not set: `healer run` reads the Actions environment; run it as a step "
                "of a workflow triggered by `workflow_run`"
            )
        flag = env.get("HEALER_TOKEN_IS_WORKFLOW_TOKEN", "").strip().lower()
        return cls(
            event_name=env["GITHUB_EVENT_NAME"],
            event_path=env["GITHUB_EVENT_PATH"],
            repository=env["GITHUB_REPOSITORY"],
            api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
            server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
            workspace=Path(env.get("GITHUB_WORKSPACE") or "."),
            output=env.get("GITHUB_OUTPUT") or None,
            summary=env.get("GITHUB_STEP_SUMMARY") or None,
            temp=Path(env.get("RUNNER_TEMP") or "/tmp"),  # noqa: S108 - the runner always sets RUNNER_TEMP
            workflow_token={"true": True, "false": False}.get(flag),
        )


# The job summary's heading for a decision (the output `decision` stays the word).
_HEADINGS = {
    "none": "nothing to heal",
    "healed": "healed",
    "rerun": "re-ran",
    "escalated": "escalated",
    "skipped": "skipped",
}


@dataclass
class Outcome:
    """What this run did (filled in as it goes; rendered into outputs, summary and the comment)."""

    decision: str = "none"
    attempt: int = 0
    category: str = ""
    fix_pull_request: str = ""
    frame_path: str = ""
    lines: list[str] = field(default_factory=list)
    plan: Plan | None = None
    pr: PullRequest | None = None
    frame: str = ""
    planned: str = ""  # a dry run's decision had it acted
    pushed: bool = False  # a commit was pushed onto the PR branch (delivery: push)
    run: RunEvent | None = None  # the workflow run acted on (its head and link head the job summary)
    agent_tokens: str = ""  # model tokens the agent spent through the proxy ("": none ran through it)
    bundle_path: str = ""  # stage: heal, the heal bundle written for the deliver stage
    fix_ci: str = ""  # the fix branch's CI as the healer started it: started, no-trigger, failed ("": not)
    # what the run did, in a few words, for the summary's heading when ``decision`` alone would say too little
    # (a fix's CI verdict, a rule proposal: both decide "none")
    headline: str = ""

    def outputs(self) -> dict[str, str]:
        return {
            "decision": self.decision,
            "attempt": str(self.attempt) if self.attempt else "",
            "category": self.category,
            "fix-pull-request": self.fix_pull_request,
            "frame-path": self.frame_path,
            "agent-tokens": self.agent_tokens,
            "bundle-path": self.bundle_path,
        }


class Reporter:
    """Prints workflow commands and log lines for one run."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def mask(self, value: str) -> None:
        """Ask the runner to replace ``value`` with ``***`` in the log from now on."""
        for line in value.splitlines() or [value]:
            if line.strip():
                self._print(f"::add-mask::{escape_data(line)}")

    def mask_token(self, token: str) -> None:
        """:meth:`mask` a token and its base64 forms (a basic-auth header in a trace shows one of them)."""
        self.mask(token)
        for form in forms(token):
            if form != token:
                self.mask(form)

    def info(self, message: str) -> None:
        """A line for the log. Messages quote names from the PR (job, branch, file names): one that the runner
        could read as a workflow command (a line starting with ``::``, ``##[``) is printed with commands off,
        and every line break in it is a space first: a name from the pull request that holds one cannot start
        a line of the log, with or without commands."""
        message = one_line(message)
        if needs_stop_commands(message):
            self.untrusted(message)
        else:
            self._print(message)

    def error(self, message: str, *, title: str = "ci-healer") -> None:
        self._print(f"::error title={escape_property(title)}::{escape_data(message)}")

    def warning(self, message: str, *, title: str = "ci-healer") -> None:
        self._print(f"::warning title={escape_property(title)}::{escape_data(message)}")

    def notice(self, message: str, *, title: str = "ci-healer") -> None:
        self._print(f"::notice title={escape_property(title)}::{escape_data(message)}")

    @contextlib.contextmanager
    def group(self, title: str) -> Iterator[None]:
        """A collapsible section of the log (one per phase of the run)."""
        self._print(f"::group::{escape_data(title)}")
        try:
            yield
        finally:
            self._print("::endgroup::")

    def untrusted(self, text: str) -> None:
        """Print text the healer does not control with workflow commands switched off around it."""
        token = secrets.token_hex(16)
        self._print(f"::stop-commands::{token}")
        self._print(text.rstrip("\n"))
        self._print(f"::{token}::")


def write_outputs(path: str | None, outputs: Mapping[str, str]) -> None:
    """Append step outputs to ``$GITHUB_OUTPUT`` (multi-line values get a random delimiter); no path: skip."""
    if not path:
        return
    lines: list[str] = []
    for name, value in outputs.items():
        if "\n" in value or "\r" in value:
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
            lines += [f"{name}<<{delimiter}", value, delimiter]
        else:
            lines.append(f"{name}={value}")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def write_summary(path: str | None, markdown: str) -> None:
    """Append the job summary to ``$GITHUB_STEP_SUMMARY``, cut to GitHub's 1 MiB limit; no path: skip."""
    if not path:
        return
    with open(Path(path), "a", encoding="utf-8") as fh:
        fh.write(clip_summary(markdown))


def render_job_summary(
    frames: Frames,
    outcome: Outcome,
    *,
    head_sha: str,
    run_url: str,
    dry_run: bool,
    workflow_token: bool | None,
    requests: int,
    seconds: float,
) -> str:
    """The job summary of a run (``summary.md.j2``), cut to 1 MiB."""
    rows = [
        {
            "check": c.check,
            "category": c.diagnosis.category.value if c.diagnosis else "unknown",
            # "–" where nothing said whose it is (the "why" column then says what a person should do)
            "owner": c.diagnosis.owner.value if c.diagnosis and c.diagnosis.owner.value != "unknown" else "–",
            "decided_by": c.diagnosis.decided_text() if c.diagnosis else "",
            "verdict": c.verdict.value,
            "attempt": f"{c.attempt} of {c.max_attempts}" if c.attempt else "–",
            "detail": c.detail or (c.reason.value if c.reason else ""),
        }
        for c in (outcome.plan.checks if outcome.plan else ())
    ]
    # Pushes and PRs made with GITHUB_TOKEN start no workflow run; action.yml tells whether that is the token.
    warn = ""
    if (
        (outcome.fix_pull_request or outcome.pushed)
        and workflow_token is not False
        and outcome.fix_ci != "started"
    ):
        warn = "certain" if workflow_token else "possible"
    return render_summary(
        frames,
        {
            "decision": outcome.decision,
            "headline": outcome.headline or _HEADINGS.get(outcome.decision, outcome.decision),
            "pr": outcome.pr,
            "head_sha": head_sha,
            "run_url": run_url,
            "plan_rows": rows,
            "outcome_lines": outcome.lines,
            "fix_pr_url": outcome.fix_pull_request,
            "frame_path": outcome.frame_path,
            "dry_run": dry_run,
            "planned": outcome.planned,
            "token_warning": warn,
            "requests": requests,
            "seconds": seconds,
        },
    )
