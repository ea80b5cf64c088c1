"""Imports every table module so SQLModel.metadata knows all tables (Alembic, tests)."""

from models import (  # noqa: F401
    agent_runtime,  # noqa: F401
    agents,  # noqa: F401
    events,
    inbound,  # noqa: F401
    messaging,
    ratelimit,
    tenancy,
    tool_tokens,  # noqa: F401
)
