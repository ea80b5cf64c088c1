"""The Core tables behind SQLModel classes, for statements written in SQLAlchemy Core (upserts)."""

from __future__ import annotations

from sqlalchemy import Table, inspect
from sqlmodel import SQLModel


def table_of(model: type[SQLModel]) -> Table:
    """The ``Table`` a table model maps (what ``model.__table__`` holds; SQLModel does not type that)."""
    table = inspect(model).local_table
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} is not a table model")
    return table
