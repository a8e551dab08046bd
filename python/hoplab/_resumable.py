"""The error the `reproduce` experiments raise for the CLI to print.

(The experiments themselves run as lab designs through a result store:
`_lab_batch.run_grid`.)"""

from __future__ import annotations


class ReproduceError(RuntimeError):
    """An error the CLI reports as `hoplab: error: ...`."""
