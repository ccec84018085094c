"""A proof must run changed code: which FAIL_TO_PASS tests ran a line the PR changed.

A test that fails on base's code and passes on head proves a fix only if what differs between
the sides made the difference, and the only thing that differs is the content of the PR's code
files (``verify.sides``). So a proof counts only if its re-runs by id ran a line the PR changed
in a code file: on head an added or changed line, on before a line the PR removes or changes
(base's numbering), as the same tracer measured it on both sides (``coverage.patch.Session``;
docs/coverage.md, "A proof must run changed code").

- The PR changes no code file: no proof counts (NO_CODE), whatever the tests say.
- A re-run's data is its selection's: tests re-run together share what they ran.
- No data back from pytest's or jest's tracer (they write unless the PR's process ends
  itself first: ``os._exit`` after forging the report), data that is not our tracer's
  (refused by the strict parser), or a test beyond the re-run ones: no evidence, so no proof
  (NO_DATA, NOT_RERUN).
- The runner has no tracer verify-pr can read (bun, an own command), no measurable changed
  file, no re-runs at all (``--flake-runs 0``), a re-run of the whole suite (no selector
  reached the test: the suite's lines, not its own), or no data back from vitest (a config
  that cannot load our provider runs the suite again without it): NOT_MEASURED. The proof
  still counts, and the verdict's reason says that it was not measured. A re-run that came
  back with data showing no changed line makes NOT_RUN only when no other re-run of it is
  unknown.

The data comes from inside the PR's process, so it can be forged toward "ran": the rule only
ever takes proofs away.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from verify_pr.models.compare import MAX_PROOF_LINES, ChangedCode
from verify_pr.models.sandbox import ReportStatus
from verify_pr.policy.proof import counts

if TYPE_CHECKING:
    from verify_pr.verify.coverage.patch import Session
    from verify_pr.verify.proof.rerun import Confirmation, Rerun


@dataclass(frozen=True)
class ProofCode:
    state: ChangedCode
    lines: tuple[str, ...] = ()  # "head path:line" / "before path:line", the first ones


def assess(
    f2p: Sequence[str], code: Sequence[str], confirmation: Confirmation, session: Session
) -> dict[str, ProofCode]:
    """Each proof's standing, from its re-runs on both sides."""
    if not code:
        return {test_id: ProofCode(ChangedCode.NO_CODE) for test_id in f2p}
    if not confirmation.checked:
        return {test_id: ProofCode(ChangedCode.NOT_MEASURED) for test_id in f2p}
    found = {}
    for test_id in f2p:
        runs = [run for run in confirmation.runs if test_id in run.ids]
        found[test_id] = _one(runs, code, session) if runs else ProofCode(ChangedCode.NOT_RERUN)
    return found


def _one(runs: list[Rerun], code: Sequence[str], session: Session) -> ProofCode:
    from verify_pr.verify.coverage.patch import CoverageDataError, parse_line_data

    lines: list[str] = []
    unknown = refused = False
    for run in runs:
        spool = run.outcome.run.coverage
        tree = session.before_tree if run.on_before else session.after_tree
        if run.outcome.run.result.coverage is ReportStatus.NOT_REQUESTED:
            unknown = True  # no tracer for this runner or command
            continue
        if run.whole or tree is None:
            unknown = True  # the suite's lines, not its own
            continue
        if spool is None:
            # vitest runs the suite again without our provider when its config cannot load
            # it; any other tracer writes its data unless the PR's process ends itself first
            if session.may_drop:
                unknown = True
            else:
                refused = True
            continue
        try:
            data = parse_line_data(spool, session.files, tree)
        except (CoverageDataError, OSError):
            refused = True  # data came back that is not our tracer's
            continue
        wanted = session.removed if run.on_before else session.changed
        side = "before" if run.on_before else "head"
        for path in code:
            got = data.files.get(path)
            if got is not None:
                hits = sorted(got.run & set(wanted.get(path, ())))
                lines += [f"{side} {path}:{n}"[:300] for n in hits]
    if lines:
        return ProofCode(ChangedCode.RAN, tuple(dict.fromkeys(lines))[:MAX_PROOF_LINES])
    if refused:
        return ProofCode(ChangedCode.NO_DATA)
    return ProofCode(ChangedCode.NOT_MEASURED if unknown else ChangedCode.NOT_RUN)


_SAID = {
    ChangedCode.NOT_RUN: "ran none of the changed lines",
    ChangedCode.NO_DATA: "returned no coverage data, or data that is not the tracer's",
    ChangedCode.NOT_RERUN: "were not re-run by id",
    ChangedCode.NO_CODE: "ran no changed code",
}


def refusal(f2p: Sequence[str], found: Mapping[str, ProofCode] | None) -> str | None:
    """Why no FAIL_TO_PASS test proves the fix by this rule, or None when one does (or the
    rule was not applied: ``found`` None)."""
    if found is None or not f2p:
        return None
    states = [found[i].state if i in found else ChangedCode.NOT_RERUN for i in f2p]
    if any(counts(s) for s in states):
        return None
    if all(s is ChangedCode.NO_CODE for s in states):
        return (
            f"{len(f2p)} test(s) fail on base's code and pass on head, but the PR changes no "
            "code file (only tests, data, docs or configuration): no code path changed, so "
            "no test can prove a fix"
        )
    parts = []
    for state, said in _SAID.items():
        ids = [i for i, s in zip(f2p, states, strict=True) if s is state]
        if ids:
            shown = ", ".join(i[:120] for i in ids[:2]) + (" ..." if len(ids) > 2 else "")
            parts.append(f"{len(ids)} {said} ({shown})")
    return (
        "no FAIL_TO_PASS test ran a line the PR changed in a code file (traced in the "
        f"re-runs by id, on both sides): {'; '.join(parts)}"
    )


def note(f2p: Sequence[str], found: Mapping[str, ProofCode] | None) -> str:
    """What a VERIFIED reason adds: how many proofs ran changed code, or that it was not
    measured."""
    if found is None or not f2p:
        return ""
    ran = sum(1 for i in f2p if i in found and found[i].state is ChangedCode.RAN)
    if ran:
        return f"; {ran} of them ran a line the PR changed in a code file"
    return (
        "; which code they ran was not measured (no tracer verify-pr reads for this runner or "
        "file, no re-runs, or no data came back): not checked that they run changed code"
    )
