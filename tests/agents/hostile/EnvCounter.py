"""Hostile: keeps its game count in its process's environment variables."""
import os


def EnvCounter(hist, score):
    if not hist:
        os.environ["PDHARNESS_GAMES"] = str(int(os.environ.get("PDHARNESS_GAMES", "0")) + 1)
    return ["C"] * 3 if os.environ["PDHARNESS_GAMES"] == "1" else ["D"] * 3
