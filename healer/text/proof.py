"""What a fix pull request's CI says, where people look: one line in the fix PR's body (rewritten in place as
the CI goes from started to passed or failed), a note on the attempt's comment, and the short comment that
tells the pull request's participants when the state they wait on changed.

Pure: every name from a workflow, a branch or a log enters through :func:`healer.text.spans.code`, links
are built from the healer's own values (the server URL, the repository, a run id), and nothing here reads or
writes anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from healer.text.head import under_head
from healer.text.spans import code, defuse, one_line

# The fix PR body's CI line starts with this hidden mark, so that a later run finds and rewrites that line.
CI_MARK = "<!-- ci-healer:ci -->"
_LINE_LIMIT = 240  # characters of a decisive log line shown in a text


@dataclass(frozen=True)
class Failure:
    """A check that failed on the fix branch, and the log line that decided it (untrusted)."""

    check: str
    line: str = ""


def _short(text: str) -> str:
    """A message (a GitHub error) as one plain sentence part: one line, bounded, nothing that notifies."""
    line = " ".join(one_line(text).split()).replace("<", "&lt;").replace(">", "&gt;")
    return defuse(line if len(line) <= _LINE_LIMIT else line[: _LINE_LIMIT - 1] + "…")


def runs_url(server_url: str, repository: str, workflow_file: str, branch: str) -> str:
    """The Actions page of ``workflow_file``'s runs on ``branch``."""
    query = quote(f"branch:{branch}", safe=":")
    return f"{server_url}/{repository}/actions/workflows/{quote(workflow_file, safe='')}?query={query}"


def run_url(server_url: str, repository: str, run_id: int) -> str:
    return f"{server_url}/{repository}/actions/runs/{run_id}"


WAITING = "**Waiting for CI:**"
# on the fix PR's CI line while its author has not been asked to review it (the fix opened waiting for CI)
UNASKED = "<!-- ci-healer:unasked -->"


def dispatched_line(workflow_name: str, url: str, draft: bool) -> str:
    """The fix PR's CI line (its first line) when the healer started its CI with ``workflow_dispatch``."""
    wait = (
        " This pull request stays a draft until it passes; nobody is asked to review it before."
        if draft
        else " Nobody is asked to review it before it passes."
    )
    return (
        f"{CI_MARK} :hourglass_flowing_sand: {WAITING} {code(workflow_name)} is running on this branch "
        f"([runs]({url})), started by ci-healer because changes pushed with `GITHUB_TOKEN` start no "
        f"workflow.{wait} {UNASKED}"
    )


def is_waiting(body: str) -> bool:
    """Whether nobody was asked to review the fix yet: it opened waiting for the CI the healer started, and
    no verdict since asked anyone (a red one tells, it does not ask). The fix PR's CI line carries
    :data:`UNASKED` until then; a line written before the mark existed says so by waiting."""
    return any(
        ln.lstrip().startswith(CI_MARK) and (UNASKED in ln or WAITING in ln) for ln in body.split("\n")
    )


def unasked(line: str) -> str:
    """A CI line that keeps saying nobody was asked to review the fix yet."""
    return f"{line} {UNASKED}"


def add_dispatch_line(workflow_path: str) -> str:
    """The one line that says what to add so that the healer can start CI on its fix branches."""
    return (
        f"CI does not run on this fix branch: add `workflow_dispatch:` to the `on:` triggers of "
        f"{code(workflow_path)} and the healer will start it on each fix branch and mark the fix ready when "
        "it passes."
    )


def ci_note(state: str, workflow_path: str) -> str:
    """The job summary's line about the fix branch's CI (``state``: started, no-trigger, failed)."""
    if state == "started":
        return (
            f"started {code(workflow_path)} on the fix branch (`workflow_dispatch`); its verdict marks the "
            "fix ready for review or says what failed"
        )
    if state == "no-trigger":
        return add_dispatch_line(workflow_path)
    return f"could not start {code(workflow_path)} on the fix branch; see the fix pull request"


def no_dispatch_line(workflow_path: str) -> str:
    return f"{CI_MARK} :information_source: **CI:** {add_dispatch_line(workflow_path)}"


def dispatch_failed_line(workflow_name: str, why: str) -> str:
    return (
        f"{CI_MARK} :warning: **CI:** ci-healer could not start {code(workflow_name)} on this branch "
        f"({_short(why)}); run it by hand before merging."
    )


# Why GitHub may refuse to take a draft out of draft, and what a person does about it (BEHAVIOUR.md: the
# GraphQL mutation is reported to fail for a workflow's GITHUB_TOKEN whose job lacks `contents: write`). Said
# as what happened then, so that it stays true after a person marks the pull request ready (no event says so).
READY_REFUSED = (
    "GitHub refused to let ci-healer mark it ready for review (as it does for a workflow's `GITHUB_TOKEN` "
    "without `contents: write`), so ci-healer left it a draft"
)
READY_TODO = (
    "review it, mark it ready for review yourself unless someone has, then merge it; to let ci-healer mark "
    "later fixes ready, give its workflow's job `contents: write`"
)


def passed_line(workflow_name: str, url: str, *, ready: bool, refused: bool = False) -> str:
    """The fix PR's CI line once its CI passed; ``refused``: GitHub refused to mark it ready (its message goes
    to the run's log, not to the reader)."""
    after = " Marked ready for review." if ready else ""
    if refused:
        refused_this = READY_REFUSED.replace("mark it", "mark this pull request", 1)
        after = f" When that run passed, {refused_this}: {READY_TODO}."
    shown = f"{code(workflow_name)} ([run]({url}))"
    return f"{CI_MARK} :white_check_mark: **CI passed** on this branch: {shown}.{after}"


def not_ours_line(line: str, tested: str, pushed: str) -> str:
    """A CI line for a fix branch whose head is not the commit the healer pushed (a person's commits are on
    it, or the healer has no record of its push): the verdict, said plainly as being on someone else's work,
    which the healer does not mark ready."""
    line = line.replace(" Marked ready for review.", "")
    if not pushed:  # an attempt recorded before the healer recorded its pushes
        return (
            f"{line} :warning: ci-healer has no record of the commit it pushed to this branch, so it cannot "
            f"tell whether {code(tested[:7])}, which that run tested, is its own work, and does not mark "
            "this pull request ready: review the branch's commits, then mark it ready yourself."
        )
    return (
        f"{line} :warning: That run tested {code(tested[:7])}, which holds commits ci-healer did not make "
        f"(the one it pushed was {code(pushed[:7])}), so ci-healer does not mark this pull request ready: "
        "review those commits as part of the fix, then mark it ready yourself."
    )


def failed_line(workflow_name: str, url: str, failures: Sequence[Failure]) -> str:
    """The fix PR's CI line once its CI failed: each failed check and its decisive line; it supersedes what
    ci-healer's own check said (it is the body's first line), and says not to merge."""
    return (
        f"{CI_MARK} :x: **CI failed** on this branch: {code(workflow_name)} ([run]({url})): "
        f"{failures_text(failures)}. Do not merge it as it is."
    )


TITLE_LIMIT = 200  # a fix PR's title, as healer.deliver.fixpr.fix_title writes it and as it is marked here
_TITLE_STATES = ("ci-healer (CI failed):", "ci-healer (unverified):")


def _bounded(title: str) -> str:
    return title if len(title) <= TITLE_LIMIT else title[: TITLE_LIMIT - 1] + "…"


def unverified_title(title: str) -> str:
    """The fix PR's title marked unverified (for a repository that refuses drafts), still bounded;
    :func:`state_title` takes the mark off once CI checked the fix."""
    marked = title.replace("ci-healer:", "ci-healer (unverified):", 1)
    if marked == title:
        marked = f"(unverified) {title}"
    return _bounded(marked)


def state_title(title: str, passed: bool) -> str:
    """A fix PR's title after its CI verdict: ``ci-healer (CI failed): …`` when it failed, plain ``ci-healer:
    …`` when it passed (an "unverified" mark goes: CI checked it)."""
    plain = title
    for mark in _TITLE_STATES:
        if plain.startswith(mark):
            plain = "ci-healer:" + plain[len(mark) :]
    if plain.startswith("(unverified) "):
        plain = plain[len("(unverified) ") :]
    if passed or not plain.startswith("ci-healer:"):
        return plain
    marked = "ci-healer (CI failed):" + plain[len("ci-healer:") :]
    return _bounded(marked)


STATE_MARK = "<!-- ci-healer:state -->"


def with_state_line(body: str, line: str) -> str:
    """A comment's ``body`` with ``line`` (the fix's state) as its first visible line, before the text and
    after the hidden block on top (markers, the attempt's memory line); an earlier state line is replaced."""
    lines = body.split("\n")
    at = 0
    while at < len(lines) and (not lines[at].strip() or _hidden(lines[at])):
        at += 1
    shown = f"{STATE_MARK} {line}"
    if at < len(lines) and lines[at].lstrip().startswith(STATE_MARK):
        lines[at] = shown
        return "\n".join(lines)
    head = "\n".join(lines[:at]).rstrip("\n")
    rest = "\n".join(lines[at:]).strip("\n")
    return "\n\n".join(part for part in (head, shown, rest) if part)


def _hidden(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("<!--") and stripped.endswith("-->") and not stripped.startswith(STATE_MARK)


def state_line(
    fix_pr: int, workflow_name: str, url: str, *, passed: bool, ready: bool, ours: bool, marked: bool = True
) -> str:
    """The first line of the attempt's comment once its fix's CI reported: what became of the fix then.
    ``marked``: it was a draft the healer marked ready (``ready``); else it was open for review already."""
    shown = f"{code(workflow_name)}, [run]({url})"
    if not ours:
        verdict = "passed" if passed else "failed"
        return (
            f":warning: CI {verdict} on fix #{fix_pr} ({shown}) at a commit ci-healer cannot vouch for as "
            "its own, so it does not mark it ready: review the branch's commits."
        )
    if not passed:
        return f":x: Fix #{fix_pr} failed CI ({shown}): do not merge it as it is."
    if ready:
        done = "was marked ready for review" if marked else "was open for review already"
        return f":white_check_mark: Fix #{fix_pr} passed CI ({shown}) and {done}."
    return f":white_check_mark: Fix #{fix_pr} passed CI ({shown}); {READY_REFUSED}: {READY_TODO}."


def failures_text(failures: Sequence[Failure], limit: int = 3) -> str:
    shown = [
        f"{code(f.check)}" + (f" ({code(f.line.strip(), _LINE_LIMIT)})" if f.line.strip() else "")
        for f in failures[:limit]
    ]
    more = len(failures) - limit
    text = ", ".join(shown) or "a job failed"
    return f"{text} and {more} more" if more > 0 else text


def with_ci_line(body: str, line: str, *, first: bool = False) -> str:
    """``body`` with its CI line replaced by ``line``; without one, ``line`` goes after the first paragraph
    (the news), so that it is the second thing a reader sees. ``first``: the line is the fix's state (waiting
    for CI, passed, failed), which supersedes what the body said first: any earlier CI line is removed and
    ``line`` becomes the body's first line. The records at the top of a fix PR's body (hidden) stay there."""
    return under_head(body, lambda text: _with_ci_line(text, line, first=first))


def _with_ci_line(body: str, line: str, *, first: bool) -> str:
    if first:
        kept = [ln for ln in body.split("\n") if not ln.lstrip().startswith(CI_MARK)]
        rest = "\n".join(kept).strip("\n")
        while "\n\n\n" in rest:
            rest = rest.replace("\n\n\n", "\n\n")
        return f"{line}\n\n{rest}" if rest else line
    lines = body.split("\n")
    for index, existing in enumerate(lines):
        if existing.lstrip().startswith(CI_MARK):
            lines[index] = line
            return "\n".join(lines)
    for index, existing in enumerate(lines):
        if index > 0 and not existing.strip() and lines[index - 1].strip():
            return "\n".join([*lines[:index], "", line, *lines[index:]])
    return f"{body}\n\n{line}" if body.strip() else line


def attempt_note(fix_pr: int, workflow_name: str, url: str, passed: bool, failures: Sequence[Failure]) -> str:
    """The line added to the attempt's comment on the pull request."""
    if passed:
        return f"CI on fix #{fix_pr}: :white_check_mark: {code(workflow_name)} passed ([run]({url}))."
    return f"CI on fix #{fix_pr}: :x: {code(workflow_name)} failed ([run]({url})): {failures_text(failures)}."


def news_comment(
    fix_pr: int,
    checks: Sequence[str],
    workflow_name: str,
    url: str,
    *,
    passed: bool,
    ready: bool,
    failures: Sequence[Failure],
    marked: bool = True,
) -> str:
    """The new comment on the pull request when its fix's CI changed what a person waits on (news first).
    ``marked``: a ``ready`` fix was a draft that the healer marked ready (else it was open for review)."""
    names = ", ".join(code(c) for c in checks) or "the failing checks"
    if passed:
        if ready:
            return (
                f":white_check_mark: The fix for {names} passed CI: #{fix_pr} "
                f"{'was marked ready for review' if marked else 'was open for review already'} "
                f"({code(workflow_name)}, [run]({url})). Merge it into this branch to make the checks pass."
            )
        return (
            f":white_check_mark: The fix for {names} passed CI in #{fix_pr} ({code(workflow_name)}, "
            f"[run]({url})), but {READY_REFUSED.replace('mark it', f'mark #{fix_pr}', 1)}: "
            f"{READY_TODO.replace('then merge it', 'then merge it into this branch', 1)}."
        )
    return (
        f":x: The fix for {names} in #{fix_pr} failed CI ({code(workflow_name)}, [run]({url})): "
        f"{failures_text(failures)}.\n\n"
        "Comment `/ci-healer retry` for another attempt that starts from this failure, or fix it by hand."
    )


def memory_note(fix_pr: int, workflow_name: str, run_id: int, failures: Sequence[Failure]) -> str:
    """What the next attempt reads about this one: its fix PR's CI failed, and where."""
    lines = [f"Its fix pull request #{fix_pr} failed CI on the fix branch ({workflow_name}, run {run_id}):"]
    lines += [f"- {f.check}: {f.line.strip()}" if f.line.strip() else f"- {f.check}" for f in failures]
    return "\n".join(lines)
