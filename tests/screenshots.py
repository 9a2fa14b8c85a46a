"""Where the browser tests save their screenshots: a folder of their own under the system's
temporary directory, so that a test run leaves the checkout as it was, or the folder
``SCREENSHOTS_DIR`` names (``make screenshots`` sets it to ``docs/screenshots``, the
images the guides show)."""

import os
import tempfile
from pathlib import Path


def screenshots_dir() -> Path:
    chosen = os.environ.get("SCREENSHOTS_DIR")
    path = Path(chosen) if chosen else Path(tempfile.gettempdir()) / "newsroom-screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path
