"""Seed 004 (Kawadia & Kumar): `design` (the 8 treatments x 9 plots as a
lab design), `experiment` (running it), `tables`, `verdict`, `report`
(Tables 2-5 and the findings), `figure` (Figure 2), data/ (the testbed's
Table 2), `command` (the `reproduce seed004` plug-in)."""
