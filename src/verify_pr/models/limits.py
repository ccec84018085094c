"""Size limits of reports, defined once (no pydantic here: the sandbox imports this early)."""

from __future__ import annotations

# The largest report the sandbox returns (wrapper.sh holds the same number as a literal, tested
# equal) and the most testcases a parsed report holds. A 250,000-case JUnit report from pytest
# is about 45 MiB; the output cap (--max-output) is separate.
MAX_REPORT_BYTES = 64 * 1024 * 1024
MAX_TESTCASES = 300_000
