"""Which lines of a job log may decide its diagnosis: the failing step's, the runner's own errors and the
annotations; not the runner's set-up and closing sections, nor a step that passed.

Pure: a parsed :class:`~healer.diagnosis.logs.JobLog` (and the job's record) in, line indexes out.
"""

from __future__ import annotations

from collections.abc import Sequence

from healer.diagnosis.logs import SETUP_STEP, JobLog
from healer.model import Annotation, Job

# The number of lines of the failing step's end shown when no rule matched.
UNKNOWN_TAIL_LINES = 40
# The section names the log model gives to the runner's closing lines.
_POST_SECTIONS = frozenset({"Post job cleanup", "Complete job"})
# Steps the runner adds around the user's own; a job that failed in none of the others never ran user code.
_RUNNER_STEPS = frozenset({"Set up job", "Complete job", "Initialize containers", "Stop containers"})


def step_is_known(log: JobLog) -> bool:
    """True when the runner said which step failed (its exit line or its own error), so only that step's
    output may decide: not a step that succeeded before it, nor one that ran after it."""
    return log.exit_code is not None or bool(log.runner_errors)


def annotation_lines(annotations: Sequence[Annotation]) -> list[str]:
    out: list[str] = []
    for note in annotations:
        if note.level not in ("failure", "error"):
            continue
        where = f"{note.path}:{note.start_line}: " if note.path and note.path != ".github" else ""
        for part in note.message.splitlines() or [""]:
            if part.strip():
                out.append(f"##[error]{where}{part}"[:4096])
    return out


def failed_step_name(job: Job | None) -> str | None:
    if job is None:
        return None
    for step in job.steps:
        if step.conclusion == "failure":
            return step.name
    return None


def never_reached_user_steps(job: Job | None, log: JobLog) -> bool:
    if log.failing_step is not None and log.failing_step.name == SETUP_STEP:
        return True
    if job is None or not job.steps:
        return False
    failed = failed_step_name(job)
    if failed == SETUP_STEP:
        return True
    user = [s for s in job.steps if s.name not in _RUNNER_STEPS and not s.name.startswith("Post ")]
    return not any(s.conclusion not in (None, "skipped") for s in user)


def primary_scope(log: JobLog, annotation_start: int, total: int) -> list[int]:
    scope = set(log.failing_lines()) if log.failing_step is not None else set(range(annotation_start))
    errors = set(log.error_lines)
    if log.failing_step is not None and log.failing_step.name not in _POST_SECTIONS:
        # a user step failed: an action's post step that failed after it (a cache it could not save) did not
        # fail the job first; the runner's own errors (a time limit, a shutdown) still count wherever they are
        errors -= post_job_lines(log) - set(log.runner_errors)
    scope.update(errors)
    scope.update(range(annotation_start, total))
    return sorted(scope)


def post_job_lines(log: JobLog) -> frozenset[int]:
    """The lines of the runner's own closing sections, after the last user step."""
    return frozenset(
        i for step in log.steps if step.name in _POST_SECTIONS for i in range(step.start, step.end)
    )


def last_step_lines(log: JobLog, lines: list[str]) -> list[int]:
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
