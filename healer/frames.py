"""Renders the templates in ``prompts/``: the heal and escalate frames, the fix-PR body, comments and summary.

Templates are Jinja2 with ``StrictUndefined`` (a missing value is an error, not an empty string) and no HTML
autoescaping (the output is Markdown and plain text). A repository overrides any template by putting a file of
the same name in ``.github/ci-healer/`` on its default branch; an override can also ``{% extends
"shipped/heal.md.j2" %}`` and replace one block (e.g. ``guidance``).

Everything a template receives from outside the repository's own configuration is untrusted: log excerpts,
check names, branch names, PR titles, agent output. The filters below are the only way such text enters a
rendered document: ``fenced`` (a code block the text cannot close), ``code`` (an inline code span), and
``nomention`` (``@`` defused so no one is pinged).
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

import healer
from healer.model import CheckPlan, PastAttempt, PullRequest

# GitHub rejects comment bodies longer than this (REST "body is too long").
COMMENT_LIMIT = 65_536
# $GITHUB_STEP_SUMMARY is capped at 1 MiB per step.
SUMMARY_LIMIT = 1024 * 1024
OVERRIDE_DIR = ".github/ci-healer"
TEMPLATES = ("heal.md.j2", "escalate.md.j2", "fix-pr.md.j2", "comment.md.j2", "summary.md.j2")

_ZWSP = "\u200b"
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_BACKTICKS = re.compile(r"`+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class FrameError(Exception):
    """A template is missing or fails to render; the message names the template and what to fix."""


def shipped_dir() -> Path:
    """The directory of the shipped templates: ``prompts/`` in a source tree or action checkout, else the
    ``healer.prompts`` package of an installed wheel."""
    source = Path(healer.__file__).resolve().parent.parent / "prompts"
    if (source / "heal.md.j2").is_file():
        return source
    # healer.prompts has no __init__.py (it is the top-level prompts/ directory), so it is a namespace package
    # whose files() is a MultiplexedPath: ask it for a file and take that file's directory.
    return Path(str(importlib.resources.files("healer.prompts").joinpath("heal.md.j2"))).parent


def fence(text: str, info: str = "") -> str:
    """``text`` in a backtick fence longer than any backtick run inside it (min. 3), so it cannot close."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def code(text: object) -> str:
    """``text`` as one inline code span: newlines and control characters folded, delimited by a backtick run
    it does not contain."""
    # control characters too: a job name may hold a NUL or a terminal escape (YAML escapes in the workflow)
    flat = " ".join(_CONTROL.sub(" ", str(text)).split())
    if not flat:
        return "` `"
    longest = max((len(run) for run in _BACKTICKS.findall(flat)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def neutralize_mentions(text: str) -> str:
    """Insert a zero-width space after every ``@`` that could start a mention, outside fenced code blocks.

    Inside a fence GitHub does not link mentions, so the text stays byte-for-byte what the log said."""
    out: list[str] = []
    closer: str | None = None
    for line in text.splitlines(keepends=True):
        match = _FENCE_LINE.match(line)
        if closer is None:
            if match:
                closer = match.group(1)
                out.append(line)
            else:
                out.append(_MENTION.sub("@" + _ZWSP, line))
        else:
            fence_char = closer[0]
            if (
                match
                and match.group(1)[0] == fence_char
                and len(match.group(1)) >= len(closer)
                and not line.strip().strip(fence_char)
            ):
                closer = None
            out.append(line)
    return "".join(out)


def clip_lines(lines: tuple[str, ...] | list[str], max_lines: int, max_chars: int) -> str:
    """The last ``max_lines`` lines of an excerpt, at most ``max_chars`` characters (errors come last)."""
    kept = list(lines)[-max_lines:] if max_lines > 0 else []
    text = "\n".join(kept)
    if len(text) > max_chars:
        text = "…" + text[-max(0, max_chars - 1) :]
    return text


def _clip_head(text: str, max_lines: int, max_chars: int) -> str:
    """The first ``max_lines`` lines of ``text``, at most ``max_chars`` characters (a patch starts with the
    file names a reader needs)."""
    lines = text.splitlines()
    kept = "\n".join(lines[:max_lines])
    if len(kept) > max_chars:
        kept = kept[: max(0, max_chars - 1)]
    return kept + "\n…" if kept != "\n".join(lines) else text


class Frames:
    """The template set of one run: the repository's overrides first, then the shipped templates."""

    def __init__(self, override_dir: Path | None = None, shipped: Path | None = None) -> None:
        shipped_loader = jinja2.FileSystemLoader(str(shipped or shipped_dir()))
        loaders: list[jinja2.BaseLoader] = []
        self.overridden: tuple[str, ...] = ()
        if override_dir is not None and override_dir.is_dir():
            loaders.append(jinja2.FileSystemLoader(str(override_dir)))
            self.overridden = tuple(t for t in TEMPLATES if (override_dir / t).is_file())
        loaders += [jinja2.PrefixLoader({"shipped": shipped_loader}), shipped_loader]
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(loaders),
            undefined=jinja2.StrictUndefined,
            autoescape=False,  # noqa: S701 - Markdown and plain text, never HTML; untrusted text is fenced
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters.update(fenced=fence, code=code, nomention=neutralize_mentions)

    def render(self, name: str, context: Mapping[str, Any]) -> str:
        """Render one template; a missing template or value raises :class:`FrameError`."""
        try:
            return self.env.get_template(name).render(**context)
        except jinja2.TemplateNotFound:
            raise FrameError(
                f"template {name} not found in {OVERRIDE_DIR}/ or the shipped prompts/"
            ) from None
        except jinja2.UndefinedError as exc:
            where = " (a repository override)" if name in self.overridden else ""
            raise FrameError(f"template {name}{where} uses an unknown value: {exc.message}") from None
        except jinja2.TemplateSyntaxError as exc:
            raise FrameError(f"template {exc.name or name} line {exc.lineno}: {exc.message}") from None


def fit_comment(render: Callable[[int], str], markers: str, limit: int = COMMENT_LIMIT) -> str:
    """Render a comment within GitHub's size limit, its marker block (``markers``) on top.

    ``render(max_excerpt_lines)`` is called with fewer excerpt lines until the body fits; as a last resort the
    text is cut and the markers are kept (the ledger must survive any body). The ledger reads markers only
    from the top of a comment, so quoted log lines further down can never pass for one."""
    budget = limit - len(markers) - 2
    for lines in (60, 30, 10, 0):
        body = render(lines).strip("\n")
        if len(body) <= budget:
            break
    else:
        note = "\n\n_(cut to fit GitHub's comment size limit)_"
        body = body[: budget - len(note)] + note
    return f"{markers}\n\n{body}" if markers else body


def clip_summary(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """The job summary cut to GitHub's 1 MiB limit (counted in UTF-8 bytes)."""
    data = text.encode()
    if len(data) <= limit:
        return text
    note = "\n\n_(summary cut to GitHub's 1 MiB limit)_\n"
    return data[: limit - len(note.encode()) - 4].decode(errors="ignore") + note


# -- what the templates receive ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckView:
    """One check as the templates see it: its plan and diagnosis flattened, its excerpt already clipped."""

    name: str
    category: str
    rule: str
    confidence: float
    excerpt: str
    step: str | None = None
    command: str | None = None
    exit_code: int | None = None
    attempt: int = 0
    max_attempts: int = 0
    verdict: str = ""
    mode: str = ""
    reason_text: str = ""
    history: tuple[PastAttempt, ...] = ()


def check_view(plan: CheckPlan, max_lines: int = 60, max_chars: int = 8 * 1024) -> CheckView:
    """Flatten a :class:`CheckPlan` for templates; the excerpt keeps its last ``max_lines`` lines."""
    diag = plan.diagnosis
    return CheckView(
        name=plan.check,
        category=diag.category.value if diag else "unknown",
        rule=diag.rule if diag else "",
        confidence=diag.confidence if diag else 0.0,
        excerpt=clip_lines(diag.excerpt, max_lines, max_chars) if diag else "(no log was available)",
        step=diag.step if diag else None,
        command=diag.command if diag else None,
        exit_code=diag.exit_code if diag else None,
        attempt=plan.attempt,
        max_attempts=plan.max_attempts,
        verdict=plan.verdict.value,
        mode=plan.mode.value if plan.mode else "",
        reason_text=plan.detail or (plan.reason.value if plan.reason else ""),
        history=plan.history,
    )


def render_heal_frame(
    frames: Frames,
    *,
    repository: str,
    pr: PullRequest,
    head_sha: str,
    run_url: str,
    checks: Sequence[CheckPlan],
    delivery: str = "pull-request",
    protected_paths: Sequence[str] = (),
    max_diff_lines: int = 400,
) -> str:
    """The heal frame for every check the agent is to fix in one go (attempt = the highest among them)."""
    views = [check_view(p) for p in checks]
    return frames.render(
        "heal.md.j2",
        {
            "repository": repository,
            "pr": pr,
            "head_sha": head_sha,
            "run_url": run_url,
            "checks": views,
            "attempt": max((v.attempt for v in views), default=1),
            "max_attempts": max((v.max_attempts for v in views), default=1),
            "delivery": delivery,
            "protected_paths": tuple(protected_paths),
            "max_diff_lines": max_diff_lines,
        },
    )


@dataclass(frozen=True)
class HealNote:
    """What a heal did, for the run's comment."""

    attempt: int
    max_attempts: int
    checks: tuple[CheckPlan, ...]
    delivered: bool
    how: str = ""  # "ran `ruff format .`", "the agent changed 2 files" (healer-written text)
    verification: str = ""  # Verification.describe()
    fix_pr_url: str = ""
    draft: bool = False
    pushed: bool = False
    frame_path: str = ""
    patch: str = ""  # delivery: comment
    why_not: str = ""  # when nothing was delivered (guard reasons, healer-written Markdown)
    notes: str = ""  # agent or fix output: untrusted
    agent_ran: bool = False


def render_comment(
    frames: Frames,
    *,
    state: str,
    head_sha: str,
    run_url: str,
    markers: str,
    checks: Sequence[CheckPlan] = (),
    reruns: Sequence[CheckPlan] = (),
    heal: HealNote | None = None,
    diagnoses: Sequence[CheckPlan] = (),
    escalations: Sequence[CheckPlan] = (),
    mention: str = "",
    resets: Sequence[str] = (),
    diagnosis_note: str = "",
    limit: int = COMMENT_LIMIT,
    workflow_path: str = "",
) -> str:
    """The run's PR comment (``claim``, ``done``, ``reset`` or ``startup``), within GitHub's size limit,
    markers kept."""

    def render(lines: int) -> str:
        def views(plans: Sequence[CheckPlan]) -> list[CheckView]:
            return [check_view(p, max_lines=lines) for p in plans]

        heal_view = None
        if heal is not None:
            patch = heal.patch if lines >= 30 else _clip_head(heal.patch, 200, 16 * 1024)
            heal_view = {
                **{f: getattr(heal, f) for f in heal.__dataclass_fields__},
                "checks": views(heal.checks),
                "notes": clip_lines(heal.notes.splitlines(), lines, 16 * 1024) if heal.notes else "",
                "patch": patch,
                # a cut patch no longer applies: the comment must not offer it to `git apply`
                "patch_cut": patch != heal.patch,
            }
        return frames.render(
            "comment.md.j2",
            {
                "state": state,
                "head_sha": head_sha,
                "run_url": run_url,
                "checks": views(checks),
                "reruns": views(reruns),
                "heal": heal_view,
                "diagnoses": views(diagnoses),
                "escalations": views(escalations),
                "mention": mention,
                "resets": tuple(resets),
                "diagnosis_note": diagnosis_note,
                "workflow_path": workflow_path,
            },
        )

    return fit_comment(render, markers, limit)


def render_escalation(frames: Frames, plan: CheckPlan, *, mention: str = "") -> str:
    """The escalation section of one check (also included by ``comment.md.j2``)."""
    return frames.render("escalate.md.j2", {"check": check_view(plan), "mention": mention})


def render_fix_pr_body(
    frames: Frames,
    *,
    pr: PullRequest,
    head_sha: str,
    run_url: str,
    checks: Sequence[CheckPlan],
    fix_commands: Sequence[str],
    agent_ran: bool,
    agent_exit: int | None,
    verification: Any,
    diffstat: str,
    superseded: Sequence[int] = (),
    notes: str = "",
) -> str:
    """The body of a fix pull request: what ran and what verification established, nothing more."""

    def render(lines: int) -> str:
        return frames.render(
            "fix-pr.md.j2",
            {
                "pr": pr,
                "head_sha": head_sha,
                "run_url": run_url,
                "checks": [check_view(p, max_lines=lines) for p in checks],
                "fix_commands": tuple(fix_commands),
                "agent_ran": agent_ran,
                "agent_exit": agent_exit,
                "verification": verification,
                "diffstat": diffstat,
                "superseded": tuple(superseded),
                "notes": clip_lines(notes.splitlines(), lines, 16 * 1024) if notes else "",
            },
        )

    return fit_comment(render, "")


def render_summary(frames: Frames, context: Mapping[str, Any]) -> str:
    """The job summary, cut to 1 MiB."""
    return clip_summary(frames.render("summary.md.j2", context))
