"""Walk a JSON document in chunks: the caller steps into the containers it wants (the
report's list of suites, each suite's list of results) and every other value is decoded whole
by the json module, with a size cap. Memory holds one value, never the document.

Strict on the way: duplicate keys, NaN/Infinity, bad UTF-8 and trailing data are refused.
Keys are tracked per object as it is walked (a stepped-into object's own set; the pairs hook
for a value decoded whole): a key twice in one object makes readers disagree on which one
counts (we would read the last ``"success"``, another tool the first), so the report says two
things and is refused.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from verify_pr.errors import ReportError

CHUNK_CHARS = 1024 * 1024
_WS = re.compile(r"[ \t\n\r]*")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_lone_surrogate(value: Any) -> bool:  # noqa: ANN401 - any decoded JSON value
    if isinstance(value, str):
        return _LONE_SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


class _Refused(Exception):
    """A hook's refusal: not a cut-off value, so no more of the file is read."""


def _twice(key: str) -> str:
    return f"key {key[:80]!r} appears twice in one object"


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(_twice(key))
        out[key] = value
    return out


def _no_constant(name: str) -> Any:  # noqa: ANN401 - json's hook signature
    raise _Refused(f"{name} is not JSON")


class JsonStream:
    def __init__(self, stream: BinaryIO, what: str, value_cap: int) -> None:
        self._raw = stream
        self._what = what
        self._cap = value_cap
        self._utf8 = codecs.getincrementaldecoder("utf-8")("strict")
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._decoder = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)

    def error(self, why: str) -> ReportError:
        return ReportError(f"{self._what}: {why}")

    def _fill(self) -> bool:
        """Read one more chunk; False at the end of the file."""
        if self._eof:
            return False
        raw = self._raw.read(CHUNK_CHARS)
        try:
            text = self._utf8.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise self.error("not UTF-8") from exc
        self._eof = not raw
        self._buf = self._buf[self._pos :] + text
        self._pos = 0
        return True

    def peek(self) -> str:
        """The next non-space character, or "" at the end of the file."""
        while True:
            match = _WS.match(self._buf, self._pos)
            self._pos = match.end() if match else self._pos
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._fill():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected {char!r} in the JSON structure")
        self._pos += 1

    def value(self) -> Any:  # noqa: ANN401 - any JSON value; the caller validates it
        self.peek()
        while True:
            try:
                value, end = self._decoder.raw_decode(self._buf, self._pos)
            except RecursionError as exc:
                raise self.error("JSON nested too deeply") from exc
            except _Refused as exc:
                raise self.error(str(exc)) from exc
            except ValueError as exc:
                if len(self._buf) - self._pos > self._cap:
                    raise self.error(f"one JSON value is over {self._cap} characters") from exc
                if self._fill():
                    continue
                raise self.error(f"not valid JSON ({str(exc)[:200]})") from exc
            if end == len(self._buf) and not self._eof and self._fill():
                continue  # a number at the end of a chunk may go on in the next one
            # A pair of escapes is one character; a lone half is not text (pydantic's rule too).
            if _SURROGATE_ESCAPE.search(self._buf, self._pos, end) and _has_lone_surrogate(value):
                raise self.error("a string holds a lone surrogate (not valid Unicode)")
            self._pos = end
            return value

    def key(self) -> str:
        key = self.value()
        if not isinstance(key, str):
            raise self.error("an object key is not a string")
        self.expect(":")
        return key

    def object_keys(self) -> Iterator[str]:
        """Step into an object: yields each key; the caller reads its value before the next."""
        self.expect("{")
        seen: set[str] = set()
        if self.peek() == "}":
            self._pos += 1
            return
        while True:
            key = self.key()
            if key in seen:
                raise self.error(_twice(key))
            seen.add(key)
            yield key
            nxt = self.peek()
            self._pos += 1
            if nxt == "}":
                return
            if nxt != ",":
                raise self.error("expected ',' or '}' in an object")

    def array_items(self) -> Iterator[None]:
        """Step into an array: yields once per item; the caller reads the item each time."""
        self.expect("[")
        if self.peek() == "]":
            self._pos += 1
            return
        while True:
            yield None
            nxt = self.peek()
            self._pos += 1
            if nxt == "]":
                return
            if nxt != ",":
                raise self.error("expected ',' or ']' in an array")

    def finish(self) -> None:
        if self.peek() != "":
            raise self.error("data after the JSON document")
