"""ns-2's drop codes in words (crates/hoplab-sim/src/net/drop.rs; seed 002
Appendix B, Table 3): for the run summary's drops by cause and the legend of
`plot nodes`."""

from __future__ import annotations

__all__ = ["REASONS"]

REASONS = {
    "IFQ": "queue full",
    "RET": "retry limit",
    "COL": "collision",
    "DUP": "duplicate",
    "BSY": "MAC busy (CTS withheld)",
    "NRTE": "no route",
    "TTL": "TTL expired",
    "CBK": "link failure callback",
    "LOOP": "routing loop",
    "TOUT": "route wait timeout",
    "QFULL": "routing buffer full",
    "SAL": "salvage limit",
    "ARP": "ARP",
    "END": "queued at the end",
}
