"""Tests stopped only by a name NumPy 2.0 removed (`healer/diagnosis/removedname.py`): upstream's from the
log, the pull request's once the changes stage sees it changed a manifest or lock file."""

from __future__ import annotations

from joblogs import diagnose_log, job_log, stamped

from healer.diagnosis.installinputs import untouched_install
from healer.diagnosis.removedname import RULE, pytest_causes
from healer.model import Action, Owner

REMOVED = "AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead."
FAILED = [
    "___________________________ test_weighted_mean_dtype ____________________________",
    "    def test_weighted_mean_dtype():",
    ">       assert weighted_mean([1, 2], [1, 1]).dtype == np.float_",
    f"E           {REMOVED}",
    "=========================== short test summary info ============================",
    f"FAILED tests/test_stats.py::test_weighted_mean_dtype - {REMOVED}",
    f"FAILED tests/test_stats.py::test_variance_ddof - {REMOVED}",
    "================== 2 failed, 386 passed in 12.55s ===================",
]
COLLECTING = [
    "_________________________ ERROR collecting tests/test_geo.py _________________________",
    "tests/test_geo.py:3: in <module>",
    "    from geokit import project",
    f"E   {REMOVED}",
    "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
]


def test_every_test_stopped_on_a_removed_name_is_upstreams_until_the_pull_request_changed_a_manifest() -> (
    None
):
    diagnosis = diagnose_log(job_log("pytest -q", FAILED), job="test (3.12)")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (RULE, Owner.UPSTREAM, Action.ESCALATE)
    assert "np.float_" in diagnosis.decided_text()
    assert untouched_install(diagnosis, ["docs/index.md"]) is diagnosis
    bumped = untouched_install(diagnosis, ["docs/index.md", "requirements.txt"])
    assert (bumped.owner, bumped.action) == (Owner.CODE, Action.AGENT)


def test_a_collection_error_on_a_removed_name_is_read_the_same() -> None:
    assert pytest_causes(COLLECTING) == [REMOVED]
    diagnosis = diagnose_log(job_log("pytest -q", COLLECTING, exit_code=2), job="test")
    assert (diagnosis.rule, diagnosis.owner) == (RULE, Owner.UPSTREAM)


def test_one_other_failure_beside_it_keeps_the_tests_the_codes() -> None:
    beside = [*FAILED[:-1], "FAILED tests/test_sum.py::test_total - assert 4 == 5", FAILED[-1]]
    diagnosis = diagnose_log(job_log("pytest -q", beside), job="test")
    assert diagnosis.rule != RULE and (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_dependabot_pull_requests_bump_to_numpy_2_stays_the_codes() -> None:
    log = stamped(["Secret source: Dependabot"]) + job_log("pytest -q", FAILED)
    diagnosis = diagnose_log(log, job="test")
    assert diagnosis.rule != RULE and diagnosis.owner is Owner.CODE
