"""Every template in prompts/, rendered with ordinary values and with hostile ones, reads right: no double
punctuation, no empty link, no "1 requests", no unfilled field, no runner path a reader cannot open, and no
hostile text outside a code span or a fence."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import pytest

from healer.change.outcomes import SetupResult, Spend, Verification
from healer.config import Config
from healer.deliver.fixpr import UNVERIFIED_NOTE
from healer.heal.verify import VerifyPlan
from healer.ledger.learned import description, lesson_of, rule_mapping
from healer.ledger.ledger import Ledger
from healer.ledger.markers import Kind, Marker, comment_body
from healer.model import (
    Account,
    Action,
    Category,
    CheckPlan,
    Comment,
    Diagnosis,
    Figures,
    FixPull,
    HealMode,
    PastAttempt,
    PullRequest,
    RunEvent,
    Verdict,
)
from healer.run.retry import plan_retry
from healer.text.dashboard import render_dashboard
from healer.text.fixpr import budget_stop, render_fix_pr_body
from healer.text.fixstate import (
    cancelled_line,
    cancelled_state_line,
    closed_body,
    no_verdict_line,
    no_verdict_state_line,
    with_fix_state,
)
from healer.text.frames import (
    Frames,
    HealNote,
    render_comment,
    render_escalation,
    render_heal_frame,
    shipped_dir,
)
from healer.text.proof import (
    Failure,
    dispatched_line,
    failed_line,
    news_comment,
    not_ours_line,
    passed_line,
    state_line,
    unasked,
    with_ci_line,
)
from healer.text.report import Outcome, render_job_summary
from healer.text.rulepr import render_rule_pr_body, rule_title
from healer.text.spans import code

SHA = "0123456789abcdef0123456789abcdef01234567"
RUN_URL = "https://github.com/octo/repo/actions/runs/42"


@dataclass(frozen=True)
class Values:
    """What a run puts into its texts: everything here but the numbers comes from outside the healer."""

    check: str
    command: str
    excerpt: tuple[str, ...]
    head_ref: str
    title: str
    notes: str
    fix_command: str
    merged_by: str
    test_id: str
    path: str


ORDINARY = Values(
    check="test (3.12)",
    command="python -m pytest -q",
    excerpt=("FAILED tests/test_calc.py::test_add - assert 3 == 4", "1 failed, 12 passed in 0.31s"),
    head_ref="feature/calc",
    title="Add subtraction",
    notes="Fixed the sign in widgets/calc.py.",
    fix_command="make tables",
    merged_by="mona",
    test_id="tests/test_calc.py::test_add",
    path="widgets/calc.py",
)
LONG = "x" * 300
HOSTILE = Values(
    check="lint @org/everyone <img src=x onerror=alert(1)> `x` ${{ github.token }}\nsecond line " + LONG,
    command="ruff check . @org/team `$(id)` ${{ secrets.KEY }} <b>",
    excerpt=("```", "@org/everyone <script>alert(1)</script> ${{ github.token }}", "````", "[x]() " + LONG),
    head_ref="feature/@org/x`<b>`${{ github.token }}",
    title="Title @org/everyone ``` <b> ${{ x }}",
    notes="```\n@org/all <script> ${{ github.token }}\n```",
    fix_command="make tables @org/everyone",
    merged_by="@mona<b>",
    test_id="tests/t.py::test_x[@org/all `y` <b>]",
    path="src/@org/<b>`x`${{ y }}.py",
)
# what must never stand outside a code span or a fence
HOSTILE_BITS = ("@org", "@mona", "<img", "<script", "<b>", "${{", "onerror")


def pr(v: Values) -> PullRequest:
    return PullRequest(
        number=7, state="open", title=v.title, author="alice", head_sha=SHA, head_ref=v.head_ref,
        head_repository="octo/repo", base_ref="main", base_repository="octo/repo",
        html_url="https://github.com/octo/repo/pull/7",
    )  # fmt: skip


DESCRIPTION = "Pytest reported failing tests; the first failure is the place to start."


def check_plan(v: Values, verdict: Verdict = Verdict.HEAL, **changes: object) -> CheckPlan:
    diagnosis = Diagnosis(
        category=Category.TEST, confidence=0.9, rule="python.pytest", action=Action.AGENT, excerpt=v.excerpt,
        step="Run tests", command=v.command, exit_code=1, job=v.check, decisive=v.excerpt[:1],
        test_ids=(v.test_id,), description=DESCRIPTION,
    )  # fmt: skip
    plan = CheckPlan(
        check=v.check, verdict=verdict, diagnosis=diagnosis, attempt=2, max_attempts=3, mode=HealMode.AGENT
    )
    return replace(plan, **changes)  # type: ignore[arg-type]


HISTORY = (
    PastAttempt("rerun", "a" * 40, 0, "transient"),
    PastAttempt("attempt", "b" * 40, 1, "test", "agent", 11, "verify-failed"),
    PastAttempt("attempt", "c" * 40, 2, "test", "agent", None, "no-change"),
)


def fix_pr_bodies(v: Values) -> list[str]:
    stop = budget_stop(Spend(tokens=9, requests=1, refused=1, stopped="agent-request-budget", limit=1))
    out = []
    for verification in (
        Verification("passed", v.command, 0),
        Verification("failed", v.command, 1, "\n".join(v.excerpt)),
        Verification("timed-out", v.command),
        Verification("unverified", reason="no `verify-command` is set"),
    ):
        # a fix rule's change of one file; an agent's of several, after the set-up, stopped by its budget
        for files, setup, fix_commands, agent, ci_line in (
            ((f"M\t{v.path}",), None, [v.fix_command], False, ""),
            (
                (f"M\t{v.path}", f"A\t{v.path}.new", f"D\t{v.path}.old"),
                SetupResult(("pip install -e .",)),
                [],
                True,
                failed_line(v.check, RUN_URL, [Failure(v.check, v.excerpt[0])]),
            ),
        ):
            text = render_fix_pr_body(
                Frames(),
                pr=pr(v),
                head_sha=SHA,
                run_url=RUN_URL,
                checks=[check_plan(v)],
                fix_commands=fix_commands,
                agent_ran=agent,
                agent_exit=0 if agent else None,
                verification=verification,
                diffstat="1 file changed, +1 -1",
                files=files,
                more_files=len(files) - 1,
                setup=setup,
                superseded=(5,),
                notes=v.notes,
                allowed=(v.path,),
                budget_stop=stop if agent else "",
            )
            out.append(with_ci_line(text, ci_line, first=True) if ci_line else text)
    # the heal job's word (two jobs): its report quoted, whatever it holds
    word = Verification("passed", v.command, 0, "\n".join(v.excerpt), reason=v.notes)
    out.append(
        render_fix_pr_body(
            Frames(),
            pr=pr(v),
            head_sha=SHA,
            run_url=RUN_URL,
            checks=[check_plan(v)],
            fix_commands=(),
            agent_ran=True,
            agent_exit=0,
            verification=Verification("unverified", reason="the job that delivered it runs none of its code"),
            heal_word=word,
            diffstat="1 file changed, +1 -1",
            files=(f"M\t{v.path}",),
        )
    )
    return out


def fix_states(v: Values) -> list[str]:
    """A fix PR's CI lines and title in each state, the attempt comment's state line, the news comments, and
    the dashboard and terminal report of fixes in each state."""
    failure = [Failure(v.check, v.excerpt[-1])]
    lines = [
        dispatched_line(v.check, RUN_URL, True),
        dispatched_line(v.check, RUN_URL, False),
        cancelled_line(v.check, RUN_URL, True),
        cancelled_line(v.check, RUN_URL, False),
        cancelled_state_line(9, v.check, RUN_URL),
        no_verdict_line(v.check, RUN_URL, "startup_failure", True),
        no_verdict_state_line(9, v.check, RUN_URL, "skipped"),
        passed_line(v.check, RUN_URL, ready=True),
        passed_line(v.check, RUN_URL, ready=False, refused=True),
        failed_line(v.check, RUN_URL, failure),
        not_ours_line(passed_line(v.check, RUN_URL, ready=False), "b" * 40, "a" * 40),
        not_ours_line(failed_line(v.check, RUN_URL, failure), "b" * 40, ""),
        *(
            state_line(9, v.check, RUN_URL, passed=passed, ready=ready, ours=ours)
            for passed, ready, ours in (
                (True, True, True),
                (True, False, True),
                (False, False, True),
                (True, False, False),
            )
        ),
        *(
            news_comment(9, [v.check], v.check, RUN_URL, passed=passed, ready=ready, failures=failure)
            for passed, ready in ((True, True), (True, False), (False, False))
        ),
    ]
    fixes = (
        FixPull(9, v.title, "u", "open", 7, ci="passed"),
        FixPull(10, v.title, "u", "open", 7, ci="passed", draft=True),
        FixPull(11, v.title, "u", "open", 7, ci="failed"),
        FixPull(12, v.title, "u", "open", 7, draft=True),
        FixPull(13, v.title, "u", "open", 7),
    )
    figures = Figures(
        since="2026-01-01T00:00:00Z",
        until="2026-02-01T00:00:00Z",
        fix_pulls=fixes,
        untried_checks=((7, v.check),),
        hours_to_green=(0.55, 24.0),
    )
    lines.append(render_dashboard(figures, repository="octo/repo"))
    # (the terminal report is plain text, not Markdown: tests/text/test_terminal.py reads it)
    return lines


def rule_pr_texts(v: Values) -> list[str]:
    diagnosis = check_plan(v).diagnosis
    assert diagnosis is not None
    decisive = ("naming: src/a.py:3 function 'twice' must start with a verb",)
    out = []
    # a learned rule is most often about a failure no shipped rule knows: category unknown
    for fix_command, category in ((v.fix_command, Category.UNKNOWN), ("", Category.TEST)):
        known = replace(diagnosis, decisive=decisive, category=category)
        lesson = lesson_of(known, v.check, fix_command=fix_command, files=(f"M\t{v.path}",), summary=v.notes)
        assert lesson is not None
        rule = rule_mapping(lesson, pr=3, fix_pr=4, commit="c" * 40)
        out.append(rule_title(lesson))
        out.append(
            render_rule_pr_body(
                Frames(),
                lesson,
                rule_id=rule["id"],
                description=description(lesson, pr=3, fix_pr=4),
                hint=rule.get("hint", ""),
                yaml_text=f"- id: {rule['id']}\n",
                pr=3,
                fix_pr=4,
                commit="c" * 40,
                merged_by=v.merged_by,
                path=".github/ci-healer/rules/learned.yml",
                diff=f"--- a/{v.path}\n+++ b/{v.path}\n@@ -1 +1 @@\n-{v.notes}\n+{v.title}\n",
            )
        )
    return out


def comments(v: Values) -> list[str]:
    failing = check_plan(v)
    rerun = check_plan(v, Verdict.RERUN, flaky=())
    flaky = check_plan(v, Verdict.RERUN, flaky=(v.test_id,))
    escalated = check_plan(v, Verdict.ESCALATE, history=HISTORY)
    untried = check_plan(v, Verdict.ESCALATE, detail="No fix rule applies.", untried=True)
    delivered = HealNote(
        2, 3, (failing,), True, how="ran the agent command", verification="verified: `x` passed",
        fix_pr_url="https://github.com/octo/repo/pull/9", notes=v.notes, agent_ran=True,
    )  # fmt: skip
    patched = replace(delivered, fix_pr_url="", patch=f"--- a/{v.path}\n+++ b/{v.path}\n+{v.title}\n")
    nothing = HealNote(
        2, 3, (failing,), False, why_not="It deletes the test `test_add`.", setup_output=v.notes
    )
    common = {"head_sha": SHA, "run_url": RUN_URL, "markers": "", "workflow": v.check}
    return [
        render_comment(
            Frames(),
            state="claim",
            healing=[failing],
            promise="a change, if it makes one, comes as a pull request",
            **common,
        ),
        render_comment(Frames(), state="claim", escalations=[escalated], mention="@octo/team", **common),
        render_comment(Frames(), state="done", escalations=[untried], listed=2, **common),
        render_comment(Frames(), state="startup", workflow_path=".github/workflows/ci.yml", **common),
        render_comment(Frames(), state="reset", resets=[v.check], **common),
        render_comment(Frames(), state="done", reruns=[rerun, flaky], heal=delivered, **common),
        render_comment(
            Frames(),
            state="done",
            heal=patched,
            escalations=[escalated],
            mention="@octo/team",
            opt_out_label="ci-healer:off",
            **common,
        ),
        render_comment(
            Frames(),
            state="done",
            heal=nothing,
            diagnoses=[failing],
            diagnosis_note="Fork code is not run.",
            escalations=[untried],
            **common,
        ),
        render_escalation(Frames(), escalated),
        render_escalation(Frames(), untried),
    ]


def job_summaries(v: Values) -> list[str]:
    """The job summary of a heal (a granted attempt within the budget), of a fix's CI verdict, of a rule
    proposal (a closed pull request's run: no head, no run link) and of a run that did nothing."""
    granted = plan_retry(
        {v.check: Diagnosis(Category.TEST, 0.9, "r", Action.AGENT, v.excerpt, command=v.command)},
        check=None,
        by=v.merged_by.strip("@<b>") or "mona",
        ledger=Ledger.from_comments(
            [Comment(1, "bot", comment_body([Marker(Kind.ATTEMPT, SHA, v.check, attempt=1, run_id=1)]))],
            "bot",
        ),
        config=Config(agent_command="agent", max_attempts=3),
        pull=pr(v),
        run=RunEvent("octo/repo", 1, 1, "CI", SHA, v.head_ref, "octo/repo", False, "pull_request", "failure"),
    )
    heal = Outcome(
        decision="healed", plan=granted, pr=pr(v), fix_pull_request="https://github.com/octo/repo/pull/9"
    )
    heal.lines.append("opened fix pull request #9")
    verdict = Outcome(decision="none", pr=pr(v), headline="the CI of fix #9 passed")
    rule = Outcome(decision="none", headline="proposed a rule learned from #9")
    nothing = Outcome()
    texts = []
    for outcome, sha, url in (
        (heal, SHA, RUN_URL),
        (verdict, SHA, RUN_URL),
        (rule, "", ""),
        (nothing, "", ""),
    ):
        texts.append(
            render_job_summary(
                Frames(),
                outcome,
                head_sha=sha,
                run_url=url,
                dry_run=False,
                workflow_token=None,
                requests=1,
                seconds=1.0,
            )
        )
    return texts


def frames_and_summaries(v: Values) -> list[str]:
    earlier = Account((v.check,), 1, "b" * 40, "verify-failed", 11, "1 file changed, +1 -1", v.notes, v.notes)
    return [
        render_heal_frame(
            Frames(),
            repository="octo/repo",
            pr=pr(v),
            head_sha=SHA,
            run_url=RUN_URL,
            checks=[check_plan(v, history=HISTORY)],
            setup=SetupResult(("pip install -e .",)),
            verification=VerifyPlan((v.command,)),
            earlier=[earlier],
            learn=True,
        ),
        *job_summaries(v),
    ]


# Which render function covers which template: a template added to prompts/ must be added here.
RENDERERS: dict[str, Callable[[Values], list[str]]] = {
    "fix-pr.md.j2": fix_pr_bodies,
    "commands.md.j2": fix_pr_bodies,  # included by fix-pr.md.j2 and escalate.md.j2
    "rule-pr.md.j2": rule_pr_texts,
    "comment.md.j2": comments,
    "escalate.md.j2": comments,
    "heal.md.j2": frames_and_summaries,
    "summary.md.j2": frames_and_summaries,
}
# Texts written in code, not from a template, rendered the same way.
IN_CODE: list[Callable[[Values], list[str]]] = [fix_states]


def test_every_template_is_rendered_here() -> None:
    assert sorted(p.name for p in shipped_dir().glob("*.j2")) == sorted(RENDERERS)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def unfenced(text: str) -> str:
    """``text`` without its fenced blocks."""
    kept: list[str] = []
    closer = ""
    for line in text.split("\n"):
        found = _FENCE.match(line)
        if closer:
            run = found.group(1) if found else ""
            if run[:1] == closer[0] and len(run) >= len(closer) and not line.strip().strip(closer[0]):
                closer = ""
            continue
        if found:
            closer = found.group(1)
            continue
        kept.append(line)
    return "\n".join(kept)


def prose(text: str) -> str:
    """``text`` without its fenced blocks, and with every code span replaced by ``CODE``."""
    return _SPAN.sub("CODE", unfenced(text))


COUNTED = r"(?:request|attempt|file|re-run|token|line|check|change|commit|test|suggested change)"
FLAWS = {
    "double punctuation": re.compile(r"(?<![.…])\.\.(?!\.)|[,;:] ?[.,;:]|\.[,;:]| [.,;:](?:\s|$)"),
    "an empty link": re.compile(r"\[[^\]]*\]\(\s*\)"),
    "an empty commit": re.compile(r"\bat ``(?!`)"),
    "a heading that says nothing": re.compile(r"^ ?ci-healer: (?:none|rerun)$"),
    "a plural after 1": re.compile(rf"(?<![\d.,])\b1 (?:model )?{COUNTED}s\b"),
    "a singular after another number": re.compile(rf"\b(?:0|[2-9]|\d{{2,}}) (?:model )?{COUNTED}\b(?!s)"),
    "an unfilled field": re.compile(r"\bNone\b|\bunknown\b|(?<![\w&/])#(?![\w#])|\(\s*\)|CODE CODE"),
    "a runner path": re.compile(r"/home/runner|/tmp/|/github/workspace|RUNNER_TEMP"),
}


@pytest.mark.parametrize(
    "values", [pytest.param(ORDINARY, id="ordinary"), pytest.param(HOSTILE, id="hostile")]
)
@pytest.mark.parametrize("template", sorted({*RENDERERS.values(), *IN_CODE}, key=lambda f: f.__name__))
def test_every_text_reads_right(template: Callable[[Values], list[str]], values: Values) -> None:
    for text in template(values):
        readable = prose(text)
        for lineno, line in enumerate(readable.split("\n"), 1):
            if line.startswith("#") or line.startswith("|"):
                line = line.lstrip("#").replace("|", " ")  # a heading's marks, a table's cells
            for flaw, pattern in FLAWS.items():
                if template is frames_and_summaries and flaw == "a runner path":
                    continue  # the agent's frame and the job's summary are read on the runner itself
                found = pattern.search(line)
                assert found is None, f"{flaw} ({found.group()!r}) in line {lineno}: {line!r}"
        # "beyond the budget" only for an attempt beyond it
        for attempt, budget in re.findall(
            r"[Aa]ttempt (\d+) \(\w+\), granted by .*? beyond the budget of (\d+)", text
        ):
            assert int(attempt) > int(budget), f"attempt {attempt} called beyond a budget of {budget}"
        # an empty code span is an unfilled field too
        assert not re.search(r"(?<!`)` +`(?!`)", unfenced(text)), "an empty code span"
        assert "`None`" not in unfenced(text), "a value that was not there"
        if values is HOSTILE:
            for bit in HOSTILE_BITS:
                assert bit not in readable, f"{bit!r} outside a code span or fence: {readable!r}"
            # a name's newline does not start a line of its own
            assert not re.search(r"^second line", unfenced(text), re.M), "a name broke its line"
            # the one live mention: the configured `escalation-mention`
            assert not re.search(r"@(?!octo/team\b)[A-Za-z0-9]", readable), "a live mention"


# A state a later event can change (the fix's CI verdict, a person marking it ready, the healer closing
# it), said in a text that stays where people look: such texts say what happened then, or leave the state to
# the line the healer rewrites (the fix PR's CI line, the attempt's state line and its fix line). A condition
# ("if it is a draft") stays true.
STALE = re.compile(
    r"(?<![Ii]f )(?<![Ii]f it )\b(?:it is|is|is still|stays) a draft\b|still a draft|is open for review"
    r"|nothing verified it|nothing checked|does not fix it yet|\bis ready for review|asked for once its CI"
)


def lasting(v: Values) -> list[str]:
    """The texts a later event does not rewrite, or that a verdict has rewritten: fix PR bodies (with each CI
    verdict first, and as the healer closes them), the attempt's comment after each verdict."""
    failure = [Failure(v.check, v.excerpt[-1])]
    verdicts = [
        passed_line(v.check, RUN_URL, ready=True),
        passed_line(v.check, RUN_URL, ready=False, refused=True),
        failed_line(v.check, RUN_URL, failure),
        not_ours_line(passed_line(v.check, RUN_URL, ready=False), "b" * 40, "a" * 40),
        *(
            state_line(9, v.check, RUN_URL, passed=passed, ready=ready, ours=ours)
            for passed, ready, ours in ((True, True, True), (True, False, True), (False, False, True))
        ),
    ]
    bodies = fix_pr_bodies(v)
    out = [UNVERIFIED_NOTE, *verdicts]
    for body in bodies:
        out += [with_ci_line(body, line, first=True) for line in verdicts[:4]]
        waiting = with_ci_line(body, unasked(dispatched_line(v.check, RUN_URL, True)), first=True)
        out.append(closed_body(f"{code(v.check)} passed on abc1234 without this fix.", waiting))
    note = HealNote(
        1, 3, (check_plan(v),), True, how="ran the fix command", verification="verified: `x` passed",
        fix_pr_url="https://github.com/octo/repo/pull/9", draft=True, ci_started=True, asked="waiting",
    )  # fmt: skip
    comment = render_comment(Frames(), state="done", head_sha=SHA, run_url=RUN_URL, markers="", heal=note)
    out += [with_fix_state(comment, state) for state in ("passed", "failed", "not-ours", "passed-since")]
    return out


@pytest.mark.parametrize(
    "values", [pytest.param(ORDINARY, id="ordinary"), pytest.param(HOSTILE, id="hostile")]
)
def test_no_lasting_text_claims_a_state_a_later_event_can_change(values: Values) -> None:
    for text in lasting(values):
        found = STALE.search(prose(text))
        assert found is None, f"{found.group()!r} stays after the event that changes it: {prose(text)!r}"
        assert "HTTP" not in prose(text).split("\n")[0], "transport detail in a first line"
