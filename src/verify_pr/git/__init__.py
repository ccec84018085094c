"""Hardened git (``hardened``, run with ``env``, the source read as data by ``source``) and safe
extraction of the trees it exports (``archive``)."""
