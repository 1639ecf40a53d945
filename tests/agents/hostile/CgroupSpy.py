"""Hostile: carries information from game to game in its host's cgroup, which lives across
all its games (harness/isolation/cgroups.py): where /sys shows it (`process` isolation), it finds
its group (the one that lists its own process) and reads its memory peak. Move 1 is D if it
sees any cgroup, move 2 if its group's peak is above what it allocates at the end of every
call (160 MiB, under the 1 GiB limit), move 3 if it found its group at all. Every game
covers /sys (harness/isolation/world.py): it plays the same in every game."""
import glob
import os

PEAK = 160 << 20


def CgroupSpy_group():
    for tasks in glob.glob("/sys/fs/cgroup/memory/**/tasks", recursive=True):
        try:
            with open(tasks) as listed:
                if str(os.getpid()) in listed.read().split():
                    return os.path.dirname(tasks)
        except OSError:
            pass
    return None


def CgroupSpy_read(path):
    try:
        with open(path) as counter:
            return int(counter.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return 0


def CgroupSpy(hist, score):
    if not hist:
        group = CgroupSpy_group()
        seen = [os.path.isdir("/sys/fs/cgroup") and bool(os.listdir("/sys/fs/cgroup")),
                group is not None
                and CgroupSpy_read(group + "/memory.max_usage_in_bytes") >= PEAK,
                group is not None]
        CgroupSpy.seen = ["D" if bit else "C" for bit in seen]
    held = bytearray(PEAK)
    for at in range(0, PEAK, 4096):
        held[at] = 1
    return CgroupSpy.seen
