"""`python -m hoplab`. The package's __init__ and this module import nothing
heavy, so that `hoplab.cli.main` takes over Ctrl-C within a millisecond of
the interpreter starting to run hoplab (see hoplab.cli)."""

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C in the instant before main can take over
    import os

    os.write(2, b"hoplab: interrupted\n")
    os._exit(130)

main()
