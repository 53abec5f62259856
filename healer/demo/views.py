"""What every part of the stand-in's API shares: the stand-in it serves, GitHub's shapes of its state, and
finding a pull request, run, job or comment of a repository from a path parameter."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from healer.demo import shapes
from healer.demo.state import Comment, Job, Pull, Repo, Run

if TYPE_CHECKING:
    from healer.demo.standin import StandIn


class Views:
    """Serves one :class:`StandIn`'s state; the operations are mixed in (:class:`healer.demo.api.Api`)."""

    def __init__(self, standin: StandIn) -> None:
        self.s = standin

    # -- shape helpers ---------------------------------------------------------------------------------------
    @property
    def api(self) -> str:
        return self.s.api_url

    @property
    def web(self) -> str:
        return self.s.server_url

    def repo_shape(self, repo: Repo) -> dict[str, Any]:
        return shapes.repository(
            repo.full_name,
            repo.id,
            default_branch=repo.default_branch,
            clone_url=repo.clone_url,
            fork=repo.fork,
            private=repo.private,
            api=self.api,
            web=self.web,
        )

    def pull_shape(self, pull: Pull) -> dict[str, Any]:
        base_repo = self.s.repos[pull.repo.lower()]
        head_repo = self.s.repos.get(pull.head_repo.lower()) if pull.head_repo else None
        head_owner = pull.head_repo.split("/", 1)[0] if pull.head_repo else "ghost"
        head = shapes.pull_ref(
            ref=pull.head_ref,
            sha=pull.head_sha,
            repo=self.repo_shape(head_repo) if head_repo else None,
            owner=head_owner,
            api=self.api,
            web=self.web,
        )
        base = shapes.pull_ref(
            ref=pull.base_ref,
            sha=pull.base_sha,
            repo=self.repo_shape(base_repo),
            owner=base_repo.owner,
            api=self.api,
            web=self.web,
        )
        labels = [shapes.label(name, self.api, pull.repo) for name in pull.labels]
        return shapes.pull_request(
            pr_id=pull.id,
            number=pull.number,
            state=pull.state,
            title=pull.title,
            body=pull.body,
            author=pull.author,
            draft=pull.draft,
            labels=labels,
            head=head,
            base=base,
            merged=pull.merged,
            merged_by=pull.merged_by,
            maintainer_can_modify=pull.maintainer_can_modify,
            requested_reviewers=tuple(pull.requested_reviewers),
            created_at=pull.created_at,
            updated_at=pull.updated_at,
            repo=pull.repo,
            api=self.api,
            web=self.web,
        )

    def run_shape(self, run: Run) -> dict[str, Any]:
        base = self.s.repos[run.repo.lower()]
        head = self.s.repos.get(run.head_repo.lower())
        lite = shapes.repository_lite
        pulls = [
            shapes.pull_summary(self.pull_shape(p))
            for n in run.pull_requests
            if (p := self.s.pulls_by_repo[base.full_name.lower()].get(n)) is not None
        ]
        head_shape = (
            lite(head.full_name, head.id, fork=head.fork, private=head.private, api=self.api, web=self.web)
            if head
            else lite(
                run.head_repo or "ghost/deleted", 0, fork=True, private=False, api=self.api, web=self.web
            )
        )
        return shapes.workflow_run(
            run_id=run.id,
            run_attempt=run.run_attempt,
            name=run.name,
            path=run.path,
            event=run.event,
            status=run.status,
            conclusion=run.conclusion,
            head_sha=run.head_sha,
            head_branch=run.head_branch,
            actor=shapes.user(run.actor, self.api, self.web),
            head_repository=head_shape,
            repository=lite(
                base.full_name, base.id, fork=base.fork, private=base.private, api=self.api, web=self.web
            ),
            pull_requests=pulls,
            repo=run.repo,
            api=self.api,
            web=self.web,
            display_title=run.display_title,
        )

    def job_shape(self, job: Job) -> dict[str, Any]:
        run = self.s.runs[job.run_id]
        steps = [
            ("Set up job", "success"),
            *job.steps,
            ("Complete job", "success" if job.steps else job.conclusion),
        ]
        if job.conclusion == "cancelled" and not job.steps:
            steps = []  # cancelled while pending: no runner ever took the job
        return shapes.job(
            job_id=job.id,
            run_id=run.id,
            run_attempt=job.run_attempt,
            name=job.name,
            status=job.status,
            conclusion=job.conclusion,
            steps=[shapes.step(i + 1, name, conclusion) for i, (name, conclusion) in enumerate(steps)],
            head_sha=run.head_sha,
            head_branch=run.head_branch,
            workflow_name=run.name,
            repo=run.repo,
            api=self.api,
            web=self.web,
        )

    def comment_shape(self, comment: Comment) -> dict[str, Any]:
        return shapes.issue_comment(
            comment.id,
            number=comment.number,
            body=comment.body,
            author=comment.author,
            created_at=comment.created_at,
            updated_at=comment.updated_at,
            repo=comment.repo,
            api=self.api,
            web=self.web,
        )

    def _pull(self, repo: Repo, number: str) -> Pull | None:
        return self.s.pulls_by_repo[repo.full_name.lower()].get(int(number)) if number.isdigit() else None

    def _run(self, repo: Repo, run_id: str) -> Run | None:
        run = self.s.runs.get(int(run_id)) if run_id.isdigit() else None
        return run if run is not None and run.repo == repo.full_name else None

    def _job(self, repo: Repo, job_id: str) -> Job | None:
        job = self.s.jobs.get(int(job_id)) if job_id.isdigit() else None
        return job if job is not None and self.s.runs[job.run_id].repo == repo.full_name else None

    def _url(self, repo: Repo, rest: str) -> str:
        return f"{self.api}/repos/{repo.full_name}{rest}"

    def _comment(self, repo: Repo, comment_id: str) -> Comment | None:
        comment = self.s.comment_store.get(int(comment_id)) if comment_id.isdigit() else None
        return comment if comment and comment.repo == repo.full_name and not comment.deleted else None
