"""Before against head, paired once, with what base's own run and the gone tests add."""
