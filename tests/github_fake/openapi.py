"""Check HTTP requests against GitHub's official OpenAPI description (npm @octokit/openapi).

``OpenApi.load()`` reads ``tests/.cache/api.github.com.json`` (fetched by fetch_openapi.sh)
once per process. ``check_request`` finds the operation for a method and path, then checks the
path parameters, the query string (unknown names, required ones, types and enums) and the JSON
body with ``jsonschema``; it returns the operation and a list of violations (empty when valid).

OpenAPI 3.0 schemas are not quite JSON Schema: ``nullable: true`` is rewritten to a ``null``
type, and ``$ref``s point into the spec loaded as one ``referencing`` resource. The fake is
stricter than GitHub in one way on purpose: an object in a request body that lists its
``properties`` refuses any other key, because GitHub silently ignores a misspelt field.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import subprocess
from dataclasses import dataclass, field
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".cache"
SPEC_PATH = CACHE / "api.github.com.json"
EXAMPLES_PATH = CACHE / "webhooks-examples.json"
SPEC_URI = "urn:github:api.github.com.json"
MAX_ERRORS = 20

Json = Any


def ensure_cache() -> None:
    """Fetch the pinned npm packages into tests/.cache if they are not there yet."""
    if not (SPEC_PATH.exists() and EXAMPLES_PATH.exists()):
        subprocess.run([str(HERE / "fetch_openapi.sh")], check=True, stdout=subprocess.DEVNULL)


def _openapi_to_jsonschema(node: Json) -> Json:
    """Rewrite OpenAPI 3.0 ``nullable`` and point local ``$ref``s at the spec resource."""
    if isinstance(node, list):
        return [_openapi_to_jsonschema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _openapi_to_jsonschema(value) for key, value in node.items()}
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        out["$ref"] = SPEC_URI + ref
    if out.pop("nullable", False) is True:
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [{"type": "null"}, out]}
    return out


def _closed(schema: Json) -> Json:
    """Refuse unknown keys in request-body objects that list their properties."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if isinstance(out.get("properties"), dict):
        out["properties"] = {key: _closed(value) for key, value in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _closed(out["items"])
    return out


def _date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    try:
        dt.datetime.fromisoformat(value)
    except ValueError:
        return False
    return "T" in value


FORMATS = jsonschema.FormatChecker(formats=())
FORMATS.checks("date-time")(_date_time)


@dataclass(frozen=True)
class Operation:
    """One method on one path template of the REST API."""

    operation_id: str
    method: str
    template: str
    spec: Json = field(repr=False)


@dataclass(frozen=True)
class Match:
    operation: Operation
    path_params: dict[str, str]


def _template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", template)
    pattern = "".join(
        f"(?P<{part[1:-1].replace('-', '_')}>[^/]+)" if part.startswith("{") else re.escape(part)
        for part in parts
    )
    return re.compile(pattern + "$")


class OpenApi:
    """The loaded description: routes, parameter schemas and body validators."""

    def __init__(self, spec: Json) -> None:
        self.spec = _openapi_to_jsonschema(spec)
        self.registry: Registry[Json] = Registry().with_resource(
            SPEC_URI, Resource.from_contents(self.spec, default_specification=DRAFT4)
        )
        routes = []
        for template, item in self.spec["paths"].items():
            literal = len(re.sub(r"\{[^}]+\}", "", template))
            operations = {
                method.upper(): Operation(op["operationId"], method.upper(), template, op)
                for method, op in item.items()
                if method in {"get", "post", "patch", "put", "delete"}
            }
            routes.append((literal, _template_regex(template), template, operations))
        # Prefer the template with the most literal text when two match the same path.
        routes.sort(key=lambda route: -route[0])
        self._routes = [(regex, template, ops) for _, regex, template, ops in routes]
        self._validators: dict[str, jsonschema.Draft4Validator] = {}

    @classmethod
    @cache
    def load(cls) -> OpenApi:
        ensure_cache()
        return cls(json.loads(SPEC_PATH.read_text(encoding="utf-8")))

    def match(self, method: str, path: str) -> tuple[Match | None, list[str]]:
        """The operation for ``method path``, or None and a violation."""
        allowed: list[str] = []
        for regex, template, operations in self._routes:
            found = regex.match(path)
            if not found:
                continue
            if method in operations:
                names = re.findall(r"\{([^}]+)\}", template)
                params = dict(zip(names, found.groups(), strict=True))
                return Match(operations[method], params), []
            allowed += operations
        if allowed:
            return None, [f"{method} {path}: method not allowed (spec has {sorted(allowed)})"]
        return None, [f"{method} {path}: no such route in the GitHub REST API description"]

    def validator(self, key: str, schema: Json) -> jsonschema.Draft4Validator:
        if key not in self._validators:
            self._validators[key] = jsonschema.Draft4Validator(
                schema, registry=self.registry, format_checker=FORMATS
            )
        return self._validators[key]

    def _resolve(self, node: Json) -> Json:
        while isinstance(node, dict) and "$ref" in node:
            pointer = node["$ref"].removeprefix(SPEC_URI + "#/").split("/")
            node = self.spec
            for part in pointer:
                node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def parameters(self, operation: Operation) -> list[Json]:
        return [self._resolve(param) for param in operation.spec.get("parameters", [])]

    def check_request(
        self,
        method: str,
        path: str,
        query: dict[str, list[str]],
        body: bytes,
        content_type: str,
    ) -> tuple[Match | None, Json, list[str]]:
        """The matched operation, the decoded JSON body (or None) and the violations."""
        found, violations = self.match(method, path)
        if found is None:
            return None, None, violations
        operation = found.operation
        where = f"{method} {operation.template} ({operation.operation_id})"
        params = self.parameters(operation)
        by_place: dict[str, dict[str, Json]] = {"path": {}, "query": {}}
        for param in params:
            if param["in"] in by_place:
                by_place[param["in"]][param["name"]] = param
        for name, raw in found.path_params.items():
            violations += self._check_value(where, "path", by_place["path"][name], [raw])
        for name, values in query.items():
            if name not in by_place["query"]:
                violations.append(f"{where}: unknown query parameter {name!r}")
                continue
            violations += self._check_value(where, "query", by_place["query"][name], values)
        for name, param in by_place["query"].items():
            if param.get("required") and name not in query:
                violations.append(f"{where}: missing required query parameter {name!r}")
        document, body_violations = self._check_body(where, operation, body, content_type)
        return found, document, violations + body_violations

    def _check_value(self, where: str, place: str, param: Json, values: list[str]) -> list[str]:
        name = param["name"]
        schema = param.get("schema", {})
        if len(values) != 1 and schema.get("type") != "array":
            return [f"{where}: {place} parameter {name!r} given {len(values)} times"]
        raw = values[0]
        kind = schema.get("type")
        value: Json = raw
        try:
            if kind == "integer":
                value = int(raw)
            elif kind == "boolean":
                value = {"true": True, "false": False}[raw]
        except (ValueError, KeyError):
            return [f"{where}: {place} parameter {name!r}={raw!r} is not a {kind}"]
        key = f"param:{where}:{place}:{name}"
        errors = self.validator(key, schema).iter_errors(value)
        return [f"{where}: {place} parameter {name!r}={raw!r}{_path(e)}" for e in errors]

    def _check_body(
        self, where: str, operation: Operation, body: bytes, content_type: str
    ) -> tuple[Json, list[str]]:
        request_body = operation.spec.get("requestBody")
        if request_body is None:
            extra = [f"{where}: a body was sent to an operation that takes none"]
            return None, extra if body else []
        if not body:
            if request_body.get("required"):
                return None, [f"{where}: the required JSON body is missing"]
            return None, []
        if content_type.split(";")[0].strip() != "application/json":
            return None, [f"{where}: body content-type {content_type!r} is not application/json"]
        try:
            document = json.loads(body)
        except ValueError as exc:
            return None, [f"{where}: the body is not JSON ({exc})"]
        schema = _closed(request_body["content"]["application/json"]["schema"])
        errors = self.validator(f"body:{where}", schema).iter_errors(document)
        return document, [f"{where}: body{_path(e)}" for e in islice(errors, MAX_ERRORS)]

    def check_response(self, operation: Operation, status: int, document: Json) -> list[str]:
        """Keep the fake honest: its answers must match the documented response schema."""
        response = self._resolve(operation.spec["responses"].get(str(status), {}))
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        if schema is None:
            return [] if document is None else [f"{operation.operation_id}: undocumented body"]
        errors = self.validator(f"response:{operation.operation_id}:{status}", schema)
        where = f"fake response {operation.operation_id} {status}"
        return [f"{where}{_path(e)}" for e in errors.iter_errors(document)]

    def example(self, operation: Operation, status: int) -> Json:
        """A deep copy of the first documented example response."""
        response = self._resolve(operation.spec["responses"][str(status)])
        examples = response["content"]["application/json"]["examples"]
        first = self._resolve(next(iter(examples.values())))
        return copy.deepcopy(first["value"])


MESSAGE_MAX_CHARS = 300


def _path(error: jsonschema.ValidationError) -> str:
    where = "".join(f"[{part!r}]" for part in error.absolute_path)
    # The message repeats the instance, which may be huge: keep violations readable.
    message = error.message
    if len(message) > MESSAGE_MAX_CHARS:
        message = message[:MESSAGE_MAX_CHARS] + "..."
    return f"{where}: {message}"


@cache
def webhook_examples() -> dict[str, list[Json]]:
    """Real webhook payloads by event name (npm @octokit/webhooks-examples)."""
    ensure_cache()
    entries = json.loads(EXAMPLES_PATH.read_text(encoding="utf-8"))
    return {entry["name"]: entry["examples"] for entry in entries}
