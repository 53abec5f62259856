"""A tool GitHub's hosted image stopped shipping: the runner changed under the workflow, not the code.

The runner names a hosted job's image in its set-up section (``Image: ubuntu-24.04`` in the ``Runner Image``
group). When ``ubuntu-latest`` moved from Ubuntu 22.04 to 24.04 (actions/runner-images#10636, rolled out from
December 2024 to January 2025), the 24.04 image left out tools the 22.04 one had, to keep its free disk space:
among them Mono and what runs on it, Mono's ``msbuild`` and ``nuget`` (NuGet.exe). The images' software lists
say so (``Ubuntu2204-Readme.md`` names Mono, MSBuild and NuGet; ``Ubuntu2404-Readme.md`` does not), and so do
the images' maintainers (actions/runner-images#11675, "mono isn't present on Ubuntu 24.04, but was on 22.04
and 20.04").

A workflow that calls one of them and now meets "mono: command not found" on that image did not break
itself: installing the tool in the workflow or pinning the older image is the maintainers' call, so the
failure is upstream's and escalated, not handed to the agent. On another image, or for a tool not listed
here, the reading stands.

Pure: a diagnosis and the log's lines in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import setup_section
from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

# hosted image → the commands its predecessor under the same label shipped and it does not (the sources above)
DROPPED: dict[str, frozenset[str]] = {
    "ubuntu-24.04": frozenset({"mono", "msbuild", "nuget"}),
}
# the readings of a command the shell could not find
_NOT_FOUND_RULES = frozenset({"config.command-not-found", "config.exit-127"})
_IMAGE = re.compile(r"^Image: (?P<image>[\w.-]{1,40})$")
# the images' short names, as their release tags spell them (``Image Release: …/releases/tag/ubuntu24%2F…``)
_SHORT = re.compile(r"^ubuntu(?P<major>\d\d)$")
# bash's and sh's words for a command not on the PATH (as config.command-not-found reads them)
_NOT_FOUND = re.compile(
    r"(?:^|: )(?:line \d+: |\d+: )?(?P<tool>[\w.+-]{1,60}): (?:command )?not found$",
)


def hosted_image(lines: Sequence[str]) -> str | None:
    """The hosted image the set-up section names (``ubuntu-24.04``; a short name such as ``ubuntu24`` is
    read as its image), None when it names none."""
    for line in setup_section(lines):
        if found := _IMAGE.match(line.strip()):
            image = found.group("image")
            short = _SHORT.match(image)
            return f"ubuntu-{short.group('major')}.04" if short else image
    return None


def dropped_by_the_image(diagnosis: Diagnosis, every: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when the command the shell did not find is one the job's hosted
    image stopped shipping; otherwise unchanged."""
    if diagnosis.rule not in _NOT_FOUND_RULES or diagnosis.owner is Owner.UPSTREAM:
        return diagnosis
    image = hosted_image(every)
    dropped = DROPPED.get(image or "")
    if not dropped:
        return diagnosis
    missing = {
        found.group("tool")
        for line in diagnosis.decisive or diagnosis.excerpt
        if (found := _NOT_FOUND.search(line.rstrip()))
    }
    gone = sorted(missing & dropped)
    if not gone:
        return diagnosis
    said = f"`{gone[0]}` is not on the {image} hosted image, whose predecessor shipped it (the image changed)"
    return reread(diagnosis, Owner.UPSTREAM, Category.CONFIG, Action.ESCALATE, said)
