# SPDX-License-Identifier: GPL-2.0
"""labvm.cpio: the per-boot archive's list: the configuration quoted for
the guest's shell, and FILES= with its directories and links."""

import os
import stat
import tempfile
import unittest

from helpers import dies
from labvm.cpio import make_run_cpio


class RunCpio(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        # a stand-in for usr/gen_init_cpio: the "archive" is the list
        self.gen = os.path.join(self.dir, "gen")
        with open(self.gen, "w") as f:
            f.write("#!/bin/sh\ncat \"$1\"\n")
        os.chmod(self.gen, 0o755)

    def pack(self, conf, files=None):
        out = make_run_cpio(self.gen, os.path.join(self.dir, "run"), conf,
                            "Linux version x #1\n", files)
        with open(out) as f:
            return f.read().splitlines()

    def test_conf_is_quoted_for_the_shell(self):
        entries = self.pack({"LABVM_CMD": "echo 'hi'; ls $HOME"})
        self.assertIn("file /run/labvm/conf %s/run/conf 0644 0 0" % self.dir, entries)
        with open(os.path.join(self.dir, "run", "conf")) as f:
            self.assertEqual(f.read(), "LABVM_CMD='echo '\\''hi'\\''; ls $HOME'\n")

    def test_files_keep_their_tree_modes_and_links(self):
        files = os.path.join(self.dir, "files")
        os.makedirs(os.path.join(files, "sub"))
        prog = os.path.join(files, "sub", "prog")
        with open(prog, "w") as f:
            f.write("x")
        os.chmod(prog, stat.S_IRWXU)
        os.symlink("sub/prog", os.path.join(files, "link"))
        entries = self.pack({}, files)
        self.assertIn("dir /run/labvm/files/sub 0755 0 0", entries)
        self.assertIn("file /run/labvm/files/sub/prog %s 700 0 0" % prog, entries)
        self.assertIn("slink /run/labvm/files/link sub/prog 0777 0 0", entries)

    def test_a_space_is_refused(self):
        files = os.path.join(self.dir, "files")
        os.makedirs(files)
        open(os.path.join(files, "a b"), "w").close()
        self.assertIn("rename it", dies(self, self.pack, {}, files))
