"""Export and import of conversations: Markdown, and Rill's versioned JSON (Qt-free).

The JSON format is documented in ``docs/FORMAT.md``. In short::

    {"format": "rill.export", "version": 1, "exported_at": "2025-01-31T12:00:00+00:00",
     "generator": "Rill 0.1.0",
     "conversations": [{"id", "title", "created_at", "updated_at", "pinned", "model",
                        "system_prompt", "params", "current_leaf",
                        "messages": [{"id", "parent_id", "role", "content", "status",
                                      "error", "created_at", "meta": {...}}, ...]}]}

It holds the whole tree of every conversation (every branch), its metadata,
its own settings (``system_prompt``: left out when it follows the default
system prompt of Settings; ``params``: its sampling overrides) and each
reply's stats; never Rill's settings, API keys or anything else about the user.

Import validates the WHOLE document before it writes anything, then writes it
in one transaction: malformed input raises ``ImportFormatError`` naming the
line, column and field at fault, and the store is left untouched. A
conversation whose id (or one of whose message ids) already exists in the
store is imported as a copy with new ids: nothing is ever overwritten.

The package: ``errors``, ``export_json`` (what to export, the JSON format),
``export_markdown`` (the one Markdown exporter: File › Export and Edit ›
Copy), ``export_html`` (one self-contained page, math as inline SVG; the
PDF export prints it), ``validate`` (reading and checking a document), ``locate`` (a JSON
path's line and column), ``importer`` (writing it). They are typed against
the small ``StoreReader`` / ``StoreWriter`` protocols, which ``Store`` meets.
"""

from app.core.conversation.model import current_path
from app.core.store.exchange.errors import ExchangeError, ImportFormatError, UnknownConversationError
from app.core.store.exchange.export_html import html_page, write_html
from app.core.store.exchange.export_json import (
    FORMAT_NAME,
    FORMAT_VERSION,
    PAGE_SIZE,
    ConversationsReader,
    StoreReader,
    conversation_to_dict,
    export_json,
    message_to_dict,
    resolve_conversations,
    write_json,
)
from app.core.store.exchange.export_markdown import (
    conversation_markdown,
    conversation_markdown_parts,
    export_markdown,
    write_markdown,
)
from app.core.store.exchange.importer import ImportResult, StoreWriter, import_json, import_parsed
from app.core.store.exchange.locate import JsonPath, line_column, locate
from app.core.store.exchange.validate import MAX_ID_LENGTH, ParsedConversation, decode_bytes, format_path, parse_export

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_ID_LENGTH",
    "PAGE_SIZE",
    "ConversationsReader",
    "ExchangeError",
    "ImportFormatError",
    "ImportResult",
    "JsonPath",
    "ParsedConversation",
    "StoreReader",
    "StoreWriter",
    "UnknownConversationError",
    "conversation_markdown",
    "conversation_markdown_parts",
    "conversation_to_dict",
    "current_path",
    "decode_bytes",
    "export_json",
    "export_markdown",
    "format_path",
    "html_page",
    "import_json",
    "import_parsed",
    "line_column",
    "locate",
    "message_to_dict",
    "parse_export",
    "resolve_conversations",
    "write_html",
    "write_json",
    "write_markdown",
]
