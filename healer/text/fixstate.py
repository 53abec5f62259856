"""What a fix's texts say after the events that follow its delivery: the CI the healer started cancelled
before a verdict, the healer closing the fix, and the attempt comment's line about its fix pull request after
each verdict (:mod:`healer.text.proof` holds the CI lines themselves). Each is said so that no later event
makes it false: what happened then, or a line the healer rewrites when it knows more.

Pure: names enter through :func:`healer.text.spans.code`; nothing here reads or writes anything.
"""

from __future__ import annotations

import re

from healer.text.proof import CI_MARK, UNASKED, WAITING
from healer.text.spans import code

CANCELLED = "**CI cancelled:**"


def cancelled_line(workflow_name: str, url: str, draft: bool) -> str:
    """The fix PR's CI line (its first line) when the CI the healer started was cancelled before it finished
    (by a person, a newer push or a concurrency group: a run a time limit stopped is a failure). Nothing has
    checked the fix; what a person can do is start that CI again."""
    after = "marks it ready for review and asks for its review" if draft else "asks for its review"
    return (
        f"{CI_MARK} :stop_sign: {CANCELLED} {code(workflow_name)} ([run]({url})) was cancelled on this "
        "branch before it finished, so CI has not checked this fix and nobody was asked to review it. "
        f"Re-run it (*Re-run all jobs* on the run's page) or run {code(workflow_name)} on this branch: when "
        f"it passes, ci-healer {after}."
    )


def cancelled_state_line(fix_pr: int, workflow_name: str, url: str) -> str:
    """The first line of the attempt's comment when its fix's CI was cancelled before a verdict."""
    return (
        f":stop_sign: The CI of fix #{fix_pr} was cancelled before it finished ({code(workflow_name)}, "
        f"[run]({url})), so nothing has checked it: re-run it, and ci-healer asks for its review when it "
        "passes."
    )


NO_VERDICT = "**CI gave no verdict:**"


def no_verdict_line(workflow_name: str, url: str, conclusion: str, draft: bool) -> str:
    """The fix PR's CI line (its first line) when the CI the healer started ended without checking the fix
    (``startup_failure``: its workflow could not start; ``skipped``: its jobs' conditions skipped them)."""
    after = "marks it ready for review and asks for its review" if draft else "asks for its review"
    return (
        f"{CI_MARK} :warning: {NO_VERDICT} {code(workflow_name)} ([run]({url})) ended {code(conclusion)} on "
        "this branch without checking this fix (the run's page says why), so nobody was asked to review it. "
        f"Once that is mended, run {code(workflow_name)} on this branch again: when it passes, ci-healer "
        f"{after}."
    )


def no_verdict_state_line(fix_pr: int, workflow_name: str, url: str, conclusion: str) -> str:
    """The first line of the attempt's comment when its fix's CI ended without checking it."""
    return (
        f":warning: The CI of fix #{fix_pr} ended {code(conclusion)} without checking it "
        f"({code(workflow_name)}, [run]({url})): run it again, and ci-healer asks for its review when it "
        "passes."
    )


def unwaited_line(how: str) -> str:
    """The fix PR's CI line (its first line) once a person ``merged`` or ``closed`` it before the CI the
    healer started reported: no verdict will be recorded for it."""
    return (
        f"{CI_MARK} :information_source: **CI:** this pull request was {how} before the CI ci-healer started "
        "on it reported, so ci-healer records no verdict for it."
    )


def awaits_verdict(body: str) -> bool:
    """Whether the fix PR's CI line says it waits for the CI the healer started (or that CI was cancelled
    before it gave a verdict): no verdict is said there to keep."""
    return any(
        ln.lstrip().startswith(CI_MARK) and any(mark in ln for mark in (WAITING, CANCELLED, NO_VERDICT))
        for ln in body.split("\n")
    )


def closed_body(why: str, body: str) -> str:
    """A fix PR's body as the healer closes it (superseded, no longer needed, its pull request gone): ``why``
    (one sentence) first. A CI line that waits for a verdict, or says its CI was cancelled before one, goes:
    nobody waits on a closed fix. A verdict stays, below."""
    kept = [
        ln
        for ln in body.split("\n")
        if not (ln.lstrip().startswith(CI_MARK) and any(m in ln for m in (WAITING, CANCELLED, NO_VERDICT)))
    ]
    rest = "\n".join(kept).replace(f" {UNASKED}", "").strip("\n")
    while "\n\n\n" in rest:
        rest = rest.replace("\n\n\n", "\n\n")
    head = f"> :no_entry_sign: **Closed by ci-healer:** {why}"
    return f"{head}\n\n{rest}" if rest else head


# The attempt comment's line about its fix pull request (prompts/comment.md.j2, which takes these from
# here): "Fix pull request: <url> (<state>; <verification>)<how its author is asked>". Before any CI verdict
# the state says a draft waits, and the last part that its review is asked for later; each verdict rewrites
# both, so that nothing on the line promises what a verdict contradicts (:func:`with_fix_state`).
FIX_WAITING = "a draft until its CI passes; "
FIX_DRAFT = "draft: "
ASKED_LATER = "; its review is asked for once its CI passes"
_FIX_STATES = {
    "passed": ("its CI passed; ", ""),
    "failed": ("its CI failed; ", "; nobody is asked to review it while its CI fails"),
    "cancelled": ("its CI was cancelled before it finished; ", ASKED_LATER),
    "no-verdict": ("its CI ended without checking it; ", ASKED_LATER),
    "not-ours": ("its branch holds commits ci-healer did not make; ", "; ci-healer asks nobody to review it"),
    # every check it fixes passed since (a reset): closed as not needed, or merged; nothing waits on its CI
    "passed-since": ("the checks it fixes passed since; ", ""),
}
_FIX_PARTS = re.compile(r"^(Fix pull request: \S+) \((.*)\)((?:; [^()]*)?)$")


def with_fix_state(body: str, state: str) -> str:
    """The attempt's comment with its fix pull request's line saying ``state`` (one of :data:`_FIX_STATES`):
    what it said of the draft and of a review asked for later is replaced; how the author was asked (a past
    review request or mention) and the verification stay. A line it does not know (a repository's own
    template) is left as it is."""
    prefix, clause = _FIX_STATES[state]
    prefixes = (FIX_WAITING, FIX_DRAFT, *(p for p, _ in _FIX_STATES.values()))
    clauses = {ASKED_LATER, *(c for _, c in _FIX_STATES.values() if c)}
    lines = body.split("\n")
    for index, line in enumerate(lines):
        found = _FIX_PARTS.match(line)
        if found is None:
            continue
        inner = found.group(2)
        inner = next((inner[len(p) :] for p in prefixes if inner.startswith(p)), inner)
        tail = clause if found.group(3) in clauses else found.group(3)
        shown = f"{prefix}{inner}" if inner else prefix.rstrip("; ")
        lines[index] = f"{found.group(1)} ({shown}){tail}"
    return "\n".join(lines)


# A red verdict's news on the pull request (healer.text.proof.news_comment) is created once; when the same fix
# passes CI later (a re-run), the news stays true only as the past: a line on top says what came since.
LATER = "> :white_check_mark: **Later:**"


def is_failed_news(body: str, fix_pr: int) -> bool:
    """Whether ``body`` is the news that fix ``fix_pr`` failed CI (a later line on top or not)."""
    lines = [ln for ln in body.split("\n") if ln.strip() and not ln.startswith(LATER)]
    return (
        bool(lines) and lines[0].startswith(":x: The fix for ") and f" in #{fix_pr} failed CI (" in lines[0]
    )


def with_later_pass(body: str, fix_pr: int, workflow_name: str, url: str) -> str:
    """The failed-CI news with a first line saying that the fix's CI passed since (an earlier such line is
    replaced); what it said of the failure stays below, as what happened then."""
    kept = body.split("\n", 2)[2] if body.startswith(LATER) and body.count("\n") >= 2 else body
    later = (
        f"{LATER} {code(workflow_name)} passed on #{fix_pr} since then ([run]({url})); #{fix_pr}'s first "
        "line says what to do with it. Below, what failed before."
    )
    return f"{later}\n\n{kept}"
