"""`python -m paddle_ir ...` is the `paddle-ir` command."""

import sys

from paddle_ir.cli.main import main

sys.exit(main())
