"""pytest: its runner, its config files as pytest reads them, the tree's packages, coverage."""
