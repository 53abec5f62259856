"""The package's walls: folders follow the flow of a run, and imports only point down the table.

The table is the one in docs/layout.md: each folder may import the ones named here and nothing else.
Imports are read from the source (``ast``), including those inside functions and under ``TYPE_CHECKING``:
an arrow is an arrow, whether it is taken at import time or not.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "healer"

# folder (or top-level module) → what it may import besides itself
ALLOWED: dict[str, set[str]] = {
    "failure": set(),
    "model": {"failure"},
    "logsource": {"model"},
    "config": {"model"},
    "github": {"model", "logsource"},
    "text": {"model"},
    "diagnosis": {"model", "logsource"},
    "ledger": {"model", "text"},
    # the floor under both stages: the change (git, its diff, the guard, the heal's result and its bundle); it
    # runs no code of the pull request and writes nothing to GitHub
    "change": {"model", "text", "config"},
    # the heal stage runs the pull request's code: it imports nothing that writes to GitHub (no client, no
    # delivery), so it can run in a job without the write token
    "heal": {"model", "text", "config", "change"},
    # the deliver stage writes to GitHub and runs no code of the pull request: it imports nothing of the heal
    # stage, only the floor they share
    "deliver": {"model", "text", "github", "config", "change"},
    "run": {
        "model",
        "logsource",
        "config",
        "github",
        "text",
        "diagnosis",
        "ledger",
        "heal",
        "deliver",
        "change",
    },
    "cli": {"run", "diagnosis", "demo"},
    "__main__": {"cli"},
    "__init__": set(),
}
# the folders that may only import the ones below them (demo may import anything, and nothing imports it)
UNIT_FOLDERS = {"run", "diagnosis", "ledger", "change", "heal", "deliver", "text", "github", "config", "demo"}


def unit_of(module: str) -> str:
    """``healer.run.app`` → ``run``; ``healer.model`` → ``model``; ``healer`` → ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> Iterator[str]:
    """Every ``healer`` module that ``path`` imports (``from healer.x import y`` yields ``healer.x`` and, when
    ``y`` is a module, ``healer.x.y``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_of(path) if path.name == "__init__.py" else module_of(path).rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "healer":
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] != "healer":
                continue
            yield base
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                if _exists(candidate):
                    yield candidate


def _exists(module: str) -> bool:
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        edges[module_of(path)] = {m for m in imports_of(path) if m != module_of(path)}
    return edges


def test_every_module_lives_in_a_folder_of_the_table():
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top <= {"__init__", "__main__", "cli", "model", "failure", "logsource"}, sorted(top)
    # a folder that holds no source (a stale __pycache__ left by a move) is no folder of the package
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.rglob("*.py"))}
    assert folders == UNIT_FOLDERS, sorted(folders)


def test_imports_point_only_down_the_table():
    wrong = []
    for module, targets in graph().items():
        unit = unit_of(module)
        if unit == "demo":
            continue
        for target in targets:
            other = unit_of(target)
            if other != unit and other not in ALLOWED[unit] and target != "healer":
                wrong.append(f"{module} → {target}")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_two_stages_import_each_other_nowhere_and_both_stand_on_the_change():
    """The privilege boundary, in the imports: what runs the pull request's code (``heal``) and what writes
    to GitHub (``deliver``) share only the floor below them (``change``), which imports neither, nor the
    client."""
    edges = graph()
    crossing = sorted(
        f"{module} → {target}"
        for module, targets in edges.items()
        for target in targets
        if {unit_of(module), unit_of(target)} == {"heal", "deliver"}
    )
    assert not crossing, "\n".join(crossing)
    floor = {unit_of(t) for m, ts in edges.items() if unit_of(m) == "change" for t in ts} - {"change"}
    assert not floor & {"heal", "deliver", "github", "run"}, sorted(floor)
    for stage in ("heal", "deliver"):
        stands_on = {unit_of(t) for m, ts in edges.items() if unit_of(m) == stage for t in ts}
        assert "change" in stands_on, stage


def test_the_layout_page_gives_each_folder_the_imports_this_test_allows():
    """docs/layout.md's "may import" column says what ``ALLOWED`` enforces, for every folder and module
    it lists with a plain list (the shell's and the demo's rows say more than a list)."""
    page = (PACKAGE.parent / "docs" / "layout.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `healer/(\w+)(?:/|\.py)` \|.*\| ([\w, ]+) \|$", page, re.MULTILINE)
    listed = {unit for unit, _ in rows}
    assert set(ALLOWED) - {"cli", "__main__", "__init__"} <= listed, sorted(set(ALLOWED) - listed)
    for unit, allowed in rows:
        if allowed.strip() == "anything":  # the demo
            continue
        said = set() if allowed.strip() == "nothing" else {a.strip() for a in allowed.split(",")}
        assert said == ALLOWED[unit], f"docs/layout.md, {unit}: {sorted(said)} != {sorted(ALLOWED[unit])}"


# "Modules about 400 lines or fewer": a module past this has a seam to split along
MAX_MODULE_LINES = 410


def test_no_module_is_much_longer_than_400_lines():
    long = {
        module_of(path): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, long


def test_nothing_but_the_shell_imports_the_demo():
    users = {m for m, targets in graph().items() if any(unit_of(t) == "demo" for t in targets)}
    assert {unit_of(m) for m in users} <= {"demo", "cli"}, sorted(users)


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def _without_packages(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """Module edges, with a package's ``__init__`` (a re-export list, not code of its own) left out."""
    packages = {m for m in edges if (PACKAGE.parent.joinpath(*m.split(".")) / "__init__.py").is_file()}
    return {m: {t for t in ts if t not in packages} for m, ts in edges.items() if m not in packages}


@pytest.mark.parametrize("level", ["folders", "modules"])
def test_no_import_cycle_outside_the_demo(level):
    edges = {m: ts for m, ts in graph().items() if unit_of(m) != "demo"}
    if level == "folders":
        folded: dict[str, set[str]] = {}
        for module, targets in edges.items():
            folded.setdefault(unit_of(module), set()).update(
                unit_of(t) for t in targets if unit_of(t) != unit_of(module)
            )
        assert _cycle(folded) is None, " → ".join(_cycle(folded) or [])
    else:
        modules = _without_packages(edges)
        assert _cycle(modules) is None, " → ".join(_cycle(modules) or [])


MAX_CLASS_DEPTH = 2


def _class_depths() -> dict[str, int]:
    """Every class defined in ``healer`` outside the demo → the length of its longest chain of bases within
    the package, itself included: a class with no base of the package is 1, a subclass of it 2 (a class
    with two such bases, a mixin and what it is mixed with, is 2 as well). Exceptions are left out (an error
    hierarchy per boundary is the point of one), and so are bases from outside the package (``Protocol``,
    ``Enum``, ``object``), which frozen dataclasses and protocols are built on."""
    import importlib
    import inspect

    def ours(cls: type) -> bool:
        return cls.__module__.startswith("healer.") and unit_of(cls.__module__) != "demo"

    def depth(cls: type) -> int:
        return 1 + max((depth(base) for base in cls.__bases__ if ours(base)), default=0)

    depths: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_of(path)
        if unit_of(module) == "demo" or module == "healer.__main__":
            continue
        for _, cls in inspect.getmembers(importlib.import_module(module), inspect.isclass):
            if cls.__module__ == module and not issubclass(cls, BaseException):
                depths[f"{module}.{cls.__qualname__}"] = depth(cls)
    return depths


def test_no_class_hierarchy_is_deeper_than_two():
    depths = _class_depths()
    assert depths, "no class found: the walk is broken"
    deep = {name: depth for name, depth in depths.items() if depth > MAX_CLASS_DEPTH}
    assert not deep, deep


REPOSITORY = PACKAGE.parent
# What the top of the repository holds. A file that lands here by accident (a shell redirection gone astray
# leaves an empty file named after a number) fails this test, as does any tracked empty file.
TOP_LEVEL = {
    ".ci",
    ".github",
    ".gitignore",
    "CHANGELOG.md",
    "README.md",
    "SECURITY.md",
    "action.yml",
    "benchmarks",
    "docs",
    "examples",
    "healer",
    "prompts",
    "pyproject.toml",
    "requirements",
    "tests",
}


def _tracked() -> list[str] | None:
    import shutil
    import subprocess

    if not shutil.which("git") or not (REPOSITORY / ".git").exists():
        return None
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPOSITORY, capture_output=True, check=False
    ).stdout.decode("utf-8", "replace")
    return [p for p in listed.split("\0") if p]


def test_the_repository_root_holds_only_what_belongs_there():
    tracked = _tracked()
    names = (
        {p.split("/")[0] for p in tracked}
        if tracked is not None
        else {p.name for p in REPOSITORY.iterdir() if p.name != ".git" and not p.name.endswith(".egg-info")}
        - {".venv", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".hypothesis", "build", "dist"}
    )
    assert names <= TOP_LEVEL, f"unexpected at the top of the repository: {sorted(names - TOP_LEVEL)}"


def test_no_tracked_file_is_empty():
    tracked = _tracked()
    if tracked is None:
        pytest.skip("not a git checkout")
    empty = [p for p in tracked if (REPOSITORY / p).is_file() and (REPOSITORY / p).stat().st_size == 0]
    assert empty <= ["prompts/.gitkeep"], empty
