"""Imports every table module so SQLModel.metadata knows all tables (Alembic, tests)."""

from switchboard.models import (  # noqa: F401
    agent_runtime,
    agents,
    events,
    inbound,
    messaging,
    ratelimit,
    tenancy,
    tool_tokens,
)
