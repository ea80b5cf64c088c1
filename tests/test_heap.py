"""The start-up heap is frozen once per process, by the server processes' entry points and not by an app."""

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


def test_each_api_server_process_freezes_its_heap_and_an_app_alone_does_not(tmp_path):
    # api.asgi is what each `switchboard api --workers N` process imports; create_app is what tests use.
    out = _run(
        f"""
        import asyncio, gc, os
        os.environ["DATABASE_URL"] = "sqlite+aiosqlite:///{tmp_path}/heap.db"
        from switchboard.store.migrate import upgrade_to_head
        upgrade_to_head(os.environ["DATABASE_URL"], quiet=True)
        from switchboard.api.app import create_app
        from switchboard.settings import Settings

        app = create_app(Settings())

        async def main():
            async with app.router.lifespan_context(app):
                print(gc.get_freeze_count())

        asyncio.run(main())
        import switchboard.api.asgi
        print(gc.get_freeze_count())
        """
    )
    by_app, by_server = map(int, out.split())
    assert by_app == 0
    # The modules, the app's routes and validators: everything the server process built.
    assert by_server > 100_000
