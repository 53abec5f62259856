"""End to end: the agent's model budgets across a pull request's attempts. The first attempt is stopped by
its own token budget and its change is refused; the second sees that change and the budget's stop in its
frame, and is stopped by what is left of the pull request's budget (read from the first attempt's marker);
the third does not run the agent at all."""

from __future__ import annotations

from pathlib import Path

from harness import PASSED, agent_reports, failing_test_log, failing_test_pull, record_bodies, write_agent

from healer.demo.fakemodel import FakeModel
from healer.demo.sandbox import Sandbox
from healer.ledger.markers import Kind, decode_markers
from healer.model import DELIVERED

KEY = "sk-ant-api03-BudgetTestKeyOfTheRepository-0123456789"
# The agent spends its model in a loop until the proxy refuses, then changes the code: the first time with a
# suppression the guard refuses (nothing is delivered), the second time with the fix.
AGENT = (
    "import urllib.error, urllib.request\n"
    "attempt = int(os.environ['HEALER_ATTEMPT'])\n"
    "statuses = []\n"
    "for _ in range(30):\n"
    "    url, key = os.environ['ANTHROPIC_BASE_URL'] + '/v1/messages', os.environ['ANTHROPIC_API_KEY']\n"
    "    request = urllib.request.Request(url, b'{\"stream\": true}', {'x-api-key': key})\n"
    "    try:\n"
    "        with urllib.request.urlopen(request, timeout=10) as response:\n"
    "            response.read()\n"
    "            statuses.append(response.status)\n"
    "    except urllib.error.HTTPError as exc:\n"
    "        statuses.append(exc.code)\n"
    "        print(exc.read().decode())\n"
    "        break\n"
    "report(attempt=attempt, frame=frame, statuses=statuses)\n"
    "calc = pathlib.Path('widgets/calc.py')\n"
    "fix = 'a + b  # noqa: E501' if attempt == 1 else 'a + b'\n"
    "calc.write_text(calc.read_text().replace('a - b', fix))\n"
)


def test_budgets_stop_the_agent_and_the_next_attempt_starts_from_what_it_did(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = failing_test_pull(box)
    inputs = {
        "agent-command": write_agent(tmp_path / "agent", AGENT),
        "agent-token-budget": "500",
        "max-agent-tokens-per-pr": "700",
    }
    results = []
    with FakeModel(input_tokens=100, output_tokens=20) as fake:
        inputs["model-api-url"] = fake.url
        for number in (1, 2, 3):
            if number > 1:
                box.push_to_pull(pull, {"README.md": f"# widgets\n\nRevision {number}.\n"}, f"Docs {number}")
                run = box.add_run(
                    pull, [("lint", "success", PASSED), ("test (3.12)", "failure", failing_test_log(box))]
                )
            result = box.run_healer(run, inputs=inputs, secrets={"ANTHROPIC_API_KEY": KEY}, timeout=90)
            box.standin.idle()
            assert result.returncode == 0, result.stdout[-4000:]
            results.append(result)
        forwarded = len(fake.requests)

    reports = agent_reports(tmp_path / "agent")
    assert [r["attempt"] for r in reports] == [1, 2]  # the third attempt found the budget spent
    assert reports[0]["statuses"] == [200] * 5 + [400]  # 600 tokens: past agent-token-budget (500)
    assert reports[1]["statuses"] == [200, 400]  # 600 + 120 tokens: past max-agent-tokens-per-pr (700)
    assert forwarded == 6
    assert [r.outputs["agent-tokens"] for r in results] == ["600", "120", "0"]
    comments = [body for body in record_bodies(box, pull.number) if '"kind":"attempt"' in body]
    # a budget stop that delivered nothing reads "budget"; the second one's change was delivered, and its
    # marker says so (a delivered result) and which budget stopped it
    assert ['"result":"budget"' in body for body in comments] == [True, False, True]
    [second] = [m for m in decode_markers(comments[1]) if m.kind is Kind.ATTEMPT]
    assert (second.result in DELIVERED, second.stopped) == (True, "max-agent-tokens-per-pr")
    assert '"tokens":600' in comments[0] and '"tokens":120' in comments[1] and '"tokens"' not in comments[2]
    assert "stopped at `agent-token-budget` (500 tokens)" in comments[0]
    assert "the agent reached `max-agent-tokens-per-pr` (700 model tokens" in comments[1]  # the fix's body
    assert "the agent command did not run, its budget being spent" in comments[2]
    # the first attempt's change was refused, not lost: the next one's frame carries it, and why it stopped
    earlier = str(reports[1]["frame"]).split("## Earlier attempts", 1)[1].split("## Procedure", 1)[0]
    assert "a + b  # noqa: E501" in earlier and "stopped by its budget" in earlier
    [fix] = box.standin.created_pulls(box.repo)  # the second attempt's fix was delivered
    # its reviewer is told the budget stopped the agent, so the change may be partial
    assert (
        ":warning: **The change may be partial:** the agent reached `max-agent-tokens-per-pr` (700 model "
        "tokens for this pull request)"
    ) in (fix.body or "")
