"""`pdharness ladder SUBMISSIONS`: a ladder for the term, one pass at a time.

- `submissions.py`: what a pass finds in the folder (snapshots, versions, statuses)
- `passes.py`: one pass: new versions validated, the games owed played and recorded
- `ratings.py`: openskill's Plackett-Luce ratings over the record, in a fixed order
- `board.py`: the board worked out from the record (JSON, table, site)
- `loop.py`: a pass and its outputs, and `--every MINUTES`

The record is harness/store/ladder_record.py; the pages harness/present/ladder_site.py.
"""
