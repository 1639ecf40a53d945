"""Hostile: answers iterables that raise while being read, or lie about their length."""


class Treacherous:
    def __len__(self):
        return 3

    def __getitem__(self, index):
        return "C"

    def __iter__(self):
        yield "C"
        raise RuntimeError("iterating me fails")


class Bottomless:
    def __iter__(self):
        return self

    def __next__(self):
        raise SystemExit("reading my answer ends the reader")


def BadIterable(hist, score):
    return Treacherous() if len(hist) // 3 % 2 == 0 else Bottomless()
