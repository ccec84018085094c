"""What verify-pr sends to the Checks API: conclusion, output and annotations.

Plain values that build their own JSON payloads and clip to GitHub's limits: output summary
and text at 65535 **bytes** each (fitted by ``render.fit_markdown``, closing an open fence and
adding a notice), annotation title at 255 characters, message and raw details at 64 KB.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from verify_pr.markdown import CHECK_RUN_TEXT_MAX_BYTES, fit_markdown
from verify_pr.utf8 import cut_utf8

ANNOTATIONS_PER_REQUEST = 50
ANNOTATION_TITLE_MAX_CHARS = 255
ANNOTATION_MESSAGE_MAX_BYTES = 64 * 1024


class Conclusion(StrEnum):
    """The conclusions verify-pr gives a check run (GitHub's others are never ours to give)."""

    ACTION_REQUIRED = "action_required"
    FAILURE = "failure"
    NEUTRAL = "neutral"
    SUCCESS = "success"


class CheckAnnotationLevel(StrEnum):
    """The Checks API annotation levels verify-pr uses: a failing test's line; a changed line
    nothing ran (patch coverage: information only)."""

    FAILURE = "failure"
    NOTICE = "notice"


@dataclass(frozen=True)
class Annotation:
    """One check-run annotation; texts are clipped to GitHub's limits when sent."""

    path: str
    start_line: int
    end_line: int
    level: CheckAnnotationLevel
    message: str
    title: str | None = None
    raw_details: str | None = None

    def __post_init__(self) -> None:
        if not self.path or self.start_line < 1 or self.end_line < self.start_line:
            raise ValueError(f"bad annotation location {self.path!r}:{self.start_line}")
        if not self.message:
            raise ValueError("an annotation needs a message")

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "annotation_level": self.level.value,
            "message": cut_utf8(self.message, ANNOTATION_MESSAGE_MAX_BYTES),
        }
        if self.title:
            body["title"] = self.title[:ANNOTATION_TITLE_MAX_CHARS]
        if self.raw_details:
            body["raw_details"] = cut_utf8(self.raw_details, ANNOTATION_MESSAGE_MAX_BYTES)
        return body


@dataclass(frozen=True)
class CheckOutput:
    """Title, summary and text of a check run; summary and text are fitted to 65535 bytes.

    Render with ``verify_pr.markdown`` first; the fit here is a safety net.
    """

    title: str
    summary: str
    text: str | None = None

    def payload(self, annotations: Sequence[Annotation] = ()) -> dict[str, Any]:
        body: dict[str, Any] = {
            "title": self.title,
            "summary": fit_markdown(self.summary, CHECK_RUN_TEXT_MAX_BYTES)[0],
        }
        if self.text is not None:
            body["text"] = fit_markdown(self.text, CHECK_RUN_TEXT_MAX_BYTES)[0]
        if annotations:
            body["annotations"] = [annotation.payload() for annotation in annotations]
        return body
