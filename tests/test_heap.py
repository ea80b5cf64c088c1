"""The start-up heap is frozen once per process (the API's lifespan here; the worker calls the same function once built)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(script: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_first_call_freezes_and_later_ones_do_nothing():
    out = _run(
        """
        import gc
        from switchboard.heap import freeze_startup_heap
        before = gc.get_freeze_count()
        freeze_startup_heap()
        frozen = gc.get_freeze_count()
        later = [[i] for i in range(1000)]
        freeze_startup_heap()
        print(before, frozen, gc.get_freeze_count())
        """
    )
    before, frozen, again = map(int, out.split())
    assert before == 0
    assert frozen > 1_000  # the interpreter's own modules at least
    assert again == frozen


def test_the_api_freezes_its_heap_once_started(tmp_path):
    out = _run(
        f"""
        import asyncio, gc
        from tests.conftest import make_settings
        from switchboard.api.app import create_app
        from switchboard.store.migrate import upgrade_to_head

        url = "sqlite+aiosqlite:///{tmp_path}/heap.db"
        upgrade_to_head(url, quiet=True)
        app = create_app(make_settings(url, "127.0.0.1:1"))

        async def main():
            before = gc.get_freeze_count()
            async with app.router.lifespan_context(app):
                print(before, gc.get_freeze_count())

        asyncio.run(main())
        """
    )
    before, started = map(int, out.split())
    assert before == 0
    # Everything the app built at start-up (its engine, pools, clients, routes) is in the frozen set.
    assert started > 100_000
