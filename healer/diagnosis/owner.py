"""Whose failure it is, and the action that follows (DESIGN.md, "Whose failure it is").

The category says what broke (the *kind*: prompts and fix rules need it); the owner says whose it is, and the
action comes from the pair, not from the kind alone. The owner is read in this order:

1. **ending**: how the step ended. A cancelled job is nobody's; a job that never reached its steps, a runner
   that lost the machine, a process the kernel killed (exit codes from ``endings.yml``) is the platform's.
2. **purpose**: what the failing step is for (:mod:`healer.diagnosis.purpose`). A step that is not a check of
   the code (a release, a PR-title policy, a dependency bot's merge, an artifact upload) is not the code's
   failure, whatever its output says, unless its output is more precise about whose it is: the network
   (platform), a token or a permission (repository). A release or deploy step builds the code, so a cause line
   of a compiler or a test inside it is still the code's.
3. **evidence**: the cause line's meaning, by the rule (or the shape) that read it: the network is the
   platform's, a missing secret or permission the repository's, a test, a compiler's or a linter's report the
   code's. A summary line (``make: *** [x] Error 1``, the runner's ``Process completed with exit code 1``)
   is not evidence and decides nothing; a category read from a name is a name, not evidence.
4. **name**: the step's, job's and workflow's names, weakest (part of the purpose's reading).

When nothing says and the step is not a code check, the owner stays ``unknown`` and the failure is
escalated: a wrong agent run makes a bogus pull request; a wrong escalation costs a comment.
Pure: values in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from healer.diagnosis import yamltext
from healer.diagnosis.purpose import StepPurpose
from healer.diagnosis.rules import Rule
from healer.diagnosis.tooltable import split_commands, tool_name
from healer.model import DEFAULT_ACTIONS, Action, Category, Diagnosis, Owner

ENDINGS = Path(__file__).with_name("endings.yml")
# The action of each owner (None: the rule's own action, as for the PR's code). Only the PR's code goes to fix
# rules or the agent; a failure that is not the code's is re-run (the platform's, the flaky test's) or
# escalated to the person who can act on it.
OWNER_ACTIONS: Mapping[Owner, Action | None] = {
    Owner.CODE: None,
    Owner.METADATA: Action.ESCALATE,
    Owner.REPOSITORY: Action.ESCALATE,
    Owner.PLATFORM: Action.RERUN,
    Owner.UPSTREAM: Action.ESCALATE,
    Owner.HISTORY: Action.RERUN,
    Owner.NOBODY: Action.IGNORE,
}
# Whose a cause line of each kind says the failure is.
_KIND_OWNER: Mapping[Category, Owner] = {
    Category.TRANSIENT: Owner.PLATFORM,
    Category.INFRASTRUCTURE: Owner.PLATFORM,
    Category.CANCELLED: Owner.NOBODY,
    Category.CONFIG: Owner.REPOSITORY,
    Category.LINT: Owner.CODE,
    Category.FORMAT: Owner.CODE,
    Category.TYPECHECK: Owner.CODE,
    Category.TEST: Owner.CODE,
    Category.BUILD: Owner.CODE,
    Category.DEPENDENCY: Owner.CODE,
}
# Kinds whose cause lines come from building or running the code (a compiler, a test): inside a release or
# deploy step (which builds the code) they are still the code's.
_CODE_KINDS = frozenset({Category.BUILD, Category.TEST, Category.TYPECHECK, Category.LINT})
# Rules read from a name or from a summary, not from a cause line: they say a kind, never an owner. Gradle's
# "Execution failed for task '…'" heads its "What went wrong" summary whatever the task was (a compile, a
# publish, an upload), so the rule that reads only it names no owner either.
_NOT_EVIDENCE = (
    "fallback.",
    "derived.tool",
    "derived.script",
    "derived.job",
    "none",
    "jvm.gradle-task-failed",
)
# The kind of a failure no cause line named, by its owner: the workflow's or the repository's settings, or a
# hosted service that a retry may find working (DESIGN.md's config and transient).
_DOMAIN = {
    Owner.METADATA: Category.CONFIG,
    Owner.REPOSITORY: Category.CONFIG,
    Owner.PLATFORM: Category.TRANSIENT,
}
# Checkers whose findings about the network are findings about the pull request's documents or services:
# a dead link is the document's; a service that never answered did not start.
_CHECKER_KIND = {"link-check": Category.LINT, "health-check": Category.TEST}
# Rules whose cause line is a server that was busy or failing (429, 5xx), not a link or service that is gone.
_BUSY_SERVER = frozenset({"network.http-5xx"})


@dataclass(frozen=True)
class Ending:
    """What an exit code means where a convention gives it one (``endings.yml``)."""

    code: int
    meaning: str
    category: Category
    owner: Owner
    tools: frozenset[str] = frozenset()


def parse_endings(data: Any, source: str = "endings.yml") -> tuple[Ending, ...]:
    """The exit-code table; raises ``ValueError`` naming what is wrong."""
    if not isinstance(data, Mapping) or not isinstance(data.get("exit_codes"), list):
        raise ValueError(f"{source}: an `exit_codes:` list is required")
    out = []
    for n, entry in enumerate(data["exit_codes"], 1):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("code"), int) or not entry.get("doc"):
            raise ValueError(f"{source}: entry #{n}: `code` (an integer) and `doc` are required")
        try:
            category, owner = Category(entry.get("category")), Owner(entry.get("owner"))
        except ValueError as error:
            raise ValueError(f"{source}: entry #{n}: {error}") from None
        tools = frozenset(str(t).lower() for t in entry.get("tool") or ())
        out.append(Ending(int(entry["code"]), str(entry.get("meaning", "")), category, owner, tools))
    return tuple(out)


@lru_cache(maxsize=1)
def ending_table() -> tuple[Ending, ...]:
    """The shipped exit-code table (read once)."""
    return parse_endings(yamltext.safe_load(ENDINGS.read_text(encoding="utf-8")), ENDINGS.name)


def ending_of(exit_code: int | None, command: str | None) -> Ending | None:
    """The table's reading of an exit code (an entry that names tools: only when the command runs one)."""
    if exit_code is None:
        return None
    words = {tool_name(w).lower() for part in split_commands(command or "") for w in part[:3]}
    for ending in ending_table():
        if ending.code == exit_code and (not ending.tools or ending.tools & words):
            return ending
    return None


def evidence_owner(diagnosis: Diagnosis, rule: Rule | None) -> Owner | None:
    """Whose the cause line says the failure is; None when no cause line was read (a summary, a name)."""
    if diagnosis.rule.startswith(_NOT_EVIDENCE):
        return None
    if rule is not None and rule.owner is not None:
        return rule.owner
    return _KIND_OWNER.get(diagnosis.category)


def assign_owner(diagnosis: Diagnosis, purpose: StepPurpose, *, rule: Rule | None = None) -> Diagnosis:
    """``diagnosis`` with its owner, purpose, action and what decided them (``decided_by``)."""
    said: list[tuple[str, str]] = []
    kind = diagnosis.category
    owner: Owner | None = None
    ending = ending_of(diagnosis.exit_code, diagnosis.command)
    if kind is Category.CANCELLED:
        owner = Owner.NOBODY
        said.append(("ending", "the job was cancelled"))
    elif ending is not None:
        # before the log's lines: a process the kernel killed did not fail a test, whatever it printed first
        owner, kind = ending.owner, ending.category
        said.append(("ending", f"exit code {ending.code}: {ending.meaning}"))
    elif diagnosis.rule.startswith("runner.") and kind in (Category.INFRASTRUCTURE, Category.TIMEOUT):
        # a time limit is nobody's in particular unless its rule says whose (another CI's own fixed limit)
        said_owner = rule.owner if rule is not None else None
        owner = Owner.PLATFORM if kind is Category.INFRASTRUCTURE else (said_owner or Owner.UNKNOWN)
        said.append(("ending", f"the runner: {_describe(diagnosis, rule)}"))
    # what the step is for, from its action or command ("purpose"), or only from a name ("name", weaker)
    stage = "name" if purpose.strength == "name" else "purpose"
    if purpose.purpose:
        said.append((stage, f"{purpose.purpose} ({purpose.source})"))
    found = evidence_owner(diagnosis, rule)
    if found is not None:
        said.append(("evidence", f"{diagnosis.category.value}: {_describe(diagnosis, rule)}"))
    elif diagnosis.rule != "none":
        said.append(("evidence", f"none (the kind comes from {_describe(diagnosis, rule)})"))
    if owner is None:
        owner, kind = _weigh(
            purpose,
            found,
            kind,
            by_shape=diagnosis.rule == "derived.evidence",
            said=rule is not None and rule.owner is not None,
            rule_id=diagnosis.rule,
        )
    if kind is Category.UNKNOWN and owner in _DOMAIN:
        # no cause line named the kind: the owner's domain does (a policy check, a release, an upload)
        kind = _DOMAIN[owner]
    # the maintainer's own rule says what to do (a learned one goes by the table like the shipped rules)
    own_rule = rule is not None and rule.repository and not rule.learned
    action = diagnosis.action if own_rule else _action(owner, kind, diagnosis, purpose, rule)
    row = (
        f"({owner.value}, {kind.value}{'' if purpose.code_check else ', not a code check'}) → {action.value}"
    )
    if own_rule:
        row += " (the repository's own rule)"
    said.append(("row", row))
    return replace(
        diagnosis,
        category=kind,
        owner=owner,
        purpose=purpose.purpose,
        action=action,
        fix_commands=diagnosis.fix_commands if action is Action.FIX else (),
        decided_by=tuple(said),
    )


def shown(names: Sequence[str], limit: int = 3) -> str:
    """The first ``limit`` of ``names`` for a ``decided_by`` line, and how many more there are."""
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f" and {more} more" if more > 0 else "")


def reread(
    diagnosis: Diagnosis,
    owner: Owner,
    kind: Category,
    action: Action,
    evidence: str,
    *,
    replaces_evidence: bool = False,
) -> Diagnosis:
    """``diagnosis`` given to ``owner`` by a later reading of the step's own lines (its tests' causes, a link
    checker's findings, a traceback, a step's header, the runner): ``decided_by`` keeps every stage but the
    table's row (and the earlier evidence, when this reading ``replaces_evidence``), adds ``evidence`` and the
    row ``(owner, kind) → action``."""
    dropped = ("row", "evidence") if replaces_evidence else ("row",)
    said = tuple(pair for pair in diagnosis.decided_by if pair[0] not in dropped)
    said += (("evidence", evidence), ("row", f"({owner.value}, {kind.value}) → {action.value}"))
    return replace(diagnosis, owner=owner, category=kind, action=action, fix_commands=(), decided_by=said)


def reassigned(
    diagnosis: Diagnosis,
    owner: Owner,
    history: str,
    then: str,
    *,
    action: Action | None = None,
    stage: str = "history",
) -> Diagnosis:
    """``diagnosis`` given to ``owner`` by what the healer knows and the log does not (its history: a flaky
    test, a broken base branch; the pull request's changed files: ``stage="changes"``): ``decided_by`` keeps
    every stage but the table's row, adds ``(stage, history)``, and a row ``(owner, kind) → then``;
    ``action`` replaces the diagnosis' when given."""
    said = tuple(pair for pair in diagnosis.decided_by if pair[0] != "row")
    said += ((stage, history), ("row", f"({owner.value}, {diagnosis.category.value}) → {then}"))
    return replace(
        diagnosis, owner=owner, action=diagnosis.action if action is None else action, decided_by=said
    )


def _weigh(
    purpose: StepPurpose,
    found: Owner | None,
    kind: Category,
    *,
    by_shape: bool = False,
    said: bool = False,
    rule_id: str = "",
) -> tuple[Owner, Category]:
    """The owner (and the kind, where a checker's finding changes it) from the purpose and the evidence."""
    checker = _CHECKER_KIND.get(purpose.purpose)
    finding = found in (Owner.PLATFORM, Owner.CODE, None) and (kind is not Category.CONFIG or by_shape)
    if checker is not None and finding and rule_id in _BUSY_SERVER:
        # a server that answered "too many requests" or a 5xx is busy or down, not gone (RFC 9110, 15.6 and
        # RFC 6585, 4): the checked link is fine and a later run finds it
        return Owner.PLATFORM, kind
    if checker is not None and finding:
        # a dead link or a service that never answered is the checked document's or service's
        return Owner.CODE, checker if found is Owner.PLATFORM or kind is Category.UNKNOWN else kind
    purposed = purpose.kind
    if purposed is None:
        return found or Owner.UNKNOWN, kind
    if purposed.code_check:
        if kind is Category.CONFIG and not said:
            # a script, a file or an option of the checkout the check runs: the pull request's (a rule about
            # credentials or the repository's settings says its owner itself)
            return Owner.CODE, kind
        return found or Owner.CODE, kind
    if found in (Owner.PLATFORM, Owner.REPOSITORY, Owner.METADATA, Owner.UPSTREAM, Owner.NOBODY):
        # more precise than the purpose: the registry was down, the token was refused
        return found, kind
    if (
        found is Owner.CODE
        and kind is Category.DEPENDENCY
        and purpose.purpose in ("toolchain", "setup")
        and not by_shape
    ):
        # a set-up that installs the project's dependencies (ruby/setup-ruby's bundler-cache, a script of
        # Travis's install phase) reports the resolver's error about the pull request's manifests: the code's
        return Owner.CODE, kind
    if found is Owner.CODE and said:
        # a rule that names the code as owner (a file of the checkout that does not parse) says so in any step
        return Owner.CODE, kind
    if found is Owner.CODE and purposed.builds_code and kind in _CODE_KINDS and not by_shape:
        # a rule read a compiler's, a test's or a linter's own report (a deploy's predeploy lint): the code,
        # even in a release step
        return Owner.CODE, kind
    return purposed.owner, kind


def _action(
    owner: Owner, kind: Category, diagnosis: Diagnosis, purpose: StepPurpose, rule: Rule | None
) -> Action:
    table = OWNER_ACTIONS.get(owner)
    if table is not None:
        return table
    if owner is Owner.CODE and kind is Category.CONFIG and (rule is None or rule.owner is None):
        # the check's own script, file or option is wrong: the code's, so the agent's (a rule that names
        # its owner keeps its action)
        return Action.AGENT
    if owner is Owner.UNKNOWN and not purpose.code_check and kind is not Category.TIMEOUT:
        return Action.ESCALATE
    if kind is not diagnosis.category:
        action = DEFAULT_ACTIONS[kind]
        return Action.AGENT if action is Action.FIX else action
    return diagnosis.action


def _describe(diagnosis: Diagnosis, rule: Rule | None) -> str:
    if diagnosis.rule.startswith("derived."):
        return f"rule {diagnosis.rule}"
    return f"rule {diagnosis.rule}" + (" (the repository's)" if rule is not None and rule.repository else "")
