# SPDX-License-Identifier: GPL-2.0
"""A stand-in for qemu-system-x86_64 in test_qemu.py: it reads the nonce
from the per-boot configuration labvm packed, then behaves as FAKE_QEMU
says: "hang" never answers; "pass" runs one suite, says DONE and exits at
once (as a guest that powers off quickly); "forge" prints a DONE with a
wrong nonce and hangs; "bench" is a run of bench/daxbench.c that
measured seq-read-4k."""

import os
import sys
import time

results = [a[len("file:"):] for a in sys.argv if a.startswith("file:")][0]
logdir = os.path.dirname(results)
with open(os.path.join(logdir, "pid"), "w") as f:
    f.write(str(os.getpid()))
with open(os.path.join(logdir, "run", "conf")) as f:
    conf = dict(line.rstrip("\n").split("=", 1) for line in f)
nonce = conf["LABVM_NONCE"].strip("'")
mode = os.environ["FAKE_QEMU"]
if mode == "hang":
    time.sleep(30)
out = open(results, "w")
if mode == "forge":
    out.write("@@%s DONE\n" % ("f" * 16))
    out.flush()
    time.sleep(30)
if mode == "bench":
    lines = ["READY uptime=1.00", "BEGIN run cmd", "bench: seq-read-4k 123.4 MB/s",
             "END run rc=0", "DONE"]
    out.write("".join(line + "\n" if line.startswith("bench:") else
                      "@@%s %s\n" % (nonce, line) for line in lines))
    sys.exit(0)
for line in ["READY uptime=1.00", "BEGIN s prog", None, "END s rc=0 cs=1", "DONE"]:
    out.write("@@%s %s\n" % (nonce, line) if line else
              "# labcheck-plan a\n#  RUN           global.a ...\nok 1 global.a\n")
out.close()
