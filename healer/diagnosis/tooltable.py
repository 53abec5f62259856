"""The failing command → the tool it ran → the category its failure usually is (``tools.yml``).

A command is read as a shell line, never run: split into the commands that ``&&``, ``||``, ``;``, ``|`` and
new lines join, each into words (quotes respected, ``$(…)`` and variables left as words). The wrappers
before a tool (``sudo``, ``env A=1``, ``time``, ``travis_retry``, ``xvfb-run``, ``bundle exec``, ``npx``,
``python -m``, ``uv run``, ``poetry run`` …) are skipped; the tool's name is its first word without its path
or ``.exe``. The table says the tool's category, or another one by subcommand or flag (``cargo fmt``:
format, ``cargo clippy``: lint); a subcommand whose category is ``run`` names a script of the project
(``npm run lint``, ``make test``), which :mod:`healer.diagnosis.scripts` resolves.

Of the commands a line joins, the last one the table knows decides: with ``a && b``, ``b`` ran only because
``a`` passed, and the output of a failure is at the end.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from healer.diagnosis import yamltext
from healer.diagnosis.shellsplit import MAX_WORDS, split_commands
from healer.model import Category

RUN = "run"
TABLE = Path(__file__).with_name("tools.yml")
_SEPARATED = re.compile(r"[;\s]+")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# words that run the next word: skipped before the tool
_WRAPPERS = frozenset(
    {
        "sudo",
        "env",
        "time",
        "nice",
        "nohup",
        "exec",
        "command",
        "builtin",
        "travis_retry",
        "travis_wait",
        "retry",
        "xvfb-run",
        "timeout",
        "stdbuf",
        "unbuffer",
        "npx",
        "pnpx",
        "bunx",
        "uvx",
        "pipx",
        "hatch",
        "call",
        "&",
        "!",
        "if",
        "while",
        "until",
        "(",
        "{",
        "eval",
        "catchsegv",
        "dbus-run-session",
        "chronic",
        "script",
        "caffeinate",
        "arch",
        "ccache",
        "sccache",
        "set",
        "-x",
        "-e",
        "-o",
        "pipefail",
    }
)
_RUNNER_PAIRS = {
    ("bundle", "exec"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("uv", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("pnpm", "exec"),
    ("yarn", "exec"),
    ("yarn", "dlx"),
    ("pnpm", "dlx"),
    ("npm", "exec"),
    ("conda", "run"),
    ("pixi", "run"),
    ("rye", "run"),
    ("carton", "exec"),
    ("opam", "exec"),
    ("stack", "exec"),
    ("cabal", "exec"),
    ("mamba", "run"),
    ("dotnet", "tool"),
    ("swift", "run"),
    ("xcrun", ""),
}
_INTERPRETERS = frozenset(
    {
        "python",
        "python2",
        "python3",
        "py",
        "php",
        "ruby",
        "perl",
        "node",
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "pwsh",
        "powershell",
        "lua",
        "luajit",
        "Rscript",
        "julia",
    }
)
# options whose value is the next word (make -C dir, npm --prefix dir, mvn -f pom.xml, -j 4)
_ARG_OPTIONS = frozenset(
    {
        "-C",
        "-f",
        "--file",
        "--directory",
        "--makefile",
        "-j",
        "--jobs",
        "--prefix",
        "--project",
        "--manifest-path",
        "-p",
        "--settings",
        "-s:",
        "--workspace",
        "-w",
        "--config",
        "-c",
        "--cwd",
        "--dir",
        "--filter",
        "-F",
        "-I",
        "-l",
        "-P",
    }
)
# tools that take several goals or tasks (mvn clean verify, gradle clean build test): the last known decides
_GOALS = frozenset(
    {
        "mvn",
        "mvnw",
        "maven",
        "gradle",
        "gradlew",
        "make",
        "gmake",
        "sbt",
        "rake",
        "ant",
        "lein",
        "mix",
        "cabal",
        "stack",
        "rebar3",
    }
)
# tools whose other words name the project's own targets, tasks or scripts
_SCRIPTED = frozenset(
    {"make", "gmake", "rake", "just", "composer", "npm", "pnpm", "mix", "gradle", "gradlew"}
)
_SUFFIX = re.compile(r"\.(?:exe|bat|cmd|phar)$", re.IGNORECASE)


@dataclass(frozen=True)
class Tool:
    names: tuple[str, ...]
    category: str
    subcommands: Mapping[str, str]
    flags: Mapping[str, str]


@dataclass(frozen=True)
class Reading:
    """What the table says of one command: the tool's name, the category (or :data:`RUN`), and for
    :data:`RUN` the script's name and the runner."""

    tool: str
    category: str
    script: str | None = None
    default: bool = False  # the category is the runner's default, not what a subcommand says
    said: str = ""  # the words the table read (``cargo clippy``, ``prettier --check``)

    @property
    def words(self) -> str:
        return self.said or self.tool


def _categories() -> set[str]:
    return {c.value for c in Category} | {RUN}


def parse_table(data: Any, source: str = "tools.yml") -> dict[str, Tool]:
    """The table's entries by tool name; raises ``ValueError`` naming what is wrong."""
    if not isinstance(data, Mapping) or not isinstance(data.get("tools"), list):
        raise ValueError(f"{source}: a `tools:` list is required")
    known = _categories()
    table: dict[str, Tool] = {}
    for n, entry in enumerate(data["tools"], 1):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("tool"), list):
            raise ValueError(f"{source}: entry #{n}: `tool` must be a list of names")
        names = tuple(str(name) for name in entry["tool"])
        subs = {str(k): str(v) for k, v in (entry.get("subcommands") or {}).items()}
        flags = {str(k): str(v) for k, v in (entry.get("flags") or {}).items()}
        for value in [str(entry.get("category")), *subs.values(), *flags.values()]:
            if value not in known:
                raise ValueError(f"{source}: entry #{n} ({names[0]}): unknown category {value!r}")
        tool = Tool(names, str(entry["category"]), subs, flags)
        for name in names:
            if name.lower() in table:
                raise ValueError(f"{source}: {name} is listed twice")
            table[name.lower()] = tool
    return table


@lru_cache(maxsize=1)
def load_table() -> dict[str, Tool]:
    """The shipped table (read once)."""
    return parse_table(yamltext.safe_load(TABLE.read_text(encoding="utf-8")), str(TABLE.name))


def tool_name(word: str) -> str:
    """A command word as the table names tools: without its path or ``.exe``-like suffix."""
    name = word.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    stripped = _SUFFIX.sub("", name)
    return stripped or name


def _skip_wrappers(words: Sequence[str]) -> list[str]:
    rest = list(words)
    for _ in range(12):
        if not rest:
            break
        head = tool_name(rest[0])
        if _ASSIGNMENT.match(rest[0]) or rest[0] in _WRAPPERS or head in _WRAPPERS:
            rest = rest[1:]
            # the wrapper's own options (sudo -E, env -i, timeout 10m)
            while rest and (rest[0].startswith("-") or _ASSIGNMENT.match(rest[0])):
                rest = rest[1:]
            if head in ("timeout", "travis_wait", "nice") and rest and re.match(r"^\d", rest[0]):
                rest = rest[1:]
            continue
        if len(rest) > 1 and (head, rest[1]) in _RUNNER_PAIRS:
            rest = rest[2:]
            # the end of the runner's own options (`opam exec -- dune build`, `uv run -- pytest`)
            if rest and rest[0] == "--":
                rest = rest[1:]
            continue
        if head in _INTERPRETERS and len(rest) > 1:
            if rest[1] == "-m" and len(rest) > 2:
                rest = rest[2:]
                continue
            if rest[1] in ("-c", "-e"):
                break
            if not rest[1].startswith("-"):
                rest = rest[1:]
                continue
        break
    return rest


def _subcommand_words(rest: Sequence[str], limit: int = 3) -> list[str]:
    words: list[str] = []
    skip = False
    # one quoted word may hold several commands (sbt ";update ;test:compile")
    tokens = [t for word in rest for t in (_SEPARATED.split(word) if ";" in word else [word]) if t]
    for word in tokens:
        if skip:
            skip = False
            continue
        if word in _ARG_OPTIONS:
            skip = True
            continue
        if word.startswith("-") and word not in ("-e", "-s"):
            continue
        # a Gradle task path (:app:lintDebug) names its task last
        words.append(word.rsplit(":", 1)[-1] if word.startswith(":") else word)
        if len(words) == limit:
            break
    return words


def read_command(words: Sequence[str], table: Mapping[str, Tool] | None = None) -> Reading | None:
    """What the table says of one simple command (its words), or None when it does not know the tool."""
    table = load_table() if table is None else table
    rest = _skip_wrappers(words)
    if not rest:
        return None
    name = tool_name(rest[0])
    tool = table.get(name.lower())
    if tool is None:
        return None
    args = rest[1:]
    for flag, category in tool.flags.items():
        if flag in args:
            return Reading(name, category, said=f"{name} {flag}")
    subs = _subcommand_words(args)
    if name.lower() in _GOALS and tool.subcommands:
        known = [w for w in _subcommand_words(args, MAX_WORDS) if w in tool.subcommands]
        if known and tool.subcommands[known[-1]] != RUN:
            return Reading(name, tool.subcommands[known[-1]], said=f"{name} {known[-1]}")
    for size in (3, 2, 1):
        if len(subs) >= size:
            key = " ".join(subs[:size])
            category = tool.subcommands.get(key)
            if category is None and size == 1:
                category = tool.subcommands.get(subs[0].split(":", 1)[0]) if ":" in subs[0] else None
            if category is not None:
                script = None
                if category == RUN:
                    script = _script_after(args, key)
                return Reading(name, category, script, said=f"{name} {key}")
    if tool.category == RUN:
        return Reading(name, RUN, subs[0] if subs else None)
    if name.lower() in _SCRIPTED:
        # a target or task the table does not know (make dist-check), or the default one (bare make,
        # rake): the project's files or the name say more, and the evidence more than a default
        return Reading(name, tool.category, subs[0] if subs else None, default=True)
    return Reading(name, tool.category)


def _script_after(args: Sequence[str], key: str) -> str | None:
    words = _subcommand_words(args, MAX_WORDS)
    after = words[len(key.split()) :]
    return after[0] if after else (key if key not in ("run", "run-script", "exec", "-e", "-s", "x") else None)


def read_line(command: str, table: Mapping[str, Tool] | None = None) -> list[Reading]:
    """What the table says of each simple command of a shell line it knows, in order."""
    out = []
    for words in split_commands(command):
        reading = read_command(words, table)
        if reading is not None:
            out.append(reading)
    return out
