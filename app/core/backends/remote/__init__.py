"""Remote inference servers: OpenAI-compatible (llama-server, LM Studio, vLLM,
hosted APIs) and Ollama's native API, behind the same ``Backend`` protocol as
the local model (Qt-free)."""
