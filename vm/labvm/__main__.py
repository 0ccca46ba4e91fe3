# SPDX-License-Identifier: GPL-2.0
"""The entry point: "python3 vm/labvm MODE ..." runs labvm.cli.main()."""

import os
import sys

# Run as a directory, Python puts vm/labvm itself first on the path, where
# module names like "select" would shadow the standard library's: put vm/
# there instead, and import the package by its name.
sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from labvm.cli import main  # noqa: E402

sys.exit(main())
