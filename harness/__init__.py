"""pdharness: the Levinson Prisoner's Dilemma tournament monitor.

`import harness` stays light: the engine loads when it is first used.
"""
from harness.core.package import __version__

__all__ = ["monitor", "__version__"]


def monitor(flip_params, game_length, agents, **options):
    """Run the Levinson tournament; `[(name, score), ...]` best first. See harness.api."""
    from .api import monitor as run  # `import harness` stays light

    return run(flip_params, game_length, agents, **options)
