"""What the failing step is for: its purpose, read before the log's lines (DESIGN.md, "Whose failure it is").

In this order, the first that says wins:

1. A ``uses:`` step's action, by its identity (``owner/name[/path]@ref`` in the step's header or name), from
   the action table (``actions.yml``, written from each action's own description).
2. A ``run:`` step's command: its verb and target from the purpose table (``purposes.yml``: ``npm publish``,
   ``gh api``, ``docker push``, ``curl localhost``), else the kind of check the tool table gives (``pytest``
   is a test, ``ruff`` a lint), else the name of the project's script or target (``make release``,
   ``npm run deploy``, a Gradle task).
3. The step's, the job's and the workflow's names, as weaker priors, in that order.

Pure: values in, a :class:`StepPurpose` out. The tables are read once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from healer.diagnosis import yamltext
from healer.diagnosis.derive import SHELL_BUILTINS, name_hint, script_files
from healer.diagnosis.tooltable import RUN, Tool, read_command, split_commands, tool_name
from healer.model import Category, Owner

ACTION_TABLE = Path(__file__).with_name("actions.yml")
COMMAND_TABLE = Path(__file__).with_name("purposes.yml")


@dataclass(frozen=True)
class Kind:
    """A purpose: whether it checks the pull request's code, whose a failure of it is when nothing in the log
    says otherwise, and whether it builds the code (a compiler's error inside it is still the code's)."""

    code_check: bool
    owner: Owner
    builds_code: bool = False


PURPOSES: Mapping[str, Kind] = {
    # checks of the pull request's code and documents
    "test": Kind(True, Owner.CODE, True),
    "lint": Kind(True, Owner.CODE),
    "format": Kind(True, Owner.CODE),
    "typecheck": Kind(True, Owner.CODE),
    "build": Kind(True, Owner.CODE, True),
    "docs": Kind(True, Owner.CODE, True),
    "link-check": Kind(True, Owner.CODE),
    "security-scan": Kind(True, Owner.CODE),
    "container-build": Kind(True, Owner.CODE, True),
    "dependency-install": Kind(True, Owner.CODE),
    "health-check": Kind(True, Owner.CODE, True),
    # a check of the repository's files that says no more than that it checks (``scripts/check_client.py``)
    "check": Kind(True, Owner.CODE),
    # not a check of the code: whose it is comes from the purpose unless the evidence is more precise
    "pr-policy": Kind(False, Owner.METADATA),
    "dependency-bot": Kind(False, Owner.REPOSITORY),
    "automation": Kind(False, Owner.REPOSITORY),
    "release": Kind(False, Owner.REPOSITORY, True),
    "deploy": Kind(False, Owner.REPOSITORY, True),
    "credentials": Kind(False, Owner.REPOSITORY),
    "notification": Kind(False, Owner.REPOSITORY),
    "artifact": Kind(False, Owner.PLATFORM),
    "cache": Kind(False, Owner.PLATFORM),
    "toolchain": Kind(False, Owner.PLATFORM),
    "checkout": Kind(False, Owner.PLATFORM),
    "coverage-upload": Kind(False, Owner.PLATFORM),
    "download": Kind(False, Owner.PLATFORM),
    # Travis CI's phases that prepare the job (before_install, install, before_script): not a check of the
    # code, and nobody's in particular until the output says whose (the image, the network, the manifests)
    "setup": Kind(False, Owner.UNKNOWN, True),
}
# Travis CI's lifecycle ("The Build Lifecycle", docs.travis-ci.com): "If before_install, install or
# before_script returns a non-zero exit code, the build is errored and stops immediately"; a failure of
# `script` marks it failed. The phase a failing command ran in is read after its command, before any name.
SETUP_PHASES = frozenset({"before_install", "install", "before_script"})
# the tool table's kinds (and a name's) as purposes (``config`` and ``transient`` say nothing of a purpose)
_FROM_KIND = {
    Category.TEST.value: "test",
    Category.LINT.value: "lint",
    Category.FORMAT.value: "format",
    Category.TYPECHECK.value: "typecheck",
    Category.BUILD.value: "build",
    Category.DEPENDENCY.value: "dependency-install",
}
# ``owner/name[/path]@ref`` (the runner's header of a ``uses:`` step), or a container action
_USES = re.compile(
    r"^(?:Post )?(?:Run )?([A-Za-z0-9][\w.-]{0,99}/[\w.-]{1,100}(?:/[\w.-]{1,100}){0,4})"
    r"@[\w./+-]{1,200}$"
)
_DOCKER = re.compile(
    r"^(?:Post )?(?:Run )?docker://([\w./-]{1,200})(?::[\w.-]{1,128})?(?:@sha256:[0-9a-f]{64})?$"
)
# Words in a step's, job's or workflow's name, in the order they are tried. Before the checks' words: a job
# "Publish docs" publishes, a step "Check PR title" checks the title, not the code.
_NAME_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (purpose, re.compile(pattern, re.IGNORECASE))
    for purpose, pattern in (
        ("dependency-bot", r"dependabot|renovate|auto-?merge|\bupdate[- ]deps\b"),
        (
            "pr-policy",
            r"(?<![a-z0-9])pr[- _]?(?:title|lint|label|size|policy|check|body|description|template)"
            r"|pull[- _]?request[- _]?(?:title|labels?|lint|body|description|template)"
            # its task list and its milestone (GitHub Docs, "About task lists", "About milestones")
            r"|\btask[- _]?lists?\b|\bchecklist\b|\bmilestones?\b"
            r"|\b(?:check|lint|validate|verify)[- _]?title\b|\bissue[- _]?link|\blinked[- _]?issues?\b"
            r"|semantic[- _]?(?:pr|pull|title)|conventional[- _]commits?|\brequired?[- _]labels?"
            # the pull request's commits themselves: their messages, fixup! or squash! commits left in
            r"|\b(?:check|lint|validate|verify)[- _]?commits?\b|\bcommit[- _]?messages?\b"
            r"|\blabels? check|\b(?:check|verify|require|ensure|enforce|validate)\b[\w -]{0,30}\blabels?\b"
            # the DCO's `Signed-off-by:` trailer (`git commit --signoff`, the git documentation)
            r"|changelog|\bcla\b|\bdco\b|sign(?:ed)?-?off|news[- _]?(?:entry|fragment)"
            r"|\b(?:check|lint|validate|verify)[- _]?news\b"
            # a label or title that holds the pull request back (`do-not-merge`, `WIP`): the author's or a
            # reviewer's to remove (the wip and do-not-merge GitHub Apps' READMEs)
            r"|\bdo[- _]?not[- _]?merge\b|\bdnm\b|\bwip\b|\bwork[- _]in[- _]progress\b"
            # a draft pull request is a state of the pull request (GitHub Docs, "About pull requests": draft
            # pull requests), and its head branch's name is the author's to change
            r"|\bdraft[- _]?(?:pr|pull[- _]?request|check|status)\b|\bbranch[- _]?nam(?:e|ing)\b"
            # the branch it targets, the author's to change (GitHub Docs, "Changing the base branch of a PR")
            r"|\b(?:check|verify|require|ensure|enforce|validate)[- _](?:the )?(?:base|target)[- _]branch\b",
        ),
        ("release", r"\b(?:release|publish|pypi|npmjs|crates\.io|rubygems|maven central|sonatype)\b"),
        ("deploy", r"\b(?:deploy\w*|gh-pages|github pages|pages)\b"),
        ("credentials", r"\b(?:log ?in to|login|credentials|authenticate|auth(?:enticate)? (?:to|with))\b"),
        ("coverage-upload", r"\b(?:codecov|coveralls|upload (?:the )?coverage|coverage upload)\b"),
        ("artifact", r"\b(?:upload|download|store|save|retrieve)\b.{0,40}\bartifacts?\b|\bartifacts?\b"),
        ("cache", r"\bcache\b"),
        (
            "toolchain",
            r"\b(?:set ?up|setup|install)[- _](?:python|node(?:\.js)?|java|jdk|go(?:lang)?|ruby|rust|dotnet"
            r"|\.net|php|elixir|erlang|beam|haskell|ghc|flutter|dart|bun|deno|uv|conda|r|julia|zig|toolchain|bazel"
            r"|terraform|helm|kubectl|msbuild|xcode|android|ndk|gradle|maven|pnpm|yarn)\b",
        ),
        (
            "checkout",
            r"^(?:run )?(?:git )?checkout\b|\bcheck ?out (?:the )?(?:code|repo|repository|sources?)\b",
        ),
        (
            "automation",
            r"\b(?:labeler|label (?:the )?(?:pr|issue)|triage|stale|greet|welcome|add to project)\b",
        ),
        ("notification", r"\b(?:notify|notification|slack|discord|send (?:an )?e?-?mail)\b"),
        ("link-check", r"\blinks?\b|\blink-?check"),
        ("docs", r"\bdocs?\b|\bdocumentation\b|\bsphinx\b|\bmkdocs\b"),
        (
            "container-build",
            r"\b(?:docker|container|image)\b.{0,30}\bbuild|\bbuild\b.{0,30}\b(?:docker|container|image)\b",
        ),
    )
)
# commands that read what the one before them in a pipe wrote (``curl … | sh``, ``gh api … | jq``): the one
# before them says what the step is for
_FILTERS = frozenset(
    {
        "sh",
        "bash",
        "base64",
        "jq",
        "yq",
        "tee",
        "grep",
        "egrep",
        "xargs",
        "head",
        "tail",
        "sed",
        "awk",
        "sort",
        "uniq",
        "cat",
        "tr",
        "cut",
        "wc",
        "gunzip",
        "tar",
        "column",
        "fold",
    }
)
# a name that says no more than that the step checks something (after every more precise word): the GNU
# Coding Standards' `check` target ("perform self-tests"), `cargo check`, `npm run check`
_CHECK = re.compile(r"(?:^|[-_ ./])checks?(?:$|[-_ .:])", re.IGNORECASE)
# what a name may say of an automation step (an API call, a pull request command) more precisely than its verb
_SPECIFIC_AUTOMATION = frozenset({"dependency-bot", "pr-policy", "release", "deploy"})
# a command's purpose that a more precise name overrides, and the names' purposes that may
_YIELDS_TO_NAMES = {"automation": _SPECIFIC_AUTOMATION, "check": frozenset({"pr-policy"})}
# a tool named for linting, and the subcommands that name a check, for tools neither table knows
_LINTER_NAME = re.compile(r"(?:^|[-_])lint(?:er)?$|^lint[-_]")
_CHECK_VERBS = {"lint": "lint", "test": "test", "tests": "test", "fmt": "format", "typecheck": "typecheck"}
# the names the runner gives its own steps and the web UI's default names say nothing of a purpose
_SAYS_NOTHING = re.compile(r"^(?:Set up job|Complete job|Post job cleanup\.?|Run|run|)$")


@dataclass(frozen=True)
class StepPurpose:
    """What the failing step is for (``""`` when nothing said), how strong the reading is (``action``,
    ``command``, ``name``, or ``""``), and where it came from, in words for people."""

    purpose: str = ""
    strength: str = ""
    source: str = ""

    @property
    def kind(self) -> Kind | None:
        return PURPOSES.get(self.purpose)

    @property
    def code_check(self) -> bool:
        kind = self.kind
        return kind is not None and kind.code_check


def _validate(purpose: Any, where: str) -> str:
    if purpose not in PURPOSES:
        raise ValueError(f"{where}: unknown purpose {purpose!r}; known: {', '.join(sorted(PURPOSES))}")
    return str(purpose)


def parse_actions(data: Any, source: str = "actions.yml") -> dict[str, str]:
    """``owner/name[/path]`` (lower case) → purpose; raises ``ValueError`` naming what is wrong."""
    if not isinstance(data, Mapping) or not isinstance(data.get("actions"), list):
        raise ValueError(f"{source}: an `actions:` list is required")
    table: dict[str, str] = {}
    for n, entry in enumerate(data["actions"], 1):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("uses"), list) or not entry.get("doc"):
            raise ValueError(f"{source}: entry #{n}: `uses` (a list) and `doc` are required")
        purpose = _validate(entry.get("purpose"), f"{source}: entry #{n}")
        for name in entry["uses"]:
            key = str(name).lower().removeprefix("docker://")
            if key in table:
                raise ValueError(f"{source}: {name} is listed twice")
            table[key] = purpose
    return table


def parse_commands(
    data: Any, source: str = "purposes.yml"
) -> tuple[dict[str, Tool], dict[str, dict[str, str]]]:
    """The command table as the tool table's reader takes it (a tool's category is its purpose, ``""`` for
    none), and each tool's targets (a word in its arguments → purpose)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("commands"), list):
        raise ValueError(f"{source}: a `commands:` list is required")
    table: dict[str, Tool] = {}
    targets: dict[str, dict[str, str]] = {}
    for n, entry in enumerate(data["commands"], 1):
        where = f"{source}: entry #{n}"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("tool"), list) or not entry.get("doc"):
            raise ValueError(f"{where}: `tool` (a list) and `doc` are required")
        own = entry.get("purpose")
        purpose = "" if own is None else _validate(own, where)
        subs = {str(k): _validate(v, where) for k, v in (entry.get("subcommands") or {}).items()}
        aims = {str(k).lower(): _validate(v, where) for k, v in (entry.get("targets") or {}).items()}
        names = tuple(str(name) for name in entry["tool"])
        tool = Tool(names, purpose, subs, {})
        for name in names:
            if name.lower() in table:
                raise ValueError(f"{source}: {name} is listed twice")
            table[name.lower()] = tool
            targets[name.lower()] = aims
    return table, targets


@lru_cache(maxsize=1)
def action_table() -> dict[str, str]:
    """The shipped action table (read once)."""
    return parse_actions(yamltext.safe_load(ACTION_TABLE.read_text(encoding="utf-8")), ACTION_TABLE.name)


@lru_cache(maxsize=1)
def command_table() -> tuple[dict[str, Tool], dict[str, dict[str, str]]]:
    """The shipped command table (read once)."""
    return parse_commands(yamltext.safe_load(COMMAND_TABLE.read_text(encoding="utf-8")), COMMAND_TABLE.name)


def action_identity(text: str | None) -> str | None:
    """``owner/name[/path]`` of a ``uses:`` step's header or default name (``Run actions/cache@v4``,
    ``Post Run actions/cache/save@v4``, ``docker://image:tag``), lower case; None for anything else."""
    if not text:
        return None
    first = text.strip().splitlines()[0].strip() if text.strip() else ""
    found = _USES.match(first)
    if found:
        return found.group(1).lower()
    found = _DOCKER.match(first)
    return found.group(1).lower() if found else None


def from_action(identity: str, table: Mapping[str, str] | None = None) -> StepPurpose | None:
    """The action table's purpose of an action (an action in a subfolder falls back to its repository's)."""
    table = action_table() if table is None else table
    parts = identity.split("/")
    for size in range(len(parts), 1, -1):
        purpose = table.get("/".join(parts[:size]))
        if purpose is not None:
            return StepPurpose(purpose, "action", f"action table: {'/'.join(parts[:size])}")
    return None


def from_command(command: str) -> StepPurpose | None:
    """The purpose of a ``run:`` script, from its last command (shell builtins left out): what failed ran
    last, and the commands before it passed. The purpose table first, then the tool table's kind, then the
    name of the project's script, target or script file (``make release``, ``ci/run-tests.sh``)."""
    commands, targets = command_table()
    for words in reversed(split_commands(command)):
        head = tool_name(words[0].lstrip("({"))
        if head in SHELL_BUILTINS or head in _FILTERS:
            continue
        said = read_command(words, commands)
        if said is not None and said.category:
            aims = targets.get(said.tool.lower(), {})
            hit = next(((t, p) for word in words for t, p in aims.items() if t in word.lower()), None)
            if hit is not None:
                target, aimed = hit
                return StepPurpose(aimed, "command", f"command: {said.words} against {target}")
            return StepPurpose(said.category, "command", f"command: {said.words}")
        checked = read_command(words)
        if checked is None:
            return _script_file(words) or _unknown_tool(words)
        if checked.category == RUN or checked.default:
            # a project's script or target (npm run deploy, make release, ./gradlew publishDocs)
            by_name = from_names([("script", checked.script)]) if checked.script else None
            if by_name is not None:
                words_said = f"script name: {checked.tool} {checked.script}"
                return StepPurpose(by_name.purpose, "command", words_said)
            if checked.category == RUN:
                return None
        purpose = _FROM_KIND.get(checked.category)
        return StepPurpose(purpose, "command", f"tool table: {checked.words}") if purpose else None
    return None


def _unknown_tool(words: Sequence[str]) -> StepPurpose | None:
    """A tool neither table knows that says what it checks: its name ends in ``lint``/``linter``
    (``cfn-lint``, ``kube-linter``), or its first subcommand is the verb of a check (``sqlfluff lint``,
    ``buf lint``, ``ocamlformat fmt``): the command checks the pull request's files."""
    name = tool_name(words[0]).lower()
    if _LINTER_NAME.search(name):
        return StepPurpose("lint", "command", f"tool name: {name}")
    verb = next((w for w in words[1:] if not w.startswith("-")), "").lower()
    purpose = _CHECK_VERBS.get(verb)
    return StepPurpose(purpose, "command", f"subcommand: {name} {verb}") if purpose else None


def _script_file(words: Sequence[str]) -> StepPurpose | None:
    """What a script file's name says it is for (``ci/run-tests.sh``, ``./scripts/publish``)."""
    for name in script_files(words):
        said = from_names([("script file", name)])
        if said is not None:
            return StepPurpose(said.purpose, "command", said.source)
    return None


def from_names(names: Sequence[tuple[str, str | None]]) -> StepPurpose | None:
    """The first of (what, name) pairs whose name says a purpose: the words of ``_NAME_WORDS``, then what a
    check's name says (``lint``, ``unit-tests``)."""
    for what, name in names:
        if not name or _SAYS_NOTHING.match(name.strip()):
            continue
        for purpose, words in _NAME_WORDS:
            if words.search(name):
                return StepPurpose(purpose, "name", f"{what} name: {name.strip()[:100]}")
        hint = name_hint(name)
        if hint is not None and hint.value in _FROM_KIND:
            return StepPurpose(_FROM_KIND[hint.value], "name", f"{what} name: {name.strip()[:100]}")
    # only then a name that says no more than "check", the step's first (``Check Signed-off-by`` in a job
    # named ``dco`` is the DCO policy)
    for what, name in names:
        if name and not _SAYS_NOTHING.match(name.strip()) and _CHECK.search(name):
            return StepPurpose("check", "name", f"{what} name: {name.strip()[:100]}")
    return None


def step_purpose(
    *,
    header: str | None,
    command: str | None,
    step: str | None = None,
    job: str | None = None,
    workflow: str | None = None,
    phase: str | None = None,
) -> StepPurpose:
    """The failing step's purpose. ``header``: the log's ``Run …`` section name; ``command``: what the runner
    echoed (a script, or the action's reference); ``step``: the step's name (the Jobs API's, a capture's step
    column, or ``--step``); ``job``, ``workflow``: the job's and the workflow's names; ``phase``: another CI's
    lifecycle phase the command ran in (Travis CI's ``install``), read from the log's own framing."""
    # an unnamed `run:` step is shown as "Run <its script's first line>": the command again, not a name
    unnamed = step and command and step.startswith("Run ") and command.startswith(step[4:].strip()[:80])
    names = [("step", None if unnamed else step), ("job", job), ("workflow", workflow)]
    for text in (command, header, step):
        identity = action_identity(text)
        if identity is not None:
            # an action the table does not know: its own name is a name like the others (org/pypi-publish)
            return from_action(identity) or from_names([("action", identity), *names]) or StepPurpose()
    if command and not (header or "").startswith("Post "):
        said = from_command(command)
        if said is not None:
            named = from_names(names) if said.purpose in _YIELDS_TO_NAMES else None
            # ``gh pr merge --auto`` is automation; in a job named for Dependabot it is the bot's; a script
            # that says no more than that it checks (``scripts/ci/check.sh``) in a job named for the
            # changelog checks the changelog entry
            return named if named is not None and named.purpose in _YIELDS_TO_NAMES[said.purpose] else said
    if phase in SETUP_PHASES:
        return StepPurpose("setup", "name", f"Travis CI phase: {phase}")
    return from_names(names) or StepPurpose()
