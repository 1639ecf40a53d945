"""Hostile: starts a thread that lives on after the game and holds the game count; a fresh
execution of the file finds the thread again through `threading.enumerate()`."""
import threading
import time


def _keeper():
    for thread in threading.enumerate():
        if thread.name == "pdharness-keeper":
            return thread
    thread = threading.Thread(target=time.sleep, args=(3600,), name="pdharness-keeper",
                              daemon=True)
    thread.games = 0
    thread.start()
    return thread


def ThreadCounter(hist, score):
    keeper = _keeper()
    if not hist:
        keeper.games += 1
    return ["C"] * 3 if keeper.games == 1 else ["D"] * 3
