"""The declaration's ``errors`` block: which HTTP statuses are business (negocio) or infrastructure failures,
and which body ``status_code`` values carry a semantic hint.

``negocio`` and ``infra`` take either a list of status codes (``[404, 409]``) or an object mapping a
status code to a hint (``{"409": "That slot was just taken"}``); the shape the tenant wrote is kept.
The spec makes 401, 403, 429 and every 5xx infra "regardless of declaration", so listing one under
``negocio`` is valid: it is kept as written, classified infra, and reported by ``errors_block_warnings``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from switchboard.domain.tools.checks import reject_unknown_keys, require_object, require_string
from switchboard.domain.tools.errors import ToolDeclarationError

ALWAYS_INFRA = frozenset({401, 403, 429})
NEGOCIO_ALWAYS_INFRA = "NEGOCIO_ALWAYS_INFRA"
_BLOCK_FIELDS = ("negocio", "infra", "semantic")


@dataclass(frozen=True)
class DeclarationWarning:
    """Something a valid declaration says that will not do what it seems to (``field`` points at it)."""

    code: str
    message: str
    field: str


def is_always_infra(status: int) -> bool:
    """401, 403, 429 and every 5xx are infra whatever the declaration says."""
    return status in ALWAYS_INFRA or 500 <= status <= 599


def declared_statuses(entries: Any) -> dict[int, str | None]:
    """Status code to declared hint (None in the list form) of a validated negocio or infra entry."""
    if isinstance(entries, dict):
        return {int(code): hint for code, hint in entries.items()}
    if isinstance(entries, list):
        return {int(code): None for code in entries}
    return {}


def validate_errors_block(block: Any, *, field: str = "declaration.errors") -> dict[str, Any]:
    """Check the errors block and return it with empty defaults for the parts left out."""
    block = require_object({} if block is None else block, field=field)
    reject_unknown_keys(block, _BLOCK_FIELDS, field=field)
    negocio = _statuses(block.get("negocio", []), field=f"{field}.negocio")
    infra = _statuses(block.get("infra", []), field=f"{field}.infra")
    both = sorted(set(negocio) & set(infra))
    if both:
        raise ToolDeclarationError(
            f"{field}: status {both[0]} is declared both negocio and infra",
            field=f"{field}.infra",
            value=both[0],
        )
    semantic = require_object(block.get("semantic", {}), field=f"{field}.semantic")
    for key, hint in semantic.items():
        if not key:
            raise ToolDeclarationError(f"{field}.semantic has an empty key", field=f"{field}.semantic")
        require_string(hint, field=f"{field}.semantic.{key}")
    return {"negocio": block.get("negocio", []), "infra": block.get("infra", []), "semantic": semantic}


def errors_block_warnings(
    block: dict[str, Any], *, field: str = "declaration.errors"
) -> list[DeclarationWarning]:
    """Warnings for a validated errors block: each negocio status that is always infra."""
    entries = block.get("negocio")
    if isinstance(entries, dict):
        places = [(int(code), f"{field}.negocio.{code}") for code in entries]
    else:
        places = [(int(code), f"{field}.negocio[{i}]") for i, code in enumerate(entries or [])]
    return [
        DeclarationWarning(
            code=NEGOCIO_ALWAYS_INFRA,
            message=(
                f"{field}.negocio lists {code}, which is always infra (401, 403, 429 and 5xx): an answer "
                f"with it escalates to a person and its negocio hint is never shown to the model"
            ),
            field=place,
        )
        for code, place in places
        if is_always_infra(code)
    ]


def _statuses(entries: Any, *, field: str) -> list[int]:
    if isinstance(entries, list):
        return [_status(code, field=f"{field}[{i}]") for i, code in enumerate(entries)]
    if isinstance(entries, dict):
        codes = []
        for code, hint in entries.items():
            codes.append(_status(code, field=f"{field}.{code}"))
            require_string(hint, field=f"{field}.{code}")
        return codes
    raise ToolDeclarationError(
        f"{field} must be a list of status codes or an object of status code to hint", field=field
    )


def _status(code: Any, *, field: str) -> int:
    """A declarable status: 300 to 599 (2xx is always ok; 1xx never reaches us)."""
    if isinstance(code, str) and code.isdigit() and len(code) == 3:
        code = int(code)
    if isinstance(code, bool) or not isinstance(code, int) or not 300 <= code <= 599:
        raise ToolDeclarationError(
            f"{field} must be an HTTP status code from 300 to 599", field=field, value=code
        )
    return code
