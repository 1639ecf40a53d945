"""`pdharness experiment FILE`: a grid of conditions x replicates of the tournament, one
SQLite record of it (resumable), and a report comparing the conditions.

plan.py reads the file, run.py plays the tournaments (in parallel, resumable; one cell's
seed and result are harness/run/cells.py's, shared with the cluster), record.py
is the SQLite record, summary.py compares the conditions (harness/present/experiment_report.py
draws the comparison as a page), experiment_session.py runs it as the command line does.
"""
