"""A self-hosted runner's own state: the repository's machine to repair, not GitHub's to re-run.

The runner writes where a job runs at the start of its log. A GitHub-hosted runner names its image
(``Runner Image Provisioner``, ``Hosted Compute Agent``, ``Runner Image``); a self-hosted one names itself
(``Runner name: '…'``, ``Runner group name``, ``Machine name``), and a job that asked for one lists the
``self-hosted`` label among its ``Requested labels``. GitHub maintains the hosted machines and
replaces each one after its job, so a full disk or a missing GPU there is gone on a re-run; a self-hosted
machine is the repository's to maintain ("About self-hosted runners", GitHub Docs: you are responsible for
updating its operating system and software), and the same disk, driver or missing tool meets the next run.

So a failure of the machine's state (a full disk, a GPU or driver it cannot serve, no Docker daemon, a command
or a system package it does not have) on a self-hosted runner is escalated to the people who keep it. A
runner that lost its connection or was shut down stays a re-run: that is an event, not a state.

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import setup_section
from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

# the rules that read the machine's state, not an event
MACHINE_STATE = frozenset(
    {
        "runner.disk-full",
        "runner.gpu-unavailable",
        "python.pytest-gpu-unavailable",
        "runner.docker-unavailable",
        "nix.daemon-unavailable",
        "config.command-not-found",
        "config.exit-127",
        # a system package the build looks for (CMake's "Could NOT find OpenSSL", pkg-config's "No package")
        "cpp.cmake-dependency",
    }
)
_SELF_HOSTED = re.compile(r"^Runner name: '(?P<name>[^']{1,200})'$")
_HOSTED = re.compile(r"^(?:##\[group\])?(?:Runner Image Provisioner|Hosted Compute Agent|Runner Image)$")
# the labels the job asked for, as the runner's set-up section lists them ("Requested labels: self-hosted,
# linux, x64"): `self-hosted` is the label every self-hosted runner carries and no GitHub-hosted one does
# (GitHub Docs, "Using self-hosted runners in a workflow")
_REQUESTED = re.compile(r"^Requested labels: (?P<labels>.{1,500})$")
# the folder a self-hosted runner is installed in and works in: GitHub's set-up instructions create
# `actions-runner` and the runner's work folder defaults to `_work` under it (its diagnostic logs in `_diag`);
# a hosted runner lives in /home/runner/runners/<version>/ and works in /home/runner/work
_FOLDER = re.compile(r"(?:/|\\)actions-runner(?:/|\\)_(?:work|diag)(?:/|\\)")
# the set-up section is the log's first lines; a step's output may print anything
_SETUP_LINES = 80


def self_hosted_runner(lines: Sequence[str]) -> str | None:
    """The self-hosted runner's name its set-up section gives, or the folder it runs in (a log without its
    set-up: a ``gh run view --log-failed`` capture); None on a GitHub-hosted runner or when nothing says."""
    name = None
    for line in setup_section(lines, limit=_SETUP_LINES):
        if (asked := _REQUESTED.match(line.strip())) and "self-hosted" in (
            label.strip().lower() for label in asked.group("labels").split(",")
        ):
            return f"requested labels: {asked.group('labels').strip()[:80]}"
        if _HOSTED.match(line):
            return None
        if found := _SELF_HOSTED.match(line):
            name = found.group("name")
    if name is None:
        folders = (m.group(0) for raw in lines if "actions-runner" in raw and (m := _FOLDER.search(raw)))
        return next(folders, None)
    return None if name.startswith("GitHub Actions") else name


def on_its_own_machine(diagnosis: Diagnosis, log_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to the repository when the machine's state failed the job on a self-hosted runner;
    otherwise unchanged."""
    if diagnosis.rule not in MACHINE_STATE or diagnosis.owner is Owner.REPOSITORY:
        return diagnosis
    runner = self_hosted_runner(log_lines)
    if runner is None:
        return diagnosis
    kind = Category.CONFIG if diagnosis.category is Category.CONFIG else Category.INFRASTRUCTURE
    said = f"on a self-hosted runner ({runner[:80]}): the machine is the repository's to repair"
    return reread(diagnosis, Owner.REPOSITORY, kind, Action.ESCALATE, said)
