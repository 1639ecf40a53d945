"""Each agent gets its own `random` module, seeded from the game seed.

Agents call `random.random()` and friends on the module. Handing each agent a private copy
whose functions are bound to its own generator means two agents in one process never share
random state, and an agent plays the same in the monitor's process as in its own.
"""
from __future__ import annotations

import builtins
import random as _random
import types


def private_random_module(rng: _random.Random) -> types.ModuleType:
    module = types.ModuleType("random", _random.__doc__)
    hidden = getattr(_random, "_inst", None)
    for name, value in vars(_random).items():
        if getattr(value, "__self__", None) is hidden and hidden is not None:
            value = getattr(rng, name)
        setattr(module, name, value)
    return module


def agent_builtins(random_module: types.ModuleType) -> dict:
    """Builtins whose `import random` (in any form) gives the agent its private module."""
    namespace = dict(vars(builtins))
    real_import = builtins.__import__

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "random" and level == 0:
            return random_module
        return real_import(name, globals, locals, fromlist, level)

    namespace["__import__"] = __import__
    return namespace


def fresh_namespace(module_name: str, path: str, rng: _random.Random) -> dict:
    """Globals for one fresh execution of an agent's module."""
    return {
        "__name__": module_name,
        "__file__": path,
        "__builtins__": agent_builtins(private_random_module(rng)),
    }
