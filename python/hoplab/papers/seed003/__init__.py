"""Seed 003 (Papanastasiou et al.): `experiment` (the route-break runs and
their table), `timeline` (what happens around a route break; also behind
`hoplab timeline`), `command` (the `reproduce seed003` plug-in)."""
