"""A category without a rule: from the failing command's tool, the project's script it ran, or the evidence.

In this order (DESIGN.md, "Rules accumulate"):

1. The tool table (:mod:`healer.diagnosis.tooltable`): ``cargo clippy`` is lint, ``dotnet test`` test.
2. A script runner (``npm run lint``, ``make check``, ``tox -e py``): the script's commands, read from the
   project's files when the caller has them (:mod:`healer.diagnosis.scripts`), else the script's name
   (``lint``, ``test:unit``, ``build``), which says much on its own; a script file's name
   (``ci/test.sh``) likewise.
3. The evidence's shape (:mod:`healer.diagnosis.shapes`): a compiler diagnostic is build, "N examples, M
   failures" test.

Evidence that the command never got to do its work overrides the tool: the network (transient), a package
that cannot be resolved (dependency), a command or a file that is not there (config). A test run that cannot
reach a registry did not fail a test.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from healer.diagnosis.finder import Found
from healer.diagnosis.scripts import resolve_script, runs_scripts
from healer.diagnosis.shapes import Evidence
from healer.diagnosis.tooltable import RUN, Reading, read_line, split_commands, tool_name
from healer.model import Category

MAX_DEPTH = 3
# a shell line whose commands are alternatives: only one of them ran
_CONDITIONAL = re.compile(r"\b(?:if|elif|else|case)\b|\|\|")
# the categories whose evidence says the command never got to do its own work
_AROUND = (Category.TRANSIENT, Category.DEPENDENCY, Category.CONFIG)
# a script's or a script file's name → category, the first that matches
_NAME_HINTS: tuple[tuple[re.Pattern[str], Category], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), category)
    for pattern, category in (
        (
            r"(?:^|[-_:./])(?:fmt|format\w*|prettier|black|isort|gofmt|rustfmt|style-?check)(?:$|[-_:./])",
            Category.FORMAT,
        ),
        (r"(?:^|[-_:./])(?:type-?check\w*|types|tsc|mypy|pyright|flow)(?:$|[-_:./])", Category.TYPECHECK),
        (
            r"(?:lint|eslint|clippy|credo|rubocop|flake8|pylint|vet|style|spell|codespell|audit-?links|links?)",
            Category.LINT,
        ),
        (
            r"(?:^|[-_:./])(?:tests?|spec|specs|e2e|unit|integration|coverage|cover)(?:$|[-_:./\d])",
            Category.TEST,
        ),
        (r"test", Category.TEST),
        (
            r"(?:^|[-_:./])(?:build|compile|dist|bundle|assemble|package|make|docs?|site)(?:$|[-_:./])",
            Category.BUILD,
        ),
        (
            r"(?:^|[-_:./])(?:install|deps|dependencies|bootstrap|setup|restore)(?:$|[-_:./])",
            Category.DEPENDENCY,
        ),
    )
)


@dataclass(frozen=True)
class Derived:
    """A category, what kind of hint gave it (``tool``, ``script``, ``evidence``, ``job``), and where it came
    from in words for a person (``tool table: cargo``, ``script name: npm lint``)."""

    category: Category
    kind: str
    source: str


def name_hint(name: str) -> Category | None:
    """What a script's or a script file's name says (``lint:css`` → lint, ``ci/test.sh`` → test)."""
    for pattern, category in _NAME_HINTS:
        if pattern.search(name):
            return category
    return None


@dataclass(frozen=True)
class _Said:
    category: Category
    source: str
    weak: bool  # a runner's default or a file's name: the evidence's shape says more


def _from_command(command: str, scripts: Mapping[str, str] | None, depth: int = 0) -> _Said | None:
    said = [s for s in (_from_reading(r, scripts, depth) for r in reversed(read_line(command))) if s]
    if said and not _last_is_known(command):
        # ``javac x.java && java Main``: what failed ran last, and the table does not know it; the tools
        # before it passed, so they say nothing of the failure
        said = []
    strong = [s for s in said if not s.weak]
    if strong:
        alternatives = _CONDITIONAL.search(command) is not None and len(read_line(command)) > 1
        if len({s.category for s in strong}) > 1 or alternatives:
            # several tools of different kinds, or the branches of a condition (if …; then npm run lint;
            # else npm run ci; fi): which one ran and failed is for the evidence to say
            return _Said(strong[0].category, strong[0].source, True)
        return strong[0]
    if said:
        return said[0]
    # no tool the table knows: a script file's name may say what it is for (ci/run-tests.sh)
    for words in reversed(split_commands(command)):
        for name in script_files(words):
            hint = name_hint(name)
            if hint is not None:
                return _Said(hint, f"script file name: {name}", True)
    return None


_SCRIPT_SUFFIXES = (".sh", ".ps1", ".bat", ".py", ".rb", ".pl")


def script_files(words: Sequence[str]) -> list[str]:
    """The names of the script files a simple command runs (``ci/run-tests.sh``, ``python scripts/x.py``):
    its first two words that are a path or end like a script, without their folders."""
    return [tool_name(w) for w in words[:2] if "/" in w or w.endswith(_SCRIPT_SUFFIXES)]


# shell builtins that end a line without being what failed (``npm test || exit 1``, ``cd web && make``)
SHELL_BUILTINS = frozenset(
    {
        "cd",
        "exit",
        "echo",
        "printf",
        "true",
        "false",
        "export",
        "set",
        "source",
        ".",
        "pushd",
        "popd",
        "fi",
        "done",
        "then",
        "else",
        "esac",
        "shopt",
        "unset",
        "local",
        "return",
        ":",
        "wait",
        "sleep",
        "mkdir",
        "ls",
    }
)


def _last_is_known(command: str) -> bool:
    for words in reversed(split_commands(command)):
        if tool_name(words[0]) in SHELL_BUILTINS:
            continue
        return bool(read_line(" ".join(words)))
    return True


def _from_reading(reading: Reading, scripts: Mapping[str, str] | None, depth: int) -> _Said | None:
    script = reading.script
    if reading.category == RUN or reading.default:
        if scripts and depth < MAX_DEPTH and runs_scripts(reading.tool):
            for line in resolve_script(reading.tool, script, scripts)[::-1]:
                inner = _from_command(line, scripts, depth + 1)
                if inner is not None:
                    source = f"{reading.tool} {script or '(default)'} runs {inner.source}"
                    return _Said(inner.category, source, inner.weak)
        if script:
            hint = name_hint(script)
            if hint is not None:
                return _Said(hint, f"script name: {reading.tool} {script}", False)
        if reading.category == RUN:
            return None
        return _Said(Category(reading.category), f"tool table: {reading.words}", True)
    return _Said(Category(reading.category), f"tool table: {reading.words}", False)


def script_command(command: str | None, scripts: Mapping[str, str] | None) -> str | None:
    """The last command of the project's script the failing command ran last (``npm run size`` →
    ``size-limit``), read from ``scripts``; None when it ran no script runner or the files do not say."""
    readings = read_line(command) if command and scripts else []
    last = readings[-1] if readings else None
    if last is None or not (last.category == RUN or last.default) or not runs_scripts(last.tool):
        return None
    ran = resolve_script(last.tool, last.script, scripts or {})
    return ran[-1] if ran else None


def evidence_category(evidence: Sequence[Evidence], first: int | None) -> Category | None:
    """The category the evidence's shapes imply: the first real failure's, else the most frequent among the
    strongest lines."""
    for item in evidence:
        if item.index == first and item.category is not None:
            return item.category
    strong = Counter(e.category for e in evidence if e.strength >= 3 and e.category is not None)
    if strong:
        return strong.most_common(1)[0][0]
    return None


def derive_category(
    command: str | None,
    found: Found,
    *,
    scripts: Mapping[str, str] | None = None,
    job: str | None = None,
) -> Derived | None:
    """The category of a failure no rule explained, and where it came from; None when nothing says.

    ``scripts``: the project's script files (name → text), when the caller has the pull request's tree;
    ``job``: the job's (check's) name, the last hint (``lint``, ``unit-tests``)."""
    from_evidence = evidence_category(found.evidence, found.first)
    if from_evidence in _AROUND:
        return Derived(from_evidence, "evidence", _shape_words(found))
    said = _from_command(command, scripts) if command else None
    if said is not None and not said.weak:
        return Derived(said.category, _kind(said.source), said.source)
    if from_evidence is not None:
        return Derived(from_evidence, "evidence", _shape_words(found))
    hint = name_hint(job) if job else None
    if hint is not None:
        return Derived(hint, "job", f"job name: {job}")
    if said is not None:
        return Derived(said.category, _kind(said.source), said.source)
    return None


def _kind(source: str) -> str:
    return "tool" if source.startswith("tool table") else "script"


_SHAPE_NAMES = {
    Category.BUILD: "a compiler's or parser's error",
    Category.TEST: "a test's failure report",
    Category.LINT: "a linter's report",
    Category.TRANSIENT: "a network error",
    Category.DEPENDENCY: "a package that cannot be resolved or installed",
    Category.CONFIG: "a command, file or permission that is missing",
}


def _shape_words(found: Found) -> str:
    category = evidence_category(found.evidence, found.first)
    return _SHAPE_NAMES.get(category, "the output's shape") if category is not None else "the output's shape"
