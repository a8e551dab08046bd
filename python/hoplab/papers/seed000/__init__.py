"""Seed 000 (Anastasi et al.): `experiment` (§4.1-§4.3's runs and their
tables), `reference` (the testbed's Tables 1-4, data/), `command` (the
`reproduce seed000` and `seed000-routing` plug-ins)."""
