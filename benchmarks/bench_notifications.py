"""A month of pull requests, as each participant hears it: how many notifications each person gets, and the
first line of each.

Against the built-in GitHub stand-in and a real bare ``origin``, with the workflow's ``GITHUB_TOKEN`` and a CI
that declares ``workflow_dispatch`` (so the healer starts CI on its fix branches), eight pull requests by
`mona` (a collaborator) fail:

* three `lint` failures healed by the fix rule: the fix branch's CI passes for two, fails for the third;
* three DNS outages in `test (3.12)`: the healer re-runs the job, and the re-run passes;
* two failing tests with no heal budget (`max-attempts: 0`): escalated, with `escalation-mention`.

A notification is what GitHub notifies (healer.demo.notifications): a created comment on the pull request
(its author is subscribed), a review request, a mention in created text. Edits notify nobody. The things a
person must do: review three fixes (one of them red: retry or fix), and look at two escalations; none for a
re-run that passed.

Run: ``python benchmarks/bench_notifications.py`` (``-v`` prints every notification's first line).
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_run import PASSED, ruff_log  # noqa: E402

from healer.demo import notifications  # noqa: E402
from healer.demo.sample import BASE_FILES, LINT_PR_FILES, job_log  # noqa: E402
from healer.demo.sandbox import HealerRun, Sandbox  # noqa: E402
from healer.demo.standin import StandIn  # noqa: E402

AUTHOR = "mona"
TEAM = "@octo-org/maintainers"
INPUTS = {"token-is-workflow-token": "true", "escalation-mention": TEAM}
DISPATCHABLE = BASE_FILES[".github/workflows/ci.yml"].replace(
    "on: [pull_request]", "on: [pull_request, workflow_dispatch]"
)
DNS = job_log(
    "test (3.12)",
    "git clone https://git.example-host.invalid/org/repo.git",
    [
        "Cloning into 'repo'...",
        "fatal: unable to access 'https://git.example-host.invalid/org/repo.git/': "
        "Could not resolve host: git.example-host.invalid",
    ],
    exit_code=128,
)
RED = job_log(
    "test (3.12)",
    "python -m pytest -q",
    ["FAILED tests/test_calc.py::test_double - AssertionError: assert 6 == 4", "1 failed, 1 passed in 0.03s"],
    exit_code=1,
)


def run(box: Sandbox, event: object, heard: list[notifications.Text], **inputs: str) -> HealerRun:
    done = box.run_healer(event, inputs={**INPUTS, **inputs}, timeout=120)  # type: ignore[arg-type]
    box.standin.idle()
    if done.returncode != 0:
        raise SystemExit(f"healer run exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    heard += notifications.heard(done.requests)
    return done


def month(box: Sandbox) -> list[notifications.Text]:
    heard: list[notifications.Text] = []
    box.commit(box.default_branch, {".github/workflows/ci.yml": DISPATCHABLE}, "CI: workflow_dispatch")
    box.standin.set_permission(box.repo, AUTHOR, "write")
    for n, green in enumerate((True, True, False)):
        sha = box.commit(f"feature/lint-{n}", LINT_PR_FILES, "Add double()")
        pull = box.open_pull(f"feature/lint-{n}", sha, author=AUTHOR)
        failed = box.add_run(pull, [("lint", "failure", ruff_log(box)), ("test (3.12)", "success", PASSED)])
        before = len(box.standin.dispatched)
        run(box, failed, heard)
        for dispatched in box.standin.dispatched[before:]:
            job = ("lint", "success", PASSED) if green else ("test (3.12)", "failure", RED)
            box.standin.add_job(dispatched, job[0], conclusion=job[1], log=job[2])
            dispatched.status, dispatched.conclusion = "completed", "success" if green else "failure"
            run(box, dispatched, heard)
    for n in range(3):
        sha = box.commit(f"feature/net-{n}", {"README.md": f"# widgets\n\nnetwork {n}\n"}, "Touch the README")
        pull = box.open_pull(f"feature/net-{n}", sha, author=AUTHOR)
        failed = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", DNS)])
        run(box, failed, heard)
        passing = [("lint", "success", PASSED), ("test (3.12)", "success", PASSED)]
        again = box.add_run(pull, passing, run=failed, conclusion="success")
        run(box, again, heard)
    for n in range(2):
        sha = box.commit(f"feature/test-{n}", {"README.md": f"# widgets\n\ntest {n}\n"}, "Touch the README")
        pull = box.open_pull(f"feature/test-{n}", sha, author=AUTHOR)
        failed = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", RED)])
        run(box, failed, heard, **{"max-attempts": "0"})
    return heard


def main() -> None:
    with StandIn(token="ghs_benchmarkToken0123456789") as standin, tempfile.TemporaryDirectory() as tmp:
        box = Sandbox.create(Path(tmp) / "month", standin, files=BASE_FILES)
        heard = month(box)
    per = Counter()
    for text in heard:
        # a created comment on a pull request notifies its author; a review request, its reviewers; a mention,
        # who it names
        if text.kind in ("comment",) and text.number:
            per[AUTHOR] += 1
        per.update(r for r in text.reviewers)
        per.update(m for m in text.mentions if m != AUTHOR or text.kind != "comment")
    print("| person | notifications |")
    print("| --- | ---: |")
    for person, count in sorted(per.items()):
        print(f"| {person} | {count} |")
    kinds = Counter(t.kind for t in heard)
    print(f"\nby kind: {dict(kinds)}")
    if "-v" in sys.argv:
        for text in heard:
            who = ", ".join((*text.reviewers, *text.mentions)) or "subscribers"
            print(f"  #{text.number} {text.kind} → {who}: {text.first_line[:140]}")


if __name__ == "__main__":
    main()
