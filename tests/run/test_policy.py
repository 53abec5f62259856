from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pullrun import BOT, CONFIG, PULL, RUN, RUN_ID, SHA

from healer.config import Config
from healer.ledger.ledger import (
    Kind,
    Ledger,
    Marker,
    add_markers,
    claim_body,
    comment_body,
    encode_marker,
    record,
)
from healer.model import (
    DEFAULT_ACTIONS,
    FIX_BRANCH_PREFIX,
    Action,
    Category,
    Comment,
    Diagnosis,
    HealMode,
    SkipReason,
    Verdict,
)
from healer.run.policy import acting, decide

OLD1, OLD2, OLD3 = "b" * 40, "c" * 40, "d" * 40


def diag(category, action=None, fix=()):
    return Diagnosis(
        category=category,
        confidence=0.9,
        rule="r",
        action=action or DEFAULT_ACTIONS[category],
        excerpt=("E  boom",),
        fix_commands=fix,
    )


LINT_FIX = diag(Category.LINT, Action.FIX, ("ruff check --fix .",))


def att(sha, k, check="test"):
    return Marker(Kind.ATTEMPT, sha, check, attempt=k, run_id=100 + k, run_attempt=1, mode="agent")


def rerun(sha, check="test", run_id=99, run_attempt=1):
    return Marker(Kind.RERUN, sha, check, run_id=run_id, run_attempt=run_attempt)


def esc(sha, check="test"):
    return Marker(Kind.ESCALATION, sha, check, run_id=98, run_attempt=1)


def reset(sha, check="test"):
    return Marker(Kind.RESET, sha, check, run_id=97, run_attempt=1)


def bot_comments(*marker_lists, author=BOT):
    return [
        Comment(id=i + 1, author=author, body=comment_body(list(ms))) for i, ms in enumerate(marker_lists)
    ]


def ledger_of(*marker_lists):
    return Ledger.from_comments(bot_comments(*marker_lists), BOT)


def plan_one(
    diagnosis, *history, config=CONFIG, pull=PULL, run=RUN, check="test", claim_id=None, comments=None
):
    ledger = Ledger.from_comments(comments, BOT) if comments is not None else ledger_of(*history)
    plan = decide({check: diagnosis}, ledger=ledger, config=config, pull=pull, run=run, claim_id=claim_id)
    assert len(plan.checks) == 1
    return plan.checks[0]


def heal(k, mode=HealMode.AGENT):
    return (Verdict.HEAL, None, mode, k)


RERUN = (Verdict.RERUN, None, None, 0)
ESCALATE = (Verdict.ESCALATE, None, None, 0)


def skip(reason):
    return (Verdict.SKIP, reason, None, 0)


ROWS = [
    # re-run budget, then escalate (transient, infrastructure)
    pytest.param(diag(Category.TRANSIENT), [], {}, {}, {}, RERUN, id="transient-reruns-first"),
    pytest.param(
        diag(Category.TRANSIENT),
        [[rerun(SHA, run_id=RUN_ID)]],
        {},
        {},
        {"run_attempt": 2},
        ESCALATE,
        id="transient-escalates-after-rerun",
    ),
    # one commit, several runs: another run's re-run that has not finished decides, not this first failure
    pytest.param(
        diag(Category.TRANSIENT),
        [[rerun(SHA)]],
        {},
        {},
        {},
        skip(SkipReason.ALREADY_ATTEMPTED),
        id="rerun-pending-in-another-run-of-the-commit",
    ),
    pytest.param(
        diag(Category.TRANSIENT),
        [[rerun(SHA), esc(SHA)]],
        {},
        {},
        {},
        skip(SkipReason.ALREADY_ATTEMPTED),
        id="another-runs-rerun-escalated-already",
    ),
    pytest.param(
        diag(Category.TRANSIENT),
        [[rerun(SHA), Marker(Kind.RESET, SHA, "test", run_id=99, run_attempt=2)]],
        {},
        {},
        {},
        ESCALATE,
        id="another-runs-rerun-has-finished",
    ),
    pytest.param(
        diag(Category.TRANSIENT),
        [],
        {},
        {},
        {"run_attempt": 2},
        ESCALATE,
        id="transient-run-attempt-counts-reruns",
    ),
    pytest.param(
        diag(Category.TRANSIENT),
        [[rerun(SHA)]],
        {"max_reruns": 2},
        {},
        {"run_attempt": 2},
        RERUN,
        id="transient-second-rerun-within-budget",
    ),
    pytest.param(
        diag(Category.TRANSIENT), [[rerun(OLD1)]], {}, {}, {}, RERUN, id="rerun-budget-is-per-commit"
    ),
    pytest.param(
        diag(Category.TRANSIENT), [], {"max_reruns": 0}, {}, {}, ESCALATE, id="transient-max-reruns-0"
    ),
    pytest.param(diag(Category.INFRASTRUCTURE), [], {}, {}, {}, RERUN, id="infrastructure-reruns-first"),
    pytest.param(
        diag(Category.INFRASTRUCTURE),
        [[rerun(SHA, run_id=RUN_ID)]],
        {},
        {},
        {"run_attempt": 2},
        ESCALATE,
        id="infrastructure-escalates-after-rerun",
    ),
    pytest.param(
        diag(Category.INFRASTRUCTURE),
        [[rerun(SHA, run_id=RUN_ID), reset(SHA)]],
        {},
        {},
        {"run_attempt": 2},
        ESCALATE,
        id="reset-does-not-refill-reruns",
    ),
    pytest.param(
        diag(Category.TEST, Action.RERUN),
        [[rerun(SHA, run_id=RUN_ID)]],
        {},
        {},
        {"run_attempt": 2},
        heal(1),
        id="rerun-rule-on-test-heals-after-reruns",
    ),
    # timeout, config
    pytest.param(diag(Category.TIMEOUT), [], {}, {}, {}, ESCALATE, id="timeout-escalates"),
    pytest.param(
        diag(Category.TIMEOUT), [], {"rerun_timeouts": True}, {}, {}, RERUN, id="timeout-rerun-once"
    ),
    pytest.param(
        diag(Category.TIMEOUT),
        [[rerun(SHA)]],
        {"rerun_timeouts": True},
        {},
        {},
        ESCALATE,
        id="timeout-escalates-after-its-rerun",
    ),
    pytest.param(diag(Category.CONFIG), [], {}, {}, {}, ESCALATE, id="config-escalates"),
    pytest.param(
        diag(Category.CONFIG),
        [[esc(OLD1)]],
        {},
        {},
        {},
        skip(SkipReason.ALREADY_ATTEMPTED),
        id="config-escalates-once",
    ),
    pytest.param(
        diag(Category.CONFIG),
        [[esc(OLD1), reset(OLD1)]],
        {},
        {},
        {},
        ESCALATE,
        id="config-escalates-again-after-reset",
    ),
    # not a verdict
    pytest.param(diag(Category.CANCELLED), [], {}, {}, {}, skip(SkipReason.NOT_ACTIONABLE), id="cancelled"),
    pytest.param(
        diag(Category.TEST, Action.IGNORE), [], {}, {}, {}, skip(SkipReason.NOT_ACTIONABLE), id="ignore"
    ),
    # heal modes
    pytest.param(LINT_FIX, [], {}, {}, {}, heal(1, HealMode.FIX), id="lint-fix-rule"),
    pytest.param(
        diag(Category.FORMAT, Action.FIX, ("ruff format .",)),
        [],
        {},
        {},
        {},
        heal(1, HealMode.FIX),
        id="format-fix-rule",
    ),
    pytest.param(
        diag(Category.FORMAT, Action.FIX), [], {}, {}, {}, heal(1), id="fix-without-commands-is-agent"
    ),
    pytest.param(diag(Category.LINT), [], {}, {}, {}, heal(1), id="lint-without-fix-rule-is-agent"),
    pytest.param(diag(Category.TYPECHECK), [], {}, {}, {}, heal(1), id="typecheck-agent"),
    pytest.param(diag(Category.TEST), [], {}, {}, {}, heal(1), id="test-agent"),
    pytest.param(diag(Category.BUILD), [], {}, {}, {}, heal(1), id="build-agent"),
    pytest.param(diag(Category.DEPENDENCY), [], {}, {}, {}, heal(1), id="dependency-agent"),
    pytest.param(diag(Category.UNKNOWN), [], {}, {}, {}, heal(1), id="unknown-agent"),
    pytest.param(
        diag(Category.UNKNOWN),
        [],
        {"unknown_action": "escalate"},
        {},
        {},
        ESCALATE,
        id="unknown-escalates-when-configured",
    ),
    pytest.param(
        diag(Category.TEST), [], {"agent_command": ""}, {}, {}, ESCALATE, id="agent-needed-but-none"
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {"agent_command": "", "delivery": "none"},
        {},
        {},
        heal(1),
        id="delivery-none-hands-frame-on",
    ),
    pytest.param(LINT_FIX, [], {"agent_command": ""}, {}, {}, heal(1, HealMode.FIX), id="fix-needs-no-agent"),
    # the heal budget
    pytest.param(diag(Category.TEST), [[att(OLD1, 1)]], {}, {}, {}, heal(2), id="second-attempt-on-new-sha"),
    pytest.param(
        diag(Category.TEST),
        [[att(SHA, 1)]],
        {},
        {},
        {},
        skip(SkipReason.ALREADY_ATTEMPTED),
        id="same-sha-is-idempotent",
    ),
    pytest.param(
        diag(Category.TEST),
        [[att(OLD1, 1)], [att(SHA, 2)]],
        {},
        {},
        {"run_attempt": 2},
        skip(SkipReason.ALREADY_ATTEMPTED),
        id="rerun-of-healed-sha-spends-nothing",
    ),
    pytest.param(
        diag(Category.TEST),
        [[att(OLD1, 1)], [att(OLD2, 2)], [att(OLD3, 3)]],
        {},
        {},
        {},
        ESCALATE,
        id="budget-spent-escalates",
    ),
    pytest.param(
        diag(Category.TEST),
        [[att(OLD1, 1)], [att(OLD2, 2)], [att(OLD3, 3)], [esc(OLD3)]],
        {},
        {},
        {},
        skip(SkipReason.EXHAUSTED),
        id="exhausted-after-escalation",
    ),
    pytest.param(
        diag(Category.TEST),
        [[att(OLD1, 1)], [att(OLD3, 3)]],
        {},
        {},
        {},
        ESCALATE,
        id="deleted-middle-comment-gives-no-fresh-budget",
    ),
    pytest.param(
        diag(Category.TEST),
        [[att(OLD1, 1), att(OLD2, 2), att(OLD3, 3), esc(OLD3), reset(OLD3)]],
        {},
        {},
        {},
        heal(1),
        id="reset-restores-budget",
    ),
    pytest.param(
        diag(Category.TEST), [], {"max_attempts": 0}, {}, {}, ESCALATE, id="max-attempts-0-escalates"
    ),
    pytest.param(
        diag(Category.TEST),
        [[esc(OLD1)]],
        {"max_attempts": 0},
        {},
        {},
        skip(SkipReason.EXHAUSTED),
        id="max-attempts-0-escalates-once",
    ),
    pytest.param(
        diag(Category.TEST),
        [[esc(OLD1, check="other")]],
        {"max_attempts": 0},
        {},
        {},
        ESCALATE,
        id="escalation-is-per-check",
    ),
    pytest.param(
        diag(Category.TEST), [[esc(OLD1)]], {}, {}, {}, heal(1), id="earlier-escalation-does-not-block-heal"
    ),
    pytest.param(
        diag(Category.CONFIG),
        [[Marker(Kind.ESCALATION, SHA, "test", run_id=RUN_ID, run_attempt=1)]],
        {},
        {},
        {},
        skip(SkipReason.ALREADY_ATTEMPTED),
        id="same-run-handled",
    ),
    # the pull request
    pytest.param(
        diag(Category.TEST), [], {}, {"head_sha": OLD1}, {}, skip(SkipReason.STALE_HEAD), id="stale-head"
    ),
    pytest.param(
        diag(Category.TEST), [], {}, {"state": "closed"}, {}, skip(SkipReason.NOT_ACTIONABLE), id="closed-pr"
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {},
        {"head_repository": "fork/app"},
        {},
        skip(SkipReason.FORK_POLICY),
        id="fork-diagnose",
    ),
    pytest.param(
        diag(Category.TEST), [], {}, {}, {"is_fork": True}, skip(SkipReason.FORK_POLICY), id="fork-from-run"
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {"fork_policy": "ignore"},
        {"head_repository": "fork/app"},
        {},
        skip(SkipReason.FORK_POLICY),
        id="fork-ignore",
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {},
        {"labels": ("bug", "CI-Healer:Off")},
        {},
        skip(SkipReason.DISABLED),
        id="opt-out-label",
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {},
        {"author": "dependabot[bot]"},
        {},
        skip(SkipReason.DISABLED),
        id="deny-dependabot",
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {},
        {"author": "Renovate[bot]"},
        {},
        skip(SkipReason.DISABLED),
        id="deny-renovate",
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {"allow_authors": ("bob",)},
        {},
        {},
        skip(SkipReason.DISABLED),
        id="not-on-allow-list",
    ),
    pytest.param(diag(Category.TEST), [], {"allow_authors": ("Alice",)}, {}, {}, heal(1), id="on-allow-list"),
    pytest.param(
        diag(Category.TEST),
        [],
        {},
        {"head_ref": f"{FIX_BRANCH_PREFIX}7-aaaaaaa"},
        {},
        skip(SkipReason.DISABLED),
        id="loop-guard-fix-branch",
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {},
        {},
        {"head_branch": f"{FIX_BRANCH_PREFIX}7-aaaaaaa"},
        skip(SkipReason.DISABLED),
        id="loop-guard-run-branch",
    ),
    pytest.param(
        diag(Category.TEST), [], {}, {"author": BOT}, {}, skip(SkipReason.DISABLED), id="loop-guard-bot-pr"
    ),
    # per-check settings from the config file
    pytest.param(
        diag(Category.TEST),
        [],
        {"checks": {"test": {"enabled": False}}},
        {},
        {},
        skip(SkipReason.DISABLED),
        id="check-disabled",
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {"checks": {"te*": {"enabled": False}}},
        {},
        {},
        skip(SkipReason.DISABLED),
        id="check-disabled-by-glob",
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {"checks": {"lint": {"enabled": False}}},
        {},
        {},
        heal(1),
        id="other-check-disabled",
    ),
    pytest.param(
        diag(Category.TEST),
        [],
        {"checks": {"test": {"action": "escalate"}}},
        {},
        {},
        ESCALATE,
        id="check-action-override",
    ),
    pytest.param(
        diag(Category.TEST),
        [[att(OLD1, 1)]],
        {"checks": {"test": {"max_attempts": 1}}},
        {},
        {},
        ESCALATE,
        id="check-max-attempts-override",
    ),
    pytest.param(
        diag(Category.TRANSIENT),
        [[rerun(SHA)]],
        {"checks": {"test": {"max_reruns": 2}}},
        {},
        {},
        RERUN,
        id="check-max-reruns-override",
    ),
]

# Budgets are per (workflow, check). RUN has no workflow file, so its workflow is its name, "CI"; a run with
# a file (``workflow_path``) is keyed by the file.
CI_FILE, NIGHTLY_FILE = ".github/workflows/ci.yml", ".github/workflows/nightly.yml"


def in_wf(workflow, *markers):
    return [replace(marker, workflow=workflow) for marker in markers]


SPENT = (att(OLD1, 1), att(OLD2, 2), att(OLD3, 3))
ROWS += [
    pytest.param(
        diag(Category.TEST),
        [in_wf(NIGHTLY_FILE, *SPENT, esc(OLD3))],
        {},
        {},
        {"workflow_path": CI_FILE},
        heal(1),
        id="workflow-another-workflows-budget-spent-and-escalated",
    ),
    pytest.param(
        diag(Category.TEST),
        [in_wf(CI_FILE, *SPENT)],
        {},
        {},
        {"workflow_path": CI_FILE},
        ESCALATE,
        id="workflow-own-budget-spent",
    ),
    pytest.param(
        diag(Category.TEST),
        [in_wf(CI_FILE, *SPENT, esc(OLD3))],
        {},
        {},
        {"workflow_path": CI_FILE},
        skip(SkipReason.EXHAUSTED),
        id="workflow-own-escalation-said-once",
    ),
    pytest.param(
        diag(Category.TEST),
        [in_wf(NIGHTLY_FILE, att(SHA, 1))],
        {},
        {},
        {"workflow_path": CI_FILE},
        heal(1),
        id="workflow-commit-healed-in-another-workflow",
    ),
    pytest.param(
        diag(Category.TRANSIENT),
        [in_wf(NIGHTLY_FILE, rerun(SHA))],
        {},
        {},
        {"workflow_path": CI_FILE},
        RERUN,
        id="workflow-another-workflows-rerun-is-not-ours",
    ),
    pytest.param(
        diag(Category.TRANSIENT),
        [in_wf(CI_FILE, rerun(SHA))],
        {},
        {},
        {"workflow_path": CI_FILE},
        skip(SkipReason.ALREADY_ATTEMPTED),
        id="workflow-own-rerun-pending-in-another-run",
    ),
    pytest.param(
        diag(Category.TEST),
        [[*SPENT], in_wf(NIGHTLY_FILE, reset(OLD3))],
        {},
        {},
        {"workflow_path": CI_FILE},
        ESCALATE,
        id="workflow-markers-without-one-count-for-every-workflow",
    ),
    pytest.param(
        diag(Category.TEST),
        [[*SPENT], in_wf(CI_FILE, reset(OLD3))],
        {},
        {},
        {"workflow_path": CI_FILE},
        heal(1),
        id="workflow-markers-without-one-end-at-the-workflows-reset",
    ),
    pytest.param(
        diag(Category.TEST),
        [in_wf("CI", *SPENT)],
        {},
        {},
        {},
        ESCALATE,
        id="workflow-named-when-the-payload-has-no-file",
    ),
]


@pytest.mark.parametrize(("diagnosis", "history", "config", "pull", "run", "expected"), ROWS)
def test_decide(diagnosis, history, config, pull, run, expected):
    plan = plan_one(
        diagnosis,
        *history,
        config=replace(CONFIG, **config),
        pull=replace(PULL, **pull),
        run=replace(RUN, **run),
    )
    assert (plan.verdict, plan.reason, plan.mode, plan.attempt) == expected
    assert plan.detail and "@" not in plan.detail
    assert plan.diagnosis == diagnosis
    if plan.verdict is Verdict.HEAL:
        assert 1 <= plan.attempt <= plan.max_attempts


def test_heal_reports_k_of_n_and_history():
    plan = plan_one(
        diag(Category.TEST), [att(OLD1, 1)], [rerun(OLD2)], config=replace(CONFIG, max_attempts=5)
    )
    assert (plan.attempt, plan.max_attempts) == (2, 5)
    assert [(past.kind, past.sha) for past in plan.history] == [("attempt", OLD1), ("rerun", OLD2)]
    assert "2 of 5" in plan.detail


def test_fork_diagnosis_is_posted_once_per_commit():
    fork = replace(PULL, head_repository="fork/app")
    assert plan_one(diag(Category.TEST), pull=fork).diagnose
    posted = [Marker(Kind.DIAGNOSIS, SHA, "test", run_id=1, run_attempt=1)]
    assert not plan_one(diag(Category.TEST), posted, pull=fork).diagnose
    assert not plan_one(diag(Category.TEST), config=replace(CONFIG, fork_policy="ignore"), pull=fork).diagnose
    assert not plan_one(diag(Category.CANCELLED), pull=fork).diagnose


def test_stale_head_skips_everything_and_resets_nothing():
    ledger = ledger_of([att(OLD1, 1, check="lint")])
    plan = decide(
        {"test": diag(Category.TEST), "build": diag(Category.BUILD)},
        passed=["lint"],
        ledger=ledger,
        config=CONFIG,
        pull=replace(PULL, head_sha=OLD2),
        run=RUN,
    )
    assert [p.reason for p in plan.checks] == [SkipReason.STALE_HEAD] * 2
    assert plan.resets == ()
    assert acting(plan) == ()


def test_resets_are_passed_checks_with_history():
    ledger = ledger_of(
        [att(OLD1, 1, check="lint"), esc(OLD1, check="docs"), rerun(OLD1, check="e2e")],
        [att(OLD2, 1, check="old"), reset(OLD2, check="old")],
    )
    plan = decide(
        {"test": diag(Category.TEST)},
        passed=["lint", "docs", "e2e", "old", "fresh", "lint"],
        ledger=ledger,
        config=CONFIG,
        pull=PULL,
        run=RUN,
    )
    assert plan.resets == ("lint", "docs", "e2e")


def test_a_disabled_pull_request_resets_nothing():
    ledger = ledger_of([att(OLD1, 1, check="lint")])
    plan = decide(
        {},
        passed=["lint"],
        ledger=ledger,
        config=CONFIG,
        pull=replace(PULL, labels=("ci-healer:off",)),
        run=RUN,
    )
    assert plan.resets == ()


def test_several_checks_get_their_own_plans_in_order():
    plan = decide(
        {"lint": LINT_FIX, "test": diag(Category.TEST), "net": diag(Category.TRANSIENT)},
        ledger=ledger_of([att(OLD1, 1, check="test")]),
        config=CONFIG,
        pull=PULL,
        run=RUN,
    )
    assert [(p.check, p.verdict, p.attempt) for p in plan.checks] == [
        ("lint", Verdict.HEAL, 1),
        ("test", Verdict.HEAL, 2),
        # the heals bring a new commit whose CI runs `net` again: re-running the old one would waste a try
        ("net", Verdict.SKIP, 0),
    ]
    assert plan.checks[2].reason is SkipReason.HEAL_PLANNED
    assert len(acting(plan)) == 2


def test_a_transient_failure_alone_is_still_rerun():
    plan = decide({"net": diag(Category.TRANSIENT)}, ledger=ledger_of([]), config=CONFIG, pull=PULL, run=RUN)
    assert [(p.check, p.verdict) for p in plan.checks] == [("net", Verdict.RERUN)]


# -- claims --------------------------------------------------------------------------------------------------


def with_claims(*bodies):
    return [Comment(id=i + 1, author=BOT, body=body) for i, body in enumerate(bodies)]


def test_an_open_claim_of_another_run_means_claimed_elsewhere():
    plan = plan_one(diag(Category.TEST), comments=with_claims(claim_body(SHA, 1, 1)))
    assert (plan.verdict, plan.reason) == (Verdict.SKIP, SkipReason.CLAIMED_ELSEWHERE)
    assert plan.attempt == 0 and plan.mode is None


def test_the_winning_claim_acts_and_the_loser_does_not():
    listed = with_claims(claim_body(SHA, RUN_ID, 1), claim_body(SHA, 501, 1))
    assert plan_one(diag(Category.TEST), comments=listed, claim_id=1).verdict is Verdict.HEAL
    loser = plan_one(diag(Category.TEST), comments=listed, claim_id=2)
    assert loser.reason is SkipReason.CLAIMED_ELSEWHERE


def test_a_settled_claim_does_not_block_the_next_run():
    first = add_markers(claim_body(SHA, 1, 1), [rerun(SHA, run_id=1, run_attempt=1)])
    plan = plan_one(
        diag(Category.TRANSIENT), comments=with_claims(first), run=replace(RUN, run_id=1, run_attempt=2)
    )
    assert plan.verdict is Verdict.ESCALATE


def test_a_claim_on_another_commit_does_not_block():
    assert plan_one(diag(Category.TEST), comments=with_claims(claim_body(OLD1, 1, 1))).verdict is Verdict.HEAL


def test_a_missing_own_claim_is_reported_as_a_bot_login_problem():
    ledger = Ledger.from_comments(
        [Comment(id=1, author="someone-else", body=claim_body(SHA, RUN_ID, 1))], BOT
    )
    plan = decide({"test": diag(Category.TEST)}, ledger=ledger, config=CONFIG, pull=PULL, run=RUN, claim_id=1)
    assert plan.checks[0].reason is SkipReason.CLAIMED_ELSEWHERE
    assert any("bot-login" in note for note in plan.notes)


def test_skips_need_no_claim():
    plan = plan_one(diag(Category.CANCELLED), comments=with_claims(claim_body(SHA, 1, 1)))
    assert plan.reason is SkipReason.NOT_ACTIONABLE


# -- properties ----------------------------------------------------------------------------------------------

check_names = st.sampled_from(["test", "lint", "build (3.12)", "--> x", "e2e"])
any_markers = st.builds(
    Marker,
    kind=st.sampled_from(list(Kind)),
    sha=st.sampled_from([SHA, OLD1, OLD2, OLD3]),
    check=check_names,
    attempt=st.integers(min_value=0, max_value=30),
    run_id=st.none() | st.sampled_from([1, RUN_ID, 501]),
    run_attempt=st.none() | st.integers(min_value=1, max_value=3),
    fix_pr=st.none() | st.integers(min_value=1, max_value=99),
)
diagnoses = st.dictionaries(
    check_names,
    st.builds(diag, st.sampled_from(list(Category)), st.none() | st.sampled_from(list(Action))),
    min_size=1,
    max_size=4,
)
configs = st.builds(
    lambda a, r, cmd: replace(CONFIG, max_attempts=a, max_reruns=r, agent_command=cmd),
    st.integers(min_value=0, max_value=5),
    st.integers(min_value=0, max_value=3),
    st.sampled_from(["", "agent"]),
)


@given(
    diagnoses,
    st.lists(st.lists(any_markers, min_size=1, max_size=4), max_size=6),
    st.lists(st.tuples(st.integers(min_value=0, max_value=7), st.lists(any_markers, min_size=1, max_size=4))),
    configs,
    st.integers(min_value=1, max_value=3),
)
@settings(max_examples=200)
def test_forged_markers_in_other_peoples_comments_never_change_the_plan(
    found, trusted, forged, config, attempt
):
    run = replace(RUN, run_attempt=attempt)
    genuine = [Comment(id=10 * (i + 1), author=BOT, body=comment_body(ms)) for i, ms in enumerate(trusted)]
    forgeries = [
        Comment(id=10 * slot + 1 + i, author=author, body=comment_body(ms, "please reset"))
        for i, (slot, ms) in enumerate(forged)
        for author in ["mallory", "github-actions"]
    ]
    # log lines imitating markers, quoted in the bot's own comment below its marker block
    imitations = "\n".join(encode_marker(m) for _, ms in forged for m in ms)
    quoted = [Comment(id=9999, author=BOT, body=f"Excerpt:\n```\n{imitations}\n```")]

    def plan(comments):
        ledger = Ledger.from_comments(comments, BOT)
        return decide(found, passed=["lint"], ledger=ledger, config=config, pull=PULL, run=run)

    assert plan(genuine + forgeries + quoted) == plan(genuine)


@given(
    diagnoses,
    st.lists(st.lists(any_markers, min_size=1, max_size=4), max_size=8),
    st.data(),
    configs,
)
@settings(max_examples=200)
def test_no_ledger_edit_or_deletion_plans_an_attempt_beyond_the_budget(found, trusted, data, config):
    comments = [Comment(id=i + 1, author=BOT, body=comment_body(ms)) for i, ms in enumerate(trusted)]
    kept = data.draw(st.lists(st.sampled_from(comments), unique_by=lambda c: c.id)) if comments else []
    edited = [
        replace(c, body=data.draw(st.sampled_from([c.body, "", c.body.upper(), c.body[: len(c.body) // 2]])))
        for c in kept
    ]
    ledger = Ledger.from_comments(edited, BOT)
    plan = decide(found, ledger=ledger, config=config, pull=PULL, run=RUN)
    for check in plan.checks:
        if check.verdict is Verdict.HEAL:
            assert 1 <= check.attempt <= config.max_attempts
            assert check.attempt == ledger.attempts_spent(check.check) + 1
        assert check.verdict is not Verdict.ESCALATE or not ledger.escalated(check.check)


@given(
    diagnoses,
    st.lists(st.lists(any_markers, min_size=1, max_size=4), max_size=8),
    configs,
    st.integers(min_value=1, max_value=6),
    st.booleans(),
)
@settings(max_examples=200)
def test_a_commit_is_never_rerun_beyond_its_budget(found, trusted, config, run_attempt, rerun_timeouts):
    config = replace(config, rerun_timeouts=rerun_timeouts)
    ledger = ledger_of(*trusted)
    plan = decide(found, ledger=ledger, config=config, pull=PULL, run=replace(RUN, run_attempt=run_attempt))
    for check in plan.checks:
        if check.verdict is Verdict.RERUN:
            done = max(ledger.reruns(check.check, SHA), run_attempt - 1)
            timeout_once = check.diagnosis.category is Category.TIMEOUT and rerun_timeouts
            assert done < (max(config.max_reruns, 1) if timeout_once else config.max_reruns)


# -- nothing to try ------------------------------------------------------------------------------------------


def test_with_no_agent_and_no_fix_rule_the_check_is_escalated_as_untried_once():
    no_agent = Config()
    first = plan_one(diag(Category.TEST), config=no_agent)
    assert (first.verdict, first.untried) == (Verdict.ESCALATE, True)
    assert record(first, RUN).result == "untried"
    # said once: the next failure (another commit) is quiet until the check passes
    again = plan_one(diag(Category.TEST), [record(first, RUN)], config=no_agent, run=replace(RUN, run_id=501))
    assert again.verdict is Verdict.SKIP
    # a fix rule is something to try; an agent too; a spent budget is a real escalation
    assert plan_one(LINT_FIX, config=no_agent, check="lint").verdict is Verdict.HEAL
    assert plan_one(diag(Category.TEST)).verdict is Verdict.HEAL
    spent = plan_one(diag(Category.TEST), config=replace(no_agent, max_attempts=0))
    assert (spent.verdict, spent.untried) == (Verdict.ESCALATE, False)


def test_an_escalation_after_a_rerun_no_marker_recorded_still_lists_the_rerun():
    # the re-run found no healer comment to record it in: GitHub's run attempt counted it
    plan = plan_one(diag(Category.TRANSIENT), run=replace(RUN, run_attempt=2))
    assert plan.verdict is Verdict.ESCALATE
    assert [(p.kind, p.sha, p.run_id) for p in plan.history] == [("rerun", SHA, RUN_ID)]
    # recorded: listed once, not twice
    plan = plan_one(diag(Category.TRANSIENT), [rerun(SHA, run_id=RUN_ID)], run=replace(RUN, run_attempt=2))
    assert [(p.kind, p.run_id) for p in plan.history] == [("rerun", RUN_ID)]
    # a first failure escalated for another reason lists no re-run that did not happen
    plan = plan_one(diag(Category.TRANSIENT), config=replace(CONFIG, max_reruns=0))
    assert plan.verdict is Verdict.ESCALATE and plan.history == ()
