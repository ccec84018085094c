"""One sandbox, the same command N times: the proof's re-runs without a sandbox per repetition.

The sandbox returns one report (its contract: one path), so the command runs each repetition
with its own random report path, keeps each report aside, and writes one combined report:
each repetition's report after a line that names it with a random mark. Each repetition but
the first (which gets the sandbox's own fresh copy) runs on a fresh copy of the tree and an
empty /tmp, and under the run's own timeout, as a sandbox of its own would: what one
repetition leaves behind on disk cannot carry into the next. Processes a repetition leaves
running are not ended before the next one starts (the sandbox ends them all at its end).

A report part that is missing (the runner wrote none, or the reset between repetitions
failed) comes back as None: the caller counts that repetition as not run.
"""

from __future__ import annotations

import re
import secrets
import shlex
from dataclasses import dataclass

from verify_pr.contract import MAX_TIMEOUT_S, new_report_path
from verify_pr.verify.suite import SuitePlan

# Set aside outside /work (which each repetition empties), under a random name so the tree
# cannot plant it; a test that reads the name from the command line can change what is there
# (the residual every report has: the checked code runs as the same user as the runner).
_KEEP = "/tmp/vpr-repeat-{token}"  # noqa: S108 (inside the container, a random name)

# Everything the previous repetition wrote goes (the tree, HOME=/work, /tmp but the reports
# set aside); a folder a test made unwritable is made writable first.
_RESET = (
    "cd / && chmod -R u+rwX /work 2>/dev/null; "
    "rm -rf /work/* /work/.[!.]* /work/..?* 2>/dev/null; "
    'for f in /tmp/* /tmp/.[!.]* /tmp/..?*; do [ "$f" = {keep} ] || rm -rf "$f"; done '
    '2>/dev/null; [ -z "$(ls -A /work)" ] && cp -R /repo/. /work/ && cd /work'
)


_KILLED = 137  # timeout -s KILL's status when the time ran out (128 + SIGKILL)
COMBINED = "repeated"  # the sandbox plan's parse name: not a runner's, so never parsed whole


@dataclass(frozen=True)
class Repeated:
    """The sandbox's plan (the loop, and the combined report's path) and how to split it."""

    plan: SuitePlan
    mark: str
    times: int
    timeout_s: int  # the sandbox's: each repetition's own timeout, times ``times``


def repeated(plan: SuitePlan, words: str, times: int, timeout_s: int) -> Repeated:
    """``plan``'s command with ``words`` appended, ``times`` times in one sandbox."""
    if times < 1:
        raise ValueError("a repeated run needs at least one repetition")
    suffix = plan.report_path[plan.report_path.rindex(".") :]
    keep = _KEEP.format(token=secrets.token_hex(16))
    mark = f"vpr-repeat-{secrets.token_hex(16)}"
    combined = new_report_path(suffix)
    steps = [f"mkdir -m 700 {keep} || exit 125"]
    # the selection is said once (the positional parameters), not once per repetition: a
    # long list of ids times the repetitions could pass the kernel's cap on one argument
    if words:
        steps.append(f"set -- {words}")
    for index in range(1, times + 1):
        path = new_report_path(suffix)
        command = plan.command.replace(plan.report_path, path) + (' "$@"' if words else "")
        run = f"timeout -s KILL {timeout_s} /bin/sh -c {shlex.quote(command)}"
        run += ' vpr-repeat "$@"' if words else ""
        # a repetition its timeout killed is not run, whatever report it left (as a sandbox
        # that timed out): its part is dropped
        keep_it = f"[ $? = {_KILLED} ] || cp {path} {keep}/{index} 2>/dev/null"
        if index == 1:
            steps.append(f"{run}; {keep_it}")
        else:
            reset = _RESET.format(keep=keep)
            steps.append(f"if {reset}; then {run}; {keep_it}; fi")
    parts = "; ".join(
        f"printf '\\n%s %d\\n' {mark} {i}; cat {keep}/{i} 2>/dev/null" for i in range(1, times + 1)
    )
    steps.append(f"cd /work 2>/dev/null; {{ {parts}; }} > {combined}; exit 0")
    # no parser reads the combined report whole (``split`` does, then the run's own parser)
    sandbox_plan = SuitePlan(plan.runner, "\n".join(steps), combined, COMBINED)
    return Repeated(sandbox_plan, mark, times, min(MAX_TIMEOUT_S, timeout_s * times + 30))


def split(data: bytes, repeated_run: Repeated) -> list[bytes | None]:
    """Each repetition's report, in order; None for one that is missing or empty."""
    mark = re.escape(repeated_run.mark.encode())
    pieces = re.split(rb"\n" + mark + rb" ([0-9]{1,3})\n", data)
    if pieces[0] != b"":
        return [None] * repeated_run.times  # something before the first part: not ours
    found: dict[int, bytes] = {}
    for number, body in zip(pieces[1::2], pieces[2::2], strict=True):
        index = int(number)
        if index in found or not 1 <= index <= repeated_run.times:
            return [None] * repeated_run.times  # a part twice or out of range: not ours
        found[index] = body
    return [found.get(i) or None for i in range(1, repeated_run.times + 1)]
