"""A rogue host: speaks the line protocol of docs/DESIGN.md, then breaks it on the game
channel as agent code can (a game's process holds that channel's pipes). The control
channel it serves honestly (READY, ENDED), from a thread. The monitor must never block
on it and must record a fault. `python host.py MODE`:

- early:    replies `MOVES DDD` from a thread as fast as the pipe takes them, ahead of the
            requests, and after the first request reads no more (its request pipe shrunk
            to one page with F_SETPIPE_SZ): against a blocking write, the monitor hangs;
- stuffer:  answers each request as it arrives (it watches FIONREAD) without reading it,
            request pipe shrunk: every reply comes after its request, until the pipe is
            full and the request cannot be written;
- double:   answers every request twice;
- newlines: on the first request, writes newlines for ever;
- junk:     writes lines without the token before its first reply, then answers every
            request while a thread writes more;
- honest:   answers C to every request (moves per turn from GAME);
- mute:     never says READY;
- verdict:  on the first request, says why it ends on stderr and exits, as a host that
            dies says what killed it (SBCL's fatal errors).
"""
import array
import fcntl
import os
import sys
import termios
import threading
import time

F_SETPIPE_SZ = 1031
TOKEN = os.environ.get("PDH_TOKEN", "").encode()
REQUESTS, REPLIES = map(int, os.environ["PDH_GAME_FDS"].split(","))   # the game channel


def reply(text, fd=REPLIES):
    os.write(fd, TOKEN + b" " + text + b"\n")


def control():
    """The zygote's part: ENDED for every END."""
    while line := os.read(0, 4096):
        for _ in range(line.count(b"END\n")):
            reply(b"ENDED", fd=1)


def requests():
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = os.read(REQUESTS, 65536)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        if line.split():
            yield line.split()


def waiting_bytes():
    count = array.array("i", [0])
    fcntl.ioctl(REQUESTS, termios.FIONREAD, count)
    return count[0]


def forever(work):
    threading.Thread(target=work, daemon=True).start()
    while True:
        time.sleep(3600)


def main(mode):
    if mode == "mute":
        time.sleep(3600)
    reply(b"READY", fd=1)
    threading.Thread(target=control, daemon=True).start()
    per_turn = 3
    for words in requests():
        if words[0] == b"GAME":
            per_turn = int(words[3])
        if words[0] != b"TURN":
            continue
        moves = b"MOVES " + b"C" * per_turn
        forged = b"MOVES " + b"D" * per_turn
        if mode in ("early", "stuffer"):
            fcntl.fcntl(REQUESTS, F_SETPIPE_SZ, 4096)
        if mode == "early":
            forever(lambda: [reply(forged) for _ in iter(int, 1)])
        if mode == "stuffer":
            def in_step():
                reply(forged)
                seen = waiting_bytes()
                while True:
                    now = waiting_bytes()
                    if now > seen:
                        reply(forged)
                    seen = now
                    time.sleep(0.0002)
            forever(in_step)
        if mode == "verdict":
            os.write(2, b"agent output not ended\nprotocol violation: its last words\n")
            os._exit(1)
        if mode == "newlines":
            while True:
                os.write(REPLIES, b"\n" * 65536)
        if mode == "junk" and threading.active_count() == 2:   # itself and control()
            junk = b"MOVES DDD\n\n0123456789abcdef MOVES DDD\n" * 1000
            # once ahead of its first reply, whatever the load: a thread alone may not get a
            # CPU before a short game is over (seen in CI at load 20)
            os.write(REPLIES, junk)
            threading.Thread(target=lambda: [os.write(REPLIES, junk) for _ in iter(int, 1)],
                             daemon=True).start()
        reply(moves)
        if mode == "double":
            reply(forged)


if __name__ == "__main__":
    main(sys.argv[1])
