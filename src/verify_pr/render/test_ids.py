"""A test id as the runner names it, for a person to read and paste.

The reports name a pytest test ``file::classname::name`` (JUnit's xunit1 fields: the classname
is the dotted module path and classes, ``tests/test_pricing.py::tests.test_pricing::test_x``);
pytest names it ``tests/test_pricing.py::test_x`` and takes that id on its command line. Only
the display changes: the results, the artifact and the rules keep the report's id.
"""

from __future__ import annotations


def runner_id(test_id: str) -> str:
    """``file::Class::name`` from ``file::module.Class::name`` when the classname is the file's
    module (or below it), ``file::name`` for an item of a file that is not Python; any other id
    (jest's, vitest's, an unusual classname) unchanged."""
    parts = test_id.split("::", 2)
    if len(parts) != 3:
        return test_id
    file, classname, name = parts
    if not file.endswith(".py"):  # an item of a text file a plugin collects: its whole path
        return f"{file}::{name}" if classname == file.replace("/", ".") else test_id
    module = file[: -len(".py")].replace("/", ".")
    if classname == module:
        return f"{file}::{name}"
    if classname.startswith(module + "."):
        return "::".join([file, *classname[len(module) + 1 :].split("."), name])
    return test_id
