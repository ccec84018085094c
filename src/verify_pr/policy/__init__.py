"""The verdict's rules, written once, for both jobs (docs/layout.md).

Pure functions over the wire models (``models``): the verifier applies them where it decides
from the same data, and the publish job applies the same rules to the artifact it downloads
(attacker-controlled) and refuses it when the policy's conclusion differs from the artifact's
claim. Each rule is named and returns typed findings (``core.Finding``); rules compose with
``core.AllOf``. Below both jobs: imports only ``models``, ``contract`` and the standard library.
"""
