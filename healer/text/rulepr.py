"""The rule pull request's title and body (``prompts/rule-pr.md.j2``): what the rule will do, on which
failure, across the repository; the change it reproduces; where it was learned."""

from __future__ import annotations

import re

from healer.model import Lesson
from healer.text.frames import Frames
from healer.text.markdown import fit_comment, neutralize_mentions

RULE_TITLE_LIMIT = 200
# A name from the log or the agent in a title: one line, no backticks, this long at most.
_NAME_LIMIT = 70
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# What the body shows of the change (the attempt's record keeps at most 3,000 characters of it).
DIFF_LINES = 80


def _title_name(text: str) -> str:
    """Untrusted text for a plain-text title: control characters and backticks gone, whitespace collapsed,
    mentions defused, cut short."""
    name = " ".join(_CONTROL.sub(" ", text).replace("`", "'").split())
    name = name if len(name) <= _NAME_LIMIT else name[: _NAME_LIMIT - 1] + "…"
    return neutralize_mentions(name)


def rule_title(lesson: Lesson) -> str:
    """The rule PR's title: the failure it is for (the failing command, else the check) and what the rule
    does about it (the command it runs, or the hint it gives the agent)."""
    failing = _title_name(lesson.command or lesson.check)
    kind = f"{lesson.category} " if lesson.category and lesson.category != "unknown" else ""
    failure = f"{kind}failures of `{failing}`" if failing else f"{kind}failures"
    if lesson.fix_command:
        title = f"ci-healer: learn to fix {failure} with `{_title_name(lesson.fix_command)}`"
    else:
        title = f"ci-healer: learn a hint for {failure}"
    return title if len(title) <= RULE_TITLE_LIMIT else title[: RULE_TITLE_LIMIT - 1] + "…"


def render_rule_pr_body(
    frames: Frames,
    lesson: Lesson,
    *,
    rule_id: str,
    description: str,
    hint: str,
    yaml_text: str,
    pr: int,
    fix_pr: int,
    commit: str,
    merged_by: str,
    path: str,
    diff: str = "",
) -> str:
    """The body of the pull request that adds the rule ``rule_id`` (``yaml_text``) to ``path``. ``diff``:
    the change of fix pull request ``fix_pr`` as its attempt recorded it (untrusted; "" when none was kept);
    ``description``: the rule's own (healer-written), which its fix pull requests give as the diagnosis."""
    lines = diff.splitlines()
    shown = "\n".join(lines[:DIFF_LINES])
    cut = len(lines) > DIFF_LINES or diff.endswith("…")

    def render(excerpt_lines: int) -> str:
        return frames.render(
            "rule-pr.md.j2",
            {
                "rule_id": rule_id,
                "category": lesson.category,
                "check": lesson.check,
                "command": lesson.command,
                "fix_command": lesson.fix_command,
                "description": description,
                "hint": hint,
                "signature": lesson.signature,
                "masked": lesson.masked,
                "files": lesson.files,
                "pr": pr,
                "fix_pr": fix_pr,
                "commit": commit,
                "merged_by": merged_by,
                "path": path,
                "yaml": yaml_text,
                "diff": shown,
                "diff_cut": cut,
            },
        )

    return fit_comment(render, "")
