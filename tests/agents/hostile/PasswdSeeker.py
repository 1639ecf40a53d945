"""Hostile: looks for /etc/passwd, the machine's list of accounts, which a process outside
the sandbox can read and a sandboxed one cannot see. It cooperates when it can read it and
defects when it cannot, so a test tells from the score where it was run."""
import os


def PasswdSeeker(hist, score):
    return "CCC" if os.path.exists("/etc/passwd") else "DDD"
