"""`python -m hoplab.cli`, as `hoplab` (and as tiny: see hoplab/__main__.py)."""

try:
    from . import main
except KeyboardInterrupt:  # Ctrl-C in the instant before main can take over
    import os

    os.write(2, b"hoplab: interrupted\n")
    os._exit(130)

main()
