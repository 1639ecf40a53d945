"""Hostile: asks for tens of GiB, at once and then piece by piece."""


def MemoryHog(hist, score):
    if not hist:
        huge = bytearray(40 << 30)   # 40 GiB in one allocation
        return ["C", "C", "C"] if huge else None
    hoard = []
    while len(hoard) < 160:          # 40 GiB, 256 MiB at a time
        hoard.append(bytearray(256 << 20))
    return ["C", "C", "C"]
