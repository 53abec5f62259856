"""Print what the guard and the signed ledger cost.

* the guard on the staged diff of a 20 MiB binary (what ``git diff --cached --binary`` writes: about 27 MB
  of base85), on a 2,000-line text change spread over 40 files, and on the largest diff ``max-diff-lines``
  lets through by default (400 lines), with a reader for the files as in a heal;
* reading the ledger from 2,000 PR comments (half of them the bot's, each with a 58 KB body), without a key
  and with ``ledger-key`` (every marker's HMAC checked).

Each figure is the best of three runs, in seconds. Run: ``python benchmarks/bench_guard_ledger.py``
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from healer.change.guard import judge_diff
from healer.ledger.ledger import Kind, Ledger, Marker, Signer, comment_body
from healer.model import Comment

BOT = "github-actions[bot]"


def best(fn: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True, text=True).stdout


def staged_binary_diff(root: Path) -> str:
    git(root, "init", "-q")
    (root / "model.bin").write_bytes(os.urandom(20 * 1024 * 1024))
    git(root, "add", "-A")
    return git(root, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--no-textconv")


def text_change(files: int, lines_per_file: int) -> tuple[str, dict[str, tuple[str, str]]]:
    sources: dict[str, tuple[str, str]] = {}
    parts = []
    for n in range(files):
        path = f"src/pkg/module_{n}.py"
        old = "".join(f"value_{i} = {i}\n" for i in range(400))
        new = old.replace("value_1 = 1\n", "".join(f"extra_{i} = {i}\n" for i in range(lines_per_file)))
        sources[path] = (old, new)
        added = "".join(f"+extra_{i} = {i}\n" for i in range(lines_per_file))
        parts.append(
            f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -1,3 +1,{lines_per_file + 2} @@\n value_0 = 0\n-value_1 = 1\n{added} value_2 = 2\n"
        )
    return "".join(parts), sources


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        diff = staged_binary_diff(Path(tmp))
    seconds = best(lambda: judge_diff(diff, max_lines=400))
    print(f"guard, 20 MiB binary ({len(diff) / 1e6:.1f} MB of diff): {seconds:.3f} s")

    for files, per_file in ((40, 49), (4, 99)):
        text, sources = text_change(files, per_file)

        def read(path: str, new: bool, sources: dict[str, tuple[str, str]] = sources) -> str | None:
            return sources[path][1 if new else 0] if path in sources else None

        lines = files * (per_file + 1)
        seconds = best(lambda text=text, read=read: judge_diff(text, max_lines=100_000, read=read))
        print(f"guard, {lines} changed lines in {files} files, with a reader: {seconds:.3f} s")

    text = "A long explanation with a log excerpt.\n" * 1500
    key = "bench-key-0123456789abcdef"
    for label, signer in (("without a key", None), ("with ledger-key", Signer.for_pull(key, "octo/repo", 7))):
        listed = []
        for i in range(2000):
            author = BOT if i % 2 else "someone"
            marker = Marker(Kind.ATTEMPT, f"{i:06x}", "test", attempt=1, run_id=i, run_attempt=1)
            listed.append(Comment(id=i + 1, author=author, body=comment_body([marker], text, signer)))
        seconds = best(lambda listed=listed, signer=signer: Ledger.from_comments(listed, BOT, signer))
        print(f"ledger, 2,000 comments (1,000 with markers) {label}: {seconds:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
