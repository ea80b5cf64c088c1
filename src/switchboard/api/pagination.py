"""The list envelope every list endpoint answers (CONTRACTS 6)."""

from __future__ import annotations

from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends, Query
from pydantic import BaseModel

from switchboard.domain.errors import ValidationFailed

T = TypeVar("T")

MAX_PER_PAGE = 100
# Deep offsets are slow and overflow OFFSET; filters (since/until) reach old rows.
MAX_PAGE = 10_000


class Page(BaseModel, Generic[T]):
    data: list[T]
    page: int
    per_page: int
    total: int
    has_more: bool


class PageParams(BaseModel):
    page: int
    per_page: int


async def page_params(
    page: Annotated[int, Query(ge=1, le=MAX_PAGE, description="1-based page number")] = 1,
    per_page: Annotated[int, Query(ge=1, le=MAX_PER_PAGE, description="items per page, at most 100")] = 20,
) -> PageParams:
    """1 <= page <= 10,000 and 1 <= per_page <= 100, else 400 (``async``: no thread hop per request).

    The bounds are declared on the query parameters so the OpenAPI document shows
    them; a violation is a RequestValidationError, which the error handlers
    answer with the spec's 400 (VALIDATION_FAILED, details.field). The checks
    below keep that true for a direct call of this function too.
    """
    if page < 1 or page > MAX_PAGE:
        raise ValidationFailed(
            f"page must be between 1 and {MAX_PAGE}",
            code="VALIDATION_FAILED",
            details={"field": "page", "value": page},
        )
    if per_page < 1 or per_page > MAX_PER_PAGE:
        raise ValidationFailed(
            f"per_page must be between 1 and {MAX_PER_PAGE}",
            code="VALIDATION_FAILED",
            details={"field": "per_page", "value": per_page},
        )
    return PageParams(page=page, per_page=per_page)


Paging = Annotated[PageParams, Depends(page_params)]


def envelope(data: list[Any], *, paging: PageParams, total: int) -> dict[str, Any]:
    """``{data, page, per_page, total, has_more}``."""
    return {
        "data": data,
        "page": paging.page,
        "per_page": paging.per_page,
        "total": total,
        "has_more": paging.page * paging.per_page < total,
    }
