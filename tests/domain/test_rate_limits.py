"""Rate-limit windows: which of two buckets of a key is the later."""

from __future__ import annotations

from switchboard.domain.rate_limits import newest_window, windows_at


def test_newest_window_compares_window_numbers_not_text() -> None:
    earlier, later = windows_at("k", 999.5), windows_at("k", 1000.5)
    assert newest_window(earlier.second_bucket, later.second_bucket) == later.second_bucket
    assert newest_window(later.second_bucket, earlier.second_bucket) == later.second_bucket
    # "k:s:999" > "k:s:1000" as text; the window numbers decide.
    assert newest_window("k:s:999", "k:s:1000") == "k:s:1000"
    assert newest_window(earlier.day_bucket, earlier.day_bucket) == earlier.day_bucket
    assert newest_window("k:s:5", "") == "k:s:5"
