"""Hostile: looks for other submissions: its own folder, the folders around it, the working
folder, home, and the harness's own test agents. Answers D on a move when it found some:
move 1 other files in its folder, move 2 another agent's source anywhere, move 3 agent-like
files under the working folder. Prints what it found to stderr."""
import os
import sys

SUFFIXES = (".py", ".hy", ".lisp")


def _others_beside_me():
    folder = os.path.dirname(os.path.abspath(__file__))
    try:
        return [name for name in os.listdir(folder) if name != os.path.basename(__file__)]
    except OSError:
        return []


def _other_sources():
    found = []
    here = os.path.dirname(os.path.abspath(__file__))
    places = [here, os.path.dirname(here), os.path.join(os.path.dirname(here), "core"),
              os.getcwd(), os.path.join(os.getcwd(), "student_agents"),
              os.path.expanduser("~"), "/root", "/home", "/work"]
    for place in places:
        try:
            for name in os.listdir(place):
                path = os.path.join(place, name)
                if name.endswith(SUFFIXES) and path != os.path.abspath(__file__):
                    with open(path, encoding="utf-8", errors="replace") as source:
                        if "def " in source.read(4096) or "defun" in source.read(4096):
                            found.append(path)
        except OSError:
            pass
    return found


def _tree():
    """Agent-like files under the working folder, outside the harness's own packages."""
    found = 0
    for _root, dirs, files in os.walk(os.getcwd()):
        dirs[:] = [d for d in dirs if d not in ("harness", "lisp_bridge", "__pycache__")]
        found += sum(1 for name in files if name.endswith(SUFFIXES)
                     and name != os.path.basename(__file__))
        if found or _root.count(os.sep) > 8:
            break
    return found


def Snoop(hist, score):
    beside, sources, tree = _others_beside_me(), _other_sources(), _tree()
    if beside or sources or tree:
        print(f"Snoop found: {beside[:5]} {sources[:5]} {tree}", file=sys.stderr)
    return ["D" if beside else "C", "D" if sources else "C", "D" if tree else "C"]
