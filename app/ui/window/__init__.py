"""The main window and what hangs off it: menus, status bar, keyboard navigation."""
