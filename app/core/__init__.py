"""Rill's Qt-free core: inference backends, buffering, prompts, rendering.

Nothing under ``app.core`` may import Qt (enforced by tests/core/test_layering.py).
"""
