"""What every stage of one ``healer run`` receives: its inputs, its clients, and the outcome it reports.

A :class:`RunContext` is made once, by the shell, and handed to each stage. It holds no per-run state of its
own besides :class:`healer.text.report.Outcome`, which the stages fill in as they go and the shell renders
into step outputs and the job summary; what one stage tells the next travels as arguments and return values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

from healer.config import Config, explicit_inputs, load_config_file
from healer.github import GitHub
from healer.heal.modelkeys import find_keys, scrub_keys
from healer.ledger.ledger import Signer
from healer.model import PullRequest
from healer.text.frames import OVERRIDE_DIR, Frames
from healer.text.report import Actions, Outcome, Reporter, SetupError
from healer.text.tokens import scrub


@dataclass(frozen=True)
class RunContext:
    """One run's inputs (config, Actions environment, process environment), its clients (GitHub, the
    reporter, the frames) and its :class:`Outcome`."""

    config: Config
    actions: Actions
    gh: GitHub
    reporter: Reporter
    env: Mapping[str, str]
    dry_run: bool
    frames: Frames
    outcome: Outcome = field(default_factory=Outcome)
    # when the run started: ages claims left behind by runs that died
    started: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @classmethod
    def create(
        cls,
        config: Config,
        actions: Actions,
        gh: GitHub,
        reporter: Reporter,
        env: Mapping[str, str],
        *,
        dry_run: bool = False,
    ) -> RunContext:
        """The context of a run; ``dry_run`` (the ``--dry-run`` flag) or the config's `dry-run` input."""
        return cls(
            config=config,
            actions=actions,
            gh=gh,
            reporter=reporter,
            env=env,
            dry_run=dry_run or config.dry_run,
            frames=Frames(actions.workspace / OVERRIDE_DIR),
        )

    def say(self, line: str) -> None:
        """A line for the log."""
        self.reporter.info(line)

    def note(self, line: str) -> None:
        """A line for the job summary (and the log)."""
        self.outcome.lines.append(line)
        self.say(line)

    def skip(self, why: str) -> None:
        """The run decides to do nothing, and says why."""
        self.outcome.decision = "skipped"
        self.note(f"skipped: {why}")

    def signer(self, pr: PullRequest) -> Signer | None:
        """What signs and verifies this pull request's markers (None without `ledger-key`)."""
        return Signer.for_pull(self.config.ledger_key, self.actions.repository, pr.number)

    def scrubbed(self, text: str, config: Config | None = None) -> str:
        """``text`` as the healer may post it: the token and the model keys of the step's environment (those
        ``config``'s `agent-api-key` names, the run's by default) replaced."""
        keys = find_keys(self.env, (config or self.config).agent_api_key)
        return scrub_keys(scrub(text, self.config.github_token), keys)


def check_bot_login(author: str, config: Config, *, does: str, own: str) -> None:
    """Raise :class:`SetupError` when GitHub wrote as ``author`` (what the token ``does``: "comments",
    "opens pull requests") and `bot-login` names someone else: the ledger trusts only `bot-login`, so the
    healer would never read its own ``own`` ("comments", "records"). Say which login to set."""
    if author and author.casefold() != config.bot_login.strip().casefold():
        raise SetupError(
            f"the token {does} as `{author}`, but `bot-login` is `{config.bot_login}`: the healer would "
            f"not recognise its own {own}; set `bot-login: {author}`"
        )


def branch_config(gh: GitHub, config: Config, env: Mapping[str, str], branch: str) -> Config | None:
    """``config`` with the config file of ``branch`` over it (one request; the file of the default branch,
    never of a pull request's head), or None when the branch has no config file."""
    text = gh.get_file(config.config_file, branch)
    if text is None:
        return None
    return load_config_file(text, config, source=config.config_file, explicit=explicit_inputs(env))
