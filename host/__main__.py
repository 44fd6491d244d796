"""``python -m host``: the same as ``scala40-host``."""

import sys

from host.cli import main

sys.exit(main())
