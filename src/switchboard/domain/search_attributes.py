"""The custom search attributes the service sets on its workflows, and what to do when a namespace lacks them.

A worker whose namespace lacks them starts, and then every agent thread's start is refused by the
server: customers are never answered and the logs say so one warning at a time. So a worker checks at
start-up (``switchboard/temporal_namespace.py``): on a development server it registers them; anywhere
else it refuses to start with the commands that register them. Pure: names, types and the message.
"""

from __future__ import annotations

from collections.abc import Mapping

SEARCH_ATTRIBUTE_TENANT = "SwitchboardTenantId"
SEARCH_ATTRIBUTE_THREAD = "SwitchboardThreadId"
# Each attribute and its type, as `temporal operator search-attribute create --type` names it.
REQUIRED: dict[str, str] = {SEARCH_ATTRIBUTE_TENANT: "Keyword", SEARCH_ATTRIBUTE_THREAD: "Keyword"}


def missing(existing: Mapping[str, str]) -> list[str]:
    """The required attributes the namespace lacks, or has with another type (``existing``: name -> type)."""
    return [name for name, kind in REQUIRED.items() if existing.get(name, "").lower() != kind.lower()]


def create_commands(names: list[str], *, namespace: str, address: str) -> list[str]:
    """The commands that register these attributes on the namespace."""
    return [
        f"temporal operator search-attribute create --address {address} --namespace {namespace} "
        f"--name {name} --type {REQUIRED[name]}"
        for name in names
    ]


def refusal(names: list[str], *, namespace: str, address: str, existing: Mapping[str, str]) -> str:
    """Why the worker will not start, and how to fix it, in a few lines an operator can paste from."""
    wrong = [f"{name} is {existing[name]}, not {REQUIRED[name]}" for name in names if name in existing]
    lines = [
        f"Temporal namespace {namespace!r} at {address} lacks the search attributes the service sets "
        f"({', '.join(names)}){'; ' + '; '.join(wrong) if wrong else ''}. Without them every agent "
        "thread's start is refused and customers are never answered. Register them:",
        *(f"  {command}" for command in create_commands(names, namespace=namespace, address=address)),
        "or run without them (agent threads then carry no tenant or thread attribute): "
        "TEMPORAL_SEARCH_ATTRIBUTES=false",
    ]
    return "\n".join(lines)
