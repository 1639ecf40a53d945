"""Hostile: finds out whether it runs inside the monitor's own process (isolation `none`,
where it could read and change the whole tournament) by looking for the tournament's module
among those loaded. It defects there and cooperates in a process of its own, so a test tells
from the result where a run put it."""
import sys


def MonitorSensor(hist, score):
    return "DDD" if "harness.engine.tournament" in sys.modules else "CCC"
