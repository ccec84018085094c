"""The publish job: artifact intake, rendering, and the REST client. Never runs PR code.

It may import ``verify_pr.models``, ``verify_pr.github`` and ``verify_pr.errors`` only: never
``verify_pr.sandbox`` or ``verify_pr.runners``.
"""
