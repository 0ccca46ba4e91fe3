# SPDX-License-Identifier: GPL-2.0
"""labvm.explain: a failure's detail opens with expected, seen and hint;
KUnit's reports are put in that form."""

import unittest

from labvm.explain import explained_first, first_lab_frame, kunit_explained


class ExplainedFirst(unittest.TestCase):
    def test_the_explanation_moves_before_the_log(self):
        detail = ["24573 loads, stores", "expected: private stores to work",
                  "seen:     463 raised SIGBUS", "hint:     dax_bh_cow() (TODO 1)",
                  "(on ext4: read its ext4 counterpart)", "e2fsck 1.47.0"]
        self.assertEqual(explained_first(detail), [
            "expected: private stores to work", "seen:     463 raised SIGBUS",
            "hint:     dax_bh_cow() (TODO 1)", "(on ext4: read its ext4 counterpart)",
            "24573 loads, stores", "e2fsck 1.47.0"])

    def test_only_the_first_explanation_moves(self):
        detail = ["log", "expected: a", "seen:     b", "hint:     c", "log 2",
                  "expected: d", "seen:     e", "hint:     f"]
        self.assertEqual(explained_first(detail)[:5],
                         ["expected: a", "seen:     b", "hint:     c", "log", "log 2"])

    def test_a_raw_assertion_stays_raw(self):
        detail = ["Expected NULL (0) != p (0)", "mmap: No such device"]
        self.assertEqual(explained_first(detail), detail)


# As lab 1's KUnit module prints them, on the skeleton (console lines).
LAB1 = [
    "        ok 1 ram0",
    "        # pmem_is_contiguous: ASSERTION FAILED at ../checks/lab1/kunit/lab1_kunit.c:124",
    "        Expected lab1_op(test, 0, &kaddr0, &pfn0, 4096) > 0L, but",
    "            lab1_op(test, 0, &kaddr0, &pfn0, 4096) == 0",
    "pmem0 gives a page at sector 0 (hint: pmem_direct_access() in drivers/nvdimm/pmem.c, TODO 3)",
    "        not ok 2 pmem0",
]


class KUnitExplained(unittest.TestCase):
    def test_message_values_hint_and_device(self):
        self.assertEqual(kunit_explained(LAB1), [
            "expected: pmem0 gives a page at sector 0",
            "seen:     lab1_op(test, 0, &kaddr0, &pfn0, 4096) == 0 (on pmem0)",
            "hint:     pmem_direct_access() in drivers/nvdimm/pmem.c, TODO 3",
            "(at lab1_kunit.c:124: lab1_op(test, 0, &kaddr0, &pfn0, 4096) > 0L)"])

    def test_without_a_message_the_assertion_is_what_was_expected(self):
        got = kunit_explained(["    # c: EXPECTATION FAILED at a/b.c:7",
                               "    Expected x == y, but", "        x == 1",
                               "        y == 2"])
        self.assertEqual(got, ["expected: x == y", "seen:     x == 1; y == 2",
                               "(at b.c:7: x == y)"])

    def test_other_lines_are_kept_after(self):
        got = kunit_explained(["    cannot open /dev/pmem0: -2"])
        self.assertEqual(got, ["cannot open /dev/pmem0: -2"])


class FirstLabFrame(unittest.TestCase):
    FUNCS = {"dax_fault": "fs/dax_bh.c", "ext2_dax_fault": "fs/ext2/file.c"}

    def test_the_first_frame_in_the_labs_code(self):
        trace = ["Call Trace:", " <TASK>", " ? dax_fault+0x10/0x300",
                 " lock_acquire+0xc1/0x2a0", " ext2_dax_fault.isra.0+0x3a/0x90",
                 " dax_fault+0x8a/0x300", " __do_fault+0x30/0x120"]
        self.assertEqual(first_lab_frame(trace, self.FUNCS),
                         ("ext2_dax_fault", "fs/ext2/file.c"))

    def test_the_faulting_instruction_counts_first(self):
        self.assertEqual(first_lab_frame(["RIP: 0010:dax_fault+0x12/0x300",
                                          " ext2_dax_fault+0x3a/0x90"], self.FUNCS),
                         ("dax_fault", "fs/dax_bh.c"))

    def test_none_when_no_frame_is_the_labs(self):
        self.assertIsNone(first_lab_frame([" panic+0x110/0x28a"], self.FUNCS))


if __name__ == "__main__":
    unittest.main()
