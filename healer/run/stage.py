"""The state of one ``healer run`` and the lines it writes to the log and the job summary."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone

from healer.config import Config
from healer.github import GitHub
from healer.ledger.ledger import Signer
from healer.model import Comment, Job, Plan, PullRequest
from healer.run.evidence import CancelledJobs
from healer.run.policy import decide
from healer.text.frames import OVERRIDE_DIR, Frames
from healer.text.report import Actions, Outcome, Reporter


class Stage:
    """What one run of the healer knows and says: its inputs, its clients, its outcome."""

    def __init__(
        self,
        config: Config,
        actions: Actions,
        gh: GitHub,
        reporter: Reporter,
        env: Mapping[str, str],
        *,
        dry_run: bool = False,
    ) -> None:
        self.config = config
        self.actions = actions
        self.gh = gh
        self.reporter = reporter
        self.env = env
        self.dry_run = dry_run or config.dry_run
        self.outcome = Outcome()
        self.failure: Exception | None = None
        self.frames = Frames(actions.workspace / OVERRIDE_DIR)
        self.started = datetime.now(timezone.utc)  # ages claims left behind by runs that died
        # a cancelled run's job listing and annotations, read to tell a timeout from a cancellation
        self.listing: list[Job] | None = None
        self.cancelled: CancelledJobs | None = None
        self.comments: Sequence[Comment] = ()  # the PR's comments as last read (ledger and memory)
        self.account = ""  # this run's heal account, recorded under the markers for the next attempt
        self.fix_hints: dict[str, str] = {}  # check → why its fix rule cannot run here (a missing tool)
        self.job_ids: dict[str, int] = {}  # check name → the id of its failed job (re-runs are per job)
        # what plans (``decide``; a ``/ci-healer retry`` plans with ``plan_retry``), and whose claim this run
        # writes: the event's run unless set (a command acts on a run that another healer run handled already)
        self.planner: Callable[..., Plan] = decide
        self.claim_run: tuple[int, int] | None = None

    def say(self, line: str) -> None:
        self.reporter.info(line)

    def note(self, line: str) -> None:
        """A line for the job summary (and the log)."""
        self.outcome.lines.append(line)
        self.say(line)

    def signer(self, pr: PullRequest) -> Signer | None:
        """What signs and verifies this pull request's markers (None without `ledger-key`)."""
        return Signer.for_pull(self.config.ledger_key, self.actions.repository, pr.number)

    def skip(self, why: str) -> None:
        self.outcome.decision = "skipped"
        self.note(f"skipped: {why}")
