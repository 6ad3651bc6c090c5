"""Foundations every other core package may use: folders and the settings file, translation, About facts (Qt-free)."""
