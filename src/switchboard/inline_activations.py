"""Workflow activations run on the worker's event loop thread, not handed to a thread of their own.

The Temporal SDK runs each workflow activation through ``run_in_executor`` on a thread pool, so that a
workflow stuck in a loop trips its 2 s deadlock detector instead of the worker's event loop. For the
two short, unsandboxed workflows the API's worker runs (DeliverWebhook, SendMessage), that hand-over
costs more than the activation: a thread woken, the GIL passed back and forth, a wake-up of the loop
with the result. And while the activation thread holds the GIL, the loop waits to get it back after
each database statement it sends (psycopg releases it around the socket write): py-spy of an API
process under inbound load put a seventh of its samples in that one call (docs/operations.md,
Performance).

``ActivationsOnTheLoop`` is handed to the Worker as its ``workflow_task_executor``: each submitted
activation runs as a plain callback on the loop, one at a time, as the SDK itself does in its debug
mode. The price is the deadlock detector: a workflow that never yields would stall the process's loop.
So it serves only workflows of ours that do nothing but schedule local activities and timers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class ActivationsOnTheLoop(concurrent.futures.ThreadPoolExecutor):
    """An executor that runs what it is given on the submitting event loop's thread, never a thread of its own.

    A ThreadPoolExecutor by type only (the Worker's parameter asks for one); it starts no thread.
    """

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="unused_")

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[T]:
        """Schedule ``fn`` as a callback on the running loop; its future is done once it has run.

        A callback, not a call from here: here is the middle of the SDK's dispatch task, and an
        activation steps the workflow's own tasks (Python 3.14 refuses to enter one task inside another
        on the same thread). The activation also clears the thread's running loop on its way out
        (the workflow is an event loop of its own while it runs), so the loop is put back.
        """
        loop = asyncio.get_running_loop()
        done: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run() -> None:
            if not done.set_running_or_notify_cancel():
                return
            try:
                done.set_result(fn(*args, **kwargs))
            except BaseException as error:  # noqa: BLE001 - handed to the awaiting task, as a thread would
                done.set_exception(error)
            finally:
                asyncio.events._set_running_loop(loop)

        loop.call_soon(run)
        return done
