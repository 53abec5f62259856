"""Print what ``healer diagnose`` costs on job logs of 1 MiB, 32 MiB and 200 MiB.

Each log is built in a temporary directory from real job-log lines (a Go test run's output and a pip install,
with the runner's timestamps), repeated up to the size, and ends with a failing pytest step: what decides the
failure is at the end, as in real logs. Every measurement runs in a fresh child process; the script prints the
wall-clock seconds and the child's peak resident memory (``ru_maxrss`` from ``wait4``) for

* ``healer diagnose --json LOG`` (reads the last 256 KiB, seeking from the end),
* ``grep -c error LOG`` (reads the whole file, for scale),
* ``tail -c 262144 LOG`` (reads the same tail, for scale).

Targets: the 200 MiB log takes less than twice the time of the 1 MiB one, and the peak RSS stays under
100 MiB for every size. The exit status is 1 when a target is missed.

Run: ``python benchmarks/bench_diagnose.py [--keep DIR]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIB = 1024 * 1024
SIZES = (1 * MIB, 32 * MIB, 200 * MIB)
RUNS = 3

NOISE = """##[group]Run go test ./...
\x1b[36;1mgo test ./...\x1b[0m
shell: /usr/bin/bash -e {0}
##[endgroup]
go: downloading github.com/hashicorp/go-cleanhttp v0.5.2
go: downloading golang.org/x/net v0.23.0
ok  \tgithub.com/hashicorp/terraform/internal/addrs\t0.031s
ok  \tgithub.com/hashicorp/terraform/internal/backend/local\t1.226s
?   \tgithub.com/hashicorp/terraform/internal/backend/remote-state/azure\t[no test files]
=== RUN   TestContext2Apply_basic
--- PASS: TestContext2Apply_basic (0.01s)
Collecting pytest-timeout (from widgets==0.1.0)
  Downloading pytest_timeout-2.4.0-py3-none-any.whl (14 kB)
WARNING: The script normalizer is installed in '/home/runner/.local/bin' which is not on PATH.
Successfully installed errorhandler-2.0.1 pytest-timeout-2.4.0 widgets-0.1.0
[2576/3333] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/torch/csrc/distributed/c10d/Backend.cpp.o
warning: unused import: `std::io` (this is not an error)
"""

FAILURE = """##[group]Run python -m pytest -q
\x1b[36;1mpython -m pytest -q\x1b[0m
shell: /usr/bin/bash -e {0}
##[endgroup]
=================================== FAILURES ===================================
__________________________________ test_zero ___________________________________
    def test_zero():
>       assert div(1, 0) == 0
E       ZeroDivisionError: division by zero
tests/test_d.py:4: ZeroDivisionError
=========================== short test summary info ============================
FAILED tests/test_d.py::test_zero - ZeroDivisionError: division by zero
1 failed in 0.02s
##[error]Process completed with exit code 1.
Post job cleanup.
Cleaning up orphan processes
"""


def _stamped(text: str) -> bytes:
    stamp = "2024-05-01T10:00:00.0000000Z "
    return "".join(f"{stamp}{line}\n" for line in text.splitlines()).encode()


def build_log(path: Path, size: int) -> None:
    """Write ``size`` bytes of repeated real lines, then the failing step."""
    block = _stamped(NOISE) * 64
    tail = _stamped(FAILURE)
    with path.open("wb") as handle:
        written = 0
        while written + len(block) + len(tail) <= size:
            handle.write(block)
            written += len(block)
        handle.write(block[: max(0, size - written - len(tail))])
        handle.write(tail)


def measure(argv: list[str]) -> tuple[float, float, bytes]:
    """Run ``argv`` in a fresh child; return (seconds, peak RSS in MiB, stdout)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = child.stdout.read() if child.stdout else b""
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    # ru_maxrss is in KiB on Linux, in bytes on macOS
    rss = usage.ru_maxrss / (MIB if sys.platform == "darwin" else 1024)
    return seconds, rss, out


def best_of(argv: list[str]) -> tuple[float, float, bytes]:
    runs = [measure(argv) for _ in range(RUNS)]
    return (
        statistics.median(r[0] for r in runs),
        max(r[1] for r in runs),
        runs[-1][2],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--keep", type=Path, help="build the logs in this directory and keep them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"{'log':>8}  {'healer diagnose':>22}  {'grep -c error':>22}  {'tail -c 262144':>22}")
        print(f"{'':>8}" + f"  {'seconds':>10} {'peak RSS':>11}" * 3)
        results: dict[int, tuple[float, float]] = {}
        for size in SIZES:
            path = folder / f"job-{size // MIB}MiB.log"
            build_log(path, size)
            healer = best_of([sys.executable, "-m", "healer", "diagnose", "--json", str(path)])
            grep = best_of(["grep", "-c", "error", str(path)])
            tail = best_of(["tail", "-c", "262144", str(path)])
            if b'"category": "test"' not in healer[2]:
                print(f"unexpected diagnosis for {path.name}: {healer[2][:200]!r}", file=sys.stderr)
                return 1
            results[size] = (healer[0], healer[1])
            cells = "  ".join(f"{s:>9.3f}s {r:>7.1f} MiB" for s, r, _ in (healer, grep, tail))
            print(f"{size // MIB:>5} MiB  {cells}")
    small, large = results[SIZES[0]][0], results[SIZES[-1]][0]
    peak = max(rss for _, rss in results.values())
    ratio_ok = large < 2 * small
    rss_ok = peak < 100
    print(f"200 MiB / 1 MiB time: {large / small:.2f}x (target < 2x): {'met' if ratio_ok else 'MISSED'}")
    print(f"largest peak RSS: {peak:.1f} MiB (target < 100 MiB): {'met' if rss_ok else 'MISSED'}")
    return 0 if ratio_ok and rss_ok else 1


if __name__ == "__main__":
    sys.exit(main())
