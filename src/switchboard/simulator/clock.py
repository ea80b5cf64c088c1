"""The simulator's clock (epoch seconds, as the channel's timestamps are)."""

from __future__ import annotations

import time


def now_s() -> int:
    """The current epoch second."""
    return int(time.time())
