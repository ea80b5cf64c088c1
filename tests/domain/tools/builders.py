"""A valid tool declaration and a way to derive variants of it by dotted-path patches."""

from __future__ import annotations

import copy
from typing import Any

DROP = object()


def base_declaration() -> dict[str, Any]:
    """A declaration that passes every rule and touches every block."""
    return {
        "description": "Books an appointment for a patient on {{input.date}}",
        "input_schema": {
            "type": "object",
            "properties": {
                "patient_id": {"type": "string"},
                "date": {"type": "string"},
                "count": {"type": "integer"},
                "note": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["patient_id", "date"],
        },
        "request": {
            "method": "POST",
            "url": "{{binding.base_url}}/patients/{{input.patient_id}}/bookings",
            "query": {"date": "{{input.date}}"},
            "body": {"patient": "{{input.patient_id}}", "count": "{{input.count}}"},
            "auth": {"type": "bearer", "token": "{{binding.secret.api_token}}"},
            "timeout_ms": 5000,
        },
        "response": {"pick": "data.items[].{id, start}", "max_items": 5},
        "errors": {"negocio": [404, 409], "infra": [], "semantic": {"NO_SLOTS": "No free slots that day"}},
        "terminates_thread": False,
    }


def patched(patches: dict[str, Any], declaration: dict[str, Any] | None = None) -> dict[str, Any]:
    """A copy of ``declaration`` (default: the base) with each dotted path set, or removed with DROP."""
    result = copy.deepcopy(declaration if declaration is not None else base_declaration())
    for path, value in patches.items():
        *parents, last = path.split(".")
        node = result
        for key in parents:
            node = node.setdefault(key, {})
        if value is DROP:
            node.pop(last, None)
        else:
            node[last] = value
    return result
