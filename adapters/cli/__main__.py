"""``python -m adapters.cli`` is ``candidates``."""

import sys

from adapters.cli import main

sys.exit(main())
