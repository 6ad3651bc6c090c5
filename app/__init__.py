"""Rill: a desktop chat application for local LLMs whose window never freezes."""

__version__ = "0.1.0"
