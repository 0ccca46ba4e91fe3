# SPDX-License-Identifier: GPL-2.0
"""What the runner's unit tests share."""

import contextlib
import io


def dies(test, fn, *args):
    """fn(*args) must stop labvm with an error; its message, for the test
    to check that it says what to do."""
    err = io.StringIO()
    with test.assertRaises(SystemExit), contextlib.redirect_stderr(err):
        fn(*args)
    test.assertTrue(err.getvalue().startswith("labvm: error: "), err.getvalue())
    return err.getvalue()
