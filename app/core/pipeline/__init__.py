"""Carrying tokens from the producer to the consumer, and measuring it (Qt-free)."""
