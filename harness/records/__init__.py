"""Records of tournaments and what is made from them: the SQLite record of a run (db,
recorder, reader, resume), the HTML report, grades, replicates, metrics and progress.

Nothing here is imported by `import harness`; sqlite3 loads only when a record is used.
"""
