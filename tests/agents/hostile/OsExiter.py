"""Hostile: os._exit ends its process at once (no exception to catch): a crash, replaced
for the next game."""
import os


def OsExiter(hist, score):
    os._exit(0)
