"""The trees a compare runs: built from fresh exports, then settled alike."""
