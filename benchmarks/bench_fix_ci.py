"""Print what fix pull requests that prove themselves cost in API requests and bytes, step by step.

Against the built-in GitHub stand-in and a real bare ``origin``, a PR whose ``lint`` job failed on a real ruff
finding is healed by the fix rule, with the workflow's ``GITHUB_TOKEN``:

* **heal, CI declares workflow_dispatch**: the heal, and the dispatch of the healed workflow on its branch;
* **heal, CI without workflow_dispatch**: GitHub's 422, and the line saying what to add;
* **heal, App token**: no dispatch (the App's push starts CI itself);
* **green verdict**: the dispatched run passed: the fix PR marked ready, the attempt's comment, the news;
* **red verdict**: it failed: its jobs and logs are read, the failure goes into the attempt's memory.

Each line prints the requests by operation, the writes and the bytes the stand-in sent.

Run: ``python benchmarks/bench_fix_ci.py``
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_run import PASSED, ruff_log  # noqa: E402

from healer.demo.sample import BASE_FILES, LINT_PR_FILES, job_log  # noqa: E402
from healer.demo.sandbox import HealerRun, Sandbox  # noqa: E402
from healer.demo.standin import StandIn  # noqa: E402

DISPATCHABLE = BASE_FILES[".github/workflows/ci.yml"].replace(
    "on: [pull_request]", "on: [pull_request, workflow_dispatch]"
)
RED = job_log("test (3.12)", "python -m pytest -q", ["FAILED tests/test_calc.py::test_double", "1 failed"])


def show(name: str, result: HealerRun) -> None:
    if result.returncode != 0:
        raise SystemExit(f"{name}: healer run exited {result.returncode}\n{result.stdout}\n{result.stderr}")
    ops = Counter(r.operation for r in result.requests)
    writes = sum(1 for r in result.requests if r.is_write)
    sent = sum(r.bytes_sent for r in result.requests)
    listed = ", ".join(f"{op} ×{n}" if n > 1 else op for op, n in ops.items())
    if "-v" in sys.argv:
        for r in result.requests:
            print(f"    {r.method} {r.operation} {r.status} {r.bytes_sent} bytes")
    print(f"{name:<34} requests={len(result.requests):<3} writes={writes:<2} bytes={sent:<7} {listed}")


def heal(
    standin: StandIn, root: Path, *, dispatchable: bool, workflow_token: str
) -> tuple[Sandbox, HealerRun]:
    box = Sandbox.create(root, standin, files=BASE_FILES)
    if dispatchable:
        box.commit(box.default_branch, {".github/workflows/ci.yml": DISPATCHABLE}, "CI: workflow_dispatch")
    sha = box.commit("feature/double", LINT_PR_FILES, "Add double()")
    pull = box.open_pull("feature/double", sha)
    run = box.add_run(pull, [("lint", "failure", ruff_log(box)), ("test (3.12)", "success", PASSED)])
    return box, box.run_healer(run, inputs={"token-is-workflow-token": workflow_token})


def verdict(box: Sandbox, passed: bool) -> HealerRun:
    [run] = box.standin.dispatched
    job = ("lint", "success", PASSED) if passed else ("test (3.12)", "failure", RED)
    box.standin.add_job(run, job[0], conclusion=job[1], log=job[2])
    run.status, run.conclusion = "completed", "success" if passed else "failure"
    return box.run_healer(run, inputs={"token-is-workflow-token": "true"})


def main() -> None:
    with StandIn(token="ghs_benchmarkToken0123456789") as standin, tempfile.TemporaryDirectory() as tmp:
        for index, (name, dispatchable, token) in enumerate(
            [
                ("heal, App token", True, "false"),
                ("heal, CI without workflow_dispatch", False, "true"),
                ("heal, CI declares workflow_dispatch", True, "true"),
            ]
        ):
            standin.reset()
            box, result = heal(
                standin, Path(tmp) / f"a{index}", dispatchable=dispatchable, workflow_token=token
            )
            show(name, result)
        show("green verdict", verdict(box, passed=True))
        standin.reset()
        box, _ = heal(standin, Path(tmp) / "red", dispatchable=True, workflow_token="true")
        show("red verdict", verdict(box, passed=False))


if __name__ == "__main__":
    main()
