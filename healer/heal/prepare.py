"""Set-up: the maintainer's ``setup-command`` run in the PR-head checkout before anything else.

A bare runner has none of the project's dependencies: without them a fix rule's tool is missing, the agent
cannot reproduce the failure and verification cannot run. ``setup-command`` (an input, a config-file key, or a
per-check key under ``checks:``) installs them, through the same process runner as the agent (and so under the
same isolation). Two rules make it safe to use:

- whatever set-up creates or changes in the checkout (a ``.venv``, ``node_modules``, a rewritten lock file) is
  recorded right after it ran and is never part of the change (:attr:`SetupResult.leftovers`);
- set-up can add directories to ``PATH`` for every later command (fix rules, the agent, verification) by
  writing them, one per line, to the file named by ``$HEALER_PATH`` (as a step writes ``$GITHUB_PATH``): a
  virtual environment's ``bin`` directory, a tool installed under the checkout.

A failed set-up does not stop the heal (the failure may be the PR's own, e.g. a broken manifest the agent can
fix); the frame, the comment and the summary say that it failed and what it printed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from healer.change.outcomes import SetupResult
from healer.change.workspace import Checkout
from healer.config import Config, check_settings
from healer.heal.agent import ProcessError, run
from healer.heal.isolation import ThrowawayUser
from healer.model import CheckPlan

# Installing dependencies can take a while (a cold Maven or Cargo cache); the agent has its own limit.
SETUP_TIMEOUT = 30 * 60.0
# What the frame and the comment quote of a failed set-up's output (its tail: errors come last).
SETUP_OUTPUT_LIMIT = 2000
_MAX_PATH_ENTRIES = 20


def setup_commands(config: Config, checks: Sequence[CheckPlan]) -> tuple[str, ...]:
    """The set-up commands for ``checks``: each check's own (``checks:`` → ``setup-command``), else the
    input's, each distinct command once, in the order of the checks."""
    commands: list[str] = []
    for plan in checks:
        own = check_settings(config, plan.check).setup_command
        command = (own if own is not None else config.setup_command).strip()
        if command and command not in commands:
            commands.append(command)
    return tuple(commands)


def with_path(env: Mapping[str, str], directories: Sequence[str]) -> dict[str, str]:
    """``env`` with ``directories`` put in front of ``PATH``."""
    result = dict(env)
    if directories:
        result["PATH"] = os.pathsep.join([*directories, env.get("PATH", "")]).rstrip(os.pathsep)
    return result


def _path_entries(path_file: Path) -> tuple[str, ...]:
    """The absolute directories listed in the ``$HEALER_PATH`` file (anything else is ignored)."""
    try:
        text = path_file.read_text(encoding="utf-8", errors="replace")[: 64 * 1024]
    except OSError:
        return ()
    entries: list[str] = []
    for line in text.splitlines():
        entry = line.strip()
        if entry and os.path.isabs(entry) and os.pathsep not in entry and entry not in entries:
            entries.append(entry)
    return tuple(reversed(entries[-_MAX_PATH_ENTRIES:]))  # the last one written comes first, as on Actions


def run_setup(
    commands: Sequence[str],
    checkout: Checkout,
    env: Mapping[str, str],
    work_dir: Path,
    *,
    user: ThrowawayUser | None,
) -> SetupResult:
    """Run ``commands`` in ``checkout`` (through the shell: they are the maintainer's own) until one fails.

    ``env`` is the scrubbed environment of tools (no token); ``work_dir`` holds the ``$HEALER_PATH`` file.
    With ``user`` (``isolation: user``) they run as that user in its copy, the ``$HEALER_PATH`` file is one it
    can write, and its tree is read back before the leftovers are listed.

    The leftovers are not read here: set-up runs the PR's code, which may have rewritten git's configuration,
    so the caller checks that before git runs in the checkout again (then :meth:`Checkout.leftovers`)."""
    if not commands:
        return SetupResult()
    if user is not None:
        path_file = user.writable_file("setup-path")
    else:
        work_dir.mkdir(parents=True, exist_ok=True)
        path_file = work_dir / "setup-path"
        path_file.write_text("", encoding="utf-8")
    ran: list[str] = []
    failed, exit_code, timed_out, output = "", None, False, ""
    for command in commands:
        ran.append(command)
        current = with_path({**env, "HEALER_PATH": str(path_file)}, _path_entries(path_file))
        try:
            result = run(
                command,
                cwd=user.workdir if user is not None else checkout.path,
                env=current,
                timeout=SETUP_TIMEOUT,
                isolation=user,
            )
        except ProcessError as exc:
            failed, output = command, str(exc)
            break
        if not result.ok:
            failed, exit_code, timed_out = command, result.returncode, result.timed_out
            output = result.output[-SETUP_OUTPUT_LIMIT:]
            break
    if user is not None:
        user.copy_out(checkout.path)  # so that the leftovers below are what set-up left in the user's copy
    return SetupResult(
        commands=tuple(ran),
        failed=failed,
        exit_code=exit_code,
        timed_out=timed_out,
        output=output,
        path=_path_entries(path_file),
    )
