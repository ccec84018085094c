# The loopback GitHub API fake (tests/github_fake) as a plugin; its fixtures start it on demand.
pytest_plugins = ["tests.github_fake.fixtures"]
