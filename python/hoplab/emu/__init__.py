"""Emulation: real Linux TCP/IP stacks through hoplab's simulated multihop
802.11 channel, in real time (`hoplab emu`; docs/GUIDE.md, "Emulation").

    config.py   the scenario's [emulation] table
    session.py  a live run: namespaces, commands, results, replay
    tcp.py      the bundled traffic tool (`python -m hoplab.emu.tcp`)
"""
