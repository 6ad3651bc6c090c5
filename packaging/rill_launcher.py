"""PyInstaller entry point: the same as the installed ``rill`` gui-script (app.cli:main).

``multiprocessing.freeze_support()`` first: the render worker process
(``app.core.render.pool``) is started with *spawn*, which in the bundle runs
this executable again with multiprocessing's own arguments."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from app.cli import main

    sys.exit(main())
