# SPDX-License-Identifier: GPL-2.0
"""labvm: boot the lab kernel in QEMU, run checks, and tell the truth.

Modes (python3 vm/labvm MODE ...):
  check  boot, run the check suites of labs 0..N, print one line per check
         and "N passed, N failed"; exit 1 on any failure
  shell  an interactive shell in the same VM (make vm)
  run    run one command in the VM, print its output, exit with its status
  parse  give the verdicts for a recorded console log and results log
         (the runner's own tests use this)

The VM (see vm/init): the console (ttyS0) carries kernel messages and
markers the guest writes into the kernel log; a second serial port (ttyS1)
carries the checks' TAP output and protocol lines "@@NONCE VERB ...".  The
nonce is fresh for every boot and reaches the guest only inside the
initramfs, so nothing the kernel prints can pass for a protocol line.

A kernel splat (panic, oops, BUG, WARNING, lockdep report, hung task, soft
lockup) fails the check that was running when it was printed; a hang is cut
by a time limit and blamed on the check that was running; QEMU is always
killed before this program exits.

One module per job, in the order a run uses them:
  cli        the command line, and the parse mode
  machine    the VM's shape (CPUs, memory, pmem0, ram0) and its command line
  kernel     the built kernel to boot, and the banner the guest checks
  cpio       the per-boot initramfs archive
  qemu       one boot: start QEMU, follow the results channel, time limits
  results    what the results channel (ttyS1) said
  console    the kernel splats in the console log (ttyS0), and whose they are
  selection  which checks a T= filter selects
  kselftest  checks from a kselftest-harness program's TAP
  kunit      checks from a KUnit module's KTAP
  verdict    one verdict per check, from all of the above
  progress   the line a student watches while the checks run
  phases     where the time of a run went
  report     the report: text, TAP, JUnit XML
  run        check, run and shell modes, and power-cycle suites
  errors     how labvm stops on a bad input
"""
