"""A compare artifact's listings (``models.listing``), read first and under their bounds: the
decoding only. Holding them against the result they belong to, and each run's every result
as the policy's rules read it, is ``policy.whole``'s.
"""

from __future__ import annotations

from collections.abc import Mapping

from verify_pr.models.listing import LISTING_FILES, ListingRefused, decode
from verify_pr.models.report import TestStatus

__all__ = ["decode_listings"]


def decode_listings(files: Mapping[str, bytes]) -> dict[str, dict[str, TestStatus]]:
    """Each listing the artifact holds, decoded under its bounds, by run; ``ListingRefused``
    when one is over a bound or not a listing the verifier writes (before any JSON is parsed)."""
    found = {}
    for key, name in LISTING_FILES.items():
        if name in files:
            try:
                found[key] = decode(files[name])
            except ListingRefused as exc:
                raise ListingRefused(f"{name} is refused: {exc}") from exc
    return found
