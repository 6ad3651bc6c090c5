"""Models from the Hugging Face Hub (Qt-free): search and metadata (api), the
endpoint, token and errors (endpoint), quantization and companions from file
names (quant), will-it-fit labels (fit), the curated list (recommended), a
remote GGUF header by HTTP ranges (remote_gguf), resumable verified
downloads (download) and their queue (queue)."""
