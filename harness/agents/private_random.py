"""Each agent gets its own `random` module, seeded from the game seed.

Agents call `random.random()` and friends on the module. Handing each agent a private copy
whose functions are bound to its own generator means two agents in one process never share
random state, and an agent plays the same in the monitor's process as in its own.
"""
from __future__ import annotations

import builtins
import random as _random
import types

from . import agent_imports


def private_random_module(rng: _random.Random) -> types.ModuleType:
    module = types.ModuleType("random", _random.__doc__)
    hidden = getattr(_random, "_inst", None)
    for name, value in vars(_random).items():
        if getattr(value, "__self__", None) is hidden and hidden is not None:
            value = getattr(rng, name)
        setattr(module, name, value)
    return module


def agent_builtins(random_module: types.ModuleType) -> dict:
    """Builtins whose `import random` (in any form) gives the agent its private module, and
    whose imports are held to the declared libraries (agent_imports.py: a module the host
    imported for itself is refused here, since sys.modules would hand it over)."""
    namespace = dict(vars(builtins))
    real_import = builtins.__import__

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0:
            if name == "random":
                return random_module
            held = agent_imports.declared
            why = held.refused(name, globals) if held is not None else None
            if why is not None:
                raise ModuleNotFoundError(why, name=name.partition(".")[0])
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


class MadeAhead:
    """What `fresh_namespace` makes, made once ahead, for a process that runs ONE game: a
    host's zygote makes it before it forks, and each game's process (a copy of the zygote)
    seeds the generator (`seeded`) and runs the agent's module in `namespace` once.

    Made in the game's process, the private `random` and the builtins' copy write the
    reference count of every function of `random` and every builtin: in a process forked
    from the zygote that copies some 120 of its pages a game (benchmarks/game_process_cost.py);
    made ahead, they are the zygote's own, and a game writes only what its agent uses. The
    state is the same: `Random().seed(s)` is `Random(s)`. Used twice in one process (never
    in a host), the second game gets a `fresh_namespace`."""

    def __init__(self):
        self.rng = _random.Random()
        self.random_module = private_random_module(self.rng)
        self.builtins = agent_builtins(self.random_module)
        self.used = False

    def seeded(self, seed: int) -> _random.Random:
        """The game's generator, seeded: the one made ahead, while it is still unused."""
        if self.used:
            return _random.Random(seed)
        self.rng.seed(seed)
        return self.rng

    def namespace(self, module_name: str, path: str, rng: _random.Random) -> dict:
        """`fresh_namespace`, from what was made ahead when `rng` is its generator."""
        if rng is not self.rng or self.used:
            return fresh_namespace(module_name, path, rng)
        self.used = True
        return {"__name__": module_name, "__file__": path, "__builtins__": self.builtins}
