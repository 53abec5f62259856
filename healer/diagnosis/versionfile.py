"""A toolchain version the set-up could not find, read from a file of the repository's tree.

The setup actions take the version either from the workflow (``node-version: 22``) or from a file of the
checkout: actions/setup-node's ``node-version-file`` (``.nvmrc``, ``.node-version``, ``package.json``),
actions/setup-python's ``python-version-file``, actions/setup-go's ``go-version-file`` (``go.mod``),
actions/setup-java's ``java-version-file``, actions/setup-dotnet's ``global-json-file`` (each action's
README, "Inputs"). An explicit version input wins over the file (setup-node and setup-python warn when both
are given), and the job log shows the inputs under the step's ``with:`` header. setup-node and setup-python
also say which file they read: "Resolved .nvmrc as 22.99.0" (their ``core.info`` line).

A version that does not exist, named in the workflow, is the workflow's (the repository's, escalated: the
healer does not change workflow files). Named in a version file of the tree, it is a file like any other of
the code, which the pull request may well have changed: the code's, for the agent. When the pull request
changed neither that file nor the workflow, the changes stage gives it back to the base branch
(:mod:`healer.diagnosis.installinputs`).

Pure: a diagnosis and the failing step's header and output in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

RULES = frozenset({"config.setup-version"})
_FILE_INPUT = re.compile(
    r"^\s+(?:(?P<tool>node|python|go|java)-version-file|global-json-file): *(?P<file>\S+)$"
)
_VERSION_INPUT = re.compile(r"^\s+(?P<tool>node|python|go|java|dotnet)-version: *\S")
_RESOLVED = re.compile(r"^Resolved (?P<file>\S+) as \S")


def version_from_the_tree(
    diagnosis: Diagnosis, header: Sequence[str], step_lines: Sequence[str]
) -> Diagnosis:
    """``diagnosis`` given to the code when the set-up could not find a version it read from a file of the
    repository's tree (see the module doc); else unchanged."""
    if diagnosis.rule not in RULES or diagnosis.owner is Owner.CODE:
        return diagnosis
    given: set[str] = set()
    files: dict[str, str] = {}
    for raw in header:
        line = clean_line(raw).rstrip()
        if match := _FILE_INPUT.match(line):
            files[match.group("tool") or "dotnet"] = match.group("file")
        elif match := _VERSION_INPUT.match(line):
            given.add(match.group("tool"))
    named = next((file for tool, file in files.items() if tool not in given), None)
    if named is None:
        named = next(
            (m.group("file") for raw in step_lines[:200] if (m := _RESOLVED.match(clean_line(raw).strip()))),
            None,
        )
    if named is None:
        return diagnosis
    said = f"the version comes from {named[:80]}, a file of the repository's tree, not from the workflow"
    return reread(diagnosis, Owner.CODE, Category.CONFIG, Action.AGENT, said)
