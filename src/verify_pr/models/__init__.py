"""pydantic models for every file that crosses a trust boundary (strict, extra fields refused).

The publish side imports only this package: it must never import the sandbox or the runners.
"""
