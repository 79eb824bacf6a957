"""``python -m neoplan …`` (see neoplan.cli)."""

import sys

from .cli import main

sys.exit(main())
