"""verify-pr: run a pull request's tests in a locked-down sandbox and give an honest verdict."""

__version__ = "0.14.0"
