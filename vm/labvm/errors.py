# SPDX-License-Identifier: GPL-2.0
"""How labvm stops on a bad input: what happened, then what to do."""

import sys


def die(msg, *more, code=1):
    sys.stderr.write("labvm: error: %s\n" % msg)
    for m in more:
        sys.stderr.write("labvm:        %s\n" % m)
    sys.exit(code)
