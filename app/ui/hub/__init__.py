"""Model › Get More Models…: the Hugging Face Hub in the window (search,
recommended models, files with their fit, downloads)."""
