"""The conversation list in the sidebar."""
