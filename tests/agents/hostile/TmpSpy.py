"""Hostile: carries information from game to game in /tmp's metadata, not its files: the
inode number a new file gets (it goes on from the last one made), and /tmp's own mode,
link count and extended attributes (which the agent may change where it owns /tmp, as
under a monitor that is not root). It marks all of them on every call and plays the bits of
what it sees on its first. Every game has a new /tmp (harness/isolation/world.py), so it plays the
same in every game."""
import os


def TmpSpy_seen():
    fd = os.open("/tmp/tmp-spy-new", os.O_CREAT | os.O_WRONLY, 0o600)
    inode = os.fstat(fd).st_ino
    os.close(fd)
    info = os.stat("/tmp")
    try:
        marks = len(os.listxattr("/tmp"))
    except OSError:
        marks = 0
    return inode + info.st_mode + info.st_nlink + marks + len(os.listdir("/tmp"))


def TmpSpy(hist, score):
    if not hist:
        TmpSpy.seen = TmpSpy_seen()
    try:
        os.mkdir(f"/tmp/tmp-spy-{len(hist)}")
        os.setxattr("/tmp", "user.tmp-spy", str(len(hist)).encode())
    except OSError:
        pass
    try:
        os.chmod("/tmp", 0o1770 if len(hist) % 2 else 0o1777)
    except OSError:
        pass
    return ["D" if TmpSpy.seen >> bit & 1 else "C" for bit in range(3)]
