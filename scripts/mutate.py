#!/usr/bin/env python3
"""Mechanical mutation testing of the reference series (make mutate).

The mutants of tests/mutants/ are bugs someone thought of; these are made
by rule, so that the kill rate measures the checks and not our
imagination.  Only lines the series itself adds are mutated (never the
kernel's own), in the .c files it touches, each as it stands in the
reference of the lab that added it: a site of lab L is a "+" line of the
diff from the reference of lab L-1 to that of lab L (variant.sh ref), in
a function body, outside "#ifdef CONFIG_FS_DAX" (never built here).  Its
mutant is checked as make mutants checks a written one: MUTANT= on lab
L's reference, with lab L's checks (T=labL_); killed if one fails.

Operators, each a few mutants a line at most:
  rel     a relational operator swapped: < and <=, > and >=, == and !=
  plus1, minus1   +1 or -1 on a length, offset, size or count: a call's
          argument or an assignment's right side naming one
  nocall  a call to a zeroing or invalidation function, a barrier, or the
          MAP_SYNC commit removed (its value, if used, becomes 0)
  nolock  a lock call removed, together with its unlocks in the same
          function (removing one alone would deadlock, not race)
  swap    two adjacent arguments of a call swapped, both plain lengths or
          offsets (pos and len, start and end)

A mutant's id, FILE:FUNCTION:OPERATOR:HASH, hashes its lab, file,
function, the text it changes and what it becomes, never a line number:
it stays when unrelated lines move.  Outcomes go to build/mutate/
results.tsv, a line a mutant as it is checked: a run that stops resumes
there.  Mutants no check can catch are listed by hand, with the reason,
in tests/mutate/equivalent: not run, not counted.

Usage: mutate.py list [--lab N] [--file PATH] [--counts]
       mutate.py patch ID
       mutate.py run [--lab N] [--file PATH] [--sample K] [--seed S]
                     [--ids FILE] [--timeout SECONDS]
       mutate.py report [--markdown | --rst] [--goal PERCENT]
"""
import argparse
import bisect
import difflib
import fcntl
import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter, defaultdict, namedtuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BUILD') or os.path.join(ROOT, 'build')
KSRC = os.environ.get('KSRC') or os.path.join(BUILD, 'linux')
LOGS = os.environ.get('LOGS') or os.path.join(BUILD, 'logs')
OUT = os.path.join(BUILD, 'mutate')
RESULTS = os.path.join(OUT, 'results.tsv')
EQUIVALENT = os.path.join(ROOT, 'tests', 'mutate', 'equivalent')

# One edit: replace text[start:end] of the file with repl.
Edit = namedtuple('Edit', 'start end repl')
Mutant = namedtuple('Mutant', 'id lab path line op func desc edits tree')

# Outcomes a run records.  "error" (the machine failed, not the mutant:
# the checks did not build, QEMU did not start) is tried again next time.
FINAL = ('killed', 'survived', 'not-viable', 'timeout')
# The goal's groups (--goal): the core, and each filesystem's DAX paths
# (what the series adds to fs/ext2/ and fs/ext4/).
GROUPS = [('core', 'fs/dax_bh.c', lambda p: p == 'fs/dax_bh.c'),
          ('ext2', 'fs/ext2/ DAX paths', lambda p: p.startswith('fs/ext2/')),
          ('ext4', 'fs/ext4/ DAX paths', lambda p: p.startswith('fs/ext4/'))]


class Error(Exception):
    """What went wrong, then what to do about it: printed, exit 1."""


def die(msg, *hints):
    raise Error('\n'.join([msg] + list(hints)))


def warn(msg):
    sys.stderr.write('mutate: warning: %s\n' % msg)


# --- Reading C ---------------------------------------------------------

def mask(text):
    """text with comments, the insides of string and character literals,
    and preprocessor lines blanked to spaces (newlines kept), so that
    offsets still match and no operator is found where none is."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != '\n':
                out[k] = ' '
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text[i] in '"\'':
            j = i + 1
            while j < n and text[j] not in (text[i], '\n'):
                j += 2 if text[j] == '\\' else 1
            blank(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    masked = ''.join(out)
    lines = masked.split('\n')
    cont = False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith('#'):
            cont = line.endswith('\\')
            lines[k] = ' ' * len(line)
    return '\n'.join(lines)


# A branch of "#ifdef CONFIG_FS_DAX" is never built in the lab kernels
# (DESIGN.md: the upstream DAX core is off): its mutants cannot be caught.
DEAD_IF = re.compile(r'#\s*(?:ifdef\s+CONFIG_FS_DAX|if\s+(?:defined\s*\(?\s*CONFIG_FS_DAX\s*\)?'
                     r'|IS_ENABLED\s*\(\s*CONFIG_FS_DAX\s*\)))\s*$')
LIVE_IF = re.compile(r'#\s*(?:ifndef\s+CONFIG_FS_DAX|if\s+!\s*(?:defined|IS_ENABLED)\s*\(\s*'
                     r'CONFIG_FS_DAX\s*\))\s*$')


def dead_lines(lines):
    """Indexes of the lines that only a CONFIG_FS_DAX kernel compiles."""
    stack, dead = [], set()     # per #if: [this branch dead, else-branch dead]
    for k, line in enumerate(lines):
        s = re.sub(r'/\*.*?\*/|//.*', '', line).strip()
        if re.match(r'#\s*if', s):
            stack.append([bool(DEAD_IF.match(s)), bool(LIVE_IF.match(s))])
        elif re.match(r'#\s*elif', s) and stack:
            stack[-1] = [bool(DEAD_IF.match(s.replace('elif', 'if', 1))), False]
        elif re.match(r'#\s*else', s) and stack:
            stack[-1] = [stack[-1][1], False]
        elif re.match(r'#\s*endif', s) and stack:
            stack.pop()
        elif any(d for d, _ in stack):
            dead.add(k)
    return dead


def functions(mlines):
    """Per line (of the masked text): the function whose body holds it, or
    None; and the index of the line that opens that body.  Kernel style: a
    body opens with "{" alone at column 0 and ends with "}" alone there;
    the name is the first "name(" of the nearest line above that starts
    at column 0."""
    names, bodies, cur, at = [None] * len(mlines), [None] * len(mlines), None, None
    for i, line in enumerate(mlines):
        if cur is None and line.rstrip() == '{':
            cur, at = '?', i
            for j in range(i - 1, max(i - 16, -1), -1):
                m = re.search(r'([A-Za-z_]\w*)\s*\(', mlines[j])
                if mlines[j][:1] not in ('', ' ', '\t') and m:
                    cur = m.group(1)
                    break
        elif cur is not None and line.rstrip() == '}':
            cur = None
        elif cur is not None:
            names[i], bodies[i] = cur, at
    return names, bodies


def added_lines(diff):
    """The new-side line numbers (1-based) of the '+' lines of a unified
    diff, per path."""
    added, path, n = defaultdict(set), None, 0
    for line in diff.splitlines():
        if line.startswith('+++ '):
            path = line[4:].strip()
            path = None if path == '/dev/null' else re.sub(r'^b/', '', path)
        elif line.startswith('@@'):
            m = re.match(r'@@ -\d+(?:,\d+)? \+(\d+)', line)
            n = int(m.group(1)) if m else 0
        elif path and line.startswith('+'):
            added[path].add(n)
            n += 1
        elif path and line.startswith(' '):
            n += 1
    return dict(added)


def match_close(code, i):
    """The index of the bracket closing the one at code[i], or -1."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] in '([{':
            depth += 1
        elif code[j] in ')]}':
            depth -= 1
            if depth == 0:
                return j
    return -1


def split_top(code, a, b, stops=','):
    """code[a:b] cut at the characters of stops outside brackets, as
    (start, end) spans trimmed of white space."""
    spans, depth, s = [], 0, a
    for j in range(a, b + 1):
        c = code[j] if j < b else stops[0]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif c in stops and depth == 0:
            t0, t1 = s, j
            while t0 < t1 and code[t0].isspace():
                t0 += 1
            while t1 > t0 and code[t1 - 1].isspace():
                t1 -= 1
            spans.append((t0, t1))
            s = j + 1
    return spans


def top_level(expr):
    """expr with what is inside brackets dropped."""
    out, depth = [], 0
    for c in expr:
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif depth == 0:
            out.append(c)
    return ''.join(out)


# Names of lengths, offsets, sizes and counts: an identifier is one if a
# part of it (split at "_") is one of these.  Types (size_t) are not.
LENGTHY = {'len', 'length', 'size', 'count', 'offset', 'off', 'pos', 'end',
           'start', 'bytes', 'avail', 'nr', 'index', 'blocksize', 'first',
           'copied', 'done', 'gap', 'want', 'pgoff', 'sector', 'sects'}
TYPES = {'long', 'int', 'short', 'char', 'unsigned', 'signed', 'const', 'struct',
         'bool', 'void', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64'}


def lengthy(expr):
    for ident in re.findall(r'[A-Za-z_]\w*', expr):
        if ident in TYPES or ident.endswith('_t'):
            continue
        if any(part in LENGTHY for part in ident.lower().split('_')):
            return True
    return False


KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'typeof', '__typeof__',
            'alignof', '_Alignof', 'defined', 'case', 'do', 'else', 'asm',
            '__attribute__', 'offsetof', 'container_of', 'goto'}
# Calls whose arguments are no lengths to get wrong: messages, assertions,
# pointer tests, compiler hints.
NO_ARGS = re.compile(r'^(pr_\w+|printk\w*|dev_\w+|ext[24]_msg|ext[24]_error\w*|WARN\w*|BUG\w*|'
                     r'lockdep_\w+|trace_\w+|EXPORT_SYMBOL\w*|BUILD_BUG\w*|IS_ENABLED|'
                     r'IS_ERR\w*|PTR_ERR|ERR_PTR|vmf_error|errseq_\w+|likely|unlikely|'
                     r'READ_ONCE|WRITE_ONCE)$')
# min(a, b) is max(b, a)'s twin: swapping their arguments changes nothing.
COMMUTATIVE = re.compile(r'^(min|max|min_t|max_t|min3|max3|min_not_zero|swap)$')
# Zeroing and invalidation (and the barriers that order them), and the
# commit that makes a MAP_SYNC fault durable: removing the call must show.
# memcpy_flushcache() only when it copies zeroes.
REMOVABLE = re.compile(r'^(dax_clear_blocks|dax_bh_zero\w*|dax_bh_truncate_page|dax_zero\w*|'
                       r'memset|clear_\w+|invalidate_inode_pages2\w*|invalidate_mapping_pages|'
                       r'truncate_pagecache\w*|truncate_inode_pages\w*|unmap_mapping_range|'
                       r'unmap_mapping_pages|smp_mb|smp_wmb|smp_rmb|wmb|rmb|mb|'
                       r'blkdev_issue_zeroout|sb_issue_zeroout|ext[24]_\w*zero\w*|'
                       r'ext2_write_failed|vfs_fsync_range)$')
LOCKS = re.compile(r'^(filemap_invalidate_lock\w*|i_mmap_lock\w*|inode_lock\w*|mutex_lock|'
                   r'spin_lock\w*|xas_lock\w*|read_lock\w*|write_lock\w*|down_read|'
                   r'down_write|lock_page|ext4_journal_start)$')
UNLOCK = {'down_read': 'up_read', 'down_write': 'up_write',
          'ext4_journal_start': 'ext4_journal_stop',
          'spin_lock_irqsave': 'spin_unlock_irqrestore'}
REL = {'<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=', '!=': '=='}
ASSIGN = re.compile(r'[ \t]*(?:[A-Za-z_]\w*[ \t]+\**)*?'
                    r'(\**[A-Za-z_][\w.]*(?:(?:->|\.)\w+|\[[\w.>-]*\])*)[ \t]*(\+=|-=|=)(?!=)')


def unlock_of(name):
    return UNLOCK.get(name) or re.sub(r'(^|_)lock(_|$)', r'\1unlock\2', name, count=1)


def norm(s):
    return ' '.join(s.split())


def short(s, width=60):
    s = norm(s)
    return s if len(s) <= width else s[:width - 3] + '...'


def around(line, a, b, width=30):
    """line[a:b] with up to width characters of the line either side."""
    left, right = line[:a].lstrip(), line[b:].rstrip()
    if len(left) > width:       # cut at a space, not inside a name
        left = '...' + left[-width:].split(' ', 1)[-1]
    if len(right) > width:
        right = right[:width].rsplit(' ', 1)[0] + '...'
    return left + line[a:b] + right


def abbrev(expr, width=40):
    """expr, shortened for a description: what is inside its innermost
    brackets, then inside all of them, becomes "..." while it is long."""
    expr = norm(expr)
    for level in (2, 1):
        if len(expr) <= width:
            break
        out, depth = [], 0
        for c in expr:
            depth -= c in ')]'
            if depth < level:
                out.append(c)
            elif out[-1:] != ['...']:
                out.append('...')
            depth += c in '(['
        expr = ''.join(out)
    return short(expr, width)


def plus_minus(expr, delta):
    """expr + 1 or expr - 1, bracketed where a + would bind tighter than
    what expr's own top level holds (a shift, a comparison, ...)."""
    top = top_level(expr).replace('->', '')
    if re.search(r'[<>=!&|^?]', top):
        expr = '(%s)' % expr
    return '%s %s 1' % (expr, '+' if delta > 0 else '-')


class Source:
    """One file of one lab's reference: its text, and where its lines are."""

    def __init__(self, path, text, added, lab, tree=''):
        self.path, self.text, self.lab, self.tree = path, text, lab, tree
        self.code = mask(text)
        self.lines = text.split('\n')
        self.mlines = self.code.split('\n')
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.func, self.body = functions(self.mlines)
        dead = dead_lines(self.lines)
        # Lines that may be mutated: added by the lab, in a function body,
        # compiled, and holding code.
        self.ok = {k for k in range(len(self.lines))
                   if k + 1 in added and self.func[k] and k not in dead and
                   self.mlines[k].strip()}

    def line_of(self, off):
        return bisect.bisect_right(self.starts, off) - 1

    def touched(self, edits):
        return {k for e in edits
                for k in range(self.line_of(e.start), self.line_of(max(e.start, e.end - 1)) + 1)}

    def line_span(self, k):
        """The offsets of line k with its newline: what deleting it cuts."""
        return self.starts[k], self.starts[k] + len(self.lines[k]) + 1

    def statement_end(self, i):
        """The index of the ";" ending the statement that goes on at i,
        or -1 if a bracket closes first (i is inside a for header)."""
        depth = 0
        for j in range(i, len(self.code)):
            c = self.code[j]
            if c in '([{':
                depth += 1
            elif c in ')]}':
                depth -= 1
                if depth < 0:
                    return -1
            elif c == ';' and depth == 0:
                return j
        return -1


def calls(src, k):
    """The calls that start on line k: (name, name's offset, "(" offset,
    ")" offset, argument spans)."""
    a = src.starts[k]
    for m in re.finditer(r'\b([A-Za-z_]\w*)\s*\(', src.mlines[k]):
        if m.group(1) in KEYWORDS:
            continue
        op = a + m.end() - 1
        close = match_close(src.code, op)
        if close < 0:
            continue
        args = split_top(src.code, op + 1, close) if src.code[op + 1:close].strip() else []
        yield m.group(1), a + m.start(1), op, close, args


def simple(expr):
    return re.fullmatch(r'[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*)*', expr) is not None


def relationals(src, k):
    """< and <=, > and >=, == and != swapped, one at a time."""
    a, line = src.starts[k], src.lines[k]
    for m in re.finditer(r'<<=|>>=|<<|>>|->|<=|>=|==|!=|<|>', src.mlines[k]):
        if m.group() in REL:
            new = REL[m.group()]
            yield 'rel', [Edit(a + m.start(), a + m.end(), new)], "'%s' -> '%s' in: %s" % (
                m.group(), new, around(line, m.start(), m.end()))


def arguments(src, k):
    """+1 and -1 on the lengths a call is given; the swaps of two."""
    for name, at, op, close, args in calls(src, k):
        if NO_ARGS.match(name):
            continue
        texts = [src.text[s:e] for s, e in args]
        code = [src.code[s:e] for s, e in args]
        for i, (s, e) in enumerate(args):
            # not min_t()'s type, a pointer, a string or a number
            if i == 0 and name.endswith('_t') or not lengthy(code[i]) or \
               code[i].startswith('&') or re.search('["\']', code[i]) or \
               re.fullmatch(r'[\d\sxXa-fA-FuUlL]+', code[i]):
                continue
            for op_, d in (('plus1', 1), ('minus1', -1)):
                yield op_, [Edit(s, e, plus_minus(texts[i], d))], \
                    "'%s' -> '%s', argument %d of %s()" % (
                        abbrev(texts[i]), plus_minus(abbrev(texts[i]), d), i + 1, name)
        if COMMUTATIVE.match(name):
            continue
        for i in range(len(args) - 1):
            x, y = texts[i], texts[i + 1]
            if i == 0 and name.endswith('_t') or x == y or \
               not all(simple(v) and lengthy(v) and not v.isupper() for v in (x, y)):
                continue
            (s1, e1), (s2, e2) = args[i], args[i + 1]
            yield 'swap', [Edit(s1, e1, y), Edit(s2, e2, x)], \
                "swapped '%s, %s' in %s()" % (x, y, name)


def assignment(src, k):
    """+1 and -1 on the right side of "x = ...;" (or +=, -=) that starts
    on line k, if x is a length, or the right side adds or subtracts one."""
    code = src.mlines[k]
    m = ASSIGN.match(code)
    if not m or code.lstrip().startswith(('return', 'goto', 'case')):
        return
    lhs, rs = m.group(1), src.starts[k] + m.end()
    end = src.statement_end(rs)
    if end < 0:
        return
    s, e = split_top(src.code, rs, end)[0]     # up to a "," of "int a = 1, b;"
    rhs, rcode = src.text[s:e], src.code[s:e]
    adds = re.search(r'[+-]', top_level(rcode).replace('->', ''))
    if not rhs or rcode.startswith('{') or not (lengthy(lhs) or lengthy(rcode) and adds):
        return
    for op, d in (('plus1', 1), ('minus1', -1)):
        yield op, [Edit(s, e, plus_minus(rhs, d))], "'%s %s %s' -> '%s %s %s'" % (
            lhs, m.group(2), abbrev(rhs), lhs, m.group(2), plus_minus(abbrev(rhs), d))


def candidates(src):
    """Every mutation of the file's sites, in file order, as (line, op,
    edits, description), each touching sites only (a lock's unlocks
    excepted)."""
    out = []
    for k in sorted(src.ok):
        for gen in (relationals, arguments, assignment, removals):
            for op, edits, desc in gen(src, k):
                if op == 'nolock' or src.touched(edits) <= src.ok:
                    out.append((k, op, edits, 'in %s(): %s' % (src.func[k], desc)))
    return out


def statement_call(src, k):
    """If line k starts a statement that is one call, alone or as an
    assignment's or a return's value: (name, its offset, ")" offset, ";"
    offset, first-argument text, lhs or None)."""
    code = src.mlines[k]
    m = re.match(r'[ \t]*(?:(return)[ \t]+|(?:[A-Za-z_]\w*[ \t]+\**)*?'
                 r'(\**[A-Za-z_][\w.]*(?:(?:->|\.)\w+)*)[ \t]*=(?!=)[ \t]*)?'
                 r'([A-Za-z_]\w*)[ \t]*\(', code)
    if not m or m.group(3) in KEYWORDS:
        return None
    a = src.starts[k]
    op = a + m.end() - 1
    close = match_close(src.code, op)
    if close < 0:
        return None
    semi = close + 1
    while semi < len(src.code) and src.code[semi] in ' \t':
        semi += 1
    if semi >= len(src.code) or src.code[semi] != ';':
        return None
    args = split_top(src.code, op + 1, close)
    first = norm(src.text[args[0][0]:args[0][1]]) if args and args[0][1] > args[0][0] else ''
    lhs = m.group(1) or m.group(2)
    return m.group(3), a + m.start(3), close, semi, first, lhs, args


def drop_statement(src, k, semi):
    """Edits that remove the statement on lines k.. (to its ";"): the
    lines go, unless the statement is the whole body of an if, else, for
    or while without braces, which then gets an empty statement."""
    last = src.line_of(semi)
    if src.code[semi + 1:src.starts[last] + len(src.lines[last])].strip():
        return None     # more code after it on its line
    prev = next((src.mlines[j].strip() for j in range(k - 1, -1, -1)
                 if src.mlines[j].strip()), '')
    a, _ = src.line_span(k)
    _, b = src.line_span(last)
    if prev.endswith(')') or prev in ('else', '} else'):
        indent = re.match(r'[ \t]*', src.lines[k]).group()
        return Edit(a, b, indent + ';\n')
    return Edit(a, b, '')


def removals(src, k):
    """Removing the call that starts on line k: a zeroing or invalidation
    one, or a lock with its unlocks."""
    st = statement_call(src, k)
    if not st:
        return
    name, at, close, semi, first, lhs, args = st
    zeroes = name == 'memcpy_flushcache' and any(
        re.search(r'zero', src.text[s:e], re.I) for s, e in args[1:2])
    if LOCKS.match(name):
        # The lock and every unlock of the same object in the function.
        key = lhs if lhs and lhs != 'return' else first
        unlock = unlock_of(name)
        edits = [Edit(at, close + 1, '0') if lhs else drop_statement(src, k, semi)]
        for j, body in enumerate(src.body):
            u = statement_call(src, j) if body == src.body[k] and j != k else None
            if u and u[0] == unlock and u[4] == key:
                edits.append(Edit(u[1], u[2] + 1, '0') if u[5] else drop_statement(src, j, u[3]))
        if len(edits) > 1 and None not in edits:
            yield 'nolock', edits, 'removed %s(%s) and its %d %s()' % (
                name, short(first, 30), len(edits) - 1, unlock)
    elif REMOVABLE.match(name) or zeroes:
        call = abbrev(src.text[at:close + 1], 50)
        if lhs:
            lhs += ' ' if lhs == 'return' else ' = '
            yield 'nocall', [Edit(at, close + 1, '0')], "'%s%s' -> '%s0'" % (lhs, call, lhs)
        elif drop_statement(src, k, semi):
            yield 'nocall', [drop_statement(src, k, semi)], 'removed %s' % call


def tag(path):
    """The file part of an id: the path without fs/ or drivers/, so that
    ext2/file.c and ext4/file.c differ."""
    return re.sub(r'^(fs|drivers)/', '', path)


def generate(path, text, added, lab, tree=''):
    """The mutants of one file as it is in lab's reference, whose lines
    (1-based) in added are the ones the lab added."""
    src = Source(path, text, added, lab, tree)
    seen, occ, out = set(), Counter(), []
    for k, op, edits, desc in candidates(src):
        new = splice(text, edits)
        digest = hashlib.sha1(new.encode()).digest()
        if new == text or digest in seen:
            continue
        seen.add(digest)
        # What the mutant changes, block of lines by block: the hash's
        # input, with no line numbers in it.
        before, after = [], []
        for j0, j1 in blocks(src.touched(edits)):
            a, b = src.starts[j0], src.line_span(j1)[1]
            before.append(norm(text[a:b]))
            after.append(norm(splice(text[a:b], [e for e in edits if a <= e.start < b], a)))
        before, after = ' | '.join(before), ' | '.join(after)
        key = (src.func[k], op, before, after)
        occ[key] += 1
        h = hashlib.sha1('\0'.join([str(lab), path] + list(key) + [str(occ[key])])
                         .encode()).hexdigest()[:8]
        out.append(Mutant('%s:%s:%s:%s' % (tag(path), src.func[k], op, h), lab, path,
                          k + 1, op, src.func[k], desc, tuple(edits), tree))
    return out


def splice(text, edits, base=0):
    """text with the edits made; their offsets count from base."""
    for e in sorted(edits, key=lambda e: -e.start):
        text = text[:e.start - base] + e.repl + text[e.end - base:]
    return text


def blocks(lines):
    """Runs of consecutive numbers, as (first, last)."""
    out = []
    for j in sorted(lines):
        if out and out[-1][1] == j - 1:
            out[-1][1] = j
        else:
            out.append([j, j])
    return out


def unified(m, text):
    """The mutant as a patch for git apply, headed like tests/mutants/."""
    a = text.splitlines(keepends=True)
    b = splice(text, m.edits).splitlines(keepends=True)
    body = ''.join(difflib.unified_diff(a, b, 'a/' + m.path, 'b/' + m.path, n=3))
    return ('Mutant: %s (%s:%d, %s)\nMutation-id: %s\n\ndiff --git a/%s b/%s\n%s'
            % (m.desc, m.path, m.line, m.op, m.id, m.path, m.path, body))


def patch_name(mid):
    """A file and ref name for an id (variant.sh keeps a ref per mutant)."""
    return 'mut-' + re.sub(r'[^A-Za-z0-9_.+-]', '-', mid)


# --- The series --------------------------------------------------------

def git(*args):
    p = subprocess.run(['git', '-C', KSRC] + list(args), capture_output=True, text=True)
    if p.returncode:
        die('git %s failed: %s' % (' '.join(args), p.stderr.strip()),
            'Is build/linux the kernel tree that make tree made?')
    return p.stdout


def series_labs():
    path = os.path.join(ROOT, 'kernel-patches', 'series')
    labs = []
    for line in read_lines(path):
        f = line.split('#', 1)[0].split()
        if f and not re.fullmatch(r'lab\d+', f[0]):
            die('%s: bad line "%s" (want: labN FILE).' % (path, line.strip()))
        if f and int(f[0][3:]) not in labs:
            labs.append(int(f[0][3:]))
    return labs


_refs = {}


def ref(n):
    """The commit of lab n's reference (variant.sh makes it in the object
    store; no working tree is touched)."""
    if n not in _refs:
        if not os.path.exists(os.path.join(KSRC, '.git')):
            die('the kernel tree %s does not exist yet.' % KSRC,
                'Run: make tree   (or any make check-lab N, which creates it)')
        p = subprocess.run(['sh', os.path.join(ROOT, 'scripts', 'variant.sh'), 'ref', str(n)],
                           capture_output=True, text=True)
        if p.returncode:
            die('the reference of lab %d could not be made:\n%s' % (n, p.stderr.strip()))
        _refs[n] = p.stdout.strip()
    return _refs[n]


def series_mutants():
    """Every mutant of the series, lab by lab, file by file."""
    out = []
    for lab in sorted(series_labs()):
        cur, prev = ref(lab), ref(lab - 1) if lab > 0 else 'lab-base'
        tree = git('rev-parse', cur + '^{tree}').strip()[:12]
        diff = git('diff', '-U0', '--no-color', '--no-ext-diff', '--no-renames',
                   prev, cur, '--', '*.c')
        for path, added in sorted(added_lines(diff).items()):
            if path.startswith(('Documentation/', 'tools/', 'samples/')):
                continue
            out += generate(path, git('show', '%s:%s' % (cur, path)), added, lab, tree)
    return out


def select(mutants, lab=None, path=None):
    if lab is not None:
        have = sorted({m.lab for m in mutants})
        if lab not in have:
            die('lab %s has no mutants: the series adds no C code there.' % lab,
                'Labs with mutants: %s' % ' '.join(map(str, have)))
        mutants = [m for m in mutants if m.lab == lab]
    if path:
        # A path in the kernel tree, as git names it; ./ and build/linux/
        # in front are forgiven.
        p = os.path.normpath(os.path.abspath(path) if path.startswith(KSRC) else path)
        p = os.path.relpath(p, KSRC) if p.startswith(KSRC + '/') else p
        p = re.sub(r'^(\./)+|^build/linux/', '', p).rstrip('/')
        chosen = [m for m in mutants if m.path == p or m.path.startswith(p + '/')]
        if not chosen:
            die('no mutant in %s%s.' % (path, '' if lab is None else ' in lab %d' % lab),
                'The files with mutants: %s' % ' '.join(sorted({m.path for m in mutants})))
        mutants = chosen
    return mutants


def sample(mutants, k, seed):
    """k mutants, the same for the same k and seed: spread over (lab,
    file) in proportion, then picked at random within each."""
    if not k or k >= len(mutants):
        return list(mutants)
    strata = defaultdict(list)
    for m in mutants:
        strata[(m.lab, m.path)].append(m)
    keys = sorted(strata)
    share = {key: k * len(strata[key]) / len(mutants) for key in keys}
    quota = {key: int(share[key]) for key in keys}
    for key in sorted(keys, key=lambda x: -(share[x] - quota[x]))[:k - sum(quota.values())]:
        quota[key] += 1
    rng, chosen = random.Random(seed), []
    for key in keys:
        chosen += rng.sample(sorted(strata[key], key=lambda m: m.id), quota[key])
    return sorted(chosen, key=lambda m: (m.lab, m.path, m.line, m.id))


# --- Results and the hand-made list of equivalent mutants ---------------

COLUMNS = ['id', 'lab', 'file', 'operator', 'outcome', 'seconds', 'detail', 'tree']


def read_lines(path):
    with open(path, errors='replace') as f:
        return f.read().splitlines()


def load_results(path):
    """id -> row (a dict); a later line for an id replaces an earlier one."""
    rows = {}
    if not os.path.exists(path):
        return rows
    for n, line in enumerate(read_lines(path), 1):
        if line.startswith('#') or not line.strip():
            continue
        f = line.split('\t')
        if len(f) < 6:
            die('%s:%d: a line of %d fields (want: %s).' % (path, n, len(f), ' '.join(COLUMNS)),
                'Mend or delete that line; the others are kept.')
        rows[f[0]] = dict(zip(COLUMNS, f + [''] * (len(COLUMNS) - len(f))))
    return rows


def append_result(path, m, outcome, seconds, detail):
    new = not os.path.exists(path)
    with open(path, 'a') as f:
        if new:
            f.write('# ' + '\t'.join(COLUMNS) + '\n')
        f.write('\t'.join([m.id, str(m.lab), m.path, m.op, outcome, '%.0f' % seconds,
                           detail.replace('\t', ' ').replace('\n', ' '), m.tree]) + '\n')
        f.flush()
        os.fsync(f.fileno())


def load_equivalent(path):
    """id -> reason, from "ID  reason" lines."""
    eq = {}
    if not os.path.exists(path):
        return eq
    for n, line in enumerate(read_lines(path), 1):
        if line.lstrip().startswith('#') or not line.strip():
            continue
        f = line.split(None, 1)
        if len(f) < 2 or not f[1].strip():
            die('%s:%d: %s has no reason.' % (path, n, f[0]),
                'Write "ID  why no check can tell it from the reference".')
        if f[0].count(':') < 3:
            die('%s:%d: "%s" is not a mutant id (FILE:FUNCTION:OPERATOR:HASH).' % (path, n, f[0]),
                'The ids are in the first column of: python3 scripts/mutate.py list')
        if f[0] in eq:
            die('%s:%d: %s is listed twice.' % (path, n, f[0]))
        eq[f[0]] = f[1].strip()
    return eq


# --- Running ---------------------------------------------------------

def verdict(report, log, lab, timed_out):
    """(outcome, detail) of one mutant's check run: report is the text of
    its report.txt (None if there is none), log what vm.sh printed.  As
    make mutants judges: killed if a check of its lab failed or did not
    run."""
    if report is not None:
        ran = []
        for line in report.splitlines():
            m = re.match(r'(PASS|FAIL|SKIP|NOT RUN) +(\S+)', line)
            if m and m.group(2).startswith('lab%d_' % lab):
                ran.append((m.group(1), m.group(2)))
        bad = [name for v, name in ran if v in ('FAIL', 'NOT RUN')]
        if bad:
            return 'killed', bad[0] + (' and %d more' % (len(bad) - 1) if len(bad) > 1 else '')
        if ran:
            return 'survived', '%d checks passed' % len(ran)
        return 'error', 'no check of lab %d in the report' % lab
    if 'does not apply' in log:
        return 'not-viable', 'does not apply'
    if 'the kernel did not build' in log:
        err = re.search(r'^.*error:.*$', log, re.M)
        return 'not-viable', 'does not build' + (': ' + short(err.group(), 80) if err else '')
    if timed_out:
        return 'timeout', 'no report within the time limit'
    last = [line for line in log.splitlines() if line.strip()][-1:] or ['no output']
    return 'error', short(last[0], 100)


def stop(p):
    """Stop the process group of a run: QEMU first gets SIGINT, which
    labvm answers by stopping it."""
    for sig, wait in ((signal.SIGINT, 30), (signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(wait)
            return
        except subprocess.TimeoutExpired:
            pass


def vm_runner(timeout):
    """A runner: check one mutant the way make mutants checks one."""
    def run(m):
        name = patch_name(m.id)
        os.makedirs(os.path.join(OUT, 'patches'), exist_ok=True)
        os.makedirs(os.path.join(OUT, 'logs'), exist_ok=True)
        patch = os.path.join(OUT, 'patches', name + '.patch')
        with open(patch, 'w') as f:
            f.write(unified(m, git('show', '%s:%s' % (ref(m.lab), m.path))))
        report = os.path.join(LOGS, 'mutant-%s-lab%d' % (name, m.lab), 'report.txt')
        if os.path.exists(report):     # an earlier run's must not count
            os.remove(report)
        log = os.path.join(OUT, 'logs', name + '.log')
        env = dict(os.environ, MUTANT=patch, REF='', SKEL='', PATCH='', BRANCH='',
                   PREFIX='', T='lab%d_' % m.lab)
        timed_out = False
        with open(log, 'w') as f:
            p = subprocess.Popen(['sh', os.path.join(ROOT, 'scripts', 'vm.sh'), 'check',
                                  str(m.lab)], stdout=f, stderr=subprocess.STDOUT,
                                 env=env, start_new_session=True)
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                stop(p)
            except KeyboardInterrupt:
                stop(p)
                raise
        # variant.sh keeps a ref and a key per mutant: hundreds, each used once.
        subprocess.run(['git', '-C', KSRC, 'update-ref', '-d',
                        'refs/daxlab/mutant-%s-%d' % (name, m.lab)], capture_output=True)
        try:
            os.remove(os.path.join(KSRC, '.git', 'daxlab-mutant-%s-%d.key' % (name, m.lab)))
        except OSError:
            pass
        text = '\n'.join(read_lines(report)) if os.path.exists(report) else None
        return verdict(text, '\n'.join(read_lines(log)), m.lab, timed_out)
    return run


def hms(s):
    s = int(s)
    return '%d:%02d:%02d' % (s // 3600, s // 60 % 60, s % 60)


def run(mutants, results, runner, say=print, clock=time.monotonic):
    """Run each mutant that has no final outcome in results yet; append
    each outcome as it comes.  Returns how many ran."""
    done = {i for i, r in load_results(results).items() if r['outcome'] in FINAL}
    todo = [m for m in mutants if m.id not in done]
    before = len(mutants) - len(todo)
    say('mutate: %d mutants chosen, %d of them already in %s, %d to run'
        % (len(mutants), before, os.path.relpath(results), len(todo)))
    t0, errors = clock(), 0
    for i, m in enumerate(todo, 1):
        say('mutate: [%d/%d] %s (lab %d, %s:%d) ...'
            % (before + i, len(mutants), m.id, m.lab, m.path, m.line))
        t = clock()
        outcome, detail = runner(m)
        now = clock()
        append_result(results, m, outcome, now - t, detail)
        say('mutate: [%d/%d] %s: %s (%s) in %s; elapsed %s, about %s left'
            % (before + i, len(mutants), m.id, outcome, detail, hms(now - t),
               hms(now - t0), hms((now - t0) / i * (len(todo) - i))))
        # An error is the machine's, not the mutant's: it will not mend itself.
        errors = errors + 1 if outcome == 'error' else 0
        if errors == 3:
            die('three mutants in a row could not be checked: %s.' % detail,
                "See the last one's log: build/mutate/logs/%s.log.  Mend what it "
                'says, then run again: it resumes there.' % patch_name(m.id))
    return len(todo)


# --- Reporting ---------------------------------------------------------

def tally(mutants, results, equivalent):
    """Counts per ('lab', N), ('file', PATH) and ('group', NAME): a
    Counter of outcomes, of 'generated' (not equivalent) and of
    'equivalent'."""
    stats = defaultdict(Counter)
    for m in mutants:
        r = results.get(m.id)
        for key in [('lab', m.lab), ('file', m.path)] + \
                [('group', g) for g, _, f in GROUPS if f(m.path)]:
            if m.id in equivalent:
                stats[key]['equivalent'] += 1
            else:
                stats[key]['generated'] += 1
                stats[key][r['outcome'] if r else 'not run'] += 1
    return stats


def rate(c):
    """The kill rate in percent (None if nothing counts) and what it
    rests on."""
    n = c['killed'] + c['survived']
    return (100.0 * c['killed'] / n if n else None), n


def table(rows, style):
    if style == 'markdown':
        lines = ['| ' + ' | '.join(r) + ' |' for r in rows]
        lines.insert(1, '|' + '|'.join('---' for _ in rows[0]) + '|')
        return '\n'.join(lines)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]

    def fmt(r):
        return '  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
    if style == 'rst':
        rule = '  '.join('=' * w for w in widths)
        return '\n'.join([rule, fmt(rows[0]), rule] + [fmt(r) for r in rows[1:]] + [rule])
    return '\n'.join(fmt(r) for r in rows)


def report(mutants, results, equivalent, style='text', goal=None, out=sys.stdout):
    """Write the report; False if a group misses the goal."""
    ids = {m.id for m in mutants}
    for i in sorted(set(equivalent) - ids):
        warn('%s is in tests/mutate/equivalent but no longer generated (the '
             'series changed): a stale entry, delete it.' % i)
    stale = sorted(set(results) - ids)
    if stale:
        warn('%d results are of mutants no longer generated (the series changed), '
             'left out: %s%s' % (len(stale), ' '.join(stale[:3]), ' ...' * (len(stale) > 3)))
    trees = {m.lab: m.tree for m in mutants}
    old = [m for m in mutants
           if results.get(m.id, {}).get('tree') not in ('', None, trees[m.lab])]
    if old:
        warn('%d results were measured on an earlier reference of their lab (same '
             'mutant, other lines changed); they count.  To measure them again, '
             'delete their lines from %s.' % (len(old), os.path.relpath(RESULTS)))
    results = {i: r for i, r in results.items() if i in ids}
    stats = tally(mutants, results, equivalent)

    def row(label, key):
        c = stats[key]
        r, n = rate(c)
        return [label, 'n/a' if r is None else '%.0f%%' % r] + [str(x) for x in (
            c['killed'], c['survived'], n, c['generated'], c['not-viable'], c['timeout'],
            c['not run'] + c['error'], c['equivalent'])]
    head = ['kill rate', 'killed', 'survived', 'rests on', 'generated', 'not viable',
            'timeout', 'not run', 'equivalent']
    w = out.write

    def title(t):
        w({'markdown': '### %s\n\n' % t, 'rst': '%s\n%s\n\n' % (t, '-' * len(t))}
          .get(style, '%s\n\n' % t))
    title('Mechanical mutation of the reference series')
    w(textwrap.fill(
        'Kill rate = killed / (killed + survived), over the mutants made from the '
        'lines the series adds (%d; %d of them marked equivalent).  Not counted: '
        'mutants that do not build, that ran out of time with no report, that were '
        'not run, or that are equivalent.  "Rests on" is how many mutants a figure '
        'counts.' % (len(mutants), len(ids & set(equivalent))), 78) + '\n\n')
    w(table([['lab'] + head] + [row('lab %d' % n, ('lab', n))
                                for n in sorted({m.lab for m in mutants})], style) + '\n\n')
    w(table([['file'] + head] + [row(f, ('file', f))
                                 for f in sorted({m.path for m in mutants})], style) + '\n\n')
    w(table([['goal group'] + head] + [row(label, ('group', g)) for g, label, _ in GROUPS],
            style) + '\n\n')
    met = True
    if goal is not None:
        for g, label, _ in GROUPS:
            r, n = rate(stats[('group', g)])
            ok = r is not None and r >= goal
            met = met and ok
            w('%s: goal %g%% for %s: %s\n' % ('met' if ok else 'NOT MET', goal, label,
              'nothing measured' if r is None else '%.1f%% of %d mutants' % (r, n)))
        w('\n')
    survivors = [m for m in mutants if m.id not in equivalent and
                 results.get(m.id, {}).get('outcome') == 'survived']
    title('Survivors (%d)' % len(survivors))
    q = {'rst': '``', 'markdown': '`'}.get(style, '')
    for m in survivors:
        w('%s%s%s%s %s:%d: %s%s%s\n' % ('- ' if q else '  ', q, m.id, q, m.path, m.line,
                                        q, m.desc, q))
    return met


# --- Command line ----------------------------------------------------

def number(what, least=0, most=None):
    """An argparse type: a whole number from least to most, or a message
    that says what it is for."""
    def parse(s):
        if not re.fullmatch(r'\d+', s) or int(s) < least or most is not None and int(s) > most:
            raise argparse.ArgumentTypeError('"%s": %s' % (s, what))
        return int(s)
    return parse


def main(argv):
    ap = argparse.ArgumentParser(prog='mutate.py', description=__doc__.split('\n')[0])
    lab = number('give a lab number, such as 5 (mutate.py list --counts lists them)')
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('list', help='the mutants')
    p.add_argument('--lab', type=lab, help="only lab N's mutants")
    p.add_argument('--file', help='only those of a file or directory (fs/dax_bh.c, fs/ext4)')
    p.add_argument('--counts', action='store_true', help='counts per lab, file, operator')
    p = sub.add_parser('patch', help="one mutant's patch")
    p.add_argument('id')
    p = sub.add_parser('run', help='build and check mutants, appending to results.tsv')
    p.add_argument('--lab', type=lab, help="only lab N's mutants")
    p.add_argument('--file', help='only those of a file or directory (fs/dax_bh.c, fs/ext4)')
    p.add_argument('--sample', type=number('a sample is a positive number of mutants', 1),
                   help='K mutants, spread over labs and files')
    p.add_argument('--seed', type=number('a seed is a whole number, such as 1'), default=1,
                   help='which sample (default 1): the same K and seed, the same mutants')
    p.add_argument('--ids', help='a file of ids, one a line')
    p.add_argument('--timeout', type=number('the time limit is a positive number of '
                                            'seconds', 1), default=3600,
                   help='seconds one mutant may take (default 3600)')
    p = sub.add_parser('report', help='kill rates and survivors')
    g = p.add_mutually_exclusive_group()
    g.add_argument('--markdown', action='store_true')
    g.add_argument('--rst', action='store_true')
    p.add_argument('--goal', type=number('a goal is a percentage, 0 to 100', 0, 100),
                   help='exit 1 if a group kills less, in %%')
    a = ap.parse_args(argv)
    mutants = series_mutants()
    equivalent = load_equivalent(EQUIVALENT)
    if a.cmd == 'list':
        chosen = select(mutants, a.lab, a.file)
        if a.counts:
            for what, key in (('lab', lambda m: 'lab %d' % m.lab), ('file', lambda m: m.path),
                              ('operator', lambda m: m.op)):
                c = Counter(key(m) for m in chosen)
                for k in sorted(c):
                    print('%-9s %-24s %5d' % (what, k, c[k]))
            print('%-9s %-24s %5d' % ('total', '', len(chosen)))
        else:
            for m in chosen:
                print('\t'.join([m.id, str(m.lab), m.path, str(m.line), m.op, m.desc]))
    elif a.cmd == 'patch':
        m = next((m for m in mutants if m.id == a.id), None)
        if m is None:
            die('there is no mutant %s (if it was one, the series has changed).' % a.id,
                'The ids are in the first column of: python3 scripts/mutate.py list')
        sys.stdout.write(unified(m, git('show', '%s:%s' % (ref(m.lab), m.path))))
    elif a.cmd == 'run':
        chosen = [m for m in select(mutants, a.lab, a.file) if m.id not in equivalent]
        if a.ids:
            if not os.path.exists(a.ids):
                die('--ids %s: no such file.' % a.ids)
            want = {line.split()[0] for line in read_lines(a.ids)
                    if line.strip() and not line.startswith('#')}
            unknown = sorted(want - {m.id for m in mutants})
            if unknown:
                die('%s names %d ids that are not mutants: %s' % (a.ids, len(unknown),
                    ' '.join(unknown[:5])), 'The ids are in the first column of: '
                    'python3 scripts/mutate.py list')
            chosen = [m for m in chosen if m.id in want]
        chosen = sample(chosen, a.sample, a.seed)
        os.makedirs(OUT, exist_ok=True)
        lock = open(os.path.join(OUT, 'run.lock'), 'w')
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            die('another mutate run is going on (it holds %s).' % os.path.relpath(lock.name),
                'Wait for it: two runs would build in the same build/grade tree.')
        try:
            run(chosen, RESULTS, vm_runner(a.timeout))
        except KeyboardInterrupt:
            sys.stderr.write('mutate: interrupted; the mutant under way is not recorded.  '
                             'The same command resumes.\n')
            return 130
    elif a.cmd == 'report':
        style = 'markdown' if a.markdown else 'rst' if a.rst else 'text'
        if not report(mutants, load_results(RESULTS), equivalent, style, a.goal):
            return 1
    return 0


if __name__ == '__main__':
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)     # mutate.py list | head
    try:
        sys.exit(main(sys.argv[1:]))
    except Error as e:
        lines = str(e).split('\n')
        sys.stderr.write('mutate: error: %s\n' % lines[0])
        for line in lines[1:]:
            sys.stderr.write('mutate:        %s\n' % line)
        sys.exit(1)
