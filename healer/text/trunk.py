"""The broken-trunk notice: the one comment that says a check fails on the base branch too (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from healer.model import BranchRun
from healer.text.spans import code


def _names(checks: Sequence[str]) -> str:
    return ", ".join(code(check) for check in checks)


def render_trunk_notice(
    checks: Sequence[str],
    base_run: BranchRun,
    *,
    branch: str,
    server_url: str,
    repository: str,
    workflow: str,
    lifted: Sequence[str] = (),
) -> str:
    """The visible text of the notice. ``checks`` fail on ``branch`` the same way as on the pull request in
    ``base_run``; ``lifted`` checks had a notice and are healed as usual again."""
    lines: list[str] = []
    commit_url = f"{server_url}/{repository}/commit/{base_run.head_sha}"
    run_link = f"[run {base_run.id}]({base_run.html_url})" if base_run.html_url else f"run {base_run.id}"
    if checks:
        one = len(checks) == 1
        lines += [
            f"### {'This check fails' if one else 'These checks fail'} on {code(branch)} too",
            "",
            f"{_names(checks)} in {code(workflow)} {'fails' if one else 'fail'} on {code(branch)} the same "
            f"way as here: commit [`{base_run.head_sha[:7]}`]({commit_url}), {run_link}. That is not this "
            "pull request's fault, so the healer spends no attempt on it and opens no fix.",
            "",
            f"The healer stays off {'this check' if one else 'these checks'} here until {code(branch)} is "
            f"green again: the first failure after a passing run on {code(branch)} is healed as usual. This "
            "comment is updated in place.",
        ]
    if lifted:
        if lines:
            lines.append("")
        it = "it" if len(lifted) == 1 else "them"
        lines.append(
            f"{_names(lifted)}: no longer the failure of {code(branch)} ({code(branch)} passes again, or "
            f"this pull request fails {it} another way), so the healer heals {it} here as usual."
        )
    return "\n".join(lines)
