"""A heal's result as the heal bundle carries it (:mod:`healer.change.bundle`), and back.

The heal stage (a job without the write token) turns its :class:`HealResult` into a plain JSON record; the
deliver stage (the job with the token, where no code of the pull request runs) turns the record back into a
result to post and record. That record comes from a machine where the pull request's code ran, so on the way
back every value is taken as untrusted: each field is type-checked and bounded, a wrong one is dropped (the
result says less, never more), and the healer-written sentence ``why_not`` has its mentions and links defused
and is clipped, since a forged one would otherwise be Markdown the deliver job posts. Notes, verification
output and set-up output are shown fenced as always.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from healer.change.context import HealResult
from healer.change.outcomes import ProcessResult, SetupResult, Spend, Verification
from healer.text.spans import defuse, one_line

RECORD_VERSION = 1
_SHORT = 2_000  # a command, a sentence
_LONG = 64 * 1024  # notes, output
_MANY = 200  # items of a list (files, commands)
_VERIFY_STATES = ("passed", "failed", "timed-out", "unverified")


def record_of(result: HealResult, *, ready: bool) -> dict[str, Any]:
    """The record of ``result`` for the bundle. ``ready``: the change passed the guard and verification ran,
    so the deliver stage is asked to deliver it (else the record only says what happened)."""
    agent = result.agent
    verification = result.verification
    setup = result.setup
    spend = result.spend
    return {
        "version": RECORD_VERSION,
        "ready": ready,
        "frame_path": result.frame_path,
        "fix_commands": list(result.fix_commands),
        "fixed_checks": list(result.fixed_checks),
        "agent_checks": list(result.agent_checks),
        "agent": None
        if agent is None
        else {
            "command": agent.command,
            "returncode": agent.returncode,
            "seconds": round(agent.seconds, 3),
            "timed_out": agent.timed_out,
        },
        "verification": None
        if verification is None
        else {
            "state": verification.state,
            "command": verification.command,
            "exit_code": verification.exit_code,
            "output": verification.output,
            "reason": verification.reason,
        },
        "why_not": result.why_not,
        "notes": result.notes,
        "diffstat": result.diffstat,
        "refused": result.refused,
        "allowed": list(result.allowed),
        "files": list(result.files),
        "setup": None
        if setup is None
        else {
            "commands": list(setup.commands),
            "failed": setup.failed,
            "exit_code": setup.exit_code,
            "timed_out": setup.timed_out,
            "output": setup.output,
        },
        "learned": list(result.learned) if result.learned else None,
        "spend": None
        if spend is None
        else {
            "tokens": spend.tokens,
            "requests": spend.requests,
            "refused": spend.refused,
            "stopped": spend.stopped,
            "limit": spend.limit,
            "estimated": spend.estimated,
            "ended_after_refusal": spend.ended_after_refusal,
        },
    }


def is_ready(record: Mapping[str, Any]) -> bool:
    """Whether the heal stage asks for the change to be delivered."""
    return record.get("ready") is True


def result_of(record: Mapping[str, Any]) -> HealResult:
    """The result a record says, every field checked (see the module doc); not yet delivered."""
    return HealResult(
        False,
        frame_path=_text(record.get("frame_path"), _SHORT),
        fix_commands=_texts(record.get("fix_commands")),
        fixed_checks=_texts(record.get("fixed_checks")),
        agent_checks=_texts(record.get("agent_checks")),
        agent=_agent(record.get("agent")),
        verification=_verification(record.get("verification")),
        why_not=_sentence(record.get("why_not")),
        notes=_text(record.get("notes"), _LONG),
        diffstat=_text(record.get("diffstat"), _LONG),
        refused=record.get("refused") is True,
        allowed=_texts(record.get("allowed")),
        files=_texts(record.get("files"), limit=_LONG),
        setup=_setup(record.get("setup")),
        learned=_learned(record.get("learned")),
        spend=_spend(record.get("spend")),
    )


# -- checked fields --------------------------------------------------------------------------------------


def _sentence(value: object) -> str:
    """A sentence the healer would have written (why nothing was delivered, why it was not verified), as a
    forged one may hold anything: one line (no heading, list or paragraph of its own), no raw HTML (``<``
    escaped), mentions and links defused, clipped."""
    text = " ".join(one_line(_text(value, _SHORT)).split())
    return defuse(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def _text(value: object, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _texts(value: object, *, limit: int = _SHORT) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(item[:limit] for item in value[:_MANY] if isinstance(item, str))


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53 else 0


def _code(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and -256 < value < 256 else None


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return min(max(float(value), 0.0), 7 * 24 * 3600.0)


def _agent(value: object) -> ProcessResult | None:
    if not isinstance(value, dict):
        return None
    timed_out = value.get("timed_out") is True
    return ProcessResult(
        command=_text(value.get("command"), _SHORT),
        returncode=None if timed_out else _code(value.get("returncode")),
        stdout="",
        stderr="",
        seconds=_seconds(value.get("seconds")),
        timed_out=timed_out,
    )


def _verification(value: object) -> Verification | None:
    if not isinstance(value, dict) or value.get("state") not in _VERIFY_STATES:
        return None
    return Verification(
        state=str(value["state"]),
        command=_text(value.get("command"), _SHORT),
        exit_code=_code(value.get("exit_code")),
        output=_text(value.get("output"), _LONG),
        reason=_sentence(value.get("reason")),
    )


def _setup(value: object) -> SetupResult | None:
    if not isinstance(value, dict):
        return None
    return SetupResult(
        commands=_texts(value.get("commands")),
        failed=_text(value.get("failed"), _SHORT),
        exit_code=_code(value.get("exit_code")),
        timed_out=value.get("timed_out") is True,
        output=_text(value.get("output"), _LONG),
    )


def _learned(value: object) -> tuple[str, str] | None:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return (value[0][:_SHORT], value[1][:_SHORT])
    return None


def _spend(value: object) -> Spend | None:
    if not isinstance(value, dict):
        return None
    stopped = value.get("stopped")
    after = value.get("ended_after_refusal")
    return Spend(
        tokens=_count(value.get("tokens")),
        requests=_count(value.get("requests")),
        refused=_count(value.get("refused")),
        stopped=stopped
        if stopped in ("agent-token-budget", "agent-request-budget", "max-agent-tokens-per-pr")
        else "",
        limit=_count(value.get("limit")),
        estimated=value.get("estimated") is True,
        ended_after_refusal=None if after is None else _seconds(after),
    )
