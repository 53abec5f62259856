"""A project script's name → the commands it runs, read from the project's own files (never run).

``npm run lint``, ``make check``, ``just test``, ``tox -e lint``, ``nox -s tests``, ``composer test`` and
``rake spec`` name a script that a file of the pull request's tree defines: ``package.json``, ``Makefile``,
``justfile``, ``tox.ini``, ``noxfile.py``, ``composer.json``, ``Rakefile``. :func:`resolve_script` finds the
script's commands in the text of those files, so that the tool table can read them.

These files are the pull request's, so attacker-controlled: they are only read, as text, with bounded sizes
(:data:`MAX_FILE_CHARS`, :data:`MAX_COMMANDS`), by plain parsing (JSON, line patterns); nothing in them is
run,
imported or evaluated. A file that does not parse gives no commands.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping

from healer.diagnosis.logs import clean_line

MAX_FILE_CHARS = 512 * 1024
MAX_COMMANDS = 20
MAX_COMMAND_CHARS = 1000
# the files this module reads, by the runner that uses them
SCRIPT_FILES = (
    "package.json",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "justfile",
    "Justfile",
    ".justfile",
    "tox.ini",
    "noxfile.py",
    "composer.json",
    "Rakefile",
    "rakefile",
    "Rakefile.rb",
)
_RUNNER_FILES = {
    "npm": ("package.json",),
    "pnpm": ("package.json",),
    "yarn": ("package.json",),
    "bun": ("package.json",),
    "make": ("GNUmakefile", "makefile", "Makefile"),
    "gmake": ("GNUmakefile", "makefile", "Makefile"),
    "just": ("justfile", "Justfile", ".justfile"),
    "tox": ("tox.ini",),
    "nox": ("noxfile.py",),
    "composer": ("composer.json",),
    "rake": ("Rakefile", "rakefile", "Rakefile.rb"),
}


def script_files(read: Callable[[str], str | None]) -> dict[str, str]:
    """The script files of a tree, as :func:`resolve_script` and ``classify(…, scripts=…)`` take them.

    ``read`` gives a file's text by its name at the tree's root, or None when there is none (the GitHub
    client's ``get_file(name, head_sha)``, or a checkout's files); each text is cut to :data:`MAX_FILE_CHARS`.
    """
    found: dict[str, str] = {}
    for name in SCRIPT_FILES:
        text = read(name)
        if isinstance(text, str):
            found[name] = text[:MAX_FILE_CHARS]
    return found


# At most this many files are asked for to resolve one run's scripts (each is one request to GitHub).
MAX_FILES_READ = 3
# The file names a runner's scripts are most often in, first (a missing one costs a request).
_MOST_LIKELY_FIRST = {"make": ("Makefile", "makefile", "GNUmakefile"), "gmake": ("Makefile", "GNUmakefile")}


def files_to_read(command: str) -> tuple[str, ...]:
    """The script files that would say what the script runners in ``command`` (``npm run lint``,
    ``make check``, ``tox -e py``, …) ran, most likely first, at most :data:`MAX_FILES_READ`; empty when the
    command runs no script runner."""
    from healer.diagnosis.tooltable import read_line

    wanted: list[str] = []
    for reading in read_line(command[:MAX_COMMAND_CHARS]):
        for name in _MOST_LIKELY_FIRST.get(reading.tool, _RUNNER_FILES.get(reading.tool, ())):
            if name not in wanted:
                wanted.append(name)
    return tuple(wanted[:MAX_FILES_READ])


# npm's and pnpm's echo of a script they run (npm's run-script output): "> name@1.0.0 size" (npm 6 and pnpm
# add the package's folder), then the script's command on the next line, "> size-limit"
_NPM_ECHO = re.compile(r"^> (?:@[\w.-]+/)?[\w.-]+@\S+ (?P<script>[\w:.-]{1,100})(?: \S+)?$")


def with_echoed_scripts(files: Mapping[str, str] | None, lines: Iterable[str]) -> Mapping[str, str] | None:
    """``files``, or when they hold no ``package.json``, the scripts npm's own echo in the step's ``lines``
    shows it ran (as a ``package.json`` of those scripts): what ``npm run size`` ran is in the log."""
    if files and "package.json" in files:
        return files
    echoed: dict[str, str] = {}
    script = None
    for raw in lines:
        if "> " not in raw:
            script = None
            continue
        line = clean_line(raw).strip()
        if script is not None and line.startswith("> "):
            echoed.setdefault(script, line[2:].strip()[:MAX_COMMAND_CHARS])
        script = found.group("script") if (found := _NPM_ECHO.match(line)) else None
        if len(echoed) >= MAX_COMMANDS:
            break
    if not echoed:
        return files
    return {**(files or {}), "package.json": json.dumps({"scripts": echoed})}


def runs_scripts(runner: str) -> bool:
    """Whether :func:`resolve_script` knows where ``runner`` keeps its scripts."""
    return runner in _RUNNER_FILES


def resolve_script(runner: str, script: str | None, files: Mapping[str, str]) -> list[str]:
    """The commands that ``runner`` runs for ``script`` (the default one when None), read from ``files``
    (file name → text); empty when the files do not say."""
    for name in _RUNNER_FILES.get(runner, ()):
        text = files.get(name)
        if not isinstance(text, str):
            continue
        text = text[:MAX_FILE_CHARS]
        reader = _READERS[name.lower().lstrip(".").removesuffix(".rb")]
        try:
            commands = reader(text, script)
        except (ValueError, TypeError, RecursionError):
            commands = []
        if commands:
            return [c[:MAX_COMMAND_CHARS] for c in commands[:MAX_COMMANDS]]
    return []


def _package_json(text: str, script: str | None) -> list[str]:
    data = json.loads(text)
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return []
    body = scripts.get(script or "test")
    return [body] if isinstance(body, str) else []


def _composer_json(text: str, script: str | None) -> list[str]:
    data = json.loads(text)
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict) or script is None:
        return []
    out: list[str] = []
    pending = [script]
    seen: set[str] = set()
    while pending and len(out) < MAX_COMMANDS:
        name = pending.pop(0)
        if name in seen:
            continue
        seen.add(name)
        body = scripts.get(name)
        for line in [body] if isinstance(body, str) else body if isinstance(body, list) else []:
            if not isinstance(line, str):
                continue
            if line.startswith("@") and not line.startswith(("@php", "@composer", "@putenv")):
                pending.append(line[1:].split()[0])
            else:
                out.append(line.removeprefix("@php ").removeprefix("@composer "))
    return out


_MAKE_TARGET = re.compile(r"^([^\s:#=][^:#=]*?)\s*::?(?!=)\s*([^=#;]*?)\s*(?:;(.*))?$")


def _makefile(text: str, script: str | None, depth: int = 0) -> list[str]:
    lines = text.splitlines()
    targets: dict[str, tuple[list[str], list[str]]] = {}
    first: str | None = None
    current: list[str] | None = None
    for line in lines:
        if line.startswith("\t"):
            if current is not None:
                recipe = line.strip().lstrip("@-+").strip()
                if recipe:
                    current.append(recipe)
            continue
        current = None
        found = _MAKE_TARGET.match(line)
        if not found or line.startswith((" ", "export ", "define ", "include ", "ifeq", "ifneq", "ifdef")):
            continue
        recipe: list[str] = [found.group(3).strip()] if found.group(3) and found.group(3).strip() else []
        deps = found.group(2).split()
        for name in found.group(1).split():
            if name.startswith(".") and "/" not in name:
                continue
            first = first or name
            targets[name] = (deps, recipe)
        current = recipe
    wanted = script or first
    if wanted not in targets:
        return []
    deps, recipe = targets[wanted]
    out = list(recipe)
    if depth < 3:
        for dep in deps:
            if dep in targets and len(out) < MAX_COMMANDS:
                out.extend(_makefile(text, dep, depth + 1))
    return out


_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][\w-]*)(?:\s+[^:=]*)?:(?!=)\s*(.*)$")


def _justfile(text: str, script: str | None) -> list[str]:
    recipes: dict[str, tuple[list[str], list[str]]] = {}
    first: str | None = None
    current: list[str] | None = None
    for line in text.splitlines():
        if line[:1] in (" ", "\t"):
            if current is not None and line.strip() and not line.strip().startswith("#"):
                current.append(line.strip().lstrip("@-").strip())
            continue
        current = None
        found = _JUST_RECIPE.match(line)
        if found and not line.startswith(("set ", "export ", "alias ", "import ", "mod ")):
            name = found.group(1)
            first = first or name
            current = []
            recipes[name] = (
                [d for d in found.group(2).split() if re.match(r"^[A-Za-z_][\w-]*$", d)],
                current,
            )
    wanted = script or first
    if wanted not in recipes:
        return []
    deps, body = recipes[wanted]
    out = list(body)
    for dep in deps[:MAX_COMMANDS]:
        if dep in recipes and dep != wanted:
            out.extend(recipes[dep][1])
    return out


def _tox_ini(text: str, script: str | None) -> list[str]:
    sections: dict[str, dict[str, str]] = {}
    section = ""
    key: str | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.lstrip().startswith(("#", ";")):
            continue
        header = re.match(r"^\[([^\]]+)\]\s*$", line)
        if header:
            section, key = header.group(1).strip(), None
            sections.setdefault(section, {})
            continue
        if line[:1] in (" ", "\t") and key is not None:
            sections[section][key] += "\n" + line.strip()
            continue
        pair = re.match(r"^([\w.-]+)\s*=\s*(.*)$", line)
        if pair:
            key = pair.group(1)
            sections.setdefault(section, {})[key] = pair.group(2)
    names = [f"testenv:{script}"] if script else []
    names += [s for s in sections if script and s.startswith("testenv:") and script in s[8:].split(",")]
    names.append("testenv")
    for name in names:
        commands = sections.get(name, {}).get("commands")
        if commands:
            return [c.strip() for c in commands.split("\n") if c.strip()]
    return []


_NOX_SESSION = re.compile(r"^@nox\.session\b(.*)$")
_NOX_DEF = re.compile(r"^def\s+(\w+)\s*\(")
_NOX_RUN = re.compile(r"session\.run\(\s*((?:[\"'][^\"']*[\"']\s*,?\s*)+)")
_STRING = re.compile(r"[\"']([^\"']*)[\"']")


def _noxfile(text: str, script: str | None) -> list[str]:
    lines = text.splitlines()
    named: str | None = None
    for n, line in enumerate(lines):
        decorator = _NOX_SESSION.match(line)
        if decorator:
            name = re.search(r"name\s*=\s*[\"']([^\"']+)[\"']", decorator.group(1))
            named = name.group(1) if name else None
            continue
        found = _NOX_DEF.match(line)
        if not found:
            continue
        session = named or found.group(1)
        named = None
        if script is not None and session != script and found.group(1) != script:
            continue
        body = []
        for inner in lines[n + 1 :]:
            if inner and not inner[:1].isspace():
                break
            body.append(inner)
        out = []
        for call in _NOX_RUN.finditer("\n".join(body)):
            words = _STRING.findall(call.group(1))
            if words:
                out.append(" ".join(words))
        return out
    return []


_RAKE_TASK = re.compile(r"""^\s*task\s*\(?\s*(?::(\w+)|["'](\w+)["']|(\w+):)\s*(?:=>|,)?\s*(.*)$""")
_RAKE_SH = re.compile(r"""^\s*(?:sh|system|ruby)\s*\(?\s*["']([^"']+)["']""")
_RAKE_LIBRARY = {
    "RSpec::Core::RakeTask": "rspec",
    "Rake::TestTask": "rake test",
    "RuboCop::RakeTask": "rubocop",
    "Cucumber::Rake::Task": "cucumber",
    "YARD::Rake::YardocTask": "yard",
    "Bundler::GemHelper": "gem build",
}


def _rakefile(text: str, script: str | None) -> list[str]:
    wanted = script or "default"
    lines = text.splitlines()
    for line in lines:
        for library, command in _RAKE_LIBRARY.items():
            made = re.search(re.escape(library) + r"""\.new\(?\s*(?::(\w+)|["'](\w+)["'])?""", line)
            if made and (made.group(1) or made.group(2) or _default_rake_name(command)) == wanted:
                return [command]
    for n, line in enumerate(lines):
        found = _RAKE_TASK.match(line)
        if not found or (found.group(1) or found.group(2) or found.group(3)) != wanted:
            continue
        out = []
        for inner in lines[n + 1 : n + 60]:
            if re.match(r"^\s*end\b", inner) and not inner.startswith("    "):
                break
            sh = _RAKE_SH.match(inner)
            if sh:
                out.append(sh.group(1))
        deps = re.findall(r":(\w+)|[\"'](\w+)[\"']", found.group(4))
        for dep in deps[:5]:
            name = dep[0] or dep[1]
            if name != wanted:
                out.extend(_rakefile(text, name) if wanted == "default" else [])
        return out
    return []


def _default_rake_name(command: str) -> str:
    return {"rspec": "spec", "rake test": "test", "rubocop": "rubocop", "cucumber": "features"}.get(
        command, ""
    )


_READERS = {
    "package.json": _package_json,
    "composer.json": _composer_json,
    "makefile": _makefile,
    "gnumakefile": _makefile,
    "justfile": _justfile,
    "tox.ini": _tox_ini,
    "noxfile.py": _noxfile,
    "rakefile": _rakefile,
}
