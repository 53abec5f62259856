"""Learning at heal time, while the environment is set up: the command an agent names, and whether it
reproduces the agent's change.

The heal frame asks the agent to name, in the file ``$HEALER_FIX_COMMAND_FILE``, the one command that would
have made its change (a formatter, a generator, a lock-file update, a script of the repository). When the
change is verified, :func:`reproduces` runs that command on a fresh copy of the failing head, exactly as a
fix rule's command runs: as an argv list (never through a shell) by :func:`healer.heal.agent.run`, as a
throwaway user in its own copy (``isolation: user``), with the tools' environment (no token), after the
same set-up. The command counts only if the staged diff it leaves is the agent's staged diff, byte for byte.

The command is untrusted text (the agent wrote it): it is read bounded, must be one plain line
(:func:`healer.ledger.learned.one_line_command`), and is never pasted into a shell.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from healer.change.workspace import GitError, Repo
from healer.heal.agent import ProcessError, missing_tools, run, split_fix_command
from healer.heal.isolation import IsolationError, ThrowawayUser, throwaway_user
from healer.heal.prepare import run_setup, with_path
from healer.text.oneline import one_line_command

ENV_VAR = "HEALER_FIX_COMMAND_FILE"
_READ_LIMIT = 4096


def command_file(user: ThrowawayUser | None, directory: Path, run_id: int) -> Path:
    """An empty file the agent (the throwaway user, under isolation) can write its command to."""
    if user is not None:
        return user.writable_file("fix-command")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"fix-command-{run_id}"
    path.write_text("", encoding="utf-8")
    return path


def read_command(path: Path) -> str:
    """The command in ``path``: its first line if it is one plain command, else "". Never raises."""
    try:
        with path.open("rb") as handle:
            data = handle.read(_READ_LIMIT + 1)
    except OSError:
        return ""
    if len(data) > _READ_LIMIT:
        return ""
    try:
        return one_line_command(data.decode("utf-8"))
    except UnicodeDecodeError:
        return ""


def reproduces(
    repo: Repo,
    *,
    sha: str,
    command: str,
    expected: str,
    env: Mapping[str, str],
    setup: Sequence[str],
    work_dir: Path,
    isolated: bool,
    timeout: float,
    say: Callable[[str], None],
) -> bool:
    """Whether ``command``, run on a fresh checkout of ``sha`` after ``setup``, leaves exactly the staged
    diff ``expected``. ``env`` is the tools' environment; ``work_dir`` a scratch directory of the healer's."""
    try:
        argv = split_fix_command(command)
    except (ProcessError, ValueError):
        return False
    worktree = work_dir / "checkout"
    if worktree.exists():
        repo.remove_worktree(worktree)
        shutil.rmtree(worktree, ignore_errors=True)
    try:
        checkout = repo.add_worktree(worktree, sha)
        snapshot = checkout.snapshot_config()
        with throwaway_user(checkout.path) if isolated else contextlib.nullcontext() as user:
            prepared = run_setup(setup, checkout, env, work_dir / "setup", user=user)
            if prepared.ran and not prepared.ok:
                say("the named command was not tried: the set-up failed on the fresh copy")
                return False
            prepared_leftovers = checkout.leftovers() if prepared.ran else ()
            tools = with_path(env, prepared.path)
            if missing_tools([command], tools.get("PATH")):
                say("the named command's program is not on PATH")
                return False
            result = run(
                argv,
                cwd=user.workdir if user is not None else checkout.path,
                env=tools,
                timeout=timeout,
                isolation=user,
            )
            if user is not None:
                user.copy_out(checkout.path)
        if snapshot.changed():  # before git runs again here: the new configuration could run programs
            snapshot.restore()
            say("the named command changed git's configuration; it does not count")
            return False
        if not result.ok:
            say(f"the named command exited with {result.returncode}")
            return False
        return checkout.stage(prepared_leftovers) == expected
    except (GitError, ProcessError, IsolationError) as exc:
        say(f"the named command could not be tried: {exc}")
        return False
    finally:
        repo.remove_worktree(worktree)
        shutil.rmtree(worktree, ignore_errors=True)


def learned_command(
    repo: Repo,
    *,
    sha: str,
    fix_file: Path,
    diff: str,
    env: Mapping[str, str],
    setup: Sequence[str],
    work_dir: Path,
    isolated: bool,
    timeout: float,
    say: Callable[[str], None],
) -> str:
    """The command the agent named in ``fix_file`` if it reproduces the verified change ``diff``, else ""."""
    command = read_command(fix_file)
    if not command:
        return ""
    # the command itself is not printed: it is the agent's text, and the log reads workflow commands
    say("the agent named a command that would make its change: trying it on a fresh copy of the head")
    if reproduces(
        repo,
        sha=sha,
        command=command,
        expected=diff,
        env=env,
        setup=setup,
        work_dir=work_dir,
        isolated=isolated,
        timeout=timeout,
        say=say,
    ):
        say("the named command reproduces the change: what was learned is a fix rule")
        return command
    say("the named command does not reproduce the change: what was learned is a hint")
    return ""
