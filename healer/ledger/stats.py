"""The healer's figures over a window, from the markers in its comments across a repository (pure).

``healer report`` reads every comment of the repository since a date in one listing, keeps the bot's, and
hands them here with the pull requests it listed. Markers are trusted as the ledger trusts them: only in
comments by the bot login, only in the marker block (a ``ledger-key`` binds signatures to one pull request,
so a report, which reads many, does not check them; it reports, it decides nothing).

Times: a marker's time is its comment's creation time, except a ``reset``, which the healer writes by editing
its previous comment: its time is that comment's last edit (``updated_at``), the best a listing can tell.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from healer.ledger.markers import Kind, Marker, decode_markers
from healer.model import Comment, Figures, FixPull, OpenEscalation, PullRequest, TrunkEpisode

FIX_BRANCH = "ci-healer/"
RULE_BRANCH = "ci-healer/rule-"


@dataclass(frozen=True)
class Event:
    """One trusted marker with where and when it was written."""

    marker: Marker
    pull: int
    comment_id: int
    index: int
    at: str  # ISO 8601
    url: str = ""


def events_of(comments: Iterable[Comment], bot_login: str) -> list[Event]:
    """The trusted markers of ``comments`` (each with its issue number), in the order they happened."""
    login = bot_login.strip().casefold()
    found: list[Event] = []
    for comment in comments:
        if not login or comment.author.casefold() != login or not comment.issue:
            continue
        for index, marker in enumerate(decode_markers(comment.body)):
            at = comment.updated_at if marker.kind is Kind.RESET else comment.created_at
            found.append(
                Event(marker, comment.issue, comment.id, index, at or comment.created_at, comment.html_url)
            )
    return sorted(found, key=lambda e: (e.at, e.comment_id, e.index))


def _state(pull: PullRequest) -> str:
    return "merged" if pull.merged else ("open" if pull.state == "open" else "closed")


def _fix_target(head_ref: str) -> int:
    """``ci-healer/12-abc1234`` → 12 (0 for anything else)."""
    rest = head_ref[len(FIX_BRANCH) :] if head_ref.startswith(FIX_BRANCH) else ""
    number = rest.partition("-")[0]
    return int(number) if number.isdigit() else 0


def figures(
    comments: Sequence[Comment],
    pulls: Sequence[PullRequest],
    *,
    bot_login: str,
    since: str,
    until: str,
    notes: Sequence[str] = (),
) -> Figures:
    """Aggregate the window ``since`` … ``until`` (ISO 8601 times) from the repository's comments and the pull
    requests listed for it."""
    events = [e for e in events_of(comments, bot_login) if e.at >= since]
    by_number = {p.number: p for p in pulls}
    attempts: dict[tuple[int, str, str, str], Event] = {}  # (pull, workflow, check, sha) → its attempt
    reruns: dict[tuple[int, str, str, str, int | None, int | None], Event] = {}
    escalations: dict[tuple[int, str, str], Event] = {}  # open ones: removed by a later reset
    escalated = 0
    first_failure: dict[tuple[int, str, str], str] = {}
    hours: list[float] = []
    flaky: Counter[str] = Counter()
    trunk: dict[tuple[str, int | None], set[int]] = defaultdict(set)
    lifted: set[str] = set()
    later: dict[tuple[int, str, str], list[Event]] = defaultdict(list)  # (pull, check, sha) → what followed
    for event in events:
        m = event.marker
        key = (event.pull, m.workflow, m.check)
        if m.kind is Kind.CLAIM:
            continue
        later[(event.pull, m.check, m.sha)].append(event)
        if m.kind is Kind.ATTEMPT:
            attempts.setdefault((event.pull, m.workflow, m.check, m.sha), event)
        elif m.kind is Kind.RERUN:
            reruns.setdefault((event.pull, m.workflow, m.check, m.sha, m.run_id, m.run_attempt), event)
        elif m.kind is Kind.ESCALATION:
            if key not in escalations:
                escalated += 1
            escalations[key] = event
        elif m.kind is Kind.FLAKY:
            flaky.update(m.tests)
        elif m.kind is Kind.TRUNK:
            if m.result == "lifted":
                lifted.add(m.check)
            else:
                trunk[(m.check, m.run_id)].add(event.pull)
        if m.kind in (Kind.ATTEMPT, Kind.RERUN, Kind.ESCALATION, Kind.TRUNK):
            first_failure.setdefault(key, event.at)
        elif m.kind is Kind.RESET:
            escalations.pop(key, None)
            start = first_failure.pop(key, None)
            if start is not None:
                hours.append(_hours(start, event.at))

    results: Counter[str] = Counter(e.marker.result or "unknown" for e in attempts.values())
    tokens = [int(getattr(e.marker, "tokens", 0) or 0) for e in attempts.values()]
    fix_pulls: dict[int, FixPull] = {}
    for event in attempts.values():
        number = event.marker.fix_pr
        if number is None or number in fix_pulls:
            continue
        pull = by_number.get(number)
        fix_pulls[number] = FixPull(
            number,
            pull.title if pull else "",
            pull.html_url if pull else "",
            _state(pull) if pull else "unknown",
            event.pull,
            pull.head_ref if pull else "",
            pull.author if pull else "",
        )
    for pull in pulls:
        fix = pull.head_ref.startswith(FIX_BRANCH) and not pull.head_ref.startswith(RULE_BRANCH)
        if fix and pull.number not in fix_pulls:
            fix_pulls[pull.number] = FixPull(
                pull.number,
                pull.title,
                pull.html_url,
                _state(pull),
                _fix_target(pull.head_ref),
                pull.head_ref,
                pull.author,
            )
    rule_pulls = tuple(
        FixPull(p.number, p.title, p.html_url, _state(p), 0, p.head_ref)
        for p in sorted(pulls, key=lambda p: p.number)
        if p.head_ref.startswith(RULE_BRANCH)
    )
    open_escalations = tuple(
        OpenEscalation(
            e.pull,
            e.marker.check,
            e.marker.sha,
            e.at,
            e.url,
            by_number[e.pull].title if e.pull in by_number else "",
        )
        for e in escalations.values()
        if e.pull not in by_number or by_number[e.pull].state == "open"
    )
    return Figures(
        since=since,
        until=until,
        pulls=len({e.pull for e in events if e.marker.kind is not Kind.CLAIM}),
        attempts=len(attempts),
        attempt_results=dict(sorted(results.items())),
        fix_pulls=tuple(sorted(fix_pulls.values(), key=lambda p: p.number)),
        reruns=len(reruns),
        rerun_outcomes=_rerun_outcomes(reruns.values(), later),
        escalations=escalated,
        open_escalations=tuple(sorted(open_escalations, key=lambda e: (e.pull, e.check))),
        hours_to_green=tuple(hours),
        flaky_tests=dict(flaky.most_common()),
        tokens=sum(tokens),
        attempts_with_tokens=sum(1 for t in tokens if t > 0),
        rule_pulls=rule_pulls,
        trunk_episodes=tuple(
            TrunkEpisode(check, run, tuple(sorted(prs)), check in lifted)
            for (check, run), prs in sorted(trunk.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0))
        ),
        notes=tuple(notes),
    )


def _rerun_outcomes(
    reruns: Iterable[Event], later: Mapping[tuple[int, str, str], list[Event]]
) -> dict[str, int]:
    """How each re-run ended: ``passed`` (a reset, or a flaky record of the commit), ``failed-again`` (an
    attempt or escalation on the same commit after it), else ``pending`` (nothing recorded yet)."""
    outcomes: Counter[str] = Counter({"passed": 0, "flaky": 0, "failed-again": 0, "pending": 0})
    for rerun in reruns:
        m = rerun.marker
        after = [
            e
            for e in later.get((rerun.pull, m.check, m.sha), [])
            if (e.at, e.comment_id, e.index) > (rerun.at, rerun.comment_id, rerun.index)
        ]
        kinds = {e.marker.kind for e in after}
        if Kind.FLAKY in kinds:
            outcomes["flaky"] += 1
        elif kinds & {Kind.ATTEMPT, Kind.ESCALATION} or any(
            e.marker.kind is Kind.RERUN and e.marker.run_attempt != m.run_attempt for e in after
        ):
            outcomes["failed-again"] += 1
        elif Kind.RESET in kinds:  # the check passed on the same commit
            outcomes["passed"] += 1
        else:
            outcomes["pending"] += 1
    return dict(outcomes)


def _hours(start: str, end: str) -> float:
    try:
        one = datetime.fromisoformat(start.replace("Z", "+00:00"))
        two = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return max(0.0, (two - one).total_seconds() / 3600)
