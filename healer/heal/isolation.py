"""A throwaway user for code from the pull request (``isolation: user``).

Everything that runs code from the PR head (fix commands, the agent, verification, a setup command) runs,
through :func:`healer.heal.agent.run`, as a user created for this heal and deleted after it:

- created with ``useradd`` as root, or through ``sudo -n`` on a hosted runner (whose user has passwordless
  sudo); it belongs to no group but its own, so it has no sudo, and its home is a fresh directory;
- it works in its own copy of the PR head (:meth:`ThrowawayUser.copy_in`), streamed in as a tar archive and
  given a git repository of its own, so the healer's repository, the workflow's checkout, the action and its
  environment, and the runner's file-command files stay out of its reach (it cannot write them, and the token
  is in no environment it can read);
- before a change is judged, every process of that user is killed and the kill is checked
  (:meth:`ThrowawayUser.kill_all`); only then is its tree streamed back out (:meth:`ThrowawayUser.copy_out`)
  into the healer's own checkout, extracted with tarfile's ``data`` filter, and never through its ``.git``.
  What is judged is what is committed: the healer stages and commits in its own repository.

Where the healer is neither root nor able to use ``sudo -n`` (or the platform is not Linux), no user can be
made: :func:`availability` says why, and the heal runs no code from the pull request.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from healer.heal.treecopy import extract, replace_tree

MODES = ("user", "none")
# The runner's file commands and credentials: never in the environment of code from the pull request.
FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")
_DROP_PREFIXES = ("ACTIONS_", "HEALER_GITHUB_TOKEN", "HEALER_LEDGER_KEY")
_SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_ADMIN_TIMEOUT = 60.0
_COPY_TIMEOUT = 600.0
# How the tree is streamed out: the files git would see (tracked and untracked, ignored ones left out, so a
# node_modules is not copied back), else every file; never a `.git`.
_COPY_OUT = r"""
cd "$1" || exit 1
list="$HOME/.ci-healer-files"
if git -c core.fsmonitor=false ls-files -z --cached --others --exclude-standard >"$list" 2>/dev/null; then
  exec tar --null --no-recursion --ignore-failed-read --exclude=.git -T "$list" -cf - 2>/dev/null
fi
exec tar --exclude=.git -cf - . 2>/dev/null
"""
_GIT_INIT = (
    'cd "$1" && git init -q && git add -A && '
    "git -c user.name=ci-healer -c user.email=ci-healer@localhost -c commit.gpgSign=false "
    'commit -q --no-verify --allow-empty -m "the pull request head"'
)


class IsolationError(Exception):
    """The throwaway user could not be made, used, or cleaned away; the message says which step failed."""


def availability() -> tuple[str, str]:
    """``(how, why_not)``: how a user can be made here (``root`` or ``sudo``), else why not."""
    if not sys.platform.startswith("linux"):
        return "", f"isolation: user is implemented for Linux runners only (this is {sys.platform})"
    if shutil.which("useradd", path=_SYSTEM_PATH) is None:
        return "", "isolation: user needs `useradd`, which this runner does not have"
    if os.geteuid() == 0:
        return "root", ""
    sudo = shutil.which("sudo", path=_SYSTEM_PATH)
    if sudo is None:
        return "", "isolation: user needs root or passwordless sudo; the healer runs as a user without sudo"
    probe = subprocess.run(  # noqa: S603 - fixed argv
        [sudo, "-n", "true"], stdin=subprocess.DEVNULL, capture_output=True, env=_admin_env(), check=False
    )
    if probe.returncode != 0:
        return "", "isolation: user needs root or passwordless sudo; `sudo -n true` failed here"
    return "sudo", ""


def _admin_env() -> dict[str, str]:
    return {"PATH": _SYSTEM_PATH, "LC_ALL": "C"}


@dataclass
class ThrowawayUser:
    """One user made for one heal: its name and ids, its home, and the copy of the PR head it works in."""

    name: str
    uid: int
    gid: int
    how: str  # root or sudo
    base: Path  # healer-owned, 0711: the user can pass through it but not list or write it
    home: Path
    workdir: Path

    # -- lifecycle -------------------------------------------------------------------------------------------

    @classmethod
    def create(cls, how: str) -> ThrowawayUser:
        name = f"ci-healer-{secrets.token_hex(4)}"
        base = Path(tempfile.mkdtemp(prefix="ci-healer-user-"))
        base.chmod(0o711)
        home = base / "home"
        # no --groups: the user is in its own group only (no sudo, adm, docker, ...)
        options = ["--no-create-home", "--home-dir", str(home), "--shell", "/bin/sh", "--user-group"]
        _admin(how, ["useradd", *options, "--no-log-init", "--comment", "ci-healer throwaway user", name])
        entry = pwd.getpwnam(name)
        user = cls(name, entry.pw_uid, entry.pw_gid, how, base, home, home / "pr")
        try:
            # 0711: the healer's user (not root under sudo) can reach the copy, not list the home
            _admin(how, ["install", "-d", "-m", "0711", "-o", name, "-g", str(entry.pw_gid), str(home)])
            user._as_user(["mkdir", "-m", "0755", "--", str(user.workdir), str(home / "tmp")])
        except IsolationError:
            user.remove()
            raise
        return user

    def remove(self) -> None:
        """Kill what is left, delete the user and its files (best effort: cleanup never hides a result)."""
        with contextlib.suppress(IsolationError):
            self.kill_all()
        with contextlib.suppress(IsolationError):
            _admin(self.how, ["crontab", "-r", "-u", self.name])  # a job it scheduled, where cron runs
        with contextlib.suppress(IsolationError):
            _admin(self.how, ["userdel", "--force", self.name])
        with contextlib.suppress(IsolationError):
            _admin(self.how, ["rm", "-rf", "--one-file-system", "--", str(self.base)])

    # -- running as the user ---------------------------------------------------------------------------------

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` for this user: its own home and temp directory, without the runner's file commands and
        credentials."""
        clean = {k: v for k, v in env.items() if k not in FILE_COMMANDS and not k.startswith(_DROP_PREFIXES)}
        clean.update(HOME=str(self.home), USER=self.name, LOGNAME=self.name, TMPDIR=str(self.home / "tmp"))
        return clean

    def popen_args(
        self, argv: list[str], env: Mapping[str, str], cwd: Path
    ) -> tuple[list[str], dict[str, Any]]:
        """The argv and ``subprocess.Popen`` keywords that start ``argv`` as this user in ``cwd``."""
        env = self.environment(env)
        if self.how == "root":
            return argv, {
                "env": env,
                "cwd": str(cwd),
                "user": self.uid,
                "group": self.gid,
                "extra_groups": [],
            }
        # sudo resets the environment; the launcher script sets exactly ``env`` (a file rather than the
        # command line, which sudo would log) and changes to ``cwd``.
        script = self.base / f"launch-{secrets.token_hex(6)}.sh"
        lines = [f"export {k}={shlex.quote(v)}" for k, v in env.items() if k.isidentifier()]
        lines += [f"cd -- {shlex.quote(str(cwd))} || exit 126", 'rm -f -- "$0" 2>/dev/null', 'exec "$@"']
        script.write_text("\n".join(lines) + "\n", encoding="utf-8")
        script.chmod(0o644)
        sudo = ["sudo", "-n", "-u", self.name, "--", "/usr/bin/env", "-i", "/bin/sh", str(script)]
        return sudo + argv, {"env": _admin_env(), "cwd": str(self.base)}

    def _as_user(self, argv: list[str], *, stdin: Any = None, cwd: Path | None = None) -> None:
        argv, kwargs = self.popen_args(argv, {"PATH": os.environ.get("PATH", _SYSTEM_PATH)}, cwd or self.base)
        done = subprocess.run(  # noqa: S603 - fixed argv
            argv, input=stdin, capture_output=True, timeout=_ADMIN_TIMEOUT, check=False, **kwargs
        )
        if done.returncode != 0:
            said = (done.stderr or b"").decode(errors="replace").strip().splitlines()
            raise IsolationError(
                f"`{argv[-1] if argv else ''}` as {self.name} failed: {said[-1] if said else done.returncode}"
            )

    def pids(self) -> list[int]:
        """Every live process of this user (any of its real, effective, saved or filesystem uids)."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue  # gone meanwhile
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            if fields.get("State", "").strip().startswith("Z"):
                continue  # a zombie runs nothing; its parent (or init) reaps it
            if str(self.uid) in fields.get("Uid", "").split():
                found.append(int(entry.name))
        return found

    def kill_all(self) -> None:
        """SIGKILL every process of this user (``kill -1`` run as the user reaches each one it could signal,
        daemons and ``setsid`` children included) until none is left; raises if some survive."""
        for attempt in range(60):
            if not self.pids():
                return
            argv, kwargs = self.popen_args(["/bin/sh", "-c", "kill -9 -1"], {"PATH": _SYSTEM_PATH}, self.base)
            subprocess.run(argv, capture_output=True, timeout=_ADMIN_TIMEOUT, check=False, **kwargs)  # noqa: S603
            time.sleep(min(0.01 * attempt, 0.2))
        raise IsolationError(f"processes of {self.name} survived SIGKILL: {self.pids()}")

    # -- the copy of the PR head -----------------------------------------------------------------------------

    def copy_in(self, source: Path) -> None:
        """Stream the working tree at ``source`` (its ``.git`` left out) into :attr:`workdir`, as this user,
        and give the copy a git repository of its own (agents use git; the healer never reads it)."""
        argv, kwargs = self.popen_args(["tar", "--no-same-owner", "-xf", "-", "-C", str(self.workdir)],
                                       {"PATH": _SYSTEM_PATH}, self.base)  # fmt: skip
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,  # noqa: S603
                                stderr=subprocess.PIPE, **kwargs)  # fmt: skip
        assert proc.stdin is not None
        try:
            with tarfile.open(fileobj=proc.stdin, mode="w|") as archive:
                for entry in sorted(source.iterdir()):
                    if entry.name != ".git":
                        archive.add(str(entry), arcname=entry.name)
        finally:
            proc.stdin.close()
            err = b""
            if proc.stderr is not None:
                err = proc.stderr.read()
                proc.stderr.close()
            proc.wait(timeout=_COPY_TIMEOUT)
        if proc.returncode != 0:
            raise IsolationError(
                f"copying the checkout to {self.name} failed: {err.decode(errors='replace')[-300:]}"
            )
        path = os.environ.get("PATH", _SYSTEM_PATH)
        argv, kwargs = self.popen_args(["/bin/sh", "-c", _GIT_INIT, "sh", str(self.workdir)],
                                       {"PATH": path, "GIT_CONFIG_NOSYSTEM": "1"}, self.workdir)  # fmt: skip
        subprocess.run(argv, capture_output=True, timeout=_COPY_TIMEOUT, check=False, **kwargs)  # noqa: S603
        self.kill_all()

    def copy_out(self, dest: Path) -> None:
        """Replace the working tree at ``dest`` (its ``.git`` kept) with this user's copy.

        Every process of the user is killed first and again after the archive is read, so nothing changes the
        tree while it is read or afterwards. The archive is untrusted: see :mod:`healer.heal.treecopy`."""
        self.kill_all()
        path = os.environ.get("PATH", _SYSTEM_PATH)
        argv, kwargs = self.popen_args(["/bin/sh", "-c", _COPY_OUT, "sh", str(self.workdir)],
                                       {"PATH": path, "GIT_CONFIG_NOSYSTEM": "1"}, self.workdir)  # fmt: skip
        staging = Path(tempfile.mkdtemp(prefix="copy-out-", dir=dest.parent))
        try:
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,  # noqa: S603
                                    stdin=subprocess.DEVNULL, **kwargs)  # fmt: skip
            assert proc.stdout is not None
            try:
                skipped = extract(proc.stdout, staging)
            except (tarfile.TarError, OSError) as exc:
                raise IsolationError(f"the copy of {self.name} could not be read back: {exc}") from None
            finally:
                proc.stdout.close()
                proc.wait(timeout=_COPY_TIMEOUT)
            self.kill_all()
            if skipped:
                shown = ", ".join(repr(name) for name in skipped[:5])
                raise IsolationError(f"the changed tree holds entries that cannot be taken back: {shown}")
            replace_tree(dest, staging)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def writable_file(self, name: str) -> Path:
        """An empty file this user can write and the healer read (e.g. ``$HEALER_PATH``)."""
        path = self.base / name
        path.write_text("", encoding="utf-8")
        path.chmod(0o666)  # in a directory no one else can list; only this user and the healer's know it
        return path

    def write_home_file(self, relative: str, text: str) -> Path:
        """Write ``text`` to ``relative`` under this user's home, as this user (its folders made as needed):
        settings a CLI reads from its home before it starts."""
        path = self.home / relative
        script = 'umask 077 && mkdir -p -- "$(dirname -- "$1")" && cat > "$1"'
        self._as_user(["/bin/sh", "-c", script, "sh", str(path)], stdin=text.encode(), cwd=self.home)
        return path

    def share(self, path: Path) -> Path:
        """A copy of ``path`` (e.g. the heal frame) that this user can read."""
        copy = self.base / path.name
        shutil.copyfile(path, copy)
        copy.chmod(0o644)
        return copy


def _admin(how: str, argv: list[str]) -> None:
    """Run an administrative command as root (directly, or through ``sudo -n``)."""
    full = argv if how == "root" else ["sudo", "-n", "--", *argv]
    try:
        done = subprocess.run(  # noqa: S603 - fixed argv
            full, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=_admin_env(),
            timeout=_ADMIN_TIMEOUT, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise IsolationError(f"`{argv[0]}` failed: {exc}") from None
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise IsolationError(f"`{argv[0]}` failed: {said[-1] if said else f'exit code {done.returncode}'}")


@contextlib.contextmanager
def throwaway_user(source: Path) -> Iterator[ThrowawayUser]:
    """A user made for one heal, holding a copy of ``source``; removed (with every process) on exit."""
    how, why_not = availability()
    if not how:
        raise IsolationError(why_not)
    user = ThrowawayUser.create(how)
    try:
        user.copy_in(source)
        yield user
    finally:
        user.remove()
