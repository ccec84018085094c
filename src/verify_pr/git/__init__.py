"""Hardened git (``hardened``) and safe extraction of the trees it exports (``archive``)."""
