"""Strict models over attacker-controlled JSON, with memory bounded before pydantic runs.

pydantic collects *every* error of a document: 1 MiB of ``{},`` under a list of models is two
million errors and over a gigabyte of memory, all built before the first can be read. So an
artifact file goes through three bounded steps, each of which refuses with one short reason:

1. ``scan``: the raw bytes only (no tree is built). Size, nesting depth, containers, values,
   keys per object and items per array are counted on a copy with every string blanked, and
   refused over ``JsonLimits``; totals are checked before any per-container walk, so a flood
   of tiny items costs a few ``bytes.count`` calls.
2. a fail-fast walk: the (now small) tree is parsed, and every list of sub-models is checked
   against the field's own ``max_length`` and then one item at a time, stopping at the first
   bad item. One item holds at most ``max_keys`` keys, so its errors are few.
3. the model itself, over the canonical re-serialisation of the tree the walk accepted: what
   can still fail there (top-level fields, short lists of scalars) is bounded by the limits.
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass
from itertools import accumulate
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import annotated_types
import pydantic_core
from pydantic import BaseModel, ValidationError

from verify_pr.errors import ReportError

_ModelT = TypeVar("_ModelT", bound=BaseModel)
_STRUCTURE = b"[]{},"
_STRING = re.compile(rb'"[^"]*"')
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in _STRUCTURE)
_DEPTH_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
PROBLEMS_SHOWN = 3


@dataclass(frozen=True)
class JsonLimits:
    """Bounds for one JSON document; the defaults hold a compare result of three 10k-test runs."""

    max_bytes: int = 16 * 1024 * 1024
    max_depth: int = 16
    max_containers: int = 100_000
    max_values: int = 600_000
    """Counted as commas plus one: an upper bound of the scalars and containers in arrays."""
    max_keys: int = 64
    max_items: int = 20_000


DEFAULT_JSON_LIMITS = JsonLimits()


class JsonRefused(ReportError):
    """The document is refused; the message is one line for the check run."""


def _blank_strings(data: bytes) -> bytes:
    """``data`` with every JSON string replaced by ``""`` (escapes first, so ``\\"`` is inert).

    Exact for valid JSON; for invalid JSON the parser stops at the first error, before the
    point where this view could differ from it. Linear (``[^"]*`` never backtracks), and built
    piece by piece: ``re.sub`` would hold a list of every piece at once.
    """
    flat = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    if flat.count(b'"') % 2:
        raise JsonRefused("an unterminated string")
    out = bytearray()
    end = 0
    for match in _STRING.finditer(flat):
        out += flat[end : match.start()]
        out += b'""'
        end = match.end()
    out += flat[end:]
    return bytes(out)


def scan(data: bytes, limits: JsonLimits = DEFAULT_JSON_LIMITS) -> None:
    """Refuse (``JsonRefused``) a document over any limit, without building it."""
    if len(data) > limits.max_bytes:
        raise JsonRefused(f"{len(data)} bytes, over the cap of {limits.max_bytes}")
    if data.count(b'"') > 4 * limits.max_values:  # a key and a value per comma, two quotes each
        raise JsonRefused("too many strings")
    bare = _blank_strings(data)
    containers = bare.count(b"[") + bare.count(b"{")
    if containers > limits.max_containers:
        raise JsonRefused(
            f"{containers} arrays and objects, over the cap of {limits.max_containers}"
        )
    values = bare.count(b",") + 1
    if values > limits.max_values:
        raise JsonRefused(f"about {values} values, over the cap of {limits.max_values}")
    structure = bare.translate(None, _NOT_STRUCTURE)
    depth = max(accumulate(_DEPTH_STEP.get(b, 0) for b in structure), default=0)
    if depth > limits.max_depth:
        raise JsonRefused(f"nested {depth} deep, over the cap of {limits.max_depth}")
    _check_widths(structure, limits)


def _check_widths(structure: bytes, limits: JsonLimits) -> None:
    """Items per array and keys per object (``structure`` holds only ``[]{},``)."""
    stack: list[list[int]] = []  # [opening byte, commas seen]
    for byte in structure:
        if byte in b"[{":
            stack.append([byte, 0])
        elif byte in b"]}":
            if not stack:
                raise JsonRefused("unbalanced brackets")
            opening, commas = stack.pop()
            cap = limits.max_items if opening == ord("[") else limits.max_keys
            if commas + 1 > cap:
                kind = "items in an array" if opening == ord("[") else "keys in an object"
                raise JsonRefused(f"{commas + 1} {kind}, over the cap of {cap}")
        elif byte == ord(",") and stack:
            stack[-1][1] += 1


def _strip(annotation: Any) -> Any:  # noqa: ANN401 - typing objects have no common type
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _submodels(annotation: Any) -> tuple[type[BaseModel] | None, type[BaseModel] | None]:  # noqa: ANN401
    """(item model of a ``tuple[M, ...]`` field, model of an ``M`` or ``M | None`` field)."""
    annotation = _strip(annotation)
    options = (
        get_args(annotation)
        if get_origin(annotation) in (Union, types.UnionType)
        else (annotation,)
    )
    for option in (_strip(o) for o in options):
        if get_origin(option) is tuple:
            args = get_args(option)
            item = _strip(args[0]) if len(args) == 2 and args[1] is Ellipsis else None
            if isinstance(item, type) and issubclass(item, BaseModel):
                return item, None
        elif isinstance(option, type) and issubclass(option, BaseModel):
            return None, option
    return None, None


def _max_length(metadata: list[Any]) -> int | None:
    for item in metadata:
        if isinstance(item, annotated_types.MaxLen):
            return int(item.max_length)
    return None


def first_problems(exc: ValidationError) -> str:
    """A few of the errors, as ``where: what``, without copying the offending input."""
    errors = exc.errors(include_url=False, include_context=False, include_input=False)
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}" for e in errors]
    shown = PROBLEMS_SHOWN
    more = f" (+{len(parts) - shown} more)" if len(parts) > shown else ""
    return "; ".join(parts[:shown]) + more


def _first_bad_item(model: type[BaseModel], value: object, where: str) -> str | None:
    """Walk ``value`` as ``model``: lists of sub-models are capped, then checked item by item."""
    if not isinstance(value, dict):
        return None  # the model's own validation says so, in one error
    for name, field in model.model_fields.items():
        key = field.alias or name
        if key != name and name in value:
            # pydantic passes over a field's code name beside its wire name: an extra key
            return f"{f'{where}.' if where else ''}{name}: extra inputs are not permitted"
        if key not in value:
            continue
        sub, path = value[key], f"{where}.{key}" if where else key
        cap = _max_length(field.metadata)
        if isinstance(sub, list) and cap is not None and len(sub) > cap:
            return f"{path}: {len(sub)} items, over the model's cap of {cap}"
        item_model, nested = _submodels(field.annotation)
        if item_model is not None and isinstance(sub, list):
            for index, item in enumerate(sub):
                problem = _first_bad_item(item_model, item, f"{path}.{index}")
                if problem:
                    return problem
                try:
                    item_model.model_validate_json(pydantic_core.to_json(item))
                except ValidationError as exc:
                    return f"{path}.{index}: {first_problems(exc)}"
        elif nested is not None:
            problem = _first_bad_item(nested, sub, path)
            if problem:
                return problem
    return None


def load_model(
    model: type[_ModelT], data: bytes, limits: JsonLimits = DEFAULT_JSON_LIMITS
) -> _ModelT:
    """``data`` as ``model``, or ``JsonRefused`` saying why in one line (bounded memory)."""
    scan(data, limits)
    try:
        tree = pydantic_core.from_json(data, allow_inf_nan=False)
    except ValueError as exc:
        raise JsonRefused(f"not valid JSON ({str(exc)[:200]})") from exc
    problem = _first_bad_item(model, tree, "")
    if problem:
        raise JsonRefused(problem)
    try:
        return model.model_validate_json(pydantic_core.to_json(tree))
    except ValidationError as exc:
        raise JsonRefused(first_problems(exc)) from exc
