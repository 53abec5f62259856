"""Print how often the diagnosis leads to the right decision on failed job logs of repositories it never saw.

A decision is what the healer does about a failed job: ``change`` (fix rules or the agent change the pull
request's code), ``rerun``, ``escalate`` (a person must act) or ``nothing``. Each log is labelled with the
decision a careful maintainer would take, whose failure it is (``owner``), the kinds that count as right
(``accept``), the job's purpose, and a repository (or tool family) as its group key.

The sets (``tests/fixtures/decisions/README.md`` says how each was labelled):

* ``decisions``: ``tests/fixtures/decisions`` — written logs stratified by the job's purpose;
* ``heldout``: ``tests/fixtures/heldout``, owner and decision from ``decisions/relabel-heldout.json``;
* ``corpus``: ``../shared/corpus/logs`` read in place, relabelled in ``decisions/relabel-corpus.json``;
* ``logchunks``: ``../shared/corpus/logchunks-dev`` read in place, relabelled in ``relabel-logchunks.json``;
* ``fresh``: ``tests/fixtures/fresh`` — 150 written logs of 67 repositories, labelled and frozen before any
  measurement on them; all in the test half.
* ``fresh2``: ``tests/fixtures/fresh2`` — 160 written logs of 127 repositories, frozen like ``fresh`` by other
  hands, with the job's, the failing step's and (for 60 %) the workflow's names; all in the test half.
* ``fresh3``: ``tests/fixtures/fresh3`` — failed job logs of made-up repositories, frozen like ``fresh2`` by
  other hands, among them raw Travis CI build logs; all in the test half.
* ``fresh4``: ``tests/fixtures/fresh4`` — 170 logs of 170 repositories, frozen like ``fresh3`` after its
  report; all in the test half.
* ``fresh5``: ``tests/fixtures/fresh5`` — 170 logs of 170 repositories, frozen like ``fresh4`` after its
  report; all in the test half.
* ``fresh6`` … ``fresh10``: ``tests/fixtures/fresh6`` … ``fresh10`` — 170 logs each (of 169 or 170
  repositories), frozen like ``fresh5``, each after the previous one's report; all in the test half.
* ``fresh11`` … ``fresh13``: frozen like ``fresh10``, by three writers at once, each after fresh10's report;
  all in the test half.
* ``fresh14`` … ``fresh16``: frozen like ``fresh13``, each after the previous one's report; all in the test
  half.
* ``fresh17``, ``fresh18``: frozen like ``fresh16``, by two writers at once, after fresh16's report; all in
  the test half.
* ``fresh19``: frozen like ``fresh18``, after the reports of fresh17 and fresh18; all in the test half.
* ``fresh20``, ``fresh21``: frozen like ``fresh19``, by two writers at once, after fresh19's report; all in
  the test half.
* ``fresh22``: frozen like ``fresh21``, after the reports of fresh20 and fresh21; all in the test half.
* ``fresh23``: frozen like ``fresh22``, after its report; all in the test half.
* ``fresh24``: frozen like ``fresh23``, after its report; all in the test half.
* ``fresh25``, ``fresh26``, ``fresh27``: frozen like ``fresh24``, by three writers at once, after its report;
  all in the test half.
* ``fresh28``, ``fresh29``, ``fresh30``: frozen like those, by three writers at once, after the reports of
  fresh25 to fresh27; all in the test half.
* ``fresh31``, ``fresh32``, ``fresh33``: frozen like those, by three writers at once, after the reports of
  fresh28 to fresh30; all in the test half.
* ``fresh34``, ``fresh35``, ``fresh36``: frozen like those, by three writers at once, after the reports of
  fresh31 to fresh33; all in the test half.
* ``fresh37`` to ``fresh42``: frozen like those, by six writers at once, after the reports of fresh34 to
  fresh36; all in the test half.
* ``fresh43`` to ``fresh48``: frozen like those, by six writers at once, after the reports of fresh37 to
  fresh41; all in the test half.
* ``fresh49`` to ``fresh54``: frozen like those, by six writers at once, after the reports of fresh43 to
  fresh48; all in the test half.
* ``fresh55`` to ``fresh60``: frozen like those, by six writers at once, after the reports of fresh49 to
  fresh54; all in the test half.
* ``fresh61`` to ``fresh66``: frozen like those, by six writers at once, after the reports of fresh55 to
  fresh60; all in the test half.
* ``fresh67`` to ``fresh72``: frozen like those, by six writers at once, after the reports of fresh61 to
  fresh66; all in the test half.
* ``fresh73`` to ``fresh78``: frozen like those, by six writers at once, after the reports of fresh67 to
  fresh72; all in the test half.
* ``fresh79`` to ``fresh84``: frozen like those, by six writers at once, after all the round's readings;
  all in the test half.
* ``fresh85`` to ``fresh90``: frozen like those, by six writers at once, after the reports of fresh79 to
  fresh84; all in the test half.
* ``fresh91`` to ``fresh96``: frozen like those, by six writers at once, after the reports of fresh85 to
  fresh90; all in the test half.
* ``fresh97`` to ``fresh102``: frozen like those, by six writers at once, after the reports of fresh91 to
  fresh96; all in the test half.
* ``fresh103`` to ``fresh108``: frozen like those, by six writers at once, after the readings of fresh79 to
  fresh96's misses; all in the test half.
* ``fresh109`` to ``fresh114``: frozen like those, by six writers at once, after the reports of fresh97 to
  fresh108; all in the test half.
* ``fresh115`` to ``fresh120``: frozen like those, by six writers at once, at the start of the round after
  fresh114's; all in the test half.
* ``fresh121`` to ``fresh126``: frozen like those, by six writers at once, after the reports of fresh115 to
  fresh120; all in the test half.
* ``fresh127`` to ``fresh132``: frozen like those, by six writers at once, after the reports of fresh121 to
  fresh126; all in the test half.
* ``fresh133`` to ``fresh138``: frozen like those, by six writers at once, after the reports of fresh127 to
  fresh132; all in the test half.
* ``fresh139`` to ``fresh144``: frozen like those, by six writers at once, after the reports of fresh133 to
  fresh138; all in the test half.
* ``fresh145`` to ``fresh150``: frozen like those, by six writers at once, at the start of the round after
  fresh144's; all in the test half.
* ``fresh151`` to ``fresh156``: frozen like those, by six writers at once, after the reports of fresh145 to
  fresh150; all in the test half.
* ``fresh157`` to ``fresh162``: frozen like those, by six writers at once, after the reports of fresh151 to
  fresh156; all in the test half.
* ``fresh163`` to ``fresh168``: frozen like those, by six writers at once, after the reports of fresh157 to
  fresh162; all in the test half.
* ``fresh169`` to ``fresh174``: frozen like those, by six writers at once, at the start of the round after
  fresh168's; all in the test half.
* ``fresh175`` to ``fresh180``: frozen like those, by six writers at once, begun once fresh169 to fresh174
  were frozen; all in the test half.
* ``fresh181`` to ``fresh186``: frozen like those, by six writers at once, after the reports of fresh169 to
  fresh180; all in the test half.
* ``fresh187`` to ``fresh192``: frozen like those, by six writers at once, after the reports of fresh181 to
  fresh186; all in the test half.
* ``fresh193`` to ``fresh198``: frozen like those, by six writers at once, at the start of the round after
  fresh192's; all in the test half.
* ``fresh199`` to ``fresh204``: frozen like those, by six writers at once, after the reports of fresh193 to
  fresh198; all in the test half.
* ``fresh205`` to ``fresh210``: frozen like those, by six writers at once, after the reports of fresh199 to
  fresh204; all in the test half.
* ``fresh211`` to ``fresh234``: frozen like those, in four batches of six writers, each batch after the
  reports of the one before; all in the test half.
* ``fresh235`` to ``fresh240``: frozen like those, by six writers at once, at the start of the round after
  fresh234's; all in the test half.
* ``fresh241`` to ``fresh246``: frozen like those, by six writers at once, in the same round after
  fresh235 to fresh240 were reported; all in the test half.
* ``fresh247`` to ``fresh258``: frozen like those, in two batches of six writers, the second after the first
  was reported; all in the test half.
* ``fresh259`` to ``fresh264``: frozen like those, by six writers at once, at the start of the round after
  fresh258's; all in the test half.
* ``fresh265`` to ``fresh270``: frozen like those, by six writers at once, in the same round after
  fresh259 to fresh264 were measured; all in the test half.
* ``fresh271`` to ``fresh276``: frozen like those, by six writers at once, at the start of the round after
  fresh270's; all in the test half.
* ``fresh277`` to ``fresh282``: frozen like those, by six writers at once, in the same round after
  fresh271 to fresh276 were measured; all in the test half.
* ``fresh283`` to ``fresh288``: frozen like those, by six writers at once, at the start of the round after
  fresh282's; all in the test half.
* ``fresh289`` to ``fresh294``: frozen like those, by six writers at once, in the same round after
  fresh283 to fresh288 were measured; all in the test half.
* ``fresh295`` to ``fresh300``: frozen like those, by six writers at once, in the same round after
  fresh289 to fresh294 were measured; all in the test half.

A set whose folder is missing is skipped with a message. Repositories are split once into a ``dev`` and a
``test`` half (``decisions/split.json``, frozen; stratified by purpose); ``--half`` picks one.

Printed, overall, by set and by purpose: decision accuracy (micro, and macro-averaged by repository), the
cost-weighted error (``COST`` below), the share of failures that are not the PR's code sent to the agent,
owner accuracy, then kind accuracy (the category in ``accept``).

Run: ``python benchmarks/bench_decision.py [--half dev|test|all] [--set NAME] [--misses] [--json FILE]``
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from healer.diagnosis.classify import classify  # noqa: E402
from healer.diagnosis.readback import read_back  # noqa: E402
from healer.diagnosis.rules import load_rules  # noqa: E402
from healer.logsource import FileLogSource  # noqa: E402
from healer.model import Evidence, Job, LogTail, Step  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
DECISIONS = FIXTURES / "decisions"
SHARED = ROOT.parent / "shared" / "corpus"
SPLIT = DECISIONS / "split.json"

# name -> (folder with the logs, labels file, relabel file or None)
SETS: dict[str, tuple[Path, Path, Path | None]] = {
    "decisions": (DECISIONS / "logs", DECISIONS / "labels.json", None),
    "heldout": (
        FIXTURES / "heldout",
        FIXTURES / "heldout" / "labels.json",
        DECISIONS / "relabel-heldout.json",
    ),
    "corpus": (SHARED / "logs", SHARED / "logs" / "labels.json", DECISIONS / "relabel-corpus.json"),
    # written after the owner tables and frozen before anyone measured on it: every repository is in the
    # test half, and it is reported once per change to the diagnosis
    "fresh": (FIXTURES / "fresh" / "logs", FIXTURES / "fresh" / "labels.json", None),
}
# the later held-out sets, fresh2 to fresh{LAST_FRESH}, each frozen in a folder of its own
LAST_FRESH = 300
SETS.update(
    {
        f"fresh{n}": (FIXTURES / f"fresh{n}" / "logs", FIXTURES / f"fresh{n}" / "labels.json", None)
        for n in range(2, LAST_FRESH + 1)
    }
)
SETS["logchunks"] = (
    SHARED / "logchunks-dev" / "logs",
    SHARED / "logchunks-dev" / "labels.json",
    DECISIONS / "relabel-logchunks.json",
)

DECISIONS_ALLOWED = ("change", "rerun", "escalate", "nothing")

# COST[truth][predicted]. An agent run on a failure that is not the PR's code is the expensive error (a bogus
# fix PR and an agent bill: 5); doing nothing about a failure someone must act on loses it (3); a code failure
# escalated costs a person the fix the agent could have proposed (2); a needless re-run or comment costs
# minutes (1).
COST: dict[str, dict[str, int]] = {
    "change": {"change": 0, "rerun": 1, "escalate": 2, "nothing": 3},
    "rerun": {"change": 5, "rerun": 0, "escalate": 1, "nothing": 3},
    "escalate": {"change": 5, "rerun": 1, "escalate": 0, "nothing": 3},
    "nothing": {"change": 5, "rerun": 1, "escalate": 1, "nothing": 0},
}

ACTION_TO_DECISION = {
    "rerun": "rerun",
    "fix": "change",
    "agent": "change",
    "escalate": "escalate",
    "ignore": "nothing",
}
# Owner of a category, for a diagnosis that does not say one (the code before the owner axis).
CATEGORY_OWNER = {
    "transient": "platform",
    "infrastructure": "platform",
    "timeout": "platform",
    "cancelled": "nobody",
    "config": "repository",
}


# --------------------------------------------------------------------------- the project's diagnosis
_RULES = None


def diagnose_one(
    tail: LogTail, *, job: str, step: str | None, workflow: str | None
) -> tuple[str, str, str, str]:
    """THE DIAGNOSIS UNDER MEASURE: the project's classifier on one log, as the action calls it.

    Returns (decision, owner, kind, rule). Step and workflow names are passed through when the classifier
    accepts them; an ``owner`` on the diagnosis is used when it has one.
    """
    global _RULES
    if _RULES is None:
        _RULES = load_rules()
    steps: tuple[Step, ...] = ()
    if step:
        steps = (
            Step(1, "Set up job", "completed", "success"),
            Step(2, step, "completed", "failure"),
            Step(3, "Complete job", "completed", "success"),
        )
    record = Job(id=1, name=job, status="completed", conclusion="failure", steps=steps)
    evidence = Evidence(job=record, log=tail)
    # the names go where the classifier takes them; the fallbacks below let the same script measure commits
    # from before the owner axis (no `workflow=` argument, no `Diagnosis.owner`), as BEFORE.md's figures did
    wanted = {"step": step, "workflow": workflow}
    params = inspect.signature(classify).parameters
    extra = {k: v for k, v in wanted.items() if k in params and v}
    try:
        diagnosis = classify(evidence, _RULES, **extra)
    except TypeError:
        diagnosis = classify(evidence, _RULES)
    kind = diagnosis.category.value
    owner = getattr(diagnosis, "owner", None)
    owner = getattr(owner, "value", owner) or CATEGORY_OWNER.get(kind, "code")
    return ACTION_TO_DECISION[diagnosis.action.value], str(owner), kind, diagnosis.rule


# --------------------------------------------------------------------------- labels and split
def load_set(name: str) -> list[tuple[Path, dict[str, Any]]]:
    """The labelled logs of one set (empty, with a message, when its folder is missing)."""
    folder, labels_path, relabel_path = SETS[name]
    if not labels_path.is_file():
        where = " (read in place from the sibling shared/ folder)" if SHARED in labels_path.parents else ""
        print(f"[{name}] skipped: no labels at {labels_path}{where}", file=sys.stderr)
        return []
    if relabel_path is not None and not relabel_path.is_file():
        print(f"[{name}] skipped: no owner and decision labels at {relabel_path}", file=sys.stderr)
        return []
    labels = json.loads(labels_path.read_text(encoding="utf-8"))
    relabel = json.loads(relabel_path.read_text(encoding="utf-8")) if relabel_path else None
    out = []
    for log, label in sorted(labels.items()):
        merged = dict(label)
        if relabel is not None:
            if log not in relabel:
                continue
            merged.update(relabel[log])
        path = folder / f"{log}.log"
        if path.is_file():
            out.append((path, merged))
    return out


def load_split() -> dict[str, Any]:
    return json.loads(SPLIT.read_text(encoding="utf-8")) if SPLIT.is_file() else {"dev": [], "test": []}


def half_of(repo: str, split: dict[str, Any]) -> str:
    """The frozen half of a repository; one added after the freeze goes where its hash says (the fresh set's
    repositories are all in the test half, as are those of the later fresh sets)."""
    if repo.partition(":")[0].startswith("fresh"):
        return "test"
    if repo in split.get("dev", ()):
        return "dev"
    if repo in split.get("test", ()):
        return "test"
    return "dev" if hashlib.sha256(repo.encode()).digest()[0] % 2 == 0 else "test"


def make_split(groups: dict[str, list[str]]) -> dict[str, Any]:
    """Split repositories in two, stratified by each repository's main purpose: within a purpose the
    repositories are ordered by the SHA-256 of their name and dealt alternately, starting with the half
    that has fewer so far."""
    by_purpose: dict[str, list[str]] = defaultdict(list)
    for repo, purposes in groups.items():
        main = max(sorted(set(purposes)), key=purposes.count)
        by_purpose[main].append(repo)
    dev: list[str] = []
    test: list[str] = []
    for purpose in sorted(by_purpose):
        repos = sorted(by_purpose[purpose], key=lambda r: hashlib.sha256(r.encode()).hexdigest())
        first, second = (dev, test) if len(dev) <= len(test) else (test, dev)
        for n, repo in enumerate(repos):
            (first if n % 2 == 0 else second).append(repo)
    return {
        "method": "stratified by each repository's main purpose; within a purpose ordered by sha256(name)"
        " and dealt alternately, starting with the half that has fewer so far",
        "rule_for_new": "a repository not listed: dev when the first byte of sha256(name) is even, else test",
        "dev": sorted(dev),
        "test": sorted(test),
    }


# --------------------------------------------------------------------------- measuring
@dataclass(frozen=True)
class Result:
    set: str
    name: str
    repo: str
    purpose: str
    half: str
    decision: str
    owner: str
    accept: tuple[str, ...]
    got_decision: str
    got_owner: str
    got_kind: str
    rule: str

    @property
    def decision_ok(self) -> bool:
        return self.decision == self.got_decision

    @property
    def cost(self) -> int:
        return COST[self.decision][self.got_decision]

    @property
    def noncode_to_agent(self) -> bool:
        return self.owner != "code" and self.got_decision == "change"


def measure(names: Sequence[str], split: dict[str, Any], half: str) -> list[Result]:
    results = []
    for name in names:
        for path, label in load_set(name):
            repo = f"{name}:{label['repo']}"
            where = half_of(repo, split)
            if half != "all" and where != half:
                continue
            tail = read_back(FileLogSource(path))
            job = str(label.get("job") or path.stem)
            got = diagnose_one(tail, job=job, step=label.get("step"), workflow=label.get("workflow"))
            results.append(
                Result(
                    name,
                    path.stem,
                    repo,
                    str(label["purpose"]),
                    where,
                    str(label["decision"]),
                    str(label["owner"]),
                    tuple(label["accept"]),
                    *got,
                )
            )
    return results


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else float("nan")


def figures(results: Sequence[Result]) -> dict[str, float]:
    by_repo: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_repo[r.repo].append(r)
    noncode = [r for r in results if r.owner != "code"]
    return {
        "logs": len(results),
        "repos": len(by_repo),
        "decision": _share([r.decision_ok for r in results]),
        "decision_macro": _share([])
        if not by_repo
        else sum(_share([r.decision_ok for r in rs]) for rs in by_repo.values()) / len(by_repo),
        "cost": sum(r.cost for r in results) / len(results) if results else float("nan"),
        "cost_macro": float("nan")
        if not by_repo
        else sum(sum(r.cost for r in rs) / len(rs) for rs in by_repo.values()) / len(by_repo),
        "noncode": len(noncode),
        "noncode_to_agent": _share([r.noncode_to_agent for r in noncode]),
        "owner": _share([r.owner == r.got_owner for r in results]),
        "kind": _share([r.got_kind in r.accept for r in results]),
    }


def _pct(x: float) -> str:
    return "     -" if x != x else f"{100 * x:5.1f}%"


HEADER = (
    f"{'':<14} {'logs':>5} {'repos':>5}  {'decision':>8} {'macro':>6}  {'cost':>5} {'macro':>5}"
    f"  {'non-code→agent':>14}  {'owner':>6}  {'kind':>6}"
)


def row(title: str, results: Sequence[Result]) -> str:
    f = figures(results)
    agent = f"{_pct(f['noncode_to_agent'])} of {f['noncode']:<4}"
    return (
        f"{title[:14]:<14} {f['logs']:>5} {f['repos']:>5}  {_pct(f['decision']):>8}"
        f" {_pct(f['decision_macro'])}"
        f"  {f['cost']:5.2f} {f['cost_macro']:5.2f}  {agent:>14}  {_pct(f['owner'])}  {_pct(f['kind'])}"
    )


def matrix(results: Sequence[Result]) -> list[str]:
    lines = ["truth \\ got   " + " ".join(f"{d:>9}" for d in DECISIONS_ALLOWED)]
    for truth in DECISIONS_ALLOWED:
        cells = [
            sum(1 for r in results if r.decision == truth and r.got_decision == got)
            for got in DECISIONS_ALLOWED
        ]
        lines.append(f"{truth:<13} " + " ".join(f"{c or '.':>9}" for c in cells))
    return lines


def print_report(results: Sequence[Result], half: str) -> None:
    print(f"half: {half}   ({len(results)} logs)")
    print(HEADER)
    print(row("all", results))
    print("by set")
    for name in SETS:
        part = [r for r in results if r.set == name]
        if part:
            print(row("  " + name, part))
    print("by purpose")
    for purpose in sorted({r.purpose for r in results}):
        print(row("  " + purpose, [r for r in results if r.purpose == purpose]))
    print()
    print("decisions (rows: label, columns: diagnosis)")
    print("\n".join(matrix(results)))
    print(
        "cost weights (rows: label, columns: diagnosis): "
        + "; ".join(f"{t}: " + " ".join(f"{g}={c}" for g, c in COST[t].items()) for t in DECISIONS_ALLOWED)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--half", choices=("dev", "test", "all"), default="dev")
    parser.add_argument(
        "--set", action="append", choices=tuple(SETS), help="measure only this set (repeatable)"
    )
    parser.add_argument("--misses", action="store_true", help="list the logs whose decision is wrong")
    parser.add_argument("--json", type=Path, help="write the figures and every log's result to this file")
    parser.add_argument("--write-split", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    names = args.set or list(SETS)
    if args.write_split:
        groups: dict[str, list[str]] = defaultdict(list)
        for name in SETS:
            for _, label in load_set(name):
                groups[f"{name}:{label['repo']}"].append(str(label["purpose"]))
        SPLIT.write_text(json.dumps(make_split(groups), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {SPLIT.relative_to(ROOT)}")
        return 0
    results = measure(names, load_split(), args.half)
    if not results:
        print("no log measured", file=sys.stderr)
        return 2
    print_report(results, args.half)
    if args.misses:
        for r in results:
            if not r.decision_ok:
                print(
                    f"  miss [{r.set}] {r.name}: {r.got_decision} ({r.got_kind}, {r.rule}) want {r.decision}"
                    f" ({r.owner}, {list(r.accept)})"
                )
    if args.json:
        payload = {
            "half": args.half,
            "all": figures(results),
            "by_set": {
                n: figures([r for r in results if r.set == n])
                for n in SETS
                if any(r.set == n for r in results)
            },
            "by_purpose": {
                p: figures([r for r in results if r.purpose == p])
                for p in sorted({r.purpose for r in results})
            },
            "results": [asdict(r) for r in results],
        }
        args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
