"""The run's side of learning (docs/learning.md): the learned rules read with the config, and the rule pull
request proposed when a person merges a fix pull request.

Kept apart from the stages so that they only call in: :func:`with_learned_rules` from the config stage
(:func:`healer.run.planning.load_repository_config`), :func:`lesson_of_heal` and :func:`learned_markers` from
the acting stage, :func:`propose_rule` from the closed-pull-request stage
(:func:`healer.run.lifecycle.on_fix_pull_closed`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from healer.change.workspace import Repo
from healer.config import LEARNED_RULES_FILE, Config, load_learned_file
from healer.deliver.rulepr import LearnedFileError, deliver_rule, rule_yaml
from healer.diagnosis.rules import RuleError, load_rules
from healer.github import GitHub
from healer.ledger.fixrecords import as_record
from healer.ledger.learned import lesson_of, rule_branch, rule_mapping
from healer.ledger.markers import Kind, Marker, Signer, check_key, decode_markers
from healer.ledger.memory import decode
from healer.model import CheckPlan, Comment, Lesson, PullRequest, fix_branch_target
from healer.run.context import RunContext, branch_config
from healer.text.rulepr import render_rule_pr_body, rule_title
from healer.text.tokens import scrub


def with_learned_rules(gh: GitHub, config: Config, branch: str, say: Callable[[str], None]) -> Config:
    """``config`` with the learned rules of the default branch (one request; none when there is no file)."""
    text = gh.get_file(LEARNED_RULES_FILE, branch)
    if text is None:
        return config
    config = load_learned_file(text, config)
    say(f"{len(config.learned_rules)} learned rule(s) from {LEARNED_RULES_FILE} on {branch}")
    return config


def lesson_of_heal(result: Any, heals: Sequence[CheckPlan]) -> Lesson | None:
    """What a heal (a :class:`healer.change.context.HealResult`) learned: only a verified, delivered agent
    heal of one check teaches (``learned``), with the command that reproduced its change, or else its files
    and the agent's last paragraph. A change delivered from a heal bundle (``heal_word`` set: the deliver job
    ran none of it) teaches only what that job saw itself: the failure and the files of the diff it applied,
    never the heal job's command or notes."""
    if result.learned is None or not result.delivered:
        return None
    check, command = result.learned
    plan = next((p for p in heals if p.check == check), None)
    if plan is None or plan.diagnosis is None:
        return None
    if getattr(result, "heal_word", None) is not None:
        command, notes = "", ""  # the heal job's word, not this job's
    else:
        notes = result.notes.strip()
    last = notes.split("\n\n")[-1] if notes else ""
    return lesson_of(plan.diagnosis, check, fix_command=command, files=result.files, summary=last)


def learned_markers(markers: Sequence[Marker], lesson: Lesson | None) -> list[Marker]:
    """``markers`` with the lesson's signature on the attempt marker of the check it is about."""
    if lesson is None:
        return list(markers)
    key = check_key(lesson.check)  # already a key: unchanged
    return [
        replace(m, learned=lesson.signature) if m.kind is Kind.ATTEMPT and m.check == key else m
        for m in markers
    ]


# -- when a person merges a fix pull request ---------------------------------------------------------------


def find_lesson(
    comments: Sequence[Comment], *, bot_login: str, fix_pr: int, signer: Signer | None
) -> tuple[Marker, Lesson, str] | None:
    """The lesson of the attempt that opened fix pull request ``fix_pr``: the attempt marker (only in the
    bot's own comments, verified with ``signer``) that names it and a signature, the memory line under
    the same marker block that holds that very lesson, and the change that attempt recorded (its diff,
    bounded; untrusted)."""
    login = bot_login.strip().casefold()
    for comment in reversed(comments):
        if comment.author.casefold() != login:
            continue
        for marker in decode_markers(comment.body, signer):
            if marker.kind is not Kind.ATTEMPT or marker.fix_pr != fix_pr or not marker.learned:
                continue
            account = decode(comment.body)
            lesson = account.lesson if account is not None else None
            if lesson is not None and lesson.signature == marker.learned and lesson.check == marker.check:
                return marker, lesson, account.diff if account is not None else ""
    return None


def merged_by_a_person(pr: PullRequest, bot_login: str) -> bool:
    """Only a fix a person merged teaches: merged, and not by the healer's login or any other bot."""
    who = pr.merged_by.strip().casefold()
    return pr.merged and bool(who) and who != bot_login.strip().casefold() and not who.endswith("[bot]")


def propose_rule(ctx: RunContext, fix: PullRequest) -> str:
    """A fix pull request was closed: if a person merged it and its heal learned something, open the one
    pull request that adds the rule to the learned-rules file of the default branch (the job summary links
    it). Returns the decision: ``none`` (a rule pull request heals nothing). Nothing of the fix is run."""
    number = fix_branch_target(fix.head_ref)
    if fix.is_fork or number is None:
        ctx.say(f"#{fix.number} is not one of the healer's fix pull requests of this repository")
        return "none"
    if not merged_by_a_person(fix, ctx.config.bot_login):
        how = f"merged by {fix.merged_by}" if fix.merged else "closed without merging"
        ctx.say(f"fix pull request #{fix.number} was {how}: only a fix a person merged teaches a rule")
        return "none"
    branch = fix.default_branch or ctx.gh.get_repository().default_branch
    config = branch_config(ctx.gh, ctx.config, ctx.env, branch) or ctx.config
    if not config.learn:
        ctx.say("`learn` is off: no rule is proposed")
        return "none"
    signer = Signer.for_pull(config.ledger_key, ctx.actions.repository, number)
    # the heal's record: a comment on #number, or (a quiet heal) the top of the fix's own body
    records = [*ctx.gh.list_comments(number), as_record(fix)]
    learned = find_lesson(records, bot_login=config.bot_login, fix_pr=fix.number, signer=signer)
    if learned is None:
        ctx.say(f"the heal behind #{fix.number} learned nothing that makes a rule (its record on #{number})")
        return "none"
    marker, lesson, diff = learned
    rule = rule_mapping(lesson, pr=number, fix_pr=fix.number, commit=fix.head_sha)
    problem = _unsafe(rule, lesson)
    if problem:
        ctx.note(f"the rule learned from #{fix.number} is not proposed: {problem}")
        return "none"
    rule_pr_branch = rule_branch(lesson)
    owner = ctx.actions.repository.partition("/")[0]
    earlier = ctx.gh.list_pulls(head=f"{owner}:{rule_pr_branch}", state="all")
    if earlier:
        ctx.say(f"the rule of signature {lesson.signature} was proposed before, in #{earlier[0].number}")
        return "none"
    repo = Repo(ctx.actions.workspace)
    if not repo.is_repository():
        # the closed-PR job checks out nothing: the healer fetches the default branch into a repository of
        # its own (the default branch only; nothing of any pull request is fetched or run)
        scratch = ctx.actions.temp / "ci-healer" / f"rule-repo-{lesson.signature}"
        shutil.rmtree(scratch, ignore_errors=True)
        repo = Repo.scratch(scratch, f"{ctx.actions.server_url.rstrip('/')}/{ctx.actions.repository}.git")
    title = rule_title(lesson)
    body = render_rule_pr_body(
        ctx.frames,
        lesson,
        rule_id=rule["id"],
        description=rule["description"],
        hint=rule.get("hint", ""),
        yaml_text=rule_yaml(rule),
        pr=number,
        fix_pr=fix.number,
        commit=fix.head_sha,
        merged_by=fix.merged_by,
        path=LEARNED_RULES_FILE,
        diff=diff,
    )
    if ctx.dry_run:
        ctx.note(f"would propose the rule `{rule['id']}` learned from #{fix.number} (dry run)")
        return "none"
    try:
        delivered = deliver_rule(
            ctx.gh,
            repo,
            rule=rule,
            path=LEARNED_RULES_FILE,
            branch=rule_pr_branch,
            base=branch,
            title=title,
            body=scrub(body, config.github_token),
            bot_login=config.bot_login,
            token=config.github_token,
            server_url=ctx.actions.server_url,
            work_dir=ctx.actions.temp / "ci-healer" / f"rule-{lesson.signature}",
        )
    except LearnedFileError as exc:
        ctx.note(
            f"the rule learned from #{fix.number} is not proposed: {LEARNED_RULES_FILE} on {branch}: {exc}"
        )
        return "none"
    ctx.note(f"proposed the rule `{rule['id']}` learned from #{fix.number} in {delivered.pull.html_url}")
    ctx.outcome.headline = f"proposed a rule learned from #{fix.number}"
    return "none"


def _unsafe(rule: Mapping[str, Any], lesson: Lesson) -> str:
    """Why ``rule`` must not be proposed ("" when it may): it fails the checks of every repository rule,
    or does not match the failure it was learned from."""
    try:
        [compiled] = load_rules(learned=[rule], shipped=False)
    except RuleError as exc:
        return str(exc)
    if not lesson.decisive or not all(compiled.hits(line) for line in lesson.decisive):
        return "it does not match the lines of the failure it was learned from"
    return ""
