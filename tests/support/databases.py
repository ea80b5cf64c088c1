"""Fresh databases per test, cheaply.

Migrations run once per session into a template; each test then gets a copy
(a file copy for SQLite, ``CREATE DATABASE ... TEMPLATE`` for PostgreSQL), so
every test starts from the real migrated schema without paying for Alembic.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

from switchboard.store.migrate import upgrade_to_head


class DatabaseFactory:
    """Makes per-test databases from a migrated template."""

    def __init__(self, base_url: str | None, workdir: Path) -> None:
        self._base = make_url(base_url) if base_url else None
        self._workdir = workdir
        self._created: list[str] = []
        self._template: str | None = None

    @property
    def is_postgres(self) -> bool:
        return self._base is not None and self._base.get_backend_name() == "postgresql"

    def _admin_conninfo(self) -> str:
        assert self._base is not None
        url = self._base.set(drivername="postgresql", database="postgres")
        return url.render_as_string(hide_password=False)

    def _pg_url(self, name: str) -> str:
        assert self._base is not None
        return self._base.set(database=name).render_as_string(hide_password=False)

    def prepare_template(self) -> None:
        """Run the migrations once into the template."""
        if self.is_postgres:
            self._template = f"sb_tmpl_{os.getpid()}_{uuid.uuid4().hex[:6]}"
            with psycopg.connect(self._admin_conninfo(), autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{self._template}"')
            upgrade_to_head(self._pg_url(self._template))
        else:
            path = self._workdir / "template.db"
            upgrade_to_head(f"sqlite+aiosqlite:///{path}")
            self._template = str(path)

    def fresh(self) -> str:
        """A new database with the migrated schema; returns its URL."""
        assert self._template is not None, "prepare_template() first"
        name = f"sb_{uuid.uuid4().hex[:12]}"
        if self.is_postgres:
            with psycopg.connect(self._admin_conninfo(), autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{self._template}"')
            self._created.append(name)
            return self._pg_url(name)
        path = self._workdir / f"{name}.db"
        shutil.copyfile(self._template, path)
        return f"sqlite+aiosqlite:///{path}"

    def drop(self, url: str) -> None:
        """Remove one per-test database."""
        if self.is_postgres:
            name = make_url(url).database
            with psycopg.connect(self._admin_conninfo(), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            if name in self._created:
                self._created.remove(name)
        else:
            path = Path(make_url(url).database or "")
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)

    def close(self) -> None:
        """Drop the template and anything left behind."""
        if self.is_postgres:
            with psycopg.connect(self._admin_conninfo(), autocommit=True) as conn:
                for name in [*self._created, self._template]:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
