"""Small data structures (Qt-free)."""
