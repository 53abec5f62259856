"""The only client of GitHub's REST API.

:class:`GitHub` is the door; the package splits it by concern: :mod:`~healer.github.transport` (one call,
pagination, retries, counting), :mod:`~healer.github.errors` (messages a person can act on),
:mod:`~healer.github.convert` (payloads to dataclasses), :mod:`~healer.github.logdownload` (the log, read
from the blob store), :mod:`~healer.github.client` (the operations).
"""

from healer.github.client import GitHub
from healer.github.convert import COMMENT_LIMIT, is_stale
from healer.github.errors import GitHubError
from healer.github.logdownload import LOG_CUT_PREFIX, LOG_KEEP_LIMIT, LOG_READ_LIMIT
from healer.github.proving import DispatchRefused
from healer.github.transport import MAX_RETRIES, MAX_WAIT_SECONDS, PER_PAGE, USER_AGENT, is_loopback_http

__all__ = [
    "COMMENT_LIMIT",
    "LOG_CUT_PREFIX",
    "LOG_KEEP_LIMIT",
    "LOG_READ_LIMIT",
    "MAX_RETRIES",
    "MAX_WAIT_SECONDS",
    "PER_PAGE",
    "USER_AGENT",
    "DispatchRefused",
    "GitHub",
    "GitHubError",
    "is_loopback_http",
    "is_stale",
]
