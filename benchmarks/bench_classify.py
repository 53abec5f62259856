"""Print what classifying a read-back costs, per log and per MiB, for logs of 1, 4 and 200 MiB.

Two kinds of log are built in a temporary directory from real-looking lines (a test run's output, package
downloads, compiler progress, warnings), repeated up to the size, with the failure at the end:

* ``actions``: a GitHub Actions job log whose failing step starts 1 MiB before its end (the read-back stops at
  the step's header);
* ``plain``: a Travis-style log without the runner's markers (nothing says where the failing step starts, so
  the read-back reads all it may: ``--read-limit``, 4 MiB).

For each, the seconds to read the log back (:func:`healer.diagnosis.readback.read_back_counted`) and to
classify what was read (:func:`healer.diagnosis.classify.classify`, best of 3, in this process), the MiB read,
and the classification's seconds per MiB read. Target: classifying a 4 MiB read-back in under 1 s, and the
time flat in the log's size (the 200 MiB log costs what the 4 MiB one does).

Run: ``python benchmarks/bench_classify.py``
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from healer.diagnosis.classify import classify
from healer.diagnosis.readback import read_back_counted
from healer.diagnosis.rules import load_rules
from healer.logsource import DEFAULT_READ_LIMIT, FileLogSource
from healer.model import Evidence, Job

MIB = 1024 * 1024
SIZES = (1 * MIB, 4 * MIB, 200 * MIB)
RUNS = 3

NOISE = """ok  \tgithub.com/acme/app/internal/addrs\t0.031s
=== RUN   TestContext2Apply_basic
--- PASS: TestContext2Apply_basic (0.01s)
Collecting pytest-timeout (from widgets==0.1.0)
  Downloading pytest_timeout-2.4.0-py3-none-any.whl (14 kB)
WARNING: The script normalizer is installed in '/home/runner/.local/bin' which is not on PATH.
[2576/3333] Building CXX object src/CMakeFiles/core.dir/backend/Backend.cpp.o
warning: unused import: `std::io` (this is not an error)
[WARN] option --legacy is deprecated and will be removed
npm WARN deprecated inflight@1.0.6: This module is not supported
test_error_handling (tests.test_api.ApiTest) ... ok
"""

FAILURE = """src/widget.c:41:17: error: 'count' undeclared (first use in this function)
make[1]: *** [Makefile:12: widget.o] Error 1
make: *** [all] Error 2
"""


def _actions(text: str) -> bytes:
    stamp = "2024-05-01T10:00:00.0000000Z "
    return "".join(f"{stamp}{line}\n" for line in text.splitlines()).encode()


def build(path: Path, size: int, kind: str) -> None:
    """Write ``size`` bytes: noise, then (1 MiB before the end) the failing step, its noise and failure."""
    wrap = _actions if kind == "actions" else (lambda text: text.encode())
    block = wrap(NOISE) * 64
    if kind == "actions":
        head = wrap("##[group]Run make\nmake\nshell: /usr/bin/bash -e {0}\n##[endgroup]\n")
        tail = wrap(FAILURE + "##[error]Process completed with exit code 2.\nPost job cleanup.\n")
    else:
        head = b"$ make\n"
        tail = wrap(FAILURE + 'The command "make" exited with 2.\n\nDone. Your build exited with 1.\n')
    step = max(0, min(size // 2, MIB))
    with path.open("wb") as handle:
        written = 0
        while written + len(block) < size - step:
            handle.write(block)
            written += len(block)
        handle.write(head)
        written += len(head)
        while written + len(block) + len(tail) < size:
            handle.write(block)
            written += len(block)
        handle.write(tail)


def main() -> int:
    rules = load_rules()
    job = Job(id=1, name="build", status="completed", conclusion="failure")
    print(f"{'log':>10} {'kind':>8} {'read':>9} {'read s':>8} {'classify s':>11} {'s/MiB read':>11}  got")
    worst = 0.0
    flat: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for kind in ("actions", "plain"):
            for size in SIZES:
                path = Path(scratch) / f"{kind}-{size // MIB}.log"
                build(path, size, kind)
                started = time.perf_counter()
                read = read_back_counted(FileLogSource(path), limit=DEFAULT_READ_LIMIT)
                read_seconds = time.perf_counter() - started
                runs = []
                for _ in range(RUNS):
                    started = time.perf_counter()
                    diagnosis = classify(Evidence(job=job, log=read.tail), rules)
                    runs.append(time.perf_counter() - started)
                best = min(runs)
                mib = read.tail.bytes_read / MIB
                worst = max(worst, best)
                flat.setdefault(kind, []).append(best)
                print(
                    f"{size // MIB:>6} MiB {kind:>8} {mib:>5.2f} MiB {read_seconds:>8.3f} {best:>11.3f}"
                    f" {best / mib:>11.3f}  {diagnosis.category.value} ({diagnosis.rule})"
                )
    print(f"slowest classification: {worst:.3f} s (target < 1 s): {'met' if worst < 1 else 'MISSED'}")
    for kind, times in flat.items():
        print(f"{kind}: 200 MiB / 4 MiB log: {times[-1] / times[1]:.2f}x (flat when near 1)")
    return 0 if worst < 1 else 1


if __name__ == "__main__":
    sys.exit(main())
