"""End to end: a month of the healer's work, as its markers record it, and what ``healer report`` makes of it.

Every marker is written by the functions ``healer run`` writes them with (attempts from a heal's result, the
broken-trunk notice edited in place when it is lifted, a reset added to the previous comment), in comments
by the bot. The month holds what the report used to get wrong: a broken-trunk episode that was lifted (the
lift rewrites the notice's marker), an attempt a budget stopped whose change was verified and delivered, and
a fix rule's heal, which ran no agent (0 tokens is a count, not "unknown"). The report runs from a shell as
``healer report --format json > f.json``: the file is the JSON alone, without the token.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness import TOKEN, shell_env

from healer.change.context import HealResult
from healer.change.outcomes import Spend, Verification
from healer.demo.sandbox import Sandbox
from healer.demo.state import Pull
from healer.ledger.entries import record, reset_markers
from healer.ledger.markers import Kind, Marker, add_markers, comment_body
from healer.ledger.trunk import notice_body, trunk_marker
from healer.model import Action, Category, CheckPlan, Diagnosis, HealMode, RunEvent, Verdict

BOT = "github-actions[bot]"
WF = ".github/workflows/ci.yml"
TEST = Diagnosis(Category.TEST, 0.9, "pytest-failed", Action.AGENT, ("FAILED tests/test_calc.py::test_add",))
LINT = Diagnosis(Category.LINT, 0.9, "ruff-check", Action.FIX, ("F401 `os` imported but unused",))


def at(day: int, hour: int = 9) -> str:
    return f"2026-01-{day:02d}T{hour:02d}:00:00Z"


def sha(n: int) -> str:
    return f"{n:07x}" + "e" * 33


def event(n: int, run_id: int) -> RunEvent:
    return RunEvent(
        "o/r",
        run_id,
        1,
        "CI",
        sha(n),
        f"feature-{n}",
        "o/r",
        False,
        "pull_request",
        "failure",
        workflow_path=WF,
    )


def attempt(
    n: int, run_id: int, check: str, mode: HealMode, result: HealResult, k: int = 1, fix_pr: int | None = None
) -> Marker:
    """The attempt marker the act stage writes for a heal's result (healer.run.acting)."""
    plan = CheckPlan(check, Verdict.HEAL, TEST if mode is HealMode.AGENT else LINT, attempt=k, mode=mode)
    spend = result.spend
    marker = record(
        plan,
        event(n, run_id),
        fix_pr=fix_pr,
        result=result.result,
        tokens=spend.tokens if spend else 0,
        stopped=spend.stopped if spend else "",
    )
    assert marker is not None
    return marker


def fix_pull(box: Sandbox, pull: Pull, n: int, *, state: str = "open", draft: bool = False) -> Pull:
    fix = box.standin.add_pull(
        box.repo,
        head_ref=f"ci-healer/{pull.number}-{sha(n)[:7]}",
        head_sha=sha(900 + n),
        base_ref=pull.head_ref,
        title=f"Fix CI of #{pull.number}",
        author=BOT,
        draft=draft,
    )
    if state != "open":
        fix.state, fix.merged = "closed", state == "merged"
    return fix


def month(box: Sandbox) -> dict[str, int]:
    """Seven pull requests over January; returns their numbers by story."""
    s, repo = box.standin, box.repo
    pulls = {
        name: s.add_pull(repo, head_ref=f"feature-{n}", head_sha=sha(n), title=f"PR {name}")
        for n, name in enumerate(["rule", "budget", "escalated", "rerun", "trunk-a", "trunk-b", "quiet"])
    }

    # a lint failure fixed by a fix rule (no agent), verified; its fix PR merged, the check green after
    fixed = fix_pull(box, pulls["rule"], 0, state="merged")
    verified = HealResult(
        True, fix_commands=("ruff check --fix",), verification=Verification("passed", "ruff")
    )
    heal = s.add_comment(
        repo,
        pulls["rule"].number,
        comment_body(
            [attempt(0, 100, "lint", HealMode.FIX, verified, fix_pr=fixed.number)], "Heal attempt 1 of 2"
        ),
        author=BOT,
        at=at(5),
    )
    heal.body, heal.updated_at = (
        add_markers(heal.body, reset_markers(["lint"], sha(0), 101, 1, WF)),
        at(5, 13),
    )

    # the agent's heal stopped by agent-token-budget: what it had changed passed verification, and its fix PR
    # was opened (ready: verified)
    stopped = Spend(tokens=52_000, requests=9, refused=1, stopped="agent-token-budget", limit=50_000)
    budget = HealResult(
        True, diffstat="1 file changed", verification=Verification("passed", "pytest"), spend=stopped
    )
    delivered = fix_pull(box, pulls["budget"], 1)
    s.add_comment(
        repo,
        pulls["budget"].number,
        comment_body(
            [attempt(1, 110, "test (3.12)", HealMode.AGENT, budget, fix_pr=delivered.number)],
            "Heal attempt 1 of 2",
        ),
        author=BOT,
        at=at(8),
    )

    # two agent attempts that did not make it (no change, then a draft that failed verification), escalated
    nothing = HealResult(False, spend=Spend(tokens=30_000, requests=6))
    failed = HealResult(
        True,
        diffstat="2 files changed",
        verification=Verification("failed", "pytest", 1),
        spend=Spend(tokens=41_000, requests=7),
    )
    draft = fix_pull(box, pulls["escalated"], 2, state="closed", draft=True)
    number = pulls["escalated"].number
    s.add_comment(
        repo,
        number,
        comment_body([attempt(2, 120, "test (3.12)", HealMode.AGENT, nothing)], "1"),
        author=BOT,
        at=at(12),
    )
    s.add_comment(
        repo,
        number,
        comment_body([attempt(3, 121, "test (3.12)", HealMode.AGENT, failed, k=2, fix_pr=draft.number)], "2"),
        author=BOT,
        at=at(13),
    )
    escalation = Marker(
        Kind.ESCALATION, sha(4), "test (3.12)", run_id=122, run_attempt=1, category="test", workflow=WF
    )
    s.add_comment(repo, number, comment_body([escalation], "Needs a person"), author=BOT, at=at(14))

    # a transient failure re-run; the re-run passed (the reset edits the re-run's comment)
    rerun = Marker(Kind.RERUN, sha(5), "build", run_id=130, run_attempt=1, category="transient", workflow=WF)
    again = s.add_comment(repo, pulls["rerun"].number, comment_body([rerun], "Re-ran"), author=BOT, at=at(15))
    again.body, again.updated_at = (
        add_markers(again.body, reset_markers(["build"], sha(5), 130, 2, WF)),
        at(15, 10),
    )

    # main broke `test (3.12)` (its run 501): two pull requests got the notice, no attempt spent; main went
    # green, trunk-a failed again and its notice was lifted in place (the lift keeps run 501)
    for name, day in (("trunk-a", 20), ("trunk-b", 21)):
        n = 6 if name == "trunk-a" else 7
        broken = trunk_marker("test (3.12)", sha(n), 501, 1, workflow=WF, category="test")
        notice = s.add_comment(
            repo, pulls[name].number, notice_body("", [broken], "fails on main too"), author=BOT, at=at(day)
        )
        if name == "trunk-a":
            lifted = trunk_marker("test (3.12)", sha(60), 501, 0, workflow=WF, lifted=True)
            notice.body, notice.updated_at = notice_body(notice.body, [lifted], "healed as usual"), at(24)
    # a rule learned from the merged fix, merged too
    rule = s.add_pull(
        repo, head_ref="ci-healer/rule-3f2a", head_sha=sha(990), title="Learn a rule", author=BOT
    )
    rule.state, rule.merged = "closed", True
    return {name: p.number for name, p in pulls.items()}


def test_a_month_with_a_lifted_episode_and_a_budget_stopped_delivered_fix(
    box: Sandbox, tmp_path: Path
) -> None:
    numbers = month(box)
    out = tmp_path / "f.json"
    env = shell_env(box)
    argv = [
        sys.executable,
        "-m",
        "healer",
        "report",
        "--format",
        "json",
        "--since",
        "2026-01-01",
        "--until",
        "2026-02-01",
    ]
    with out.open("w") as stdout:  # healer report --format json > f.json
        done = subprocess.run(
            argv, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120, check=False
        )

    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert TOKEN not in text + done.stderr
    figures = json.loads(text)
    figures.pop("since"), figures.pop("until")
    assert figures == {
        "repository": box.repo,
        "pull_requests": 6,
        "attempts": {
            "total": 4,
            "verified": 2,  # the fix rule's and the budget-stopped one's
            "delivered": 3,
            "by_result": {"no-change": 1, "verified": 2, "verify-failed": 1},
            "fix_ci_passed": 0,  # no fix branch's CI reported
            "fix_ci_failed": 0,
            "fix_ready_or_merged": 2,  # the fix rule's (merged) and the budget-stopped one's (ready)
            "budget_stopped": 1,
        },
        "fix_pull_requests": {
            "merged": 1,
            "closed": 1,
            "open": 1,
            "unknown": 0,
            "ci_passed": 0,
            "ci_failed": 0,
            "open_list": [
                {
                    "number": numbers["budget"] + 7,
                    "title": f"Fix CI of #{numbers['budget']}",
                    "fixes": numbers["budget"],
                    "ci": None,
                    "draft": False,
                },
            ],
        },
        "reruns": {"total": 1, "passed": 1, "flaky": 0, "failed-again": 0, "pending": 0},
        "escalations": {
            "total": 1,
            "untried": 0,
            "untried_list": [],
            "open": [
                {"pull_request": numbers["escalated"], "check": "test (3.12)", "sha": sha(4), "since": at(14)}
            ],
        },
        "hours_to_green": {"median": 2.5, "checks": 2},  # 4 h for the rule's heal, 1 h for the re-run
        "flaky_tests": {},
        "agent_tokens": {"total": 123_000, "attempts_with_tokens": 3, "attempts_unknown": 0},
        "rules": {"merged": 1, "pending": 0, "closed": 0},
        "broken_trunk": [
            {
                "check": "test (3.12)",
                "base_run": 501,
                "pull_requests": [numbers["trunk-a"], numbers["trunk-b"]],
                "lifted": True,
            }
        ],
        "could_not_read": [],
        "requests": 2,
    }
