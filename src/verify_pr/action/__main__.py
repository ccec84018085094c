"""``python -I -m verify_pr.action [check-pull | build-image]``: the verify step's entry."""

import sys

from verify_pr.action.entry import main

sys.exit(main())
