"""``python -m verify_pr.publish``: the publish action's step."""

import sys

from verify_pr.publish.main import main

sys.exit(main())
