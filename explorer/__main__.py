"""``python -m explorer`` runs the ``turnscope`` command."""

import sys

from explorer.cli import main

sys.exit(main())
