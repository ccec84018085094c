"""The steps of ``tests/images/build.py``, one module per job (see that script)."""
