"""Seed 001 (Nahm, Helmy, Kuo): `experiment` (Table 1, Figs. 9 and 12: the
runs and their tables), `window_loss` (Figs. 5 and 8) and `grids` (Figs. 10
and 11), run on request, with `intervals`; data/ (Table 1 and the stated
gains), `command` (the `reproduce seed001` plug-in)."""
