"""The heal bundle between the two jobs of a heal: where the heal stage writes it, and how the deliver stage
finds, accepts and delivers it (:mod:`healer.change.bundle` is its format, :mod:`healer.deliver.frombundle`
its delivery).

The deliver stage accepts a bundle only for what its own plan says: this repository, this pull request, this
run and attempt, the pull request's current head, and exactly the checks and attempt numbers it plans to heal.
A bundle for anything else (another pull request, an older commit, a forged or swapped file) is refused with
the reason, and the attempt is recorded as refused: the healer says what happened instead of guessing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from healer.change.bundle import (
    BUNDLE_NAME,
    BundleCheck,
    BundleError,
    HealBundle,
    check_identity,
    read_bundle,
)
from healer.change.bundling import record_of
from healer.change.context import Delivery, HealContext, HealResult
from healer.change.workspace import Repo
from healer.config import Config
from healer.deliver.forks import hand_to_fork
from healer.deliver.frombundle import deliver_bundle
from healer.model import CheckPlan, PullRequest, RunEvent
from healer.run.context import RunContext
from healer.text.spans import code


def bundle_file(config: Config, temp_dir: Path) -> Path:
    """The bundle's file: ``bundle-path`` (a file, or a folder that holds one), else under RUNNER_TEMP."""
    if not config.bundle_path:
        return temp_dir / "ci-healer-bundle" / BUNDLE_NAME
    path = Path(config.bundle_path)
    return path / BUNDLE_NAME if path.is_dir() or not path.suffix else path


class Capture:
    """The heal stage's hand-over: it keeps the change (for the bundle) and delivers nothing."""

    def __init__(self) -> None:
        self.patch: str | None = None

    def __call__(self, checkout: object, diff: str, verification: object, result: object) -> Delivery:
        self.patch = checkout.staged_patch()  # type: ignore[attr-defined]
        return Delivery(mode="bundle")


def heal_bundle(
    event: RunEvent, pr: PullRequest, heals: Sequence[CheckPlan], result: HealResult, capture: Capture
) -> HealBundle:
    """The bundle of one heal stage: the change it captured (if it got that far) and the attempt's record."""
    return HealBundle(
        repository=event.repository,
        pr=pr.number,
        run_id=event.run_id,
        run_attempt=event.run_attempt,
        head_sha=event.head_sha.lower(),
        base_sha=(pr.base_sha or "0" * 40).lower(),
        checks=tuple(BundleCheck(c.check, c.attempt) for c in heals),
        diff=capture.patch or "",
        record=record_of(result, ready=capture.patch is not None),
    )


def delivered_from_bundle(ctx: RunContext, event: RunEvent, attempt: HealContext) -> HealResult:
    """The deliver stage's heal of ``attempt.checks``: the heal job's bundle, accepted and delivered, or the
    reason it was not (the attempt is spent either way: the heal job ran)."""
    path = bundle_file(attempt.config, ctx.actions.temp)
    if not path.is_file():
        return HealResult(
            False,
            why_not=f"The heal job left no heal bundle ({code(path.name)}) for this attempt: it found "
            "nothing to heal when it planned, or it failed before writing one (see its log). Nothing was "
            "delivered.",
            refused=True,
        )
    try:
        bundle = read_bundle(path)
        check_identity(
            bundle,
            repository=event.repository,
            pr=attempt.pr.number,
            run_id=event.run_id,
            run_attempt=event.run_attempt,
            head_sha=attempt.pr.head_sha,
            checks={c.check: c.attempt for c in attempt.checks},
        )
    except BundleError as exc:
        ctx.reporter.warning(f"the heal bundle was refused: {exc}")
        return HealResult(False, why_not=f"The heal bundle was refused: {code(exc, 400)}", refused=True)
    ctx.say(f"heal bundle accepted: {len(bundle.diff):,} bytes of change for {len(bundle.checks)} check(s)")
    return deliver_bundle(
        ctx.gh,
        Repo(ctx.actions.workspace),
        attempt,
        bundle,
        say=ctx.say,
        hand_fork=hand_to_fork(ctx.gh, attempt, Repo(ctx.actions.workspace), ctx.say),
    )
