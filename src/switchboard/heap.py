"""Keep the garbage collector's full passes off the start-up heap.

An API or worker process builds a few hundred thousand objects at start-up
(modules, classes, the ORM's mappings, pydantic's validators, the SDKs) that
live as long as it does. Python's oldest-generation collection walks every one
of them: about 130 ms during which the event loop serves nothing (measured on
in-process sandbox sends), taken as latency by every request in flight, which
made up the tail of the send bench. ``gc.freeze`` moves what exists once
start-up is done into a permanent generation that collections skip: the same
pass then took 3 ms. Objects made later (requests, sessions, workflow runs)
are collected as before.

Called by the processes' entry points (``switchboard api``, ``api.asgi`` in each
uvicorn worker process, ``worker.run_worker``), never by ``create_app``: a test
process starts many apps, and what it froze would stay out of every later
collection. The price in a server: a start-up object that later becomes part of
a reference cycle (a pool's connection replaced after a failover) is never
collected; objects freed by their reference count are freed as before.
"""

from __future__ import annotations

import gc

_frozen = False


def freeze_startup_heap() -> None:
    """Collect the garbage there is, then freeze what is left; the first call in a process only."""
    global _frozen
    if _frozen:
        return
    _frozen = True
    gc.collect()
    gc.freeze()
