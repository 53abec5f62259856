"""Errors a compiler or a type checker reports only in a dependency's own files: not the pull request's code.

Each tool names the file of each error. When every file it names belongs to a dependency the job downloaded,
not to the checkout, the project's own sources compile; what fails is a dependency's released source against
this toolchain, or two dependencies against each other (a new compiler rejecting an old locked crate, CMake 4
rejecting a fetched project's ``cmake_minimum_required``, a newly resolved ``@types/node`` clashing with
another package's globals). That is upstream's, for a person to update or pin; an agent could only silence
the check. Read:

- TypeScript's ``path(line,col): error TSnnnn:`` and, with ``--pretty``, ``path:line:col - error TSnnnn:``
  (its "tsc CLI Options"), and ts-node's ``path.ts (line,col): message (nnnn)``; a dependency's file is
  under ``node_modules``;
- rustc's ``--> path:line:col`` under each ``error`` (its diagnostics' location line); a dependency's file
  is under Cargo's ``registry/src`` or ``git/checkouts`` (The Cargo Book, "Cargo Home");
- Go's ``path.go:line:col:`` errors; a dependency's file is in the module cache, ``…/pkg/mod/`` (``go help
  gomodcache``);
- CMake's ``CMake Error at path:line``; a dependency's file is under FetchContent's ``_deps/`` (its
  ``FETCHCONTENT_BASE_DIR``, ``<build>/_deps``);
- npm's report of an install script that failed (a native addon's node-gyp build) with the folder it ran in,
  ``npm ERR! path /…/node_modules/x``: a dependency's build, whatever its compiler says;
- cabal-install's ``Failed to build text-show-3.11.`` for a package its build plan listed as a release it
  downloads, `` - text-show-3.11 (lib) (requires download & build)`` (a package of the project is listed as
  ``(first run)`` or ``(configuration changed)``): a Hackage release that does not build here.

One error in a file of the checkout keeps it the code's. So does a dependency's ``compile_error!`` (rustc
shows the macro's call under the error's location): the standard library's documentation gives the macro to
a crate for "better error messages for erroneous conditions" of its conditional compilation, the crate's word
to its user that the features or target it was built with are wrong (getrandom on ``wasm32-unknown-unknown``
without its ``js`` feature), which the project's manifest decides.

A pinned dependency pip has to build from its source distribution is the same: pip builds it in isolation
with the newest build tools its ``build-system.requires`` allows (pip's documentation, "Build System
Interface": build isolation), so an old release whose build script imports what those tools no longer have
(setuptools without ``pkg_resources``, Cython 3's ``cython_sources``) fails with no change of the pull
request. When the step installs requirements, not the project itself, and the package pip was building
stopped on an ``ImportError``, ``ModuleNotFoundError`` or ``AttributeError``, or on a Cython newer than the
one it was released with (not a C compiler's error: the runner's headers or compiler may be why), the
failure is upstream's, for a person to pin the build tools or move to a newer release.

A release its registry withdrew is upstream's too: the lock or the pin names a version that was there when
it was written and is gone now, for a person to move off. Read:

- pip's "Ignored the following yanked versions: 0.14.0" (PEP 592 yanking, pip's resolver) beside "No
  matching distribution found for x==0.14.0": the pinned version is one of those yanked;
- Cargo's "version 0.3.35 of `time` is yanked" or "package `x v1.0.0` in Cargo.lock is yanked in registry"
  beside its "failed to select a version" (The Cargo Book, "cargo yank");
- a Maven or Gradle repository answering ``410 Gone`` for an artifact (RFC 9110, 15.5.11: the resource is
  no longer available there and this is likely permanent);
- ``npm ci``'s ``ETARGET`` "No matching version found for x@1.2.3." for an exact version: ``npm ci``
  installs only what ``package-lock.json`` pins and stops first when the manifest and the lock file
  disagree (npm Docs, "npm ci"), so the locked release is gone from the registry (unpublished).

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.diagnosis.raised import frame_file
from healer.model import Action, Category, Diagnosis, Owner

_TSC = re.compile(r"(?:^|\s)(?P<path>\S+\.[cm]?tsx?)(?:\(\d+,\d+\): | ?:\d+:\d+ - )error TS\d+: ")
_TS_NODE = re.compile(r"^(?P<path>\S+\.[cm]?tsx?) \(\d+,\d+\): .+ \(\d{4,5}\)$")
_RUST_AT = re.compile(r"^-->\s+(?P<path>\S+):\d+:\d+$")
_RUST_ERROR = re.compile(r"^error(?:\[E\d{4}\])?: ")
# rustc's source line of the macro's call, under an error's location (`342 | /         compile_error!("…`)
_RUST_REFUSAL = re.compile(r"^\d*\s*\|[\s/|]*compile_error!\s*[(\[{]")
# how many lines under an error's location rustc's snippet takes before its call shows
_SNIPPET = 4
_GO = re.compile(r"^(?P<path>\S+\.go):\d+:\d+: ")
_CMAKE = re.compile(r"^CMake Error at (?P<path>\S+):\d+ ")
_DEPENDENCY = re.compile(
    r"(?:^|[/\\])node_modules[/\\]|[/\\]\.?cargo[/\\](?:registry[/\\]src|git[/\\]checkouts)[/\\]"
    r"|(?:^|[/\\])pkg[/\\]mod[/\\]\S+@v|(?:^|[/\\])_deps[/\\]"
)
_KINDS = frozenset({Category.BUILD, Category.TYPECHECK, Category.CONFIG})


def error_files(step_lines: Sequence[str]) -> list[str]:
    """The files the step's compiler and type-checker errors are located in, in order."""
    found = []
    rust_error = False
    for raw in step_lines:
        line = clean_line(raw).strip()
        if _RUST_ERROR.match(line):
            rust_error = True
            continue
        if rust_error and (match := _RUST_AT.match(line)):
            found.append(match.group("path"))
            rust_error = False
        elif match := _TSC.search(line) or _TS_NODE.match(line) or _GO.match(line) or _CMAKE.match(line):
            found.append(match.group("path"))
    return found


def only_in_dependencies(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when it is the code's build or type check and every located error is in
    a dependency's file; otherwise unchanged."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category not in (*_KINDS, Category.DEPENDENCY):
        return diagnosis
    files = error_files(step_lines)
    if not files and (script := _failed_script_folder(step_lines)) and _DEPENDENCY.search(script + "/"):
        said = f"npm ran the install script that failed in a dependency's folder ({script[-100:]})"
        return reread(diagnosis, Owner.UPSTREAM, diagnosis.category, Action.ESCALATE, said)
    if unit := _cabal_downloaded_failed(step_lines):
        said = f"cabal could not build {unit}, a release its plan downloads, not a package of the project"
        return reread(diagnosis, Owner.UPSTREAM, diagnosis.category, Action.ESCALATE, said)
    if diagnosis.category not in _KINDS or not files or not all(_DEPENDENCY.search(p) for p in files):
        return diagnosis
    if _refused_by_the_crate(step_lines):
        return diagnosis
    said = f"every error is in a dependency's own files ({files[0][-100:]}), none in the checkout"
    return reread(diagnosis, Owner.UPSTREAM, diagnosis.category, Action.ESCALATE, said)


def _refused_by_the_crate(step_lines: Sequence[str]) -> bool:
    """Whether a Rust error's snippet shows the ``compile_error!`` call that raised it."""
    under = 0
    for raw in step_lines:
        line = clean_line(raw).strip()
        if _RUST_AT.match(line):
            under = _SNIPPET
        elif under:
            if _RUST_REFUSAL.match(line):
                return True
            under -= 1
    return False


# npm's report of a lifecycle script that failed (npm Docs, "scripts": a dependency's `install` script, such
# as node-gyp's native build, runs in the dependency's folder): "npm ERR! path /…/node_modules/x", then "npm
# ERR! command failed" (npm 7 and later; npm 10 writes "npm error")
_NPM_PATH = re.compile(r"^npm (?:ERR!|error) path (?P<path>\S+)$")
_NPM_COMMAND_FAILED = re.compile(r"^npm (?:ERR!|error) command failed$")


def _failed_script_folder(step_lines: Sequence[str]) -> str | None:
    """The folder npm says the script that failed ran in, when it says a script failed; None otherwise."""
    folder, failed = None, False
    for raw in step_lines:
        if "npm" not in raw:
            continue
        line = clean_line(raw).strip()
        if found := _NPM_PATH.match(line):
            folder = found.group("path")
        elif _NPM_COMMAND_FAILED.match(line):
            failed = True
    return folder if failed else None


# cabal-install's build plan entry for a release it downloads, and its line for a package that failed to build
_CABAL_DOWNLOADED = re.compile(
    r"^- (?P<unit>[\w.-]+-\d+(?:\.\d+)*) \([\w:-]+\) \(requires download & build\)$"
)
_CABAL_FAILED = re.compile(
    r"^(?:(?:Error: )?cabal: )?Failed to build (?P<unit>[\w.-]+?-\d+(?:\.\d+)*)(?:\.|\s|$)"
)


def _cabal_downloaded_failed(step_lines: Sequence[str]) -> str | None:
    """The package cabal failed to build when every one it failed to build is a release its plan downloads;
    None otherwise."""
    downloaded: set[str] = set()
    failed: list[str] = []
    for raw in step_lines:
        if "requires download" not in raw and "Failed to build" not in raw:
            continue
        line = clean_line(raw).strip()
        if found := _CABAL_DOWNLOADED.match(line):
            downloaded.add(found["unit"])
        elif found := _CABAL_FAILED.match(line):
            failed.append(found["unit"])
    return failed[0] if failed and all(unit in downloaded for unit in failed) else None


# pip's line for a requirement pinned to one version, and the errors of a build script that imported a build
# tool's API that is gone, or of a build tool that no longer accepts the package's own configuration
# (setuptools' InvalidConfigError, setuptools.errors: "Invalid dash-separated key 'description-file' in
# 'metadata' (setup.cfg)", since setuptools 78)
_PINNED = re.compile(r"^Collecting (?P<name>[\w.-]+)==(?P<version>[\w.!+-]+)")
_BUILD_API = re.compile(
    r"^(?:ModuleNotFoundError|ImportError|AttributeError|(?:setuptools\.errors\.)?InvalidConfigError): "
    # and Cython's own refusal of the package's .pyx: the newest Cython the isolated build pulled no longer
    # compiles what an older one did ("Error compiling Cython file:", Cython's documentation, "Compilation")
    r"|^Error compiling Cython file:$"
)
# pip's build phases for a package it builds from source ("Getting requirements to build wheel: started",
# "Preparing metadata (setup.py): started", "Building wheel for x (pyproject.toml): started")
_BUILDING = re.compile(r"^(?:Getting requirements to build wheel|Preparing metadata|Building wheel for)\b")
_PIP_INSTALL = re.compile(r"\bpip3? (?:install|wheel)\b")
# the isolated environment pip builds in (`/tmp/pip-build-env-k2j1/overlay/…`)
_BUILD_ENV = "/pip-build-env-"
# an error that names a build tool's own module (pip shows only the error when the traceback is short)
_BUILD_TOOL = re.compile(r"'(?:setuptools|pkg_resources|distutils|Cython)(?:\.[\w.]+)?'")
# setuptools-rust's refusal to build without a Rust toolchain ("error: can't find Rust compiler", whose hint
# says an outdated pip may have missed the release's prebuilt wheel), and a package's setup script that needs
# setuptools-rust where pip is too old to install a package's build requirements first (PEP 518)
_NEEDS_RUST = re.compile(
    r"^error: can't find Rust compiler$"
    r"|^(?:ModuleNotFoundError|ImportError): No module named '?setuptools_rust'?$"
)
_COLLECTING = re.compile(r"^Collecting (?P<name>[\w.-]+)")
# pip's line for a package from the local tree: `Processing /home/runner/work/a/a`, `Obtaining file:///…`
_LOCAL = re.compile(r"^(?:Processing (?:\.|/|[A-Za-z]:\\)|Obtaining file:)")
# the project itself: `pip install .`, `-e .`, `.[test]`
_THE_PROJECT = re.compile(r"(?:^|\s)(?:-e\s+|--editable[= ])?\.(?:\[[^\]]*\])?(?:\s|$)")


def pinned_sdist_broke(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when pip could not build a pinned dependency's source distribution
    because its build script imported what today's build tools lack, or could not build the project because
    those build tools failed inside themselves (every frame of the traceback in pip's isolated build
    environment, ``pip-build-env-…``, or no frame shown and the error naming a build tool's module, such as
    ``module 'setuptools.dist' has no attribute …``), or built a requirement it collected from source only
    to find that release needs a Rust toolchain (a new ``cryptography`` under an old pip or Python, for which
    it found no wheel); otherwise unchanged."""
    command = diagnosis.command or ""
    if diagnosis.owner is not Owner.CODE or not _PIP_INSTALL.search(command):
        return diagnosis
    # what pip is building: a pinned dependency (`Collecting x==1.0`), or the project itself
    building_what = "the project" if _THE_PROJECT.search(command) else None
    pinned, building, collected = None, False, None
    frames: list[str] = []
    for raw in step_lines:
        line = clean_line(raw).strip()
        if found := _COLLECTING.match(line):
            collected = found.group("name")
        elif _LOCAL.match(line):
            collected = None
        if collected and _NEEDS_RUST.match(line):
            said = f"pip built the {collected} it collected from source; that release needs a Rust compiler"
            return reread(
                diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, f"{said} ({line[:80]})"
            )
        if match := _PINNED.match(line):
            pinned, building, frames = f"{match.group('name')}=={match.group('version')}", False, []
        elif line.startswith(("Collecting ", "Processing ", "Obtaining ")):
            pinned, building, frames = None, False, []
            building_what = "the project" if _LOCAL.match(line) else None
        elif (pinned or building_what) and _BUILDING.match(line):
            building = True
        elif building and (path := frame_file(raw)):
            frames.append(path)
        elif building and _BUILD_API.match(line):
            if pinned:
                said = f"pip could not build the pinned {pinned} from its source with today's build tools"
            elif "InvalidConfigError" in line:
                continue  # the project's own configuration the build tool now refuses: the checkout's to fix
            elif (frames and all(_BUILD_ENV in path for path in frames)) or (
                not frames and _BUILD_TOOL.search(line)
            ):
                said = "the build tools pip installed to build the project failed inside themselves"
            else:
                continue
            return reread(
                diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, f"{said} ({line[:80]})"
            )
    return diagnosis


_YANKED_PIP = re.compile(r"^(?:ERROR: |INFO: )?Ignored the following yanked versions: (?P<versions>.+)$")
_NO_DISTRIBUTION = re.compile(
    r"^(?:ERROR: )?No matching distribution found for (?P<name>[\w.-]+)==(?P<version>\S+)$"
)
_YANKED_CRATE = re.compile(
    r"\bversion (?P<version>\S+) of `(?P<name>[\w-]+)` is yanked\b"
    r"|\bpackage `(?P<locked>[\w-]+ v\S+)` in Cargo\.lock is yanked in registry\b"
)
_CARGO_UNRESOLVED = re.compile(r"^(?:error: )?failed to select a version for (?:the requirement )?`")
_NPM_CI = re.compile(r"(?<!\S)npm (?:ci|clean-install|install-clean|cit)\b")
_NOTARGET = re.compile(
    r"^npm (?:ERR!|error) notarget No matching version found for (?P<spec>\S+@\d+\.\d+\.\d+\S*?)\.?$"
)
_GONE = re.compile(r"\bstatus code:? 410\b|\bReceived status code 410\b|\b410 Gone\b")
_TRANSFER = re.compile(r"Could not (?:transfer|find|resolve|GET|HEAD)\b|Failed to (?:transfer|download)\b")


# words one of the withdrawn-release lines holds, to skip the others without a regular expression
_WITHDRAWN_WORDS = ("yank", "No matching", "failed to select", "410")


def withdrawn_release(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when the dependency install failed on a release its registry withdrew
    (yanked on PyPI or crates.io, ``410 Gone`` from a Maven repository, unpublished from npm's registry under
    ``npm ci``); otherwise unchanged."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category not in (Category.DEPENDENCY, Category.BUILD):
        return diagnosis
    yanked: set[str] = set()
    cargo_yanked = cargo_failed = None
    locked = bool(_NPM_CI.search(diagnosis.command or ""))
    for raw in step_lines:
        if not any(word in raw for word in _WITHDRAWN_WORDS):
            continue
        line = clean_line(raw).strip()
        if locked and (match := _NOTARGET.match(line)):
            said = f"{match.group('spec')}, which the lock file pins, is gone from the registry"
            return _withdrawn(diagnosis, said)
        if match := _YANKED_PIP.match(line):
            yanked.update(v.strip() for v in match.group("versions").split(","))
        elif (match := _NO_DISTRIBUTION.match(line)) and match.group("version") in yanked:
            return _withdrawn(
                diagnosis, f"{match.group('name')}=={match.group('version')} was yanked from PyPI"
            )
        elif match := _YANKED_CRATE.search(line):
            cargo_yanked = match.group("locked") or f"{match.group('name')} {match.group('version')}"
        elif _CARGO_UNRESOLVED.match(line):
            cargo_failed = line
        elif _GONE.search(line) and _TRANSFER.search(line):
            return _withdrawn(diagnosis, f"the repository answered 410 Gone: {line[:120]}")
    if cargo_yanked and cargo_failed:
        return _withdrawn(diagnosis, f"{cargo_yanked} was yanked from its registry")
    return diagnosis


def _withdrawn(diagnosis: Diagnosis, said: str) -> Diagnosis:
    return reread(diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, said)
