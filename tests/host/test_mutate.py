"""scripts/mutate.py (make mutate): sites, operators, ids, patches,
resuming and the report, on a small C file, with no kernel tree."""
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    'mutate', os.path.join(HERE, '..', '..', 'scripts', 'mutate.py'))
mutate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutate)

# The kernel's own code: no mutant may touch it.
BEFORE = '''\
#include <linux/fs.h>

static int helper(int a, int b)
{
\treturn a < b && helper(b, a);
}
'''
# What "the series" adds: a function of its own.
ADDED = '''\

int zero_tail(struct inode *inode, loff_t pos, size_t len)
{
\tconst char *msg = "pos < len, x->y";\t/* not code: a == b */
\tint shift = pos << 2;
\tloff_t end = pos >> 3;
\tint err;

\tif (pos >= inode->i_size)
\t\treturn 0;
\tfilemap_invalidate_lock(inode->i_mapping);
\terr = ext2_zero_blocks(inode, pos, len);
\tif (err) {
\t\tfilemap_invalidate_unlock(inode->i_mapping);
\t\treturn err;
\t}
\tif (len)
\t\tdax_bh_zero(inode, len);
\tfilemap_invalidate_unlock(inode->i_mapping);
\tcopy_range(inode, pos, len);
\treturn shift + end + (msg != NULL);
}
'''
AFTER = BEFORE + ADDED
FIRST = BEFORE.count('\n') + 1      # the first added line


def fake_diff(before, after, path='fs/t.c'):
    """What git diff -U0 says when after is before with lines added at its end."""
    n, k = before.count('\n'), after.count('\n') - before.count('\n')
    body = after.split('\n')[n:n + k]
    return ('diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -%d,0 +%d,%d @@\n'
            % (path, path, path, path, n, n + 1, k) + ''.join('+%s\n' % l for l in body))


def mutants(text=AFTER, before=BEFORE):
    added = mutate.added_lines(fake_diff(before, text))['fs/t.c']
    return mutate.generate('fs/t.c', text, added, 5)


def mutated(m, text=AFTER):
    return mutate.splice(text, m.edits)


class Sites(unittest.TestCase):
    def test_diff_lines(self):
        self.assertEqual(mutate.added_lines(fake_diff(BEFORE, AFTER))['fs/t.c'],
                         set(range(FIRST, AFTER.count('\n') + 1)))
        # context lines count; removed ones do not
        diff = '+++ b/f.c\n@@ -3,3 +3,3 @@\n a\n-b\n+c\n d\n'
        self.assertEqual(mutate.added_lines(diff), {'f.c': {4}})

    def test_only_added_lines(self):
        ms = mutants()
        self.assertTrue(ms)
        self.assertTrue(all(m.line > FIRST and m.func == 'zero_tail' for m in ms))
        for m in ms:    # the kernel's helper() is as it was
            self.assertTrue(mutated(m).startswith(BEFORE), m.id)

    def test_strings_comments_shifts_arrows_untouched(self):
        for m in mutants():
            text = mutated(m)
            self.assertIn('"pos < len, x->y";\t/* not code: a == b */', text, m.id)
            self.assertIn('#include <linux/fs.h>', text)
            self.assertNotIn('<<=', text)
            self.assertNotIn('>>=', text)
            if m.op == 'rel':
                self.assertEqual(text.count('->'), AFTER.count('->'), m.id)
        self.assertEqual(sorted(m.desc.split(': ')[1] for m in mutants() if m.op == 'rel'),
                         ["'!=' -> '==' in", "'>=' -> '>' in"])


class Operators(unittest.TestCase):
    def changed(self, op):
        return [mutated(m) for m in mutants() if m.op == op]

    def test_rel(self):
        self.assertTrue(any('\tif (pos > inode->i_size)\n' in t for t in self.changed('rel')))
        self.assertTrue(any('(msg == NULL)' in t for t in self.changed('rel')))

    def test_plus_minus_on_lengths(self):
        plus, minus = self.changed('plus1'), self.changed('minus1')
        self.assertTrue(any('ext2_zero_blocks(inode, pos + 1, len);' in t for t in plus))
        self.assertTrue(any('ext2_zero_blocks(inode, pos, len - 1);' in t for t in minus))
        # a shift binds looser than +: bracketed
        self.assertTrue(any('\tloff_t end = (pos >> 3) + 1;\n' in t for t in plus))
        # shift is no length: its right side is left alone
        self.assertFalse(any('int shift = (pos << 2)' in t for t in plus + minus))
        # nor is a pointer argument, nor inode
        self.assertFalse(any('inode + 1' in t or 'inode->i_mapping + 1' in t for t in plus))
        self.assertEqual(len(plus), len(minus))

    def test_removed_call(self):
        texts = self.changed('nocall')
        # the body of an if without braces becomes an empty statement
        self.assertTrue(any('\tif (len)\n\t\t;\n\tfilemap_invalidate_unlock' in t
                            for t in texts))
        # a used result becomes 0
        self.assertTrue(any('\terr = 0;\n' in t for t in texts))
        self.assertEqual(len(texts), 2)

    def test_lock_removed_with_its_unlocks(self):
        (text,) = self.changed('nolock')
        self.assertNotIn('filemap_invalidate_lock(', text)
        self.assertNotIn('filemap_invalidate_unlock(', text)
        self.assertIn('\tif (err) {\n\t\treturn err;\n\t}\n', text)
        # an unlock is never removed alone: that would deadlock
        for m in mutants():
            self.assertEqual(mutated(m).count('filemap_invalidate_unlock(') == 2,
                             mutated(m).count('filemap_invalidate_lock(') == 1, m.id)

    def test_lock_without_unlock_is_no_mutant(self):
        text = AFTER.replace('filemap_invalidate_unlock(inode->i_mapping);',
                             'other_call(inode->i_mapping);')
        self.assertFalse([m for m in mutants(text) if m.op == 'nolock'])

    def test_swap(self):
        self.assertIn('\tcopy_range(inode, len, pos);\n', ''.join(self.changed('swap')))
        # min() is symmetric: swapping its arguments changes nothing
        text = AFTER.replace('copy_range(', 'min(')
        self.assertFalse([m for m in mutants(text) if 'in min()' in m.desc])


class Ids(unittest.TestCase):
    def test_unique_and_shaped(self):
        ids = [m.id for m in mutants()]
        self.assertEqual(len(ids), len(set(ids)))
        for i in ids:
            self.assertRegex(
                i, r'^t\.c:zero_tail:(rel|plus1|minus1|nocall|nolock|swap):[0-9a-f]{8}$')

    def test_stable_when_lines_move(self):
        old = {m.id for m in mutants()}
        # a line of the kernel's above, and a line of the series' inside
        before = BEFORE.replace('#include <linux/fs.h>\n',
                                '#include <linux/fs.h>\n#include <linux/mm.h>\n')
        text = before + ADDED.replace('\tint err;\n', '\tint err;\n\tint unrelated = 1;\n')
        new = {m.id for m in mutants(text, before)}
        self.assertEqual(old, new)
        lines = {m.id: m.line for m in mutants(text, before)}
        self.assertTrue(all(lines[m.id] > m.line for m in mutants() if m.line > FIRST + 6))

    def test_same_line_twice_gets_two_ids(self):
        text = AFTER.replace('\tcopy_range(inode, pos, len);\n',
                             '\tcopy_range(inode, pos, len);\n\tcopy_range(inode, pos, len);\n')
        swaps = [m for m in mutants(text) if m.op == 'swap' and 'copy_range' in m.desc]
        self.assertEqual(len(swaps), 2)
        self.assertNotEqual(swaps[0].id, swaps[1].id)


class Patches(unittest.TestCase):
    def test_every_patch_applies_with_git(self):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(['git', 'init', '-q', d], check=True)
            os.makedirs(os.path.join(d, 'fs'))
            with open(os.path.join(d, 'fs', 't.c'), 'w') as f:
                f.write(AFTER)
            for m in mutants():
                p = os.path.join(d, 'm.patch')
                text = mutate.unified(m, AFTER)
                self.assertTrue(text.startswith('Mutant: in zero_tail(): '), text)
                self.assertNotIn('Caught-by:', text)
                with open(p, 'w') as f:
                    f.write(text)
                r = subprocess.run(['git', '-C', d, 'apply', '--check', p],
                                   capture_output=True, text=True)
                self.assertEqual((r.returncode, r.stderr), (0, ''), m.id + '\n' + text)

    def test_patch_name_is_a_ref_name(self):
        for m in mutants():
            name = mutate.patch_name(m.id)
            r = subprocess.run(['git', 'check-ref-format', 'refs/daxlab/mutant-%s-5' % name])
            self.assertEqual(r.returncode, 0, name)


class Running(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.results = os.path.join(self.dir.name, 'results.tsv')
        self.ms = mutants()[:5]

    def tearDown(self):
        self.dir.cleanup()

    def test_resume_skips_what_is_done(self):
        mutate.append_result(self.results, self.ms[0], 'killed', 10, 'lab5_x.y')
        mutate.append_result(self.results, self.ms[1], 'not-viable', 1, 'does not build')
        mutate.append_result(self.results, self.ms[2], 'error', 1, 'QEMU did not start')
        ran = []
        mutate.run(self.ms, self.results, lambda m: ran.append(m.id) or ('survived', 'ok'),
                   say=lambda s: None)
        # an error was the machine's: tried again
        self.assertEqual(ran, [m.id for m in self.ms[2:]])
        rows = mutate.load_results(self.results)
        self.assertEqual(rows[self.ms[2].id]['outcome'], 'survived')
        self.assertEqual(rows[self.ms[0].id]['outcome'], 'killed')
        ran.clear()
        mutate.run(self.ms, self.results, lambda m: ran.append(m.id) or ('killed', ''),
                   say=lambda s: None)
        self.assertEqual(ran, [])

    def test_progress_says_done_total_and_time_left(self):
        said, clock = [], iter(range(0, 1000, 10))
        mutate.run(self.ms[:2], self.results, lambda m: ('killed', 'lab5_a'),
                   say=said.append, clock=lambda: next(clock))
        self.assertRegex(said[2], r'^mutate: \[1/2\] .*: killed \(lab5_a\) in 0:00:10; '
                                  r'elapsed 0:00:20, about 0:00:20 left$')
        self.assertRegex(said[-1], r'^mutate: \[2/2\] .*: killed \(lab5_a\) in 0:00:10; '
                                   r'elapsed 0:00:40, about 0:00:00 left$')

    def test_three_errors_in_a_row_stop_the_run(self):
        with self.assertRaises(mutate.Error):
            mutate.run(self.ms, self.results, lambda m: ('error', 'checks did not build'),
                       say=lambda s: None)
        self.assertEqual(len(mutate.load_results(self.results)), 3)

    def test_verdicts(self):
        v = mutate.verdict
        report = 'PASS    boot\nPASS    lab5_z.a\nFAIL    lab5_z.b\n1 passed, 1 failed\n'
        self.assertEqual(v(report, '', 5, False), ('killed', 'lab5_z.b'))
        self.assertEqual(v('NOT RUN lab5_z.a\n', '', 5, False), ('killed', 'lab5_z.a'))
        self.assertEqual(v('PASS    lab5_z.a\nFAIL    lab3_y.a\n', '', 5, False)[0], 'survived')
        self.assertEqual(v(None, 'build: error: the kernel did not build; nothing', 5,
                           False)[0], 'not-viable')
        self.assertEqual(v(None, 'x.patch does not apply on lab-base', 5, False)[0],
                         'not-viable')
        self.assertEqual(v(None, 'booting', 5, True)[0], 'timeout')
        # a timeout that the runner turned into a failed check is a kill
        self.assertEqual(v('FAIL    lab5_z.a\n', '', 5, True)[0], 'killed')
        self.assertEqual(v(None, 'labvm: QEMU failed', 5, False)[0], 'error')

    def test_sample_is_reproducible_and_spread(self):
        ms = [m._replace(id='%s%d' % (m.id, i), path=p)
              for i, p in enumerate(['fs/a.c'] * 30 + ['fs/b.c'] * 10) for m in mutants()[:1]]
        one, two = mutate.sample(ms, 8, 3), mutate.sample(ms, 8, 3)
        self.assertEqual([m.id for m in one], [m.id for m in two])
        self.assertEqual([m.path for m in one].count('fs/a.c'), 6)
        self.assertNotEqual([m.id for m in one], [m.id for m in mutate.sample(ms, 8, 4)])
        self.assertEqual(len(mutate.sample(ms, 100, 1)), 40)


class Report(unittest.TestCase):
    def setUp(self):
        base = mutants()[0]
        self.ms = [base._replace(id='%s%d' % (name, i), path=path, lab=lab)
                   for name, path, lab, n in (('core', 'fs/dax_bh.c', 2, 12),
                                              ('ext2_', 'fs/ext2/file.c', 5, 4),
                                              ('ext4_', 'fs/ext4/inode.c', 6, 3))
                   for i in range(n)]
        row = lambda o: {'outcome': o, 'tree': ''}
        self.results = {'core%d' % i: row('killed') for i in range(9)}
        self.results.update({'core9': row('survived'), 'core10': row('not-viable'),
                             'ext2_0': row('killed'), 'ext2_1': row('killed'),
                             'ext2_2': row('timeout'), 'ext4_0': row('killed')})
        self.equivalent = {'core11': 'dead code', 'ext2_3': 'dead code',
                           'gone:f:rel:00000000': 'stale'}

    def run_report(self, goal, style='text'):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stderr(err):
            met = mutate.report(self.ms, self.results, self.equivalent, style, goal, out)
        return met, out.getvalue(), err.getvalue()

    def test_arithmetic(self):
        stats = mutate.tally(self.ms, self.results, self.equivalent)
        core = stats[('group', 'core')]
        # 9 killed of 10: not viable and equivalent are left out
        self.assertEqual(mutate.rate(core), (90.0, 10))
        self.assertEqual((core['generated'], core['equivalent'], core['not-viable']), (11, 1, 1))
        self.assertEqual(mutate.rate(stats[('group', 'ext2')]), (100.0, 2))
        self.assertEqual(mutate.rate(stats[('lab', 6)]), (100.0, 1))
        self.assertEqual(stats[('file', 'fs/ext4/inode.c')]['not run'], 2)

    def test_goal(self):
        met, out, err = self.run_report(90)
        self.assertTrue(met, out)
        self.assertIn('met: goal 90% for fs/dax_bh.c: 90.0% of 10 mutants', out)
        self.assertIn('gone:f:rel:00000000 is in tests/mutate/equivalent but no longer', err)
        self.assertFalse(self.run_report(91)[0])
        del self.results['ext4_0']      # nothing measured is no figure
        met, out, _ = self.run_report(50)
        self.assertFalse(met)
        self.assertIn('NOT MET: goal 50% for fs/ext4/ DAX paths: nothing measured', out)

    def test_survivors_and_rests_on(self):
        for style in ('text', 'markdown', 'rst'):
            met, out, _ = self.run_report(None, style)
            self.assertTrue(met)
            self.assertIn('Survivors (1)', out)
            self.assertIn('core9', out)
            self.assertIn('rests on', out)
        self.assertRegex(self.run_report(None)[1],
                         r'fs/dax_bh\.c +90% +9 +1 +10 +11 +1 +0 +0 +1')

    def test_equivalent_file(self):
        with tempfile.NamedTemporaryFile('w', delete=False) as f:
            f.write('# comment\n\na:b:rel:12345678  dead code, never runs\n')
        try:
            self.assertEqual(mutate.load_equivalent(f.name),
                             {'a:b:rel:12345678': 'dead code, never runs'})
            with open(f.name, 'a') as g:
                g.write('a:b:rel:87654321\n')
            with self.assertRaisesRegex(mutate.Error, 'has no reason'):
                mutate.load_equivalent(f.name)
        finally:
            os.unlink(f.name)


if __name__ == '__main__':
    unittest.main()
