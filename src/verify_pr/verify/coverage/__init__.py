"""Which changed lines the runs executed: patch coverage, for compare and for run."""
