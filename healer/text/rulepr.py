"""The rule pull request's title and body (``prompts/rule-pr.md.j2``): what was learned, from which heal, and
what the rule will do next time."""

from __future__ import annotations

from healer.model import Lesson
from healer.text.frames import Frames
from healer.text.markdown import fit_comment

RULE_TITLE_LIMIT = 200


def rule_title(lesson: Lesson, fix_pr: int) -> str:
    """Plain, healer-written text only (the check name is the PR's, so it stays out of the title)."""
    how = "a fix rule" if lesson.fix_command else "a hint"
    return f"ci-healer: learn {how} from fix #{fix_pr} ({lesson.category})"[:RULE_TITLE_LIMIT]


def render_rule_pr_body(
    frames: Frames,
    lesson: Lesson,
    *,
    rule_id: str,
    hint: str,
    yaml_text: str,
    pr: int,
    fix_pr: int,
    commit: str,
    merged_by: str,
    path: str,
) -> str:
    """The body of the pull request that adds the rule ``rule_id`` (``yaml_text``) to ``path``."""

    def render(lines: int) -> str:
        return frames.render(
            "rule-pr.md.j2",
            {
                "rule_id": rule_id,
                "category": lesson.category,
                "check": lesson.check,
                "command": lesson.command,
                "fix_command": lesson.fix_command,
                "hint": hint,
                "signature": lesson.signature,
                "masked": lesson.masked,
                "pr": pr,
                "fix_pr": fix_pr,
                "commit": commit,
                "merged_by": merged_by,
                "path": path,
                "yaml": yaml_text,
            },
        )

    return fit_comment(render, "")
