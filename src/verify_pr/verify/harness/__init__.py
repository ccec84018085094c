"""The harness: the files that decide how the tests run, by name and by what they reach."""
