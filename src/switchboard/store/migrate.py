"""Apply Alembic migrations programmatically (CLI, dev and tests).

Alembic is imported on first use, not with this module: importing it logs a line per plugin at
INFO, and ``quiet`` must be able to keep those out of `switchboard dev`'s start-up output too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alembic.config import Config

_ROOT = Path(__file__).resolve().parent.parent


def alembic_config(database_url: str) -> Config:
    """An Alembic config pointed at ``database_url``."""
    from alembic.config import Config

    config = Config(str(_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(_ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


@contextmanager
def alembic_logs_at_warning() -> Iterator[None]:
    """Keep Alembic's INFO lines (one per plugin and per revision applied) out of the logs meanwhile."""
    logger = logging.getLogger("alembic")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def upgrade_to_head(database_url: str, *, quiet: bool = False) -> None:
    """Bring the database schema to the newest revision (blocking; not for a running loop).

    ``quiet`` logs only Alembic's warnings and errors (`switchboard dev` without ``--verbose``).
    """
    if not quiet:
        _upgrade(database_url)
        return
    with alembic_logs_at_warning():
        _upgrade(database_url)


def _upgrade(database_url: str) -> None:
    from alembic import command

    command.upgrade(alembic_config(database_url), "head")
