"""scripts/open-level.py: what the open level cuts, keeps and marks."""
import importlib.util
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    'open_level', os.path.join(HERE, '..', '..', 'scripts', 'open-level.py'))
open_level = importlib.util.module_from_spec(spec)
spec.loader.exec_module(open_level)

BEFORE = '''\
int old_fn(int x)
{
\t/* TODO 5: the kernel's function: this TODO stays. */
\treturn x;
}
'''

GUIDED = BEFORE + '''
static int helper(int x)
{
\treturn x + 1;
}

/**
 * new_fn() - the function the student writes
 * @x: a number
 *
 * Context: any.
 * Return: x + 1.
 */
int new_fn(int x)
{
\t/*
\t * TODO 1: call helper() with x,
\t * then return what it gives.
\t */
\treturn 0;
}

/**
 * new_ptr() - a pointer
 *
 * Context: any.
 * Return: a pointer.
 */
static void *new_ptr(void)
{
\t/* TODO 2: step one, step two. */
\tvoid *p = NULL;

\treturn p;
}

/* A plain comment, not a contract. */
static void no_contract(void)
{
\t/* TODO 3: do it. */
\thelper(0);
}

int uses_helper_too(void)
{
\treturn 1;
}
'''


class OpenLevel(unittest.TestCase):
    def setUp(self):
        self.text, self.cut = open_level.open_level(GUIDED, BEFORE)

    def test_cuts_only_new_functions_with_todos(self):
        self.assertEqual(self.cut, ['new_fn', 'new_ptr', 'no_contract'])

    def test_the_kernels_own_todo_stays(self):
        self.assertIn('TODO 5: the kernel\'s function: this TODO stays.', self.text)

    def test_step_lists_are_gone_and_contracts_stay(self):
        for step in ('call helper() with x', 'step one', 'then return'):
            self.assertNotIn(step, self.text)
        self.assertIn(' * Return: x + 1.', self.text)
        self.assertIn('/* TODO 1: write new_fn() to the contract above. */',
                      self.text)

    def test_stub_returns(self):
        # The guided stub's constant, else what the type allows.
        self.assertIn('write new_fn() to the contract above. */\n\treturn 0;',
                      self.text)
        self.assertIn('\treturn ERR_PTR(-EOPNOTSUPP);', self.text)
        self.assertIn('/* TODO 3: write no_contract() to the contract above. */\n}',
                      self.text)

    def test_helper_left_uncalled_is_maybe_unused(self):
        self.assertIn('static __maybe_unused int helper(int x)', self.text)

    def test_check_names_a_function_without_contract(self):
        self.assertEqual(open_level.missing_contracts(GUIDED, BEFORE),
                         ['no_contract(): no kerneldoc comment (/** ... */) '
                          'right above it'])

    def test_check_wants_context(self):
        guided = GUIDED.replace(' * Context: any.\n * Return: x + 1.',
                                ' * Return: x + 1.')
        self.assertIn('new_fn(): its contract has no Context:',
                      open_level.missing_contracts(guided, BEFORE))

    def test_check_names_a_todo_it_could_not_cut(self):
        # Kernel style broken: "{" on the signature line, a trailing TODO.
        guided = BEFORE + '''
int braced(void) {
\t/* TODO 7: write it. */
\treturn 0;
}

int trailing(void)
{
\treturn 1; /* TODO 8: this. */
}
'''
        bad = open_level.missing_contracts(guided, BEFORE)
        self.assertTrue(any('line 8: a TODO in code' in b for b in bad), bad)
        self.assertTrue(any(b.startswith('trailing(): new, with a TODO, but not cut')
                            for b in bad), bad)

    def test_no_stub_for_a_type_it_does_not_know(self):
        guided = BEFORE + '''
pfn_t make_pfn(void)
{
\t/* TODO 9: build it. */
\treturn compute();
}
'''
        with self.assertRaises(ValueError):
            open_level.open_level(guided, BEFORE)

    def test_a_file_without_todos_is_kept_as_it_is(self):
        plain = BEFORE.replace('TODO 5', 'note')
        self.assertEqual(open_level.open_level(plain, '')[0], plain)


if __name__ == '__main__':
    unittest.main()
