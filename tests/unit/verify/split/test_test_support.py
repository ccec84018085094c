"""test_support: the first guess of which folders hold tests or their support."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_pr.verify.split.test_support import is_support_dir, product_imports


@pytest.mark.parametrize(
    "name",
    [
        "Tests",
        "TESTS",
        "testing",
        "test_utils",
        "testutils",
        "test-utils",
        "TestHelpers",
        "spec",
        "__helpers__",
        "__mocks__",
        "fixtures",
        "integration_tests",
        "unit-tests",
    ],
)
def test_support_folders_in_any_case_and_spelling(name: str) -> None:
    assert is_support_dir(name)


@pytest.mark.parametrize("name", ["helpers", "src", "pathspec", "contest", "utils", "attest"])
def test_product_folders_stay_product(name: str) -> None:
    assert not is_support_dir(name)


def test_a_testing_package_the_product_imports_is_product(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "testing").mkdir(parents=True)
    (tmp_path / "pkg" / "core.py").write_text("import os\n")
    (tmp_path / "pkg" / "testing" / "x.py").write_text("from pkg.core import os\n")
    assert not product_imports(tmp_path, "pkg/testing")
    (tmp_path / "pkg" / "api.py").write_text("from pkg.testing import x\n")
    assert product_imports(tmp_path, "pkg/testing")
