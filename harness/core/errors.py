"""Errors a user sees as one line (the command line prints them and exits 2)."""


class HarnessError(Exception):
    """A problem with the user's input, reported in one line, never with a traceback."""


class ParameterError(HarnessError, ValueError):
    """A game or tournament parameter that breaks the rules."""


class AgentNotFound(HarnessError):
    """An AGENT argument that is neither a built-in, an agent file nor a folder of them."""


class OutOfFiles(HarnessError):
    """The monitor itself has no file descriptor left to start an agent's process: a limit
    of the harness's machine, never the agent's fault."""


class LoadError(Exception):
    """An agent's code that does not load; the message is one line, with file and line."""
