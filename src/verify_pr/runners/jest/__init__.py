"""jest: its runner (the ``--json`` report, config files, tamper keys)."""
