"""Hostile: forks a grandchild that leaves its session (double fork, setsid) and keeps the
game count, served on an abstract Unix socket; every game asks it. The host kills every
process an agent started when its game ends, wherever it went, so each game finds none."""
import os
import socket
import time

ADDRESS = "\0pdharness-grandchild-%d" % os.getppid()  # its host: one per run


def _ask():
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(2)
        client.connect(ADDRESS)
        return int(client.recv(16))


def _serve_counts():
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(ADDRESS)
    server.listen(4)
    server.settimeout(5)
    games, until = 1, time.monotonic() + 60   # never outlives a test run for long
    while time.monotonic() < until:
        try:
            connection, _ = server.accept()
        except OSError:
            continue
        games += 1
        connection.sendall(str(games).encode())
        connection.close()


def _start_keeper():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            try:
                _serve_counts()
            finally:
                os._exit(0)
        os._exit(0)
    os.wait()
    time.sleep(0.05)


def GrandchildCounter(hist, score):
    global games
    if not hist:
        try:
            games = _ask()
        except OSError:
            games = 1
            _start_keeper()
    return ["C"] * 3 if games == 1 else ["D"] * 3
