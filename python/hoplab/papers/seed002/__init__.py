"""Seed 002 (Östergren, *TCP Performance in Ad Hoc Networks*): `scenarios`
(every experiment's scenarios), `experiment` (their runs and rows),
`expected` (Eq. 1's expected throughput of a `Result`: `with_expected`),
`report` (the tables and findings), `command` (the `reproduce seed002`
plug-in)."""
