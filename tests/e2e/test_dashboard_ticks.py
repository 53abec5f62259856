"""End to end: a box ticked in the dashboard issue runs its ``/ci-healer`` command, once, for a person with
write access — and nothing else a person types into the issue is acted on.

The dashboard is the one the scheduled report keeps (``healer run`` on ``schedule``); a person's edit arrives
as GitHub sends it, the ``issues`` event with ``action: edited`` and the body before the edit in
``changes.body.from``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from commands_harness import operations
from harness import (
    PASSED,
    agent_reports,
    assert_no_token,
    check_contract,
    failing_test_pull,
    heal,
    write_agent,
)

from healer.demo import shapes
from healer.demo.api import Api
from healer.demo.historyops import issues_edited_event
from healer.demo.sandbox import HealerRun, Sandbox
from healer.demo.state import Issue
from healer.text.dashboard import DASHBOARD_MARKER

BOT = "github-actions[bot]"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "github"
FIX_ADD = (
    "report(ran=True)\n"
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
    "print('Fixed add().')\n"
)


def run_event(
    box: Sandbox, name: str, payload: dict[str, Any], tag: str, inputs: dict[str, str]
) -> HealerRun:
    event = box.root / f"event-{tag}.json"
    event.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    env = box.environment(event, inputs, tag=tag, event_name=name)
    env["GITHUB_RUN_ID"] = str(920_000 + len(box.standin.requests))
    result = box.run_env(env, timeout=90)
    box.standin.idle()
    assert result.returncode == 0 and "Traceback" not in result.stdout + result.stderr, (
        result.stdout[-4000:] + result.stderr[-4000:]
    )
    assert_no_token(box, result)
    check_contract(result.requests, box.standin.api_url)
    return result


def report(box: Sandbox, tag: str) -> Issue:
    """The scheduled report keeps the dashboard; returns it."""
    payload = {"schedule": "17 6 * * 1", "repository": {"full_name": box.repo}}
    run_event(box, "schedule", payload, tag, {"dashboard": "true", "report-window": "366d"})
    [issue] = [i for i in box.standin.issues(box.repo) if i.body.startswith(DASHBOARD_MARKER)]
    return issue


def edit(box: Sandbox, issue: Issue, body: str, editor: str) -> dict[str, Any]:
    """``editor`` saves ``body`` as the issue's body: the ``issues: edited`` payload GitHub sends."""
    before = box.standin.edit_issue(box.repo, issue.number, body)
    api = Api(box.standin)
    with box.standin._lock:
        return issues_edited_event(
            api._issue_shape(issue),
            before,
            api.repo_shape(box.standin.repos[box.repo.lower()]),
            shapes.user(editor, api.api, api.web),
        )


def tick(body: str, contains: str) -> str:
    found = [line for line in body.splitlines() if line.startswith("- [ ] ") and contains in line]
    assert len(found) == 1, body
    [line] = found
    return body.replace(line, line.replace("- [ ]", "- [x]", 1))


def escalated(box: Sandbox, tmp_path: Path) -> tuple[Any, dict[str, str], Path]:
    """A pull request healed once (its fix PR open) and then escalated, with max-attempts 1."""
    pull, run = failing_test_pull(box)
    log = box.standin.jobs[max(box.standin.jobs)].log.decode()
    agent = tmp_path / "agent"
    inputs = {"agent-command": write_agent(agent, FIX_ADD), "max-attempts": "1"}
    assert heal(box, run, inputs=inputs).outputs["decision"] == "healed"
    box.push_to_pull(pull, {"README.md": "# widgets\n\nagain\n"}, "Another commit")
    run = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", log)])
    assert heal(box, run, inputs=inputs).outputs["decision"] == "escalated"
    return pull, inputs, agent


def test_a_maintainer_ticks_retry_and_the_escalated_check_is_healed_once_more(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, inputs, agent = escalated(box, tmp_path)
    issue = report(box, "report")
    box.standin.set_permission(box.repo, "maintainer", "maintain")
    rendered = issue.body
    payload = edit(box, issue, tick(rendered, "/ci-healer retry test (3.12)"), "maintainer")

    result = run_event(box, "issues", payload, "tick", inputs)

    assert (result.outputs["decision"], result.outputs["attempt"]) == ("healed", "2")
    assert len(agent_reports(agent)) == 2
    ops = operations(result)
    assert ops[:4] == [
        "repos/get-collaborator-permission-level",
        "issues/get",
        "issues/update",
        "repos/get-content",
    ]
    assert box.standin.issues(box.repo)[0].body == rendered  # unticked again: the tick was handled
    [outcome] = [c for c in box.standin.comments(box.repo, pull.number) if '"by":"maintainer"' in c.body]
    assert "Asked for with `/ci-healer retry` by `maintainer`" in outcome.body
    writes = sum(r.is_write for r in result.requests)
    print(f"\nrequests for one retry tick: {len(ops)} ({writes} writes): {ops}")

    # the same event delivered again (a re-run of the workflow): the box is no longer ticked, nothing runs
    again = run_event(box, "issues", payload, "again", inputs)
    assert operations(again) == ["repos/get-collaborator-permission-level", "issues/get"]
    assert len(agent_reports(agent)) == 2


def test_a_ticked_close_box_closes_the_fix_pull_request_and_deletes_its_branch(
    box: Sandbox, tmp_path: Path
) -> None:
    escalated(box, tmp_path)
    [fix] = box.standin.created_pulls(box.repo)
    issue = report(box, "report")
    box.standin.set_permission(box.repo, "maintainer", "write")
    payload = edit(box, issue, tick(issue.body, f"close #{fix.number}"), "maintainer")

    result = run_event(box, "issues", payload, "close", {})

    assert operations(result) == [
        "repos/get-collaborator-permission-level",
        "issues/get",
        "issues/update",
        "pulls/get",
        "pulls/update",
    ]
    assert fix.state == "closed" and "`maintainer` asked for it from the dashboard" in fix.body
    # its branch went by a git push, as it came: no API request
    assert f"refs/heads/{fix.head_ref}" not in box.origin_refs()


def test_ticks_by_people_without_write_access_and_edits_by_the_bot_act_on_nothing(
    box: Sandbox, tmp_path: Path
) -> None:
    _, inputs, agent = escalated(box, tmp_path)
    issue = report(box, "report")
    rendered = issue.body
    box.standin.set_permission(box.repo, "triager", "triage")
    box.standin.set_permission(box.repo, "outsider", "none")  # a private repository's non-collaborator: 404

    for editor in ("triager", "outsider"):
        payload = edit(box, issue, tick(rendered, "/ci-healer retry"), editor)
        result = run_event(box, "issues", payload, editor, inputs)
        assert operations(result) == ["repos/get-collaborator-permission-level"], editor
        assert result.outputs["decision"] == "skipped"
        box.standin.edit_issue(box.repo, issue.number, rendered)

    payload = edit(box, issue, tick(rendered, "/ci-healer retry"), BOT)  # the healer's own re-rendering
    assert operations(run_event(box, "issues", payload, "bot", inputs)) == []
    assert len(agent_reports(agent)) == 1  # only the first heal ran the agent


def test_boxes_a_person_typed_are_not_acted_on(box: Sandbox, tmp_path: Path) -> None:
    pull, inputs, agent = escalated(box, tmp_path)
    issue = report(box, "report")
    box.standin.set_permission(box.repo, "maintainer", "admin")
    box.standin.set_permission(box.repo, "mallory", "write")
    rendered = issue.body
    [line] = [line for line in rendered.splitlines() if "/ci-healer retry" in line]

    # a person with write access adds a box (a copy of the healer's, for another pull request), then a
    # maintainer ticks it: the digest covers the number, so it is no box of the healer's
    forged = line.replace(f"retry {pull.number} ", f"retry {pull.number + 40} ")
    assert forged != line
    edit(box, issue, rendered.replace(line, f"{line}\n{forged}"), "mallory")
    payload = edit(
        box, issue, rendered.replace(line, f"{line}\n{forged.replace('- [ ]', '- [x]')}"), "maintainer"
    )
    assert operations(run_event(box, "issues", payload, "forged", inputs)) == []

    # a box typed and ticked in the same edit (a copy of a real one) is no tick either
    box.standin.edit_issue(box.repo, issue.number, rendered.replace(line, ""))
    payload = edit(box, issue, rendered.replace(line, line.replace("- [ ]", "- [x]")), "maintainer")
    assert operations(run_event(box, "issues", payload, "typed", inputs)) == []

    # an issue a person opened, with the dashboard's marker and a copy of the healer's box, ticked by its
    # author (who has write access): not the healer's issue
    copy = box.standin.add_issue(box.repo, title="CI healer dashboard", body=rendered, author="mallory")
    payload = edit(box, copy, tick(rendered, "/ci-healer retry"), "mallory")
    assert operations(run_event(box, "issues", payload, "copy", inputs)) == []
    assert len(agent_reports(agent)) == 1


def test_with_a_ledger_key_a_box_signed_without_it_is_refused(box: Sandbox, tmp_path: Path) -> None:
    # the dashboard was rendered before the maintainer set a ledger key: its boxes carry plain digests, which
    # anyone with write access could compute; with the key set, only boxes signed with it are acted on
    _, inputs, agent = escalated(box, tmp_path)
    issue = report(box, "report")
    box.standin.set_permission(box.repo, "maintainer", "write")
    payload = edit(box, issue, tick(issue.body, "/ci-healer retry"), "maintainer")
    result = run_event(box, "issues", payload, "keyed", {**inputs, "ledger-key": "k" * 32})
    assert operations(result) == []
    assert len(agent_reports(agent)) == 1


def test_the_edit_payload_validates_against_githubs_webhook_schema(box: Sandbox) -> None:
    issue = box.standin.add_issue(box.repo, title="CI healer dashboard", body=DASHBOARD_MARKER, author=BOT)
    payload = edit(box, issue, DASHBOARD_MARKER + "\n- [x] a", "maintainer")
    schemas = json.loads((FIXTURES / "webhook-schemas.json").read_text())
    schema = {"definitions": schemas["definitions"], "$ref": "#/definitions/issues$edited"}
    jsonschema.Draft7Validator(schema).validate(payload)
    assert payload["changes"] == {"body": {"from": DASHBOARD_MARKER}}
