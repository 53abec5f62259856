"""cabal's solver refusing the compiler's own ``base``: the GHC the job installed against a package's bounds.

``base`` ships with GHC, and cabal's solver does not install or upgrade it (the Cabal user guide,
``allow-boot-library-installs``: by default the solver does not allow ``base``, ``ghc-prim`` and the other
boot libraries to be installed or upgraded), so the solver takes the installed one or fails. When it fails on
it, cabal says which package's bounds refused it, in one of two forms (its solver's log on failure):

- ``rejecting: base-4.22.0.0/installed-4.22.0.0 (conflict: yamlette => base>=4.14 && <4.22)``: the package
  on the right excludes the installed ``base``;
- ``rejecting: aeson-2.2.3.0 (conflict: base==4.12.0.0/installed-4.12.0.0, aeson => base>=4.14 && <5)``: the
  installed ``base`` excludes that release of the package.

A dependency's bounds that exclude this GHC (a release that dropped old compilers, a Hackage metadata
revision that tightened them, a new GHC that no release of it admits yet), or the project's own upper
bound under a GHC newer than it (the set-up's ``latest`` moved), are not the pull request's code: the
toolchain and the ecosystem moved, and widening bounds or pinning the compiler is a maintainer's call. The
project's own lower bound above the installed ``base`` is left as it was: the pull request may have just
raised it. A pull request that changed what the solver reads takes it back (the changes stage,
:mod:`healer.diagnosis.installinputs`).

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

_RULE = "haskell.dependency-resolution"
_USER_GOAL = re.compile(r"^\[__0\] trying: (?P<name>[\w-]+?)-[\d.]+ \(user goal\)")
_BASE_REJECTED = re.compile(
    r"rejecting: base-(?P<installed>[\d.]+)/installed-\S* "
    r"\(conflict: (?P<who>[\w-]+) => base(?P<range>[^)]*)\)"
)
_RELEASE_REJECTED = re.compile(
    r"rejecting: (?P<who>[\w-]+?)-[\d.]+(?:, \S+)* \(conflict: base==(?P<installed>[\d.]+)/installed-\S*, "
    r"[\w-]+ => base(?P<range>[^)]*)\)"
)
# a bound of a version range: its operator and version (`^>=4.14` allows 4.14 and up, below 4.15)
_BOUND = re.compile(r"(?P<op><=|<|>=|>|==|\^>=)\s*(?P<version>\d+(?:\.\d+)*)")


def base_outside_bounds(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when cabal's solver refused the installed ``base`` on a dependency's
    bounds, or on the project's own upper bound; otherwise unchanged."""
    if diagnosis.rule != _RULE or diagnosis.owner is not Owner.CODE:
        return diagnosis
    goal = None
    for raw in step_lines:
        line = clean_line(raw).strip()
        if found := _USER_GOAL.match(line):
            goal = found["name"]
        found = _BASE_REJECTED.search(line) or _RELEASE_REJECTED.search(line)
        if found is None:
            continue
        installed = _version(found["installed"])
        above, below = _outside(installed, found["range"])
        theirs = found["who"] != goal
        if (theirs and (above or below)) or (not theirs and above):
            whose = f"{found['who']}'s bounds" if theirs else "the project's own upper bound"
            said = f"cabal's solver refused GHC's installed base-{found['installed']} on {whose}"
            return reread(
                diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, f"{said}: {line[:120]}"
            )
    return diagnosis


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _outside(installed: tuple[int, ...], bounds: str) -> tuple[bool, bool]:
    """Whether ``installed`` is above an upper bound of ``bounds``, and whether it is below a lower one."""
    above = below = False
    for found in _BOUND.finditer(bounds):
        op, version = found["op"], _version(found["version"])
        if op == "<":
            above |= installed >= version
        elif op == "<=":
            above |= installed > version
        elif op == "^>=":
            above |= installed[:2] > version[:2]
            below |= installed < version
        elif op == ">=":
            below |= installed < version
        elif op == ">":
            below |= installed <= version
    return above, below
