"""Hostile: tries the network: a TCP connection to a port the test listens on, on the
machine's loopback (the test writes its port over the 0 below). Answers D D D when it got
through."""
import socket

PORT = 0


def Networker(hist, score):
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=0.05) as connection:
            connection.sendall(b"hello from an agent\n")
        return ["D", "D", "D"]
    except OSError:
        return ["C", "C", "C"]
