"""The record of a tournament: the SQLite file of a run (db: schema and parameters; recorder:
writing it round by round; reader: reading it back), and the metrics derived from a result.

Nothing here is imported by `import harness`; sqlite3 loads only when a record is used.
"""
