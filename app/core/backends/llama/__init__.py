"""The local model: llama-cpp-python driven token by token (Qt-free)."""
