"""Model Markdown to safe HTML, cut into small display units (Qt-free)."""
