"""One run of a suite through the sandbox, judged from its report alone."""
