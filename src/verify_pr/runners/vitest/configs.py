"""The names of the files vitest reads its configuration from.

Below both its readers: the runner (detection) and the scan for config that runs code.
"""

from __future__ import annotations

_EXTS = ("ts", "mts", "cts", "js", "mjs", "cjs")
VITEST_CONFIGS = tuple(f"vitest.config.{e}" for e in _EXTS) + tuple(
    f"vitest.workspace.{e}" for e in (*_EXTS, "json")
)
# vitest reads vite's config too when it has none of its own.
VITE_CONFIGS = tuple(f"vite.config.{e}" for e in _EXTS)
