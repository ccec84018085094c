"""Shared configuration for boundary models: strict, frozen, unknown fields refused."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class BoundaryModel(BaseModel):
    """Base for anything written or read across a trust line."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class WireNamedModel(BoundaryModel):
    """A boundary model with fields whose wire name (``Field(alias=...)``) is not their name
    in the code: written by the wire name. pydantic reads a key spelled as such a field's code
    name without a word (extra="forbid" does not see it), so the publish job's reader refuses
    it (``publish.bounded_json``): the files accepted stay the files accepted before."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, serialize_by_alias=True)
