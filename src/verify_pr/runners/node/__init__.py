"""What the JavaScript runners share: the tree's package probe, coverage, the expected-failure
recorders (JavaScript files installed into the container's /tmp) and selection by name."""
