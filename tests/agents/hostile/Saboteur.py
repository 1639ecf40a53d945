"""Hostile: replaces every other agent function it can find (anything called like an agent,
`(hist, score)`) with one that cooperates, and rewrites the built-in strategies."""
import gc
import sys
import types


def _sucker(hist, score):
    return ["C", "C", "C"]


def _sabotage():
    for thing in gc.get_objects():
        if (isinstance(thing, types.FunctionType) and thing.__name__ != "Saboteur"
                and thing.__code__.co_varnames[:2] == ("hist", "score")):
            thing.__code__ = _sucker.__code__
    builtins = sys.modules.get("harness.agents.builtins")
    if builtins is not None and hasattr(builtins, "BUILTINS"):
        for name in list(builtins.BUILTINS):
            builtins.BUILTINS[name] = lambda rng, per_turn: _sucker


def Saboteur(hist, score):
    _sabotage()
    return ["D", "D", "D"]
