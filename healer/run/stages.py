"""``stage: heal``: the first of a heal's two jobs. It plans as any run does, runs the heal (set-up, fix
rules, the agent through the model proxy, the guard, verification) and writes the heal bundle for the deliver
job — and writes nothing to GitHub: no claim, no comment, no branch. Its token needs only to read.

The deliver job (``stage: deliver``) runs the whole act stage (:func:`healer.run.acting.act`): it claims the
commit, plans again, re-runs, escalates, and heals the planned checks by delivering the bundle
(:func:`healer.run.bundles.delivered_from_bundle`), which it accepts only for exactly that plan.
"""

from __future__ import annotations

from healer.change.bundle import write_bundle
from healer.config import Config
from healer.model import PullRequest, RunEvent
from healer.run.acting import print_plan
from healer.run.bundles import Capture, bundle_file, heal_bundle
from healer.run.context import RunContext
from healer.run.healing import category_of, heal_checks, heal_once, names
from healer.run.planning import Planned


def heal_stage(ctx: RunContext, event: RunEvent, pr: PullRequest, config: Config, planned: Planned) -> None:
    """Heal what the plan heals and write the bundle (see the module doc); re-runs, escalations and
    diagnoses are the deliver job's."""
    plan = planned.plan
    print_plan(ctx, plan)
    heals = heal_checks(plan, pr, config)
    outcome = ctx.outcome
    if not heals:
        ctx.say("nothing to heal here; the deliver job acts on the plan (re-runs, escalations, diagnoses)")
        outcome.decision = "none"
        return
    capture = Capture()
    result = heal_once(ctx, event, pr, config, planned.ledger, heals, planned.comments, capture=capture)
    target = bundle_file(config, ctx.actions.temp)
    target.parent.mkdir(parents=True, exist_ok=True)
    path = write_bundle(target, heal_bundle(event, pr, heals, result, capture))
    outcome.bundle_path = str(path)
    outcome.attempt = max(c.attempt for c in heals)
    outcome.category = category_of(heals[0])
    outcome.decision = "healed" if capture.patch is not None else "skipped"
    ready = "a change to deliver" if capture.patch is not None else "no change to deliver"
    ctx.note(
        f"heal stage: the heal bundle for {names(heals)} holds {ready} ({path.name}, for the deliver job)"
    )
