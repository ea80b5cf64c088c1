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
"""

from __future__ import annotations

import gc

_frozen = False


def freeze_startup_heap() -> None:
    """Collect once, then freeze what is left; the first call in a process only.

    Once per process because a test session starts many apps: a later freeze
    would keep whatever an earlier app left in reference cycles forever.
    """
    global _frozen
    if _frozen:
        return
    _frozen = True
    gc.collect()
    gc.freeze()
