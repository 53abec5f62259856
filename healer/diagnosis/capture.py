"""``gh run view --log-failed`` (and ``--log``) captures: several jobs' logs in one text.

gh prints each line as ``<job>\\t<step>\\t<timestamp> <line>``, the jobs one after another. A capture of
several jobs is split into one log per job (each keeps its lines as they were: the log model strips the
job and step columns with the timestamp), so that each job is read on its own and one job's error never
explains another's failure. The step column names the failing step (:func:`failing_steps`), as the Jobs API
does for the action.

The raw log of each step starts with a byte-order mark, and gh keeps it: the first line of a step reads
``job<TAB>step<TAB><BOM>timestamp``. A file saved from Windows tools may carry one before the job column too.
"""

from __future__ import annotations

import re

_LINE = re.compile(r"^\ufeff?([^\t\n]{1,300})\t([^\t\n]{0,300})\t\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
# the runner's line that closes a failed step, after the columns and the timestamp
_FAILED_STEP = re.compile(r"\t\ufeff?\S+ ##\[error\]")
# how many of the first lines are looked at to decide whether a text is a capture
_SAMPLE = 200


def split_capture(text: str) -> list[tuple[str, str]]:
    """The jobs of a capture as (job name, the job's lines), in the order they first appear.

    Empty when ``text`` is not a capture (fewer than half of its first non-empty lines have the columns).
    A line without the columns (a multi-line message continued) stays with the job before it.
    """
    lines = text.split("\n")
    sample = [line for line in lines[: _SAMPLE * 2] if line.strip()][:_SAMPLE]
    if not sample or sum(1 for line in sample if _LINE.match(line)) * 2 < len(sample):
        return []
    order: list[str] = []
    parts: dict[str, list[str]] = {}
    current: str | None = None
    for line in lines:
        found = _LINE.match(line)
        if found:
            current = found.group(1)
            if current not in parts:
                order.append(current)
                parts[current] = []
        if current is not None:
            parts[current].append(line)
    return [(name, "\n".join(parts[name]) + "\n") for name in order]


def failing_steps(text: str) -> dict[str, str]:
    """Each job's failing step, by the capture's step column: the step of the job's last ``##[error]`` line,
    else its last step (``--log-failed`` holds only the failed steps). Empty when ``text`` is no capture."""
    steps: dict[str, str] = {}
    failed: dict[str, str] = {}
    for line in text.split("\n"):
        found = _LINE.match(line)
        if not found:
            continue
        job, step = found.group(1), found.group(2).strip()
        if step:
            steps[job] = step
            if _FAILED_STEP.search(line):
                failed[job] = step
    return {job: failed.get(job, step) for job, step in steps.items()}
