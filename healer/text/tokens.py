"""The write token: how it reaches the healer, how the healer keeps it to itself, and how it is kept out of
everything posted.

**Hand-over.** ``action.yml`` writes the token to a file only the healer's user can read (mode 0600, under
``RUNNER_TEMP``) and starts the healer with ``HEALER_GITHUB_TOKEN_FILE`` naming it and the token variable
unset, so the token is in no process environment (``/proc/<pid>/environ`` holds what a process was started
with, and ``unset`` before ``exec`` keeps it out). :func:`receive` reads the file and deletes it. Started
any other way with the token in ``HEALER_GITHUB_TOKEN`` (a test, a local run), the healer re-executes itself
once with the variable removed and the token on an inherited pipe (``HEALER_GITHUB_TOKEN_FD``).

**Non-dumpable.** :func:`protect_process` sets ``PR_SET_DUMPABLE`` to 0 on Linux: the healer's
``/proc/<pid>/mem``, ``environ`` and the like then belong to root, and no process of the same user can
attach to it (``ptrace``). macOS has no such switch; there another user's memory is already closed to
processes without root (``task_for_pid``), which is what the throwaway user is.

**Scrubbing.** :func:`scrub` replaces the token and its base64 forms (also inside a longer base64 text, such
as ``x-access-token:<token>`` in a basic-auth header) with ``***``; everything posted goes through it.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import ctypes.util
import os
import sys
from collections.abc import Mapping

TOKEN_VARIABLE = "HEALER_GITHUB_TOKEN"  # noqa: S105 - a variable's name
FILE_VARIABLE = "HEALER_GITHUB_TOKEN_FILE"
FD_VARIABLE = "HEALER_GITHUB_TOKEN_FD"
_PR_SET_DUMPABLE = 4
_MAX_TOKEN = 64 * 1024


def protect_process() -> bool:
    """Make this process non-dumpable (Linux); returns whether it is."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def receive(environ: Mapping[str, str], *, reexec: bool = False) -> dict[str, str]:
    """The environment the healer works with: ``environ`` with the token under ``HEALER_GITHUB_TOKEN``, read
    from the file or pipe it was handed over in (deleted or closed after reading).

    With ``reexec`` and the token in this process's own environment, the process first re-executes itself
    without it (see the module doc); this call then returns in the new process."""
    env = dict(environ)
    if reexec and env.get(TOKEN_VARIABLE):
        _reexec_without_token(env[TOKEN_VARIABLE])
    path = env.pop(FILE_VARIABLE, "")
    fd = env.pop(FD_VARIABLE, "")
    os.environ.pop(FILE_VARIABLE, None)
    os.environ.pop(FD_VARIABLE, None)
    if path:
        try:
            with open(path, "rb") as handle:
                env[TOKEN_VARIABLE] = handle.read(_MAX_TOKEN).decode().strip()
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)
    elif fd.isdigit():
        with os.fdopen(int(fd), "rb") as handle:
            env[TOKEN_VARIABLE] = handle.read(_MAX_TOKEN).decode().strip()
    return env


def _reexec_without_token(token: str) -> None:
    read, write = os.pipe()
    os.write(write, token.encode())
    os.close(write)
    os.set_inheritable(read, True)
    env = {k: v for k, v in os.environ.items() if k != TOKEN_VARIABLE}
    env[FD_VARIABLE] = str(read)
    argv = getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *argv[1:]], env)  # noqa: S606 - this very program, again


def forms(token: str) -> tuple[str, ...]:
    """The token and the base64 text that encodes it wherever it sits in the encoded bytes (three byte
    alignments, standard and URL-safe alphabets), e.g. inside ``base64("x-access-token:" + token)``."""
    if not token:
        return ()
    raw = token.encode()
    found = {token}
    for offset in range(3):
        padded = b"\0" * offset + raw
        start, end = -(-8 * offset // 6), (8 * (offset + len(raw))) // 6
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            part = encode(padded).decode()[start:end]
            if len(part) >= 8:
                found.add(part)
    return tuple(sorted(found, key=len, reverse=True))


def scrub(text: str, token: str) -> str:
    """``text`` with the token and its base64 forms replaced by ``***``."""
    for form in forms(token):
        text = text.replace(form, "***")
    return text


def contains(text: str, token: str) -> bool:
    """Whether ``text`` holds the token in any form :func:`scrub` removes."""
    return any(form in text for form in forms(token))
