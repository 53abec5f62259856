"""A job that runs the code against unreleased versions of what it depends on: its failure is upstream's.

Projects run such jobs to hear early of what their dependencies' next releases will break ("upstream-dev",
"latest deps" jobs; Scientific Python's nightly wheels exist for them). The code that fails there passes
against the released versions; the change to follow is upstream's release or a person's decision, not an
agent's fix to a pull request. Read from the job itself:

- a step of the job installed pre-releases: pip's ``--pre`` ("Include pre-release and development versions",
  pip's documentation), uv's ``--prerelease allow``, or the Scientific Python nightly wheels index
  (``scientific-python-nightly-wheels``, its documentation);
- the failing command runs Go's development tree (``gotip``: golang.org/dl's command for the latest
  unreleased Go);
- the job runs a Node.js not yet released, as ``node --version`` prints it (a nightly or V8-canary build,
  ``v26.0.0-nightly20261104…``, or a release candidate);
- a command installs TypeScript's nightly or a pre-release by its npm dist-tag (``typescript@next``,
  TypeScript's "Nightly Builds"; ``@beta``, ``@rc``), or setup-julia's ``version`` input asks for a Julia not
  yet released (``nightly``, ``1.12-nightly``, ``pre``: its README);
- the job's or the workflow's name says it: ``upstream-dev``, ``latest deps``, ``nightly wheels``,
  ``pre-release dependencies``, ``nightly upstream``, ``numpy-nightly``; or it names a toolchain or framework
  with the channel of its unreleased builds (``rust beta``, ``clippy (nightly)``, ``flutter master``,
  ``ruby-head``, ``jdk-ea`` and ``26-ea``, ``dotnet 10 preview``, ``gotip``, ``node-nightly``,
  ``django-main``, ``rails-edge``, ``gradle-rc``, Fedora's ``rawhide``), never a bare ``nightly`` or ``main``
  (a scheduled run, a branch);
- for a dependency that cannot be installed or built there, not the project's own tests: setup-python set up
  a pre-release interpreter, "Successfully set up CPython (3.14.0-alpha.5)" (its log line for the version it
  installed; ``3.14-dev`` and ``allow-prereleases`` resolve to alphas, betas and release candidates), or the
  job is named for one (``3.15-dev``);
- a nightly Rust compiler (``cargo +nightly``, ``rustup run nightly``, cargo in a job named for the nightly
  toolchain, Travis CI's ``rust: nightly``) refused an unstable feature the code
  uses: ``error[E0658]`` (use of an unstable feature), ``E0635`` (unknown feature), ``E0557`` (feature has
  been removed), rustc's error index. Unstable features change between nightlies without notice (The
  Unstable Book); the same errors on a stable compiler are the code's.

Only a failure read as the code's test, build, type check or dependency is given to upstream: a network error,
a refused credential or a linter's finding keeps its reading.

Pure: lines and names in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

# a command as the log echoes it (the runner's `##[group]Run …` and the script lines of the step's header,
# Travis's `$ …`), never a line of a tool's output
_PRE_INSTALL = re.compile(
    r"^(?:##\[group\]Run |\$ )?(?:sudo )?(?:python\d?(?:\.\d+)? -m )?(?:uv )?pip3? install\b"
    r"(?=.*?(?:\s--pre\b|\s--prerelease[= ](?:allow|if-necessary)\b|scientific-python-nightly-wheels))"
)
_PRE_PYTHON = re.compile(
    r"^Successfully set up (?:CPython|PyPy) \((?P<version>\d+\.\d+\.\d+-(?:alpha|beta|rc)\S*)\)"
)
# setup-python's version for a Python in development, as a matrix names the job ("test (3.15-dev)")
_DEV_PYTHON = re.compile(r"(?<![\w.])3\.\d{1,2}-dev\b")
# what a pre-release interpreter alone gives to upstream: the dependencies it cannot install or build
_INTERPRETER_KINDS = frozenset({Category.BUILD, Category.DEPENDENCY})
# clippy from a toolchain not yet released: the command's channel, or the job's name
_CLIPPY_TOOLCHAIN = re.compile(r"(?<!\S)(?:cargo\s+\+|rustup run )(nightly|beta)\b")
_RUST_CHANNEL = re.compile(r"(?i)\b(?:nightly|beta)\b")
_GOTIP = re.compile(r"^(?:\S+/)?gotip\s")
# TypeScript's nightly and pre-release builds by their npm dist-tags (its "Nightly Builds" page: `npm install
# -D typescript@next`), in a command the log echoes
_TYPESCRIPT_NEXT = re.compile(r"\btypescript@(?:next|insiders|beta|rc)\b")
# julia-actions/setup-julia's `version` input for a Julia not yet released (its README: "nightly", a
# release's `1.12-nightly`, "pre" for the latest pre-release), as the runner lists the step's inputs
_SETUP_JULIA = "Run julia-actions/setup-julia"
# a Node.js not yet released, as `node --version` prints it: its nightly and V8-canary builds
# ("v26.0.0-nightly20261104359dca457", nodejs.org/download/nightly and /v8-canary) and release candidates
_NODE_UNRELEASED = re.compile(r"^v\d+\.\d+\.\d+-(?:nightly\d{8}|v8-canary\d{8}|rc\.\d+)[0-9a-f]*$")
_JULIA_UNRELEASED = re.compile(r"^version: ['\"]?(?:nightly|pre|\d+\.\d+-nightly)['\"]?$")
_TOOLCHAINS = (
    r"django|rails|elixir|erlang|otp|flutter|dart|ruby|jruby|truffleruby|php|wordpress|gradle|kotlin|jdk|java"
    r"|openjdk|dotnet|node|nodejs|deno|bun|golang|rust|julia|llvm|clang|gcc|swift|xcode|typescript|ember|angular"
    r"|react|vue|svelte|laravel|symfony|phoenix|selenium|ghc|zig|nim|crystal|scala|sbt|maven|bazel|pytorch|torch"
    r"|tensorflow|jax|electron|kubernetes|mypy|eslint|webpack|vite|jest|sphinx|pytest"
    r"|clippy|rustfmt|cabal"
)
_CHANNELS = r"nightly|canary|edge|head|main|master|trunk|tip|beta|rc|ea|early[-_ ]access|insiders"
_NAMED = re.compile(
    r"(?i)\bupstream[-_ ]?dev\b|\blatest[-_ ](?:deps|dependencies)\b"
    r"|\b(?:nightly|pre-?release|dev|development)[-_ ](?:deps|dependencies|wheels)\b"
    r"|\bnightly[-_ ]upstream\b|\bupstream[-_ ](?:nightly|main|head)\b"
    # a job against one of the projects the Scientific Python nightly wheels publish
    r"|\b(?:numpy|scipy|pandas|matplotlib|scikit-learn|pyarrow|networkx|xarray)[-_ ](?:nightly|dev|main)\b"
    # a toolchain or framework named with the channel of its unreleased builds, as their projects name them:
    # Rust's beta and nightly toolchains (rustup), Flutter's beta and master channels, setup-ruby's
    # `ruby-head`, the JDK's early-access builds (`26-ea`, setup-java), .NET's preview SDKs, Go's `gotip`,
    # Node.js's nightly and canary builds, a framework's development branch (`django-main`, `rails-edge`,
    # `elixir main`, WordPress `trunk`), a release candidate (`gradle-rc`)
    rf"|\b(?:{_TOOLCHAINS})[-_ ]?(?:\d+(?:\.\d+)*[-_ ]?)?(?:{_CHANNELS})\b"
    # Rust's own tools run from a channel's toolchain, as a matrix names the job: "clippy (nightly)"
    r"|\b(?:clippy|rustfmt) \((?:beta|nightly)\)"
    rf"|\b(?:{_CHANNELS})[-_ ](?:{_TOOLCHAINS})\b"
    r"|\bgotip\b|\bgo[-_ ]tip\b|(?<![\w.])\d+(?:\.\d+)?-ea\b|\b\d+(?:\.\d+)? preview\b"
    # Fedora's development branch, always unreleased
    r"|\brawhide\b"
)
_KINDS = frozenset({Category.TEST, Category.BUILD, Category.TYPECHECK, Category.DEPENDENCY})
_RUST_NIGHTLY = re.compile(r"(?<!\S)(?:cargo|rustc|rustup run) ?\+?nightly\b|\brustup run nightly\b")
# cargo in a job named for the nightly toolchain (Travis CI's `rust: nightly`, a matrix entry `nightly`)
_CARGO = re.compile(r"(?<!\S)cargo\s")
_NIGHTLY_NAME = re.compile(r"(?i)\bnightly\b")
_FEATURE_GATE = re.compile(
    r"^error\[E(?:0658|0635|0557)\]: |^error: the feature `[^`]+` has been (?:removed|renamed)"
)


def against_unreleased(
    lines: Iterable[str], *, command: str | None, names: Sequence[str | None]
) -> str | None:
    """What shows that the job runs against unreleased versions (a pre-release install, ``gotip``, its
    name); None when nothing does."""
    if command and _GOTIP.match(command.strip()):
        return "the step runs Go's development tree (gotip)"
    if command and (found := _TYPESCRIPT_NEXT.search(command)):
        return f"the step installs an unreleased TypeScript ({found.group(0)})"
    if command and (
        _RUST_NIGHTLY.search(command)
        or (_CARGO.search(command) and any(name and _NIGHTLY_NAME.search(name) for name in names))
    ):
        gate = next(
            (
                line
                for raw in lines
                if "error" in raw and _FEATURE_GATE.match(line := clean_line(raw).strip())
            ),
            None,
        )
        if gate is not None:
            return f"a nightly Rust compiler refused an unstable feature ({gate[:100]!r})"
    for name in names:
        if name and (found := _NAMED.search(name)):
            return f"the job is named for unreleased dependencies ({found.group(0)!r})"
    in_header = julia = False
    for raw in lines:
        unreleased = "-nightly" in raw or "-v8-canary" in raw or "-rc." in raw
        if unreleased and _NODE_UNRELEASED.match(node := clean_line(raw).strip()):
            return f"the job runs a Node.js not yet released ({node[:60]})"
        if not ("install" in raw or "##[" in raw or "version:" in raw or "typescript@" in raw):
            continue
        line = clean_line(raw).strip()
        if line.startswith("##[group]Run "):
            in_header, julia = True, line.startswith(f"##[group]{_SETUP_JULIA}@")
        elif line.startswith("##[endgroup]"):
            in_header = julia = False
        if not (in_header or line.startswith("$ ")):
            continue
        if _PRE_INSTALL.match(line):
            return f"a step installs pre-releases ({line[:120]!r})"
        if found := _TYPESCRIPT_NEXT.search(line):
            return f"a step installs an unreleased TypeScript ({found.group(0)})"
        if julia and _JULIA_UNRELEASED.match(line):
            return f"setup-julia set up a Julia not yet released ({line[:60]!r})"
    return None


def upstream_when_unreleased(
    diagnosis: Diagnosis, log_lines: Sequence[str], *, names: Sequence[str | None]
) -> Diagnosis:
    """``diagnosis`` given to upstream when it is the code's test, build or type-check failure in a job that
    runs against unreleased versions; otherwise unchanged."""
    if diagnosis.owner is not Owner.CODE:
        return diagnosis
    if diagnosis.rule == "rust.clippy" and (shown := _unreleased_clippy(diagnosis.command or "", names)):
        said = f"{shown}: a lint of a toolchain not yet released is upstream's until a person adopts it"
        return reread(diagnosis, Owner.UPSTREAM, diagnosis.category, Action.ESCALATE, said)
    if diagnosis.category not in _KINDS:
        return diagnosis
    shown = against_unreleased(log_lines, command=diagnosis.command, names=names)
    if shown is None and diagnosis.category in _INTERPRETER_KINDS:
        shown = pre_release_python(log_lines, names=names)
    if shown is None:
        return diagnosis
    said = f"{shown}: a failure against versions not yet released is upstream's until they are"
    return reread(diagnosis, Owner.UPSTREAM, diagnosis.category, Action.ESCALATE, said)


def _unreleased_clippy(command: str, names: Sequence[str | None]) -> str | None:
    """What shows clippy ran from Rust's beta or nightly toolchain (``cargo +nightly clippy``, a job named
    ``nightly-clippy`` or ``clippy (beta)``): its lints change with each such build (rustup's channels), so a
    new one firing is the toolchain's news, not the pull request's; None otherwise."""
    if found := _CLIPPY_TOOLCHAIN.search(command):
        return f"clippy ran from Rust's {found.group(1)} toolchain"
    for name in names:
        if name and (found := _RUST_CHANNEL.search(name)):
            return f"clippy ran in a job named for Rust's {found.group(0).lower()} channel"
    return None


def pre_release_python(lines: Iterable[str], *, names: Sequence[str | None]) -> str | None:
    """What shows the job runs on a Python still in development (setup-python's "Successfully set up CPython
    (3.14.0-alpha.5)", or a ``3.15-dev`` in the job's name); None otherwise. Only the dependencies' failures
    there are upstream's: a test of the project that fails on it is the project's to look at."""
    for name in names:
        if name and (found := _DEV_PYTHON.search(name)):
            return f"the job runs a Python in development ({found.group(0)!r})"
    for raw in lines:
        if "set up " in raw and (found := _PRE_PYTHON.match(clean_line(raw).strip())):
            return f"setup-python set up a pre-release Python ({found.group('version')})"
    return None
