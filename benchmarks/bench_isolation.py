"""Print what ``isolation: user`` adds to a heal, in seconds.

* **heal**: ``healer run`` (a child process, as the action starts it) on a PR whose test fails; the agent
  command and a verify command fix and check it; the fix PR is opened. Once with ``isolation: none`` and once
  with ``isolation: user``, repeated; median, minimum and maximum wall time of each, and the difference.
* **steps**: the throwaway user's own steps on a tree of this repository's size (its source and tests):
  make the user, copy the tree in (with a git repository of its own), run ``true`` as the user (and kill
  everything after), copy the tree back, remove the user.

Needs Linux, root or passwordless sudo, and a Python every user can run (``/usr/bin/python3``).

Run: ``python benchmarks/bench_isolation.py [repeats]``
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from healer.demo.sample import BASE_FILES, job_log
from healer.demo.sandbox import Sandbox
from healer.demo.standin import StandIn
from healer.heal.agent import run
from healer.heal.isolation import ThrowawayUser, availability

PYTHON = "/usr/bin/python3"
BROKEN = '"""Arithmetic on widget counts."""\n\n\ndef add(a: int, b: int) -> int:\n    return a - b\n'
FIX = (
    "import pathlib\ncalc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
)
CHECK = "import sys; sys.path.insert(0, '.'); import widgets.calc as c; sys.exit(c.add(2, 3) != 5)"


def heal_seconds(standin: StandIn, isolation: str) -> float:
    root = Path(tempfile.mkdtemp(prefix="bench-isolation-"))
    root.chmod(0o755)
    try:
        box = Sandbox.create(root / "gh", standin, files=BASE_FILES)
        box.isolation = isolation
        sha = box.commit("feature/x", {"widgets/calc.py": BROKEN, "fix.py": FIX}, "Simplify add()")
        pull = box.open_pull("feature/x", sha)
        log = job_log(
            "test (3.12)", "python -m pytest -q", ["FAILED tests/test_calc.py::test_add"], exit_code=1
        )
        flow = box.add_run(pull, [("test (3.12)", "failure", log)])
        inputs = {"agent-command": f"{PYTHON} fix.py", "verify-command": f'{PYTHON} -c "{CHECK}"'}
        result = box.run_healer(flow, inputs=inputs, timeout=120)
        if result.decision != "healed":
            raise SystemExit(f"the heal did not go through ({isolation}):\n{result.stdout[-3000:]}")
        return result.seconds
    finally:
        shutil.rmtree(root, ignore_errors=True)


def timed(action: Callable[[], object]) -> float:
    started = time.monotonic()
    action()
    return time.monotonic() - started


def steps(how: str, tree: Path) -> dict[str, float]:
    seconds: dict[str, float] = {}
    started = time.monotonic()
    user = ThrowawayUser.create(how)
    seconds["create user"] = time.monotonic() - started
    try:
        seconds["copy in (+ git init)"] = timed(lambda: user.copy_in(tree))
        seconds["run `true` and kill all"] = timed(
            lambda: run(["true"], cwd=user.workdir, env={"PATH": "/usr/bin:/bin"}, timeout=30, isolation=user)
        )
        seconds["copy back"] = timed(lambda: user.copy_out(tree))
    finally:
        seconds["remove user"] = timed(user.remove)
    return seconds


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    how, why_not = availability()
    if not how:
        raise SystemExit(why_not)
    print(f"isolation through: {how}")
    with StandIn(token="ghs_BenchmarkTokenOnly0000000000000000000") as standin:
        times = {mode: [heal_seconds(standin, mode) for _ in range(repeats)] for mode in ("none", "user")}
    for mode, values in times.items():
        print(
            f"heal, isolation: {mode:<5} median {statistics.median(values):5.2f} s  "
            f"(min {min(values):.2f}, max {max(values):.2f}, n={len(values)})"
        )
    extra = statistics.median(times["user"]) - statistics.median(times["none"])
    print(f"isolation adds {extra:+.2f} s to a heal (medians)")
    repository = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "tree"
        tree.mkdir()
        for part in ("healer", "tests", "prompts"):  # a tree of this repository's size
            shutil.copytree(repository / part, tree / part, ignore=shutil.ignore_patterns("__pycache__"))
        count = sum(1 for p in tree.rglob("*") if p.is_file())
        Path(scratch).chmod(0o755)
        print(f"steps on a tree of {count} files:")
        for step, value in steps(how, tree).items():
            print(f"  {step:<26} {value:6.3f} s")


if __name__ == "__main__":
    main()
