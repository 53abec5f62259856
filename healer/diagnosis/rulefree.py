"""A diagnosis when no rule matched: the finder's excerpt and a derived category.

The classifier calls :func:`rule_free_diagnosis` when no rule explained the failing step (and
:func:`derived_for_unknown` when the rule that matched leaves the category open). The category comes from
:func:`healer.diagnosis.derive.derive_category` and says so: the rule id is ``derived.tool``,
``derived.script``, ``derived.evidence`` or ``derived.job``, and the description names the tool, script or
shape. Nothing derived → ``unknown`` (rule ``none``), with the finder's excerpt all the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from healer.diagnosis.derive import Derived, derive_category
from healer.diagnosis.excerpt import clip, render
from healer.diagnosis.finder import Found, rule_free_excerpt
from healer.model import DEFAULT_ACTIONS, Action, Category, Diagnosis

# a derived category is a weaker reading than a rule's: below every shipped rule's confidence
CONFIDENCE = {"tool": 0.5, "script": 0.45, "evidence": 0.4, "job": 0.3}
_WHAT = {
    "tool": "the tool that failed",
    "script": "the project's script that failed",
    "evidence": "the shape of the failing command's output",
    "job": "the job's name",
}


def derived_description(derived: Derived) -> str:
    """One plain sentence saying that no rule matched and where the category came from."""
    return f"No rule matched; the category comes from {_WHAT[derived.kind]} ({derived.source})."


def action_for(category: Category) -> Action:
    """The category's default action; a format failure without a rule's fix command goes to the agent."""
    action = DEFAULT_ACTIONS[category]
    return Action.AGENT if action is Action.FIX else action


def rule_free_diagnosis(
    lines: Sequence[str],
    found: Found,
    scope: Sequence[int],
    end_of_step: Sequence[int],
    base: Mapping[str, Any],
    *,
    job: str | None = None,
    scripts: Mapping[str, str] | None = None,
    hide: frozenset[int] = frozenset(),
) -> Diagnosis:
    """The finder's reading of ``scope`` (the failing step's lines the classifier read)."""
    derived = derive_category(base.get("command"), found, scripts=scripts, job=job)
    chosen, decisive = rule_free_excerpt(lines, found, scope, end_of_step)
    if hide:
        chosen = [i for i in chosen if i not in hide or i in decisive]
        decisive = [i for i in decisive if i in chosen]
    if derived is None:
        category, rule, confidence, description = Category.UNKNOWN, "none", 0.0, ""
    else:
        category, rule = derived.category, f"derived.{derived.kind}"
        confidence, description = CONFIDENCE[derived.kind], derived_description(derived)
    return Diagnosis(
        category=category,
        confidence=confidence,
        rule=rule,
        action=action_for(category),
        excerpt=render(lines, chosen),
        decisive=tuple(clip(lines[i]) for i in decisive),
        description=description,
        **base,
    )


def derived_for_unknown(
    diagnosis: Diagnosis, found: Found, *, job: str | None = None, scripts: Mapping[str, str] | None = None
) -> Diagnosis:
    """A rule whose category is ``unknown`` (an exception, whatever raised it) keeps its excerpt; the
    category comes from the tool, the script or the evidence when they say."""
    derived = derive_category(diagnosis.command, found, scripts=scripts, job=job)
    if derived is None or derived.category is Category.UNKNOWN:
        return diagnosis
    return replace(
        diagnosis,
        category=derived.category,
        action=action_for(derived.category),
        description=derived_description(derived),
    )
