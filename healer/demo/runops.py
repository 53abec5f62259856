"""The stand-in's operations on workflow runs and jobs: reading them, their logs (a redirect to a signed,
short-lived blob URL that answers ranges as Azure does), re-runs, check runs and their annotations."""

from __future__ import annotations

import hmac
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from healer.demo import shapes
from healer.demo.routes import SIGNED_LOG_PREFIX, Reply, error, paginate, parse_range
from healer.demo.state import Job, Repo, Rerun, Run
from healer.demo.views import Views


class RunOps(Views):
    """Mixed into :class:`healer.demo.api.Api`."""

    def signed_log_url(self, job_id: int) -> str:
        expires = int(time.time() + self.s.log_url_ttl)
        query = urlencode({"expires": expires, "sig": self.s.sign(job_id, expires)})
        return f"{self.s.server_url}{SIGNED_LOG_PREFIX}{job_id}?{query}"

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
        self._next_attempt(run)
        return Reply(201, {})

    def op_actions_re_run_job_for_workflow_run(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        job = self._job(repo, params["job_id"])
        if job is None:
            return error(404, "Not Found")
        self.s.reruns.append(Rerun(repo.full_name, job.run_id, job.id))
        self._next_attempt(self.s.runs[job.run_id])
        return Reply(201, {})

    def _next_attempt(self, run: Run) -> None:
        """A re-run starts the run's next attempt at once, queued (GitHub's ``run_attempt`` counts it from
        the request on); :meth:`healer.demo.seeding.Seeding.add_run_attempt` completes it."""
        if run.status == "completed":
            run.run_attempt += 1
            run.status, run.conclusion = "queued", None

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
