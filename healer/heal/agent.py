"""The process runner: fix commands, the agent command and verify commands. No other module starts a process
except the git wrapper (``workspace``).

Three kinds of command, three levels of trust:

- the **agent command** and ``verify-command`` come from the maintainer's workflow file: trusted, run through
  the shell so recipes like ``claude -p "$(cat "$HEALER_FRAME")"`` work;
- **fix commands** come from the shipped rules or the default branch's config file: trusted, but split with
  ``shlex`` and run as argv lists (no shell needed);
- the **failing step's command** comes from a job log, i.e. attacker-controlled text: it is only ever run
  when its first word is a known lint/format/typecheck tool found on ``PATH``, it contains no shell
  metacharacter, and it is run as an argv list without a shell.

Every process gets a scrubbed environment (no tokens unless the maintainer opts in), a time limit after
which its whole process group is killed, and bounded captured output. With ``isolation: user`` every one of
them runs as the heal's throwaway user (:mod:`healer.heal.isolation`), and when it ends, on time or not, every
process of that user is killed, daemons included; ``run`` takes the user (or an explicit ``None`` for
``isolation: none``) as a required argument, so no caller can forget it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from healer.change.outcomes import ProcessResult
from healer.heal.isolation import ThrowawayUser
from healer.text.spans import code

# Captured output kept per stream (the tail: errors come last).
OUTPUT_CAP = 64 * 1024
# Seconds between SIGTERM to the process group and SIGKILL.
KILL_GRACE = 5.0

# First words of failing-step commands the healer may re-run to verify a fix: linters, formatters and type
# checkers, which read the tree and report. Test runners are left out: they execute the PR's code at length.
VERIFY_TOOLS = frozenset(
    {
        "ruff", "flake8", "pylint", "black", "isort", "mypy", "pyright", "codespell", "eslint", "prettier",
        "tsc", "gofmt", "golangci-lint", "staticcheck", "rustfmt", "shellcheck", "yamllint", "markdownlint",
        "hadolint", "actionlint", "stylelint", "biome",
    }
)  # fmt: skip
# Tools whose subcommand decides whether they only check: `cargo fmt`, `go vet`, …
VERIFY_SUBCOMMANDS = {"cargo": frozenset({"fmt", "clippy"}), "go": frozenset({"vet"})}
SHELL_METACHARACTERS = frozenset(";&|<>`$(){}[]*?!~#\\\"'\n\r")


class ProcessError(Exception):
    """A command could not be started (not found, not executable); the message names it."""


class _Tail:
    """Reads a pipe to the end on a thread, keeping only the last ``cap`` bytes."""

    def __init__(self, stream: object, cap: int) -> None:
        self.cap = cap
        self.stream = stream
        self.data = bytearray()
        self.dropped = False
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream: object) -> None:
        read = stream.read1 if hasattr(stream, "read1") else stream.read  # type: ignore[attr-defined]
        while chunk := read(65536):
            self.data += chunk
            if len(self.data) > self.cap:
                del self.data[: len(self.data) - self.cap]
                self.dropped = True

    def text(self) -> str:
        self.thread.join(timeout=KILL_GRACE)
        if not self.thread.is_alive():
            self.stream.close()  # type: ignore[attr-defined]
        return self.data.decode(errors="replace")


def _feed(stream: IO[bytes], data: bytes) -> None:
    """Write ``data`` to a command's stdin and close it; a command that exits unread ends it early."""
    try:
        stream.write(data)
    except (OSError, ValueError):
        pass  # the command does not read stdin (the frame is in $HEALER_FRAME too), or it was killed
    finally:
        with contextlib.suppress(OSError, ValueError):
            stream.close()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the process and everything it started (the agent may spawn test runners, servers, …)."""
    for sig, wait in ((signal.SIGTERM, KILL_GRACE), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            if sig is signal.SIGTERM:
                # the leader is gone; make sure no child it left behind keeps running
                continue
            return
        except subprocess.TimeoutExpired:
            continue


def run(
    command: str | Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    stdin: str | None = None,
    cap: int = OUTPUT_CAP,
    isolation: ThrowawayUser | None,
) -> ProcessResult:
    """Run ``command`` (a string: through ``sh -c``; a list: as argv, no shell) in its own process group.

    ``isolation``: the throwaway user to run it as (``cwd`` is then in its copy), or None to run it as the
    healer's own user (``isolation: none``). On timeout the whole group gets SIGTERM, then SIGKILL (as the
    throwaway user: every process of that user is killed, at the end in any case). Output is captured, the
    last ``cap`` bytes of each stream.
    Raises :class:`ProcessError` when the program cannot be started."""
    shell = isinstance(command, str)
    argv: list[str] = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
    shown = command if isinstance(command, str) else shlex.join(argv)
    start = time.monotonic()
    where: dict[str, Any] = {"cwd": cwd, "env": dict(env)}
    if isolation is not None:
        argv, where = isolation.popen_args(argv, env, cwd)
    try:
        proc = subprocess.Popen(  # noqa: S603 - argv list; a shell only for the maintainer's own commands
            argv,
            **where,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, so a timeout can kill what it spawned
        )
    except OSError as exc:
        raise ProcessError(f"could not start {argv[0] if not shell else 'sh'}: {exc.strerror}") from None
    out, err = _Tail(proc.stdout, cap), _Tail(proc.stderr, cap)
    if stdin is not None and proc.stdin is not None:
        # On a thread: a command that never reads stdin (`claude -p "$(cat "$HEALER_FRAME")"`) would block a
        # write larger than the pipe's buffer until it exits, and the time limit below would never start.
        threading.Thread(target=_feed, args=(proc.stdin, stdin.encode()), daemon=True).start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        if isolation is not None:
            isolation.kill_all()
            proc.wait()
        else:
            _kill_group(proc)
    if isolation is not None:
        isolation.kill_all()  # nothing it started outlives it: not a daemon, not a `setsid` child
    elif not timed_out:
        # the leader exited; children it left in the group must not outlive the step
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    stdout, stderr = out.text(), err.text()
    return ProcessResult(
        command=shown,
        returncode=None if timed_out else proc.returncode,
        stdout=stdout,
        stderr=stderr,
        seconds=time.monotonic() - start,
        timed_out=timed_out,
        truncated=out.dropped or err.dropped,
    )


def no_model_reason(agent: ProcessResult) -> str:
    """Why an agent command that asked its model nothing through the proxy changed nothing: most likely its
    recipe does not send the CLI's requests to the proxy. With the last lines it printed, where the CLI
    usually says what went wrong."""
    if agent.timed_out:
        ended = "did not finish in time"
    else:
        ended = f"exited with {agent.returncode} after {agent.seconds:.0f} s"
    said = [line.strip() for line in agent.output.splitlines() if line.strip()][-3:]
    shown = " / ".join(code(line, 160) for line in said)
    last = f"; its last lines: {shown}" if said else ", printing nothing"
    return (
        f"the agent command {ended} without a single model request through the healer's model proxy: its "
        f"`agent-command` does not send the CLI's requests to the proxy (compare it with the recipes in "
        f"docs/agents.md){last}"
    )


def tool_available(command: str, path: str | None = None) -> bool:
    """Whether the program a command starts with is on ``PATH``."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return bool(words) and shutil.which(words[0], path=path) is not None


def missing_tools(commands: Sequence[str], path: str | None = None) -> list[str]:
    """The commands among ``commands`` whose program is not on ``PATH`` (a fix rule runs only if none is)."""
    return [command for command in commands if not tool_available(command, path)]


def split_fix_command(command: str) -> list[str]:
    """A fix command from a rule as an argv list (rules are trusted config, but no shell is needed)."""
    words = shlex.split(command)
    if not words:
        raise ProcessError("a fix command is empty")
    return words


def step_verify_argv(command: str | None, path: str | None = None) -> list[str] | None:
    """The failing step's command as argv when it is safe to re-run as verification, else None.

    The command comes from a job log, so it is untrusted text: one line, no shell metacharacter, its
    first word a known lint/format/typecheck tool found on ``PATH`` (for ``cargo``/``go``: a checking
    subcommand)."""
    if not command or any(ch in SHELL_METACHARACTERS for ch in command.strip()):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words:
        return None
    tool = words[0]
    if tool in VERIFY_SUBCOMMANDS:
        if len(words) < 2 or words[1] not in VERIFY_SUBCOMMANDS[tool]:
            return None
    elif tool not in VERIFY_TOOLS:
        return None
    if shutil.which(tool, path=path) is None:
        return None
    return words
