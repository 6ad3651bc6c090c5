"""Conversations that last: the SQLite store, full-text search, export and import (Qt-free)."""
