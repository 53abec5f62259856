"""A standard-library module the job's Python removed (`healer/diagnosis/removedstdlib.py`): imported by an
installed release, upstream's; imported by the project, in its checkout or its own package installed into
an environment, the code's."""

from __future__ import annotations

from joblogs import CODE, UPSTREAM, diagnose_log, job_log, stamped

from healer.diagnosis.removedstdlib import REMOVED, repository_name

SETUP = ["Complete job name: test (3.13)", "##[group]Run actions/checkout@v4", "##[endgroup]"]
WORK = "/home/runner/work/pipit/pipit"


def collection(frame: str, module: str = "imghdr") -> list[str]:
    return [
        "____________________ ERROR collecting tests/test_thumbs.py _____________________",
        f"{WORK}/tests/test_thumbs.py:3: in <module>",
        "    from pipit.thumbs import make_thumb",
        f"{WORK}/src/pipit/thumbs.py:1: in <module>",
        "    import thumbkit",
        f"{frame}:9: in <module>",
        f"    import {module}",
        f"E   ModuleNotFoundError: No module named '{module}'",
        "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
    ]


def log(output: list[str]) -> str:
    return stamped(SETUP) + job_log("python -m pytest -q", output)


def test_the_table_holds_the_removals_of_3_12_and_3_13() -> None:
    assert REMOVED["imghdr"] == REMOVED["cgi"] == REMOVED["telnetlib"] == "3.13"
    assert REMOVED["distutils"] == REMOVED["asyncore"] == "3.12"


def test_an_installed_release_importing_a_removed_module_is_upstreams() -> None:
    installed = "/opt/hostedtoolcache/Python/3.13.2/x64/lib/python3.13/site-packages/thumbkit/__init__.py"
    diagnosis = diagnose_log(log(collection(installed)))
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "thumbkit imports imghdr, which Python 3.13 removed" in diagnosis.decided_text()


def test_the_projects_own_import_of_a_removed_module_stays_the_codes() -> None:
    own = collection(f"{WORK}/src/pipit/sniff.py")
    diagnosis = diagnose_log(log(own))
    assert (diagnosis.owner, diagnosis.action) == CODE
    # the project's own package, installed by tox into its environment
    in_tox = collection(f"{WORK}/.tox/py313/lib/python3.13/site-packages/pipit/sniff.py")
    assert diagnose_log(log(in_tox)).owner is CODE[0]
    # a module no release of Python removed: a missing dependency, the code's as before
    other = collection(
        "/opt/hostedtoolcache/Python/3.13.2/x64/lib/python3.13/site-packages/thumbkit/x.py", "PIL"
    )
    assert diagnose_log(log(other)).owner is CODE[0]


def test_the_repositorys_name_comes_from_the_runners_workspace() -> None:
    assert repository_name([f"{WORK}/src/x.py:1: in <module>"]) == "pipit"
    assert repository_name(["$ cd /home/travis/build/wren/pipit-core"]) == "pipit-core"
    assert repository_name(["no path here"]) is None
