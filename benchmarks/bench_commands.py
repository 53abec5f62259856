"""Print the API requests each ``/ci-healer`` command costs, and how long ``healer run`` takes for it.

Each command runs as ``healer run`` in a child process on an ``issue_comment`` event, against the GitHub
stand-in (``healer/demo/``) and a real bare git remote, on a pull request whose ``test (3.12)`` job failed
on a pytest failure (one failed job of two). The retry comes after the healer escalated the check
(``max-attempts: 0``), so it heals once more with a no-op agent. Every request is checked against GitHub's
OpenAPI description.

Run: ``python benchmarks/bench_commands.py``
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "e2e")]

from commands_harness import command  # noqa: E402
from harness import LINT_PASSED, REPO, TOKEN, heal, write_agent  # noqa: E402

from healer.demo.sample import BASE_FILES, job_log  # noqa: E402
from healer.demo.sandbox import Sandbox  # noqa: E402
from healer.demo.standin import StandIn  # noqa: E402

FAILED = job_log(
    "test (3.12)",
    "python -m pytest -q",
    [
        "F                                                                        [100%]",
        "FAILED tests/test_calc.py::test_add - assert -1 == 5",
        "1 failed in 0.02s",
    ],
    exit_code=1,
)


def main() -> None:
    rows = []
    with StandIn(token=TOKEN) as standin, tempfile.TemporaryDirectory() as tmp:
        for name, body, author, level in (
            ("help", "/ci-healer help", "reader", "read"),
            ("unknown", "/ci-healer frobnicate", "reader", "read"),
            ("retry, read permission", "/ci-healer retry", "reader", "read"),
            ("stop", "/ci-healer stop", "maintainer", "maintain"),
            ("start", "/ci-healer start", "maintainer", "maintain"),
            ("explain", "/ci-healer explain", "reader", "read"),
            ("retry after an escalation", "/ci-healer retry", "maintainer", "maintain"),
        ):
            standin.reset()
            box = Sandbox.create(
                Path(tmp) / name.replace(" ", "-").replace(",", ""), standin, repo=REPO, files=BASE_FILES
            )
            sha = box.commit("feature/x", {"README.md": "# widgets\n\nx\n"}, "Touch")
            pull = box.open_pull("feature/x", sha)
            run = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", FAILED)])
            inputs = {
                "agent-command": write_agent(Path(tmp) / f"agent-{len(rows)}", "print('nothing')\n"),
                "max-attempts": "0",
            }
            if name == "retry after an escalation":
                heal(box, run, inputs=inputs)
            if name == "start":
                pull.labels.append("ci-healer:off")
            standin.set_permission(REPO, author, level)
            result, _ = command(box, pull, body, author=author, inputs=inputs)
            ops = Counter(r.operation for r in result.requests)
            writes = sum(1 for r in result.requests if r.is_write)
            rows.append((name, len(result.requests), writes, result.seconds, ops))
    print(f"{'command':<28} {'requests':>8} {'writes':>6} {'seconds':>8}  operations")
    for name, total, writes, seconds, ops in rows:
        detail = ", ".join(f"{op} ×{n}" if n > 1 else op for op, n in ops.items())
        print(f"{name:<28} {total:>8} {writes:>6} {seconds:>8.2f}  {detail}")


if __name__ == "__main__":
    main()
