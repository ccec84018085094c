"""Shared configuration for boundary models: strict, frozen, unknown fields refused."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class BoundaryModel(BaseModel):
    """Base for anything written or read across a trust line."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
