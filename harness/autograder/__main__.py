"""`python -m harness.autograder`: what the bundle's run_autograder starts."""
import sys

from .grade import main

sys.exit(main())
