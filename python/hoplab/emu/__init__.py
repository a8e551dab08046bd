"""Emulation: real Linux TCP/IP stacks through hoplab's simulated multihop
802.11 channel, in real time (`hoplab emu`; docs/GUIDE.md, "Emulation").

    config.py    the scenario's [emulation] table
    session.py   a live run: namespaces, commands, results, replay
    claim.py     the output directory: one session at a time, an earlier run kept
    signals.py   SIGINT, SIGTERM, SIGHUP end a run as its end would
    registry.py  which runs are alive (pid files, the run id commands carry)
    reap.py      the processes of a run, found by namespace and run id, ended
    watchdog.py  ends them after a SIGKILL of hoplab
    cleanup.py   `hoplab emu cleanup`
    meta.py      a saved run's emu.json, checked for replay
    tcp.py       the bundled traffic tool (`python -m hoplab.emu.tcp`)
    transfer.py  one bulk transfer between two real nodes
"""
