"""The stand-in's REST operations: one method per operation id, state in, :class:`Reply` out."""

from __future__ import annotations

import hmac
import subprocess
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from healer.demo import shapes
from healer.demo.commandops import CommandOps
from healer.demo.routes import SIGNED_LOG_PREFIX, Reply, error, match_route, paginate, parse_range
from healer.demo.state import Comment, Job, Pull, Repo, Rerun, Review, Run

if TYPE_CHECKING:
    from healer.demo.standin import StandIn

# GitHub caps an issue comment body at 65,536 characters.
MAX_COMMENT = 65_536


class Api(CommandOps):
    """Serves one :class:`StandIn`'s state."""

    def __init__(self, standin: StandIn) -> None:
        self.s = standin

    # -- dispatch --------------------------------------------------------------------------------------------
    def dispatch(
        self,
        method: str,
        path: str,
        query: list[tuple[str, str]],
        body: Any,
        auth: str | None,
        headers: Mapping[str, str],
    ) -> tuple[str, Reply]:
        inner = self.api_path(path)
        found = match_route(method, inner) if inner is not None else None
        if found is None:
            return "unknown", error(404, "Not Found")
        operation, params = found
        reply = self._authorize(auth)
        if reply is not None:
            return operation, reply
        fault = self.s._take_fault(operation)
        if fault is not None:
            fault_body = fault.body if fault.body is not None else shapes.error(fault.message, fault.status)
            # a fault's own rate-limit headers stand alone: GitHub never sends one of them twice
            given = {name.lower() for name, _ in fault.headers}
            rate = [h for h in self._rate_headers() if h[0] not in given]
            return operation, Reply(fault.status, fault_body, headers=[*fault.headers, *rate])
        with self.s._lock:
            repo = self.s.repos.get(f"{params['owner']}/{params['repo']}".lower())
            if repo is None:
                return operation, error(404, "Not Found")
            handler = getattr(self, "op_" + operation.replace("/", "_").replace("-", "_"))
            reply = handler(repo, params, dict(query), body, headers)
        reply.headers.extend(self._rate_headers())
        return operation, reply

    def _authorize(self, auth: str | None) -> Reply | None:
        if not auth:
            return error(401, "Requires authentication")
        scheme, _, value = auth.partition(" ")
        if scheme.lower() not in ("token", "bearer") or not hmac.compare_digest(value.strip(), self.s.token):
            return error(401, "Bad credentials")
        return None

    def _rate_headers(self) -> list[tuple[str, str]]:
        used = len(self.s.requests) + 1
        return [
            ("x-ratelimit-limit", "1000"),
            ("x-ratelimit-remaining", str(max(0, 1000 - used))),
            ("x-ratelimit-used", str(used)),
            ("x-ratelimit-reset", str(int(time.time()) + 3600)),
            ("x-ratelimit-resource", "core"),
        ]

    def api_path(self, path: str) -> str | None:
        """``path`` without the API prefix, or None when it is outside the API."""
        if self.s.api_prefix:
            if not path.startswith(self.s.api_prefix + "/"):
                return None
            return path[len(self.s.api_prefix) :]
        return path

    def signed_log_url(self, job_id: int) -> str:
        expires = int(time.time() + self.s.log_url_ttl)
        query = urlencode({"expires": expires, "sig": self.s.sign(job_id, expires)})
        return f"{self.s.server_url}{SIGNED_LOG_PREFIX}{job_id}?{query}"

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

    # -- repositories ----------------------------------------------------------------------------------------
    def op_repos_get(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        return Reply(200, self.repo_shape(repo))

    def op_repos_get_content(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        path, ref = params["path"], query.get("ref") or repo.default_branch
        data = self.s.files.get(
            (repo.full_name.lower(), ref, path), self.s.files.get((repo.full_name.lower(), None, path))
        )
        sha = ""
        if data is None:
            shown = repo.show(ref, path)
            if shown is None:
                return error(404, "Not Found")
            data, sha = shown
        if "raw" in (headers.get("accept") or ""):  # header names arrive lower-cased
            return Reply(200, raw=data, content_type="application/vnd.github.raw; charset=utf-8")
        sha = sha or shapes.node_id("B", len(data)).lower()
        return Reply(
            200,
            shapes.content_file(
                path=path, text=data, sha=sha, ref=ref, repo=repo.full_name, api=self.api, web=self.web
            ),
        )

    def op_repos_get_collaborator_permission_level(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        login = params["username"]
        level = self.s.permissions.get(
            (repo.full_name.lower(), login.lower()),
            "admin" if login.lower() == repo.owner.lower() else "read",
        )
        return Reply(200, shapes.permission(login, level, self.api, self.web))

    # -- pull requests ---------------------------------------------------------------------------------------
    def op_pulls_list(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        state = query.get("state", "open")
        if state not in ("open", "closed", "all"):
            return error(422, "Validation Failed")
        pulls = [
            p
            for p in self.s.pulls_by_repo[repo.full_name.lower()].values()
            if state == "all" or p.state == state
        ]
        if "head" in query:
            # GitHub filters by "user:ref-name" (the head repository's owner and the branch)
            owner, _, ref = query["head"].rpartition(":")
            owner = owner or repo.owner
            pulls = [
                p
                for p in pulls
                if p.head_ref == ref and p.head_repo.split("/", 1)[0].lower() == owner.lower()
            ]
        if "base" in query:
            pulls = [p for p in pulls if p.base_ref == query["base"]]
        newest_first = query.get("direction", "desc") == "desc"
        pulls.sort(key=lambda p: p.number, reverse=newest_first)
        page, links = paginate([self.pull_shape(p) for p in pulls], query, self._url(repo, "/pulls"))
        return Reply(200, page, headers=links)

    def op_pulls_create(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        if not isinstance(body, dict) or not body.get("head") or not body.get("base"):
            return error(
                422,
                "Validation Failed",
                errors=[{"resource": "PullRequest", "field": "head", "code": "missing_field"}],
            )
        head_owner, _, head_ref = str(body["head"]).rpartition(":")
        head_owner = head_owner or repo.owner
        base_ref = str(body["base"])
        head_repo = repo if head_owner.lower() == repo.owner.lower() else None
        for pull in self.s.pulls_by_repo[repo.full_name.lower()].values():
            if (
                pull.state == "open"
                and pull.head_ref == head_ref
                and pull.base_ref == base_ref
                and pull.head_repo.split("/", 1)[0].lower() == head_owner.lower()
            ):
                # GitHub's own wording; clients look for it to find and update the existing PR
                return error(
                    422,
                    "Validation Failed",
                    errors=[
                        {
                            "resource": "PullRequest",
                            "code": "custom",
                            "message": f"A pull request already exists for {head_owner}:{head_ref}.",
                        }
                    ],
                )
        if body.get("draft") and not repo.drafts:
            # "Draft pull requests need a public repository, or a private one on the Team or Enterprise plans"
            # (BEHAVIOUR.md, "Pull requests, branches and comments")
            return error(
                422,
                "Validation Failed",
                errors=[
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": "Draft pull requests are not supported in this repository.",
                    }
                ],
            )
        head_sha = head_repo.resolve(f"refs/heads/{head_ref}") if head_repo else None
        base_sha = repo.resolve(f"refs/heads/{base_ref}")
        if repo.git_dir is not None and (head_sha is None or base_sha is None):
            field = "head" if head_sha is None else "base"
            return error(
                422,
                "Validation Failed",
                errors=[{"resource": "PullRequest", "field": field, "code": "invalid"}],
            )
        if head_sha is not None and head_sha == base_sha:
            return error(
                422,
                "Validation Failed",
                errors=[
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": f"No commits between {base_ref} and {head_ref}",
                    }
                ],
            )
        pull = self.s.add_pull(
            repo.full_name,
            head_ref=head_ref,
            head_sha=head_sha or "f" * 40,
            base_ref=base_ref,
            base_sha=base_sha or "0" * 40,
            title=str(body.get("title") or head_ref),
            body=body.get("body"),
            author=self.s.bot_login,
            draft=bool(body.get("draft")),
        )
        pull.created_via_api = True
        shape = self.pull_shape(pull)
        return Reply(201, shape, headers=[("Location", shape["url"])])

    def op_git_delete_ref(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        ref = params["ref"]
        branch = ref.removeprefix("heads/") if ref.startswith("heads/") else None
        if branch == repo.default_branch:
            return error(422, "Validation Failed")  # GitHub refuses to delete the default branch
        if repo.git_dir is None or repo.resolve(f"refs/{ref}") is None:
            return error(422, "Reference does not exist")
        subprocess.run(
            ["git", "update-ref", "-d", f"refs/{ref}"], cwd=repo.git_dir, capture_output=True, check=True
        )
        if branch is not None:
            self.s.branch_deleted(repo, branch)
        return Reply(204, None)

    def op_pulls_get(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        return Reply(200, self.pull_shape(pull)) if pull else error(404, "Not Found")

    def op_pulls_update(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        if not isinstance(body, dict):
            return error(422, "Validation Failed")
        if "title" in body:
            pull.title = str(body["title"])
        if "body" in body:
            pull.body = body["body"]
        if "state" in body:
            if body["state"] not in ("open", "closed"):
                return error(422, "Validation Failed")
            pull.state = body["state"]
        if "base" in body:
            pull.base_ref = str(body["base"])
        pull.updated_at = self.s._now()
        return Reply(200, self.pull_shape(pull))

    def op_pulls_create_review(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        body = body if isinstance(body, dict) else {}
        review = Review(
            repo.full_name,
            pull.number,
            self.s.next_id(),
            str(body.get("body") or ""),
            str(body.get("event") or "PENDING"),
            body.get("commit_id") or pull.head_sha,
        )
        self.s.reviews.append(review)
        return Reply(
            200,
            shapes.review(
                review.id,
                number=pull.number,
                body=review.body,
                event=review.event,
                commit_id=review.commit_id,
                author=self.s.bot_login,
                repo=repo.full_name,
                api=self.api,
                web=self.web,
            ),
        )

    def op_repos_list_pull_requests_associated_with_commit(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        sha = params["sha"]
        # A fork's commit is not in the base repository's history: GitHub answers [] for it.
        pulls = [
            p
            for p in self.s.pulls_by_repo[repo.full_name.lower()].values()
            if not p.is_fork and (p.head_sha == sha or p.head_ref == sha)
        ]
        page, links = paginate(
            [self.pull_shape(p) for p in pulls], query, self._url(repo, f"/commits/{sha}/pulls")
        )
        return Reply(200, page, headers=links)

    # -- runs, jobs, logs, checks ----------------------------------------------------------------------------
    def op_actions_get_workflow_run(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        run = self._run(repo, params["run_id"])
        return Reply(200, self.run_shape(run)) if run else error(404, "Not Found")

    def _jobs_reply(self, repo: Repo, run: Run, jobs: list[Job], query: dict[str, str], rest: str) -> Reply:
        jobs.sort(key=lambda j: j.id)
        page, links = paginate([self.job_shape(j) for j in jobs], query, self._url(repo, rest))
        return Reply(200, {"total_count": len(jobs), "jobs": page}, headers=links)

    def op_actions_list_jobs_for_workflow_run(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        run = self._run(repo, params["run_id"])
        if run is None:
            return error(404, "Not Found")
        every = query.get("filter", "latest") == "all"
        jobs = [
            j
            for j in self.s.jobs.values()
            if j.run_id == run.id and (every or j.run_attempt == run.run_attempt)
        ]
        return self._jobs_reply(repo, run, jobs, query, f"/actions/runs/{run.id}/jobs")

    def op_actions_list_jobs_for_workflow_run_attempt(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        run = self._run(repo, params["run_id"])
        attempt = int(params["attempt"]) if params["attempt"].isdigit() else 0
        if run is None or not 1 <= attempt <= run.run_attempt:
            return error(404, "Not Found")
        jobs = [j for j in self.s.jobs.values() if j.run_id == run.id and j.run_attempt == attempt]
        return self._jobs_reply(repo, run, jobs, query, f"/actions/runs/{run.id}/attempts/{attempt}/jobs")

    def op_actions_get_job_for_workflow_run(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        job = self._job(repo, params["job_id"])
        return Reply(200, self.job_shape(job)) if job else error(404, "Not Found")

    def op_actions_download_job_logs_for_workflow_run(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        job = self._job(repo, params["job_id"])
        if job is None:
            return error(404, "Not Found")
        # GitHub answers with a redirect to a short-lived signed URL on its blob storage.
        return Reply(302, None, headers=[("Location", self.signed_log_url(job.id))])

    def signed_log(self, rest: str, query: dict[str, str], range_header: str | None) -> Reply:
        """The blob behind a signed log URL: no token needed (the signature is the credential), may expire."""
        job_id = int(rest) if rest.isdigit() else -1
        expires = int(query.get("expires") or 0) if (query.get("expires") or "").isdigit() else 0
        job = self.s.jobs.get(job_id)
        text = "text/plain; charset=utf-8"
        if job is None or not hmac.compare_digest(query.get("sig", ""), self.s.sign(job_id, expires)):
            return Reply(403, raw=b"AuthenticationFailed: signature did not match", content_type=text)
        if time.time() > expires or self.s.expire_signed_logs > 0:
            self.s.expire_signed_logs = max(0, self.s.expire_signed_logs - 1)
            return Reply(403, raw=b"AuthenticationFailed: signed expiry time has passed", content_type=text)
        data, size = job.log, len(job.log)
        span = parse_range(range_header, size) if range_header and self.s.range_support else "whole"
        if span == "unsatisfiable":
            return Reply(416, raw=b"", content_type=text, headers=[("Content-Range", f"bytes */{size}")])
        if isinstance(span, tuple):
            start, end = span
            return Reply(
                206,
                raw=data[start : end + 1],
                content_type=text,
                headers=[("Content-Range", f"bytes {start}-{end}/{size}"), ("Accept-Ranges", "bytes")],
            )
        return Reply(200, raw=data, content_type=text)

    def op_actions_re_run_workflow_failed_jobs(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        run = self._run(repo, params["run_id"])
        if run is None:
            return error(404, "Not Found")
        self.s.reruns.append(Rerun(repo.full_name, run.id))
        return Reply(201, {})

    def op_actions_re_run_job_for_workflow_run(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        job = self._job(repo, params["job_id"])
        if job is None:
            return error(404, "Not Found")
        self.s.reruns.append(Rerun(repo.full_name, job.run_id, job.id))
        return Reply(201, {})

    def op_checks_list_annotations(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        job = self._job(repo, params["job_id"])
        if job is None:
            return error(404, "Not Found")
        run = self.s.runs[job.run_id]
        items = [
            shapes.annotation(
                path=a.get("path", ".github"),
                line=int(a.get("line", 1)),
                level=a.get("level", "failure"),
                message=a.get("message", ""),
                title=a.get("title", ""),
                blob_href=f"{self.web}/{repo.full_name}/blob/{run.head_sha}/{a.get('path', '')}",
            )
            for a in job.annotations
        ]
        page, links = paginate(items, query, self._url(repo, f"/check-runs/{job.id}/annotations"))
        return Reply(200, page, headers=links)

    def op_checks_list_for_ref(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        ref = params["sha"]
        every = query.get("filter", "latest") == "all"
        found = []
        for job in sorted(self.s.jobs.values(), key=lambda j: j.id):
            run = self.s.runs[job.run_id]
            if run.repo != repo.full_name or ref not in (run.head_sha, run.head_branch):
                continue
            if not every and job.run_attempt != run.run_attempt:
                continue
            if query.get("check_name") and job.name != query["check_name"]:
                continue
            if query.get("status") and job.status != query["status"]:
                continue
            pulls = [
                shapes.pull_summary(self.pull_shape(p))
                for n in run.pull_requests
                if (p := self.s.pulls_by_repo[repo.full_name.lower()].get(n)) is not None
            ]
            found.append(
                shapes.check_run(
                    self.job_shape(job),
                    annotations=len(job.annotations),
                    pull_requests=pulls,
                    api=self.api,
                    web=self.web,
                )
            )
        page, links = paginate(found, query, self._url(repo, f"/commits/{ref}/check-runs"))
        return Reply(200, {"total_count": len(found), "check_runs": page}, headers=links)

    # -- comments and labels ---------------------------------------------------------------------------------
    def op_issues_list_comments(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        comments = sorted(self.s.comments(repo.full_name, pull.number), key=lambda c: c.id)
        page, links = paginate(
            [self.comment_shape(c) for c in comments],
            query,
            self._url(repo, f"/issues/{pull.number}/comments"),
        )
        return Reply(200, page, headers=links)

    def op_issues_create_comment(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        text = body.get("body") if isinstance(body, dict) else None
        if not isinstance(text, str) or not text:
            return error(
                422,
                "Validation Failed",
                errors=[{"resource": "IssueComment", "field": "body", "code": "missing_field"}],
            )
        if len(text) > MAX_COMMENT:
            return error(
                422,
                "Validation Failed",
                errors=[
                    {
                        "resource": "IssueComment",
                        "code": "custom",
                        "field": "body",
                        "message": f"body is too long (maximum is {MAX_COMMENT} characters)",
                    }
                ],
            )
        comment = self.s.add_comment(repo.full_name, pull.number, text, author=self.s.comment_author)
        shape = self.comment_shape(comment)
        return Reply(201, shape, headers=[("Location", shape["url"])])

    def op_issues_update_comment(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        comment = self._comment(repo, params["comment_id"])
        if comment is None:
            return error(404, "Not Found")
        text = body.get("body") if isinstance(body, dict) else None
        if not isinstance(text, str) or not text or len(text) > MAX_COMMENT:
            return error(422, "Validation Failed")
        comment.body = text
        comment.updated_at = self.s._now()
        return Reply(200, self.comment_shape(comment))

    def op_issues_delete_comment(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        comment = self._comment(repo, params["comment_id"])
        if comment is None:
            return error(404, "Not Found")
        comment.deleted = True
        return Reply(204, None)

    def _comment(self, repo: Repo, comment_id: str) -> Comment | None:
        comment = self.s.comment_store.get(int(comment_id)) if comment_id.isdigit() else None
        return comment if comment and comment.repo == repo.full_name and not comment.deleted else None

    def op_issues_add_labels(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        names = body.get("labels") if isinstance(body, dict) else body
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return error(422, "Validation Failed")
        for name in names:
            if name not in pull.labels:
                pull.labels.append(name)
        return Reply(200, [shapes.label(name, self.api, repo.full_name) for name in pull.labels])
