"""The claim of a heal: the fix branch, created on the remote by one atomic push, is the lock on a commit.

Two runs can act on one commit together (a ``push`` and a ``pull_request`` trigger, a workflow re-run). A run
that heals needs the commit to itself, and it will push to one branch per commit anyway,
``ci-healer/<pr>-<sha7>`` (:func:`healer.deliver.fixpr.fix_branch`). So the run claims that branch before it
heals: it pushes a *claim commit* there with ``--force-with-lease=refs/heads/<branch>:`` (an empty
expectation: the ref must not exist). Git's remote applies a lease atomically, so of two runs exactly one
creates the branch; the other's push is refused and it does nothing. The claim notifies nobody (a branch
push is not a comment; pushes with the workflow's ``GITHUB_TOKEN`` start no workflow, and the claim's
``[skip ci]`` keeps another token's push from starting any) and promises nothing.

The claim commit has no parent and the empty tree, and its message names the run and the time:
``Ci-healer-claim: run <id> attempt <n> at <ISO time>``. The fix is later pushed over it with
``--force-with-lease=refs/heads/<branch>:<claim commit>`` (a compare-and-swap): a run whose claim was taken
over pushes nothing. A run that delivers nothing deletes its claim the same way (only if it is still its
own), so that a ``/ci-healer retry`` can act. A retry that finds an earlier fix there leases it as it is
(no claim commit goes on a fix pull request's branch) and replaces it by a compare-and-swap from the commit it
read; like any run, it never pushes over another run's live claim.

A run that died (runner lost, job killed) leaves its claim behind. A claim older than ``ttl`` (six hours: no
GitHub-hosted job runs longer), or whose time cannot be read or lies in the future, is dead, and the next run
replaces it by a compare-and-swap from the dead claim's commit, so a commit is never blocked for longer. A
branch that holds anything else (the fix of an earlier run of this commit, or a person's commits) is not a
claim: it is left alone, and the run does not heal this commit.

Only who may push to the repository can write a claim; a claim only ever makes the healer do less.
"""

from __future__ import annotations

import re
import secrets
import subprocess
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from healer.change.workspace import GitError, Identity, Repo, git_run, push_auth_env, require_branch
from healer.text.tokens import scrub

TRAILER = "Ci-healer-claim"
_TRAILER_LINE = re.compile(
    rf"^{TRAILER}: run ([0-9]{{1,20}}) attempt ([0-9]{{1,10}}) at ([0-9T:+.Z-]{{10,40}})$", re.MULTILINE
)
# a claim whose time is this far ahead of the reader's clock was not written by a run of ours: dead
_SKEW = timedelta(minutes=5)
# git's words for a push a lease refused: the ref is not what the pusher expected
_LEASE_REFUSED = re.compile(r"\(stale info\)|\(fetch first\)|\[rejected\]|already exists", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    """A claim this run holds: ``branch`` on origin points at the claim commit ``sha``."""

    branch: str
    sha: str
    replaced: str = ""  # the dead claim this one replaced ("" when the branch did not exist)
    # an earlier attempt's fix the branch holds, leased as it is (no claim commit was pushed over it): the
    # fix replaces it only while it is there, and releasing leaves it
    kept: bool = False


@dataclass(frozen=True)
class Holder:
    """What already is on the branch: a live claim of another run (``run``, ``at``), or other work."""

    sha: str
    run: tuple[int, int] | None = None  # (run id, attempt) of a claim; None: not a claim
    at: datetime | None = None

    def describe(self) -> str:
        if self.run is None:
            return f"its fix branch is at {self.sha[:7]} already (a delivered fix, or a person's commits)"
        since = f" since {self.at.strftime('%Y-%m-%d %H:%M:%S UTC')}" if self.at is not None else ""
        return f"run {self.run[0]} (attempt {self.run[1]}) holds its fix branch{since}"


def claim_message(branch: str, head_sha: str, run: tuple[int, int], at: datetime, nonce: str = "") -> str:
    """The claim commit's message: what it is, then the trailer that names the run and the time. ``nonce``
    (random) makes each claim a commit of its own: two runs of one event (a redelivery) in the same second
    would otherwise write the same commit, and a push of a commit the branch already holds succeeds."""
    when = at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    # `[skip ci]`: with a token whose pushes start workflows, GitHub starts none for this commit
    return (
        f"ci-healer: claim {branch} [skip ci]\n\n"
        f"A ci-healer run holds this branch while it heals {head_sha[:12]}; its fix replaces this commit,\n"
        "and a run that delivers nothing deletes it.\n\n"
        f"{TRAILER}: run {int(run[0])} attempt {int(run[1])} at {when}\n"
        f"{TRAILER}-nonce: {nonce or secrets.token_hex(16)}\n"
    )


def read_claim(message: str) -> tuple[tuple[int, int], datetime | None] | None:
    """(run, time) from a claim commit's message; the time is None when unreadable. None: no trailer."""
    found = _TRAILER_LINE.search(message)
    if found is None:
        return None
    try:
        at: datetime | None = datetime.fromisoformat(found.group(3).replace("Z", "+00:00"))
    except ValueError:
        at = None
    if at is not None and at.tzinfo is None:
        at = None
    return (int(found.group(1)), int(found.group(2))), at


def is_dead(at: datetime | None, now: datetime, ttl: timedelta) -> bool:
    """Whether a claim written at ``at`` no longer holds at ``now``: older than ``ttl``, or its time unread-
    able or in the future (a claim that could otherwise hold forever)."""
    return at is None or at < now - ttl or at > now + _SKEW


class BranchLock:
    """Claims on fix branches of ``origin`` through the repository the workflow checked out."""

    def __init__(self, repo: Repo, *, token: str, server_url: str, identity: Identity) -> None:
        self.repo = repo
        self.token = token
        self.server_url = server_url
        self.identity = identity

    def _git(
        self, *args: str, check: bool = True, stdin: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        extra = {**push_auth_env(self.token, self.server_url), **(env or {})}
        try:
            return git_run(
                list(args), self.repo.path, extra_env=extra, secret=self.token, check=check, stdin=stdin
            )
        finally:
            extra.clear()

    def tip(self, branch: str) -> str:
        """The commit ``refs/heads/<branch>`` points at on origin; "" when it does not exist."""
        require_branch(branch, self.repo.path)
        out = self._git("ls-remote", "--", "origin", f"refs/heads/{branch}").stdout
        for line in out.splitlines():
            sha, _, ref = line.partition("\t")
            if ref.strip() == f"refs/heads/{branch}":
                return sha.strip().lower()
        return ""

    def holder(self, branch: str, sha: str) -> Holder:
        """What commit ``sha`` on ``branch`` is: a claim (fetched and read) or other work."""
        ref = f"refs/heads/{branch}"
        self._git("fetch", "--no-tags", "--no-recurse-submodules", "--depth=1", "--", "origin", ref)
        fetched = self._git("rev-parse", "--verify", "FETCH_HEAD^{commit}").stdout.strip().lower()
        if fetched != sha:
            return Holder(fetched)  # it moved meanwhile: whatever it is now, it is not ours to replace
        tree = self._git("rev-parse", f"{sha}^{{tree}}").stdout.strip()
        parents = self._git("rev-list", "--parents", "-n", "1", sha).stdout.split()[1:]
        read = read_claim(self._git("cat-file", "commit", sha).stdout)
        if read is None or parents or tree != self._empty_tree():
            return Holder(sha)
        return Holder(sha, read[0], read[1])

    def _empty_tree(self) -> str:
        return self._git("mktree", stdin="").stdout.strip()

    def claim(
        self,
        branch: str,
        *,
        head_sha: str,
        run: tuple[int, int],
        now: datetime,
        ttl: timedelta,
        over_work: bool = False,
    ) -> Claim | Holder:
        """Claim ``branch`` for ``run``: the :class:`Claim` when this run holds it now, else the
        :class:`Holder` of the branch (another run's live claim, a fix, or whoever won the same moment).
        ``over_work``: what the branch holds that is no claim (an earlier attempt's fix) is leased as it is,
        a :class:`Claim` that ``kept`` it (a ``/ci-healer retry`` replaces the fix of its commit, by a
        compare-and-swap from the commit read); a live claim still holds."""
        expected = self.tip(branch)
        if expected:
            held = self.holder(branch, expected)
            if held.run is None and over_work and held.sha == expected:
                return Claim(branch, expected, kept=True)
            if held.run is None or not is_dead(held.at, now, ttl):
                return held  # a fix or a person's commits (not to be leased), or another run's live claim
        env = {
            "GIT_AUTHOR_NAME": self.identity.name,
            "GIT_AUTHOR_EMAIL": self.identity.email,
            "GIT_COMMITTER_NAME": self.identity.name,
            "GIT_COMMITTER_EMAIL": self.identity.email,
            "GIT_AUTHOR_DATE": now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "GIT_COMMITTER_DATE": now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        message = claim_message(branch, head_sha, run, now)
        commit = self._git("commit-tree", self._empty_tree(), "-m", message, env=env).stdout.strip().lower()
        if self._push(branch, commit, expected):
            return Claim(branch, commit, replaced=expected)
        return self._lost(branch)

    def _lost(self, branch: str) -> Holder:
        """The holder of a branch another run claimed the same moment (read again for the run's log)."""
        now_at = self.tip(branch)
        if not now_at:
            return Holder("")
        return self.holder(branch, now_at)

    def _push(self, branch: str, commit: str, expected: str, *, delete: bool = False) -> bool:
        """Push ``commit`` (or a deletion) to ``branch`` if, and only if, the branch is at ``expected`` ("":
        absent). False when the lease refused it; a GitError for any other failure."""
        source = "" if delete else commit
        proc = self._git(
            "push",
            "--no-verify",
            "--quiet",
            f"--force-with-lease=refs/heads/{branch}:{expected}",
            "--",
            "origin",
            f"{source}:refs/heads/{branch}",
            check=False,
        )
        if proc.returncode == 0:
            return True
        if _LEASE_REFUSED.search(proc.stderr):
            return False
        raise GitError(f"git push failed while claiming {branch}: {_last_line(proc.stderr, self.token)}")

    def delete(self, branch: str) -> bool:
        """Delete ``branch`` on origin by a git push (a fix pull request's branch that lost its reason): True
        when it is gone, also when it was gone already; False when git could not (never raises)."""
        try:
            require_branch(branch, self.repo.path)
            proc = self._git(
                "push", "--no-verify", "--quiet", "--", "origin", f":refs/heads/{branch}", check=False
            )
        except (GitError, OSError):
            return False
        return proc.returncode == 0 or "remote ref does not exist" in proc.stderr

    def release(self, claim: Claim) -> bool:
        """Delete the claim's branch if it still points at the claim commit (never a fix, never another run's
        claim). False when it was not (or could not be) deleted, and for a fix it ``kept``."""
        if claim.kept:
            return False
        try:
            return self._push(claim.branch, "", claim.sha, delete=True)
        except GitError:
            return False


def _last_line(text: str, secret: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip() and not ln.startswith("hint:")]
    return scrub(lines[-1].strip(), secret) if lines else "no output"
