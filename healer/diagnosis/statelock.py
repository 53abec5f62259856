"""A Terraform state lock older than any run that could still hold it: left behind, a person's to release.

Terraform refuses to work on a state another operation has locked ("Error acquiring the state lock"), and
prints the lock's ``Lock Info``: its ``ID``, ``Who`` took it and when (``Created:   2026-11-27 16:02:51.88
+0000 UTC``; Terraform's documentation, "State: Locking"). A lock a running plan or apply holds is released
when that run ends, and a later run passes: the platform's, re-run. A job on a GitHub-hosted runner runs at
most 6 hours (GitHub's "Usage limits": job execution time); a lock taken longer before the refusal than that
is held by no run that is still going, or by a person's own Terraform: a run that died holding it left it,
and only a person may decide to ``terraform force-unlock`` it. The repository's, escalated.

The refusal's time is taken as the job's end, the runner's timestamp on the log's last line: a log without
timestamps (a Travis log) or a lock without its creation time is left as it was.

Pure: a diagnosis and the failing step's lines in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

RULE = "terraform.state-locked"
# the longest a job on a GitHub-hosted runner runs
HOSTED_JOB_LIMIT = timedelta(hours=6)
_CREATED = re.compile(r"^[│|]?\s*Created:\s+(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.\d+)? \+0000 UTC\s*$")


def stale_lock(diagnosis: Diagnosis, lines: Sequence[str], ended_at: str | None) -> Diagnosis:
    """``diagnosis`` given to the repository and escalated when it is Terraform's refused state lock and the
    lock was taken more than :data:`HOSTED_JOB_LIMIT` before the job ended (``ended_at``, the runner's last
    timestamp: ``2026-12-02T08:45:38``); else unchanged."""
    if diagnosis.rule != RULE or not ended_at:
        return diagnosis
    created = next((m.group("at") for line in lines if (m := _CREATED.match(line.strip()))), None)
    if created is None:
        return diagnosis
    held = _utc(ended_at, "%Y-%m-%dT%H:%M:%S") - _utc(created, "%Y-%m-%d %H:%M:%S")
    if held <= HOSTED_JOB_LIMIT:
        return diagnosis
    hours = int(held.total_seconds() // 3600)
    said = (
        f"the state lock was taken {hours} hours before the job ended, longer than a hosted job runs: left by"
        " a run that ended holding it, for a person to force-unlock"
    )
    return reread(diagnosis, Owner.REPOSITORY, Category.CONFIG, Action.ESCALATE, said)


def _utc(text: str, form: str) -> datetime:
    return datetime.strptime(text, form).replace(tzinfo=timezone.utc)
