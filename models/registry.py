"""Imports every table module so SQLModel.metadata knows all tables (Alembic, tests)."""

from models import events, messaging, ratelimit, tenancy  # noqa: F401
from models import tool_tokens  # noqa: F401
