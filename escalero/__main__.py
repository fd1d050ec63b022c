"""`python -m escalero`: the same as the `escalero` command."""

import sys

from escalero.cli import main

sys.exit(main())
