"""Apply Alembic migrations programmatically (CLI, dev and tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

_ROOT = Path(__file__).resolve().parent.parent


def alembic_config(database_url: str) -> Config:
    """An Alembic config pointed at ``database_url``."""
    config = Config(str(_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(_ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade_to_head(database_url: str) -> None:
    """Bring the database schema to the newest revision (blocking; not for a running loop)."""
    command.upgrade(alembic_config(database_url), "head")
