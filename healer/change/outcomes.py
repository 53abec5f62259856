"""What the steps of a heal established, as values both stages read: how a command ended
(:class:`ProcessResult`), what verification found (:class:`Verification`), what set-up did
(:class:`SetupResult`) and what the agent spent through the model proxy (:class:`Spend`).

The heal stage makes them (:mod:`healer.heal.agent`, :mod:`healer.heal.verify`, :mod:`healer.heal.prepare`,
:mod:`healer.heal.usage`); the deliver stage reads them back from the heal bundle and says them on the pull
request.
"""

from __future__ import annotations

from dataclasses import dataclass

from healer.text.spans import code


@dataclass(frozen=True)
class ProcessResult:
    """How one command ended."""

    command: str  # as a person would read it
    returncode: int | None  # None when it was killed for taking too long
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    truncated: bool = False  # output beyond healer.heal.agent.OUTPUT_CAP was dropped (from the start)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def output(self) -> str:
        """stdout then stderr, for notes and logs."""
        return "\n".join(part for part in (self.stdout.rstrip(), self.stderr.rstrip()) if part)


@dataclass(frozen=True)
class Verification:
    """What verification established about a changed tree; the fix-PR body says exactly this much."""

    state: str  # passed, failed, timed-out, unverified
    command: str = ""
    exit_code: int | None = None
    output: str = ""
    reason: str = ""  # why it is unverified

    @property
    def passed(self) -> bool:
        return self.state == "passed"

    def describe(self) -> str:
        """One phrase for comments: what was run and how it ended, as what happened on the healer's own run
        (a fix's CI may say otherwise later, and its line says so where people look)."""
        if self.state == "passed":
            return f"verified by the healer's own run: {code(self.command)} passed"
        if self.state == "failed":
            return f"{code(self.command)} failed on the healer's own run (exit code {self.exit_code})"
        if self.state == "timed-out":
            return f"{code(self.command)} did not finish in time"
        return f"not verified: {self.reason}"


@dataclass(frozen=True)
class SetupResult:
    """What set-up did: the commands that ran, how the first failing one ended, and what it left behind."""

    commands: tuple[str, ...] = ()
    failed: str = ""  # the command that failed; "" when every command passed (or none ran)
    exit_code: int | None = None
    timed_out: bool = False
    output: str = ""  # the bounded tail of the failed command's output (untrusted text)
    path: tuple[str, ...] = ()  # directories set-up put on PATH through $HEALER_PATH
    leftovers: tuple[str, ...] = ()  # paths set-up created or changed: never part of the change

    @property
    def ran(self) -> bool:
        return bool(self.commands)

    @property
    def ok(self) -> bool:
        return not self.failed

    def describe(self) -> str:
        """One phrase for comments and the summary (healer-written Markdown; the command is the
        maintainer's own)."""
        if not self.ran:
            return ""
        if self.ok:
            return f"set-up {', '.join(code(c) for c in self.commands)} passed"
        how = "did not finish in time" if self.timed_out else f"failed (exit code {self.exit_code})"
        return f"set-up {code(self.failed)} {how}"


@dataclass(frozen=True)
class Spend:
    """What the agent spent in one heal, and which budget stopped it (``""``: none did)."""

    tokens: int = 0
    requests: int = 0
    refused: int = 0  # requests answered with the budget's error
    stopped: str = ""  # agent-token-budget, agent-request-budget or max-agent-tokens-per-pr
    limit: int = 0  # the figure of that budget
    estimated: bool = False  # some response named no usage and was counted by its size
    ended_after_refusal: float | None = None  # seconds from the first refused request to the agent's end

    @property
    def silent(self) -> bool:
        """The agent asked its model nothing through the proxy: its recipe did not point it there."""
        return self.requests == 0 and self.refused == 0

    def describe(self) -> str:
        """One phrase for the comment and the summary."""
        said = f"{self.tokens:,} tokens in {self.requests:,} request{'s' if self.requests != 1 else ''}"
        if self.estimated:
            said += " (partly estimated by size)"
        if self.stopped:
            unit = "request" if self.stopped == "agent-request-budget" else "token"
            said += f"; stopped at `{self.stopped}` ({self.limit:,} {unit}{'s' if self.limit != 1 else ''})"
        if self.ended_after_refusal is not None:
            said += f"; the agent ended {self.ended_after_refusal:.1f} s after its first refused request"
        return said
