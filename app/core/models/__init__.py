"""Model files: where they live, what their GGUF headers say, every model Rill knows (Qt-free)."""
