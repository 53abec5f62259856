"""Print the wall time of ``healer run`` (a child process, as the action starts it) on two paths.

* **no-op**: a green run of a PR with no healer history: find the PR, read its comments, nothing to reset.
* **fix rule**: a PR whose ``lint`` job failed on a real ruff finding: diagnose, claim the fix branch (a
  push),
  fetch the PR head into a worktree, run the rule's ``ruff check --fix .`` and ``ruff format .``, guard the
  diff, verify with the failing ``ruff check .``, commit, push ``ci-healer/<pr>-<sha7>`` over the claim, open
  the fix PR, and record the attempt in its body. No agent is involved.
* **5 failed jobs**: the same ruff failure in five jobs: five diagnoses, one fix, one PR.

For each path it prints the API requests in all and those made before acting (up to the first write), the
wall time and the child's peak RSS.

Both run against the built-in GitHub stand-in (a local HTTP server with GitHub's shapes) and a real bare git
repository as ``origin``; each path is repeated and the median, minimum and maximum are printed, with the
number of API requests the run made.

Run: ``python benchmarks/bench_run.py [repeats]``
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from healer.demo.sample import BASE_FILES, LINT_PR_FILES, job_log
from healer.demo.sandbox import HealerRun, Sandbox
from healer.demo.standin import StandIn

PASSED = job_log("test (3.12)", "python -m pytest -q", ["1 passed in 0.01s"], exit_code=0)


def ruff_log(box: Sandbox) -> str:
    """The log of a ``lint`` job that ran ``ruff check .`` for real on the PR's files."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "full", "."],
        cwd=box.seed,
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": str(Path(sys.executable).parent), "NO_COLOR": "1"},
    )
    return job_log("lint", "ruff check .", done.stdout.splitlines(), exit_code=done.returncode)


def noop(standin: StandIn, root: Path) -> HealerRun:
    box = Sandbox.create(root, standin, files=BASE_FILES)
    sha = box.commit("feature/double", LINT_PR_FILES, "Add double()")
    pull = box.open_pull("feature/double", sha)
    run = box.add_run(pull, [("test (3.12)", "success", PASSED)], conclusion="success")
    return box.run_healer(run)


def fix_rule(standin: StandIn, root: Path) -> HealerRun:
    box = Sandbox.create(root, standin, files=BASE_FILES)
    sha = box.commit("feature/double", LINT_PR_FILES, "Add double()")
    pull = box.open_pull("feature/double", sha)
    run = box.add_run(pull, [("lint", "failure", ruff_log(box)), ("test (3.12)", "success", PASSED)])
    return box.run_healer(run)


def five_failed_jobs(standin: StandIn, root: Path) -> HealerRun:
    box = Sandbox.create(root, standin, files=BASE_FILES)
    sha = box.commit("feature/double", LINT_PR_FILES, "Add double()")
    pull = box.open_pull("feature/double", sha)
    log = ruff_log(box)
    run = box.add_run(pull, [(f"lint ({n})", "failure", log) for n in range(5)])
    return box.run_healer(run)


def measure(name: str, path: Callable[[StandIn, Path], HealerRun], repeats: int, standin: StandIn) -> None:
    times: list[float] = []
    rss: list[int] = []
    requests = reads = 0
    decision = ""
    for i in range(repeats):
        standin.reset()
        with tempfile.TemporaryDirectory() as tmp:
            result = path(standin, Path(tmp) / f"run{i}")
        if result.returncode != 0:
            raise SystemExit(
                f"{name}: healer run exited {result.returncode}\n{result.stdout}\n{result.stderr}"
            )
        times.append(result.seconds)
        rss.append(result.peak_rss_kib)
        requests = len(result.requests)
        # the requests made before acting: everything up to the first write (the fix PR; a claim comment)
        reads = next((n for n, r in enumerate(result.requests) if r.is_write), requests)
        decision = result.outputs.get("decision", "")
    print(
        f"{name:<16} decision={decision:<8} requests={requests:<3} before acting={reads:<3} "
        f"median={statistics.median(times):.2f}s min={min(times):.2f}s max={max(times):.2f}s "
        f"peak RSS={max(rss) / 1024:.0f} MiB (n={repeats})"
    )


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with StandIn(token="ghs_benchmarkToken0123456789") as standin:
        measure("no-op", noop, repeats, standin)
        measure("fix rule", fix_rule, repeats, standin)
        measure("5 failed jobs", five_failed_jobs, repeats, standin)


if __name__ == "__main__":
    main()
