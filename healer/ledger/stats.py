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
from dataclasses import dataclass, replace
from datetime import datetime

from healer.ledger.entries import UNTRIED
from healer.ledger.markers import Kind, Marker, decode_markers
from healer.ledger.trunk import LIFTED
from healer.model import (
    VERIFIED,
    Comment,
    Figures,
    FixPull,
    HealMode,
    OpenEscalation,
    PullRequest,
    TrunkEpisode,
    fix_branch_target,
)

RULE_BRANCH = "ci-healer/rule-"
BUDGET = "budget"  # the result of an attempt a budget stopped before it delivered anything


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
    return fix_branch_target(head_ref) or 0


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
    trunk: list[Event] = []
    untried: set[tuple[int, str, str]] = set()  # (pull, workflow, check) with nothing to try
    proofs: dict[int, list[Marker]] = defaultdict(list)  # fix PR → its CI's verdicts, in order
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
        elif m.kind is Kind.ESCALATION and m.result == UNTRIED:
            untried.add(key)  # the short notice of a check with nothing to try: no escalation to act on
        elif m.kind is Kind.ESCALATION:
            if key not in escalations:
                escalated += 1
            escalations[key] = event
        elif m.kind is Kind.FLAKY:
            flaky.update(m.tests)
        elif m.kind is Kind.TRUNK:
            trunk.append(event)
        elif m.kind is Kind.PROOF and m.fix_pr is not None:
            proofs[m.fix_pr].append(m)
        if m.kind in (Kind.ATTEMPT, Kind.RERUN, Kind.ESCALATION, Kind.TRUNK):
            first_failure.setdefault(key, event.at)
        elif m.kind is Kind.RESET:
            escalations.pop(key, None)
            start = first_failure.pop(key, None)
            if start is not None:
                hours.append(_hours(start, event.at))

    results: Counter[str] = Counter(_result(e.marker, by_number) for e in attempts.values())
    tokens: dict[
        tuple[int, str, int | None, int | None], int
    ] = {}  # one heal's figure, in each check's marker
    for e in attempts.values():
        run = (e.pull, e.marker.sha, e.marker.run_id, e.marker.run_attempt)
        tokens[run] = max(tokens.get(run, 0), e.marker.tokens)
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
            author=pull.author if pull else "",
            draft=bool(pull and pull.draft),
        )
    for pull in pulls:
        if fix_branch_target(pull.head_ref) is not None and pull.number not in fix_pulls:
            fix_pulls[pull.number] = FixPull(
                pull.number,
                pull.title,
                pull.html_url,
                _state(pull),
                _fix_target(pull.head_ref),
                pull.head_ref,
                author=pull.author,
                draft=pull.draft,
            )
    for number, verdicts in proofs.items():
        if number in fix_pulls:
            fix_pulls[number] = replace(fix_pulls[number], ci=_ci_verdict(verdicts))
    became = _what_became(attempts.values(), fix_pulls)
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
        attempt_fixes=became,
        fix_pulls=tuple(sorted(fix_pulls.values(), key=lambda p: p.number)),
        reruns=len(reruns),
        rerun_outcomes=_rerun_outcomes(reruns.values(), later),
        escalations=escalated,
        untried=len(untried),
        untried_checks=tuple(sorted({(pull, check) for pull, _, check in untried})),
        open_escalations=tuple(sorted(open_escalations, key=lambda e: (e.pull, e.check))),
        hours_to_green=tuple(hours),
        flaky_tests=dict(flaky.most_common()),
        tokens=sum(tokens.values()),
        attempts_with_tokens=sum(1 for e in attempts.values() if e.marker.tokens > 0),
        tokens_unknown=sum(1 for e in attempts.values() if _tokens_unknown(e.marker)),
        budget_stops=sum(1 for e in attempts.values() if e.marker.stopped or e.marker.result == BUDGET),
        rule_pulls=rule_pulls,
        trunk_episodes=_episodes(trunk),
        notes=tuple(notes),
    )


def _what_became(attempts: Iterable[Event], fix_pulls: Mapping[int, FixPull]) -> dict[str, int]:
    """What became of each attempt's fix pull request, from the records: its CI's latest verdict
    (``ci-passed``, ``ci-failed``) and whether it is ``ready`` (open, not a draft) or ``merged``."""
    became: Counter[str] = Counter()
    for event in attempts:
        fix = fix_pulls.get(event.marker.fix_pr) if event.marker.fix_pr is not None else None
        if fix is None:
            continue
        if fix.ci:
            became[f"ci-{fix.ci}"] += 1
        if fix.state == "merged" or (fix.state == "open" and not fix.draft):
            became[fix.state if fix.state == "merged" else "ready"] += 1
    return dict(sorted(became.items()))


def _result(marker: Marker, pulls: Mapping[int, PullRequest]) -> str:
    """An attempt's result word. A budget stop recorded before markers had ``stopped`` reads ``budget``
    even when its change was delivered: its fix PR says so, ready when verified, a draft when not."""
    if marker.result == BUDGET and not marker.stopped and marker.fix_pr is not None:
        fix = pulls.get(marker.fix_pr)
        return VERIFIED if fix is not None and not fix.draft else "unverified"
    return marker.result or "unknown"


# What an attempt's marker says without an agent's token count: no agent ran (a fix rule; delivery: none
# framed it for a later step), or the model proxy counted (a budget stop, an agent that asked it nothing).
_TOKENS_KNOWN = frozenset({"framed", "no-model", BUDGET})


def _tokens_unknown(marker: Marker) -> bool:
    """Whether an attempt's agent ran and its token use could not be read (no proxy between it and its
    model): 0 tokens is a count, not a gap, when no agent ran or the proxy counted nothing."""
    if marker.tokens or marker.stopped or marker.result in _TOKENS_KNOWN:
        return False
    return marker.mode != HealMode.FIX.value


def _episodes(notices: Sequence[Event]) -> tuple[TrunkEpisode, ...]:
    """Broken-trunk episodes: one per check and base-branch run that failed it, with the pull requests it
    held. The lift edits the notice's markers in place (``result`` ``lifted``): a lifted marker belongs to
    the episode of its run, or, written before lifts kept the broken run, to the newest episode of its check
    that began before it (its run is then the base branch's green one); else it is an episode of its own."""
    held: dict[tuple[str, int], set[int]] = defaultdict(set)
    lifted: set[tuple[str, int]] = set()
    for event in sorted(notices, key=lambda e: e.marker.result == LIFTED):  # the broken ones first
        m = event.marker
        key = (m.check, m.run_id or 0)
        if m.result == LIFTED and key not in held:
            earlier = [run for check, run in held if check == m.check and run <= key[1]]
            key = (m.check, max(earlier)) if earlier else key
        held[key].add(event.pull)
        if m.result == LIFTED:
            lifted.add(key)
    return tuple(
        TrunkEpisode(check, run or None, tuple(sorted(pulls)), (check, run) in lifted)
        for (check, run), pulls in sorted(held.items())
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


def latest_verdicts(proofs: Iterable[Marker], head_sha: str) -> dict[str, str]:
    """The latest CI verdict of each workflow at ``head_sha`` among a fix PR's ``proof`` markers (in the order
    they were recorded): workflow → ``passed`` or ``failed``."""
    return {p.workflow: p.result for p in proofs if p.sha == head_sha.lower()}


def _ci_verdict(proofs: Sequence[Marker]) -> str:
    """A fix PR's CI at the commit its latest verdict tested: ``failed`` when the latest verdict of any
    workflow failed there, else ``passed``."""
    return "failed" if "failed" in latest_verdicts(proofs, proofs[-1].sha).values() else "passed"


def _hours(start: str, end: str) -> float:
    try:
        one = datetime.fromisoformat(start.replace("Z", "+00:00"))
        two = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return max(0.0, (two - one).total_seconds() / 3600)
