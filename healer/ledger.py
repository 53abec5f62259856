"""Markers ↔ Ledger: the healer's memory, kept in its own pull-request comments.

There is no daemon and no database: every action the healer takes is recorded as a hidden marker in the PR
comment that announces it, and the next run reads the markers back.

The marker format
-----------------
One marker is one line ``<!-- ci-healer:v1 {json} -->``. The JSON object is written with every character
that could end or confuse an HTML comment escaped as ``\\uXXXX``: ``<``, ``>``, ``&``, ``-`` and every
character that is not printable (controls, NUL, line and paragraph separators, bidi and zero-width marks,
lone surrogates). What is left is printable text without a single ``-``, so no check name, however hostile
(``-->``, ``--!>``, ``<!--``, newlines), can close the comment or start another one, and the marker stays on
its line. Printable non-ASCII (accents, CJK, emoji) is kept as it is: a maintainer reading the raw comment
can still read the check name.

Check names longer than :data:`MAX_CHECK_CHARS` characters are stored as a prefix plus a digest of the whole
name (:func:`check_key`); lookups apply the same function, so the budget key stays exact while the comment
stays small.

Where markers are read
----------------------
Only from comments whose author is the configured bot login, and only from the *marker block* at the top of
a comment: the leading lines that are markers (blank lines allowed). The first other line ends the block.
The healer quotes untrusted text (log excerpts, agent notes) further down in its comments; a log line that
imitates a marker is therefore never read as one, even in the bot's own comment. :func:`comment_body` and
:func:`add_markers` write the block.

Counting attempts
-----------------
A check's history is what happened to it since its last ``reset`` (the check passed at the PR's head). The
attempts *spent* are ``max(distinct SHAs healed, highest attempt number recorded)``; the next attempt is
spent + 1. Because every attempt marker records its own number, deleting or editing a healer comment cannot
lower the count unless it held the newest attempt, and then only by that one attempt. ``decide()`` never
plans an attempt beyond ``max-attempts`` whatever the ledger says.

Claims
------
Two runs for one PR can finish together. Before acting, a run posts a comment holding a ``claim`` marker for
(head SHA, run id, run attempt), reads the comments again, and acts only when its claim is the *winning*
one: the earliest (by comment id, then position) claim for that SHA that is not yet settled. A claim is
settled once its run has recorded an outcome for that SHA (any other marker with the same SHA and run
id/attempt, or any other marker for that SHA in the claim's own comment — the run edits its claim comment
into its result). A loser does nothing and deletes its claim comment, so that a later run on the same commit
is not blocked by it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

from healer.model import CheckPlan, Comment, PastAttempt, RunEvent, Verdict

MARKER_PREFIX = "ci-healer:v1"
MAX_CHECK_CHARS = 200
# A marker's JSON is small (a few hundred characters); a longer payload is not one of ours.
_MAX_PAYLOAD_CHARS = 16_384
# The payload cannot contain "<", ">" or "-" (they are escaped), which also keeps this regex linear.
_MARKER_LINE = re.compile(rf"<!-- ci-healer:v1 (\{{[^<>\-]{{0,{_MAX_PAYLOAD_CHARS}}}\}}) -->")
_SHA = re.compile(r"[0-9a-f]{4,64}")
_MAX_INT = 2**53  # what JSON readers elsewhere can hold exactly


class Kind(str, Enum):
    """What a marker records."""

    ATTEMPT = "attempt"  # a heal attempt (fix or agent) on a commit
    RERUN = "rerun"  # a re-run of the failed jobs; never spends heal attempts
    ESCALATION = "escalation"  # the one-time notice that the healer gives up on a check
    RESET = "reset"  # the check passed at the PR's head: its history starts again
    CLAIM = "claim"  # a run announces it is about to act on a commit
    DIAGNOSIS = "diagnosis"  # a diagnosis-only comment (fork PRs), once per (check, commit)


@dataclass(frozen=True)
class Marker:
    """One record of the ledger. ``check`` is empty only for claims, which cover the whole commit."""

    kind: Kind
    sha: str
    check: str = ""
    attempt: int = 0
    run_id: int | None = None
    run_attempt: int | None = None
    category: str = ""
    mode: str = ""
    fix_pr: int | None = None
    result: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))
        if isinstance(self.sha, str):
            object.__setattr__(self, "sha", self.sha.lower())
        if not isinstance(self.sha, str) or not _SHA.fullmatch(self.sha):
            raise ValueError(f"marker sha must be 4 to 64 lowercase hex digits, not {self.sha!r}")
        for name in ("check", "category", "mode", "result"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"marker {name} must be text")
        if self.kind is not Kind.CLAIM and not self.check:
            raise ValueError(f"a {self.kind.value} marker needs a check name")
        object.__setattr__(self, "check", check_key(self.check))
        for name in ("attempt", "run_id", "run_attempt", "fix_pr"):
            value = getattr(self, name)
            optional = name != "attempt"
            if value is None and optional:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_INT:
                raise ValueError(f"marker {name} must be a whole number from 0 to 2**53, not {value!r}")

    @property
    def run(self) -> tuple[int | None, int | None]:
        """The run identity (run id, run attempt) that wrote the marker."""
        return (self.run_id, self.run_attempt)


def check_key(name: str) -> str:
    """The budget key of a check name: the name itself, or a prefix plus a digest when it is very long."""
    if len(name) <= MAX_CHECK_CHARS:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{name[: MAX_CHECK_CHARS - 18]}…#{digest}"


# -- encoding -----------------------------------------------------------------------------------------------

_FIELDS = (  # (attribute, JSON key), in the order they are written
    ("kind", "kind"),
    ("check", "check"),
    ("sha", "sha"),
    ("attempt", "attempt"),
    ("run_id", "run"),
    ("run_attempt", "run_attempt"),
    ("category", "category"),
    ("mode", "mode"),
    ("fix_pr", "fix_pr"),
    ("result", "result"),
)
_NEEDS_LOOK = re.compile(r"[^\x20-\x7e]|[<>&\-]")


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    if char.isprintable() and char not in "<>&-":
        return char
    code = ord(char)
    if code > 0xFFFF:  # JSON spells characters beyond the BMP as a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def encode_marker(marker: Marker) -> str:
    """The marker as one line ``<!-- ci-healer:v1 {json} -->`` that no field value can break out of."""
    record: dict[str, Any] = {}
    for attr, key in _FIELDS:
        value = getattr(marker, attr)
        if isinstance(value, Kind):
            value = value.value
        if value is None or value == "" or (attr == "attempt" and value == 0):
            continue
        record[key] = value
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    # Every unsafe character sits inside a JSON string (numbers are never negative), where \uXXXX is valid.
    return f"<!-- {MARKER_PREFIX} {_NEEDS_LOOK.sub(_escape_char, text)} -->"


def _marker_from_record(record: object) -> Marker | None:
    if not isinstance(record, dict):
        return None
    values: dict[str, Any] = {}
    for attr, key in _FIELDS:
        if key in record:
            values[attr] = record[key]
    try:
        return Marker(**values)
    except (TypeError, ValueError):
        return None


def _leading_lines(body: str) -> Iterable[str]:
    """The lines of the marker block: from the top, while they are blank or marker-shaped."""
    start = 0
    while start <= len(body):
        end = body.find("\n", start)
        if end < 0:
            end = len(body)
        line = body[start:end].strip()
        start = end + 1
        if not line:
            if end == len(body):
                return
            continue
        if not line.startswith(f"<!-- {MARKER_PREFIX} "):
            return
        yield line


def decode_markers(body: str) -> list[Marker]:
    """The markers in a comment's marker block; anything malformed is skipped. Never raises."""
    if not isinstance(body, str):
        return []
    markers: list[Marker] = []
    for line in _leading_lines(body):
        match = _MARKER_LINE.fullmatch(line)
        if not match:
            continue
        try:
            record = json.loads(match.group(1))
        except (ValueError, RecursionError):
            continue
        marker = _marker_from_record(record)
        if marker is not None:
            markers.append(marker)
    return markers


def comment_body(markers: Sequence[Marker], text: str = "") -> str:
    """One comment body: the marker block (several checks' markers) on top, then the visible text."""
    block = "\n".join(encode_marker(marker) for marker in markers)
    if not text:
        return block
    return f"{block}\n\n{text}" if block else text


def add_markers(body: str, markers: Sequence[Marker], note: str = "") -> str:
    """``body`` with ``markers`` added to its marker block (and ``note`` to its text), to edit a comment.

    Used to record a reset in the previous healer comment (a reset adds no comment), and to turn a claim
    comment into the run's result comment.
    """
    existing = decode_markers(body)
    lines = body.split("\n")
    first_text = len(lines)
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped and not stripped.startswith(f"<!-- {MARKER_PREFIX} "):
            first_text = index
            break
    text = "\n".join(lines[first_text:]).strip("\n")
    if note:
        text = f"{text}\n\n{note}" if text else note
    return comment_body([*existing, *markers], text)


_KIND_OF_VERDICT = {Verdict.HEAL: Kind.ATTEMPT, Verdict.RERUN: Kind.RERUN, Verdict.ESCALATE: Kind.ESCALATION}


def record(plan: CheckPlan, run: RunEvent, *, fix_pr: int | None = None, result: str = "") -> Marker | None:
    """The marker that records what was done about one check (None for a skip that posts nothing).

    ``result`` is a short word for the outcome: ``opened``, ``draft``, ``refused``, ``failed``…
    """
    kind = _KIND_OF_VERDICT.get(plan.verdict) or (Kind.DIAGNOSIS if plan.diagnose else None)
    if kind is None:
        return None
    diagnosis = plan.diagnosis
    return Marker(
        kind,
        run.head_sha,
        plan.check,
        attempt=plan.attempt,
        run_id=run.run_id,
        run_attempt=run.run_attempt,
        category=diagnosis.category.value if diagnosis else "",
        mode=plan.mode.value if plan.mode else "",
        fix_pr=fix_pr,
        result=result,
    )


def claim_marker(sha: str, run_id: int, run_attempt: int) -> Marker:
    """The claim a run writes for the PR's head commit before acting."""
    return Marker(Kind.CLAIM, sha, run_id=run_id, run_attempt=run_attempt)


def claim_body(sha: str, run_id: int, run_attempt: int, text: str = "") -> str:
    """The body of the claim comment (the run's one new comment, edited into its result afterwards)."""
    return comment_body([claim_marker(sha, run_id, run_attempt)], text)


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

    def __init__(self, entries: Sequence[Entry], latest_comment: Comment | None = None) -> None:
        self.entries: tuple[Entry, ...] = tuple(entries)
        self.latest_comment = latest_comment  # the newest healer comment with markers (a reset edits it)
        self._checks: dict[str, _CheckState] = {}
        self._reruns: dict[tuple[str, str], set[object]] = defaultdict(set)
        self._handled: set[tuple[str, str, int | None, int | None]] = set()
        self._diagnosed: set[tuple[str, str]] = set()
        self._claims: dict[str, list[Entry]] = defaultdict(list)
        self._outcomes: set[tuple[str, int | None, int | None]] = set()  # (sha, run id, attempt) that acted
        self._outcome_comments: set[tuple[str, int]] = set()  # (sha, comment id) holding an outcome
        for entry in self.entries:
            self._add(entry)

    @classmethod
    def from_comments(cls, comments: Sequence[Comment], bot_login: str) -> Ledger:
        """The ledger from a PR's comments, trusting only those whose author is ``bot_login``.

        Linear in the number of comments (only each trusted comment's marker block is read).
        """
        login = bot_login.strip().casefold()
        entries: list[Entry] = []
        latest: Comment | None = None
        # GitHub lists comments oldest first and ids grow with time; sorting makes the order explicit (and is
        # linear on already sorted input).
        for comment in sorted(comments, key=lambda c: c.id):
            if not login or comment.author.casefold() != login:
                continue
            markers = decode_markers(comment.body)
            if not markers:
                continue
            latest = comment
            entries.extend(
                Entry(marker, comment.id, index, comment.created_at) for index, marker in enumerate(markers)
            )
        return cls(entries, latest)

    @classmethod
    def empty(cls) -> Ledger:
        return cls(())

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
        if marker.kind is not Kind.RESET:  # a reset is bookkeeping, not the outcome a claim waits for
            self._outcomes.add((marker.sha, marker.run_id, marker.run_attempt))
            self._outcome_comments.add((marker.sha, entry.comment_id))
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

    def diagnosed(self, check: str, sha: str) -> bool:
        """Whether a diagnosis-only comment for (check, commit) was posted."""
        return (check_key(check), sha) in self._diagnosed

    # -- claims -------------------------------------------------------------------------------------------

    def _settled(self, entry: Entry) -> bool:
        marker = entry.marker
        return (marker.sha, marker.run_id, marker.run_attempt) in self._outcomes or (
            marker.sha,
            entry.comment_id,
        ) in self._outcome_comments

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


def latest_healer_comment(comments: Sequence[Comment], bot_login: str) -> Comment | None:
    """The newest comment by ``bot_login`` that carries markers: the one a reset edits."""
    return Ledger.from_comments(comments, bot_login).latest_comment


def reset_markers(checks: Iterable[str], sha: str, run_id: int, run_attempt: int) -> list[Marker]:
    """The ``reset`` markers for the checks that passed at the PR's head."""
    return [Marker(Kind.RESET, sha, check, run_id=run_id, run_attempt=run_attempt) for check in checks]
