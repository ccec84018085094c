"""Per rule of the verdict's policy, a forged artifact that breaks only that rule is refused by
the publish job's intake, with the rule's message; the honest artifacts it is forged from are
accepted (the positive controls). The forgeries are generated from the policy's rule list
(``forgery_helpers``): a rule without one fails here."""

from __future__ import annotations

import pytest

from tests.action.compare_builders import compare_files
from tests.action.helpers import HEAD_SHA
from tests.unit.policy.forgery_helpers import (
    ALSO,
    COMPARE_FORGERIES,
    RUN_FORGERIES,
    honest_nothing,
    honest_run,
    honest_verified,
)
from verify_pr.models.verdict import VerdictFile
from verify_pr.policy.core import AllOf, Finding, Rule
from verify_pr.policy.run import RUN, Run
from verify_pr.policy.verdict import POLICY, refusals, supported
from verify_pr.publish.intake import Accepted, Refused, validate_artifact


def _run_files(verdict: VerdictFile) -> dict[str, bytes]:
    return {
        "result.json": verdict.sandbox.model_dump_json().encode(),
        "verdict.json": verdict.model_dump_json().encode(),
    }


def test_every_rule_has_a_forgery_and_every_forgery_a_rule() -> None:
    rules = set(POLICY.names())
    assert set(RUN.names()) <= rules  # a comparison's runs answer to the run rules
    assert set(RUN_FORGERIES) | set(COMPARE_FORGERIES) == rules
    assert not set(RUN_FORGERIES) & set(COMPARE_FORGERIES)
    assert len(POLICY.names()) == len(rules), "a rule name is used twice"


def test_the_registry_check_sees_a_rule_without_a_forgery() -> None:
    """Positive control: a policy with one more rule has a name no forgery covers."""
    grown = AllOf((POLICY, Rule("clean.new", lambda _: [])))
    assert set(grown.names()) - set(RUN_FORGERIES) - set(COMPARE_FORGERIES) == {"clean.new"}


def test_the_honest_artifacts_are_accepted() -> None:
    assert RUN(Run(honest_run())) == []
    for honest in (honest_verified(), honest_nothing()):
        assert refusals(honest) == [], refusals(honest)
        assert supported(honest) is honest.verdict
        assert isinstance(validate_artifact(compare_files(honest), HEAD_SHA), Accepted)
    assert isinstance(validate_artifact(_run_files(honest_run()), HEAD_SHA), Accepted)


def _only(found: list[Finding], rule: str) -> None:
    names = {f.rule for f in found}
    assert rule in names, found
    assert names <= {rule} | ALSO.get(rule, frozenset()), found


@pytest.mark.parametrize("rule", sorted(RUN_FORGERIES))
def test_a_run_that_breaks_one_rule_is_refused(rule: str) -> None:
    forged = RUN_FORGERIES[rule]()
    found = RUN(Run(forged))
    _only(found, rule)
    intake = validate_artifact(_run_files(forged), HEAD_SHA)
    assert isinstance(intake, Refused), intake
    assert intake.reason.startswith("the artifact contradicts itself"), intake.reason
    assert found[0].message in intake.reason


@pytest.mark.parametrize("rule", sorted(COMPARE_FORGERIES))
def test_a_comparison_that_breaks_one_rule_is_refused(rule: str) -> None:
    forged = COMPARE_FORGERIES[rule]()
    found = refusals(forged)
    _only(found, rule)
    intake = validate_artifact(compare_files(forged), HEAD_SHA)
    assert isinstance(intake, Refused), intake
    assert intake.reason.startswith("the artifact contradicts itself"), intake.reason
    assert next(f.message for f in found if f.rule == rule) in intake.reason
