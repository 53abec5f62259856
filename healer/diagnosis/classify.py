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
from healer.diagnosis.derive import script_command
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
from healer.diagnosis.logs import JobLog, parse_log
from healer.diagnosis.matching import GENERIC_EXIT, Found, rank_rules
from healer.diagnosis.owner import assign_owner
from healer.diagnosis.purpose import step_purpose
from healer.diagnosis.rulefree import derived_for_unknown, rule_free_diagnosis
from healer.diagnosis.rules import RuleSet
from healer.diagnosis.scope import (
    annotation_lines,
    failed_step_name,
    last_step_lines,
    never_reached_user_steps,
    post_job_lines,
    primary_scope,
    step_is_known,
)
from healer.diagnosis.scripts import with_echoed_scripts
from healer.diagnosis.secondlook import second_looks
from healer.diagnosis.testcauses import judged_by_the_tests
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
# the readings that name no cause line of the step (its summary, the step's or a tool's name only)
_NO_CAUSE = ("fallback.", "derived.")


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
    scripts = with_echoed_scripts(scripts, (log.lines[i] for i in log.failing_lines()))
    read = _read(log, rules, job=job, annotations=annotations, scripts=scripts)
    job_name, step_name = (job.name or None) if job else None, failed_step_name(job)
    purpose = step_purpose(
        header=log.step_name,
        command=log.command,
        step=step_name,
        job=job_name,
        workflow=workflow,
        phase=log.phase,
    )
    if not purpose.purpose and (ran := script_command(log.command, scripts)):
        # `npm run size` says nothing of its purpose; the script it ran (`size-limit`) does
        purpose = step_purpose(header=None, command=ran, step=step_name, job=job_name, workflow=workflow)
    owned = assign_owner(read, purpose, rule=rules.get(read.rule))
    lines = [log.lines[i] for i in log.failing_lines()]
    step = log.failing_step
    header = log.lines[step.start : step.body_start] if step is not None else ()
    return second_looks(
        owned,
        every=log.lines,
        header=header,
        lines=lines,
        earlier=log.lines[: step.start] if step is not None else (),
        step_end=log.failing_lines().stop,
        names=(job_name, workflow, step_name),
        ended_at=log.ended_at,
    )


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
    lines.extend(annotation_lines(annotations))
    job_name = (job.name or None) if job else None
    failed_job_step = failed_step_name(job)
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
    end_of_step = last_step_lines(log, lines)
    hide = post_job_lines(log)

    # A job stopped by its `timeout-minutes` ends `cancelled` too (GitHub's docs); its log tells it apart.
    if conclusion == "cancelled" and not timed_out(lines):
        return _runner_diagnosis(
            Category.CANCELLED, "runner.cancelled", lines, log, end_of_step, base, hide=hide
        )
    if conclusion == "startup_failure":
        return _runner_diagnosis(
            Category.INFRASTRUCTURE, "runner.startup-failure", lines, log, end_of_step, base, hide=hide
        )

    cut_off = conclusion in (None, "failure") and log.stops_mid_step()
    if cut_off and not log.columns:
        # the log stops mid-step: the runner was lost, whatever the step printed before it
        return _cut_off(lines, end_of_step, base, hide)
    step_names = [name for name in (failed_job_step, log.step_name) if name]
    first = first_failure(lines, log.failing_lines())
    scope = primary_scope(log, annotation_start, len(lines))
    # the finder reads the whole scope (one cheap pass); where it saw the first failure, the rules read too
    evidence = find_evidence(lines, scope)
    primary = scan_scope(lines, scope, first if first is not None else evidence.first)
    ranked = rank_rules(rules, lines, primary, step_names, log, job_name)
    if not ranked and log.failing_step is not None and not step_is_known(log):
        # the failing step was only guessed: what the rest of the log says may still explain it
        in_scope = set(primary_scope(log, annotation_start, len(lines)))
        outside = scan_scope(lines, [i for i in range(len(lines)) if i not in in_scope], None)
        ranked = [
            Found(f.rule, f.lines, round(f.confidence * OUTSIDE_STEP_FACTOR, 3))
            for f in rank_rules(rules, lines, outside, step_names, log, job_name)
        ]
    found = _asserted_over_the_world(ranked, [lines[i] for i in scope])
    if cut_off and (found is None or found.rule.id.startswith(_NO_CAUSE)):
        # a capture keeps what the API kept of the failed steps, not always their end: a cause line the
        # step printed (a linter's finding, a compiler's error) reads it; without one, the runner was lost
        return _cut_off(lines, end_of_step, base, hide)
    # the strongest competing reading (another category) also gets a place in the excerpt if there is room
    rival = next((f for f in ranked[1:] if found and f.rule.category is not found.rule.category), None)

    if conclusion in ("timed_out", "cancelled") and (
        found is None or found.rule.category is not Category.TIMEOUT
    ):
        return _runner_diagnosis(
            Category.TIMEOUT, "runner.timed-out", lines, log, end_of_step, base, hide=hide
        )
    if never_reached_user_steps(job, log) and (
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


# the kinds of a rule that reads the world around the code, not the code
_THE_WORLD = frozenset({Category.INFRASTRUCTURE, Category.TRANSIENT, Category.CONFIG})


def _asserted_over_the_world(ranked: Sequence[Found], step: Sequence[str]) -> Found | None:
    """The best rule, or a test framework's rule below it when the best reads the world around the code (a
    full disk, the network, a secret said to be missing) and every failing test of the framework's report
    failed on its own finding, an assertion or an error it staged
    (:func:`healer.diagnosis.testcauses.judged_by_the_tests`): those words were then a test's captured
    output, its double's or a passing test's title, and the tests judged the code."""
    found = ranked[0] if ranked else None
    if found is None or found.rule.category not in _THE_WORLD:
        return found
    tests = (f for f in ranked[1:] if f.rule.category is Category.TEST)
    return next((f for f in tests if judged_by_the_tests(f.rule.id, step)), found)


def _strong_first(first: int | None, found: Sequence[Any]) -> int | None:
    """The finder's first real failure when it is a failure's own report (strength 3), else None."""
    return next((e.index for e in found if e.index == first and e.strength >= 3), None)


def _cut_off(
    lines: list[str], end_of_step: list[int], base: dict[str, Any], hide: frozenset[int]
) -> Diagnosis:
    """The log stops inside a step with nothing of its end: the runner was lost."""
    return _diagnosis(
        Category.INFRASTRUCTURE,
        0.9,
        "runner.log-cut-off",
        DEFAULT_ACTIONS[Category.INFRASTRUCTURE],
        lines,
        end_of_step[-1:],
        (3, 0),
        end_of_step,
        base,
        hide=hide,
    )


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
