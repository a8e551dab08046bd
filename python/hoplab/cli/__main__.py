"""`python -m hoplab.cli`, as `hoplab`."""

from . import main

main()
