"""What the healer reads about a failed run before classifying it: failed jobs, their annotations and logs.

One listing of the run attempt's jobs answers two questions: which checks failed (the evidence to diagnose)
and which passed (the checks whose budget resets). Choosing among the jobs is pure (:func:`select_jobs`);
:func:`collect_run_jobs` adds the reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from healer.diagnosis.readback import read_back
from healer.diagnosis.triage import CANCELLED, cancellation, never_started
from healer.github import GitHub, GitHubError
from healer.logsource import DEFAULT_READ_LIMIT
from healer.model import Annotation, Evidence, Job, RunEvent

# Conclusions that are a verdict on the code. Cancelled and skipped jobs say nothing about it (a newer push
# cancels the run; a skipped job never ran), so they are neither failures nor passes.
FAILED_CONCLUSIONS = frozenset({"failure", "timed_out", "startup_failure"})
PASSED_CONCLUSIONS = frozenset({"success"})
MAX_JOBS = 5


@dataclass(frozen=True)
class JobSelection:
    """The jobs of one run attempt, sorted by what they say about each check (pure, no I/O)."""

    failed: tuple[Job, ...]  # to inspect, at most ``max_jobs``, in listing order
    uninspected: tuple[str, ...]  # names of further failed jobs beyond ``max_jobs``
    passed: tuple[str, ...]  # names of the jobs whose newest try succeeded
    # cancelled jobs that had started (a time limit or a person stopped them), within ``max_jobs`` after
    # the failed ones: their annotations tell a timeout from a cancellation
    cancelled: tuple[Job, ...] = ()


@dataclass(frozen=True)
class RunJobs:
    """The evidence of a run attempt's failed jobs, and the names of the jobs that passed.

    ``passed`` comes from the same job listing as ``failed`` (no extra request); the ledger resets those
    checks. ``uninspected`` names failed jobs left out by the ``max_jobs`` bound, and ``notes`` says what
    could not be read (each also in the affected :attr:`Evidence.note`).
    """

    failed: tuple[Evidence, ...] = ()
    passed: tuple[str, ...] = ()
    uninspected: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def select_jobs(jobs: Sequence[Job], *, max_jobs: int = MAX_JOBS) -> JobSelection:
    """Collapse same-name re-runs to the newest try, then split into failed (bounded) and passed names.

    A job re-run within the run shares its name with the earlier try; only the newest try (highest attempt,
    then latest start, then highest id) is a verdict.
    """
    newest: dict[str, Job] = {}
    for job in jobs:
        known = newest.get(job.name)
        if known is None or _order(job) > _order(known):
            newest[job.name] = job
    failed = [job for job in newest.values() if job.conclusion in FAILED_CONCLUSIONS]
    passed = tuple(job.name for job in newest.values() if job.conclusion in PASSED_CONCLUSIONS)
    limit = max(0, max_jobs)
    cancelled = [job for job in newest.values() if job.conclusion == "cancelled" and not never_started(job)]
    return JobSelection(
        failed=tuple(failed[:limit]),
        uninspected=tuple(job.name for job in failed[limit:]),
        passed=passed,
        cancelled=tuple(cancelled[: max(0, limit - len(failed))]),
    )


def _order(job: Job) -> tuple[int, str, int]:
    # ISO 8601 timestamps in UTC ("2024-05-01T10:00:00Z") sort as text
    return (job.run_attempt, job.started_at, job.id)


def cancelled_jobs(gh: GitHub, selection: JobSelection) -> CancelledJobs:
    """Read the annotations of the selection's cancelled jobs (one request each) and sort them: those a time
    limit stopped (or whose annotations do not say) are read further; the rest were cancelled by a person, a
    newer push or a concurrency group, and are not a verdict."""
    annotations: dict[int, tuple[Annotation, ...]] = {}
    verdicts: list[Job] = []
    for job in selection.cancelled:
        try:
            annotations[job.id] = tuple(gh.list_annotations(job.id))
        except GitHubError:
            verdicts.append(job)  # the log will say
            continue
        if cancellation(annotations[job.id]) != CANCELLED:
            verdicts.append(job)
    return CancelledJobs(tuple(verdicts), annotations)


@dataclass(frozen=True)
class CancelledJobs:
    """The cancelled jobs that may be a verdict (timed out, or not said), and the annotations read."""

    to_read: tuple[Job, ...]
    annotations: Mapping[int, tuple[Annotation, ...]]


def collect_run_jobs(
    gh: GitHub,
    event: RunEvent,
    *,
    max_jobs: int = MAX_JOBS,
    read_limit: int = DEFAULT_READ_LIMIT,
    jobs: Sequence[Job] | None = None,
    cancelled: CancelledJobs | None = None,
) -> RunJobs:
    """The jobs of the run's attempt: evidence for the failed ones, names of the passed ones.

    Requests: the job listing (one per 100 jobs; none when ``jobs`` gives it), then per inspected failed job
    its annotations and its log: the redirect, then byte ranges read back from the end until the failing
    step's start is in view, at most ``read_limit`` bytes (:func:`healer.diagnosis.readback.read_back`). A
    cancelled
    job that had started costs its annotations, and its log only when they do not say a person or a
    concurrency group cancelled it (``cancelled``: those annotations, already read).
    A failure to read one job's annotations or log is recorded in that job's ``note`` and in ``notes``; the
    other jobs are still read. A failure to list the jobs raises :class:`GitHubError` (there is nothing to
    diagnose without them).
    """
    listing = gh.list_jobs(event.run_id, event.run_attempt) if jobs is None else jobs
    selection = select_jobs(listing, max_jobs=max_jobs)
    cancelled = cancelled if cancelled is not None else cancelled_jobs(gh, selection)
    evidence: list[Evidence] = []
    notes: list[str] = []
    for job in (*selection.failed, *cancelled.to_read):
        problems: list[str] = []
        annotations: tuple[Annotation, ...] = ()
        try:
            known = cancelled.annotations.get(job.id)
            annotations = known if known is not None else tuple(gh.list_annotations(job.id))
        except GitHubError as exc:
            problems.append(f"annotations unavailable: {exc}")
        try:
            log = read_back(gh.open_log(job.id, limit=read_limit), limit=read_limit)
        except GitHubError as exc:
            log = None
            problems.append(f"log unavailable: {exc}")
        note = "; ".join(problems)
        if note:
            # job names are the pull request's to choose: quoted, on one line (see healer.spans)
            notes.append(f"{job.name!r}: {note}")
        evidence.append(Evidence(job=job, log=log, annotations=annotations, note=note))
    if selection.uninspected:
        notes.append(
            f"{len(selection.uninspected)} more failed job(s) not inspected (at most {max_jobs} per run): "
            + ", ".join(map(repr, selection.uninspected))
        )
    return RunJobs(
        failed=tuple(evidence),
        passed=selection.passed,
        uninspected=selection.uninspected,
        notes=tuple(notes),
    )


def collect_evidence(
    gh: GitHub, event: RunEvent, *, max_jobs: int = MAX_JOBS, read_limit: int = DEFAULT_READ_LIMIT
) -> list[Evidence]:
    """The evidence of the run's failed jobs (see :func:`collect_run_jobs` for the passed ones too)."""
    return list(collect_run_jobs(gh, event, max_jobs=max_jobs, read_limit=read_limit).failed)
