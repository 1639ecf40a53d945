"""`pdharness experiment FILE`: a grid of conditions x replicates of the tournament, one
SQLite record of it (resumable), and a report comparing the conditions.

plan.py reads the file, run.py plays the tournaments (in parallel, resumable), record.py
is the SQLite record, summary.py and report.py compare the conditions.
"""
