"""The reply to ``/ci-healer explain``: what the healer reads in each failed check, without acting. Pure.

Per check: the category and confidence, whose failure it is and what decided it (the step's ending, its
purpose, the evidence, the names, and the row of the owner table), the rule and its description, the
failing step, command and exit code, the failing tests, and the decisive lines (fenced: log text is
untrusted). Bounded so that five checks stay far below GitHub's comment limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from healer.model import Diagnosis
from healer.text.frames import clip_lines, code, fence

MAX_CHECKS = 5
MAX_DECISIVE_LINES = 20
MAX_DECISIVE_CHARS = 4000
MAX_TESTS_SHOWN = 10
MAX_DECIDED_CHARS = 600


def explain_text(
    found: Sequence[tuple[str, Diagnosis, str]], *, head_sha: str, run_url: str, note: str = ""
) -> str:
    """``found`` holds (check name, diagnosis, rule description) per failed check."""
    run = f" ([run]({run_url}))" if run_url.startswith(("https://", "http://")) else ""
    lines = [f"**ci-healer** reads the failure on `{head_sha[:7]}`{run} like this (nothing was changed):"]
    if note:
        lines += ["", note]
    if not found:
        lines += ["", "No failed job of that run matched."]
    for name, diagnosis, description in found[:MAX_CHECKS]:
        lines += ["", f"#### {code(name)}", ""]
        lines.append(
            f"- category: **{diagnosis.category.value}** (confidence {diagnosis.confidence:.2f}); "
            f"whose: **{diagnosis.owner.value}**; action: {diagnosis.action.value}"
        )
        if diagnosis.decided_by:
            lines.append(f"- decided by: {code(diagnosis.decided_text()[:MAX_DECIDED_CHARS])}")
        rule = f"- rule: {code(diagnosis.rule)}"
        if description:
            rule += f": {' '.join(description.split())}"
        lines.append(rule)
        where = [
            f"step {code(diagnosis.step)}" if diagnosis.step else "",
            f"command {code(diagnosis.command.splitlines()[0])}" if diagnosis.command else "",
            f"exit code {diagnosis.exit_code}" if diagnosis.exit_code is not None else "",
        ]
        if any(where):
            lines.append(f"- failed in {', '.join(w for w in where if w)}")
        if diagnosis.test_ids:
            shown = ", ".join(code(t) for t in diagnosis.test_ids[:MAX_TESTS_SHOWN])
            more = len(diagnosis.test_ids) - MAX_TESTS_SHOWN
            lines.append(f"- failing tests: {shown}{f' and {more} more' if more > 0 else ''}")
        decisive = diagnosis.decisive or diagnosis.excerpt[-MAX_DECISIVE_LINES:]
        if decisive:
            lines += [
                "",
                "Decisive lines:",
                "",
                fence(clip_lines(decisive, MAX_DECISIVE_LINES, MAX_DECISIVE_CHARS), "text"),
            ]
    if len(found) > MAX_CHECKS:
        lines += ["", f"… and {len(found) - MAX_CHECKS} more failed check(s)."]
    return "\n".join(lines)
