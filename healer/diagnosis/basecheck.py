"""A step that ran its failure again on the base branch and saw it fail the same way: upstream's.

Some workflows check, when their tests fail, whether the base branch fails too: the step's script checks out
the base (``git checkout origin/main``; ``git fetch origin main`` then ``git checkout FETCH_HEAD``; ``git
worktree add ../base origin/main``) and runs the failing command again. When a decisive line of the failure
shows again after that checkout, the base branch fails the same way without the pull request: a broken base
branch, upstream's and escalated to whoever keeps it green, as the healer's own look at the base branch's
latest run finds it (:mod:`healer.run.trunk`).

The checkout must be the step's own: in its script, or a command its output echoes (``$ git checkout …``, ``+
git checkout …``), of a branch name or of what a fetch of one left in ``FETCH_HEAD``, never the pull request's
own ref. The run on the base is told from the run before it by the echoed checkout or what git prints as it
checks out (``HEAD is now at 1fe9897 …``, ``Switched to branch 'main'``, the fetch's ``* branch main ->
FETCH_HEAD``), or else by the first run's totals (:data:`healer.diagnosis.runtotals.RUN_END`), or else by what
the script echoes just before a quiet checkout (``echo "--- same tests on main ---"`` then ``git checkout -q
origin/main``), or else, for a script that runs the same command on each side of a quiet checkout, by a
decisive line that shows exactly twice; a step that only runs on the base after another failed (``if:
failure()``) checks the run of the steps before it. A run on the base that passes, or fails on other lines,
leaves the failure the pull request's. A step that checks out its base branch before it runs anything and
never checks the pull request out again ran wholly on the base: when no step before it failed (or only the
step was captured), its failure is the base branch's; so is one that adds the base as a worktree (``git
worktree add ../base origin/main``) and runs everything after it in that worktree (``cd ../base && …``). A
failure's lines name the files of whichever tree failed (``/home/runner/work/app/app/src/a.kt`` and, in the
worktree, ``/home/runner/work/app/base/src/a.kt``), so the runner's work folder is left out where the two
runs are compared. A step before the failing one that checked out the base
(its script; `git checkout FETCH_HEAD -- .` takes the whole tree) and showed the same failure there, by a
decisive line, a test id or a failure's title, makes it the base branch's too.

Pure: a diagnosis, the failing step's header and its output in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reassigned
from healer.diagnosis.retries import failure_titles
from healer.diagnosis.runtotals import AFTER_END, RUN_END
from healer.model import Action, Category, Diagnosis, Owner

# the branch names a base branch has, or the variable or expression a workflow names it by
_NAME = (
    r"(?:main|master|develop|development|trunk|\$\{?\w*BASE\w*\}?"
    r"|\$\{\{ ?github\.(?:base_ref|event\.pull_request\.base\.(?:ref|sha)) ?\}\})"
)
_BRANCH = _NAME + r"(?![\w/.-])"
# a checkout's options, with the name of the local branch it may create there (`git switch -c base
# FETCH_HEAD`, `git checkout -b base origin/main`: git-switch(1), git-checkout(1))
_OPTIONS = r"(?: (?:-[bBcC]|--create|--force-create) [\w./-]{1,100}| -[-\w]+)*"
_CHECKOUT = re.compile(
    rf"\bgit (?:checkout|switch){_OPTIONS} (?:origin|upstream)/{_BRANCH}"
    rf"|\bgit worktree add (?:-\S+ )*\S+ (?:origin/|upstream/)?{_BRANCH}"
    # a fetch of the base branch, then its FETCH_HEAD checked out, or added as a worktree (in the same script)
    rf"|\bgit (?:checkout|switch){_OPTIONS} FETCH_HEAD\b|\bgit worktree add (?:-\S+ )*\S+ FETCH_HEAD\b"
    # the base's commit by the event's expression (`git checkout ${{ github.event.pull_request.base.sha }}`)
    rf"|\bgit (?:checkout|switch){_OPTIONS} \$\{{\{{ ?github\.event\.pull_request\.base\.sha ?\}}\}}"
)
# (the branch's name or variable may be quoted: `git fetch origin "$GITHUB_BASE_REF"`)
_FETCHED = re.compile(rf"\bgit fetch\b[^\n|;&]{{0,200}}? (?:origin|upstream) [\"']?{_BRANCH}")
# what git prints as it checks out the base branch, or fetches it
_GIT_SAYS = re.compile(
    rf"^(?:HEAD is now at [0-9a-f]{{7,40}} |Switched to (?:a new )?branch '{_NAME}'"
    rf"|Note: switching to '(?:origin/)?{_NAME}'|\* branch\s+{_NAME}\s+-> FETCH_HEAD$)"
)
# lines that end any failure, the same whichever code failed: not evidence that the same thing failed
_ANY_FAILURE = re.compile(
    r"Process completed with exit code|exited with \d+|^make(?:\[\d+\])?: \*\*\*"
    r"|^(?:npm|pnpm|yarn) (?:ERR!|error)|^(?:FAIL|FAILED|ERROR|error|Error)[:!]?$"
    r"|^error: (?:test failed|could not compile|aborting)|^Tests? failed"
    # go test's line for a package that failed, whichever of its tests did
    r"|^FAIL\s+\S+(?:\s+(?:[\d.]+s|\[build failed\]|\[setup failed\]))?\s*$"
)
# a duration a runner prints beside a test or a file ("(0.42s)", "41ms", "in 0.39s"): not part of what failed
_DURATION = re.compile(r"\(?\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds)\b\)?")
# a script's echo of a literal text (no variable, no command substitution in it)
_ECHO = re.compile(r"""^echo (?:-e )?(?:"(?P<a>[^"$`]+)"|'(?P<b>[^']+)'|(?P<c>[^"'$`;&|<>]+))$""")
# a tree under the runner's work folder (GitHub's hosted and container workspaces, Windows' D:\a\, Travis
# CI's build folder): the checkout, or a worktree beside it
_WORK_TREE = re.compile(
    r"(?:/home/runner/work|/Users/runner/work|/__w|[A-Za-z]:\\a|/home/travis/build)[/\\][^/\\\s]+[/\\][^/\\\s]+[/\\]"
)
# a worktree added at a path, and what it holds
_WORKTREE = re.compile(r"\bgit worktree add (?:-\S+ )*(?P<path>\S+) \S+")
_CATEGORIES = frozenset({Category.TEST, Category.BUILD, Category.LINT, Category.TYPECHECK, Category.FORMAT})


def failed_on_the_base(
    diagnosis: Diagnosis, header: Sequence[str], lines: Sequence[str], earlier: Sequence[str] = ()
) -> Diagnosis:
    """``diagnosis`` given to upstream when the step checked out its base branch and a decisive line of the
    failure shows both before and after that (see the module doc); else unchanged. ``earlier``: the log's
    lines before the step, where a step that runs on failure (``if: failure()``) finds the run it checks."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category not in _CATEGORIES or not diagnosis.decisive:
        return diagnosis
    script = "\n".join(clean_line(line) for line in header) + "\n" + (diagnosis.command or "")
    echoed = "\n".join(clean_line(raw) for raw in lines if "git " in raw)  # a checkout the output echoes
    if not checks_out_the_base(f"{script}\n{echoed}"):
        return _same_in_an_earlier_base_step(diagnosis, lines, earlier)
    cleaned = [clean_line(line).strip() for line in lines]
    split = _base_run_starts(cleaned, _marker_before_checkout(header, diagnosis.command or ""))
    first = (diagnosis.command or "").strip().split("\n", 1)[0]
    command = diagnosis.command or ""
    # no step before it failed (``earlier``: the log's lines before the step; none in a capture of the step)
    alone = not any("##[error]" in line for line in earlier)
    wholly = _wholly_on_the_base(command) or _wholly_in_a_base_worktree(command)
    if _begins_on_the_base(command) and wholly and alone:
        said = "the step checked out its base branch first, no step before it failed, and it failed there"
        return reassigned(diagnosis, Owner.UPSTREAM, said, "escalate", action=Action.ESCALATE)
    if split is None and _same_command_around_the_checkout(diagnosis.command or ""):
        split = _after_the_first_of_two(diagnosis, cleaned)
    if split is None and (_CHECKOUT.search(first) or _FETCHED.search(first)):
        split = 0  # the script begins on the base: the whole step runs there, the steps before on the PR
    if split is None:
        return diagnosis
    before = {_compared(clean_line(line)) for line in (*earlier, *cleaned[:split])}
    after = {_compared(line) for line in cleaned[split:]}
    same = _shown_in_each(diagnosis, before, after)
    if not same:
        return diagnosis
    said = f"the step checked out its base branch and failed the same way there ({same[0][:120]})"
    return reassigned(diagnosis, Owner.UPSTREAM, said, "escalate", action=Action.ESCALATE)


def _commands(script: str) -> list[str]:
    """The script's commands, split where the shell runs one after another (``&&``, ``||``, ``;``, a line)."""
    return [command.strip() for command in re.split(r"&&|\|\||;|\n", script) if command.strip()]


def _begins_on_the_base(script: str) -> bool:
    """Whether the script checks out a base branch before any command but a fetch runs."""
    for command in _commands(script):
        if _CHECKOUT.search(command):
            return True
        if not _FETCHED.search(command):
            return False
    return False


def _wholly_on_the_base(command: str) -> bool:
    """Whether the step ran on its base branch alone: its one checkout, of the whole tree (no pathspec), comes
    first and none checks the pull request out again."""
    checkouts = re.findall(r"\bgit (?:checkout|switch)\b[^\n;&|]*", command)
    # a pathspec other than the whole tree (`-- .`) checks out some of the base's files, not the base
    some = " -- " in f"{checkouts[0]} " and not checkouts[0].strip().endswith(" -- .") if checkouts else True
    return len(checkouts) == 1 and not some


def _same_in_an_earlier_base_step(
    diagnosis: Diagnosis, lines: Sequence[str], earlier: Sequence[str]
) -> Diagnosis:
    """``diagnosis`` given to upstream when a step before it checked out the base branch in its script and
    its output shows a decisive line of this failure, its failing test, or the title of a failure of this
    step's output (``lines``; a runner that prints no test ids: Vitest's ``× title``, RSpec's ``1) title``);
    a step that looks at the base first, then the tests of the pull request fail the same way; else
    unchanged."""
    if not any("git " in raw for raw in earlier):
        return diagnosis
    script: list[str] = []
    ran: set[str] = set()
    in_header = on_base = False
    base_run: list[str] = []
    for raw in earlier:
        line = clean_line(raw).strip()
        if line.startswith("##[group]Run "):
            in_header, script = True, [line[len("##[group]Run ") :]]
        elif in_header and line.startswith("##[endgroup]"):
            in_header, on_base = False, checks_out_the_base("\n".join(script))
        elif in_header:
            script.append(line)
        elif on_base:
            ran.add(_DURATION.sub("", line).strip())
            base_run.append(raw)
    if not ran:
        return diagnosis
    same = _shown_in_each(diagnosis, ran)
    same += sorted(set(failure_titles(lines)) & set(failure_titles(base_run)))
    if not same:
        return diagnosis
    said = f"a step before it checked out the base branch and failed the same way there ({same[0][:120]})"
    return reassigned(diagnosis, Owner.UPSTREAM, said, "escalate", action=Action.ESCALATE)


def _shown_in_each(diagnosis: Diagnosis, *runs: set[str]) -> list[str]:
    """The decisive lines of ``diagnosis`` (durations left out) and its failing tests' ids that each of
    ``runs`` (a run's lines, durations left out) shows."""
    # a run's totals are no cause: two runs of different failures may count the same
    causes = [d.strip() for d in diagnosis.decisive]
    decisive = [_compared(d) for d in causes if not _ANY_FAILURE.search(d) and not RUN_END.match(d)]
    same = [line for line in decisive if line and all(line in run for run in runs)]
    # a failing test named in each, whatever else its lines hold (a runner's counts differ by run)
    same += [t for t in diagnosis.test_ids if all(_named(t, run) for run in runs)]
    return same


def _compared(line: str) -> str:
    """``line`` as two runs are compared: without durations, and without the runner's work folder."""
    return _WORK_TREE.sub("", _DURATION.sub("", line)).strip()


def _wholly_in_a_base_worktree(command: str) -> bool:
    """Whether the step added its base branch as a worktree and ran every command after that in it (``git
    worktree add ../base origin/main`` then ``cd ../base && …``, and no other ``cd`` or checkout)."""
    commands = _commands(command)
    for at, said in enumerate(commands):
        if (found := _WORKTREE.search(said)) and _CHECKOUT.search(said):
            rest = commands[at + 1 :]
            inside = bool(rest) and rest[0] == f"cd {found['path']}"
            moved = any(c.startswith(("cd ", "git checkout", "git switch")) for c in rest[1:])
            return inside and not moved
    return False


def _named(test_id: str, lines: set[str]) -> bool:
    return any(test_id in line for line in lines)


def checks_out_the_base(text: str) -> bool:
    """Whether ``text`` (the step's script and output) checks out a base branch; a ``FETCH_HEAD`` only when
    a fetch of a base branch filled it."""
    if "git " not in text:
        return False
    for found in _CHECKOUT.finditer(text):
        if "FETCH_HEAD" not in found.group(0) or _FETCHED.search(text):
            return True
    return False


def _base_run_starts(cleaned: Sequence[str], marker: str | None = None) -> int | None:
    """The index of the output's first line of the second run: the echoed checkout or git's words as it
    checks out; else the line after the first run's totals; else the line the script echoes just before its
    checkout (``marker``, for a runner that prints no totals); None when none shows."""
    for n, line in enumerate(cleaned):
        if (_CHECKOUT.search(line) and not line.startswith("##[")) or _GIT_SAYS.match(line):
            return n + 1
    for n, line in enumerate(cleaned[:-1]):
        if RUN_END.match(line):
            # past what the runner prints under its totals (RSpec's failed examples, CTest's failed tests)
            while n + 1 < len(cleaned) and AFTER_END.match(cleaned[n + 1]):
                n += 1
            return n + 1
    if marker:
        for n, line in enumerate(cleaned[:-1]):
            if line == marker:
                return n + 1
    return None


def _same_command_around_the_checkout(script: str) -> bool:
    """Whether the script runs a command, checks out its base branch quietly, then runs that command again
    (``./hack/verify.sh && git checkout -q origin/main && ./hack/verify.sh``)."""
    commands = _commands(script)
    at = next((n for n, command in enumerate(commands) if _CHECKOUT.search(command)), None)
    if at is None:
        return False
    ran = {c for c in commands[:at] if not c.startswith(("git ", "echo "))}
    return any(c in ran for c in commands[at + 1 :])


def _after_the_first_of_two(diagnosis: Diagnosis, cleaned: Sequence[str]) -> int | None:
    """The line after the first of a decisive line's two showings, when it shows exactly twice in the output
    (once for each run of the same command); None otherwise."""
    for decisive in diagnosis.decisive:
        shown = [n for n, line in enumerate(cleaned) if line == decisive.strip()]
        if len(shown) == 2 and not _ANY_FAILURE.search(decisive):
            return shown[0] + 1
    return None


def _marker_before_checkout(header: Sequence[str], command: str) -> str | None:
    """The text the script echoes last before it checks out the base branch (``echo "--- on main ---"``
    then ``git checkout -q origin/main``, which prints nothing), a literal one only; None when no echo comes
    before the checkout."""
    script = command.splitlines() or [clean_line(line) for line in header]
    marker = None
    for line in script:
        if _CHECKOUT.search(line):
            return marker
        echo = _ECHO.match(line.strip())
        if echo:
            marker = (echo.group("a") or echo.group("b") or echo.group("c")).strip()
            marker = "##[group]" + marker[len("::group::") :] if marker.startswith("::group::") else marker
    return None
