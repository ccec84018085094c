"""The sandbox layer (VPR-1): run one untrusted command in a locked-down container.

The public entry is :func:`verify_pr.sandbox.run.run_sandbox`; the CLI is a thin shell around it.
"""
