"""Test agent driven by a schedule: `schedule.json` beside this file lists what to do on
each call, counted over all its processes (the calls so far are the lines of `calls.log`
there): a move string to answer it, "hang" to sleep past any deadline, "crash" to end its
process; past the end of the list it raises IndexError. Every call first
appends the game it belongs to, the hist and the score it was given to `calls.log`, so a
test can compare what the agent was shown with what the record says was played."""
import json
import os
import random
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GAME = random.getrandbits(64)   # its first draw: the same in a replacement process


def Scheduled(hist, score):
    with open(os.path.join(HERE, "schedule.json")) as file:
        schedule = json.load(file)
    log = os.path.join(HERE, "calls.log")
    with open(log, "a+") as file:
        file.seek(0)
        calls = sum(1 for _line in file)
        file.write(json.dumps([GAME, [list(pair) for pair in hist], list(score)]) + "\n")
    action = schedule[calls]
    if action == "hang":
        time.sleep(3600)
    if action == "crash":
        os._exit(3)
    return list(action)
