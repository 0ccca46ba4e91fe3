# SPDX-License-Identifier: GPL-2.0
"""The VM's shape: CPUs, memory, pmem0 and ram0, the kernel command line that
makes them, and whether this host can hold such a VM.  The lab-0 checks
verify from inside the guest that the devices have these sizes."""

from labvm.errors import die

CPUS = 2
MEM_MIB = 1536               # pmem0 is carved out of this, below its end
PMEM_START_MIB = 1024        # memmap=SIZE!START: guest RAM turned into pmem0
PMEM_MIB = 256
RAM0_MIB = 64                # brd: /dev/ram0
NVDIMM_MIB = 256             # NVDIMM=file: a new file's size


def kernel_cmdline(extra=""):
    args = [
        "console=ttyS0,115200",
        "memmap=%dM!%dM" % (PMEM_MIB, PMEM_START_MIB),
        "brd.rd_nr=1", "brd.rd_size=%d" % (RAM0_MIB * 1024),
        "random.trust_cpu=on",   # RDRAND seeds the CRNG: mke2fs would wait 4 s
        "printk.devkmsg=on",     # the guest's markers must not be ratelimited
        "panic=-1",              # a panic reboots, and -no-reboot ends QEMU
        "rdinit=/init",
    ]
    return " ".join(args) + (" " + extra if extra else "")


def preflight_host(meminfo="/proc/meminfo"):
    """The VM's shape must make sense, and fit in this machine's memory."""
    if PMEM_START_MIB + PMEM_MIB > MEM_MIB - 64:
        die("vm/labvm/machine.py: pmem0 (%d MiB at %d MiB) does not fit below"
            " the end of guest RAM (%d MiB)" % (PMEM_MIB, PMEM_START_MIB, MEM_MIB))
    try:
        with open(meminfo) as f:
            info = dict(line.split(":", 1) for line in f)
        avail = int(info["MemAvailable"].split()[0]) // 1024
    except (OSError, KeyError, ValueError):
        return
    if avail < MEM_MIB + 128:
        die("the VM needs %d MiB of memory; this machine has %d MiB available."
            % (MEM_MIB + 128, avail), "Close other programs and try again.")
