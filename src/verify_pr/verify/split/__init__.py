"""The PR's changed paths split into code and everything else (tests, data, support)."""
