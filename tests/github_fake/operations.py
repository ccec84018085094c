"""The GitHub operations the fake implements, as a mixin of ``FakeGitHub``.

``FakeGitHub._dispatch`` finds each handler by name (``_op_`` + the operation id), so a method
here is an implemented operation; every one runs with the fake's lock held.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from tests.github_fake.openapi import Json, OpenApi
from tests.github_fake.wire import BLOB_PREFIX, DEFAULT_BLOB_SIZE, Reply, error_body, one, page


class Operations:
    """Handlers over the state ``FakeGitHub`` owns (declared here for the reader)."""

    api: OpenApi
    check_runs: dict[int, Json]
    annotations: dict[int, list[Json]]
    artifacts: dict[int, tuple[int, str, bytes]]
    pull_files: dict[int, list[str]]
    artifact_heads: dict[int, str]
    pulls: list[tuple[Any, ...]]
    repository_id: int | None
    blob_sizes: dict[str, int]
    trees: dict[str, list[str]]
    _blobs: dict[str, bytes]
    _next_id: int

    @property
    def base_url(self) -> str:
        """The server's address; ``FakeGitHub`` overrides it (it owns the server)."""
        raise NotImplementedError

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _op_checks_create(self, params: dict[str, str], _q: Any, body: Json) -> Reply:
        run = self.api.example(self._operation("POST", "/repos/o/r/check-runs"), 201)
        check_id = self._new_id()
        run.update(
            id=check_id,
            name=body["name"],
            head_sha=body["head_sha"],
            external_id=body.get("external_id", ""),
            status=body.get("status", "queued"),
            conclusion=body.get("conclusion"),
            pull_requests=[],
        )
        run["output"].update(title=None, summary=None, text=None, annotations_count=0)
        self.check_runs[check_id] = run
        self.annotations[check_id] = []
        self._apply(run, body)
        return Reply(201, run)

    def _op_checks_update(self, params: dict[str, str], _q: Any, body: Json) -> Reply:
        run = self.check_runs.get(int(params["check_run_id"]))
        if run is None:
            return Reply(404, error_body(404, "Not Found"))
        self._apply(run, body)
        return Reply(200, run)

    def _apply(self, run: Json, body: Json) -> None:
        for key in (
            "name",
            "status",
            "conclusion",
            "external_id",
            "details_url",
            "started_at",
            "completed_at",
        ):
            if key in body:
                run[key] = body[key]
        if body.get("conclusion") is not None:
            run["status"] = "completed"
        output = body.get("output")
        if output:
            for key in ("title", "summary", "text"):
                if key in output:
                    run["output"][key] = output[key]
            self.annotations[run["id"]] += output.get("annotations", [])
            run["output"]["annotations_count"] = len(self.annotations[run["id"]])

    def _op_checks_list_for_ref(self, params: dict[str, str], query: Any, _b: Any) -> Reply:
        name = one(query, "check_name")
        runs = [r for r in self.check_runs.values() if r["head_sha"] == params["ref"]]
        if name is not None:
            runs = [r for r in runs if r["name"] == name]
        if one(query, "filter", "latest") == "latest":
            newest: dict[str, Json] = {}
            for run in runs:
                newest[run["name"]] = run
            runs = list(newest.values())
        runs.sort(key=lambda r: -r["id"])
        return Reply(200, {"total_count": len(runs), "check_runs": page(runs, query)})

    def _op_actions_list_workflow_run_artifacts(
        self, params: dict[str, str], query: Any, _b: Any
    ) -> Reply:
        template = self.api.example(
            self._operation("GET", "/repos/o/r/actions/runs/1/artifacts"), 200
        )["artifacts"][0]
        name = one(query, "name")
        found = []
        for artifact_id, (run_id, artifact_name, data) in sorted(self.artifacts.items()):
            if run_id != int(params["run_id"]) or name not in (None, artifact_name):
                continue
            item = json.loads(json.dumps(template))
            item.update(
                id=artifact_id,
                name=artifact_name,
                size_in_bytes=len(data),
                expired=False,
                archive_download_url=f"{self.base_url}/repos/{params['owner']}/"
                f"{params['repo']}/actions/artifacts/{artifact_id}/zip",
            )
            item["workflow_run"]["id"] = run_id
            if artifact_id in self.artifact_heads:
                item["workflow_run"]["head_sha"] = self.artifact_heads[artifact_id]
            found.append(item)
        return Reply(200, {"total_count": len(found), "artifacts": page(found, query)})

    def _op_actions_download_artifact(self, params: dict[str, str], _q: Any, _b: Any) -> Reply:
        artifact = self.artifacts.get(int(params["artifact_id"]))
        if artifact is None or params["archive_format"] != "zip":
            return Reply(404, error_body(404, "Not Found"))
        blob = secrets.token_urlsafe(16)
        self._blobs[blob] = artifact[2]
        return Reply(302, headers={"location": f"{self.base_url}{BLOB_PREFIX}{blob}"}, raw=b"")

    def _diff_entries(self, names: list[str]) -> list[Json]:
        operation = self._operation("GET", "/repos/o/r/pulls/1/files")
        template = self.api.example(operation, 200)[0]
        return [{**template, "filename": name} for name in names]

    def _op_pulls_list_files(self, params: dict[str, str], query: Any, _b: Any) -> Reply:
        names = self.pull_files.get(int(params["pull_number"]))
        if names is None:
            return Reply(404, error_body(404, "Not Found"))
        return Reply(200, page(self._diff_entries(names), query))

    def _pull_items(self, template: Json) -> list[tuple[str, str, Json]]:
        """Every PR as (head label, head sha, item built on ``template``)."""
        items = []
        for entry in self.pulls:
            number, pull_head, sha, repo_id = entry[:4]
            base_id = entry[4] if len(entry) > 4 and entry[4] is not None else self.repository_id
            item = json.loads(json.dumps(template))
            item["number"] = number
            item["state"] = entry[5] if len(entry) > 5 else "open"
            item["requested_teams"] = []  # the spec's own example lacks a required field
            item["head"].update(sha=sha, label=pull_head, ref=pull_head.split(":", 1)[-1])
            item["head"]["repo"]["id"] = repo_id
            if base_id is not None:
                item["base"]["repo"]["id"] = base_id
            items.append((pull_head, sha, item))
        return items

    def _op_pulls_list(self, params: dict[str, str], query: Any, _b: Any) -> Reply:
        template = self.api.example(self._operation("GET", "/repos/o/r/pulls"), 200)[0]
        head = one(query, "head")
        state = one(query, "state", "open")
        found = [
            item
            for label, _sha, item in self._pull_items(template)
            if head in (None, label) and state in ("all", item["state"])
        ]
        return Reply(200, page(found, query))

    def _op_pulls_get(self, params: dict[str, str], _q: Any, _b: Any) -> Reply:
        template = self.api.example(self._operation("GET", "/repos/o/r/pulls/1"), 200)
        for _label, _sha, item in self._pull_items(template):
            if item["number"] == int(params["pull_number"]):
                return Reply(200, item)
        return Reply(404, error_body(404, "Not Found"))

    def _op_repos_list_pull_requests_associated_with_commit(
        self, params: dict[str, str], query: Any, _b: Any
    ) -> Reply:
        template = self.api.example(self._operation("GET", "/repos/o/r/commits/a/pulls"), 200)[0]
        found = [
            item for _l, sha, item in self._pull_items(template) if sha == params["commit_sha"]
        ]
        return Reply(200, page(found, query))

    def _op_git_get_tree(self, params: dict[str, str], query: Any, _b: Any) -> Reply:
        paths = self.trees.get(params["tree_sha"])
        if paths is None:
            return Reply(404, error_body(404, "Not Found"))
        recursive = one(query, "recursive") is not None
        shown = paths if recursive else [p for p in paths if "/" not in p]
        tree = [
            {
                "path": p,
                "mode": "100644",
                "type": "blob",
                "sha": "0" * 40,
                "size": self.blob_sizes.get(p, DEFAULT_BLOB_SIZE),
                "url": f"{self.base_url}/blob",
            }
            for p in shown
        ]
        return Reply(
            200,
            {
                "sha": params["tree_sha"],
                "url": f"{self.base_url}/tree",
                "tree": tree,
                "truncated": False,
            },
        )

    def _operation(self, method: str, path: str) -> Any:
        found, _ = self.api.match(method, path)
        assert found is not None
        return found.operation
