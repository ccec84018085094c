"""The benchmark tools time the compare by wrapping its phases where the compare looks them
up: a restructured compare must fail here, not leave a tool that breaks when next measured."""

from __future__ import annotations

from bench import compare_floor, compare_profile


def test_every_phase_the_profile_wraps_is_there() -> None:
    hooks = compare_profile.hooks()
    assert len(hooks) >= 5
    missing = [
        f"{m.__name__}.{name}" for m, name, _ in hooks if not callable(getattr(m, name, None))
    ]
    assert missing == []


def test_the_floor_times_the_one_way_into_a_sandbox() -> None:
    owner, name = compare_floor.timed_method()
    assert callable(getattr(owner, name, None))
