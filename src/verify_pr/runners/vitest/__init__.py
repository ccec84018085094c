"""vitest: its runner and the config file names it and vite read."""
