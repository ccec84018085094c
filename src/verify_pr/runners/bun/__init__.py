"""bun: its runner (``bun test`` with the JUnit reporter, bunfig.toml)."""
