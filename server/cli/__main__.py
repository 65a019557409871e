"""``python -m server.cli`` runs the ``sparrow`` command."""

import sys

from server.cli import main

sys.exit(main())
