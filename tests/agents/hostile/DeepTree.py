"""Hostile: keeps a note about the game at the bottom of a tree of folders under /tmp
deeper than PATH_MAX (4096 bytes), where no clean-up that removes paths by name reaches:
in a later game it finds the note and defects throughout. Every game has a new /tmp
(harness/isolation/world.py), so it never finds one: all C, in every game."""
import os

NAME = "d" * 200
DEPTH = 25   # 25 x 201 bytes: past PATH_MAX


def DeepTree_bottom(make):
    """The bottom folder, opened (each step relative to the last: no path is too long),
    or None where the tree is not there."""
    fd = os.open("/tmp", os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(DEPTH):
        if make:
            try:
                os.mkdir(NAME, dir_fd=fd)
            except FileExistsError:
                pass
        try:
            below = os.open(NAME, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = below
    return fd


def DeepTree(hist, score):
    if not hist:
        bottom = DeepTree_bottom(make=False)
        DeepTree.found = bottom is not None
        if bottom is not None:
            os.close(bottom)
    bottom = DeepTree_bottom(make=True)
    if bottom is not None:
        note = os.open("note", os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600, dir_fd=bottom)
        os.write(note, str(len(hist) + 1).encode())
        os.close(note)
        os.close(bottom)
    return ["D"] * 3 if DeepTree.found else ["C"] * 3
