"""The proof: each FAIL_TO_PASS test re-run by id, and whether it ran changed code."""
