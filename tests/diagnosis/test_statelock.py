"""A Terraform state lock taken longer before the job ended than a hosted job runs was left behind: the
repository's to release (escalate); a younger one is another run's, which a re-run waits out."""

from __future__ import annotations

from joblogs import diagnose_log, job_log

from healer.diagnosis.logs import parse_log
from healer.model import Action, Owner


def refused(created: str) -> list[str]:
    """Terraform's refusal with its lock info, the lock taken at ``created`` (UTC)."""
    return [
        "╷",
        "│ Error: Error acquiring the state lock",
        "│ ",
        "│ Error message: operation error DynamoDB: PutItem, https response error StatusCode: 400,",
        "│ 0C0898DE, ConditionalCheckFailedException: The conditional request failed",
        "│ Lock Info:",
        "│   ID:        9b1f3c2e-57a1-4f07-bd1e-22c4e8a1f0d3",
        "│   Path:      acme-tf-state/prod/terraform.tfstate",
        "│   Operation: OperationTypeApply",
        "│   Who:       runner@fv-az1147-312",
        "│   Version:   1.9.8",
        f"│   Created:   {created} +0000 UTC",
        "│   Info:      ",
        "│ ",
        "│ Terraform acquires a state lock to protect the state from being written",
        "│ by multiple users at the same time. Please resolve the issue above and try",
        '│ again. For most commands, you can disable locking with the "-lock=false"',
        "│ flag, but this is not recommended.",
        "╵",
    ]


def test_a_lock_older_than_a_hosted_job_runs_is_for_a_person_to_release() -> None:
    log = job_log("terraform apply -auto-approve -input=false", refused("2026-10-28 16:02:51.882341"))
    diagnosis = diagnose_log(log, job="deploy")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "terraform.state-locked",
        Owner.REPOSITORY,
        Action.ESCALATE,
    )
    assert "force-unlock" in dict(diagnosis.decided_by)["evidence"]


def test_a_lock_another_run_may_still_hold_is_waited_out_by_a_rerun() -> None:
    command = "terraform apply -auto-approve -input=false"
    assert parse_log(job_log(command, refused("2026-10-28 16:02:51.88"))).ended_at == "2026-11-03T10:02:11"
    # taken an hour before the job ended: a run that may still be going
    diagnosis = diagnose_log(job_log(command, refused("2026-11-03 09:02:11.5")), job="deploy")
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)


def test_without_the_runners_timestamps_the_lock_is_left_to_a_rerun() -> None:
    text = "\n".join(["$ terraform apply -auto-approve", *refused("2019-01-01 00:00:00.1")])
    assert parse_log(text).ended_at is None
    diagnosis = diagnose_log(text, job="deploy")
    assert diagnosis.owner is not Owner.REPOSITORY
