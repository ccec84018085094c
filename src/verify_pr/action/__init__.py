"""The verify step of the GitHub Action (``python -I -m verify_pr.action``, run by ``entrypoint``).

This step holds the PR's code, so it must hold no credential (the Rule of Two). It refuses to
run, and says how to fix the workflow, when the job visibly holds one
(``github.credentials``).

Then it runs ``verify-pr run`` (mode run) or ``verify-pr compare --git <checkout> --event
$GITHUB_EVENT_PATH`` (mode compare) in a child process (its output is untrusted: it goes to the
log only between ``::stop-commands::<random>`` markers), writes the job summary (rendered by
``verify_pr.render.job_summary``) and sets the outputs ``verdict``, ``status`` and ``out-dir``
(the folder the next step uploads). In mode compare that folder is flat:
``verify-pr-result.json``, ``compare_summary.md`` and ``base-``/``head-`` ``result.json``,
``verdict.json``, ``output.txt``, ``report.txt`` (``models.compare.COMPARE_ARTIFACT_FILES``), so
the publish job can allow-list it.

``python -m verify_pr.action check-pull`` validates a digest-pinned image reference for the
opt-in ``docker pull`` step and refuses tags; ``build-image`` builds the image from base's
Dockerfile.

One module per job: ``entry`` (arguments, errors to exit codes), ``step`` (the verify step:
launch the verifier, read its verdict), ``commands`` (the verifier's command line),
``outputs`` (step outputs, the untrusted log, the flat upload folder), ``image`` and
``base_image`` (the opt-in pull and the build from base's Dockerfile).

Exit codes (``entry``, ``exit_codes.StepExit``): 0 a verdict was written (the action's last
step turns it into the job result), 2 refused (settings, credentials, inputs the verifier
refused), 3 BLOCKED (the test image could not be built), 5 crashed (the verifier crashed or
wrote no verdict).
"""

from verify_pr.action.commands import HOST_PYTHON, compare_argv, runner_cpus, verifier_argv
from verify_pr.action.entry import main
from verify_pr.action.image import build_image, check_pull_image
from verify_pr.action.outputs import (
    COUNT_OUTPUTS,
    COVERAGE_OUTPUTS,
    compare_status,
    fail_to_pass_output,
    flatten_compare,
    set_count_outputs,
)
from verify_pr.action.step import run

__all__ = [
    "COUNT_OUTPUTS",
    "COVERAGE_OUTPUTS",
    "HOST_PYTHON",
    "build_image",
    "check_pull_image",
    "compare_argv",
    "compare_status",
    "fail_to_pass_output",
    "flatten_compare",
    "main",
    "run",
    "runner_cpus",
    "set_count_outputs",
    "verifier_argv",
]
