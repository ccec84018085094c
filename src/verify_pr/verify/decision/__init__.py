"""The verdict of a compare from the stages' hand-offs, and what the summary lists."""
