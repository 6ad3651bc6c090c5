"""The dialogs: settings, servers, models, search, export and import."""
