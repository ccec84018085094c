"""Size limits of reports, defined once (no pydantic here: the sandbox imports this early)."""

from __future__ import annotations

# The most testcases a parsed report holds (the byte cap, MAX_REPORT_BYTES, is the contract's).
MAX_TESTCASES = 300_000
