def Stumbler(hist, score):
    """Mostly cooperates, but every fifth call answers badly and every seventh raises:
    faults of two kinds, with messages, for the record."""
    calls = len(hist) // 3 + 1
    if calls % 7 == 0:
        raise RuntimeError(f"stumbled on call {calls}")
    if calls % 5 == 0:
        return ["C", "C"]
    return ["C", "C", "D"]
