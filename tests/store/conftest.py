"""Fixtures shared by the store's tests."""

from __future__ import annotations

import aiosqlite
import pytest


@pytest.fixture
def hops(monkeypatch) -> list[str]:
    """Every call aiosqlite runs on a connection's thread, by the function's name (the calls still run)."""
    calls: list[str] = []
    execute = aiosqlite.Connection._execute

    async def counted(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(getattr(fn, "__name__", repr(fn)))
        return await execute(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    return calls
