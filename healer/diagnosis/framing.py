"""Where the failing command's output is in a log that is not a GitHub Actions job log.

The Actions runner's markers are read by :mod:`healer.diagnosis.logs`. Other CIs frame a command their own
way, and a log copied from them keeps it:

* Travis CI echoes each command (``$ make test``) and closes it with ``The command "make test" exited
  with 1.`` (``failed and exited with N during .`` in the install phase); a multi-line command is closed by a
  line that ends ``" exited with N.``. The first command that exited with anything but 0 failed the build:
  the ones after it ran anyway or clean up. A command of the ``before_install``, ``install`` and
  ``before_script`` phases runs inside a fold named for its phase (``travis_fold:start:install.1``); Travis
  marks a job whose command failed there *errored*, not *failed* ("The Build Lifecycle": the environment
  could not be prepared), and the span's ``phase`` names it.
* GitLab CI opens sections with ``section_start:<time>:<name>`` and ends a failed job with ``ERROR: Job
  failed: exit code N`` (``exit status N`` from the Shell executor, ``command terminated with exit code N``
  from the Kubernetes executor); a job's script stops at its first failing command, the last ``$ …`` echo
  of the script. The ``after_script`` section runs after it even when it failed, in a shell of its own,
  and its result does not change the job's: its commands are not the failing one.
* CircleCI shows a ``run`` step as its shell (``#!/bin/bash -eo pipefail``, the default), the step's command,
  its output, and ``Exited with code exit status N`` (``Exited with code N`` before 2020); the step failed
  is the one that ends so, its command the first line after the shell.
* Buildkite echoes each command of a step (``$ make test``) and ends a failed one with ``🚨 Error: The command
  exited with status N``; the last echo before that line is the failing command.
* Jenkins Pipeline opens each shell step with ``[Pipeline] sh`` (``bat``, ``powershell``), traces its commands
  (``+ make test``) and, for a failed one, ends the build with ``ERROR: script returned exit code N``. Stages
  after the failure are skipped (``Stage "…" skipped due to earlier failure(s)``) while the ``post`` actions
  still run: the failing step is the last shell step before either, its command the last traced line.
* Azure Pipelines writes ``##[section]Starting: <task>`` and ``##[section]Finishing: <task>`` around each
  task; a failed one holds an ``##[error]`` line (``Bash exited with code '1'.``). Its markers are the Actions
  runner's ancestors, so :func:`azure_span` is asked only of a log with those markers but no ``Run`` step.

:func:`failing_span` finds that command's output in the cleaned lines; None when the log shows no such frame
(a plain log is read whole).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_TRAVIS_END = re.compile(r'^The command "(.*)" (?:failed and )?exited with (-?\d+)')
_TRAVIS_TAIL = re.compile(r'^(.*)" (?:failed and )?exited with (-?\d+)(?: during \.?)?\.?$')
_TRAVIS_OPEN = re.compile(r'^The command "(.*)$')
# the folds travis-build opens around each command of the phases that prepare the job (`install.2` for the
# second command); `script` has no fold
_TRAVIS_PHASE = re.compile(r"^travis_fold:(start|end):(before_install|install|before_script)(?:\.\d+)?$")
# the Docker executor says "exit code N", the Shell executor "exit status N", the Kubernetes executor
# "command terminated with exit code N"
_GITLAB_FAILED = re.compile(
    r"^ERROR: Job failed: (?:exit code|exit status|command terminated with exit code) (-?\d+)"
)
_GITLAB_SECTION = re.compile(r"^section_(?:start|end):\d+:([\w.-]+)")
# with job log timestamps no carriage return ends the marker: the section's title follows on the same line
_GITLAB_AFTER = re.compile(r"^section_start:\d+:after_script")
_ECHO = re.compile(r"^\$ (.+)$")
_CIRCLE_END = re.compile(r"^Exited with code (?:exit status )?(-?\d+)$")
_CIRCLE_SHELL = re.compile(r"^#!/\S+(?: -\w+)*(?: pipefail)?$")
_BUILDKITE_END = re.compile(r"^(?:🚨 )?Error: The command exited with status (-?\d+)$")
_JENKINS_FAILED = re.compile(r"^ERROR: script returned exit code (-?\d+)$")
_JENKINS_SHELL = re.compile(r"^\[Pipeline\] (?:sh|bat|powershell|pwsh)$")
_JENKINS_AFTER = re.compile(
    r'^(?:Stage "[^"]{1,300}" skipped due to earlier failure\(s\)'
    r"|\[Pipeline\] \{ \(Declarative: Post Actions\))$"
)
_AZURE_START = re.compile(r"^##\[section\]Starting: (.{1,300})$")
_AZURE_END = re.compile(r"^##\[section\]Finishing: ")
_AZURE_OUTPUT = "========================== Starting Command Output ==========================="
_AZURE_EXIT = re.compile(r"^##\[error\]\w{1,40} exited with code '(-?\d+)'")
# how far back a CircleCI step's shell line is looked for
_STEP_BACK = 20000
# how far back the opening of a multi-line Travis command is looked for
_MULTILINE_BACK = 60


@dataclass(frozen=True)
class Span:
    """The failing command's output: lines ``[start, end)``, the command as the CI echoed it, and its exit
    code; ``kind`` names the framing (``travis``, ``gitlab``)."""

    start: int
    end: int
    command: str | None
    exit_code: int | None
    kind: str
    phase: str | None = None  # Travis's lifecycle phase that prepares the job, when the command ran in one

    def indexes(self) -> range:
        return range(self.start, self.end)


def failing_span(lines: Sequence[str]) -> Span | None:
    """The first failed command's output in a Travis or GitLab log, or None when the log has no such frame."""
    return _travis(lines) or _gitlab(lines) or _circleci(lines) or _buildkite(lines) or _jenkins(lines)


def _travis(lines: Sequence[str]) -> Span | None:
    ends: list[tuple[int, int, str]] = []  # (line, exit code, command) of each closing line
    for index, line in enumerate(lines):
        if "exited with" not in line:
            continue
        found = _TRAVIS_END.match(line)
        if found:
            ends.append((index, int(found.group(2)), found.group(1)))
            continue
        tail = _TRAVIS_TAIL.match(line)
        if tail:
            for back in range(index - 1, max(-1, index - _MULTILINE_BACK), -1):
                opening = _TRAVIS_OPEN.match(lines[back])
                if opening:
                    text = "\n".join([opening.group(1), *lines[back + 1 : index], tail.group(1)])
                    ends.append((index, int(tail.group(2)), text.strip()))
                    break
    failed = [(n, end) for n, end in enumerate(ends) if end[1] != 0]
    if not failed:
        return None
    n, (end, code, command) = failed[0]
    floor = ends[n - 1][0] + 1 if n > 0 else 0
    first = command.split("\n", 1)[0].strip()
    start = floor
    for back in range(end - 1, floor - 1, -1):
        echo = _ECHO.match(lines[back])
        if echo and echo.group(1).strip() == first:
            start = back + 1
            break
    return Span(start, end + 1, command, code, "travis", _travis_phase(lines, start, floor))


def _travis_phase(lines: Sequence[str], start: int, floor: int) -> str | None:
    """The preparing phase whose fold holds the command echoed just before line ``start``: the nearest fold
    marker above it, when that marker opens a ``before_install``, ``install`` or ``before_script`` fold."""
    for back in range(start - 1, max(floor, start - _MULTILINE_BACK) - 1, -1):
        if lines[back].startswith("travis_fold:"):
            found = _TRAVIS_PHASE.match(lines[back])
            return found.group(2) if found and found.group(1) == "start" else None
    return None


def _gitlab(lines: Sequence[str]) -> Span | None:
    failed_at = None
    code = None
    sections = False
    for index, line in enumerate(lines):
        if line.startswith("section_"):
            sections = sections or bool(_GITLAB_SECTION.match(line))
        found = _GITLAB_FAILED.match(line)
        if found:
            failed_at, code = index, int(found.group(1))
            break
    if failed_at is None or not sections:
        return None
    # the script ends where after_script begins; without one, at the job's failure line
    end = failed_at + 1
    for back in range(failed_at - 1, -1, -1):
        if _GITLAB_AFTER.match(lines[back]):
            end = back
            break
    echoed = _last_echo(lines, end)
    start, command = echoed if echoed else (0, None)
    return Span(start, end, command, code, "gitlab")


def _last_echo(lines: Sequence[str], end: int) -> tuple[int, str] | None:
    """The last ``$ command`` echo before line ``end``: the line after it, and the command; None if none."""
    for back in range(end - 1, -1, -1):
        echo = _ECHO.match(lines[back])
        if echo:
            return back + 1, echo.group(1)
    return None


def _circleci(lines: Sequence[str]) -> Span | None:
    for index, line in enumerate(lines):
        if not line.startswith("Exited with code "):
            continue
        found = _CIRCLE_END.match(line)
        if not found:
            continue
        for back in range(index - 1, max(-1, index - _STEP_BACK), -1):
            if _CIRCLE_SHELL.match(lines[back]):
                command = lines[back + 1].strip() if back + 1 < index else ""
                start = back + 2 if command else back + 1
                return Span(start, index + 1, command or None, int(found.group(1)), "circleci")
        return None
    return None


def _buildkite(lines: Sequence[str]) -> Span | None:
    for index, line in enumerate(lines):
        if "The command exited with status" not in line:
            continue
        found = _BUILDKITE_END.match(line.strip())
        if not found:
            continue
        echoed = _last_echo(lines, index)
        return Span(echoed[0], index + 1, echoed[1], int(found.group(1)), "buildkite") if echoed else None
    return None


def _jenkins(lines: Sequence[str]) -> Span | None:
    failed_at = code = None
    for index, line in enumerate(lines):
        found = _JENKINS_FAILED.match(line)
        if found:
            failed_at, code = index, int(found.group(1))
            break
    if failed_at is None or any(line == "[Pipeline] parallel" for line in lines[:failed_at]):
        return None  # no failed shell step, or branches whose output interleaves
    bound = next((n for n in range(failed_at) if _JENKINS_AFTER.match(lines[n])), failed_at)
    opened = next((n for n in range(bound - 1, -1, -1) if _JENKINS_SHELL.match(lines[n])), None)
    if opened is None:
        return None
    end = next((n for n in range(opened + 1, bound) if lines[n].startswith("[Pipeline] ")), bound)
    traced = [line[2:].strip() for line in lines[opened + 1 : end] if line.startswith("+ ")]
    return Span(opened + 1, end, traced[-1] if traced else None, code, "jenkins")


def azure_span(lines: Sequence[str]) -> Span | None:
    """The failing Azure Pipelines task: the last one whose script exited with a code (``Bash exited with code
    'N'.``), else the first that holds an ``##[error]`` line. An error line alone does not fail a task (a
    script may log errors and succeed), and a task with ``continueOnError`` fails without failing the job:
    the job stopped at the last task that exited so. The span is its output (after ``Starting Command
    Output`` when the task prints it), the command its script's first line; None when no task holds an
    error."""
    tasks: list[tuple[int, int, str, int | None]] = []  # (start, end, name, exit code) of tasks with errors
    task: tuple[int, str] | None = None
    errors = False
    code: int | None = None
    for index, line in enumerate(lines):
        start = _AZURE_START.match(line)
        if start:
            task, errors, code = (index, start.group(1).strip()), False, None
        elif task is not None and line.startswith("##[error]"):
            errors = True
            exited = _AZURE_EXIT.match(line)
            code = int(exited.group(1)) if exited else code
        elif task is not None and _AZURE_END.match(line):
            if errors:
                tasks.append((task[0], index, task[1], code))
            task = None
    if task is not None and errors:
        tasks.append((task[0], len(lines), task[1], code))
    exited = [entry for entry in tasks if entry[3] is not None]
    if not tasks:
        return None
    begin, end, name, code = exited[-1] if exited else tasks[0]
    body = list(lines[begin + 1 : end])
    output = body.index(_AZURE_OUTPUT) + 1 if _AZURE_OUTPUT in body else 0
    script = body.index("Script contents:") + 1 if "Script contents:" in body else None
    command = body[script] if script is not None and script < output else None
    return Span(begin + 1 + output, end, command or name, code, "azure")
