"""The worker registers the executor under its activity name."""

from __future__ import annotations

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine
from temporalio import activity

from switchboard.activities.deps import ActivityDeps
from switchboard.activities.tools import build_tool_activities
from switchboard.settings import Settings
from switchboard.store.database import session_factory


async def test_build_tool_activities_registers_execute_tool_call(
    settings: Settings, engine: AsyncEngine
) -> None:
    async with httpx.AsyncClient() as http:
        deps = ActivityDeps(
            settings=settings,
            engine=engine,
            sessions=session_factory(engine),
            http=http,
            temporal=None,  # type: ignore[arg-type]
            egress_http=http,
        )
        callables = build_tool_activities(deps)
    definitions = [activity._Definition.from_callable(fn) for fn in callables]
    assert [d.name for d in definitions if d is not None] == ["execute_tool_call"]
