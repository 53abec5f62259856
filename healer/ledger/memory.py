"""Memory across attempts: what each earlier attempt changed, what the agent said, and why it did not work.

The healer keeps no state of its own, so an attempt's account travels in the comment that records it: one
hidden line right under the ledger's marker block, ``<!-- ci-healer:memory:v1 <base64> -->``, holding a
compressed JSON record (a bounded diff, the agent's note, the verification output or the reason nothing was
delivered). Attempt *k* reads the accounts of attempts 1 … *k*-1 of the same checks from the comments the run
lists anyway for the ledger: no extra request.

Only comments by the bot login are read, and only the line directly under their marker block (an agent's
note quoted further down cannot pass for one). What the record holds is still untrusted text (a diff and
notes the agent wrote): the frame fences it like a log excerpt.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, fields, replace
from typing import Any

from healer.ledger.fixrecords import ledger_order
from healer.ledger.learned import lesson_from
from healer.ledger.markers import Kind, Marker, Signer, check_key, decode_markers
from healer.model import Account, CheckPlan, Comment, Lesson
from healer.text.clip import head, tail

PREFIX = "ci-healer:memory:v1"
_LINE = re.compile(rf"^<!-- {re.escape(PREFIX)} ([A-Za-z0-9+/=]{{1,16384}}) -->$")
_MARKER = "<!-- ci-healer:v1 "
# What one record keeps (characters); the frame clips further (healer.text.clip.for_frame).
DIFF_LIMIT, NOTES_LIMIT, WHY_LIMIT = 3000, 1200, 1500
_MAX_JSON = 64 * 1024


def encode(account: Account) -> str:
    """The hidden line that carries ``account`` (bounded: a few KiB at most)."""
    record = asdict(account)
    record.update(
        diff=head(account.diff, DIFF_LIMIT),
        notes=tail(account.notes, NOTES_LIMIT),
        why=tail(account.why, WHY_LIMIT),
    )
    data = zlib.compress(json.dumps(record, ensure_ascii=False).encode(), 9)
    return f"<!-- {PREFIX} {base64.b64encode(data).decode()} -->"


def account_of(
    result: Any,
    heals: Sequence[CheckPlan],
    sha: str,
    word: str,
    fix_pr: int | None,
    lesson: Lesson | None = None,
) -> str:
    """The hidden line that tells the next attempt what ``result`` (a :class:`healer.heal.attempt.HealResult`)
    changed and why it did not (yet) work."""
    why = result.why_not
    verification = result.verification
    if verification is not None and verification.state in ("failed", "timed-out"):
        why = f"{verification.describe()}:\n{verification.output}"
    elif verification is not None and not verification.passed:
        why = verification.describe()
    if result.setup is not None and not result.setup.ok:
        why = f"{result.setup.describe()}:\n{result.setup.output}\n{why}".strip()
    spend = getattr(result, "spend", None)
    if spend is not None and spend.stopped:
        # the change it made before the budget stopped it is in `diff`: the next attempt can start from it
        why = f"the agent was stopped by its budget: {spend.describe()}\n{why}".strip()
    return encode(
        Account(
            checks=tuple(p.check for p in heals),
            attempt=max((p.attempt for p in heals), default=0),
            sha=sha,
            result=word,
            fix_pr=fix_pr,
            diffstat=result.diffstat,
            diff=result.diff,
            notes=result.notes,
            why=why,
            lesson=lesson,
        )
    )


def tokens_spent(markers: Iterable[Marker]) -> int:
    """The model tokens the pull request's heal attempts spent, from their markers: one heal records the same
    figure in the marker of each check it healed, so each run (commit, run id and attempt) counts once.
    Markers older than the ``tokens`` field count 0."""
    runs: dict[tuple[str, int | None, int | None], int] = {}
    for marker in markers:
        if marker.kind is Kind.ATTEMPT and marker.tokens:
            key = (marker.sha, marker.run_id, marker.run_attempt)
            runs[key] = max(runs.get(key, 0), marker.tokens)
    return sum(runs.values())


def decode(body: str) -> Account | None:
    """The account in a comment: the first line after its marker block, if it is one. Never raises."""
    line = ""
    for raw in body.split("\n", 64)[:64]:
        stripped = raw.strip()
        if not stripped or stripped.startswith(_MARKER):
            continue
        line = stripped
        break
    match = _LINE.match(line)
    if not match:
        return None
    try:
        inflater = zlib.decompressobj()
        data = inflater.decompress(base64.b64decode(match.group(1), validate=True), _MAX_JSON)
        record = json.loads(data)
    except (binascii.Error, zlib.error, ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    try:
        values = {f.name: record.get(f.name) for f in fields(Account)}
        values["checks"] = tuple(str(c) for c in values["checks"] or ())
        for name in ("sha", "result", "diffstat", "diff", "notes", "why"):
            values[name] = str(values[name] or "")
        values["attempt"] = int(values["attempt"] or 0)
        values["fix_pr"] = int(values["fix_pr"]) if values["fix_pr"] is not None else None
        values["lesson"] = lesson_from(values["lesson"])
    except (TypeError, ValueError):
        return None
    return Account(**values)


def earlier_accounts(
    comments: Sequence[Comment], bot_login: str, checks: Sequence[CheckPlan], signer: Signer | None = None
) -> tuple[Account, ...]:
    """The accounts of the earlier attempts of ``checks`` since their last reset, oldest first.

    An account counts only in a comment whose own marker block records that attempt (verified with
    ``signer`` when the ledger is signed): a comment that merely looks like the healer's cannot add one."""
    login = bot_login.strip().casefold()
    names = {plan.check for plan in checks}
    # the commits each check was healed on since its last reset (the ledger's history)
    healed = {(plan.check, past.sha) for plan in checks for past in plan.history if past.kind == "attempt"}
    found: list[Account] = []
    for comment in ledger_order(comments):
        if not login or comment.author.casefold() != login or PREFIX not in comment.body:
            continue
        account = decode(comment.body)
        if account is None or not names.intersection(account.checks):
            continue
        recorded = {(m.check, m.sha) for m in decode_markers(comment.body, signer) if m.kind is Kind.ATTEMPT}
        if any(
            (n, account.sha) in healed and (check_key(n), account.sha) in recorded for n in account.checks
        ):
            found.append(account)
    return tuple(found)


def with_why(body: str, last: str) -> str:
    """``body`` with ``last`` added at the end of its account's ``why`` (what the next attempt reads about
    this one; the end is what a clipped ``why`` keeps); ``body`` unchanged when it holds no account. Used
    when a fix pull request's CI failed after the attempt's comment was written."""
    account = decode(body)
    if account is None:
        return body
    updated = encode(replace(account, why=f"{account.why}\n{last}".strip()))
    lines = body.split("\n")
    for index, line in enumerate(lines):
        if _LINE.match(line.strip()):
            lines[index] = updated
            return "\n".join(lines)
    return body
