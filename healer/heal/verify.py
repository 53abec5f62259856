"""Verification: which command judges a change, and what running it established.

The commands are settled before the agent runs, so that the frame can name them: each check's own
``verify-command`` (``checks:``), else the input's, and also the failing step's command when it is a known
lint/format/typecheck tool on ``PATH`` (that command comes from a log: it is only run as an argv list, see
:func:`healer.heal.agent.step_verify_argv`). It runs in the set-up environment (the same checkout, ``PATH``
with
what set-up added), and a fix PR is ready only when every check's command ran and passed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from healer.change.outcomes import Verification
from healer.change.workspace import Checkout
from healer.config import Config, check_settings
from healer.heal.agent import ProcessError, run, step_verify_argv
from healer.heal.isolation import ThrowawayUser
from healer.model import CheckPlan
from healer.text.spans import code

VERIFY_TIMEOUT = 900.0
VERIFY_OUTPUT_LIMIT = 4000


@dataclass(frozen=True)
class VerifyPlan:
    """The commands that will judge a change (a string runs through the shell: the maintainer's own; a
    tuple is argv, from a log), and the checks no command can re-run here."""

    commands: tuple[str | tuple[str, ...], ...] = ()
    unchecked: tuple[str, ...] = ()

    @property
    def shown(self) -> tuple[str, ...]:
        """The commands as a person reads them."""
        return tuple(c if isinstance(c, str) else " ".join(c) for c in self.commands)

    @property
    def complete(self) -> bool:
        """Whether a passing run would verify every check."""
        return bool(self.commands) and not self.unchecked


def plan_verification(config: Config, checks: Sequence[CheckPlan], path: str | None) -> VerifyPlan:
    """The verification of ``checks``, with ``path`` the ``PATH`` of the set-up environment."""
    commands: list[str | tuple[str, ...]] = []
    unchecked: list[str] = []
    for plan in checks:
        own = check_settings(config, plan.check).verify_command
        configured = (own if own is not None else config.verify_command).strip()
        argv = step_verify_argv(plan.diagnosis.command if plan.diagnosis else None, path)
        # the maintainer's command and, when it is a known checker, the failing command itself: a test suite
        # that passes says nothing about the linter that failed
        mine = [c for c in (configured or None, tuple(argv) if argv else None) if c]
        if not mine:
            unchecked.append(plan.check)
        commands.extend(c for c in mine if c not in commands)
    return VerifyPlan(tuple(commands), tuple(unchecked))


def verify(
    plan: VerifyPlan,
    checkout: Checkout,
    env: Mapping[str, str],
    exclude: Sequence[str] = (),
    *,
    user: ThrowawayUser | None,
) -> Verification:
    """Run ``plan`` on the staged change in ``checkout``; ``exclude`` are set-up's leftovers. With ``user``
    (``isolation: user``) the commands run as that user in its copy, which is read back before it is
    compared with what was staged."""
    if not plan.commands:
        return Verification(
            "unverified",
            reason="no `verify-command` is set and the failing command is not a known lint/format/typecheck "
            "tool on PATH",
        )
    shown: list[str] = []
    for command in plan.commands:
        try:
            result = run(
                command if isinstance(command, str) else list(command),
                cwd=user.workdir if user is not None else checkout.path,
                env=env,
                timeout=VERIFY_TIMEOUT,
                isolation=user,
            )
        except ProcessError as exc:
            return Verification("unverified", reason=str(exc))
        shown.append(result.command)
        if result.timed_out:
            return Verification(
                "timed-out", command=result.command, output=result.output[-VERIFY_OUTPUT_LIMIT:]
            )
        if not result.ok:
            return Verification(
                "failed", result.command, result.returncode, result.output[-VERIFY_OUTPUT_LIMIT:]
            )
    if user is not None:
        user.copy_out(checkout.path)  # what the commands left (every process of the user gone first)
    if checkout.has_unstaged_changes(exclude):
        # A "check" that rewrote files proves nothing about the staged change.
        return Verification(
            "unverified", reason=f"`{'; '.join(shown)}` changed files instead of checking them"
        )
    if plan.unchecked:
        # what ran passed, but not every check was re-run: the PR stays a draft and says which were not
        names = ", ".join(code(name) for name in plan.unchecked)
        return Verification(
            "unverified",
            command=" && ".join(shown),
            exit_code=0,
            reason=f"`{' && '.join(shown)}` passed, but the failing command of {names} cannot be re-run here",
        )
    return Verification("passed", command=" && ".join(shown), exit_code=0)
