# SPDX-License-Identifier: GPL-2.0
"""The command line: check, run and shell boot the VM (labvm.run); parse
gives the verdicts of a recorded run (the runner's own tests)."""

import argparse
import os
import sys

import labvm
from labvm.errors import die
from labvm.explain import load_lab_functions
from labvm.report import report
from labvm.run import run_vm
from labvm.verdict import verdicts


def parser():
    """The runner's options and their defaults: also what bench/bench.py
    boots with, so a new option cannot leave it behind."""
    ap = argparse.ArgumentParser(
        prog="labvm", description=labvm.__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["check", "shell", "run", "parse"])
    ap.add_argument("--build", default="build")
    ap.add_argument("--kobj", help="the kernel build directory (build/obj)")
    ap.add_argument("--logdir", default="build/logs/vm")
    ap.add_argument("--initrd", action="append", default=[])
    ap.add_argument("--suites")
    ap.add_argument("--filter", default="")
    ap.add_argument("--accel", default="auto", choices=["auto", "kvm", "tcg"])
    ap.add_argument("--boot-timeout", type=int, default=120)
    ap.add_argument("--check-timeout", type=int, default=300)
    ap.add_argument("--stall-timeout", type=int, default=60)
    ap.add_argument("--append", default="")
    ap.add_argument("--cmd")
    ap.add_argument("--files")
    ap.add_argument("--nvdimm", help="a file backing an emulated NVDIMM")
    ap.add_argument("--sandbox", help="run QEMU through this scripts/sandbox.sh"
                    " (a submission's kernel)")
    ap.add_argument("--phases", help="a file of 'NAME SECONDS' lines: the host's"
                    " phases before the boot, for the report's breakdown")
    ap.add_argument("--lab-functions", help="a file of 'function file' lines: the"
                    " lab's code, which a splat's hint names the first of")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    # parse mode: a recorded run
    ap.add_argument("--console")
    ap.add_argument("--results")
    ap.add_argument("--planned", help="file of suite:kind lines")
    ap.add_argument("--end", default="done")
    ap.add_argument("--nonce")
    return ap


def main():
    args = parser().parse_args()

    for name in ("boot_timeout", "check_timeout", "stall_timeout"):
        if getattr(args, name) <= 0:
            die("%s must be a positive number of seconds" % name.upper())
    if args.mode == "parse":
        return parse_mode(args)
    if args.mode == "check" and not args.suites:
        die("check needs --suites")
    if args.mode == "run" and not args.cmd:
        die("make vm-run needs CMD='command to run in the VM'")
    if args.files and not os.path.isdir(args.files):
        die("FILES=%s is not a directory" % args.files)
    return run_vm(args, args.mode)


def parse_mode(args):
    with open(args.console, encoding="utf-8", errors="replace") as f:
        console_text = f.read()
    with open(args.results, encoding="utf-8", errors="replace") as f:
        results = [(None, x.rstrip("\r\n")) for x in f]
    planned = []
    with open(args.planned) as f:
        for line in f:
            if line.strip():
                n, k = line.strip().split(":")[:2]
                planned.append((n, k))
    checks = verdicts(planned, results, console_text, args.nonce, args.end,
                         args.filter, dict(boot=args.boot_timeout,
                                           check=args.check_timeout),
                         load_lab_functions(args.lab_functions))
    failed = report(checks, sys.stdout)
    return 1 if failed else 0


