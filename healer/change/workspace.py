"""The git wrapper: fetch the PR head, check it out in a separate worktree, diff, commit, push.

Branch names come from pull requests, i.e. from whoever opened them: every git call takes its arguments as
a list (never a shell), puts ``--`` before positional arguments where git allows it, and a branch name is
checked with ``git check-ref-format`` before git sees it as a ref. The token is handed to git only for a
push, through ``GIT_CONFIG_*`` environment variables of that one process (the equivalent of ``git -c``, but
not visible in the process list), and it is scrubbed from any error message.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from healer.change.environment import git_env
from healer.model import PullRequest
from healer.text.tokens import scrub

GIT_TIMEOUT = 600.0
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
# git's line for a ref the remote refused as not a fast-forward (a hook's refusal reads "[remote rejected]")
_REJECTED = re.compile(r"^\s*! \[rejected\]", re.MULTILINE)

# Python bytecode that running the PR's tests leaves behind (the agent reproduces the failure, a verify
# command runs the tests): never part of a fix, even in a repository whose .gitignore does not list it.
# Pathspecs, so that no exclude file has to be written into the checkout's git directory.
_BYPRODUCTS = (
    ":(exclude,glob)**/__pycache__/**",
    ":(exclude,glob)**/*.py[co]",
    # aider's chat and input history and its tags cache, written at the repository's root
    ":(exclude,glob).aider*",
    ":(exclude,glob).aider*/**",
)

# The identity commits are made with when the bot login is GitHub's own Actions bot (its noreply address).
ACTIONS_BOT = "github-actions[bot]"
ACTIONS_BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"


class GitError(Exception):
    """A git command failed; the message says which and why (never with a credential in it)."""


class StaleHeadError(GitError):
    """The PR branch no longer points at the commit the failed run tested."""


@dataclass(frozen=True)
class Identity:
    name: str
    email: str


def identity_for(bot_login: str) -> Identity:
    """The healer's commit identity: the Actions bot's noreply address, else ``<login>@users.noreply…``."""
    if bot_login == ACTIONS_BOT:
        return Identity(ACTIONS_BOT, ACTIONS_BOT_EMAIL)
    return Identity(bot_login, f"{bot_login}@users.noreply.github.com")


def _git(
    args: list[str],
    cwd: Path,
    *,
    extra_env: Mapping[str, str] | None = None,
    secret: str = "",
    check: bool = True,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    env = git_env()
    if extra_env:
        env.update(extra_env)
    # the subcommand, for messages: the first argument after the leading `-c key=value` pairs
    name = next((a for i, a in enumerate(args) if a != "-c" and (i == 0 or args[i - 1] != "-c")), "")
    try:
        # the one repository this command works in is trusted whoever owns it (the global config that would
        # say so is not read); safe.directory is honoured on the command line
        trust = ["-c", f"safe.directory={Path(cwd).resolve()}"]
        proc = subprocess.run(  # noqa: S603 - argv list, never a shell
            ["git", *trust, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            input=stdin,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed on this runner") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {name} did not finish in {GIT_TIMEOUT:.0f} s") from None
    if check and proc.returncode != 0:
        raise _failure(name, proc, secret)
    return proc


def _failure(name: str, proc: subprocess.CompletedProcess[str], secret: str = "") -> GitError:
    """The error of a failed git command: its last line that is not one of git's `hint:` lines (a rejected
    push ends with a paragraph of hints that say nothing about what happened)."""
    message = [line for line in (proc.stderr.strip() or proc.stdout.strip()).splitlines() if line.strip()]
    said = [line for line in message if not line.startswith("hint:")] or message
    detail = said[-1].strip() if said else f"exit code {proc.returncode}"
    return GitError(f"git {name} failed: {scrub(detail, secret)}")


git_run = _git  # for the modules of this package that speak git (healer.change.claim)


def valid_branch_name(name: str, cwd: Path | None = None) -> bool:
    """Whether ``name`` is a branch name git accepts (and not something that could pass for an option)."""
    if not name or name.startswith("-") or _CONTROL.search(name):
        return False
    proc = _git(["check-ref-format", f"refs/heads/{name}"], cwd or Path.cwd(), check=False)
    return proc.returncode == 0


def _require_branch(name: str, cwd: Path) -> None:
    if not valid_branch_name(name, cwd):
        raise GitError(f"refusing to use {name!r} as a branch name: git check-ref-format rejects it")


require_branch = _require_branch


def push_auth_env(token: str, server_url: str) -> dict[str, str]:
    """``GIT_CONFIG_*`` variables that give one git process the token as an HTTP header for ``server_url``.

    actions/checkout persists its own header under ``http.<server>/.extraheader``; two Authorization headers
    make GitHub answer 400, so the same key is first reset (an empty value clears the list), then set. Git
    only applies a URL-specific key over an equally specific one, hence the server URL in the key."""
    if not token:
        return {}
    key = f"http.{server_url.rstrip('/')}/.extraheader"
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": key,
        "GIT_CONFIG_VALUE_0": "",
        "GIT_CONFIG_KEY_1": key,
        "GIT_CONFIG_VALUE_1": f"AUTHORIZATION: basic {basic}",
    }


class Repo:
    """The repository the workflow checked out (``GITHUB_WORKSPACE``); ``origin`` is the base repository."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str) -> str:
        return _git(list(args), self.path).stdout

    @classmethod
    def scratch(cls, path: Path, origin: str) -> Repo:
        """An empty repository at ``path`` whose ``origin`` is ``origin`` (a job that checked out nothing)."""
        path.mkdir(parents=True, exist_ok=True)
        _git(["init", "--quiet"], path)
        _git(["remote", "add", "origin", "--", origin], path)
        return cls(path)

    def is_repository(self) -> bool:
        if not self.path.is_dir():
            return False
        return _git(["rev-parse", "--git-dir"], self.path, check=False).returncode == 0

    def _fetch(self, refs: Sequence[str], *, token: str, server_url: str, depth: str = "") -> str:
        """Fetch ``refs`` from origin (one commit deep in a shallow clone, unless ``depth`` says otherwise),
        the token given to this one git process, as for a push; returns the commit of FETCH_HEAD."""
        if not depth and self.git("rev-parse", "--is-shallow-repository").strip() == "true":
            depth = "--depth=1"
        deep = [depth] if depth else []
        _git(
            ["fetch", "--no-tags", "--no-recurse-submodules", *deep, "--", "origin", *refs],
            self.path,
            extra_env=push_auth_env(token, server_url) if server_url else None,
            secret=token,
        )
        return self.git("rev-parse", "--verify", "FETCH_HEAD^{commit}").strip()

    def fetch_branch(self, branch: str, expected_sha: str, *, token: str = "", server_url: str = "") -> None:
        """Fetch ``refs/heads/<branch>`` from origin and check that it still points at ``expected_sha``.

        The token (for private repositories: the recommended checkout keeps no credentials) is given to this
        one git process, as for a push."""
        _require_branch(branch, self.path)
        fetched = self._fetch([f"refs/heads/{branch}"], token=token, server_url=server_url)
        if fetched.lower() != expected_sha.lower():
            raise StaleHeadError(f"the branch now points at {fetched[:7]}, not {expected_sha[:7]}")

    def fetch_pull(self, number: int, expected_sha: str, *, token: str = "", server_url: str = "") -> None:
        """Fetch ``refs/pull/<number>/head`` from origin, where GitHub keeps every pull request's head, a
        fork's included (no fork URL, no branch name the fork chose); check it is ``expected_sha``."""
        fetched = self._fetch([f"refs/pull/{int(number)}/head"], token=token, server_url=server_url)
        if fetched.lower() != expected_sha.lower():
            raise StaleHeadError(f"the pull request's head is now {fetched[:7]}, not {expected_sha[:7]}")

    def deepen(self, commits: int, refs: Sequence[str], *, token: str = "", server_url: str = "") -> None:
        """Fetch ``commits`` more commits of history behind ``refs`` (a shallow clone's merge base)."""
        self._fetch(refs, token=token, server_url=server_url, depth=f"--deepen={int(commits)}")

    def fetch_head(self, pr: PullRequest, sha: str, *, token: str = "", server_url: str = "") -> None:
        """Fetch the head commit ``sha`` of ``pr``: its branch, or for a fork its pull request ref."""
        if pr.is_fork:
            self.fetch_pull(pr.number, sha, token=token, server_url=server_url)
        else:
            self.fetch_branch(pr.head_ref, sha, token=token, server_url=server_url)

    def fetch_tip(self, branch: str, *, token: str = "", server_url: str = "") -> str:
        """Fetch the tip of ``refs/heads/<branch>`` from origin (one commit deep in a shallow clone); returns
        its sha."""
        _require_branch(branch, self.path)
        return self._fetch([f"refs/heads/{branch}"], token=token, server_url=server_url)

    def add_worktree(self, path: Path, sha: str) -> Checkout:
        """A detached checkout of ``sha`` at ``path``, apart from the workflow's own checkout."""
        if not re.fullmatch(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}", sha):
            raise GitError(f"{sha!r} is not a commit id")
        _git(["worktree", "add", "--detach", "--force", "--", str(path), sha], self.path)
        return Checkout(path, self, sha)

    def remove_worktree(self, path: Path) -> None:
        _git(["worktree", "remove", "--force", "--", str(path)], self.path, check=False)
        _git(["worktree", "prune"], self.path, check=False)


_SAFE = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


@dataclass(frozen=True)
class ConfigSnapshot:
    """The bytes of git's configuration files at one moment (None: the file did not exist).

    Commands that run in the checkout (fix commands, the agent, the PR's own code they start) can write
    git configuration: a filter, a proxy, a credential helper, a receive-pack command. Git would act on it
    during staging, committing or pushing, with the token at hand, so a change is detected before git runs
    again, undone, and the delivery refused."""

    files: tuple[tuple[Path, bytes | None], ...]

    @classmethod
    def take(cls, paths: tuple[Path, ...]) -> ConfigSnapshot:
        return cls(tuple((p, p.read_bytes() if p.is_file() else None) for p in paths))

    def changed(self) -> tuple[Path, ...]:
        return tuple(p for p, data in self.files if (p.read_bytes() if p.is_file() else None) != data)

    def restore(self) -> None:
        """Put back the files that changed, and only those (an unchanged file is left to its writers)."""
        for path, data in self.files:
            if (path.read_bytes() if path.is_file() else None) == data:
                continue
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(data)


def _excluded(paths: Sequence[str]) -> list[str]:
    return [f":(exclude,literal){path}" for path in paths if path]


class Checkout:
    """A worktree holding the PR head: where fixes and the agent run, and where the fix commit is made."""

    def __init__(self, path: Path, repo: Repo, base: str = "") -> None:
        self.path = path
        self.repo = repo
        self.base = base  # the PR head commit the checkout started from
        # Where git reads configuration for this checkout, found before any command runs in it.
        git_dir = Path(self.git("rev-parse", "--absolute-git-dir").strip())
        common = Path(self.git("rev-parse", "--git-common-dir").strip())
        common = common if common.is_absolute() else (self.path / common).resolve()
        home = Path(os.environ.get("HOME", "~")).expanduser()
        xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        self.config_files = (
            common / "config",
            git_dir / "config.worktree",
            home / ".gitconfig",
            xdg / "git" / "config",
        )

    def git(self, *args: str) -> str:
        # Hooks and the fsmonitor would run programs from the repository's configuration: never here.
        return _git([*_SAFE, *args], self.path).stdout

    def snapshot_config(self) -> ConfigSnapshot:
        """The git configuration files as they are now (taken before fix commands or the agent run)."""
        return ConfigSnapshot.take(self.config_files)

    def leftovers(self) -> tuple[str, ...]:
        """The paths that differ from HEAD right now, untracked directories as one entry (``.venv``): what
        a set-up command created or changed, to be left out of the change (:meth:`stage`'s ``exclude``)."""
        out = self.git("status", "--porcelain=v1", "-z", "--untracked-files=normal", "--no-renames")
        return tuple(entry[3:].rstrip("/") for entry in out.split("\0") if len(entry) > 3)

    def stage(self, exclude: Sequence[str] = ()) -> str:
        """Stage every change (new files included) and return the staged diff (what would be delivered).

        ``exclude``: paths (literal, a directory with everything in it) that are never part of the change.
        An agent that committed on its own (aider does by default) is folded back: HEAD returns to the PR
        head with the tree kept, so the diff covers everything since the PR head and the fix is one commit."""
        if self.base and self.git("rev-parse", "HEAD").strip() != self.base:
            self.git("reset", "--soft", "--quiet", self.base)
        self.git("add", "--all", "--", ".", *_BYPRODUCTS, *_excluded(exclude))
        return self.staged_diff()

    def staged_diff(self) -> str:
        """The staged change as it is delivered: binary-safe, renames found."""
        return self.git(
            "diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "--binary", "--find-renames"
        )

    def staged_patch(self) -> str:
        """The staged change as the heal bundle carries it: every file whole (no rename or copy detection),
        so that the deliver stage can judge each path as it is written."""
        return self.git("diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames")

    def apply_patch(self, patch_file: Path) -> str:
        """Apply a patch (a heal bundle's change) to the index and the tree of this checkout and return the
        staged diff. ``git apply`` runs no program of the repository's and refuses a path outside the tree or
        inside ``.git``; a patch that does not apply to this head raises :class:`GitError`."""
        self.git("apply", "--index", "--whitespace=nowarn", "--", str(patch_file))
        return self.staged_diff()

    def diffstat(self) -> str:
        """``N files changed, +A -D`` of the staged change."""
        out = self.git("diff", "--cached", "--numstat", "--no-ext-diff")
        files = added = removed = 0
        for line in out.splitlines():
            parts = line.split("\t")
            if len(parts) >= 3:
                files += 1
                added += int(parts[0]) if parts[0].isdigit() else 0
                removed += int(parts[1]) if parts[1].isdigit() else 0
        return f"{files} file{'s' if files != 1 else ''} changed, +{added} -{removed}"

    def has_unstaged_changes(self, exclude: Sequence[str] = ()) -> bool:
        """Whether the tree differs from what was staged (e.g. a verify command rewrote files)."""
        status = self.git(
            "status", "--porcelain", "--untracked-files=all", "--", ".", *_BYPRODUCTS, *_excluded(exclude)
        )
        return any(line[1:2] not in (" ", "") for line in status.splitlines())

    def commit(self, message: str, identity: Identity) -> str:
        """Commit the staged change as the healer (no hooks: the checkout holds PR code); returns the sha."""
        who = {
            "GIT_AUTHOR_NAME": identity.name,
            "GIT_AUTHOR_EMAIL": identity.email,
            "GIT_COMMITTER_NAME": identity.name,
            "GIT_COMMITTER_EMAIL": identity.email,
        }
        _git(
            [
                *_SAFE,
                "-c",
                "commit.gpgSign=false",
                "commit",
                "--no-verify",
                "--quiet",
                "-m",
                message,
            ],
            self.path,
            extra_env=who,
        )
        return self.git("rev-parse", "HEAD").strip()

    def push(
        self,
        branch: str,
        *,
        token: str,
        server_url: str,
        force: bool = False,
        remote: str = "origin",
        lease: str = "",
    ) -> None:
        """Push HEAD to ``refs/heads/<branch>`` on ``remote`` (origin, or a fork's clone URL), the token set
        for this one git process only (and sent only to ``server_url``). ``lease``: replace the branch only
        while it points at that commit (this run's claim, :mod:`healer.change.claim`)."""
        _require_branch(branch, self.path)
        extra = push_auth_env(token, server_url)
        how = [f"--force-with-lease=refs/heads/{branch}:{lease}"] if lease else ["--force"] if force else []
        args = [
            *_SAFE,
            "push",
            "--no-verify",
            "--quiet",
            *how,
            "--",
            remote,
            f"HEAD:refs/heads/{branch}",
        ]
        try:
            proc = _git(args, self.path, extra_env=extra, secret=token, check=False)
        finally:
            extra.clear()  # drop the only copy of the header this module made
        if proc.returncode != 0 and lease and _REJECTED.search(proc.stderr):
            raise StaleHeadError(f"`{branch}` is no longer this run's claim; nothing was pushed")
        if proc.returncode != 0 and not force and _REJECTED.search(proc.stderr):
            # refused as not a fast-forward: someone pushed to the branch while the healer worked
            raise StaleHeadError(f"`{branch}` moved on while the healer worked; nothing was pushed")
        if proc.returncode != 0:
            raise _failure("push", proc, token)
