"""The verifier layer: run a suite through the sandbox and judge it from its report only."""
