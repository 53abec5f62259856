"""Job logs in the shape GitHub's Jobs API returns them, for the diagnosis tests, and the diagnosis of one.

Every line carries the runner's timestamp; the failing step opens with ``##[group]Run …``, then the script (or
``with:`` for a ``uses:`` action, whose first word holds ``@``), its shell and ``env:``, ``##[endgroup]``, its
output and the runner's exit line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from healer.diagnosis.classify import classify
from healer.diagnosis.rules import RuleSet, load_rules
from healer.model import Action, Diagnosis, Evidence, Job, LogTail, Owner

RULES = load_rules()
STAMP = "2026-11-03T10:02:11.0000000Z "
# (owner, action) pairs the cases expect
CODE = (Owner.CODE, Action.AGENT)
REPO = (Owner.REPOSITORY, Action.ESCALATE)
PLATFORM = (Owner.PLATFORM, Action.RERUN)
UPSTREAM = (Owner.UPSTREAM, Action.ESCALATE)
# the tests' history, re-run once before the agent (`rerun_first`)
HISTORY_FIRST = (Owner.HISTORY, Action.RERUN, True)


def stamped(lines: Sequence[str]) -> str:
    """``lines`` as a job log's text, each with the runner's timestamp."""
    return "".join(f"{STAMP}{line}\n" for line in lines)


def job_log(
    command: str,
    output: str | Sequence[str],
    *,
    exit_code: int | None = 1,
    image: str | None = None,
    env: Mapping[str, str] | None = None,
    cleanup: bool = False,
) -> str:
    """A job log whose failing step runs ``command``: ``output`` (a text or its lines), the runner's exit line
    with ``exit_code`` (none when None); ``image`` adds the hosted runner's image to the set-up, ``env`` the
    step's variables to its header, ``cleanup`` the runner's "Post job cleanup." after the step."""
    lines = ["##[group]Runner Image", f"Image: {image}", "##[endgroup]"] if image else []
    lines.append(f"##[group]Run {command.splitlines()[0]}")
    if "@" in command.split()[0]:
        lines.append("with:")
    else:
        lines += [*command.splitlines(), "shell: /usr/bin/bash -e {0}"]
    if env:
        lines += ["env:", *(f"  {name}: {value}".rstrip() for name, value in env.items())]
    lines += ["##[endgroup]", *(output.splitlines() if isinstance(output, str) else output)]
    if exit_code is not None:
        lines.append(f"##[error]Process completed with exit code {exit_code}.")
    if cleanup:
        lines.append("Post job cleanup.")
    return stamped(lines)


def diagnose_log(text: str, *, job: str = "ci", rules: RuleSet = RULES) -> Diagnosis:
    """The diagnosis of a failed job named ``job`` whose log is ``text``, as the action classifies it."""
    record = Job(id=1, name=job, status="completed", conclusion="failure", steps=())
    return classify(
        Evidence(job=record, log=LogTail(text=text, bytes_read=len(text), truncated=False)), rules
    )
