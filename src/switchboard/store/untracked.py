"""Copies of rows that no session tracks, for hot paths that read a row and write with statements.

Loading a mapped row into a session (identity map, instance state) and flushing it back cost more
CPU than the statements themselves on a send's path (docs/decisions/0004-hot-statements-without-orm.md). A copy is
built with ``model_construct`` from the row's columns, typed as the ORM reads them, and takes no
attribute assignment (it has no instance state): a change is a new copy (``updated_copy``), and
adding one to a session fails instead of inserting the row a second time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from sqlmodel import SQLModel

Model = TypeVar("Model", bound=SQLModel)


def copy_of(model: type[Model], values: Mapping[Any, Any], prefix: str = "") -> Model | None:
    """The ``model`` row whose columns ``values`` holds (each name after ``prefix``); None if its id is NULL.

    The prefix tells apart the tables of one joined read (their columns share names); a NULL id is
    an outer join that found no row.
    """
    if values[prefix + "id"] is None:
        return None
    names = model.__table__.c.keys()  # type: ignore[attr-defined]
    return cast(Model, model.model_construct(**{name: values[prefix + name] for name in names}))


def updated_copy(copy: Model, values: Mapping[Any, Any]) -> Model:
    """A new copy of ``copy`` with ``values`` changed."""
    return cast(Model, type(copy).model_construct(**{**copy.model_dump(), **values}))
