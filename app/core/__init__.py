"""Rill's Qt-free core: inference backends, buffering, prompts, rendering.

Nothing under ``app.core`` may import Qt (enforced by tests/test_layering.py).
"""
