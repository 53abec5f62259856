"""The pull request's script files, read only when a failure no rule explains ran a script runner.

``npm run check`` or ``make lint`` says little by itself; ``package.json`` or the ``Makefile`` says which tool
the script ran, and so the failure's category (:mod:`healer.diagnosis.scripts`). The files are the pull
request's, so they are read as bounded text through the contents API and never run. They are asked for only
for a failure whose category was derived without a rule from something the files can sharpen, and at most
:data:`~healer.diagnosis.scripts.MAX_FILES_READ` of them per run: most runs ask for none.
"""

from __future__ import annotations

from healer.diagnosis.classify import classify
from healer.diagnosis.rules import RuleSet
from healer.diagnosis.scripts import MAX_FILES_READ, files_to_read
from healer.github import GitHub, GitHubError
from healer.model import Diagnosis, Evidence
from healer.text.spans import code

# what the script's own commands can replace: no category, or one derived from less than a known tool
SHARPENED = frozenset({"none", "derived.script", "derived.evidence", "derived.job"})


class ScriptFiles:
    """Files of one commit, read at most once each and at most :data:`MAX_FILES_READ` in all."""

    def __init__(self, gh: GitHub, sha: str) -> None:
        self.gh = gh
        self.sha = sha
        self.read: dict[str, str | None] = {}
        self.problem = ""  # why a file could not be read (said once)

    def get(self, name: str) -> str | None:
        if name in self.read:
            return self.read[name]
        if len(self.read) >= MAX_FILES_READ or self.problem:
            return None
        try:
            self.read[name] = self.gh.get_file(name, self.sha)
        except GitHubError as exc:
            self.read[name] = None
            self.problem = f"could not read {code(name)} of the pull request ({exc.status or 'error'})"
        return self.read[name]


def with_scripts(
    evidence: Evidence,
    rules: RuleSet,
    diagnosis: Diagnosis,
    files: ScriptFiles,
    *,
    workflow: str | None = None,
) -> Diagnosis:
    """``diagnosis`` again with the script files its failing command's runner reads, when they can say
    more than the diagnosis does; else ``diagnosis`` unchanged. ``workflow``: the run's workflow name."""
    if diagnosis.rule not in SHARPENED or not diagnosis.command:
        return diagnosis
    for name in files_to_read(diagnosis.command):  # the first file found says it (each costs a request)
        text = files.get(name)
        if text is not None:
            return classify(evidence, rules, scripts={name: text}, workflow=workflow)
    return diagnosis
