"""Presentation: every message verify-pr shows a person, rendered from the models; no I/O.

One place for the verdict texts (``verdicts``) and the pieces every summary shares
(``parts``, ``proof``), and one module per output: the run CLI's lines (``terminal``),
``compare_summary.md`` (``compare_markdown``), the action's job summary (``job_summary``) and
the check run's sections (``check_run``). Golden files in ``tests/golden`` pin each output.

Neutral: both the verifier and the token-holding publish job use it, so it imports the models,
``verify_pr.markdown`` and itself only (``tests/unit/test_layers.py``).
"""
