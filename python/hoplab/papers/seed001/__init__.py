"""Seed 001 (Nahm, Helmy, Kuo): `experiment` (Table 1, Figs. 9 and 12: the
runs and their tables), data/ (Table 1 and the stated gains), `command`
(the `reproduce seed001` plug-in)."""
