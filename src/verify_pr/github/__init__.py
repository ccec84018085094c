"""GitHub Actions side: the runner's I/O protocol and the action settings."""
