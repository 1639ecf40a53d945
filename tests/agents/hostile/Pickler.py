"""Hostile: answers objects that run code if they are ever pickled, unpickled, printed or
compared by whoever receives them. Run here, in the agent's own process, that code only
touches the agent's own (private) /tmp; were the monitor to unpickle or evaluate anything,
the marker would appear in the monitor's /tmp."""
import os

MARKER = "/tmp/pdharness-hostile-unpickled"


class Payload(str):
    def __reduce__(self):
        return (os.system, (f"touch {MARKER}",))

    __reduce_ex__ = lambda self, protocol: self.__reduce__()


def Pickler(hist, score):
    turn = len(hist) // 3
    if turn % 2 == 0:
        return [Payload("C"), Payload("C"), Payload("D")]
    return Payload("CCD")
