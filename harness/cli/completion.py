"""Shell completion (click's): agent arguments complete to files, folders and built-in
names. Enable it with `eval "$(_PDHARNESS_COMPLETE=bash_source pdharness)"` (zsh_source,
fish_source for those shells); see docs/commands.md."""
from __future__ import annotations


def complete_agents(ctx, param, incomplete: str):
    from click.shell_completion import CompletionItem

    from harness.agents.builtins import BUILTINS

    names = [CompletionItem(name) for name in sorted(BUILTINS) if name.startswith(incomplete)]
    return names + [CompletionItem(incomplete, type="file")]
