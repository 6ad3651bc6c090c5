"""The user's choices: reply and model preferences, appearance (Qt-free)."""
