"""GitHub's failures as :class:`GitHubError`, with messages that say what is missing and what to do."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any


class GitHubError(Exception):
    """A GitHub API call failed; the message says what is missing and what to do. Never holds the token.

    ``refused`` is True when GitHub declined on its own terms (not a missing permission, not a rate limit):
    a re-run of a run older than 30 days, past 50 attempts, or of a disabled workflow."""

    def __init__(self, message: str, *, status: int | None = None, refused: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.refused = refused


# What GitHub says when a token lacks a permission (as opposed to GitHub declining on its own terms).
_PERMISSION = re.compile(r"not accessible by|must have (?:admin|push|write)|permission", re.IGNORECASE)


def refused_rerun(status: int | None, message: str, what: str) -> bool:
    """A 403 to a re-run that is GitHub's own limit ("Unable to retry this workflow run because it was created
    over a month ago", 50 attempts, a disabled workflow: "Re-running workflows and jobs" in GitHub's docs),
    which no permission changes."""
    return (
        status == 403
        and what.startswith("re-run")
        and bool(message)
        and not _PERMISSION.search(message)
        and "rate limit" not in message.lower()
    )


def describe(
    status: int | None,
    headers: Mapping[str, Any],
    message: str,
    *,
    what: str,
    need: str,
    gave_up: bool,
    api_url: str,
    tries: int,
    max_wait: float,
) -> str:
    """The sentence a person reads when a call failed: what was asked, what GitHub said, what to do."""
    detail = f" ({message})" if message else ""
    code = f"{status}: {message}" if message else f"{status}"
    if status is None:
        text = f"could not reach GitHub at {api_url} to {what}{detail}"
        if gave_up:
            text += f" after {tries} tries"
    elif status == 401:
        text = (
            f"GitHub rejected the token ({code}) when asked to {what}: it is invalid or expired; "
            "pass a valid `github-token`"
        )
    elif status in (403, 429) and gave_up:
        reset = number(headers.get("x-ratelimit-reset"))
        when = f"; it resets at {time.strftime('%H:%M:%S UTC', time.gmtime(reset))}" if reset else ""
        text = (
            f"GitHub's rate limit stopped the healer when asked to {what}{detail}{when}; waiting longer "
            f"than {max_wait:.0f} s is not worth a runner's time, the next run will try again"
        )
    elif refused_rerun(status, message, what):
        text = f"GitHub refused to {what}: {message} (GitHub's own limit, not a missing permission)"
    elif status == 403 and "not permitted to create or approve pull requests" in message.lower():
        # A repository (or organization) setting, off by default since 2022, that no `permissions:`
        # entry overrides for the workflow's GITHUB_TOKEN.
        text = (
            f"GitHub refused to {what} ({code}): turn on 'Allow GitHub Actions to create and approve "
            "pull requests' in the repository's Settings → Actions → General → Workflow permissions "
            "(and the organization's, if it is off there), or pass a GitHub App token as `github-token`"
        )
    elif status == 403:
        text = (
            f"GitHub refused to {what} ({code}): the token lacks the `{need}` permission; grant it "
            "in the workflow's `permissions:` block (or the GitHub App's permissions)"
        )
    elif status == 404:
        text = (
            f"GitHub found nothing when asked to {what} ({code}): it does not exist, or the token "
            f"cannot see it (GitHub answers 404 when the `{need}` permission is missing)"
        )
    elif status == 422:
        text = f"GitHub refused the input when asked to {what} ({code})"
    elif gave_up:
        text = f"GitHub kept failing (HTTP {code}) when asked to {what}; gave up after retrying"
    else:
        text = f"GitHub answered HTTP {code} when asked to {what}"
    return text


def number(value: Any) -> float | None:
    """A header's value as a number, or None."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def message_of(data: Any) -> str:
    """GitHub's error message and its ``errors`` details, at most 500 characters."""
    if isinstance(data, Mapping):
        message = str(data.get("message", ""))
        errors = data.get("errors")
        if isinstance(errors, list):
            details = [
                str(e.get("message") or e.get("code") or "") if isinstance(e, Mapping) else str(e)
                for e in errors
            ]
            details = [d for d in details if d]
            if details:
                message = f"{message}: {'; '.join(details)}" if message else "; ".join(details)
        return message[:500]
    return ""
