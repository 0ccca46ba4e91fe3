#!/usr/bin/env python3
"""Cut the open level of a lab from its guided skeleton.

The guided skeleton (labs/NN-*/skeleton) is the one source of both levels.
For one file the skeleton changed, this prints the file of the open level:

- A function the skeleton adds (it is not defined in the file before the
  skeleton, --before) and whose body holds a TODO loses its body.  The
  comment above it, its contract, stays; the body becomes a stub that
  names the TODOs the student writes there and returns what the guided
  stub returns (or, where the guided body computes its answer, the
  refusal its return type allows: VM_FAULT_SIGBUS, -EOPNOTSUPP, false).
- A static function that only a cut body called is marked
  __maybe_unused, so that the open skeleton builds without new warnings.
- A TODO in a function the kernel already had (ext2_get_block(), say)
  stays as it is: there the student changes a few lines of a long
  function, and the TODO says which lines and why, not how.

Usage: open-level.py --before OLD GUIDED   (the open file on stdout)
       open-level.py --list --before OLD GUIDED   (the functions it cuts)
       open-level.py --check --before OLD GUIDED  (each cut function must
           have its contract: a kerneldoc comment above it with Context:
           and, unless it returns void, Return:; exit 1 naming those
           that have none)
"""
import argparse
import re
import sys

# A TODO that opens a comment or a comment's line; "see TODO 6" in the
# text of another TODO does not count.
TODO = re.compile(r'^\s*(?:/\*+|\*|//)\s*TODO (\d+)')
# The first line of a definition: type and name at column 0, a "(" and no
# ";" (a prototype) at its end.
DEF_START = re.compile(r'^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(')
NOT_DEFS = ('if', 'for', 'while', 'switch', 'return', 'sizeof')


def functions(lines):
    """(name, first line, '{' line, '}' line) of each function definition."""
    out = []
    i = 0
    while i < len(lines):
        m = DEF_START.match(lines[i])
        if not m or m.group(1) in NOT_DEFS:
            i += 1
            continue
        # The signature runs to a line that is "{" alone; a ";" first means
        # a prototype or a declaration.
        j = i
        while j < len(lines) and lines[j] != '{' and not lines[j].rstrip().endswith(';'):
            j += 1
        if j >= len(lines) or lines[j] != '{':
            i += 1
            continue
        k = j + 1
        while k < len(lines) and lines[k] != '}':
            k += 1
        if k >= len(lines):
            break
        out.append((m.group(1), i, j, k))
        i = k + 1
    return out


def stub_return(signature, body):
    """The statement the open stub ends with, or None for a void function."""
    head = signature.split('(')[0]
    name_at = head.rstrip().rfind(re.findall(r'\w+', head)[-1])
    rtype = head[:name_at]
    if re.search(r'\bvoid\b', rtype) and '*' not in rtype:
        return None
    # The guided stub's own answer, when it is a constant.
    last = [ln.strip() for ln in body if ln.strip()]
    if last and re.fullmatch(r'return (-?[A-Z][A-Z0-9_]*|-?\d+|false|true|NULL);', last[-1]):
        return last[-1]
    if 'vm_fault_t' in rtype:
        return 'return VM_FAULT_SIGBUS;'
    if re.search(r'\bbool\b', rtype):
        return 'return false;'
    if '*' in rtype:
        return 'return ERR_PTR(-EOPNOTSUPP);'
    if re.search(r'\b(size_t|unsigned)\b', rtype):
        return 'return 0;'
    if re.fullmatch(r'\s*(static\s+)?(inline\s+)?(int|long|ssize_t|loff_t|s64)\s*', rtype):
        return 'return -EOPNOTSUPP;'
    raise ValueError('%s: no stub return for the type "%s"; end the guided '
                     'stub with a constant return' % (signature, rtype.strip()))


def code_only(text):
    """text without its comments and strings, for counting calls."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"', ' ', text, flags=re.S)


def defined_names(text):
    return {f[0] for f in functions(text.split('\n'))}


def contract(lines, first):
    """The kerneldoc comment right above line first, or ''."""
    end = first - 1
    if end < 0 or lines[end].strip() != '*/':
        return ''
    start = end
    while start > 0 and not lines[start].startswith('/*'):
        start -= 1
    if not lines[start].startswith('/**'):
        return ''
    return '\n'.join(lines[start:end + 1])


def missing_contracts(guided, before):
    """What each cut function's contract lacks, one line per function;
    and each TODO this script could not place, so that a layout it does
    not read cannot ship a step list to the open level unnoticed."""
    lines = guided.split('\n')
    _, cut = open_level(guided, before)
    out = []
    existing = defined_names(before)
    funcs = functions(lines)
    inside = set()
    for name, first, brace, close in funcs:
        inside.update(range(brace, close + 1))
        body = '\n'.join(lines[brace + 1:close])
        if name not in existing and name not in cut and re.search(r'\bTODO \d', body):
            out.append('%s(): new, with a TODO, but not cut (a TODO must open '
                       'its comment)' % name)
    for i, ln in enumerate(lines):
        if i not in inside and ln.startswith('\t') and re.search(r'\bTODO \d', ln):
            out.append('line %d: a TODO in code that is not read as a function '
                       '(kernel style: type and name on one line, "{" and "}" '
                       'alone on theirs)' % (i + 1))
    for name, first, brace, _ in functions(lines):
        if name not in cut:
            continue
        doc = contract(lines, first)
        sig = ' '.join(ln.strip() for ln in lines[first:brace])
        want = ['Context:']
        if stub_return(sig, []) is not None:
            want.append('Return:')
        lacks = [w for w in want if w not in doc]
        if not doc:
            out.append('%s(): no kerneldoc comment (/** ... */) right above it' % name)
        elif lacks:
            out.append('%s(): its contract has no %s' % (name, ' or '.join(lacks)))
    return out


def open_level(guided, before):
    lines = guided.split('\n')
    existing = defined_names(before)
    cuts = []
    for name, first, brace, close in functions(lines):
        body = lines[brace + 1:close]
        todos = sorted({int(t) for ln in body for t in TODO.findall(ln)})
        if todos and name not in existing:
            cuts.append((name, first, brace, close, todos))
    out = list(lines)
    for name, first, brace, close, todos in reversed(cuts):
        sig = ' '.join(ln.strip() for ln in lines[first:brace])
        ret = stub_return(sig, lines[brace + 1:close])
        which = ', '.join(str(t) for t in todos)
        stub = ['\t/* TODO %s: write %s() to the contract above. */' % (which, name)]
        if ret:
            stub.append('\t' + ret)
        out[brace + 1:close] = stub
    # Static functions that only a cut body called.
    code = code_only('\n'.join(out))
    was = code_only(guided)
    for name, first, brace, close in functions(out):
        if not out[first].startswith('static ') or '__maybe_unused' in out[first]:
            continue
        word = r'\b%s\b' % re.escape(name)
        if len(re.findall(word, code)) == 1 and len(re.findall(word, was)) > 1:
            out[first] = out[first].replace('static ', 'static __maybe_unused ', 1)
    return '\n'.join(out), [c[0] for c in cuts]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--before', required=True,
                    help='the file before the skeleton (empty or /dev/null if new)')
    ap.add_argument('--list', action='store_true',
                    help='print the functions cut, one per line, instead')
    ap.add_argument('--check', action='store_true',
                    help='exit 1, naming them, if cut functions lack a contract')
    ap.add_argument('guided')
    args = ap.parse_args()
    # Bytes in, the same bytes out: never the locale's encoding.
    with open(args.guided, encoding='utf-8', errors='surrogateescape') as f:
        guided = f.read()
    with open(args.before, encoding='utf-8', errors='surrogateescape') as f:
        before = f.read()
    try:
        text, cut = open_level(guided, before)
    except ValueError as e:
        sys.exit('open-level.py: %s: %s' % (args.guided, e))
    if args.check:
        bad = missing_contracts(guided, before)
        for b in bad:
            print(args.guided + ': ' + b)
        sys.exit(1 if bad else 0)
    if args.list:
        print('\n'.join(cut))
    else:
        sys.stdout.buffer.write(text.encode('utf-8', 'surrogateescape'))


if __name__ == '__main__':
    main()
