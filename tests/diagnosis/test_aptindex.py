"""A package apt cannot locate after an earlier `apt-get update` could not fetch its index: the mirror's
failure, re-run; after an update that fetched everything, the package name stays the code's."""

from __future__ import annotations

from joblogs import diagnose_log, stamped

from healer.model import Action, Owner

UPDATE_FAILED = [
    "Err:1 http://archive.ubuntu.com/ubuntu noble InRelease",
    "  Temporary failure resolving 'archive.ubuntu.com'",
    "Reading package lists...",
    "W: Failed to fetch http://archive.ubuntu.com/ubuntu/dists/noble/InRelease  Temporary failure resolving "
    "'archive.ubuntu.com'",
    "W: Some index files failed to download. They have been ignored, or old ones used instead.",
]
UPDATE_DONE = ["Hit:1 http://archive.ubuntu.com/ubuntu noble InRelease", "Reading package lists..."]


NOT_LOCATED = ["E: Unable to locate package protobuf-compiler"]
NO_CANDIDATE = [
    "Package protobuf-compiler is not available, but is referred to by another package.",
    "E: Package 'protobuf-compiler' has no installation candidate",
]


def job(update: list[str], said: list[str] = NOT_LOCATED) -> str:
    """Two steps: `apt-get update` (which exits 0 even when an index failed), then the install that fails."""
    return stamped(
        [
            "##[group]Run sudo apt-get update",
            "sudo apt-get update",
            "##[endgroup]",
            *update,
            "##[group]Run sudo apt-get install -y protobuf-compiler",
            "sudo apt-get install -y protobuf-compiler",
            "##[endgroup]",
            "Reading package lists...",
            *said,
            "##[error]Process completed with exit code 100.",
        ]
    )


def test_a_package_apt_cannot_locate_after_an_index_it_could_not_fetch_is_the_mirrors() -> None:
    diagnosis = diagnose_log(job(UPDATE_FAILED), job="build")
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)
    assert "could not fetch its index" in dict(diagnosis.decided_by)["evidence"]
    # a server's error under apt's "Err:" line says the same
    err = ["Err:5 http://ppa.launchpadcontent.net/x/ppa/ubuntu noble InRelease", "  503  Service Unavailable"]
    assert diagnose_log(job(err), job="build").owner is Owner.PLATFORM


def test_after_an_update_that_fetched_everything_the_package_name_is_the_codes() -> None:
    diagnosis = diagnose_log(job(UPDATE_DONE), job="build")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    # a test report's "500 passed" before is no server's answer
    assert diagnose_log(job(["500 passed in 12.3s"]), job="build").owner is Owner.CODE


def test_a_package_with_no_candidate_is_the_images_release_unless_its_index_was_never_fetched() -> None:
    # the index was fetched and names no version: the image's release dropped it
    dropped = diagnose_log(job(UPDATE_DONE, NO_CANDIDATE), job="build")
    assert dropped.rule == "dependency.system-package-dropped"
    assert (dropped.owner, dropped.action) == (Owner.UPSTREAM, Action.ESCALATE)
    # the index was never fetched: the mirror's
    unfetched = diagnose_log(job(UPDATE_FAILED, NO_CANDIDATE), job="build")
    assert (unfetched.owner, unfetched.action) == (Owner.PLATFORM, Action.RERUN)
