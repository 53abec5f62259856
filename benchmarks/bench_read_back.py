"""Print what reading back to the first failure costs: bytes read, ranges asked for, and time.

Each log is built in a temporary directory: a job whose test step prints its first failure (a TestNG
configuration failure with its exception), then ``distance`` bytes of ``SKIPPED`` lines and the build's
summary, as a Gradle run of a large suite does. The first failure is 0.1, 1, 4 and 16 MiB before the end.
Every log is read back with :func:`healer.diagnosis.readback.read_back_counted` through a
:class:`FileLogSource` that
counts the ranges asked for (a ranged GitHub read asks for the same ranges), then classified, with the read
limit at its default (4 MiB) and raised (32 MiB). The script prints, per log and limit, the bytes read, the
number of ranges, the seconds to read and to classify, and whether the first failure's line reached the
excerpt.

Expected: with the default limit the first failure is found up to ~4 MiB back and the bytes read never exceed
4 MiB; with 32 MiB it is found at 16 MiB back too, at a cost that grows with the distance, not the log.

Run: ``python benchmarks/bench_read_back.py``
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from healer.diagnosis.classify import classify
from healer.diagnosis.readback import read_back_counted
from healer.diagnosis.rules import load_rules
from healer.logsource import DEFAULT_READ_LIMIT, FileLogSource
from healer.model import Evidence, Job

MIB = 1024 * 1024
DISTANCES = (MIB // 10, 1 * MIB, 4 * MIB, 16 * MIB)
LIMITS = (DEFAULT_READ_LIMIT, 32 * MIB)
KEY = "Flyway migration V12__orders.sql failed"
STAMP = "2026-11-03T10:02:11.0000000Z "


def _lines(lines: list[str]) -> bytes:
    return "".join(f"{STAMP}{line}\n" for line in lines).encode()


def build_log(path: Path, distance: int) -> None:
    """Set-up and checkout noise (2 MiB), the test step's first failure, ``distance`` bytes after it."""
    before = _lines(
        ["##[group]Run actions/checkout@v5", "##[endgroup]"] + ["Downloading gradle-8.10-bin.zip"] * 4
    )
    step = _lines(
        [
            "##[group]Run ./gradlew test --no-daemon",
            "./gradlew test --no-daemon",
            "shell: /usr/bin/bash -e {0}",
            "##[endgroup]",
            "> Task :core:test",
            "OrderServiceTest > setUpDatabase FAILED",
            f'    java.lang.IllegalStateException: {KEY}: column "total_cents" does not exist',
            "        at com.acme.db.Migrations.apply(Migrations.java:88)",
        ]
    )
    summary = _lines(
        [
            "10412 tests completed, 1 failed, 10000 skipped",
            "> Task :core:test FAILED",
            "FAILURE: Build failed with an exception.",
            "* What went wrong:",
            "Execution failed for task ':core:test'.",
            "> There were failing tests. See the report at: file:///home/runner/work/app/app/core/build/index.html",
            "BUILD FAILED in 2m 3s",
            "##[error]Process completed with exit code 1.",
        ]
    )
    with path.open("wb") as handle:
        handle.write(before * (2 * MIB // len(before)))
        handle.write(step)
        written, n = 0, 0
        while written < distance - len(summary):
            chunk = _lines(
                [f"OrderServiceTest > createsOrder[{n + i}]({n + i}) SKIPPED" for i in range(1000)]
            )
            handle.write(chunk)
            written += len(chunk)
            n += 1000
        handle.write(summary)


class CountingFile(FileLogSource):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.ranges = 0

    def read(self, start: int, end: int) -> bytes:
        self.ranges += 1
        return super().read(start, end)


def main() -> int:
    rules = load_rules()
    job = Job(id=1, name="test", status="completed", conclusion="failure")
    print(
        f"{'failure back':>12} {'log size':>9} {'limit':>7} {'bytes read':>11} {'ranges':>6} "
        f"{'read s':>7} {'classify s':>10}  found"
    )
    with tempfile.TemporaryDirectory() as folder:
        for distance in DISTANCES:
            path = Path(folder) / f"log-{distance}.log"
            build_log(path, distance)
            size = path.stat().st_size
            for limit in LIMITS:
                source = CountingFile(path)
                start = time.perf_counter()
                result = read_back_counted(source, limit=limit)
                read_s = time.perf_counter() - start
                start = time.perf_counter()
                diagnosis = classify(Evidence(job=job, log=result.tail), rules)
                classify_s = time.perf_counter() - start
                found = any(KEY in line for line in diagnosis.excerpt)
                print(
                    f"{distance / MIB:>9.1f} MiB {size / MIB:>5.1f} MiB {limit // MIB:>3} MiB "
                    f"{result.tail.bytes_read:>11,} {source.ranges:>6} {read_s:>7.3f} {classify_s:>10.3f}  "
                    f"{'yes' if found else 'no'} ({diagnosis.category.value}, {diagnosis.rule})"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
