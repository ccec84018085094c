"""What every hardened git command runs with: a scrubbed environment and ``-c`` overrides.

No tokens, no user or system config, an empty HOME, no prompts, no protocols; hooks, fsmonitor,
filters, LFS, submodules and protocols switched off on the command line; and the shadow's
highest-precedence attributes, which export every path byte for byte.
"""

from __future__ import annotations

from pathlib import Path

# Switched off on every command line (they also have nothing to act on in the shadow repo).
GIT_OVERRIDES: tuple[str, ...] = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "core.pager=cat",
    "core.askPass=",
    "core.sshCommand=false",
    "core.gitProxy=",
    "core.autocrlf=false",
    "core.eol=lf",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.protectNTFS=true",
    "core.protectHFS=true",
    "protocol.allow=never",
    "protocol.ext.allow=never",
    "protocol.file.allow=never",
    "submodule.recurse=false",
    "diff.external=",
    "diff.noprefix=false",
    "diff.renames=false",
    "diff.submodule=short",
    "filter.lfs.smudge=",
    "filter.lfs.clean=",
    "filter.lfs.process=",
    "filter.lfs.required=false",
    "uploadpack.packObjectsHook=",
    "credential.helper=",
    "tar.umask=0022",
    "merge.renormalize=false",
    "merge.conflictStyle=merge",
    "safe.directory=*",
)
# Highest-precedence attributes: every path is exported byte for byte, nothing is hidden;
# ``!merge`` leaves merges to git's built-in text/binary merge (no named driver can apply).
SHADOW_ATTRIBUTES = (
    "* -export-subst -export-ignore -filter -ident -text -eol -working-tree-encoding -diff !merge\n"
)


def git_env(home: Path) -> dict[str, str]:
    """Built from nothing: no token, no SSH agent, no GIT_* from the caller."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "LANG": "C",
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "/bin/false",
        "SSH_ASKPASS": "/bin/false",
        "GIT_SSH_COMMAND": "/bin/false",
        "GIT_ALLOW_PROTOCOL": "none",
        "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_LFS_SKIP_SMUDGE": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_NO_LAZY_FETCH": "1",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_CEILING_DIRECTORIES": "/",
    }
