"""go test: detection, command, report parsing and the toolchain's facts about a tree."""
