"""The conversation tree, its messages and their statuses (Qt-free)."""
