"""``healer report`` as text: the job summary (a table and Mermaid charts), the dashboard issue, and JSON.

Pure functions of :class:`~healer.model.Figures`. Names from pull requests (titles, check and test names,
branch names) are untrusted: they enter Markdown only through :func:`~healer.text.spans.code`, on one line,
with mentions and links defused.

GitHub renders Mermaid in fenced ``mermaid`` blocks wherever it renders Markdown (issues, comments, files;
github.com/github/roadmap#372, and "Creating diagrams" in GitHub's docs), job summaries included
("Supercharging GitHub Actions with Job Summaries", The GitHub Blog, 2022-05-09). Each chart repeats figures
the table above it already gives, so a viewer that shows the block as code loses nothing.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from healer.model import Figures, FixPull
from healer.text.boxes import CLOSE, RETRY, Box, render_box
from healer.text.spans import code

DASHBOARD_MARKER = "<!-- ci-healer:dashboard -->"
DASHBOARD_TITLE = "CI healer dashboard"
MAX_LISTED = 50  # entries per list in the issue (bodies are capped at 65,536 characters)
_FLAKY_SHOWN = 15


def _day(iso: str) -> str:
    return iso[:10]


def _title(pull: FixPull | Any) -> str:
    title = getattr(pull, "title", "")
    return f" {code(title, 80)}" if title else ""


def _pie(title: str, slices: Sequence[tuple[str, int]]) -> list[str]:
    shown = [(label, value) for label, value in slices if value > 0]
    if not shown:
        return []
    lines = ["```mermaid", f"pie showData title {title}"]
    lines += [f'    "{label}" : {value}' for label, value in shown]
    return [*lines, "```"]


def _rerun_text(figures: Figures) -> str:
    words = {
        "passed": "passed",
        "flaky": "passed (flaky)",
        "failed-again": "failed again",
        "pending": "no verdict",
    }
    parts = [f"{words.get(k, k)} {v}" for k, v in figures.rerun_outcomes.items() if v]
    return f"{figures.reruns}" + (f" ({', '.join(parts)})" if parts else "")


def green_text(hours: tuple[float, ...]) -> str:
    """How long failures took to turn green, as the figures show it: each time when there are three or fewer
    (the median of two is a time that neither took), else the median with the fastest and the slowest."""
    if not hours:
        return "none yet"
    shown = sorted(round(h, 1) for h in hours)
    if len(shown) <= 3:
        times = (
            " and ".join(f"{h} h" for h in shown)
            if len(shown) < 3
            else f"{shown[0]} h, {shown[1]} h and {shown[2]} h"
        )
        return f"{times} ({len(shown)} failure{'s' if len(shown) != 1 else ''})"
    median = round(statistics.median(hours), 1)
    return f"median {median} h over {len(shown)} failures (fastest {shown[0]} h, slowest {shown[-1]} h)"


# What an attempt's "verified" result is: the healer's own run of the checks on the runner passed. It says
# nothing of the fix PR's CI or of whether it is ready, which the rows after it count from the records.
VERIFIED_BY_RUN = "verified by the healer's own run"
NOT_VERIFIED = "not verified by the healer's own run"


def became_ready(figures: Figures) -> int:
    """Attempts whose fix pull request is ready for review (open, not a draft) or merged."""
    return figures.attempt_fixes.get("ready", 0) + figures.attempt_fixes.get("merged", 0)


def figure_rows(figures: Figures) -> list[tuple[str, str]]:
    """The figures as (label, value) rows, the order the summary and the issue show them."""
    not_delivered = figures.attempts - figures.delivered
    # 0 is a count when no agent ran (fix rules) or its proxy counted nothing; unknown only where an agent
    # ran and its use could not be read
    tokens = (
        f"{figures.tokens:,} over {figures.attempts_with_tokens} attempt(s)"
        + (f"; {figures.tokens_unknown} attempt(s) unknown" if figures.tokens_unknown else "")
        if figures.attempts_with_tokens
        else (
            f"unknown ({figures.tokens_unknown} agent attempt(s) not counted)"
            if figures.tokens_unknown
            else "0"
        )
    )
    return [
        ("pull requests the healer acted on", str(figures.pulls)),
        ("heal attempts", str(figures.attempts)),
        (f"… {VERIFIED_BY_RUN}", str(figures.verified)),
        (f"… delivered, {NOT_VERIFIED}", str(figures.delivered - figures.verified)),
        ("… nothing delivered (refused, no change, timed out)", str(not_delivered)),
        ("… whose fix PR's CI passed (its latest verdict)", str(figures.attempt_fixes.get("ci-passed", 0))),
        ("… whose fix PR's CI failed (its latest verdict)", str(figures.attempt_fixes.get("ci-failed", 0))),
        ("… whose fix PR is ready for review or merged", str(became_ready(figures))),
        ("fix PRs merged", str(figures.fix_count("merged"))),
        ("fix PRs closed unmerged", str(figures.fix_count("closed"))),
        ("fix PRs open", str(figures.fix_count("open"))),
        (
            "fix PRs' CI (its latest verdict)",
            f"{figures.fix_ci_count('passed')} passed, {figures.fix_ci_count('failed')} failed",
        ),
        ("re-runs", _rerun_text(figures)),
        ("escalations", f"{figures.escalations} ({len(figures.open_escalations)} still open)"),
        ("checks with nothing to try (no fix rule, no agent)", str(figures.untried)),
        ("first failure → green", green_text(figures.hours_to_green)),
        ("flaky tests", str(len(figures.flaky_tests))),
        ("agent tokens", tokens),
        ("rules learned", f"{figures.rule_count('merged')} merged, {figures.rule_count('open')} pending"),
        ("broken-trunk episodes", str(len(figures.trunk_episodes))),
    ]


def render_figures(figures: Figures) -> str:
    """The table of figures and the charts (Markdown)."""
    lines = ["| | |", "| --- | ---: |"]
    lines += [f"| {label} | {value} |" for label, value in figure_rows(figures)]
    charts = [
        *_pie(
            "Heal attempts",
            [
                (VERIFIED_BY_RUN, figures.verified),
                (f"delivered, {NOT_VERIFIED}", figures.delivered - figures.verified),
                ("nothing delivered", figures.attempts - figures.delivered),
            ],
        ),
        *_pie(
            "Fix pull requests",
            [(state, figures.fix_count(state)) for state in ("merged", "closed", "open", "unknown")],
        ),
    ]
    out = "\n".join(lines)
    if charts:
        out += "\n\n" + "\n".join(charts)
    if figures.notes:
        out += "\n\n" + "\n".join(f"> {note}" for note in figures.notes)
    return out


def _flaky(figures: Figures) -> list[str]:
    tests = list(figures.flaky_tests.items())[:_FLAKY_SHOWN]
    if not tests:
        return ["None recorded."]
    lines = ["| test | times |", "| --- | ---: |"]
    # a `|` splits a table cell even inside a code span (GitHub Flavored Markdown): escape it there
    lines += [f"| {code(test, 120).replace('|', chr(92) + '|')} | {times} |" for test, times in tests]
    if len(figures.flaky_tests) > _FLAKY_SHOWN:
        lines.append(f"| … and {len(figures.flaky_tests) - _FLAKY_SHOWN} more | |")
    return lines


def render_summary(figures: Figures, *, repository: str) -> str:
    """The job summary of ``healer report``."""
    lines = [
        f"## CI healer report: {code(repository)}, {_day(figures.since)} to {_day(figures.until)}",
        "",
        render_figures(figures),
        "",
        "### Flaky tests",
        "",
        *_flaky(figures),
    ]
    return "\n".join(lines) + "\n"


# The login of every workflow's GITHUB_TOKEN (BEHAVIOUR.md): a fix PR it opened starts no CI run.
WORKFLOW_TOKEN_LOGIN = "github-actions[bot]"  # noqa: S105 - a login, not a secret
NO_CI_LINE = (
    "Fix pull requests opened with `GITHUB_TOKEN` start no CI run by themselves: the healer starts the "
    "healed workflow on each fix branch where it declares `workflow_dispatch`."
)
_CI_SHOWN = {"passed": ":white_check_mark: CI passed", "failed": ":x: CI failed"}
_QUOTE_EDGES = ("`", "'", '"')
_MAX_COMMAND_CHECK = 200  # healer.run.commands.MAX_CHECK: a longer name is not read back from a comment


def command(verb: str, check: str) -> str | None:
    """``/ci-healer <verb> <check>`` as a code span that, copied from the rendered page and pasted into a
    comment, names ``check`` again (healer.run.commands reads it back), or None for a name no command line can
    carry (longer than a command reads).

    What a copy gives is the span's text: the name on one line, runs of blanks as one space, with the
    zero-width spaces that defuse mentions and links (the command's reader drops them, and compares names
    folded the same way). A name that starts or ends with a quote is quoted once more, as the reader takes
    one pair off."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in check).split())
    if not flat or len(flat) > _MAX_COMMAND_CHECK:
        return None
    argument = f"'{flat}'" if flat.startswith(_QUOTE_EDGES) or flat.endswith(_QUOTE_EDGES) else flat
    return code(f"/ci-healer {verb} {argument}")


def _escalation_box(e: Any, *, repository: str, key: str) -> str:
    retry = command("retry", e.check) or f"retry {code(e.check, 100)}"
    text = f"#{e.pull}{_title(e)}: {retry} (escalated on `{e.sha[:7]}`, {_day(e.at)})"
    return render_box(Box(RETRY, e.pull, e.check), text, repository=repository, key=key)


def fix_state(p: FixPull) -> str:
    """Where an open fix pull request stands, as a person deciding on it needs to know."""
    if p.ci == "failed":
        return ":x: CI failed, do not merge it as it is"
    if p.ci == "passed":
        return _CI_SHOWN["passed"] + (", still a draft: mark it ready, then merge" if p.draft else ", ready")
    if p.draft:
        return ":hourglass_flowing_sand: a draft with no CI verdict yet"
    return "ready for review, no CI verdict recorded"


def _fix_box(p: FixPull, *, repository: str, key: str) -> str:
    about = f" (fixes #{p.for_pull})" if p.for_pull else ""
    text = f"close #{p.number}{_title(p)}{about} — {fix_state(p)}"
    return render_box(Box(CLOSE, p.number), text, repository=repository, key=key)


def _section(title: str, lines: Sequence[str]) -> list[str]:
    """A section with its heading, or nothing at all when it has no lines (as Renovate's dashboard does)."""
    return [f"## {title}", "", *lines, ""] if lines else []


def render_dashboard(figures: Figures, *, repository: str, key: str = "", updated: str = "") -> str:
    """The body of the dashboard issue; its first line is the hidden marker that finds it again. ``updated``:
    when the report ran (ISO 8601), which is not the window's end when that was asked for (``--until``).

    Each escalation and each open fix PR has a box (:mod:`healer.text.boxes`, signed with ``key``, the
    ``ledger-key``): ticked by a person with write access, ``retry`` runs ``/ci-healer retry <check>`` on the
    pull request, ``close`` closes the fix PR. Empty sections are left out."""
    open_fixes = [p for p in figures.fix_pulls if p.state == "open"][:MAX_LISTED]
    escalations = [
        _escalation_box(e, repository=repository, key=key) for e in figures.open_escalations[:MAX_LISTED]
    ]
    fixes = [_fix_box(p, repository=repository, key=key) for p in open_fixes]
    rules = [f"- #{p.number}{_title(p)}" for p in figures.rule_pulls if p.state == "open"][:MAX_LISTED]
    untried = [
        f"- #{pull}: {code(check, 100)} (no fix rule applies and no `agent-command` is set)"
        for pull, check in figures.untried_checks[:MAX_LISTED]
    ]
    trunk = [
        f"- {code(t.check, 100)}: base-branch run {t.base_run or '?'}, held "
        + ", ".join(f"#{n}" for n in t.pulls[:20])
        + (" (lifted: green again)" if t.lifted else "")
        for t in figures.trunk_episodes[:MAX_LISTED]
    ]
    flaky = _flaky(figures) if figures.flaky_tests else []
    ticks = (
        " Tick a box to act on it (write access): **retry** runs the command shown on its pull request, "
        "**close** closes the fix pull request."
        if escalations or fixes
        else ""
    )
    # said once here, not in every fix PR: GitHub starts no workflow run for what GITHUB_TOKEN creates
    no_ci = any(p.author.casefold() == WORKFLOW_TOKEN_LOGIN for p in open_fixes)
    lines = [
        DASHBOARD_MARKER,
        f"The healer's dashboard for {code(repository)}, kept up to date by its scheduled report (last on "
        f"{_day(updated or figures.until)}).{ticks} Other edits are overwritten.",
        "",
        *([f"> {NO_CI_LINE}", ""] if no_ci else []),
        *_section("Escalations waiting for a person", escalations),
        *_section("Checks with nothing to try, waiting for a person", untried),
        *_section("Open fix pull requests", fixes),
        *_section("Rule pull requests waiting for review", rules),
        *_section("Failures of the base branch", trunk),
        *_section("Flaky tests", flaky),
        f"## Figures, {_day(figures.since)} to {_day(figures.until)}",
        "",
        render_figures(figures),
    ]
    return "\n".join(lines) + "\n"


def figures_json(figures: Figures, *, repository: str) -> dict[str, Any]:
    """The figures as plain JSON values (``healer report --format json``)."""
    return {
        "repository": repository,
        "since": figures.since,
        "until": figures.until,
        "pull_requests": figures.pulls,
        "attempts": {
            "total": figures.attempts,
            "verified": figures.verified,
            "delivered": figures.delivered,
            "by_result": dict(figures.attempt_results),
            "fix_ci_passed": figures.attempt_fixes.get("ci-passed", 0),
            "fix_ci_failed": figures.attempt_fixes.get("ci-failed", 0),
            "fix_ready_or_merged": became_ready(figures),
            "budget_stopped": figures.budget_stops,
        },
        "fix_pull_requests": {
            state: figures.fix_count(state) for state in ("merged", "closed", "open", "unknown")
        }
        | {
            "ci_passed": figures.fix_ci_count("passed"),
            "ci_failed": figures.fix_ci_count("failed"),
            "open_list": [
                {
                    "number": p.number,
                    "title": p.title,
                    "fixes": p.for_pull,
                    "ci": p.ci or None,
                    "draft": p.draft,
                }
                for p in figures.fix_pulls
                if p.state == "open"
            ],
        },
        "reruns": {"total": figures.reruns, **figures.rerun_outcomes},
        "escalations": {
            "total": figures.escalations,
            "untried": figures.untried,
            "untried_list": [{"pull_request": n, "check": c} for n, c in figures.untried_checks],
            "open": [
                {"pull_request": e.pull, "check": e.check, "sha": e.sha, "since": e.at}
                for e in figures.open_escalations
            ],
        },
        "hours_to_green": {
            "median": figures.median_hours_to_green,
            "checks": len(figures.hours_to_green),
        },
        "flaky_tests": dict(figures.flaky_tests),
        "agent_tokens": {
            "total": figures.tokens if figures.attempts_with_tokens or not figures.tokens_unknown else None,
            "attempts_with_tokens": figures.attempts_with_tokens,
            "attempts_unknown": figures.tokens_unknown,
        },
        "rules": {
            "merged": figures.rule_count("merged"),
            "pending": figures.rule_count("open"),
            "closed": figures.rule_count("closed"),
        },
        "broken_trunk": [
            {"check": t.check, "base_run": t.base_run, "pull_requests": list(t.pulls), "lifted": t.lifted}
            for t in figures.trunk_episodes
        ],
        "could_not_read": list(figures.notes),
    }
