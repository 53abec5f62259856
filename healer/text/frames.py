"""Renders the templates in ``prompts/``: the heal and escalate frames, comments and summary (the fix-PR body:
:mod:`healer.text.fixpr`; the rule PR's: :mod:`healer.text.rulepr`).

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

import healer
from healer.model import Account, CheckPlan, PastAttempt, PullRequest
from healer.text.clip import for_frame
from healer.text.fixstate import ASKED_LATER, FIX_DRAFT, FIX_WAITING
from healer.text.markdown import (  # noqa: F401 - re-exported: templates and callers know them from here
    COMMENT_LIMIT,
    SUMMARY_LIMIT,
    _clip_head,
    clip_lines,
    clip_summary,
    code,
    fence,
    fit_comment,
    neutralize_mentions,
)

OVERRIDE_DIR = ".github/ci-healer"
TEMPLATES = (
    "heal.md.j2",
    "rule-pr.md.j2",
    "escalate.md.j2",
    "fix-pr.md.j2",
    "comment.md.j2",
    "summary.md.j2",
    "commands.md.j2",
)


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


class Frames:
    """The template set of one run: the repository's overrides first, then the shipped templates."""

    def __init__(self, override_dir: Path | None = None, shipped: Path | None = None) -> None:
        # Read into memory now, before any code from the pull request runs: nothing written later (to the
        # action's directory or the workspace) changes what is rendered.
        shipped_loader = _in_memory(shipped or shipped_dir())
        loaders: list[jinja2.BaseLoader] = []
        self.overridden: tuple[str, ...] = ()
        if override_dir is not None and override_dir.is_dir():
            loaders.append(_in_memory(override_dir))
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
        # the attempt comment's fix line, which a fix's CI verdict rewrites (healer.text.proof.with_fix_state)
        self.env.globals.update(fix_waiting=FIX_WAITING, fix_draft=FIX_DRAFT, asked_later=ASKED_LATER)

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


def _in_memory(directory: Path) -> jinja2.DictLoader:
    """The templates (``*.j2``) of ``directory``, read now."""
    return jinja2.DictLoader(
        {p.name: p.read_text(encoding="utf-8") for p in sorted(directory.glob("*.j2")) if p.is_file()}
    )


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
    description: str = ""  # the rule's description: what this kind of failure is
    flaky: tuple[str, ...] = ()  # the known flaky tests a re-run is for
    test_ids: tuple[str, ...] = ()  # the failing tests the log names (untrusted: shown in code spans)
    hint: str = ""  # a learned rule's account of what fixed this failure before (untrusted: fenced)
    decisive: str = ""  # the first line that decided the diagnosis, cut short (untrusted: a code span)
    untried: bool = False  # nothing to try (no fix rule, no agent): a line of the short notice
    owner: str = "unknown"  # whose failure it is (healer.diagnosis.owner): code, repository, platform …
    purpose: str = ""  # what the failing step is for (release, pr-policy, test …), "" when unknown


_GROUP = re.compile(r"^##\[group\]")
_ENDGROUP = re.compile(r"^##\[endgroup\]")
_RUNNER_NOISE = re.compile(
    r"^(?:##\[error\]Process completed with exit code \d+\.|shell: \S.*|##\[endgroup\])$"
)


def without_runner_markup(lines: Sequence[str], keep: Sequence[str] = ()) -> list[str]:
    """An excerpt without the runner's own markup: ``##[group]…##[endgroup]`` blocks (the step header, the
    echoed script, ``shell:`` and ``env:``), and the generic ``##[error]Process completed`` line, unless one
    of them is evidence (in ``keep``, the decisive lines). An excerpt that would be left empty is kept
    whole."""
    evidence = set(keep)
    kept: list[str] = []
    group: list[str] | None = None
    for line in lines:
        if group is not None:
            if _ENDGROUP.match(line):
                if evidence.intersection(group):
                    kept.extend(group + [line])
                group = None
            else:
                group.append(line)
            continue
        if _GROUP.match(line) and line not in evidence:
            group = [line]
        elif line in evidence or not _RUNNER_NOISE.match(line):
            kept.append(line)
    if group is not None:  # a group the excerpt cut before its end
        kept.extend(line for line in group[1:] if not _RUNNER_NOISE.match(line))
    while kept and not kept[0].strip():
        kept.pop(0)
    return kept if any(line.strip() for line in kept) else list(lines)


def check_view(plan: CheckPlan, max_lines: int = 60, max_chars: int = 8 * 1024) -> CheckView:
    """Flatten a :class:`CheckPlan` for templates; the excerpt keeps its last ``max_lines`` lines."""
    diag = plan.diagnosis
    return CheckView(
        name=plan.check,
        category=diag.category.value if diag else "unknown",
        rule=diag.rule if diag else "",
        confidence=diag.confidence if diag else 0.0,
        excerpt=clip_lines(without_runner_markup(diag.excerpt, diag.decisive), max_lines, max_chars)
        if diag
        else "(no log was available)",
        step=diag.step if diag else None,
        command=diag.command if diag else None,
        exit_code=diag.exit_code if diag else None,
        attempt=plan.attempt,
        max_attempts=plan.max_attempts,
        verdict=plan.verdict.value,
        mode=plan.mode.value if plan.mode else "",
        reason_text=plan.detail or (plan.reason.value if plan.reason else ""),
        history=plan.history,
        description=getattr(diag, "description", "") if diag else "",
        flaky=plan.flaky,
        test_ids=diag.test_ids if diag else (),
        hint=getattr(diag, "hint", "") if diag else "",
        decisive=_first_line(diag.decisive) if diag else "",
        untried=plan.untried,
        owner=diag.owner.value if diag else "unknown",
        purpose=diag.purpose if diag else "",
    )


def _first_line(lines: Sequence[str], limit: int = 160) -> str:
    """The first non-blank line of ``lines`` without its indentation, cut to ``limit`` characters; a banner
    (pytest's ``____ test_add ____``) only when every line is one."""
    kept = [ln.strip() for ln in lines if ln.strip()]
    line = next((ln for ln in kept if not _BANNER.match(ln)), kept[0] if kept else "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


_BANNER = re.compile(r"^[_=\-~*#]{3,}(?:.*[_=\-~*#]{3,})?$")


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
    setup: Any = None,
    verification: Any = None,
    earlier: Sequence[Account] = (),
    learn: bool = False,
) -> str:
    """The heal frame for every check the agent is to fix in one go (attempt = the highest among them).

    ``setup`` (a :class:`healer.change.outcomes.SetupResult`) and ``verification`` (a
    :class:`healer.heal.verify.VerifyPlan`) are given when the healer runs the agent itself; ``earlier`` are
    the
    accounts of the earlier attempts of these checks."""
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
            "setup": setup,
            "verification": verification,
            "earlier": for_frame(earlier),
            "untold": _untold(checks, earlier),
            "learn": learn,  # the agent may name the one command that makes its change
        },
    )


def _untold(checks: Sequence[CheckPlan], earlier: Sequence[Account]) -> list[PastAttempt]:
    """Earlier attempts the ledger records but no account tells (e.g. made before accounts were kept)."""
    told = {(a.attempt, a.sha) for a in earlier}
    seen: dict[tuple[int, str], PastAttempt] = {}
    for plan in checks:
        for past in plan.history:
            if past.kind == "attempt" and (past.attempt, past.sha) not in told:
                seen.setdefault((past.attempt, past.sha), past)
    return list(seen.values())


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
    asked: str = ""  # how the author was told of the fix pull request: "review", "mention" or ""
    draft: bool = False
    ci_started: bool = False  # the healer started the fix branch's CI: the draft waits for its verdict
    pushed: bool = False
    frame_path: str = ""
    patch: str = ""  # delivery: comment, and a fork's change
    review_url: str = ""  # a fork's review of suggested changes
    suggested: int = 0  # the suggestions in that review
    why_not: str = ""  # when nothing was delivered (guard reasons, healer-written Markdown)
    notes: str = ""  # agent or fix output: untrusted
    agent_ran: bool = False
    setup_output: str = ""  # a failed set-up's output: untrusted


def render_comment(
    frames: Frames,
    *,
    state: str,
    head_sha: str,
    run_url: str,
    markers: str,
    reruns: Sequence[CheckPlan] = (),
    heal: HealNote | None = None,
    diagnoses: Sequence[CheckPlan] = (),
    escalations: Sequence[CheckPlan] = (),
    mention: str = "",
    resets: Sequence[str] = (),
    diagnosis_note: str = "",
    opt_out_label: str = "",
    limit: int = COMMENT_LIMIT,
    workflow_path: str = "",
    workflow: str = "",
    healing: Sequence[CheckPlan] = (),
    promise: str = "",
    listed: int = 0,
) -> str:
    """The run's PR comment (``claim``, ``done``, ``reset`` or ``startup``), within GitHub's size limit,
    markers kept. A claim is created, so it notifies: it says what the run is about to do, the checks it
    heals (``healing``, and ``promise``: what follows) and what it re-runs or escalates, as the outcome
    will; ``done`` is the edit that replaces it. ``listed``: the checks the notice of checks with nothing to
    try lists in all, when it is edited to add ``escalations`` to those it listed before."""

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
                "reruns": views(reruns),
                "heal": heal_view,
                "diagnoses": views(diagnoses),
                "escalations": views(escalations),
                "mention": mention,
                "resets": tuple(resets),
                "diagnosis_note": diagnosis_note,
                "workflow_path": workflow_path,
                "workflow": workflow,
                "opt_out_label": opt_out_label,
                "healing": views(healing),
                "promise": promise,
                "listed": listed,
            },
        )

    return fit_comment(render, markers, limit)


def render_escalation(frames: Frames, plan: CheckPlan, *, mention: str = "", opt_out_label: str = "") -> str:
    """The escalation section of one check (also included by ``comment.md.j2``)."""
    return frames.render(
        "escalate.md.j2", {"check": check_view(plan), "mention": mention, "opt_out_label": opt_out_label}
    )


def render_summary(frames: Frames, context: Mapping[str, Any]) -> str:
    """The job summary, cut to 1 MiB."""
    return clip_summary(frames.render("summary.md.j2", context))
