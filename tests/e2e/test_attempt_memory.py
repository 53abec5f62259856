"""End to end: attempt k's frame carries what the earlier attempts changed and why that did not work."""

from __future__ import annotations

from pathlib import Path

from harness import PASSED, agent_reports, failing_test_log, failing_test_pull, heal, write_agent

from healer.demo.sandbox import Sandbox

VERIFY = "python -m pytest -q -p no:cacheprovider"
# A scripted agent that guesses wrong twice (the bug stays), then right; it reports every frame it got.
AGENT = (
    "attempt = int(os.environ['HEALER_ATTEMPT'])\n"
    "report(attempt=attempt, frame=frame)\n"
    "calc = pathlib.Path('widgets/calc.py')\n"
    "guess = {1: 'a * b', 2: 'b - a'}.get(attempt, 'a + b')\n"
    "calc.write_text(calc.read_text().replace('a - b', guess))\n"
    "print(f'Attempt {attempt}: made add() return {guess}.')\n"
)


def test_later_attempts_see_what_earlier_ones_changed_and_why_it_failed(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    inputs = {"agent-command": write_agent(tmp_path / "agent", AGENT), "verify-command": VERIFY}

    heal(box, run, inputs=inputs)
    first_sha = pull.head_sha
    for number in (2, 3):
        # the author pushes something unrelated; the test still fails on the new commit
        box.push_to_pull(pull, {"README.md": f"# widgets\n\nRevision {number}.\n"}, f"Docs {number}")
        run = box.add_run(
            pull, [("lint", "success", PASSED), ("test (3.12)", "failure", failing_test_log(box))]
        )
        heal(box, run, inputs=inputs)

    reports = agent_reports(tmp_path / "agent")
    assert [r["attempt"] for r in reports] == [1, 2, 3]
    frames = [str(r["frame"]) for r in reports]
    assert "## Earlier attempts" not in frames[0]
    second = frames[1]
    earlier = second.split("## Earlier attempts", 1)[1].split("## Procedure", 1)[0]
    first_pr = box.standin.created_pulls(box.repo)[0]
    assert (
        f"### Attempt 1 on `{first_sha[:7]}`: verify-failed (fix pull request #{first_pr.number})" in earlier
    )
    assert "+    return a * b" in earlier  # what it changed
    assert "Attempt 1: made add() return a * b." in earlier  # the agent's note
    assert "assert 6 == 5" in earlier  # why it did not work: the verification output
    third = frames[2].split("## Earlier attempts", 1)[1].split("## Procedure", 1)[0]
    assert "### Attempt 1 on" in third and "### Attempt 2 on" in third and "+    return b - a" in third
    # bounded: the memory of two attempts adds a few KiB at most
    assert len(frames[2].encode()) - len(frames[0].encode()) < 5 * 1024
    last = box.standin.created_pulls(box.repo)[-1]
    assert not last.draft and "(attempt 3/3)" in last.title
