"""Fresh databases per test, cheaply.

Migrations run once per session into a template; each test then gets a copy
(a file copy for SQLite, ``CREATE DATABASE ... TEMPLATE`` for PostgreSQL), so
every test starts from the real migrated schema without paying for Alembic.

On PostgreSQL a copy writes every page of the template through the WAL and
syncs it, and a drop removes files: mostly waiting on the disk, 0.1 to 0.7 s a
copy on these machines, more while CI's other leg keeps the disk busy. A
background thread does both, keeping ``STOCK`` copies made ahead and dropping
what tests hand back, so a test waits only when the stock has run out.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
import uuid
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

from switchboard.store.migrate import upgrade_to_head

# Copies made ahead of the tests that will take them (one test at a time takes one, or two at most).
STOCK = 2


class DatabaseFactory:
    """Makes per-test databases from a migrated template."""

    def __init__(self, base_url: str | None, workdir: Path) -> None:
        self._base = make_url(base_url) if base_url else None
        self._workdir = workdir
        self._created: list[str] = []
        self._template: str | None = None
        # PostgreSQL only: copies made ahead, and the background thread's work (a name to drop, None
        # for "make one more copy", "" to stop); a copy's failure is handed to the fresh() call.
        self._stock: queue.Queue[str | BaseException] = queue.Queue()
        self._work: queue.Queue[str | None] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

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
            self._thread = threading.Thread(target=self._keep_stock, name="test-databases", daemon=True)
            self._thread.start()
            for _ in range(STOCK):
                self._work.put(None)
        else:
            path = self._workdir / "template.db"
            upgrade_to_head(f"sqlite+aiosqlite:///{path}")
            self._template = str(path)

    def fresh(self) -> str:
        """A new database with the migrated schema; returns its URL."""
        assert self._template is not None, "prepare_template() first"
        if self.is_postgres:
            made = self._stock.get(timeout=120)
            if isinstance(made, BaseException):
                raise RuntimeError("a test database could not be made") from made
            self._work.put(None)
            return self._pg_url(made)
        name = f"sb_{uuid.uuid4().hex[:12]}"
        path = self._workdir / f"{name}.db"
        shutil.copyfile(self._template, path)
        return f"sqlite+aiosqlite:///{path}"

    def drop(self, url: str) -> None:
        """Remove one per-test database."""
        if self.is_postgres:
            name = make_url(url).database
            assert name is not None
            self._work.put(name)
        else:
            path = Path(make_url(url).database or "")
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)

    def _keep_stock(self) -> None:
        """The background thread: make copies and drop handed-back ones, one statement at a time.

        One thread, so two copies of the template never run at once (PostgreSQL refuses a copy while
        another session is in the template). A copy that fails is handed to the test waiting for it; a
        drop that fails leaves the name for close() to drop again.
        """
        with psycopg.connect(self._admin_conninfo(), autocommit=True) as conn:
            while True:
                job = self._work.get()
                if job == "":
                    return
                try:
                    if job is None:
                        name = f"sb_{uuid.uuid4().hex[:12]}"
                        with self._lock:
                            self._created.append(name)
                        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{self._template}"')
                        self._stock.put(name)
                    else:
                        conn.execute(f'DROP DATABASE IF EXISTS "{job}" WITH (FORCE)')
                        with self._lock:
                            if job in self._created:
                                self._created.remove(job)
                except psycopg.Error as error:
                    if job is None:
                        self._stock.put(error)

    def close(self) -> None:
        """Drop the template and anything left behind."""
        if self.is_postgres:
            if self._thread is not None:
                self._work.put("")
                self._thread.join(timeout=60)
            with psycopg.connect(self._admin_conninfo(), autocommit=True) as conn:
                for name in [*self._created, self._template]:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
