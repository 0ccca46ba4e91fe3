# SPDX-License-Identifier: GPL-2.0
"""One boot of the VM: find QEMU and the accelerator, pack the initrd,
start QEMU (through the sandbox for a submission's kernel), follow the
results channel, enforce the boot, check and stall time limits, and always
kill QEMU before returning."""

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time

from labvm.cpio import make_run_cpio
from labvm.errors import die
from labvm.machine import (CPUS, MEM_MIB, NVDIMM_MIB, PMEM_MIB, RAM0_MIB,
                           kernel_cmdline)
from labvm.progress import Progress
from labvm.results import ResultsReader

MIN_QEMU = (5, 0)            # nvdimm, memory-backend-file, -nodefaults


def qemu_binary():
    q = shutil.which("qemu-system-x86_64")
    if not q:
        die("qemu-system-x86_64 is not installed.",
            "Install it: apt-get install qemu-system-x86")
    out = subprocess.run([q, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\d+)\.(\d+)", out)
    if not m or (int(m.group(1)), int(m.group(2))) < MIN_QEMU:
        die("QEMU %s is too old: the lab VM needs %d.%d or newer." % (
            m.group(0) if m else "(unknown version)", *MIN_QEMU),
            "Debian 12's qemu-system-x86 (7.2) is known to work.")
    return q



def pick_accel(want, build):
    """TCG unless KVM is asked for (ACCEL=kvm) or a probe showed it works.

    KVM is present on some machines but hangs the guest at boot, so it is
    never used on the strength of /dev/kvm alone: "make kvm-probe" boots once
    with KVM under a short time limit and records the result.
    """
    if want == "tcg":
        return "tcg"
    kvm_ok = os.access("/dev/kvm", os.R_OK | os.W_OK)
    if want == "kvm":
        if not kvm_ok:
            die("ACCEL=kvm, but /dev/kvm is missing or not accessible.",
                "Use ACCEL=tcg (the default), or add yourself to group kvm.")
        return "kvm"
    probe = os.path.join(build, "kvm-probe")
    try:
        with open(probe) as f:
            if f.read().startswith("works") and kvm_ok:
                return "kvm"
    except OSError:
        pass
    return "tcg"


class Boot:
    """How one boot of the VM went."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def sandboxed(script, argv, m, logdir, initrd, nvdimm):
    """argv run by scripts/sandbox.sh: QEMU sees its kernel and initrd
    read-only, and may write only its log directory and its NVDIMM file
    (which then belong to the sandbox's uid)."""
    owner = subprocess.run(["sh", script, "owner"], stdout=subprocess.PIPE,
                           text=True, check=True).stdout.strip()
    wrap = ["sh", script, "--ro", m["kernel"], "--ro", os.path.abspath(initrd),
            "--rw", os.path.abspath(logdir),
            "--cpu", "7200", "--mem", "8192", "--procs", "256", "--fsize", "64",
            "--wall", "7200"]
    writable = [logdir]
    if nvdimm:
        wrap += ["--rw", os.path.abspath(nvdimm)]
        writable.append(nvdimm)
    if m["accel"] == "kvm":
        wrap += ["--dev", "/dev/kvm"]
    if owner:
        uid, gid = (int(x) for x in owner.split(":"))
        for p in writable:
            os.chown(p, uid, gid)
    return wrap + ["--"] + argv


def boot(m, args, mode, logdir, planned=(), nvdimm=None, cmd=None, files=None,
         extra_conf=None, echo=True):
    """Run QEMU once: the machine m, in mode "check" (the planned suites),
    "run" (cmd) or "shell"; nvdimm names a file backing an NVDIMM."""
    os.makedirs(logdir, exist_ok=True)
    nonce = secrets.token_hex(8)
    conf = dict(
        LABVM_MODE=mode, LABVM_NONCE=nonce,
        LABVM_SUITES=" ".join("%s:%s:%s" % p for p in planned),
        LABCHECK_FILTER=args.filter or "",
        LABVM_CHECK_TIMEOUT=args.check_timeout,
        LABVM_PMEM_BYTES=PMEM_MIB << 20, LABVM_RAM_BYTES=RAM0_MIB << 20,
        LABVM_CMD=cmd or "",
        LABVM_NVDIMM="1" if nvdimm else "",
    )
    conf.update(extra_conf or {})
    runcpio = make_run_cpio(m["gen"], os.path.join(logdir, "run"), conf, m["banner"],
                            files)
    initrd = os.path.join(logdir, "initrd.cpio")
    with open(initrd, "wb") as out:
        for part in args.initrd + [runcpio]:
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)

    console_path = os.path.join(logdir, "console.log")
    results_path = os.path.join(logdir, "results.log")
    for p in (console_path, results_path):
        if os.path.exists(p):
            os.unlink(p)
    machine, mem = "pc", "%dM" % MEM_MIB
    nvdimm_args = []
    if nvdimm:
        # A file-backed emulated NVDIMM, described to the guest by an ACPI
        # NFIT: its contents survive the VM, unlike memmap= pmem.
        path = os.path.abspath(nvdimm)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.truncate(NVDIMM_MIB << 20)
        size = os.path.getsize(path)
        if size % (2 << 20) or size < (16 << 20):
            die("NVDIMM=%s: the file must be a multiple of 2 MiB, at least 16 MiB"
                " (it is %d bytes)" % (nvdimm, size))
        machine = "pc,nvdimm=on"
        mem = "%dM,slots=2,maxmem=%dM" % (MEM_MIB, MEM_MIB + (size >> 20) + 1024)
        # LABVM_NVDIMM_VOLATILE=1 (for the project's own test): share=off,
        # the guest's stores never reach the file
        share = "off" if os.environ.get("LABVM_NVDIMM_VOLATILE") else "on"
        nvdimm_args = ["-object", "memory-backend-file,id=nvmem0,share=%s,mem-path=%s,"
                  "size=%d" % (share, path, size),
                       "-device", "nvdimm,id=nvdimm0,memdev=nvmem0"]
    argv = [m["qemu"], "-nodefaults", "-no-user-config", "-display", "none",
           "-machine", machine, "-accel", m["accel"],
           "-cpu", "host" if m["accel"] == "kvm" else "max",
           "-smp", str(CPUS), "-m", mem] + nvdimm_args + [
           "-kernel", m["kernel"], "-initrd", initrd,
           "-append", kernel_cmdline(args.append or ""),
           "-no-reboot", "-nic", "none"]
    if mode == "shell":
        argv += ["-serial", "mon:stdio", "-serial", "file:" + results_path]
    else:
        argv += ["-serial", "stdio", "-serial", "file:" + results_path,
                "-monitor", "none"]
    if args.sandbox:
        argv = sandboxed(args.sandbox, argv, m, logdir, initrd, nvdimm)
    if mode != "shell":
        # QEMU gets a session of its own below, out of reach of a signal
        # to our process group: if this runner is killed before it can
        # stop QEMU (SIGKILL), the kernel stops QEMU (or the sandbox's
        # timeout, which passes it on) for it.
        argv = ["setpriv", "--pdeathsig", "KILL", "--"] + argv
    with open(os.path.join(logdir, "qemu-command"), "w") as f:
        f.write(" ".join("'%s'" % c if " " in c else c for c in argv) + "\n")

    if mode != "shell":
        sys.stderr.write("labvm: booting %s under %s (%d CPUs, %d MiB, pmem0 %d MiB,"
                         " ram0 %d MiB); log in %s\n" % (
                             os.path.relpath(m["kernel"]), m["accel"].upper(), CPUS,
                             MEM_MIB, PMEM_MIB, RAM0_MIB, os.path.relpath(logdir)))
    if mode == "shell":
        console = None
        stdin = None
    else:
        console = open(console_path, "wb")
        stdin = subprocess.DEVNULL
    # QEMU runs in a session of its own (a terminal's Ctrl-C must not
    # reach it before we have read its last results), so stopping our
    # process group does not stop it: we must.  The handlers go in before
    # QEMU starts, so that no signal finds QEMU running and us without
    # them, and only note the signal; the loop below acts on it.
    stopping = []
    old = {}
    if mode != "shell":
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            old[s] = signal.signal(s, lambda sig, frame: stopping.append(sig))
    proc = None
    reader = ResultsReader(results_path)
    end = "exited"
    t_start = time.monotonic()
    deadline = t_start + args.boot_timeout
    phase = "boot"
    progress = None
    if mode == "check" and not args.quiet:
        progress = Progress(len(planned), tty=False if args.verbose else None)
    try:
        proc = subprocess.Popen(argv, stdin=stdin, stdout=console,
                                stderr=subprocess.STDOUT if console else None,
                                start_new_session=(mode != "shell"))
        while True:
            if stopping:
                raise KeyboardInterrupt
            # QEMU may end just after the guest's last line: read what it
            # wrote before deciding how the run ended
            exited = proc.poll() is not None
            for text in reader.poll():
                m = re.match(r"^@@%s (\w+) ?(\S*)" % nonce, text)
                if not m:
                    if progress:
                        progress.output(text)
                    if mode == "run" and echo:
                        sys.stdout.write(text + "\n")
                        sys.stdout.flush()
                    elif args.verbose:
                        sys.stderr.write("  | %s\n" % text)
                    continue
                verb = m.group(1)
                if verb == "READY":
                    phase = "idle"
                    deadline = time.monotonic() + args.stall_timeout
                elif verb == "BEGIN":
                    phase = m.group(2)
                    deadline = time.monotonic() + args.check_timeout + 30
                    if progress:
                        progress.begin(phase)
                elif verb == "END":
                    phase = "idle"
                    if progress:
                        progress.end()
                    deadline = time.monotonic() + args.stall_timeout
                elif verb == "DONE":
                    phase = "done"
                    deadline = time.monotonic() + 20
            if exited:
                end = "done" if phase == "done" else "exited"
                break
            if mode == "shell":
                time.sleep(0.2)
                continue
            if time.monotonic() > deadline:
                end = {"boot": "boot-timeout", "idle": "stall-timeout",
                       "done": "done"}.get(phase, "check-timeout")
                break
            if progress:
                progress.tick()
            time.sleep(0.05)
    except KeyboardInterrupt:
        end = "interrupted"
    finally:
        if proc and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL) if mode != "shell" else proc.kill()
            except ProcessLookupError:
                pass
            proc.wait()
        for s, h in old.items():
            signal.signal(s, h)
        if console:
            console.close()
        if progress:
            progress.clear()
    reader.flush()
    elapsed = time.monotonic() - t_start
    with open(os.path.join(logdir, "end"), "w") as f:
        f.write("%s %s\n" % (end, nonce))
    console_text = ""
    if mode != "shell":
        with open(console_path, "rb") as f:
            console_text = f.read().decode("utf-8", "replace")
    return Boot(end=end, reader=reader, console_text=console_text, elapsed=elapsed,
                started=t_start,
                nonce=nonce, console_path=console_path, logdir=logdir)


