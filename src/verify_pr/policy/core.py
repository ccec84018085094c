"""Rules, findings and their composition (after sigstore-python's ``verify/policy.AllOf``).

A ``Rule`` is a name and a pure check over a subject that says what is wrong (empty: nothing);
``AllOf`` applies every rule it holds and keeps every finding (no short cut, so a forged
artifact is told all it breaks); ``Each`` applies a policy to each part of a subject (the runs
of a comparison). ``names`` lists every rule a policy holds, so a test can require one forgery
per rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")
U = TypeVar("U")
T_contra = TypeVar("T_contra", contravariant=True)


@dataclass(frozen=True)
class Finding:
    """One rule the subject breaks: the rule's name and what it says, for a person."""

    rule: str
    message: str


class Policy(Protocol[T_contra]):
    def __call__(self, subject: T_contra) -> list[Finding]: ...

    def names(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Rule(Generic[T]):
    """A named check: the messages of what ``subject`` breaks (empty when it holds)."""

    name: str
    check: Callable[[T], Iterable[str]]

    def __call__(self, subject: T) -> list[Finding]:
        return [Finding(self.name, message) for message in self.check(subject)]

    def names(self) -> tuple[str, ...]:
        return (self.name,)


@dataclass(frozen=True)
class AllOf(Generic[T]):
    """Every rule holds: the findings of all of them, in order."""

    rules: tuple[Policy[T], ...]

    def __call__(self, subject: T) -> list[Finding]:
        return [finding for rule in self.rules for finding in rule(subject)]

    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(name for rule in self.rules for name in rule.names()))


@dataclass(frozen=True)
class Each(Generic[T, U]):
    """``policy`` holds for each part ``parts`` takes from the subject."""

    parts: Callable[[T], Iterable[U]]
    policy: Policy[U]

    def __call__(self, subject: T) -> list[Finding]:
        return [finding for part in self.parts(subject) for finding in self.policy(part)]

    def names(self) -> tuple[str, ...]:
        return self.policy.names()
