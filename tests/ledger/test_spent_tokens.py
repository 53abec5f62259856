"""The ``tokens`` field of attempt markers, and what a pull request's attempts spent, read back from them."""

from __future__ import annotations

import pytest

from healer.ledger.markers import Kind, Marker, Signer, decode_markers, encode_marker
from healer.ledger.memory import tokens_spent

SHA = "a" * 40
OTHER = "b" * 40


def test_the_tokens_an_attempt_spent_survive_the_round_trip_and_the_signature() -> None:
    marker = Marker(
        Kind.ATTEMPT, SHA, "test (3.12)", attempt=1, run_id=7, run_attempt=1, result="budget", tokens=123_456
    )
    signer = Signer.for_pull("ledger-secret", "octo-org/widgets", 3)
    line = encode_marker(marker, signer)
    assert '"tokens":123456' in line
    assert decode_markers(line, signer) == [marker]
    forged = line.replace("123456", "1")
    assert decode_markers(forged, signer) == []  # a smaller figure is a forgery like any other


def test_a_marker_without_tokens_reads_as_zero_and_keeps_its_old_canonical_form() -> None:
    old = '<!-- ci-healer:v1 {"kind":"attempt","check":"lint","sha":"' + SHA + '","attempt":1,"run":5} -->'
    [marker] = decode_markers(old)
    assert marker.tokens == 0
    assert encode_marker(marker) == old


@pytest.mark.parametrize("tokens", [-1, 1.5, True, "12"])
def test_tokens_must_be_a_whole_number(tokens: object) -> None:
    with pytest.raises(ValueError, match="tokens"):
        Marker(Kind.ATTEMPT, SHA, "lint", attempt=1, tokens=tokens)  # type: ignore[arg-type]


def test_a_heal_of_several_checks_counts_once_and_every_attempt_of_the_pull_request_counts() -> None:
    markers = [
        # one heal of two checks: both markers carry the heal's figure
        Marker(Kind.ATTEMPT, SHA, "lint", attempt=1, run_id=1, run_attempt=1, tokens=1000),
        Marker(Kind.ATTEMPT, SHA, "test", attempt=1, run_id=1, run_attempt=1, tokens=1000),
        # a later attempt on another commit, in another workflow
        Marker(
            Kind.ATTEMPT, OTHER, "docs", attempt=2, run_id=2, run_attempt=1, tokens=250, workflow="docs.yml"
        ),
        # markers older than the field, and markers of other kinds, spend nothing
        Marker(Kind.ATTEMPT, OTHER, "lint", attempt=2, run_id=3, run_attempt=1),
        Marker(Kind.RERUN, OTHER, "lint", run_id=4, run_attempt=1),
    ]
    assert tokens_spent(markers) == 1250
    assert tokens_spent([]) == 0


def test_an_attempt_a_budget_stopped_is_recorded_as_budget_and_its_change_is_remembered() -> None:
    from healer.change.context import HealResult
    from healer.change.outcomes import Spend
    from healer.ledger.memory import account_of, decode

    spend = Spend(tokens=600, requests=5, refused=1, stopped="agent-token-budget", limit=500)
    result = HealResult(False, diff="+    return a + b  # noqa\n", diffstat="1 file changed", spend=spend)
    assert result.result == "budget"
    assert HealResult(False, diffstat="1 file changed", spend=Spend(tokens=5, requests=1)).result == "refused"
    # a change the stopped agent left that went through the guard and verification and was delivered
    delivered = HealResult(True, diffstat="1 file changed", spend=spend)
    assert delivered.result == "unverified"
    account = decode(account_of(result, (), SHA, result.result, None))
    assert account is not None and account.result == "budget"
    assert "return a + b" in account.diff
    assert "stopped by its budget" in account.why and "600 tokens in 5 requests" in account.why
