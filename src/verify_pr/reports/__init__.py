"""Strict, capped report parsers: JUnit XML and jest/vitest JSON."""
