"""Print what a heal costs in one job (``stage: all``) and in two (``stage: heal``, then ``stage: deliver``).

Each path heals one pull request against the built-in GitHub stand-in and a real bare git repository as
``origin``, and prints the API requests (reads and writes), the log bytes the stand-in served and the wall
time of each job, and for two jobs their sum:

* **fix rule**: a same-repository PR whose ``lint`` job failed on a real ruff finding (``ruff check --fix``,
  verified with ``ruff check .``, delivered as a fix pull request);
* **agent**: a same-repository PR whose test failed, healed by an agent command (a real subprocess that edits
  the file), delivered as a fix pull request;
* **fork, fix rule**: the lint failure of a fork's pull request under ``fork-policy: rules`` (two jobs only:
  in one job a fork is diagnosed), delivered as a review of suggested changes.

Run: ``python benchmarks/bench_two_stages.py [repeats]``
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench_run import PASSED, ruff_log

from healer.change.bundle import BUNDLE_NAME
from healer.demo.sample import BASE_FILES, LINT_PR_FILES, job_log
from healer.demo.sandbox import HealerRun, Sandbox
from healer.demo.standin import StandIn
from healer.demo.state import Run

TOKEN = "ghs_benchmarkToken0123456789"
READ_TOKEN = "ghs_benchmarkReadOnlyToken0123456789"
BROKEN_ADD = '"""Arithmetic on widget counts."""\n\n\ndef add(a: int, b: int) -> int:\n    return a - b\n'
FAILED_TEST = job_log(
    "test (3.12)",
    "python -m pytest -q",
    ["F", "FAILED tests/test_calc.py::test_add - assert -1 == 5", "1 failed in 0.02s"],
    exit_code=1,
)
AGENT = (
    f"{sys.executable} -c \"import pathlib; p = pathlib.Path('widgets/calc.py'); "
    "p.write_text(p.read_text().replace('a - b', 'a + b'))\""
)


def lint_pr(box: Sandbox, fork: bool = False) -> Run:
    if fork:
        box.add_fork("eve/widgets")
        sha = box.commit("patch-1", LINT_PR_FILES, "Add double()", remote="eve/widgets", base="origin/main")
        pull = box.open_pull("patch-1", sha, head_repo="eve/widgets", author="eve")
    else:
        sha = box.commit("feature/double", LINT_PR_FILES, "Add double()")
        pull = box.open_pull("feature/double", sha)
    return box.add_run(pull, [("lint", "failure", ruff_log(box)), ("test (3.12)", "success", PASSED)])


def test_pr(box: Sandbox) -> Run:
    sha = box.commit("feature/add", {"widgets/calc.py": BROKEN_ADD}, "Simplify add()")
    pull = box.open_pull("feature/add", sha)
    return box.add_run(pull, [("test (3.12)", "failure", FAILED_TEST)])


def one_job(box: Sandbox, run: Run, inputs: dict[str, str]) -> list[HealerRun]:
    return [box.run_healer(run, inputs=inputs, timeout=300)]


def two_jobs(box: Sandbox, run: Run, inputs: dict[str, str]) -> list[HealerRun]:
    healed = box.run_healer(
        run, inputs={**inputs, "stage": "heal"}, secrets={"HEALER_GITHUB_TOKEN": READ_TOKEN}, tag="heal"
    )
    bundle = healed.outputs.get("bundle-path", "")
    folder = str(Path(bundle).parent) if bundle else str(box.root / "no-bundle")
    assert not bundle or Path(bundle).name == BUNDLE_NAME
    given = {**inputs, "stage": "deliver", "bundle-path": folder}
    delivered = box.run_healer(run, inputs=given, tag="deliver")
    return [healed, delivered]


def measure(
    name: str,
    make: Callable[[Sandbox], Run],
    jobs: Callable[[Sandbox, Run, dict[str, str]], list[HealerRun]],
    inputs: dict[str, str],
    repeats: int,
    standin: StandIn,
) -> None:
    rows: list[list[tuple[int, int, int, float, str]]] = []
    for i in range(repeats):
        standin.reset()
        standin.read_tokens = {READ_TOKEN}  # type: ignore[attr-defined]
        with tempfile.TemporaryDirectory() as tmp:
            box = Sandbox.create(Path(tmp) / f"run{i}", standin, files=BASE_FILES)
            run = make(box)
            results = jobs(box, run, inputs)
            standin.idle()
        row = []
        for result in results:
            if result.returncode != 0:
                raise SystemExit(f"{name}: exited {result.returncode}\n{result.stdout[-3000:]}")
            writes = sum(1 for r in result.requests if r.is_write)
            logs = sum(r.bytes_sent for r in result.requests if r.operation == "signed-log")
            decision = result.outputs.get("decision", "")
            row.append((len(result.requests) - writes, writes, logs, result.seconds, decision))
        rows.append(row)
    labels = ["one job"] if len(rows[0]) == 1 else ["heal job", "deliver job"]
    for n, label in enumerate(labels):
        reads, writes, logs, _, decision = rows[-1][n]
        seconds = [row[n][3] for row in rows]
        print(
            f"{name:<16} {label:<12} decision={decision:<8} reads={reads:<3} writes={writes:<2} "
            f"log bytes={logs:<8,} median={statistics.median(seconds):.2f}s (n={repeats})"
        )
    if len(labels) == 2:
        total = [row[0][3] + row[1][3] for row in rows]
        reads = rows[-1][0][0] + rows[-1][1][0]
        writes = rows[-1][0][1] + rows[-1][1][1]
        print(f"{name:<16} {'both':<12} {'':<17} reads={reads:<3} writes={writes:<2} {'':<20} "
              f"median={statistics.median(total):.2f}s")  # fmt: skip


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    agent = {"agent-command": AGENT, "verify-command": f"{sys.executable} -m pytest -q -p no:cacheprovider"}
    with StandIn(token=TOKEN) as standin:
        measure("fix rule", lint_pr, one_job, {}, repeats, standin)
        measure("fix rule", lint_pr, two_jobs, {}, repeats, standin)
        measure("agent", test_pr, one_job, agent, repeats, standin)
        measure("agent", test_pr, two_jobs, agent, repeats, standin)
        rules = {"fork-policy": "rules"}
        measure("fork, fix rule", lambda box: lint_pr(box, fork=True), two_jobs, rules, repeats, standin)


if __name__ == "__main__":
    main()
