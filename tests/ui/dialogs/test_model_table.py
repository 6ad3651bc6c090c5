"""ModelTable: one row per model file; the status says what stops a file
from opening or what to know about it; the sorted view sorts numbers as
numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PyQt6.QtCore import Qt

from app.core.models.catalog import SOURCE_ADDED, SOURCE_FOLDER, CatalogEntry
from app.core.models.gguf_info import GGUFInfo
from app.ui.dialogs.model_table import (
    COL_MEMORY,
    COL_NAME,
    COL_PARAMS,
    COL_STATUS,
    COL_TEMPLATE,
    COLUMNS,
    ENTRY_ROLE,
    ModelSortProxy,
    ModelTable,
)

MiB = 1024 * 1024


def info(path: Path, size_mib: int, params: int, **kwargs: Any) -> GGUFInfo:
    return GGUFInfo(str(path), file_size=size_mib * MiB, architecture="llama", parameters=params,
                    has_chat_template=True, chat_template_kind="ChatML", **kwargs)


def text(table: ModelTable, row: int, col: int) -> str:
    return table.data(table.index(row, col))


def test_rows_say_what_each_file_is_and_what_stops_it(qapp: Any, tmp_path: Path) -> None:
    big, small, gone, plain = (tmp_path / f"{n}.gguf" for n in ("big", "small", "gone", "plain"))
    table = ModelTable(n_ctx=4096)
    table.set_entries([
        CatalogEntry(big, (SOURCE_FOLDER,), True),
        CatalogEntry(small, (SOURCE_ADDED,), True),
        CatalogEntry(gone, (SOURCE_ADDED,), False),
        CatalogEntry(plain, (SOURCE_FOLDER,), True),
    ])
    assert table.rowCount() == 4 and table.columnCount() == len(COLUMNS)
    assert table.unread_paths() == [str(big), str(small), str(plain)]  # the missing one is not read
    assert text(table, 0, COL_STATUS) == "Reading…" and text(table, 2, COL_STATUS) == "✗ File not found"
    assert not table.can_open(0) and not table.can_open(2)
    table.set_info(str(big), info(big, 8000, 7_000_000_000))
    table.set_info(str(small), info(small, 100, 135_000_000))
    table.set_info(str(plain), GGUFInfo(str(plain), file_size=MiB, architecture="llama"))
    assert table.unread_paths() == []
    assert text(table, 1, COL_STATUS) == "OK" and table.can_open(1)
    assert text(table, 0, COL_PARAMS) == "7B" and text(table, 0, COL_NAME) == "big"
    assert text(table, 3, COL_STATUS) == "⚠ No template: uses ChatML" and text(table, 3, COL_TEMPLATE).startswith("none")
    table.set_available(1000 * MiB)
    assert table.too_large(0) and not table.too_large(1)
    assert text(table, 0, COL_STATUS) == "⚠ More memory than is free" and table.can_open(0)
    assert table.data(table.index(1, COL_NAME), ENTRY_ROLE).path == small
    table.remove_row(0)
    assert table.row_of(big) is None and table.row_of(small) == 0


def test_the_sorted_view_sorts_numbers_as_numbers(qapp: Any, tmp_path: Path) -> None:
    paths = [tmp_path / f"m{i}.gguf" for i in range(3)]
    table = ModelTable()
    table.set_entries([CatalogEntry(p, (SOURCE_FOLDER,), True) for p in paths])
    for p, params in zip(paths, (9_000_000, 135_000_000, 70_000_000_000), strict=True):
        table.set_info(str(p), info(p, params // MiB + 1, params))
    proxy = ModelSortProxy()
    proxy.setSourceModel(table)
    proxy.sort(COL_PARAMS, Qt.SortOrder.DescendingOrder)
    assert [proxy.data(proxy.index(r, COL_PARAMS)) for r in range(3)] == ["70B", "135M", "9M"]
    proxy.sort(COL_MEMORY, Qt.SortOrder.AscendingOrder)
    assert [proxy.data(proxy.index(r, COL_NAME)) for r in range(3)] == ["m0", "m1", "m2"]
