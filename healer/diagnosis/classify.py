"""Evidence → Diagnosis: which rule explains a failed job, with the lines that prove it.

The classifier looks where the failure is: the failing step's output, plus every ``##[error]`` line (the
runner's own and the tools' annotations) and the check run's annotations. Only when no rule matches there
does it search the rest of the log, with less confidence. The runner's generic ``Process completed with exit
code N`` line explains nothing and is never the decisive line when anything better matched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from healer.diagnosis.capture import failing_steps, split_capture
from healer.diagnosis.excerpt import (
    MAX_DECISIVE,
    MAX_EXCERPT_BYTES,
    MAX_EXCERPT_LINES,
    build_excerpt,
    clip,
    near_failure,
    priority,
    render,
)
from healer.diagnosis.finder import find_evidence
from healer.diagnosis.firstfailure import first_failure, scan_scope
from healer.diagnosis.logs import SETUP_STEP, JobLog, parse_log
from healer.diagnosis.matching import GENERIC_EXIT, Found, rank_rules
from healer.diagnosis.owner import assign_owner
from healer.diagnosis.purpose import step_purpose
from healer.diagnosis.rulefree import derived_for_unknown, rule_free_diagnosis
from healer.diagnosis.rules import RuleSet
from healer.diagnosis.steplines import on_the_steps_word
from healer.diagnosis.testids import failing_test_ids
from healer.diagnosis.triage import timed_out
from healer.model import DEFAULT_ACTIONS, Action, Annotation, Category, Diagnosis, Evidence, Job, Step

__all__ = [
    "MAX_EXCERPT_BYTES",
    "MAX_EXCERPT_LINES",
    "classify",
    "diagnose",
    "diagnose_jobs",
    "diagnose_parts",
    "diagnose_text",
    "failed_job",
]
# Found only outside the failing step: the reading is weaker.
OUTSIDE_STEP_FACTOR = 0.7
# The number of lines of the failing step's end shown when no rule matched.
UNKNOWN_TAIL_LINES = 40
# The section names the log model gives to the runner's closing lines.
_POST_SECTIONS = frozenset({"Post job cleanup", "Complete job"})
# Steps the runner adds around the user's own; a job that failed in none of the others never ran user code.
_RUNNER_STEPS = frozenset({"Set up job", "Complete job", "Initialize containers", "Stop containers"})


def classify(
    evidence: Evidence,
    rules: RuleSet,
    *,
    scripts: Mapping[str, str] | None = None,
    workflow: str | None = None,
) -> Diagnosis:
    """Diagnose one failed job from its log, its annotations and its step list.

    A ``gh run view --log-failed`` capture of several jobs is diagnosed job by job, and the first job that
    really failed decides (a sibling cancelled by fail-fast does not). ``scripts``: the pull request's script
    files (``package.json``, ``Makefile`` … name → text), when the caller has its tree: a failure no rule
    explains takes its category from the script the failing command ran (:mod:`healer.diagnosis.scripts`).
    ``workflow``: the workflow's name, the weakest hint of the failing step's purpose.
    """
    job = evidence.job
    text = evidence.log.text if evidence.log is not None else ""
    truncated = evidence.log.truncated if evidence.log is not None else False
    parts = split_capture(text)
    if len(parts) > 1:
        # a capture of several jobs: each is diagnosed once, the first real failure decides
        jobs = diagnose_parts(text, parts, rules, truncated=truncated, scripts=scripts, workflow=workflow)
        return jobs[0][1]
    log = parse_log(text, truncated=truncated)
    return diagnose(log, rules, job=job, annotations=evidence.annotations, scripts=scripts, workflow=workflow)


def diagnose_jobs(
    text: str,
    rules: RuleSet,
    *,
    truncated: bool = False,
    scripts: Mapping[str, str] | None = None,
    workflow: str | None = None,
) -> list[tuple[str, Diagnosis]]:
    """The jobs of a ``gh run view --log-failed`` (or ``--log``) capture, each diagnosed, the first real
    failure first: then the other failed jobs in the capture's order, then the jobs whose log shows no
    failure (a full-run capture holds the jobs that passed too), cancelled jobs last. Each job's failing step
    is the capture's step column. Empty when ``text`` is not a capture."""
    parts = split_capture(text)
    return diagnose_parts(text, parts, rules, truncated=truncated, scripts=scripts, workflow=workflow)


def diagnose_parts(
    text: str,
    parts: Sequence[tuple[str, str]],
    rules: RuleSet,
    *,
    truncated: bool = False,
    scripts: Mapping[str, str] | None = None,
    workflow: str | None = None,
) -> list[tuple[str, Diagnosis]]:
    """:func:`diagnose_jobs` of a capture already split into ``parts`` (``split_capture(text)``)."""
    if not parts:
        return []
    found: list[tuple[str, Diagnosis, bool]] = []
    failing = failing_steps(text)
    for n, (name, part) in enumerate(parts):
        record = failed_job(name, failing.get(name))
        log = parse_log(part, truncated=truncated and n == 0)
        failed = log.exit_code not in (None, 0) or bool(log.error_lines)
        found.append((name, diagnose(log, rules, job=record, scripts=scripts, workflow=workflow), failed))
    ranked = sorted(found, key=lambda item: (item[1].category is Category.CANCELLED, not item[2]))
    return [(name, diagnosis) for name, diagnosis, _ in ranked]


def failed_job(name: str, step: str | None) -> Job:
    """The record of a failed job known only by its name and failing step (a capture's columns, or the
    names given to ``healer diagnose``)."""
    steps = (Step(number=1, name=step, status="completed", conclusion="failure"),) if step else ()
    return Job(id=0, name=name, status="completed", conclusion="failure", steps=steps)


def diagnose_text(text: str, rules: RuleSet, *, job: str | None = None) -> Diagnosis:
    """Diagnose a job log given as text (``job``: the check name, for rules with a ``job`` condition)."""
    job_record = Job(id=0, name=job, status="completed", conclusion="failure") if job else None
    return diagnose(parse_log(text), rules, job=job_record)


def diagnose(
    log: JobLog,
    rules: RuleSet,
    *,
    job: Job | None = None,
    annotations: Sequence[Annotation] = (),
    scripts: Mapping[str, str] | None = None,
    workflow: str | None = None,
) -> Diagnosis:
    """Diagnose a parsed log. ``job`` (its conclusion and steps) and ``annotations`` sharpen the reading;
    ``scripts`` (see :func:`classify`) the category of a failure no rule explains. The failing step's purpose
    (from its action or command, then the step's, job's and ``workflow``'s names) and the reading decide
    whose failure it is, and so the action (:mod:`healer.diagnosis.owner`)."""
    read = _read(log, rules, job=job, annotations=annotations, scripts=scripts)
    purpose = step_purpose(
        header=log.step_name,
        command=log.command,
        step=_failed_step_name(job) or log.phase,
        job=(job.name or None) if job else None,
        workflow=workflow,
    )
    owned = assign_owner(read, purpose, rule=rules.get(read.rule))
    return on_the_steps_word(owned, [log.lines[i] for i in log.failing_lines()])


def _read(
    log: JobLog,
    rules: RuleSet,
    *,
    job: Job | None = None,
    annotations: Sequence[Annotation] = (),
    scripts: Mapping[str, str] | None = None,
) -> Diagnosis:
    """The reading of a parsed log: the kind, the rule, the decisive lines and the excerpt."""
    lines = list(log.lines)
    annotation_start = len(lines)
    lines.extend(_annotation_lines(annotations))
    job_name = (job.name or None) if job else None
    failed_job_step = _failed_step_name(job)
    step_name = failed_job_step or log.step_name or None
    base = {
        "step": step_name,
        "command": log.command,
        "exit_code": log.exit_code,
        "job": job_name,
        # only the failing step's output: a test another step printed as failed did not decide this job
        "test_ids": failing_test_ids(log.lines[i] for i in log.failing_lines()),
    }
    conclusion = job.conclusion if job else None
    end_of_step = _end_of_step(log, lines)
    hide = _post_job_lines(log)

    # A job stopped by its `timeout-minutes` ends `cancelled` too (GitHub's docs); its log tells it apart.
    if conclusion == "cancelled" and not timed_out(lines):
        return _runner_diagnosis(
            Category.CANCELLED, "runner.cancelled", lines, log, end_of_step, base, hide=hide
        )
    if conclusion == "startup_failure":
        return _runner_diagnosis(
            Category.INFRASTRUCTURE, "runner.startup-failure", lines, log, end_of_step, base, hide=hide
        )

    step_names = [name for name in (failed_job_step, log.step_name) if name]
    first = first_failure(lines, log.failing_lines())
    scope = _primary_scope(log, annotation_start, len(lines))
    # the finder reads the whole scope (one cheap pass); where it saw the first failure, the rules read too
    evidence = find_evidence(lines, scope)
    primary = scan_scope(lines, scope, first if first is not None else evidence.first)
    ranked = rank_rules(rules, lines, primary, step_names, log, job_name)
    if not ranked and log.failing_step is not None and not _step_is_known(log):
        # the failing step was only guessed: what the rest of the log says may still explain it
        in_scope = set(_primary_scope(log, annotation_start, len(lines)))
        outside = scan_scope(lines, [i for i in range(len(lines)) if i not in in_scope], None)
        ranked = [
            Found(f.rule, f.lines, round(f.confidence * OUTSIDE_STEP_FACTOR, 3))
            for f in rank_rules(rules, lines, outside, step_names, log, job_name)
        ]
    found = ranked[0] if ranked else None
    # the strongest competing reading (another category) also gets a place in the excerpt if there is room
    rival = next((f for f in ranked[1:] if found and f.rule.category is not found.rule.category), None)

    if conclusion in ("timed_out", "cancelled") and (
        found is None or found.rule.category is not Category.TIMEOUT
    ):
        return _runner_diagnosis(
            Category.TIMEOUT, "runner.timed-out", lines, log, end_of_step, base, hide=hide
        )
    if _never_reached_user_steps(job, log) and (
        found is None
        or found.rule.category
        not in (Category.TIMEOUT, Category.CANCELLED, Category.TRANSIENT, Category.CONFIG)
    ):
        # before any user step ran, only the runner's machine can be at fault; except a download that a
        # retry fixes, and the workflow naming an action or a version that does not exist
        decisive = [i for i in log.error_lines if not GENERIC_EXIT.search(lines[i])] or end_of_step[-3:]
        return _diagnosis(
            Category.INFRASTRUCTURE,
            0.85,
            "runner.setup-failed",
            DEFAULT_ACTIONS[Category.INFRASTRUCTURE],
            lines,
            decisive,
            (3, 3),
            end_of_step,
            base,
            hide=hide,
        )
    if found is None:
        # no rule: the failure finder reads the step by the shapes of failures, and the category comes from
        # the tool, the script or the evidence
        return rule_free_diagnosis(
            lines, evidence, scope, end_of_step, base, job=job_name, scripts=scripts, hide=hide
        )
    rule = found.rule
    diagnosis = _diagnosis(
        rule.category,
        found.confidence,
        rule.id,
        rule.action,
        lines,
        list(found.lines),
        rule.context,
        end_of_step,
        base,
        fix=rule.fix,
        rival=near_failure(rival.lines, first)[:1] if rival else (),
        hide=hide,
        first=first,
        evidence=_strong_first(evidence.first, evidence.evidence),
    )
    if rule.category is Category.UNKNOWN:
        return derived_for_unknown(diagnosis, evidence, job=job_name, scripts=scripts)
    return diagnosis


def _strong_first(first: int | None, found: Sequence[Any]) -> int | None:
    """The finder's first real failure when it is a failure's own report (strength 3), else None."""
    return next((e.index for e in found if e.index == first and e.strength >= 3), None)


def _step_is_known(log: JobLog) -> bool:
    """True when the runner said which step failed (its exit line or its own error), so only that step's
    output may decide: not a step that succeeded before it, nor one that ran after it."""
    return log.exit_code is not None or bool(log.runner_errors)


def _annotation_lines(annotations: Sequence[Annotation]) -> list[str]:
    out: list[str] = []
    for note in annotations:
        if note.level not in ("failure", "error"):
            continue
        where = f"{note.path}:{note.start_line}: " if note.path and note.path != ".github" else ""
        for part in note.message.splitlines() or [""]:
            if part.strip():
                out.append(f"##[error]{where}{part}"[:4096])
    return out


def _failed_step_name(job: Job | None) -> str | None:
    if job is None:
        return None
    for step in job.steps:
        if step.conclusion == "failure":
            return step.name
    return None


def _never_reached_user_steps(job: Job | None, log: JobLog) -> bool:
    if log.failing_step is not None and log.failing_step.name == SETUP_STEP:
        return True
    if job is None or not job.steps:
        return False
    failed = _failed_step_name(job)
    if failed == SETUP_STEP:
        return True
    user = [s for s in job.steps if s.name not in _RUNNER_STEPS and not s.name.startswith("Post ")]
    return not any(s.conclusion not in (None, "skipped") for s in user)


def _primary_scope(log: JobLog, annotation_start: int, total: int) -> list[int]:
    scope = set(log.failing_lines()) if log.failing_step is not None else set(range(annotation_start))
    scope.update(log.error_lines)
    scope.update(range(annotation_start, total))
    return sorted(scope)


def _post_job_lines(log: JobLog) -> frozenset[int]:
    """The lines of the runner's own closing sections, after the last user step."""
    return frozenset(
        i for step in log.steps if step.name in _POST_SECTIONS for i in range(step.start, step.end)
    )


def _end_of_step(log: JobLog, lines: list[str]) -> list[int]:
    """The indexes of the failing step's last lines (the whole log's when no step is known)."""
    body = list(log.failing_lines())
    while body and not lines[body[-1]].strip():
        body.pop()
    if log.failing_step is None and log.error_lines:
        # a window without step markers: end at the last error line, not at unrelated trailing output
        last_error = log.error_lines[-1]
        body = [i for i in body if i <= last_error]
    step = log.failing_step
    if step is not None and len(body) < UNKNOWN_TAIL_LINES and step.start < (body[0] if body else step.end):
        # a step that said little (``test -f dist/app.tar.gz``): its ``Run …`` header is what explains it
        body.insert(0, step.start)
    return body[-UNKNOWN_TAIL_LINES:]


def _runner_diagnosis(
    category: Category,
    rule_id: str,
    lines: list[str],
    log: JobLog,
    end_of_step: list[int],
    base: dict[str, Any],
    *,
    hide: frozenset[int] = frozenset(),
) -> Diagnosis:
    decisive = [i for i in log.runner_errors if not GENERIC_EXIT.search(lines[i])]
    return _diagnosis(
        category,
        0.95,
        rule_id,
        DEFAULT_ACTIONS[category],
        lines,
        decisive,
        (3, 3),
        end_of_step,
        base,
        hide=hide,
    )


def _diagnosis(
    category: Category,
    confidence: float,
    rule_id: str,
    action: Action,
    lines: list[str],
    decisive: list[int],
    context: tuple[int, int],
    end_of_step: list[int],
    base: dict[str, Any],
    *,
    fix: tuple[str, ...] = (),
    rival: Sequence[int] = (),
    hide: frozenset[int] = frozenset(),
    first: int | None = None,
    evidence: int | None = None,
) -> Diagnosis:
    order = priority(decisive, first)
    # the finder's first real failure follows the rule's lead when the rule's lines are elsewhere (a
    # summary at the end, while the compiler's error sits far above it)
    claims = order[:1] + [evidence] + order[1:] if evidence is not None and evidence not in order else order
    chosen = build_excerpt(lines, claims, context, end_of_step, rival=rival)
    if hide:
        # the runner's own post-job lines ("Post job cleanup.", the checkout's git calls) explain nothing;
        # a decisive line among them stays
        keep = set(decisive)
        chosen = [i for i in chosen if i not in hide or i in keep]
    excerpt = render(lines, chosen)
    kept = set(chosen)
    decisive_text = tuple(clip(lines[i]) for i in sorted(order)[:MAX_DECISIVE] if i in kept)
    return Diagnosis(
        category=category,
        confidence=confidence,
        rule=rule_id,
        action=action,
        excerpt=excerpt,
        decisive=decisive_text,
        fix_commands=fix if action is Action.FIX else (),
        **base,
    )
