"""One module per test runner behind the ``Runner`` protocol (runners/base.py)."""
