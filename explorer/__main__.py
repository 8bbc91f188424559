"""``python -m explorer`` runs the ``turnscope`` command."""

import sys

from explorer.cli.main import main

sys.exit(main())
