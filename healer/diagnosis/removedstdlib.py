"""An installed package importing a standard-library module the job's Python no longer has.

Python removed modules from its standard library on a published schedule: the "dead batteries" of PEP 594
in 3.13 (``aifc``, ``audioop``, ``cgi``, ``cgitb``, ``chunk``, ``crypt``, ``imghdr``, ``mailcap``, ``msilib``,
``nis``, ``nntplib``, ``ossaudiodev``, ``pipes``, ``sndhdr``, ``spwd``, ``sunau``, ``telnetlib``, ``uu``,
``xdrlib``, and ``lib2to3``), and in 3.12 ``distutils`` (PEP 632), ``asynchat``, ``asyncore``, ``smtpd`` and
``imp`` (What's New in Python 3.12 and 3.13). Importing one on a newer Python raises ``ModuleNotFoundError:
No module named 'imghdr'``.

Where the traceback ends in an installed distribution (under ``site-packages``), a release the project
depends on still imports the module: the job's Python moved past it (a ``3.x`` that now resolves to 3.13, a
new leg of the matrix) or the release never followed. Waiting for the release, pinning the Python or
replacing the dependency is a maintainer's call: upstream's, escalated. Where the import is the project's
own, in the checkout or in its own package installed into an environment (a folder named as the repository,
under tox's ``.tox/py312/lib/…/site-packages/``), the code must follow, and the reading stands.

Pure: a diagnosis, the failing step's lines and the whole log in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.botbump import innermost_installed
from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.diagnosis.raised import INSTALLED_PACKAGE, import_name
from healer.model import Action, Category, Diagnosis, Owner

# module → the Python release that removed it (PEP 594, PEP 632, What's New in Python 3.12 and 3.13)
REMOVED: dict[str, str] = {
    **dict.fromkeys(
        (
            *("aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "mailcap", "msilib", "nis"),
            *("nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib"),
            "lib2to3",
        ),
        "3.13",
    ),
    **dict.fromkeys(("distutils", "asynchat", "asyncore", "smtpd", "imp"), "3.12"),
}
_MISSING = re.compile(r"\bModuleNotFoundError: No module named '(?P<module>[\w.]+)'")
# the repository's name, from the runner's workspace (/home/runner/work/<name>/<name>/, Travis's build path)
_WORKSPACE = re.compile(
    r"/(?:home/runner|Users/runner|__w)/work/(?P<name>[\w.-]+)/(?P=name)\b|/home/travis/build/[\w.-]+/(?P<travis>[\w.-]+)"
)
_KINDS = frozenset({Category.TEST, Category.DEPENDENCY, Category.BUILD, Category.UNKNOWN})


def repository_name(every: Sequence[str]) -> str | None:
    """The repository's name as the runner's workspace path shows it, None when no line shows one."""
    for raw in every:
        if ("/work/" in raw or "/build/" in raw) and (found := _WORKSPACE.search(raw)):
            return found.group("name") or found.group("travis")
    return None


def removed_under_a_release(diagnosis: Diagnosis, lines: Sequence[str], every: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when an installed distribution, not the project, imports a
    standard-library module the job's Python removed (see the module doc); else unchanged."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category not in _KINDS:
        return diagnosis
    if not any("No module named" in raw for raw in lines):
        return diagnosis
    missing = next(
        (m["module"] for raw in lines if (m := _MISSING.search(clean_line(raw))) and m["module"] in REMOVED),
        None,
    )
    if missing is None:
        return diagnosis
    inside = innermost_installed(lines)
    package = INSTALLED_PACKAGE.search(inside or "")
    if package is None:
        return diagnosis
    own = repository_name(every)
    if own is not None and import_name(package["package"]) == import_name(own):
        return diagnosis  # the project's own package, installed into an environment
    said = (
        f"the installed package {package['package']} imports {missing}, which Python {REMOVED[missing]}"
        " removed from its standard library: the release, or the job's Python, moved"
    )
    return reread(diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, said)
