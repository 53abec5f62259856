"""End to end: ``/ci-healer`` commands in pull-request comments — who may command, what each one does, and
what it leaves alone."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from commands_harness import bot_comments_after, command, comment_payload, operations, reactions
from harness import PASSED, agent_reports, failing_test_pull, heal, write_agent

from healer.demo.sandbox import Sandbox

FIX_ADD = (
    "report(ran=True)\n"
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
    "print('Fixed add().')\n"
)


def test_a_retry_by_a_maintainer_after_an_escalation_heals_once_more(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    log = box.standin.jobs[max(box.standin.jobs)].log.decode()
    agent = tmp_path / "agent"
    inputs = {"agent-command": write_agent(agent, FIX_ADD), "max-attempts": "1"}
    assert heal(box, run, inputs=inputs).outputs["decision"] == "healed"
    box.push_to_pull(pull, {"README.md": "# widgets\n\nagain\n"}, "Another commit")
    run = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", log)])
    assert heal(box, run, inputs=inputs).outputs["decision"] == "escalated"
    assert len(agent_reports(agent)) == 1
    # the maintain role: GitHub reports its legacy `permission` as "write"
    box.standin.set_permission(box.repo, "maintainer", "maintain")

    result, asked = command(box, pull, "/ci-healer retry", inputs=inputs)

    assert (result.outputs["decision"], result.outputs["attempt"]) == ("healed", "2")
    assert len(agent_reports(agent)) == 2  # the agent ran once more
    assert reactions(box, asked) == ["eyes"]
    [outcome] = bot_comments_after(box, pull, asked)
    assert '"kind":"attempt"' in outcome.body and '"by":"maintainer"' in outcome.body
    assert "Asked for with `/ci-healer retry` by `maintainer`" in outcome.body
    assert "Attempt 2 of 2" in outcome.body
    assert len(box.standin.created_pulls(box.repo)) == 2
    # the grant was for one attempt: the next failure on this pull request stays quiet (escalated before)
    box.push_to_pull(pull, {"README.md": "# widgets\n\nthird\n"}, "Third commit")
    run = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", log)])
    assert heal(box, run, inputs=inputs).outputs["decision"] == "skipped"
    assert len(agent_reports(agent)) == 2


def test_a_retry_by_a_user_with_read_permission_only_gets_a_reply(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    agent = tmp_path / "agent"
    inputs = {"agent-command": write_agent(agent, FIX_ADD), "max-attempts": "1"}
    box.standin.set_permission(box.repo, "reader", "read")

    result, asked = command(box, pull, "/ci-healer retry test (3.12)", author="reader", inputs=inputs)

    assert not agent_reports(agent)
    assert not box.standin.created_pulls(box.repo) and not box.standin.reruns
    [reply] = bot_comments_after(box, pull, asked)
    assert "needs write, maintain or admin permission" in reply.body and "`reader` has `read`" in reply.body
    assert reactions(box, asked) == ["eyes"]
    writes = [r.operation for r in result.requests if r.is_write]
    assert writes == ["reactions/create-for-issue-comment", "issues/create-comment"]
    assert operations(result) == [
        "reactions/create-for-issue-comment",
        "repos/get-collaborator-permission-level",
        "issues/create-comment",
    ]


def test_stop_adds_the_label_and_the_next_failure_is_left_alone(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    agent = tmp_path / "agent"
    inputs = {"agent-command": write_agent(agent, FIX_ADD)}
    box.standin.set_permission(box.repo, "maintainer", "write")

    result, asked = command(box, pull, "/ci-healer stop", inputs=inputs)
    assert pull.labels == ["ci-healer:off"]
    assert reactions(box, asked) == ["eyes", "+1"]
    assert not bot_comments_after(box, pull, asked)

    left = heal(box, run, inputs=inputs)
    assert left.outputs["decision"] == "skipped"
    assert not agent_reports(agent) and not box.standin.created_pulls(box.repo)

    # and `start` takes it off again: the next run heals
    _, again = command(box, pull, "/ci-healer start", inputs=inputs)
    assert pull.labels == [] and reactions(box, again) == ["eyes", "+1"]
    assert heal(box, run, inputs=inputs).outputs["decision"] == "healed"


def test_explain_posts_the_diagnosis_and_changes_nothing_else(box: Sandbox) -> None:
    pull, run = failing_test_pull(box)
    refs = box.origin_refs()

    # the PR's author has no write permission: explaining is not acting
    result, asked = command(box, pull, "/ci-healer explain", author="mona")

    [reply] = bot_comments_after(box, pull, asked)
    assert "`test (3.12)`" in reply.body and "category: **test**" in reply.body
    # whose it is, and what decided it: the step's purpose, the cause line, the table's row
    assert "whose: **code**; action: agent" in reply.body
    decided = "- decided by: `purpose: test (tool table: pytest); evidence: test: rule python.pytest"
    assert decided in reply.body
    assert "row: (code, test) → agent`" in reply.body
    assert "rule: `python.pytest" in reply.body
    assert "failing tests: `tests/test_calc.py::test_add`" in reply.body
    assert "Decisive lines:" in reply.body and "nothing was changed" in reply.body
    writes = [r.operation for r in result.requests if r.is_write]
    assert writes == ["reactions/create-for-issue-comment", "issues/create-comment"]
    assert box.origin_refs() == refs and pull.labels == [] and not box.standin.reruns
    assert "<!-- ci-healer:v1" not in reply.body  # no ledger record: nothing was spent


def test_unknown_commands_edits_issues_and_bots_are_not_obeyed(box: Sandbox) -> None:
    pull, run = failing_test_pull(box)
    box.standin.set_permission(box.repo, "maintainer", "admin")

    result, asked = command(box, pull, "/ci-healer fix everything")
    assert reactions(box, asked) == ["confused"]
    [reply] = bot_comments_after(box, pull, asked)
    assert "unknown command" in reply.body and "`/ci-healer help`" in reply.body

    edited, _ = command(box, pull, "/ci-healer stop", action="edited")
    by_bot, _ = command(box, pull, "/ci-healer stop", author="github-actions[bot]")
    on_issue = comment_payload(
        box, pull, box.standin.add_comment(box.repo, pull.number, "/ci-healer stop", author="x")
    )
    del on_issue["issue"]["pull_request"]  # type: ignore[index]
    issue, _ = command(box, pull, "/ci-healer stop", payload=on_issue)
    for ignored in (edited, by_bot, issue):
        assert ignored.requests == [] and ignored.returncode == 0
    assert pull.labels == []


def test_a_retry_on_a_fork_pull_request_posts_the_diagnosis_only(box: Sandbox, tmp_path: Path) -> None:
    box.add_fork("stranger/widgets")
    sha = box.commit(
        "patch-1", {"widgets/calc.py": "def add(a, b):\n    return a - b\n"}, "x", remote="stranger/widgets"
    )
    pull = box.open_pull("patch-1", sha, head_repo="stranger/widgets", author="stranger")
    log = "\n".join(
        [
            "##[group]Run python -m pytest -q",
            "FAILED tests/test_calc.py::test_add - assert -1 == 3",
            "1 failed in 0.01s",
            "##[error]Process completed with exit code 1.",
        ]
    )
    box.add_run(pull, [("test (3.12)", "failure", log)])
    agent = tmp_path / "agent"
    box.standin.set_permission(box.repo, "maintainer", "write")

    command(box, pull, "/ci-healer retry", inputs={"agent-command": write_agent(agent, FIX_ADD)})

    assert not agent_reports(agent) and not box.standin.created_pulls(box.repo)
    reply = box.standin.comments(box.repo, pull.number)[-1]
    assert "comes from a fork" in reply.body and "`tests/test_calc.py::test_add`" in reply.body


def test_the_comment_payload_validates_against_githubs_webhook_schema(box: Sandbox) -> None:
    pull, _ = failing_test_pull(box)
    comment = box.standin.add_comment(box.repo, pull.number, "/ci-healer help", author="mona")
    payload = comment_payload(box, pull, comment)
    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "github"
    schemas = json.loads((fixtures / "webhook-schemas.json").read_text())
    schema = {"definitions": schemas["definitions"], "$ref": "#/definitions/issue_comment$created"}
    jsonschema.Draft7Validator(schema).validate(payload)
    example = json.loads((fixtures / "webhooks" / "issue_comment.created.1.json").read_text())
    assert set(example["issue"]) <= set(payload["issue"]) and set(example["comment"]) <= set(
        payload["comment"]
    )
