"""The claim of a heal against real repositories: a bare ``origin`` and two checkouts of it (two runs)."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from gitrepos import git, seeded_origin

from healer.change.claim import BranchLock, Claim, Holder, claim_message, is_dead, read_claim
from healer.change.workspace import Identity, Repo, StaleHeadError

BRANCH = "ci-healer/7-41fd2b9"
HEAD = "41fd2b9" + "0" * 33
NOW = datetime(2026, 12, 4, 12, 0, tzinfo=timezone.utc)
TTL = timedelta(hours=6)
BOT = Identity("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com")


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    return seeded_origin(tmp_path, {"app.py": "import os\n"})[0]


def lock_for(tmp_path: Path, origin: Path, name: str) -> BranchLock:
    work = tmp_path / name
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(work))
    return BranchLock(Repo(work), token="", server_url="", identity=BOT)


def tip(origin: Path) -> str:
    found = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{BRANCH}"],
        cwd=origin,
        capture_output=True,
        text=True,
    )
    return found.stdout.strip()


def test_of_two_runs_exactly_one_claims_and_the_other_learns_who_holds_it(
    tmp_path: Path, origin: Path
) -> None:
    first, second = lock_for(tmp_path, origin, "a"), lock_for(tmp_path, origin, "b")
    won = first.claim(BRANCH, head_sha=HEAD, run=(11, 1), now=NOW, ttl=TTL)
    lost = second.claim(BRANCH, head_sha=HEAD, run=(12, 1), now=NOW + timedelta(seconds=3), ttl=TTL)
    assert isinstance(won, Claim) and won.replaced == ""
    assert tip(origin) == won.sha
    assert isinstance(lost, Holder)
    assert lost.run == (11, 1) and lost.at == NOW
    assert lost.describe() == "run 11 (attempt 1) holds its fix branch since 2026-12-04 12:00:00 UTC"
    # the claim commit: no parent, the empty tree, the trailer that names the run
    message = git(origin, "cat-file", "commit", won.sha)
    assert "parent " not in message
    assert git(origin, "rev-parse", f"{won.sha}^{{tree}}") == git(
        origin, "hash-object", "-t", "tree", "/dev/null"
    )
    assert "Ci-healer-claim: run 11 attempt 1 at 2026-12-04T12:00:00Z" in message


def test_two_claims_of_one_run_in_one_second_are_two_commits_and_one_wins(
    tmp_path: Path, origin: Path
) -> None:
    """A redelivered event: two jobs claim for the same run at the same second. Identical commits would both
    'succeed' (a push of what the branch already holds changes nothing); the nonce keeps them apart."""
    first, second = lock_for(tmp_path, origin, "a"), lock_for(tmp_path, origin, "b")
    looked = second.tip
    second.tip = lambda branch: ""  # type: ignore[method-assign]  # it looked before the other pushed
    won = first.claim(BRANCH, head_sha=HEAD, run=(11, 1), now=NOW, ttl=TTL)
    lost = second.claim(BRANCH, head_sha=HEAD, run=(11, 1), now=NOW, ttl=TTL)
    second.tip = looked  # type: ignore[method-assign]
    assert isinstance(won, Claim) and isinstance(lost, Holder)
    assert tip(origin) == won.sha  # the first claim stands


def test_a_push_between_the_look_and_the_push_loses_the_lease(
    tmp_path: Path, origin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lease, not the look before it, decides: a branch created after this run looked is not replaced."""
    first, second = lock_for(tmp_path, origin, "a"), lock_for(tmp_path, origin, "b")
    monkeypatch.setattr(second, "tip", lambda branch: "")  # it looked before the other run pushed
    won = first.claim(BRANCH, head_sha=HEAD, run=(11, 1), now=NOW, ttl=TTL)
    lost = second.claim(BRANCH, head_sha=HEAD, run=(12, 1), now=NOW, ttl=TTL)
    assert isinstance(won, Claim)
    assert isinstance(lost, Holder)
    assert tip(origin) == won.sha


def test_a_dead_claim_expires_and_is_replaced_by_compare_and_swap(tmp_path: Path, origin: Path) -> None:
    dead = lock_for(tmp_path, origin, "a").claim(BRANCH, head_sha=HEAD, run=(11, 1), now=NOW, ttl=TTL)
    later = lock_for(tmp_path, origin, "b")
    still = later.claim(BRANCH, head_sha=HEAD, run=(12, 1), now=NOW + TTL - timedelta(minutes=1), ttl=TTL)
    assert isinstance(still, Holder) and still.run == (11, 1)
    taken = later.claim(BRANCH, head_sha=HEAD, run=(12, 1), now=NOW + TTL + timedelta(minutes=1), ttl=TTL)
    assert isinstance(dead, Claim) and isinstance(taken, Claim)
    assert taken.replaced == dead.sha and tip(origin) == taken.sha
    # the dead run wakes up: neither its fix nor its release touches the new claim
    assert lock_for(tmp_path, origin, "c").release(dead) is False
    assert tip(origin) == taken.sha


def test_a_fix_on_the_branch_is_not_a_claim_and_is_never_replaced(tmp_path: Path, origin: Path) -> None:
    seed = tmp_path / "seed"
    (seed / "app.py").write_text("import os  # fixed\n")
    git(
        seed,
        "commit",
        "-q",
        "-am",
        "ci-healer: fix lint\n\nCi-healer-claim: run 1 attempt 1 at 2000-01-01T00:00:00Z",
    )
    git(seed, "push", "-q", "origin", f"HEAD:refs/heads/{BRANCH}")
    fixed = tip(origin)
    held = lock_for(tmp_path, origin, "a").claim(BRANCH, head_sha=HEAD, run=(12, 1), now=NOW, ttl=TTL)
    assert isinstance(held, Holder) and held.run is None and held.sha == fixed
    assert "a delivered fix, or a person's commits" in held.describe()
    assert tip(origin) == fixed


def test_a_retry_leases_an_earlier_fix_as_it_is_and_never_a_live_claim(tmp_path: Path, origin: Path) -> None:
    seed = tmp_path / "seed"
    (seed / "app.py").write_text("import os  # fixed\n")
    git(seed, "commit", "-q", "-am", "ci-healer: fix lint")
    git(seed, "push", "-q", "origin", f"HEAD:refs/heads/{BRANCH}")
    fixed = tip(origin)
    lock = lock_for(tmp_path, origin, "a")
    kept = lock.claim(BRANCH, head_sha=HEAD, run=(12, 1), now=NOW, ttl=TTL, over_work=True)
    # no claim commit goes over the fix (it is an open fix pull request's head): it is leased as it is
    assert kept == Claim(BRANCH, fixed, kept=True) and tip(origin) == fixed
    # a retry whose heal delivers nothing leaves the earlier fix where it was
    assert lock.release(kept) is False and tip(origin) == fixed
    # a live claim of another run holds against a retry too
    git(origin, "update-ref", "-d", f"refs/heads/{BRANCH}")
    live = lock_for(tmp_path, origin, "b").claim(BRANCH, head_sha=HEAD, run=(13, 1), now=NOW, ttl=TTL)
    assert isinstance(live, Claim)
    held = lock_for(tmp_path, origin, "c").claim(
        BRANCH, head_sha=HEAD, run=(14, 1), now=NOW, ttl=TTL, over_work=True
    )
    assert isinstance(held, Holder) and held.run == (13, 1) and tip(origin) == live.sha


def test_release_deletes_only_the_runs_own_claim(tmp_path: Path, origin: Path) -> None:
    lock = lock_for(tmp_path, origin, "a")
    won = lock.claim(BRANCH, head_sha=HEAD, run=(11, 1), now=NOW, ttl=TTL)
    assert isinstance(won, Claim)
    assert lock.release(won) is True
    assert tip(origin) == ""
    again = lock_for(tmp_path, origin, "b").claim(BRANCH, head_sha=HEAD, run=(12, 1), now=NOW, ttl=TTL)
    assert isinstance(again, Claim)


def test_the_fix_replaces_the_claim_only_while_it_is_the_runs_own(tmp_path: Path, origin: Path) -> None:
    lock = lock_for(tmp_path, origin, "a")
    won = lock.claim(BRANCH, head_sha=HEAD, run=(11, 1), now=NOW, ttl=TTL)
    assert isinstance(won, Claim)
    checkout = lock.repo
    git(checkout.path, "config", "user.name", "t")
    git(checkout.path, "config", "user.email", "t@example.com")
    (checkout.path / "app.py").write_text("import os  # fixed\n")
    git(checkout.path, "commit", "-q", "-am", "fix")
    from healer.change.workspace import Checkout

    work = Checkout(checkout.path, checkout)
    taken = lock_for(tmp_path, origin, "b").claim(
        BRANCH, head_sha=HEAD, run=(12, 1), now=NOW + 2 * TTL, ttl=TTL
    )
    assert isinstance(taken, Claim)
    with pytest.raises(StaleHeadError, match="no longer this run's claim"):
        work.push(BRANCH, token="", server_url="", lease=won.sha)
    assert tip(origin) == taken.sha
    work.push(BRANCH, token="", server_url="", lease=taken.sha)
    assert tip(origin) == git(checkout.path, "rev-parse", "HEAD")


@pytest.mark.parametrize(
    ("offset", "dead"),
    [
        (timedelta(0), False),
        (-TTL + timedelta(seconds=1), False),
        (-TTL - timedelta(seconds=1), True),
        (timedelta(minutes=4), False),
        (timedelta(hours=1), True),
    ],
)
def test_age_of_a_claim(offset: timedelta, dead: bool) -> None:
    assert is_dead(NOW + offset, NOW, TTL) is dead
    assert is_dead(None, NOW, TTL) is True


def test_the_message_reads_back_and_hostile_text_is_no_claim() -> None:
    message = claim_message(BRANCH, HEAD, (42, 3), NOW)
    assert read_claim(message) == ((42, 3), NOW)
    assert message.split("\n")[0].endswith("[skip ci]")  # another token's push starts no workflow for it
    assert read_claim("fix lint\n\nCi-healer-claim: run x attempt 1 at now") is None
    assert read_claim("Ci-healer-claim: run 1 attempt 1 at 2026-13-99T99:00:00Z") == ((1, 1), None)
