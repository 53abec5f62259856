"""End to end: what a pull request's people are notified of, and what is only edited.

GitHub notifies on a created comment, a review request and a new pull request (and a mention in a created
text), never on an edit (BEHAVIOUR.md). Over a month of runs on several pull requests (a heal with its fix
pull request, a re-run and then an escalation, a broken trunk, checks with nothing to try), each run creates
at most one comment on the pull request, its first line is the news, and what asks something of a person
(the fix pull request to review, the escalation, the notice) is heard; outcomes and progress are edits.
"""

from __future__ import annotations

from harness import (
    BROKEN_ADD,
    LINT_PASSED,
    PASSED,
    failing_test_log,
    failing_test_pull,
    heal,
    job_log,
    lint_pull,
)

from healer.demo.notifications import Text, heard, texts
from healer.demo.sandbox import HealerRun, Sandbox, _step_name
from healer.ledger.markers import Kind, decode_markers

TEAM = "@octo-org/maintainers"
TRANSIENT_LOG = job_log(
    "test (3.12)",
    "git clone https://git.example-host.invalid/org/repo.git",
    [
        "Cloning into 'repo'...",
        "fatal: unable to access 'https://git.example-host.invalid/org/repo.git/': "
        "Could not resolve host: git.example-host.invalid",
    ],
    exit_code=128,
)


def on(result: HealerRun, number: int) -> list[tuple[str, str]]:
    """(kind, first line) of each text a run wrote on pull request ``number``."""
    return [(t.kind, t.first_line) for t in texts(result.requests) if t.number == number]


def created_comments(result: HealerRun, number: int) -> list[Text]:
    return [t for t in texts(result.requests) if t.kind == "comment" and t.number == number]


def test_a_heal_is_heard_only_as_the_review_request_of_its_fix(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    box.standin.set_permission(box.repo, pull.author, "write")  # a branch of this repository: a collaborator

    result = heal(box, run)

    assert result.outputs["decision"] == "healed"
    [fix] = box.standin.created_pulls(box.repo)
    # the claim is a push of the fix branch, the record an edit of the fix's body: nothing on the PR itself
    assert on(result, pull.number) == []
    assert [(t.kind, t.reviewers) for t in heard(result.requests)] == [
        ("pull request", ()),
        ("review request", (pull.author,)),
    ]
    assert fix.requested_reviewers == [pull.author]
    assert [kind for kind, _ in on(result, fix.number)] == [
        "pull request",
        "review request",
        "pull request edit",
    ]
    assert [m.kind for m in decode_markers(fix.body or "")] == [Kind.ATTEMPT]


def test_when_github_refuses_the_review_request_the_fix_pull_request_mentions_the_author(
    box: Sandbox,
) -> None:
    pull, run = lint_pull(box)  # `mona` has no role on the repository: GitHub refuses her review (422)

    result = heal(box, run)

    [fix] = box.standin.created_pulls(box.repo)
    refused = [r for r in result.requests if r.operation == "pulls/request-reviewers"]
    assert [r.status for r in refused] == [422]
    [(kind, first), (edit, _)] = on(result, fix.number)[1:]  # after the pull request itself
    assert edit == "pull request edit"  # the attempt's record, at the top of the fix's body
    assert kind == "comment" and first.startswith(f"@{pull.author}: this pull request fixes `lint` of #")
    assert [t.mentions for t in heard(result.requests) if t.number == fix.number and t.kind == "comment"] == [
        (pull.author,)
    ]
    # the mention is the one notification: the pull request itself gets no comment
    assert created_comments(result, pull.number) == []


def test_a_rerun_is_heard_by_nobody_and_the_escalation_after_it_is_created_with_its_news(
    box: Sandbox,
) -> None:
    sha = box.commit("feature/net", {"README.md": "# widgets\n\nnetwork\n"}, "Touch the README")
    pull = box.open_pull("feature/net", sha)
    run = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", TRANSIENT_LOG)])
    inputs = {"escalation-mention": TEAM}

    first = heal(box, run, inputs=inputs)
    box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", TRANSIENT_LOG)], run=run)
    second = heal(box, run, inputs=inputs)

    # the re-run: no claim, no comment, no edit (there is no healer comment to record it in)
    assert first.outputs["decision"] == "rerun"
    assert len(box.standin.reruns) == 1
    assert on(first, pull.number) == []
    assert heard(first.requests) == []
    assert [kind for kind, _ in on(second, pull.number)] == ["comment", "edit"]
    # a DNS outage after its re-run: the platform failed, not the author's code
    assert all(
        line
        == "### :raising_hand: `test (3.12)` needs a person: the platform failed, not the pull request's code"
        for _, line in on(second, pull.number)
    )
    [escalation_body] = [
        c.body for c in box.standin.comments(box.repo, pull.number) if "needs a person" in c.body
    ]
    assert "by hand" not in escalation_body.split("<details>")[0]
    assert f"`gh run rerun {run.id} --failed`" in escalation_body
    # the re-run that left no marker is still told (GitHub counted it: the run's attempt)
    assert "1 re-run of the job, which failed again." in escalation_body
    # the mention is in the created comment (an edit would notify nobody), and only one comment is created
    [escalation] = created_comments(second, pull.number)
    assert escalation.mentions == (TEAM.lstrip("@"),)


def test_a_rerun_that_passes_is_recorded_in_an_edit_of_the_healers_comment_and_notifies_nobody(
    box: Sandbox,
) -> None:
    pull, run = lint_pull(box)
    heal(
        box, run, inputs={"max-attempts": "0"}
    )  # the healer's comment on this pull request: `lint` escalated
    [before] = box.standin.comments(box.repo, pull.number)
    sha = box.push_to_pull(pull, {"README.md": "# widgets\n\nagain\n"}, "Touch the README")
    failed = box.add_run(
        pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", TRANSIENT_LOG)], sha=sha
    )

    first = heal(box, failed)

    assert first.outputs["decision"] == "rerun"
    assert heard(first.requests) == []
    assert [kind for kind, _ in on(first, pull.number)] == ["edit"]
    [after] = box.standin.comments(box.repo, pull.number)
    assert after.id == before.id
    reruns = [m for m in decode_markers(after.body) if m.kind is Kind.RERUN]
    assert [(m.check, m.sha, m.run_id) for m in reruns] == [("test (3.12)", sha, failed.id)]
    assert f":repeat: Re-ran `test (3.12)` on `{sha[:7]}`" in after.body

    # the re-run passes: nobody hears of it; the budget is reset in the same comment (an edit)
    passing = [("lint", "success", LINT_PASSED), ("test (3.12)", "success", PASSED)]
    green = heal(box, box.add_run(pull, passing, run=failed, conclusion="success"))
    assert heard(green.requests) == []
    assert [kind for kind, _ in on(green, pull.number)] == ["edit"]
    [done] = box.standin.comments(box.repo, pull.number)
    assert any(m.kind is Kind.RESET and m.check == "test (3.12)" for m in decode_markers(done.body))


def test_a_rerun_beside_an_escalation_is_told_in_the_escalations_comment(box: Sandbox) -> None:
    pull, run = failing_test_pull(box)
    # the same commit's other job hit a DNS outage: one run, a re-run and an escalation
    dns = TRANSIENT_LOG.replace("test (3.12)", "test (3.11)")
    box.standin.add_job(
        run, "test (3.11)", conclusion="failure", log=dns, steps=[(_step_name(dns), "failure")]
    )

    result = heal(box, run, inputs={"max-attempts": "0", "escalation-mention": TEAM})

    assert len(box.standin.reruns) == 1
    # the escalation is news: the run claims and creates its one comment, which tells the re-run too
    [created] = created_comments(result, pull.number)
    assert created.first_line.startswith("### :raising_hand: `test (3.12)` needs a person")
    [comment] = box.standin.comments(box.repo, pull.number)
    kinds = {m.kind for m in decode_markers(comment.body)}
    assert {Kind.RERUN, Kind.ESCALATION} <= kinds
    assert "Re-ran the job `test (3.11)`" in comment.body


def test_a_redelivered_event_does_not_rerun_twice_without_a_marker(box: Sandbox) -> None:
    sha = box.commit("feature/net", {"README.md": "# widgets\n\nnetwork\n"}, "Touch the README")
    pull = box.open_pull("feature/net", sha)
    run = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", TRANSIENT_LOG)])

    # the same workflow_run event (attempt 1), delivered twice: the healer's own job re-run
    event = box.write_event(run, "event-delivered.json")
    first = box.run_env(box.environment(event, {}, tag="first"))
    box.standin.idle()
    again = box.run_env(box.environment(event, {}, tag="again"))
    box.standin.idle()

    assert (first.returncode, again.returncode) == (0, 0), again.stdout[-3000:]
    assert first.outputs["decision"] == "rerun"
    assert again.outputs["decision"] == "skipped"
    assert len(box.standin.reruns) == 1
    assert f"run {run.id} was re-run already (attempt 2)" in again.summary
    assert box.standin.comments(box.repo, pull.number) == []


def test_checks_with_nothing_to_try_get_one_short_notice_per_pull_request(box: Sandbox) -> None:
    pull, run = failing_test_pull(box)
    inputs = {"escalation-mention": TEAM, "escalation-label": "needs-a-person"}

    first = heal(box, run, inputs=inputs)

    assert first.outputs["decision"] == "escalated"
    [(kind, line), (edit, _)] = on(first, pull.number)
    assert (kind, edit) == ("comment", "edit")
    assert line.startswith(
        ":information_source: **ci-healer** has nothing to try for this check, as no `agent-command` is"
    )
    [notice] = box.standin.comments(box.repo, pull.number)
    visible = [x for x in notice.body.split("\n") if x.strip() and not x.startswith("<!--")]
    assert (
        visible[1]
        == "- `test (3.12)` (test, `python -m pytest -q`): `E assert -1 == 5`. No fix rule applies."
    )
    assert "Tried" not in notice.body and TEAM not in notice.body  # not a failed attempt; nobody called
    assert "needs-a-person" not in box.standin.pulls(box.repo)[0].labels
    assert [m.result for m in decode_markers(notice.body) if m.kind is Kind.ESCALATION] == ["untried"]

    # the same check fails on the next commit: quiet; another check with nothing to try joins the notice
    sha = box.push_to_pull(pull, {"README.md": "# widgets\n\nmore\n"}, "More docs")
    test_log = failing_test_log(box)
    run = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", test_log),
                             ("test (3.13)", "failure", test_log.replace("3.12", "3.13"))])  # fmt: skip
    second = heal(box, run, inputs=inputs)

    [(kind, line)] = on(second, pull.number)
    assert kind == "edit"  # heard once: the notice is edited
    assert line.startswith(":information_source: **ci-healer** has nothing to try for these checks, as")
    [notice] = box.standin.comments(box.repo, pull.number)
    assert notice.body.count("- `test (3.1") == 2
    assert sha[:7] in notice.body


def test_a_broken_trunk_notice_is_created_once_then_quiet(box: Sandbox) -> None:
    main_sha = box.commit("main", {"widgets/calc.py": BROKEN_ADD}, "Simplify add()")
    log = failing_test_log(box)
    broken = box.standin.add_run(box.repo, head_sha=main_sha, head_branch="main", event="push")
    steps = [("Run actions/checkout@v5", "success"), (_step_name(log), "failure")]
    box.standin.add_job(broken, "test (3.12)", conclusion="failure", log=log, steps=steps)
    sha = box.commit("feature/docs", {"README.md": "# widgets\n\ndocs\n"}, "Docs", base=main_sha)
    pull = box.open_pull("feature/docs", sha, title="Docs")
    run = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", log)])

    first = heal(box, run, inputs={"agent-command": "false"})
    again = heal(
        box, box.add_run(pull, [("test (3.12)", "failure", log)], run=run), inputs={"agent-command": "false"}
    )

    assert on(first, pull.number) == [("comment", "### This check fails on `main` too")]
    assert on(again, pull.number) == []
