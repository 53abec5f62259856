"""The ledger: the healer's memory, read back from the markers in its own pull-request comments.

There is no daemon and no database: every action the healer takes is recorded as a hidden marker in the PR
comment that announces it (see :mod:`healer.ledger.markers` for the format and signing), and the next run
reads the
markers back.

Where markers are read
----------------------
Only from comments whose author is the configured bot login, only from each comment's marker block, and, when
the repository set a ``ledger-key``, only markers signed with it for this pull request.

Counting attempts
-----------------
A check's history is what happened to it since its last ``reset`` (the check passed at the PR's head). The
attempts *spent* are ``max(distinct SHAs healed, highest attempt number recorded)``; the next attempt is
spent + 1. Because every attempt marker records its own number, deleting or editing a healer comment cannot
lower the count unless it held the newest attempt, and then only by that one attempt. ``decide()`` never
plans an attempt beyond ``max-attempts`` whatever the ledger says.

Budgets, histories, resets, escalations and re-runs are kept per (workflow, check): a ledger read for one
workflow (``workflow=``) answers for its checks only; claims, flaky tests and startup notices stay shared.

Claims
------
A run that only heals claims its commit with its fix branch (:mod:`healer.change.claim`). Other runs: two
runs for one PR can finish together; before acting, a run posts a comment with a ``claim`` marker for
(head SHA, run id, run attempt), reads the comments again, and acts only when its claim is the *winning*
one: the earliest (by comment id, then position) claim for that SHA that is not yet settled. A claim is
settled once its run has recorded an outcome for that SHA (any other marker with the same SHA and run
id/attempt, or any other marker for that SHA in the claim's own comment — the run edits its claim comment
into its result). A loser does nothing and deletes its claim comment, so that a later run on the same commit
is not blocked by it.

A comment that holds an unsettled claim belongs to the run that posted it until that run writes its result
into it (replacing the whole body), so no other run edits it: a reset goes into the newest healer comment
without an unsettled claim (:attr:`Ledger.latest_comment`), or into a comment of its own when there is none.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from healer.ledger.entries import claim_body, claim_marker, record, reset_markers
from healer.ledger.fixrecords import ledger_order
from healer.ledger.markers import (
    MARKER_PREFIX,
    MAX_CHECK_CHARS,
    Kind,
    Marker,
    Signer,
    add_markers,
    check_key,
    comment_body,
    decode_markers,
    encode_marker,
)
from healer.model import Comment, PastAttempt

__all__ = [
    "CLAIM_TTL",
    "MARKER_PREFIX",
    "MAX_CHECK_CHARS",
    "Entry",
    "Kind",
    "Ledger",
    "Marker",
    "Signer",
    "add_markers",
    "check_key",
    "claim_body",
    "claim_marker",
    "comment_body",
    "decode_markers",
    "encode_marker",
    "latest_healer_comment",
    "record",
    "reset_markers",
]


# -- the ledger ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """A trusted marker and where it was found (comment id, then position in the marker block)."""

    marker: Marker
    comment_id: int
    index: int
    created_at: str = ""  # the comment's creation time (GitHub's clock), for the age of a claim


@dataclass
class _CheckState:
    since_reset: list[Entry] = field(default_factory=list)  # attempts and re-runs since the last reset
    escalation: Entry | None = None  # the escalation posted since the last reset
    reset: Entry | None = None
    fix_prs: list[int] = field(default_factory=list)  # every fix PR ever recorded (superseded get closed)


class Ledger:
    """The healer's history on one pull request, read from its own comments (see :meth:`from_comments`)."""

    def __init__(
        self, entries: Sequence[Entry], latest_comment: Comment | None = None, workflow: str | None = None
    ) -> None:
        self.entries: tuple[Entry, ...] = tuple(entries)
        # the workflow whose checks this ledger answers for (:func:`healer.ledger.markers.workflow_key`);
        # None: all
        self.workflow = None if workflow is None else check_key(workflow)
        # the newest healer comment with markers that no unsettled claim holds: the one a reset edits
        self.latest_comment = latest_comment
        self._checks: dict[str, _CheckState] = {}
        self._reruns: dict[tuple[str, str], set[object]] = defaultdict(set)
        self._handled: set[tuple[str, str, int | None, int | None]] = set()
        self._diagnosed: set[tuple[str, str]] = set()
        self._claims: dict[str, list[Entry]] = defaultdict(list)
        self._outcomes: set[tuple[str, int | None, int | None]] = set()  # (sha, run id, attempt) that acted
        self._outcome_comments: set[tuple[str, int]] = set()  # (sha, comment id) holding an outcome
        self._flaky: dict[str, None] = {}  # test ids recorded as flaky on this PR, oldest first
        self._tests: dict[tuple[str, str], tuple[str, ...]] = {}  # (check, sha) → its failing tests
        self._startups: dict[str, list[Entry]] = defaultdict(list)  # sha → startup-failure notices
        self._held: set[int] | None = None  # comments holding an unsettled claim (computed once asked)
        for entry in self.entries:
            self._add(entry)

    @classmethod
    def from_comments(
        cls,
        comments: Sequence[Comment],
        bot_login: str,
        signer: Signer | None = None,
        *,
        workflow: str | None = None,
    ) -> Ledger:
        """The ledger from a PR's comments (and its fix records, :mod:`healer.ledger.fixrecords`), trusting
        only those whose author is ``bot_login`` (and, with ``signer``, only markers signed for this pull
        request).

        Linear in the number of comments (only each trusted comment's marker block is read). The order the
        comments are listed in does not matter.
        """
        login = bot_login.strip().casefold()
        entries: list[Entry] = []
        marked: list[Comment] = []
        # Comment ids grow with time; sorting makes the order explicit whatever order they were listed in.
        for comment in ledger_order(comments):
            if not login or comment.author.casefold() != login:
                continue
            markers = decode_markers(comment.body, signer)
            if not markers:
                continue
            marked.append(comment)
            entries.extend(
                Entry(marker, comment.id, index, comment.created_at) for index, marker in enumerate(markers)
            )
        ledger = cls(entries, workflow=workflow)
        ledger.latest_comment = next((c for c in reversed(marked) if not ledger.held(c.id)), None)
        return ledger

    @classmethod
    def empty(cls) -> Ledger:
        return cls(())

    def in_workflow(self, workflow: str) -> Ledger:
        """The same records, answering per check for the checks of ``workflow`` only."""
        if self.workflow == check_key(workflow):
            return self
        return Ledger(self.entries, self.latest_comment, workflow)

    def _ours(self, marker: Marker) -> bool:
        """Whether ``marker`` is part of the history of this ledger's workflow.

        A marker older than the ``workflow`` field belongs to every workflow: its history was shared by all
        checks of that name when written, so an upgrade mid-PR hands no check a fresh budget and forgets no
        escalation. Each workflow's own reset ends it for that workflow (an old reset, for all of them)."""
        return self.workflow is None or not marker.workflow or marker.workflow == self.workflow

    def _state(self, check: str) -> _CheckState:
        state = self._checks.get(check)
        if state is None:
            state = self._checks[check] = _CheckState()
        return state

    def _add(self, entry: Entry) -> None:
        marker = entry.marker
        if marker.kind is Kind.CLAIM:
            self._claims[marker.sha].append(entry)
            return
        if marker.kind is Kind.FLAKY:  # bookkeeping about tests, like a reset; no outcome, no history
            self._flaky.update(dict.fromkeys(marker.tests))
            return
        if marker.kind is Kind.STARTUP:  # a notice about a workflow, not a check's history
            self._startups[marker.sha].append(entry)
            return
        if marker.kind is Kind.TRUNK:  # the base branch's failure: no attempt, read by healer.ledger.trunk
            return
        if marker.kind is Kind.PROOF:  # a fix PR's CI: no attempt and no outcome of a run of this PR
            return
        if marker.kind is not Kind.RESET:  # a reset is bookkeeping, not the outcome a claim waits for
            # claims cover the whole commit: any workflow's outcome settles its run's claim
            self._outcomes.add((marker.sha, marker.run_id, marker.run_attempt))
            self._outcome_comments.add((marker.sha, entry.comment_id))
        if not self._ours(marker):
            return
        if marker.tests:
            self._tests[(marker.check, marker.sha)] = marker.tests
        self._handled.add((marker.check, marker.sha, marker.run_id, marker.run_attempt))
        state = self._state(marker.check)
        if marker.fix_pr is not None and marker.fix_pr not in state.fix_prs:
            state.fix_prs.append(marker.fix_pr)
        if marker.kind is Kind.RESET:
            state.since_reset = []
            state.escalation = None
            state.reset = entry
        elif marker.kind is Kind.ESCALATION:
            state.escalation = entry
        elif marker.kind is Kind.DIAGNOSIS:
            self._diagnosed.add((marker.check, marker.sha))
        else:
            state.since_reset.append(entry)
            if marker.kind is Kind.RERUN:
                # Count distinct runs, so a marker repeated by an edit does not count twice.
                identity: object = (
                    marker.run if marker.run_id is not None else (entry.comment_id, entry.index)
                )
                self._reruns[(marker.check, marker.sha)].add(identity)

    # -- per check ----------------------------------------------------------------------------------------

    @property
    def checks(self) -> tuple[str, ...]:
        """Every check the ledger holds a record of (besides claims)."""
        return tuple(self._checks)

    def attempts(self, check: str) -> tuple[Marker, ...]:
        """The heal attempts on ``check`` since its last reset, oldest first."""
        state = self._checks.get(check_key(check))
        if state is None:
            return ()
        return tuple(e.marker for e in state.since_reset if e.marker.kind is Kind.ATTEMPT)

    def attempted_shas(self, check: str) -> tuple[str, ...]:
        """The distinct commits ``check`` was healed on since its last reset, in order."""
        return tuple(dict.fromkeys(marker.sha for marker in self.attempts(check)))

    def attempts_spent(self, check: str) -> int:
        """Heal attempts spent since the last reset: distinct SHAs or the highest recorded number, if more.

        Taking the maximum means a deleted or edited comment in the middle of the history does not hand out a
        fresh budget: the newer attempt markers still carry their numbers.
        """
        attempts = self.attempts(check)
        highest = max((marker.attempt for marker in attempts), default=0)
        return max(len({marker.sha for marker in attempts}), highest)

    def next_attempt(self, check: str) -> int:
        return self.attempts_spent(check) + 1

    def pending_rerun(self, check: str, sha: str, run_id: int) -> int | None:
        """The id of another run whose re-run of ``check`` on ``sha`` the healer requested and has not seen
        finish (no outcome recorded by a later attempt of that run), or None. One commit is often tested by
        several runs (a ``push`` and a ``pull_request`` trigger): until that re-run ends, it is the verdict.
        """
        key = check_key(check)
        for identity in self._reruns.get((key, sha), ()):
            if not isinstance(identity, tuple) or len(identity) != 2:
                continue
            other, attempt = identity
            if not isinstance(other, int) or other == run_id or not isinstance(attempt, int):
                continue
            later = any((key, sha, other, a) in self._handled for a in range(attempt + 1, attempt + 51))
            if not later:
                return other
        return None

    def reruns(self, check: str, sha: str) -> int:
        """Re-runs recorded for (check, commit). Not cleared by a reset: re-runs are bounded per commit."""
        return len(self._reruns.get((check_key(check), sha), ()))

    def escalated(self, check: str) -> bool:
        """Whether the one-time escalation for ``check`` was posted since its last reset."""
        state = self._checks.get(check_key(check))
        return state is not None and state.escalation is not None

    def fix_prs(self, check: str) -> tuple[int, ...]:
        """Every fix PR recorded for ``check``, oldest first (the app closes superseded ones)."""
        state = self._checks.get(check_key(check))
        return tuple(state.fix_prs) if state else ()

    def has_history(self, check: str) -> bool:
        """Whether ``check`` has anything since its last reset that a pass should reset."""
        state = self._checks.get(check_key(check))
        return state is not None and (bool(state.since_reset) or state.escalation is not None)

    def history(self, check: str) -> tuple[PastAttempt, ...]:
        """Attempts and re-runs on ``check`` since its last reset, oldest first (for the escalation frame)."""
        state = self._checks.get(check_key(check))
        if state is None:
            return ()
        return tuple(
            PastAttempt(
                kind=e.marker.kind.value,
                sha=e.marker.sha,
                attempt=e.marker.attempt,
                category=e.marker.category,
                mode=e.marker.mode,
                fix_pr=e.marker.fix_pr,
                result=e.marker.result,
                run_id=e.marker.run_id,
            )
            for e in state.since_reset
        )

    def handled(self, check: str, sha: str, run_id: int | None, run_attempt: int | None) -> bool:
        """Whether this very run (id and attempt) already recorded an outcome for (check, commit)."""
        return (check_key(check), sha, run_id, run_attempt) in self._handled

    def failed_tests(self, check: str, sha: str) -> tuple[str, ...]:
        """The failing tests recorded for (check, commit) by its latest attempt or re-run, if any."""
        return self._tests.get((check_key(check), sha.lower()), ())

    def flaky_tests(self) -> tuple[str, ...]:
        """Every test recorded as flaky on this pull request (any check: a matrix runs the same tests)."""
        return tuple(self._flaky)

    def diagnosed(self, check: str, sha: str) -> bool:
        """Whether a diagnosis-only comment for (check, commit) was posted."""
        return (check_key(check), sha) in self._diagnosed

    def startup_notices(self, sha: str) -> tuple[Entry, ...]:
        """The startup-failure notices on ``sha`` (one per workflow file), oldest first."""
        return tuple(self._startups.get(sha.lower(), ()))

    # -- claims -------------------------------------------------------------------------------------------

    def _settled(self, entry: Entry) -> bool:
        marker = entry.marker
        return (marker.sha, marker.run_id, marker.run_attempt) in self._outcomes or (
            marker.sha,
            entry.comment_id,
        ) in self._outcome_comments

    def held(self, comment_id: int) -> bool:
        """Whether comment ``comment_id`` holds a claim that is not settled: its run may still replace the
        comment's body with its result, so no other run may edit it (an edit would be lost, or would drop
        that run's claim)."""
        if self._held is None:
            self._held = {
                entry.comment_id
                for claims in self._claims.values()
                for entry in claims
                if not self._settled(entry)
            }
        return comment_id in self._held

    def winning_claim(
        self, sha: str, *, claim_id: int | None = None, now: datetime | None = None
    ) -> Entry | None:
        """The earliest live claim on ``sha`` that is not settled yet, or None when no run holds the commit.

        A claim more than :data:`CLAIM_TTL` older than the reference time belongs to a run that died without
        withdrawing it, and is ignored. The reference is this run's own claim (``claim_id``: both times then
        come from GitHub's clock) once it is posted, else ``now``; without either, every claim is live.
        """
        claims = self._claims.get(sha, ())
        own = next((e for e in claims if e.comment_id == claim_id), None) if claim_id is not None else None
        reference = _timestamp(own.created_at) if own is not None else now
        cutoff = reference - CLAIM_TTL if reference is not None else None
        for entry in claims:
            if self._settled(entry):
                continue
            created = _timestamp(entry.created_at)
            if cutoff is not None and created is not None and created < cutoff:
                continue
            return entry
        return None

    def won(self, sha: str, claim_comment_id: int) -> bool:
        """Whether the claim posted in comment ``claim_comment_id`` wins ``sha`` (call after re-reading)."""
        winner = self.winning_claim(sha, claim_id=claim_comment_id)
        return winner is not None and winner.comment_id == claim_comment_id


# A claim is withdrawn by its run when it ends, even on an error; only a run that died (runner lost, job
# killed) leaves one behind. GitHub-hosted jobs end after 6 hours at most, so an older claim is dead.
CLAIM_TTL = timedelta(hours=6)


def _timestamp(text: str) -> datetime | None:
    """An ISO 8601 time as GitHub writes it (``2026-01-01T12:00:00Z``); None when absent or unreadable."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else None


def latest_healer_comment(
    comments: Sequence[Comment], bot_login: str, signer: Signer | None = None
) -> Comment | None:
    """The newest comment by ``bot_login`` that carries markers and holds no unsettled claim: the one a
    reset edits."""
    return Ledger.from_comments(comments, bot_login, signer).latest_comment
