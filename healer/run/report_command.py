"""``healer report``: what the healer did across the repository over a window, from its own markers.

Few requests, whatever the number of pull requests: the repository's settings and the config file (2), every
issue and PR comment updated in the window in one listing (``GET /issues/comments?since=…``, 100 a page,
newest first, at most 30 pages), kept when written by the bot login, and the pull requests updated in the
window (``GET /pulls?state=all``, most recently updated first, at most 5 pages) for the states of fix and
rule PRs. With ``dashboard`` the issue "CI healer dashboard" is found by its hidden marker: by its label (1
request), else among the bot's issues and PRs, most recently updated first (1 more request per 100 of them
updated since the dashboard; its label is then put back, 1 more), and edited in place, or opened once.

A listing that fails is said in the report ("could not read …") and the rest is still reported. The action
runs this on ``schedule`` and ``workflow_dispatch`` events (see ``healer.run.app``); ``healer report`` runs it
from a shell with a token in ``GITHUB_TOKEN``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from healer.config import Config, ConfigError, config_from_env
from healer.config.values import days
from healer.github import GitHub, GitHubError
from healer.github.history import REPORT_COMMENT_PAGES, Issue
from healer.ledger.fixrecords import repository_records
from healer.ledger.stats import figures
from healer.model import Figures
from healer.run.context import branch_config
from healer.text.dashboard import (
    DASHBOARD_MARKER,
    DASHBOARD_TITLE,
    figures_json,
    render_dashboard,
    render_summary,
)
from healer.text.report import Actions, Reporter, write_summary
from healer.text.terminal import render_text
from healer.text.tokens import scrub

REPORT_EVENTS = frozenset({"schedule", "workflow_dispatch"})
DASHBOARD_LABEL = "ci-healer"


@dataclass(frozen=True)
class Report:
    figures: Figures
    summary: str
    dashboard: str
    issue: Issue | None = None  # the dashboard issue, when kept
    requests: int = 0


def window(text: str, now: datetime) -> str:
    """A window's start: days (``30d``, ``4w``) back from ``now``, or a date (``2026-11-01``); ISO 8601."""
    if re.fullmatch(r"\s*\d+\s*[dw]?\s*", text.lower()):
        start = now - timedelta(days=days(1, 3660)("since", text))
    else:
        try:
            start = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ConfigError(
                f"--since must be a number of days (`30d`) or a date (`2026-11-01`), not {text!r}"
            ) from None
        start = start if start.tzinfo else start.replace(tzinfo=timezone.utc)
    return start.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_report(
    gh: GitHub,
    config: Config,
    *,
    repository: str,
    since: str,
    until: str,
    keep_dashboard: bool = False,
    dry_run: bool = False,
    say: Callable[[str], None] = lambda line: None,
    now: str = "",
) -> Report:
    """Read, aggregate, render and (with ``keep_dashboard``) keep the dashboard issue. ``now``: when the
    report runs (ISO 8601; default: ``until``), which the dashboard names as its last update."""
    before = gh.request_count
    notes: list[str] = []
    comments: tuple[Any, ...] = ()
    pulls: tuple[Any, ...] = ()
    try:
        listing = gh.list_repository_comments(since, authors=[config.bot_login])
        comments = listing.items
        if not listing.complete:
            notes.append(
                f"More than {REPORT_COMMENT_PAGES * 100:,} comments were updated in the window: only the "
                "newest were read, so the oldest part of the window is missing. Report on a shorter window."
            )
    except GitHubError as exc:
        notes.append(f"Could not read the repository's comments: {exc}.")
    try:
        pull_listing = gh.list_recent_pulls(since)
        pulls = pull_listing.items
        if not pull_listing.complete:
            notes.append(
                "Not every pull request updated in the window was read: some fix PR states are unknown."
            )
    except GitHubError as exc:
        notes.append(f"Could not read the pull requests: {exc}; fix and rule PR states are unknown.")
    say(f"read {len(comments)} comment(s) by {config.bot_login} and {len(pulls)} pull request(s)")
    # a heal whose fix waited for a person recorded its attempt in the fix's body, not in a comment
    comments = (*comments, *repository_records(pulls, config.bot_login))
    found = figures(comments, pulls, bot_login=config.bot_login, since=since, until=until, notes=notes)
    summary = render_summary(found, repository=repository)
    body = render_dashboard(found, repository=repository, key=config.ledger_key, updated=now or until)
    issue: Issue | None = None
    if keep_dashboard and not dry_run:
        issue = keep_dashboard_issue(gh, body, bot_login=config.bot_login, say=say)
    return Report(found, summary, body, issue, gh.request_count - before)


def keep_dashboard_issue(
    gh: GitHub, body: str, *, bot_login: str, say: Callable[[str], None]
) -> Issue | None:
    """Edit the dashboard issue in place (when its body changed), or open it when there is none.

    It is found by the hidden marker at the top of its body, in an issue the bot opened: by its label, else
    among every issue and PR of the bot (:meth:`~healer.github.history.HistoryCalls.find_issue`), so a
    removed label does not make a second dashboard; the label is put back. A person's edits to the body are
    overwritten; a closed dashboard is kept up to date and left closed: the maintainer closed it. When the
    listing was cut by its bound, nothing is opened (None): a second dashboard is worse than a late one.
    """
    found = gh.find_issue(DASHBOARD_MARKER, creator=bot_login, label=DASHBOARD_LABEL)
    if found.issue is None:
        if not found.complete:
            say("the dashboard issue was not found in the bot's issues read; none was opened")
            return None
        issue = gh.create_issue(DASHBOARD_TITLE, body, [DASHBOARD_LABEL])
        say(f"opened the dashboard issue #{issue.number}")
        return issue
    issue = found.issue
    if DASHBOARD_LABEL not in issue.labels:
        gh.add_labels(issue.number, [DASHBOARD_LABEL])
        say(f"put the label {DASHBOARD_LABEL!r} back on the dashboard issue #{issue.number}")
    if issue.body == body:
        say(f"the dashboard issue #{issue.number} is up to date")
        return issue
    updated = gh.update_issue(issue.number, body=body)
    say(f"updated the dashboard issue #{issue.number}{' (closed)' if issue.state == 'closed' else ''}")
    return updated


def run_in_actions(
    config: Config, actions: Actions, gh: GitHub, reporter: Reporter, env: Mapping[str, str], *, dry_run: bool
) -> int:
    """The action on ``schedule`` / ``workflow_dispatch``: the report as the job summary, and the dashboard
    issue with ``dashboard: true``."""
    now = datetime.now(timezone.utc)
    with reporter.group("Report"):
        # the config file of the default branch (2 requests), as ``healer run`` reads it
        config = branch_config(gh, config, env, gh.get_repository().default_branch) or config
        report = build_report(
            gh,
            config,
            repository=actions.repository,
            since=window(f"{config.report_window}d", now),
            until=now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            keep_dashboard=config.dashboard,
            dry_run=dry_run or config.dry_run,
            say=reporter.info,
        )
    summary = report.summary
    if report.issue is not None:
        summary += f"\nThe dashboard: {report.issue.html_url or '#' + str(report.issue.number)}\n"
    summary += f"\n<sub>{gh.request_count} API requests</sub>\n"
    write_summary(actions.summary, summary)
    for note in report.figures.notes:
        reporter.warning(note)
    return 0


# -- the command ------------------------------------------------------------------------------------------


def _command(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    # Workflow commands (`::add-mask::`, `::stop-commands::`, `::error::`) mean something only to the Actions
    # runner: from a shell they would print the token's mask line into the terminal (and into a redirected
    # `> figures.json`), so outside Actions stdout holds the report alone and errors go to stderr.
    in_actions = env.get("GITHUB_ACTIONS") == "true"
    reporter = Reporter()
    token = env.get("HEALER_GITHUB_TOKEN") or env.get("GITHUB_TOKEN") or ""
    repository = args.repository or env.get("GITHUB_REPOSITORY", "")
    try:
        if not token:
            raise ConfigError(
                "set GITHUB_TOKEN (a token that can read the repository's issues and pull requests)"
            )
        if not repository:
            raise ConfigError("name the repository: --repository owner/name (or GITHUB_REPOSITORY)")
        if in_actions:
            reporter.mask_token(token)
        config = config_from_env(env)
        now = datetime.now(timezone.utc)
        until = window(args.until, now) if args.until else now.strftime("%Y-%m-%dT%H:%M:%SZ")
        since = window(args.since or f"{config.report_window}d", now)
        gh = GitHub(token, repository, api_url=env.get("GITHUB_API_URL") or "https://api.github.com")
        try:
            report = build_report(
                gh,
                config,
                repository=repository,
                since=since,
                until=until,
                keep_dashboard=args.dashboard,
                dry_run=args.dry_run,
                now=now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            )
        finally:
            gh.close()
    except (ConfigError, GitHubError) as exc:
        message = scrub(str(exc), token)
        if in_actions:
            reporter.error(message)
        else:
            print(f"healer report: {message}", file=sys.stderr)
        return 1
    if args.format == "json":
        text = json.dumps(
            figures_json(report.figures, repository=repository) | {"requests": report.requests}, indent=2
        )
    elif args.format == "dashboard":
        text = report.dashboard
    elif args.format == "text" or (args.format == "auto" and not in_actions and sys.stdout.isatty()):
        text = render_text(report.figures, repository=repository)
    else:
        text = report.summary
    if in_actions:
        # names from pull requests are in it: printed with workflow commands off, whatever they hold
        reporter.untrusted(text)
    else:
        print(text)
    write_summary(env.get("GITHUB_STEP_SUMMARY"), report.summary)
    return 0


def register(subparsers: Any) -> None:
    """Add ``healer report``."""
    parser = subparsers.add_parser(
        "report",
        help="what the healer did across the repository (job summary, JSON, the dashboard issue)",
        description="Read the healer's markers in every comment of the repository over a window and report "
        "heals, fix PRs, re-runs, escalations, flaky tests, tokens, rules learned and broken-trunk episodes.",
    )
    parser.add_argument("--since", default="", help="a number of days (30d, 4w) or a date (2026-11-01)")
    parser.add_argument("--until", default="", help="the end of the window (a date); default: now")
    parser.add_argument(
        "--format",
        choices=("auto", "text", "markdown", "json", "dashboard"),
        default="auto",
        help="auto (the default): text in a terminal, else markdown (the job summary)",
    )
    parser.add_argument("--repository", default="", help="owner/name (default: GITHUB_REPOSITORY)")
    parser.add_argument("--dashboard", action="store_true", help="keep the issue 'CI healer dashboard'")
    parser.add_argument("--dry-run", action="store_true", help="read and render, write nothing")
    parser.set_defaults(func=_command)
