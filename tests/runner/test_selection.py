# SPDX-License-Identifier: GPL-2.0
"""labvm.selection: the T= rule, as labcheck_match() in the guest has it."""

import unittest

from labvm.selection import glob_or_substring, suite_may_match


class Filter(unittest.TestCase):
    def test_substring_glob_and_lists(self):
        name = "lab3_fault.read_of_a_hole"
        for pattern, want in [("", True), ("hole", True), ("lab3_*", True),
                              ("*.read_*", True), ("lab3", True), ("lab4", False),
                              ("lab4_*", False), ("lab4,hole", True), (",", False),
                              ("read_of_a_hol?", False)]:
            self.assertEqual(glob_or_substring(pattern, name), want, pattern)

    def test_a_suite_is_skipped_only_when_no_check_can_match(self):
        self.assertTrue(suite_may_match("", "persistence"))
        self.assertTrue(suite_may_match("persist", "persistence"))
        self.assertTrue(suite_may_match("persistence.x", "persistence"))
        self.assertTrue(suite_may_match("*x", "persistence"))
        self.assertFalse(suite_may_match("lab3_fault", "persistence"))
        self.assertTrue(suite_may_match("persistence.*x", "persistence"))
        self.assertTrue(suite_may_match("pers*", "persistence"))
        self.assertTrue(suite_may_match("persistence.a.b*", "persistence"))
        self.assertFalse(suite_may_match("lab3_fault.*x", "persistence"))
        self.assertFalse(suite_may_match("persistence_x.*y", "persistence"))
        self.assertTrue(suite_may_match("lab3_fault.*x,persistence.*y", "persistence"))
