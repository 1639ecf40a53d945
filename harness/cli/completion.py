"""Shell completion (click's): agent arguments complete to files, folders, built-in
names and `axelrod:NAME`. Enable it with `eval "$(_PDHARNESS_COMPLETE=bash_source pdharness)"`
(zsh_source, fish_source for those shells); see docs/commands.md."""
from __future__ import annotations

from harness.agents.builtins import BUILTINS


def complete_agents(ctx, param, incomplete: str):
    from click.shell_completion import CompletionItem  # `pdharness` starts light

    names = [CompletionItem(name) for name in sorted(BUILTINS) if name.startswith(incomplete)]
    if incomplete.startswith("axel"):   # axelrod:NAME, from the catalogue (no import)
        from harness.agents.axelrod_strategies import catalogue  # `pdharness` starts light

        names += [CompletionItem(strategy.spec) for strategy in catalogue().values()
                  if strategy.spec.startswith(incomplete) and not strategy.cheats]
    return names + [CompletionItem(incomplete, type="file")]
