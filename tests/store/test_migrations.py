"""Migrations form one line and produce exactly the schema the models describe."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlmodel import SQLModel

import switchboard.models.all_tables  # noqa: F401
from switchboard.store.database import create_engine
from switchboard.store.migrate import alembic_config


def test_one_head():
    script = ScriptDirectory.from_config(alembic_config("sqlite+aiosqlite:///unused.db"))
    assert len(script.get_heads()) == 1


async def test_migrated_schema_matches_models(database_url):
    engine = create_engine(database_url)

    def diff(connection):  # type: ignore[no-untyped-def]
        context = MigrationContext.configure(connection, opts={"compare_type": False})
        return compare_metadata(context, SQLModel.metadata)

    async with engine.connect() as conn:
        differences = await conn.run_sync(diff)
    await engine.dispose()
    assert differences == []
