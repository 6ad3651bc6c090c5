"""PyInstaller entry point: the same as the installed ``rill`` gui-script (app.cli:main)."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
