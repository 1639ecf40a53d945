"""`pdharness autograder DIR`: a Gradescope autograder bundle (bundle.py writes it) and what
runs inside Gradescope's container for every student upload (grade.py, `python -m
harness.autograder`), writing Gradescope's results.json."""
