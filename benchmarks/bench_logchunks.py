"""Print how well ``healer diagnose`` reads real CI logs whose failure chunk people labelled (LogChunks).

The corpus is the ``logchunks-dev`` folder of the sibling ``shared/`` folder
(``../shared/corpus/logchunks-dev`` from the project's root; another path can be given): complete Travis CI
logs of failed builds, with the chunk of each log that people marked as the reason it failed, and the
categories that count as right (its README).

Each log is diagnosed as ``healer diagnose`` does it (read back from its end within the read limit, the
shipped rules). Chunk and excerpt are read line by line, normalised alike: ANSI sequences and Travis markup
dropped, only what a terminal shows after the last ``\\r`` kept, whitespace collapsed. A chunk line counts
when it is 16 characters or longer and not only punctuation. Printed, overall and by language:

* touched: the excerpt holds a chunk line;
* head: the excerpt holds the chunk's first such line;
* category: the diagnosis names an accepted category;
* the excerpt's median and largest size in bytes;
* the same touched/head/bytes for the last 150 lines of each log, as a baseline.

``--held-out`` splits the repositories in two by a stable hash of their names and prints both halves, to see
whether what was built on one half carries over to repositories it never saw. ``--misses`` lists the logs
whose chunk the excerpt missed or whose category is wrong.

Run: ``python benchmarks/bench_logchunks.py [CORPUS] [--held-out] [--misses] [--json FILE]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from healer.diagnosis.diagnose import diagnose_tail, read_file
from healer.diagnosis.logs import DEFAULT_TAIL_BYTES
from healer.diagnosis.rules import load_rules

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "logchunks-dev"
MIN_CHARS = 16
BASELINE_LINES = 150

_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]{1,3}[0-~]|\x1b[@-Z\\-_]"
)
_TRAVIS = re.compile(r"travis_(?:fold|time):(?:start|end):[\w.:=,-]*")
_PUNCT_ONLY = re.compile(r"^[\W_]*$")


def normalise(line: str) -> str:
    """What a terminal shows of one log line, without colours, Travis markup or extra whitespace."""
    line = line.rstrip("\r")
    if "\r" in line:
        line = line.rsplit("\r", 1)[1]
    line = _ANSI.sub("", line)
    line = _TRAVIS.sub("", line)
    line = line.replace("\u2026", "")
    return " ".join(line.split())


def counted(lines: Iterable[str]) -> list[str]:
    """The normalised lines that count: 16 characters or longer, not only punctuation."""
    out = []
    for raw in lines:
        line = normalise(raw)
        if len(line) >= MIN_CHARS and not _PUNCT_ONLY.match(line):
            out.append(line)
    return out


def holds(shown: Sequence[str], wanted: str) -> bool:
    """Whether a normalised excerpt line holds the normalised chunk line (a clipped excerpt line holds the
    chunk line it is the start of; a wrapper prefix may come before it)."""
    return any(wanted in line or (len(line) >= MIN_CHARS and line in wanted) for line in shown)


@dataclass(frozen=True)
class Result:
    name: str
    lang: str
    repo: str
    accept: tuple[str, ...]
    category: str
    rule: str
    touched: bool
    head: bool
    excerpt_bytes: int
    base_touched: bool
    base_head: bool
    base_bytes: int
    seconds: float

    @property
    def category_ok(self) -> bool:
        return self.category in self.accept


def measure_one(path: Path, label: dict[str, object], rules: object) -> Result:
    started = time.perf_counter()
    tail = read_file(path, window=DEFAULT_TAIL_BYTES)
    diagnosis = diagnose_tail(tail, rules)[0][1]  # type: ignore[arg-type]
    seconds = time.perf_counter() - started
    chunk = counted(str(label["chunk"]).split("\n"))
    shown = [normalise(line) for line in diagnosis.excerpt]
    raw = path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    while raw and not raw[-1].strip():
        raw.pop()
    last = [normalise(line) for line in raw[-BASELINE_LINES:]]
    excerpt_bytes = len("\n".join(diagnosis.excerpt).encode("utf-8"))
    return Result(
        name=path.stem,
        lang=str(label["lang"]),
        repo=str(label["repo"]),
        accept=tuple(str(c) for c in label["accept"]),  # type: ignore[attr-defined]
        category=diagnosis.category.value,
        rule=diagnosis.rule,
        touched=any(holds(shown, line) for line in chunk),
        head=bool(chunk) and holds(shown, chunk[0]),
        excerpt_bytes=excerpt_bytes,
        base_touched=any(holds(last, line) for line in chunk),
        base_head=bool(chunk) and holds(last, chunk[0]),
        base_bytes=len("\n".join(last).encode("utf-8")),
        seconds=seconds,
    )


def held_out(repo: str) -> bool:
    """A stable third of the repositories, kept aside (``--held-out``)."""
    return hashlib.sha256(repo.lower().encode()).digest()[0] % 3 == 0


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def summary_row(name: str, results: Sequence[Result]) -> str:
    n = len(results)

    def share(flag: str) -> str:
        return _pct(sum(bool(getattr(r, flag)) for r in results), n)

    sizes = [r.excerpt_bytes for r in results]
    base = [r.base_bytes for r in results]
    return (
        f"{name[:14]:<14} {n:>4}  {share('touched')} {share('head')} {share('category_ok')}"
        f" {_pct(sum(r.category == 'unknown' for r in results), n)}"
        f" {int(statistics.median(sizes)):>7} {max(sizes):>7}"
        f"   {share('base_touched')} {share('base_head')}"
        f" {int(statistics.median(base)):>7}"
    )


HEADER = (
    f"{'':<14} {'logs':>4}  {'touch':>6} {'head':>6} {'categ':>6} {'unkn':>6} {'median':>7} {'max B':>7}"
    f"   {'last150 touch':>6} {'head':>6} {'median':>7}"
)


def print_table(title: str, results: Sequence[Result], *, by_language: bool = True) -> None:
    print(title)
    print(HEADER)
    print(summary_row("all", results))
    if by_language:
        groups: dict[str, list[Result]] = defaultdict(list)
        for result in results:
            groups[result.lang].append(result)
        for lang in sorted(groups):
            print(summary_row(lang, groups[lang]))
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS, help="the logchunks folder")
    parser.add_argument(
        "--held-out", action="store_true", help="also print the two halves of a split by repository"
    )
    parser.add_argument("--misses", action="store_true", help="list the logs missed")
    parser.add_argument("--json", type=Path, help="write every log's result to this file")
    parser.add_argument("--only", default="", help="measure only logs whose name holds this text")
    args = parser.parse_args(argv)
    labels_path = args.corpus / "labels.json"
    if not labels_path.is_file():
        print(f"no corpus at {args.corpus} (logchunks-dev, in the sibling shared/ folder)", file=sys.stderr)
        return 2
    labels = json.loads(labels_path.read_text(encoding="utf-8"))
    rules = load_rules()
    results = [
        measure_one(args.corpus / "logs" / f"{name}.log", label, rules)
        for name, label in sorted(labels.items())
        if args.only in name
    ]
    if not results:
        print("no log measured", file=sys.stderr)
        return 2
    print_table(f"{args.corpus.name}: {len(results)} logs", results)
    if args.held_out:
        print_table("dev half", [r for r in results if not held_out(r.repo)], by_language=False)
        print_table("held-out half", [r for r in results if held_out(r.repo)], by_language=False)
    seconds = sorted(r.seconds for r in results)
    print(
        f"seconds per log: median {statistics.median(seconds):.3f}, max {seconds[-1]:.3f},"
        f" total {sum(seconds):.1f}"
    )
    if args.misses:
        for r in results:
            if not (r.touched and r.category_ok):
                mark = "held " if held_out(r.repo) else ""
                print(
                    f"  miss {mark}{r.name}: {r.category} ({r.rule}) accept {list(r.accept)}"
                    f" touched={r.touched} head={r.head} bytes={r.excerpt_bytes}"
                )
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
