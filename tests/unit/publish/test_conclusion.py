"""Every check-run conclusion verify-pr defines is one it gives: the enum holds no dead member."""

from __future__ import annotations

from verify_pr.models.compare import CompareVerdict
from verify_pr.models.verdict import Verdict
from verify_pr.publish.checks import Conclusion
from verify_pr.publish.conclusion import conclude
from verify_pr.publish.trust import Trust

TRUSTS = (Trust(), Trust(reasons=["a protected path changed"]))


def test_every_conclusion_is_given_by_some_verdict_and_trust() -> None:
    given = {conclude(verdict, trust) for verdict in (*Verdict, None) for trust in TRUSTS}
    given |= {conclude(verdict, trust) for verdict in (*CompareVerdict, None) for trust in TRUSTS}
    assert given == set(Conclusion)


def test_an_untrusted_result_never_concludes_success_or_failure() -> None:
    """Positive control for the walk above: trust changes what it gives."""
    untrusted = {conclude(verdict, TRUSTS[1]) for verdict in Verdict}
    untrusted |= {conclude(verdict, TRUSTS[1]) for verdict in CompareVerdict}
    assert untrusted == {Conclusion.ACTION_REQUIRED}
