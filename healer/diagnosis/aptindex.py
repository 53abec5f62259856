"""A package apt cannot locate because the job's earlier ``apt-get update`` could not fetch its index.

``apt-get update`` exits 0 when some indexes failed to download: it warns ("W: Failed to fetch
http://archive.ubuntu.com/ubuntu/dists/focal/InRelease  Temporary failure resolving 'archive.ubuntu.com'",
"W: Some index files failed to download. They have been ignored, or old ones used instead.") and the job goes
on. The ``apt-get install`` after it then knows no package of those indexes ("E: Unable to locate package
protobuf-compiler"): the package exists, the mirror did not answer. When that update ran in an earlier step
or command (a Travis CI ``before_install`` line, a step of its own), the failing step's output alone shows
only the unknown package; the log before it shows why. A mirror that did not answer is the platform's,
re-run; a package name the index does have, or an index fetched whole, leaves the failure as it was.

Pure: a diagnosis, the failing step's output and the log before it in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

_UNKNOWN = re.compile(r"^E: Unable to locate package \S+$|^E: Package '\S+' has no installation candidate$")
# apt's words for an index it could not fetch from the network or a server that failed (its acquire
# methods: "Temporary failure resolving", "Could not resolve", "Could not connect to", "Connection timed
# out", a 5xx status), on the warning line or under an "Err:" line
_UNFETCHED = re.compile(
    r"^(?:W|E): Failed to fetch \S+\s+(?:Temporary failure resolving|Could not resolve|Could not connect"
    r"|Connection failed|Connection timed out|Unable to connect|50[0234]\b)"
    r"|^\s*(?:Temporary failure resolving '[^']{1,200}'|Could not resolve '[^']{1,200}')$"
    r"|^\s*50[0234] +(?:Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out)\b"
)


def index_never_fetched(diagnosis: Diagnosis, lines: Sequence[str], earlier: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to the platform when apt could not locate a package and the log before the
    failing step shows an index apt could not fetch from its mirror (see the module doc); else unchanged."""
    # a package with no installation candidate is read as the image's (a release that dropped it) unless
    # the index it was looked up in was never fetched
    ours = diagnosis.owner is Owner.CODE or diagnosis.rule == "dependency.system-package-dropped"
    if not ours or diagnosis.category is not Category.DEPENDENCY:
        return diagnosis
    if not any("Unable to locate" in raw or "no installation" in raw for raw in lines):
        return diagnosis
    if not any(_UNKNOWN.match(clean_line(raw).strip()) for raw in lines):
        return diagnosis
    failed = next(
        (line for raw in earlier if (line := clean_line(raw).strip()) and _UNFETCHED.match(line)), None
    )
    if failed is None:
        return diagnosis
    said = f"an earlier apt-get update could not fetch its index ({failed[:120]}): the mirror did not answer"
    return reread(diagnosis, Owner.PLATFORM, Category.TRANSIENT, Action.RERUN, said)
