"""A failure the diagnosis re-runs first (other tests of its run passed on a retry): re-run once, then the
code's when the same commit fails again; known flaky tests stay history's."""

from dataclasses import replace

from pullrun import BOT, CONFIG, PULL, RUN, RUN_ID, SHA

from healer.diagnosis.owner import reassigned
from healer.ledger.ledger import Kind, Ledger, Marker, comment_body
from healer.model import Action, Category, Comment, Diagnosis, HealMode, Owner, Verdict
from healer.run.policy import decide
from healer.run.testhistory import failed_again, from_history


def rerun(sha, run_id):
    return Marker(Kind.RERUN, sha, "test", run_id=run_id, run_attempt=1)


def plan_one(diagnosis, markers=(), *, config=CONFIG, run=RUN):
    comments = [Comment(id=1, author=BOT, body=comment_body(list(markers)))] if markers else []
    ledger = Ledger.from_comments(comments, BOT)
    plan = decide({"test": diagnosis}, ledger=ledger, config=config, pull=PULL, run=run)
    return plan.checks[0]


FAILED = Diagnosis(
    category=Category.TEST,
    confidence=0.9,
    rule="python.pytest-failed",
    action=Action.AGENT,
    excerpt=("FAILED tests/t.py::test_lru - assert 3 == 2",),
    test_ids=("tests/t.py::test_lru",),
    owner=Owner.CODE,
)
FIRST = replace(
    reassigned(FAILED, Owner.HISTORY, "tests/t.py::test_ttl passed on a retry", "rerun", action=Action.RERUN),
    rerun_first=True,
)
# the failed run's re-run (GitHub's next attempt of the same run), after the healer recorded its re-run
AGAIN = replace(RUN, run_attempt=2)


def test_a_failure_to_re_run_first_is_re_run_on_its_first_failure():
    plan = plan_one(FIRST)
    assert plan.verdict is Verdict.RERUN
    assert plan.diagnosis.owner is Owner.HISTORY


def test_the_same_commit_failing_again_after_its_re_run_goes_to_the_agent():
    plan = plan_one(FIRST, [rerun(SHA, RUN_ID)], run=AGAIN)
    assert (plan.verdict, plan.mode, plan.attempt) == (Verdict.HEAL, HealMode.AGENT, 1)
    assert (plan.diagnosis.owner, plan.diagnosis.rerun_first) == (Owner.CODE, False)
    assert dict(plan.diagnosis.decided_by)["history"] == f"failed again after a re-run of {SHA[:7]}"
    # GitHub's own count says so too, when the re-run found no healer comment to record it in
    plan = plan_one(FIRST, run=AGAIN)
    assert plan.verdict is Verdict.HEAL


def test_another_run_of_the_commit_waits_for_the_re_run_that_has_not_finished():
    plan = plan_one(FIRST, [rerun(SHA, RUN_ID)], run=replace(RUN, run_id=RUN_ID + 1))
    assert plan.verdict is Verdict.SKIP
    assert "has not finished" in plan.detail


def test_a_flaky_failure_that_is_not_to_be_re_run_first_escalates_after_its_re_runs():
    plain = replace(FIRST, rerun_first=False)
    plan = plan_one(plain, [rerun(SHA, RUN_ID)], config=replace(CONFIG, max_reruns=1), run=AGAIN)
    assert plan.verdict is Verdict.ESCALATE


def test_a_checks_own_action_in_the_config_file_wins_over_the_history():
    config = replace(CONFIG, checks={"test": {"action": "escalate"}})
    plan = plan_one(FIRST, [rerun(SHA, RUN_ID)], run=AGAIN, config=config)
    assert plan.verdict is not Verdict.HEAL
    assert plan.diagnosis.owner is Owner.HISTORY


def test_failed_again_keeps_every_other_diagnosis_and_a_first_failure():
    assert failed_again(FAILED, 3, SHA) is FAILED
    assert failed_again(FIRST, 0, SHA) is FIRST
    assert from_history(FAILED).owner is Owner.HISTORY
