"""A dependency install the pull request did not change (pure).

An install step resolves and fetches what the repository's manifests and lock files ask for, with the
toolchain and the options its workflow gives it, from the registries as they are now. When a pull request's
install fails and the pull request changed none of the files the install reads, its base branch installs
the same files from the same registries: the failure is upstream's (a release, a withdrawn version, a
registry, or the base branch itself), and an agent run on it would be a fix nobody asked for.

What counts as read by an install is each package manager's own list of files (its documentation names
them: below, by ecosystem), the toolchain version files the setup actions read, and everything that holds
the install's command or environment: workflows and actions, container files, scripts and task files, and
any file the failing command names. A pull request that changed any of them keeps the failure.

Only a dependency failure of a step whose purpose is installing dependencies, headed for the agent or a fix
rule, is looked at: an ``ImportError`` in a test step stays the code's whatever files changed (the code may
import what no manifest lists). The same holds for an image repository the registry does not serve, or not
without a login: the Dockerfile's ``FROM``, a Compose or Bake file, a workflow or a script names it, and an
unchanged name pulls the same nothing on the base branch; for a dependency audit's findings (npm
audit, pip-audit, cargo audit): it reads the lock file against an advisory database, and with the lock file
unchanged the base branch has the same findings, from a new advisory; and for a toolchain version the set-up
read from a version file of the tree (``.nvmrc``, ``.python-version``): with the file and the workflow
unchanged, the base branch asks for the same version.

Some failures are read from the log as upstream's, and the changes turn them the other way: an audit's
findings (a new advisory, which a maintainer weighs), an image tag the registry does not serve (deleted
upstream; a typo of the pull request's is its own once it changed the file), a system package the image's
release no longer ships
(apt's "has no installation candidate": the image moved), an R package its repository no longer serves
(archived on CRAN). A pull request that changed what the step reads (a manifest or lock file, the
Dockerfile, the workflow, a script, ``DESCRIPTION``) may have added the dependency advised against, named the
package or moved the image itself: the failure is then its own to mend.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import PurePosixPath

from healer.diagnosis.owner import reassigned, shown
from healer.model import Action, Category, Diagnosis, Owner

INSTALL_PURPOSE = "dependency-install"
# an image repository the registry does not serve (or not without a login): a Dockerfile's FROM, a Compose
# or Bake file, a workflow or a script names it, and the same name pulls the same nothing on the base branch
IMAGE_RULES = frozenset({"config.docker-image"})
# a dependency audit (npm audit, pip-audit, cargo audit) reads the lock file against an advisory database:
# with the lock file and manifests unchanged, what changed is the database (a new advisory), not the code
AUDIT_RULES = frozenset({"dependency.audit"})
# a toolchain version the set-up could not find, read from a version file of the tree (.nvmrc, go.mod)
VERSION_RULES = frozenset({"config.setup-version"})
# read from the log as upstream's, unless the pull request changed what the step reads: the rule → what the
# step did, and what the change may have done
UPSTREAM_UNLESS_CHANGED = {
    "dependency.audit": ("the audit", "it may add the dependency the advisory names"),
    "dependency.system-package-dropped": ("the install", "it may name the package or move the image"),
    "r.package-unavailable": ("the install", "it may add the package"),
    "config.docker-image-retired": ("the image's pull", "it may name the retired image"),
    "config.docker-image-gone": ("the image's pull", "it may name the image or its tag"),
    "cpp.vcpkg-source-gone": ("vcpkg's install", "it may name the port's version or its source"),
    "python.numpy2-removed-name": ("the install", "it may bump NumPy to 2 for the code to follow"),
    "python.urllib3-openssl-too-old": ("the install", "it may bump urllib3 to 2 or drop its pin"),
    "go.module-version-gone": ("the module download", "it may name the version"),
    "cpp.cmake-policy-removed": ("the configure", "it may add a CMakeLists.txt that asks for an old CMake"),
    "build.docs-extension-incompatible": ("the docs build", "it may pin the release that removed the name"),
    "build.docs-extension-needs-newer-sphinx": ("the docs build", "it may pin the Sphinx or the extension"),
    "kubernetes.chart-version-gone": ("the chart's dependency update", "it may name the version"),
    "lint.pre-commit-rev-missing": ("pre-commit's hook install", "it may name the rev"),
    "bazel.workspace-disabled": ("Bazel", "it may move the Bazel version or the WORKSPACE"),
    "dependency.apt-key-expired": ("apt's update", "it may add the repository or its key"),
    "haskell.dependency-resolution": ("cabal's solver", "it may move the bounds or the GHC"),
}
HEALED = frozenset({Action.AGENT, Action.FIX})  # the actions that change the code
_READ_AS_CODE = IMAGE_RULES | AUDIT_RULES | VERSION_RULES  # beside an install step's dependency failures

# File names (compared without case) a package manager or a setup action reads, wherever they are in the tree.
# fmt: off
NAMES = frozenset(
    name.lower()
    for name in (
        # npm ("package.json", "package-lock.json", "npm-shrinkwrap.json", "npmrc": npm Docs), Yarn
        # (yarn.lock, .yarnrc, .yarnrc.yml), pnpm (pnpm-lock.yaml, pnpm-workspace.yaml, .pnpmfile.cjs), Bun
        # (bun.lock, bun.lockb, bunfig.toml), and the Node.js version files of actions/setup-node
        "package.json", "package-lock.json", "npm-shrinkwrap.json", ".npmrc", "yarn.lock", ".yarnrc",
        ".yarnrc.yml", "pnpm-lock.yaml", "pnpm-workspace.yaml", ".pnpmfile.cjs", "bun.lock", "bun.lockb",
        "bunfig.toml", ".nvmrc", ".node-version",
        # Python: the build system's and project's tables (PEP 518, PEP 621: pyproject.toml; setuptools:
        # setup.py, setup.cfg), Pipenv, Poetry, PDM, uv and conda's files, pip's configuration, the version
        # file of actions/setup-python and pyenv, and the test runners that install (tox.ini, noxfile.py)
        "pyproject.toml", "setup.py", "setup.cfg", "Pipfile", "Pipfile.lock", "poetry.lock", "poetry.toml",
        "pdm.lock", "uv.lock", "uv.toml", "pip.conf", "environment.yml", "environment.yaml",
        ".python-version", "tox.ini", "noxfile.py",
        # Go modules (go.mod, go.sum, go.work, go.work.sum: "Go Modules Reference"), actions/setup-go's
        # .go-version and actions/setup-java's .java-version (their `*-version-file` inputs)
        "go.mod", "go.sum", "go.work", "go.work.sum", ".go-version", ".java-version",
        # Cargo (Cargo.toml, Cargo.lock, .cargo/config.toml) and rustup's toolchain file
        "Cargo.toml", "Cargo.lock", "rust-toolchain", "rust-toolchain.toml",
        # Bundler (Gemfile, Gemfile.lock, gems.rb, gems.locked), ruby/setup-ruby's .ruby-version
        "Gemfile", "Gemfile.lock", "gems.rb", "gems.locked", ".ruby-version",
        # Composer (composer.json, composer.lock, auth.json)
        "composer.json", "composer.lock", "auth.json",
        # Maven (pom.xml, .mvn/), Gradle (build and settings scripts, gradle.properties, the version catalog,
        # the wrapper's properties), sbt (build.sbt, project/), Leiningen and the Clojure CLI
        "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
        "gradle.properties", "libs.versions.toml", "gradle-wrapper.properties", "build.sbt", "project.clj",
        "deps.edn",
        # .NET: central package management and MSBuild's directory files, NuGet's lock and configuration,
        # the SDK's global.json, packages.config, Paket
        "Directory.Packages.props", "Directory.Build.props", "Directory.Build.targets", "packages.lock.json",
        "packages.config", "NuGet.Config", "global.json", "paket.dependencies", "paket.lock",
        # Mix (mix.exs, mix.lock), rebar3 (rebar.config, rebar.lock)
        "mix.exs", "mix.lock", "rebar.config", "rebar.lock",
        # Cabal (cabal.project, its freeze and local files), Stack (stack.yaml, its lock), hpack
        "cabal.project", "cabal.project.freeze", "cabal.project.local", "stack.yaml", "stack.yaml.lock",
        "package.yaml",
        # pub (pubspec.yaml, pubspec.lock), SwiftPM (Package.swift, Package.resolved), CocoaPods (Podfile,
        # Podfile.lock), Carthage (Cartfile, Cartfile.resolved)
        "pubspec.yaml", "pubspec.lock", "Package.swift", "Package.resolved", "Podfile", "Podfile.lock",
        "Cartfile", "Cartfile.resolved",
        # R (DESCRIPTION, renv.lock), Julia (Project.toml, Manifest.toml), Conan, vcpkg's manifest mode
        "DESCRIPTION", "renv.lock", "Project.toml", "Manifest.toml", "conanfile.txt", "conanfile.py",
        "vcpkg.json", "vcpkg-configuration.json",
        # version managers and Nix (asdf's .tool-versions, mise's mise.toml, a flake and its lock)
        ".tool-versions", ".mise.toml", "mise.toml", "flake.nix", "flake.lock", "shell.nix", "default.nix",
        # the files that hold a project's commands (make, just, Task) and its build definition (CMake)
        "Makefile", "GNUmakefile", "makefile", "justfile", "Taskfile.yml", "Taskfile.yaml", "CMakeLists.txt",
        # the files that name an image or its build arguments beside the Dockerfile: Buildx Bake's files, and
        # the `.env` file Compose substitutes variables from
        "docker-bake.hcl", "docker-bake.json", "docker-bake.override.hcl", ".env",
        # a Helm chart's dependencies (Chart.yaml's `dependencies`, Chart.lock; Helm 2's requirements.yaml
        # and requirements.lock)
        "Chart.yaml", "Chart.lock", "requirements.yaml", "requirements.lock",
        # pre-commit's configuration, whose `repos` pin each hook repository's `rev` (pre-commit.com)
        ".pre-commit-config.yaml",
        # Bazel's version for Bazelisk (.bazelversion, its README), its flags, and the files that declare
        # its external dependencies (MODULE.bazel for Bzlmod, the WORKSPACE file before it)
        ".bazelversion", ".bazelrc", "MODULE.bazel", "MODULE.bazel.lock", "WORKSPACE", "WORKSPACE.bazel",
    )
)
# fmt: on
# Names by their shape: pip's requirements and constraints files (any name `-r` is given; these are the
# customary ones), MSBuild project files, gemspecs, Cabal package files, podspecs, container and Compose
# files, scripts, make fragments.
SHAPES = re.compile(
    r"(?:^|/)(?:requirements|constraints)[^/]*\.(?:txt|in)$"
    r"|\.(?:csproj|fsproj|vbproj|gemspec|cabal|podspec|mk|cmake|sh|bash|ps1|bat|cmd)$"
    r"|(?:^|/)(?:Dockerfile|Containerfile)[^/]*$|\.dockerfile$"
    r"|(?:^|/)(?:docker-)?compose[^/]*\.ya?ml$",
    re.IGNORECASE,
)
# Folders whose files an install reads or that hold its command, at any depth (a monorepo's packages have
# their own): workflows and local actions, Maven's and Cargo's configuration, Gradle's wrapper and catalog,
# Yarn's releases and patches, pip's requirements folders, vendored dependencies, Dev Containers.
FOLDERS = (".github/", ".mvn/", ".cargo/", "gradle/", ".yarn/", "requirements/", "vendor/", ".devcontainer/")
# and at the top only: sbt's build definition (project/), patch-package's patches
TOP_FOLDERS = ("project/", "patches/")


def read_by_install(path: str) -> bool:
    """Whether an install may read ``path`` (a repository path, ``/``-separated) or take its command from
    it."""
    path = path.strip().lstrip("/")
    if path.startswith("./"):
        path = path[2:]
    if not path:
        return False
    if PurePosixPath(path).name.lower() in NAMES or SHAPES.search(path):
        return True
    return path.startswith(TOP_FOLDERS) or any(path.startswith(f) or f"/{f}" in path for f in FOLDERS)


def named_in(command: str) -> frozenset[str]:
    """The repository paths the failing command names (``./scripts/bootstrap``, ``-r ci/deps.txt``)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    out = set()
    for word in words:
        word = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if "/" in word and "://" not in word and not word.startswith(("-", "$", "~")):
            out.add(word[2:] if word.startswith("./") else word.lstrip("/"))
    return frozenset(out)


def applies(diagnosis: Diagnosis) -> bool:
    """Whether the pull request's changed files could tell whose ``diagnosis`` is: a dependency failure of an
    install step, an image the registry does not serve, a dependency audit's findings, or a set-up version
    read from a file, read as the code's and headed for the agent or a fix rule; or a failure read as
    upstream's unless the pull request changed what the step reads (an audit's findings, a package the
    release no longer ships, an R package its repository no longer serves), escalated."""
    if diagnosis.rule in UPSTREAM_UNLESS_CHANGED and diagnosis.owner is Owner.UPSTREAM:
        return diagnosis.action is Action.ESCALATE
    if diagnosis.owner is not Owner.CODE or diagnosis.action not in HEALED:
        return False
    install = diagnosis.category is Category.DEPENDENCY and diagnosis.purpose == INSTALL_PURPOSE
    return install or diagnosis.rule in _READ_AS_CODE


def untouched_install(diagnosis: Diagnosis, changed: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream and escalated when it :func:`applies` and the pull request changed
    files (``changed``, every one of them) none of which the step reads; a failure read as upstream's unless
    the pull request changed what the step reads given to the code when it changed one; else ``diagnosis``
    unchanged."""
    if not applies(diagnosis) or not changed:
        return diagnosis
    named = named_in(diagnosis.command or "")
    read = [path for path in changed if read_by_install(path) or path.lstrip("/") in named]
    if diagnosis.owner is Owner.UPSTREAM:
        if not read:
            return diagnosis
        step, may = UPSTREAM_UNLESS_CHANGED[diagnosis.rule or ""]
        said = f"the pull request changed {shown(read)}, read by {step}: {may}"
        return reassigned(diagnosis, Owner.CODE, said, "agent", action=Action.AGENT, stage="changes")
    if read:
        return diagnosis
    if diagnosis.rule in IMAGE_RULES:
        what = "a Dockerfile, Compose or Bake file, workflow or script that names the image"
        same = "pulls"
    elif diagnosis.rule in AUDIT_RULES:
        what = "a manifest or lock file the audit reads"
        same = "audits"
    elif diagnosis.rule in VERSION_RULES:
        what = "a version file, workflow or script the set-up reads"
        same = "sets up"
    else:
        what = "a manifest, lock file, toolchain file, workflow or script the install reads"
        same = "installs"
    said = f"the pull request changed {len(changed)} file(s) ({shown(changed)}), none of them {what}"
    said += f": its base branch {same} the same"
    return reassigned(diagnosis, Owner.UPSTREAM, said, "escalate", action=Action.ESCALATE, stage="changes")
