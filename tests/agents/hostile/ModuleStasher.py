"""Hostile: keeps its game count in a module of its own put into `sys.modules` (and on a
standard module, `json`), where a fresh execution of its file would find it again."""
import json
import sys
import types


def ModuleStasher(hist, score):
    stash = sys.modules.setdefault("pdharness_stash", types.ModuleType("pdharness_stash"))
    if not hist:
        stash.games = getattr(stash, "games", 0) + 1
        json.pdharness_games = getattr(json, "pdharness_games", 0) + 1
    return ["C"] * 3 if stash.games + json.pdharness_games == 2 else ["D"] * 3
