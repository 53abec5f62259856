"""A new major release's refusal of an old configuration, where the step asked for that major by name.

Some readings say a tool's new major refused the repository's configuration written for the one before, and
give it to upstream: the workflow installed the newest release and met the new major under an unchanged file
(``go.goreleaser-v2-unasked``: goreleaser-action's ``version: latest``, the default before the action's v6;
``go.golangci-lint-v1-config``: golangci-lint-action's ``version: latest``).
The step's header shows the inputs the workflow gave it (the runner echoes a ``uses:`` step's ``with:``
block). Where it asked for the new major itself (``version: "~> v2"``, the action's README's own example),
someone chose that major on purpose, a pull request or a bot's bump of the workflow, and the file is what
must follow: the code's, for the agent to migrate.

Pure: a diagnosis and the failing step's header in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

# the upstream reading → the input of the step's header that asks for the new major by name
ASKED: dict[str, re.Pattern[str]] = {
    "go.goreleaser-v2-unasked": re.compile(r"""^\s*version: ['"]?(?:~> ?)?v?2(?:\.[\d.x*]+)?['"]?$"""),
    # golangci-lint-action's `version: v2.1` (its README: the linter's version, `latest` by default)
    "go.golangci-lint-v1-config": re.compile(r"""^\s*version: ['"]?v2(?:\.[\d.x*]+)?['"]?$"""),
}


def asked_for_the_major(diagnosis: Diagnosis, header: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to the code when the step's ``header`` asks for the major whose refusal of the old
    configuration the diagnosis gave to upstream; else unchanged."""
    wanted = ASKED.get(diagnosis.rule)
    if wanted is None or diagnosis.owner is not Owner.UPSTREAM:
        return diagnosis
    asked = next((line for raw in header if wanted.match(line := clean_line(raw).rstrip())), None)
    if asked is None:
        return diagnosis
    said = f"the step asked for the new major itself ({asked.strip()}): its configuration must follow"
    return reread(diagnosis, Owner.CODE, Category.CONFIG, Action.AGENT, said)
