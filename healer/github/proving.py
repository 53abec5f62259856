"""The operations behind fix pull requests that prove themselves: start the CI of a fix branch with a
``workflow_dispatch`` (the one event a ``GITHUB_TOKEN`` may cause that starts a workflow run), and mark a
draft fix pull request ready for review once that CI passed (GraphQL: REST has no operation for it)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from healer.github.errors import GitHubError
from healer.github.transport import Transport

# A mixin, like healer.github.commands: GitHub brings the transport; the type checker reads it as a Transport.
if TYPE_CHECKING:
    _Calls = Transport
else:
    _Calls = object

# GitHub's 422 for a workflow without `on: workflow_dispatch` ("Workflow does not have 'workflow_dispatch'
# trigger"); matched loosely, as its wording has varied.
NO_DISPATCH_TRIGGER = "workflow_dispatch"
_READY = (
    "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) "
    "{ pullRequest { number isDraft } } }"
)


class DispatchRefused(GitHubError):
    """GitHub refused the dispatch because the workflow does not declare ``on: workflow_dispatch``."""


class ProofCalls(_Calls):
    """Operations of the fix pull requests' CI (mixed into :class:`healer.github.GitHub`)."""

    def dispatch_workflow(self, workflow_file: str, ref: str) -> None:
        """Start ``workflow_file`` (``ci.yml``, a file of ``.github/workflows``) on branch ``ref``.

        GitHub answers 204 and starts the run from the copy of the workflow at ``ref``; a workflow that does
        not declare ``workflow_dispatch`` is refused with 422 (raised as :class:`DispatchRefused`)."""
        try:
            self._call(
                "POST",
                f"/actions/workflows/{quote(workflow_file, safe='')}/dispatches",
                body={"ref": ref},
                what=f"start the workflow {workflow_file} on {ref}",
                need="actions: write",
                # a 5xx after POST may still have started the run: a second one would run CI twice
                idempotent=False,
            )
        except GitHubError as exc:
            if exc.status == 422 and NO_DISPATCH_TRIGGER in str(exc):
                raise DispatchRefused(str(exc), status=422) from None
            raise

    def mark_ready_for_review(self, node_id: str, number: int) -> None:
        """Take pull request ``number`` (GraphQL id ``node_id``) out of draft."""
        if not node_id:
            raise GitHubError(f"pull request #{number} has no node id to mark it ready for review")
        self._retrying(
            lambda: self._requester.graphql_query(_READY, {"id": node_id}),
            what=f"mark pull request #{number} ready for review",
            need="pull-requests: write",
        )
