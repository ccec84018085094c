"""bun_markers: a bun test file that leaves an inverted status possible is doubtful."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_pr.verify.pairing.bun_markers import doubtful


@pytest.mark.parametrize(
    ("text", "doubt"),
    [
        ('test("a", () => {});\n', False),
        ("const { failing } = test;\n", True),
        ("const {failing: f} = test;\n", True),
        ('test["fail" + "ing"]("a", f);\n', True),
        ("it.todo('later');\n", True),
        ("const t = test; t.failing('a', f);\n", True),
    ],
)
def test_a_file_that_could_mark_a_test_is_doubtful(tmp_path: Path, text: str, doubt: bool) -> None:
    (tmp_path / "a.test.js").write_text(text)
    assert ("a.test.js" in doubtful(tmp_path, ["a.test.js"])) is doubt


def test_a_file_that_cannot_be_read_is_doubtful(tmp_path: Path) -> None:
    (tmp_path / "link.test.js").symlink_to("/etc/passwd")
    found = doubtful(tmp_path, ["missing.test.js", "link.test.js", "../x.test.js", None])
    assert set(found) == {"missing.test.js", "link.test.js", "../x.test.js"}


PLAIN_TEST = (
    'import { expect } from "bun:test";\nimport { check } from "./helper";\ncheck("a", f);\n'
)


@pytest.mark.parametrize(
    ("files", "doubt"),
    [
        (
            {
                "helper.ts": 'import { test } from "bun:test";\nexport const check = (n, f) => test(n, f);\n'
            },
            False,
        ),
        ({"helper.ts": 'import { test } from "bun:test";\nexport const check = test;\n'}, True),
        (
            {"helper.ts": 'import { test } from "bun:test";\nexport const check = test.failing;\n'},
            True,
        ),
        (
            {
                "helper.ts": 'export { check } from "./lib/inner.js";\n',
                "lib/inner.js": "const { failing: check } = test;\n",
            },
            True,
        ),
        (
            {
                "helper.ts": 'export { check } from "./lib/inner.js";\n',
                "lib/inner.ts": "export const check = 1;\n",
            },
            False,
        ),
        (
            {"helper.ts": 'import { test as t } from "bun:test";\nexport const check = t["x"];\n'},
            True,
        ),
        ({"helper.ts": "const t = test;\nexport const check = t;\n"}, True),
        ({"helper/index.js": 'export const check = require("./" + name);\n'}, True),
        ({"helper.ts": 'export { check } from "../outside.js";\n'}, True),
        ({"helper.ts": 'export { check } from "./gone.js";\n'}, True),
        ({"helper.ts": 'export { check } from "pkg";\n', "node_modules/pkg/index.js": "x\n"}, True),
        ({"helper.ts": 'export { check } from "pkg";\n'}, False),  # the image's, not the PR's
        (
            {
                "helper.ts": 'export { check } from "@/lib";\n',
                "tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}',
            },
            True,
        ),
        ({"helper.ts": 'export { check } from "#lib";\n'}, True),
        ({"helper.ts": 'export { check } from "node:util";\n'}, False),
        # product code that says todo (a to-do list) hands nothing on
        (
            {
                "helper.ts": 'import { todos } from "./todo";\nexport const check = (n, f) => test(n, f);\n',
                "todo.ts": "export const todos = [{ todo: 'x', failing: false }];\nconst n = list.todo;\n",
            },
            False,
        ),
        (
            {
                "helper.ts": 'export { default as check } from "./inner";\n',
                "inner.ts": "export default test;\n",
            },
            True,
        ),
        (
            {
                "helper.ts": 'import { kit } from "./inner";\nexport const check = kit.t;\n',
                "inner.ts": "export const kit = { t: test };\n",
            },
            True,
        ),
        ({"helper.ts": 'export const check = test["fail" + "ing"];\n'}, True),
        (
            {
                "helper.ts": 'import { test as t } from "bun:test";\nexport const check = (n, f) => t(n, f);\n'
            },
            True,
        ),
    ],
)
def test_a_marker_a_helper_module_could_hand_over_is_doubtful(
    tmp_path: Path, files: dict[str, str], doubt: bool
) -> None:
    """The test file says nothing; what it imports is read, and what cannot be followed is
    doubtful (issue 33, class 5)."""
    for name, text in {
        "t/a.test.ts": PLAIN_TEST,
        **{f"t/{k}": v for k, v in files.items()},
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    if "t/tsconfig.json" in {f"t/{k}" for k in files}:
        (tmp_path / "tsconfig.json").write_text(files["tsconfig.json"])
    assert ("t/a.test.ts" in doubtful(tmp_path, ["t/a.test.ts"])) is doubt
