"""action.yml inputs, the settings models, the docs and the lock file stay in step."""

from __future__ import annotations

import re
import tomllib

from tests.action.helpers import EXAMPLES, PUBLISH_ACTION, ROOT, VERIFY_ACTION, load
from verify_pr.github.settings import Settings, VerifySettings

RUNNER_FIELDS = {"workspace", "runner_temp", "event_path"}
DOC = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")


def _doc_inputs(section: str) -> set[str]:
    body = DOC.split(section, 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([a-z-]+)` \|", body, re.MULTILINE))


def test_verify_inputs_match_settings_and_docs() -> None:
    inputs = set(load(VERIFY_ACTION)["inputs"])
    fields = {f.replace("_", "-") for f in VerifySettings.model_fields} - {
        f.replace("_", "-") for f in RUNNER_FIELDS
    }
    assert inputs == fields
    assert inputs == _doc_inputs("## Inputs of the verify action")


def test_every_verify_input_reaches_the_step_through_env() -> None:
    (step,) = [s for s in load(VERIFY_ACTION)["runs"]["steps"] if s.get("id") == "verify"]
    for name in load(VERIFY_ACTION)["inputs"]:
        assert step["env"][f"INPUT_{name.upper()}"] == f"${{{{ inputs.{name} }}}}"


def test_publish_inputs_match_settings_and_docs() -> None:
    inputs = set(load(PUBLISH_ACTION)["inputs"])
    fields = {"github-token", "check-name", "artifact-name", "protected-paths"}
    assert {"token", "check_name", "artifact_name", "protected_paths"} <= set(Settings.model_fields)
    assert inputs == fields == _doc_inputs("## Inputs of the publish action")
    (step,) = [s for s in load(PUBLISH_ACTION)["runs"]["steps"] if "verify_pr.publish" in s["run"]]
    assert {f"INPUT_{name.upper()}" for name in inputs} == set(step["env"])


def test_outputs_are_documented() -> None:
    for name in load(VERIFY_ACTION)["outputs"]:
        assert f"`{name}`" in DOC


def test_docs_embed_the_example_files_verbatim() -> None:
    for example in EXAMPLES:
        assert f"```yaml\n{example.read_text(encoding='utf-8')}```" in DOC, example.name


def test_lock_covers_the_runtime_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lock = (ROOT / "requirements" / "action.txt").read_text(encoding="utf-8")
    pinned = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+) \\$", lock, re.MULTILINE))
    normal = {k.lower().replace("_", "-"): v for k, v in pinned.items()}
    for requirement in project["dependencies"]:
        name, version = requirement.split("==")
        assert normal.get(name.lower()) == version, requirement
    # The install copies the package instead of building it: no build backend in the lock.
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    for requirement in build["requires"]:
        assert requirement.split("==")[0].lower() not in normal, requirement
    # every pinned package carries at least one sha256 hash
    blocks = re.split(r"\n(?=[A-Za-z0-9])", lock.split("\n", 4)[-1])
    for block in blocks:
        if "==" in block:
            assert "--hash=sha256:" in block, block.split("\n", 1)[0]


def test_install_is_hash_checked() -> None:
    script = (ROOT / "scripts" / "action_install.sh").read_text(encoding="utf-8")
    assert "--require-hashes" in script and "--only-binary :all:" in script
    assert "--no-deps" in script
    # The package is copied from the action's src/, never built: no backend runs at install.
    assert '"$root"\n' not in script and "--no-build-isolation" not in script


def test_compare_artifact_names_follow_the_verifier_and_fit_the_intake() -> None:
    from verify_pr.contract import COMPARE_RESULT_FILE as COMPARE_FILE
    from verify_pr.contract import COMPARE_SUMMARY_FILE as COMPARE_SUMMARY
    from verify_pr.contract import SANDBOX_OUT_FILES as OUT_FILES
    from verify_pr.contract import VERDICT_FILE
    from verify_pr.models.compare import COMPARE_ARTIFACT_FILES, SIDE_FILES, side_file
    from verify_pr.models.listing import LISTING_FILES
    from verify_pr.publish.artifact import DEFAULT_LIMITS
    from verify_pr.publish.main import ARTIFACT_FILES
    from verify_pr.verify.cli import COMPARE_OUT

    # the folders verify-pr compare writes hold exactly the files the action flattens
    assert set(SIDE_FILES) == OUT_FILES | {VERDICT_FILE}
    # base-own (base's code with base's own tests) stays local: it is embedded in the result
    # and a wide run's listings are top-level files, uploaded as they are
    listings = set(LISTING_FILES.values())
    assert {COMPARE_FILE, COMPARE_SUMMARY, "base", "head", "base-own", *listings} == COMPARE_OUT
    assert listings <= COMPARE_ARTIFACT_FILES
    assert {COMPARE_FILE, COMPARE_SUMMARY} <= COMPARE_ARTIFACT_FILES
    assert side_file("head", "verdict.json") == "head-verdict.json"
    # a run artifact and a compare artifact share no name; every name is flat
    assert not ARTIFACT_FILES & COMPARE_ARTIFACT_FILES
    assert all("/" not in name for name in COMPARE_ARTIFACT_FILES)
    assert len(ARTIFACT_FILES | COMPARE_ARTIFACT_FILES) <= DEFAULT_LIMITS.max_members


def test_compare_mode_is_documented_with_fetch_depth_0() -> None:
    assert "`strict-harness`" in DOC and "fetch-depth: 0" in DOC
    (example,) = [e for e in EXAMPLES if e.name == "verify-pr-compare.yml"]
    steps = load(example)["jobs"]["verify"]["steps"]
    assert steps[0]["with"]["fetch-depth"] == 0
    assert steps[0]["with"]["persist-credentials"] is False
    assert steps[1]["with"]["mode"] == "compare"


def test_every_output_is_set_by_the_verify_step() -> None:
    """Each output of action.yml reads an output the verify step's code sets, and back."""
    from verify_pr.action import COUNT_OUTPUTS, COVERAGE_OUTPUTS

    package = ROOT / "src" / "verify_pr" / "action"
    source = "".join(p.read_text(encoding="utf-8") for p in sorted(package.glob("*.py")))
    set_names = set(re.findall(r'set_output\("([a-z-]+)"', source))
    set_names |= set(COUNT_OUTPUTS) | set(COVERAGE_OUTPUTS)
    read = set()
    for name, output in load(VERIFY_ACTION)["outputs"].items():
        match = re.fullmatch(r"\$\{\{ steps\.verify\.outputs\.([a-z-]+) \}\}", output["value"])
        assert match, name
        read.add(match.group(1))
    assert read <= set_names, read - set_names
    assert set_names <= read, set_names - read


def test_refused_and_crashed_statuses_are_documented() -> None:
    status = load(VERIFY_ACTION)["outputs"]["status"]["description"]
    for value in ("refused", "crashed"):
        assert f"`{value}`" in status and f"`{value}`" in DOC


def test_readme_embeds_the_two_workflows_ci_runs_verbatim() -> None:
    """The two files, and the first one in mode compare."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("verify-pr.yml", "verify-pr-publish.yml", "verify-pr-compare.yml"):
        example = (ROOT / "docs" / "examples" / name).read_text(encoding="utf-8")
        assert f"```yaml\n{example}```" in readme, name
    for picture in ("verified-check.png", "not-proven-check.png", "verified-summary.png"):
        assert f"(docs/pictures/{picture})" in readme
        assert (ROOT / "docs" / "pictures" / picture).is_file()
