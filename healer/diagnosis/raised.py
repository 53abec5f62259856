"""A Python program that died on an exception its own files raised: the pull request's code, in any step.

Python reports an uncaught exception as ``Traceback (most recent call last):``, then the frames from the
outermost to the innermost, each as ``  File "PATH", line N, in NAME`` (with its source line under it where it
has one), and last the exception as ``NAME: MESSAGE`` (the Python documentation, "traceback — Print or
retrieve a stack traceback" and the tutorial's "Errors and Exceptions"; a chained exception prints the same
shape again after "During handling of the above exception …"). The innermost frame is where it was raised.
A Node.js program's uncaught error is read the same way from its stack (:mod:`healer.diagnosis.thrown`).

When that frame is a file of the checkout (the workspace the runner checked the repository out into, or a
relative path), not an installed package or the standard library, the code the pull request carries raised
the exception: a release script's ``AttributeError``, a docs build's ``ImportError``, a warning turned into an
error by ``-W error``. That is the code's whatever the step is for, as a compiler's error in a release step
is.

Left as they were: an exception about the world (the network, a refused or missing credential, an environment
variable the job did not set: ``KeyError: 'PYPI_TOKEN'``), a process that stopped on purpose (``SystemExit``,
``KeyboardInterrupt``), a diagnosis a rule, the step's ending or its tests' history already gave an owner.

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.diagnosis.testcauses import CREDENTIAL, NETWORK, UNSET
from healer.diagnosis.thrown import last_thrown
from healer.model import Action, Category, Diagnosis, Owner

_TRACEBACK = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s+File "(?P<path>[^"]{1,400})", line \d+')
# the exception's line: a dotted class name, then its message (or nothing)
_EXCEPTION = re.compile(r"^(?P<name>[A-Za-z_][\w.]{0,120})(?::\s?(?P<message>.*))?$")
# the runner's checkout: GitHub's hosted and self-hosted workspaces (`<work>/<repo>/<repo>/`, a job
# container's `/__w/…`, a Docker action's `/github/workspace`), and Travis CI's `/home/travis/build/<o>/<r>/`
_CHECKOUT = re.compile(
    r"^(?:/home/runner/work/[^/]+/[^/]+/|/Users/runner/work/[^/]+/[^/]+/|/__w/[^/]+/[^/]+/"
    r"|/github/workspace/|/home/travis/build/[^/]+/[^/]+/|[A-Za-z]:\\a\\[^\\]+\\[^\\]+\\"
    r"|/\S*?/_work/[^/]+/[^/]+/)"
)
# installed code and the interpreter's own, wherever they live (a virtual environment inside the checkout too)
_INSTALLED = re.compile(
    r"site-packages|dist-packages|[/\\]lib[/\\]python\d|[/\\]\.?(?:venv|env|tox|nox|eggs)[/\\]|node_modules"
    r"|[/\\]_temp[/\\]|^<"
)
# exceptions that are not the code's mistake
_ON_PURPOSE = frozenset({"SystemExit", "KeyboardInterrupt", "GeneratorExit"})
_WORLD_NAMES = re.compile(
    r"(?:ConnectionError|ConnectTimeout|ReadTimeout|Timeout|TimeoutError|gaierror|URLError|SSLError"
    r"|ProxyError|HTTPError|NoCredentialsError|ClientError|RemoteDisconnected|IncompleteRead"
    # and Node's HTTP clients' (fetch's, node-fetch's, axios's, Octokit's)
    r"|FetchError|AbortError|AxiosError|HttpError|RequestError)$"
)
_ENV_KEY = re.compile(r"^'[A-Z][A-Z0-9_]{2,}'$")
# how near the end of the failing step the exception must be to be why the step failed
_NEAR_END = 40
# the kind an exception's name says, where the diagnosis had none of the code's kinds
_NAME_KIND = {
    "SyntaxError": Category.BUILD,
    "IndentationError": Category.BUILD,
    "TabError": Category.BUILD,
    "ModuleNotFoundError": Category.DEPENDENCY,
    "ImportError": Category.DEPENDENCY,
}


def last_raised(lines: Sequence[str]) -> tuple[str, str, str] | None:
    """The innermost frame's path, the exception's name and its message, of the last traceback that ends
    near the end of ``lines``; None when there is none."""
    start = max((i for i, line in enumerate(lines) if line.strip() == _TRACEBACK), default=None)
    if start is None:
        return None
    path = None
    for at in range(start + 1, len(lines)):
        frame = _FRAME.match(lines[at])
        if frame:
            path = frame.group("path")
            continue
        line = lines[at]
        if not line.strip() or line[:1].isspace():
            continue  # a frame's source line, a caret line
        found = _EXCEPTION.match(line.strip())
        if path is None or found is None or len(lines) - at > _NEAR_END:
            return None
        return path, found.group("name"), found.group("message") or ""
    return None


def in_checkout_terms(path: str) -> str:
    """``path`` relative to the runner's checkout (``tests/test_pool.py``) when it is under it."""
    found = _CHECKOUT.match(path)
    return path[found.end() :] if found else path


def in_the_checkout(path: str) -> bool:
    """Whether a frame's file is the checkout's own (not installed, not the interpreter's)."""
    if _INSTALLED.search(path):
        return False
    return bool(_CHECKOUT.match(path)) or not (path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path))


def raised_by_the_checkout(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to the code when the failing step died on an exception a file of the checkout
    raised and nothing more precise gave it an owner; otherwise unchanged."""
    if diagnosis.owner not in (Owner.UNKNOWN, Owner.REPOSITORY) or diagnosis.category is Category.TIMEOUT:
        return diagnosis
    stages = dict(diagnosis.decided_by)
    if "ending" in stages or "history" in stages:
        return diagnosis
    if diagnosis.rule != "python.exception" and not diagnosis.rule.startswith(("none", "derived.")):
        return diagnosis  # a rule that knows its failure said its owner
    raised = last_raised(step_lines) or last_thrown(step_lines)
    if raised is None:
        return diagnosis
    path, name, message = raised
    short = name.rpartition(".")[2]
    if not in_the_checkout(path) or short in _ON_PURPOSE or _WORLD_NAMES.search(short):
        return diagnosis
    said = f"{name}: {message}"
    if NETWORK.search(said) or CREDENTIAL.search(said) or UNSET.search(message):
        return diagnosis
    if short == "KeyError" and _ENV_KEY.match(message):
        return diagnosis
    kind = _NAME_KIND.get(short, diagnosis.category)
    if kind is Category.CONFIG:
        kind = Category.UNKNOWN
    said = f"{short} raised in {path.rsplit('/', 1)[-1][:80]}, a file of the checkout"
    return reread(diagnosis, Owner.CODE, kind, Action.AGENT, said, replaces_evidence=True)


# Python's ImportError for a name a module does not have, with the module's file: "cannot import name 'x'
# from 'pkg' (/…/site-packages/pkg/__init__.py)" (the Python documentation, "The import system"; before 3.8
# only "cannot import name 'x'"); pytest prefixes the line with `E   `
_CANNOT_IMPORT = re.compile(
    r"^(?:E\s+)?ImportError: cannot import name '?\w+'?(?: from '[\w.]+'(?: \((?P<path>[^)]{1,400})\))?|$)"
)
# a frame as pytest's short traceback prints it (`path.py:12: in <module>`) or as Python's does
ANY_FRAME = re.compile(r'^(?P<path>\S{1,400}\.py):\d+: in \S|^\s+File "(?P<file>[^"]{1,400})", line \d+')
# an installed distribution's files (not the standard library, not the checkout), and the package's folder
INSTALLED_PACKAGE = re.compile(r"[/\\](?:site|dist)-packages[/\\](?P<package>[\w.-]+)")
# a module an installed package imports from itself that its installation lacks (a compiled extension left
# out of the release): `ModuleNotFoundError: No module named 'pkg._speedups'`
_OWN_MODULE_MISSING = re.compile(r"^(?:E\s+)?ModuleNotFoundError: No module named '(?P<module>[\w.]+)'")


# Node.js refusing a CommonJS `require()` of an ES module (its errors documentation, ERR_REQUIRE_ESM): "Error
# [ERR_REQUIRE_ESM]: require() of ES Module /…/node_modules/a/index.js from /…/node_modules/b/x.cjs not
# supported."
_REQUIRE_ESM = re.compile(
    r"\[ERR_REQUIRE_ESM\]: require\(\) of ES Module (?P<module>\S+) from (?P<by>\S+) not supported"
)
_NODE_MODULES = re.compile(r"(?:^|[/\\])node_modules[/\\]")


def clash_between_installed(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when the step stopped on an installed package importing a name another
    installed package no longer has (Jinja2 importing ``soft_unicode`` from a MarkupSafe that removed it: two
    releases that do not fit together), or a module of its own its installation lacks (a compiled extension
    left out of the release), or an installed Node package ``require()``-ing another that became an ES module
    (``ERR_REQUIRE_ESM`` with both files under ``node_modules``): a person pins another version; otherwise
    unchanged. The pull request's own code importing a name a package lacks stays the code's."""
    if diagnosis.owner is not Owner.CODE or any(
        stage in ("ending", "history") for stage, _ in diagnosis.decided_by
    ):
        return diagnosis
    for raw in step_lines:
        if "ERR_REQUIRE_ESM" in raw and (esm := _REQUIRE_ESM.search(raw)):
            if _NODE_MODULES.search(esm.group("module")) and _NODE_MODULES.search(esm.group("by")):
                said = "an installed package require()s another that is now an ES module"
                return reread(
                    diagnosis,
                    Owner.UPSTREAM,
                    Category.DEPENDENCY,
                    Action.ESCALATE,
                    said,
                    replaces_evidence=True,
                )
            break
    for at in range(len(step_lines) - 1, max(-1, len(step_lines) - 1 - _NEAR_END), -1):
        line = step_lines[at].strip()
        found, own = _CANNOT_IMPORT.match(line), _OWN_MODULE_MISSING.match(line)
        if found is None and own is None:
            continue
        frames = (ANY_FRAME.match(before) for before in reversed(step_lines[max(0, at - 6) : at]))
        frame = next((m for m in frames if m), None)
        importer = INSTALLED_PACKAGE.search((frame.group("path") or frame.group("file")) if frame else "")
        if importer is None:
            return diagnosis  # the checkout's own import
        if own is not None and own.group("module").split(".")[0] != importer.group("package"):
            return diagnosis  # another package missing: the job's install may have left it out
        if found is not None and found.group("path") and not INSTALLED_PACKAGE.search(found.group("path")):
            return diagnosis  # an installed package importing the checkout's module
        said = "an installed package imports what its installation or another installed one lacks"
        return reread(
            diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, said, replaces_evidence=True
        )
    return diagnosis


# pytest's report of an error in itself or a plugin: each line of the traceback after `INTERNALERROR> ` (exit
# status 3, "Internal error happened while executing tests": pytest's documentation, "Exit codes")
_INTERNAL = "INTERNALERROR> "
_PYTEST_ITSELF = frozenset({"_pytest", "pytest", "pluggy"})


def crashed_plugin(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when pytest stopped on an error raised inside an installed plugin (not
    pytest itself, not a ``conftest.py`` of the checkout): its ``INTERNALERROR>`` report, or a traceback of
    ``pytest`` itself in which no frame is a file of the checkout. The plugin's release does not fit the
    installed pytest, and no test ran; otherwise unchanged."""
    if diagnosis.owner is not Owner.CODE:
        return diagnosis
    if any(_INTERNAL in line for line in step_lines[-_NEAR_END:]):
        lines = [line.split(_INTERNAL, 1)[1] for line in step_lines if _INTERNAL in line]
    elif "pytest" in (diagnosis.command or "") and not _checkout_frames(step_lines):
        lines = list(step_lines)
    else:
        return diagnosis
    raised = last_raised(lines)
    package = INSTALLED_PACKAGE.search(raised[0]) if raised else None
    if raised is None or package is None or package.group("package") in _PYTEST_ITSELF:
        return diagnosis
    if NETWORK.search(f"{raised[1]}: {raised[2]}") or CREDENTIAL.search(raised[2]):
        return diagnosis
    said = f"pytest stopped on {raised[1]} inside the installed plugin {package.group('package')[:60]}"
    return reread(
        diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, said, replaces_evidence=True
    )


def _checkout_frames(step_lines: Sequence[str]) -> bool:
    """Whether the step's last traceback has a frame in a file of the checkout."""
    start = max((i for i, line in enumerate(step_lines) if line.strip() == _TRACEBACK), default=None)
    if start is None:
        return True  # no traceback: nothing to read
    frames = (_FRAME.match(line) for line in step_lines[start + 1 :])
    return any(in_the_checkout(frame.group("path")) for frame in frames if frame)


# a frame of a Node.js stack trace, innermost first (`    at Pool._onDrain (node_modules/x/pool.js:212:23)`,
# `    at node_modules/x/index.js:3:9`): the V8 stack trace API's format
NODE_FRAME = re.compile(r"^at (?:.{1,300}? \()?(?P<path>[^\s()]+?):\d+:\d+\)?$")
# JavaScript's own errors of a program's logic (ECMAScript's native error types), as a runner prints an
# action's uncaught one (`##[error]TypeError: Cannot read properties of undefined (reading 'split')`)
_JS_BUG = re.compile(r"^(?:##\[error\])?(?:Uncaught )?(?:TypeError|ReferenceError|RangeError|SyntaxError): ")
# where the runner unpacks the actions a job uses (`_work/_actions/owner/repo/ref/…`, the runner's layout)
_ACTION_CODE = re.compile(r"[/\\]_actions[/\\][^/\\]+[/\\][^/\\]+[/\\]")
# the runner's refusal to start a JavaScript action whose entry file its ref does not hold (actions/runner's
# argument check, "File not found: '…/_actions/owner/repo/main/dist/index.js'")
_ACTION_FILE_MISSING = re.compile(r"^(?:##\[error\])?(?:Error: )?File not found: '(?P<path>[^']{1,500})'$")
# Node.js's MODULE_NOT_FOUND for a file the action's bundle names and does not hold ("Error: Cannot find
# module '…/_actions/owner/repo/v2/dist/index.js'", or a module its bundle requires, with "Require stack:"
# and "- " and the requiring file under it: Node's errors documentation)
_NODE_MISSING = re.compile(r"^(?:##\[error\])?(?:Error: )?Cannot find module '(?P<path>[^']{1,500})'")
_REQUIRED_BY = re.compile(r"^- (?P<path>\S{1,500})$")


def crashed_action(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when a ``uses:`` action died of a JavaScript error in its own code (the
    innermost frame of the stack under the runner's ``_actions`` folder, not a script the step gave it, which
    runs as ``eval``), or its ref lacks the entry file the runner starts (``File not found: '…/_actions/…'``;
    a local action's file is in the checkout, not there) or a module its bundle needs (Node's ``Cannot find
    module``): the action's release is broken, for a person to pin another; otherwise unchanged."""
    if diagnosis.owner in (Owner.NOBODY, Owner.HISTORY, Owner.UPSTREAM):
        return diagnosis
    error = None
    module = None  # a module Node could not find, until the first file of its require stack
    for raw in step_lines:
        line = clean_line(raw).strip()
        missing = "File not found" in line and _ACTION_FILE_MISSING.match(line)
        if missing and _ACTION_CODE.search(missing.group("path")):
            said = f"an action's ref lacks its own entry file ({missing.group('path')[-80:]})"
            return reread(diagnosis, Owner.UPSTREAM, Category.CONFIG, Action.ESCALATE, said)
        if "Cannot find module" in line and (found := _NODE_MISSING.match(line)):
            module = found.group("path")
        elif module and (by := _REQUIRED_BY.match(line)):
            module = (
                f"{module}, required by {by.group('path')}" if _ACTION_CODE.search(by.group("path")) else None
            )
        if module and _ACTION_CODE.search(module):
            said = f"an action's release lacks a file of its own bundle ({module[-120:]})"
            return reread(diagnosis, Owner.UPSTREAM, Category.CONFIG, Action.ESCALATE, said)
        if _JS_BUG.match(line):
            error = line
        elif error is not None and line.startswith("at "):
            frame = NODE_FRAME.match(line)
            if frame and _ACTION_CODE.search(frame.group("path")) and "eval at" not in line:
                said = f"an action crashed in its own code ({error[:80]}, at {frame.group('path')[-80:]})"
                return reread(diagnosis, Owner.UPSTREAM, diagnosis.category, Action.ESCALATE, said)
            error = None
    return diagnosis


# Python's report of code it cannot parse
_SYNTAX_ERROR = re.compile(r"^(?:E\s+)?SyntaxError: ")
# an installed package's file, and pip's temporary folder for a dependency it collects from source
# (`/tmp/pip-install-x1/pkg/setup.py`)
_PACKAGE_FILE = re.compile(r"[/\\](?:site|dist)-packages[/\\]|[/\\]pip-install-[^/\\]+[/\\]")
# tox 4 installs the project itself into each environment's site-packages, from the sdist it built of the
# checkout: "install_package> python -I -m pip install --force-reinstall --no-deps
# /…/.tox/.tmp/package/1/name-0.9.1.tar.gz" (tox's documentation, "tox 4 - user guide": packaging); tox 3
# reports the same install as "py38 inst: /…/.tox/.tmp/package/1/name-0.4.0.zip" (or from .tox/dist)
_TOX_PACKAGE = re.compile(
    r"(?:\binstall_package> |^\S+ inst: ).*[/\\]\.tox[/\\](?:\.tmp[/\\]package[/\\]\d+|dist)[/\\]"
    r"(?P<name>[A-Za-z0-9][\w.]*?)-\d"
)


def import_name(name: str) -> str:
    """A distribution's or a top-level folder's name as both compare (``Route-Wise.x`` → ``route_wise_x``)."""
    return re.sub(r"[-.]", "_", name.lower())


def _own_package(path: str, own: set[str]) -> bool:
    """Whether an installed file ``path`` belongs to the project itself (tox's package of the checkout)."""
    found = re.search(r"[/\\](?:site|dist)-packages[/\\](?P<top>[\w.]+?)(?:[/\\]|\.py$)", path)
    return found is not None and import_name(found.group("top")) in own


def frame_file(raw: str) -> str | None:
    """The file of a Python traceback's frame line (``  File "x.py", line 3``, :data:`_FRAME`), also as pytest
    quotes a traceback under ``E`` (``E     File "x.py", line 3``); None for any other line."""
    line = clean_line(raw)
    match = _FRAME.match(line[1:] if line.startswith("E ") else line)
    return match.group("path") if match else None


# where pytest says a module it imported (a conftest's import) could not be parsed: the file and line alone on
# a line, then the source line and a caret, then `SyntaxError: …`
_PYTEST_LOCATION = re.compile(r"^(?P<path>\S{1,400}\.py):\d+$")


def _syntax_location(raw: str) -> str | None:
    found = _PYTEST_LOCATION.match(clean_line(raw).strip())
    return found.group("path") if found else None


def syntax_of_another_python(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when Python could not parse a file of an installed package or of a
    dependency pip was collecting (its ``setup.py`` in pip's ``pip-install-…`` folder): a release written
    for a newer Python that does not say so (no ``python_requires``, PEP 345's Requires-Python), which pip
    installed on this older one; otherwise unchanged. A file of the checkout keeps it the code's, and so does
    the project's own package tox installed from it."""
    if diagnosis.owner is not Owner.CODE:
        return diagnosis
    where = None
    own: set[str] = set()
    for raw in step_lines:
        if ("install_package> " in raw or " inst: " in raw) and (tox := _TOX_PACKAGE.search(clean_line(raw))):
            own.add(import_name(tox.group("name")))
        if "File " not in raw and "SyntaxError" not in raw and ".py:" not in raw:
            continue
        if path := frame_file(raw) or _syntax_location(raw):
            where = path
        elif _SYNTAX_ERROR.match(clean_line(raw).strip()) and where is not None:
            if _PACKAGE_FILE.search(where) and not _own_package(where, own):
                said = f"a release written for a newer Python could not be parsed here ({where[-100:]})"
                return reread(diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, said)
            where = None
    return diagnosis


# Node.js's report of a file it cannot parse: the file and line on a line of their own, the source line and a
# caret under it, then `SyntaxError: …` (an uncaught error's decorated stack). A release that uses syntax this
# Node does not have yet (`?.`, `??`) fails with "Unexpected token", and an ES module (located by its
# `file:///…` URL) that imports what this Node's built-in modules do not have yet fails with "The requested
# module 'node:util' does not provide an export named 'styleText'"; a module in the other module system
# (`import` or `export` in a CommonJS file, Jest's untransformed ESM) is how the project loads it: the code's.
_NODE_LOCATION = re.compile(r"^(?P<path>(?:/|[A-Za-z]:\\|file:///)\S{1,500}\.[cm]?js):\d+$")
_NODE_SYNTAX = re.compile(
    r"^SyntaxError: (?:Unexpected token (?!'?(?:export|import)\b)|Invalid regular expression flags"
    # an ES module (located by its file:// URL) importing what this Node's own modules do not have yet
    r"|The requested module 'node:\w+' does not provide an export named )"
)
_NODE_AT = 6  # lines between the location and the error: the source line, the caret, a blank line


def syntax_of_another_node(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when Node.js could not parse a file of an installed package (its
    location under ``node_modules``): a release written for a newer Node that it installed on this older one
    (its ``engines`` is advice npm only warns about); otherwise unchanged. Jest's report of a module it did
    not transform, and a file of the checkout, keep it the code's."""
    if diagnosis.owner is not Owner.CODE:
        return diagnosis
    where, since = None, 0
    for raw in step_lines:
        line = clean_line(raw).strip()
        if "Jest encountered an unexpected token" in line:
            return diagnosis
        found = _NODE_LOCATION.match(line)
        if found:
            where, since = found.group("path"), 0
            continue
        since += 1
        if where is not None and since <= _NODE_AT and _NODE_SYNTAX.match(line):
            if "/node_modules/" in where.replace("\\", "/"):
                said = f"a release written for a newer Node.js could not be parsed here ({where[-100:]})"
                return reread(diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, said)
            where = None
    return diagnosis
