#!/usr/bin/env python3
"""make bench: what DAX buys, measured.

Boots the lab kernel and the upstream kernel (built by scripts/bench.sh)
in the lab VM, runs bench/daxbench.c's workloads on each configuration,
ROUNDS times, interleaved (round 1 of every configuration, then round 2,
...), and writes the raw results, a summary table and a plot.

    bench.py check --configs A,B --workloads X,Y   validate names, or list
    bench.py run ... (see --help)
    bench.py report --out DIR     the summary and plot again, from
                                  DIR/results.csv

Absolute figures under TCG mean little; the ratios, measured in the same
run, are the result.
"""
import argparse
import csv
import datetime
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "vm"))
from labvm import machine  # noqa: E402
from labvm.cli import parser  # noqa: E402
from labvm.console import parse_console  # noqa: E402
from labvm.kernel import kernel_banner  # noqa: E402
from labvm.qemu import boot, pick_accel, qemu_binary  # noqa: E402
from labvm.run import run_verdict  # noqa: E402

# name: (kernel, filesystem, mount options, what it is)
CONFIGS = {
    "pagecache": ("lab", "ext4", "-", "ext4 without dax: the page cache"),
    "lab-dax": ("lab", "ext4", "dax", "ext4 -o dax on the lab's get_block core"),
    "upstream-dax": ("upstream", "ext4", "dax", "ext4 -o dax on Linux 6.1's iomap core"),
    "lab-dax-ext2": ("lab", "ext2", "dax", "ext2 -o dax on the lab's core"),
    "upstream-dax-ext2": ("upstream", "ext2", "dax", "ext2 -o dax on Linux 6.1's core"),
    "memcpy": ("lab", "ext4", "dax", "the ceiling: the read workloads as one memcpy() "
               "from a mapping of the same pmem blocks, into the same buffer"),
    "pmem-direct": ("lab", "ext4", "dax", "the kernel's copy: the read workloads as "
                    "O_DIRECT pread() of /dev/pmem0, no filesystem"),
}
# memcpy and pmem-direct run only the reads (bench/daxbench.c, DAXBENCH_READ);
# lab DAX's read() is reported as a fraction of memcpy, against this goal
CEILING = "memcpy"
READS_ONLY = (CEILING, "pmem-direct")
CEILING_GOAL = 0.7
# each config's upstream counterpart, for the "vs upstream" ratio
COUNTERPART = {"lab-dax": "upstream-dax", "lab-dax-ext2": "upstream-dax-ext2"}
BASELINE = "pagecache"

IO = ["%s-%s-%s" % (k, d, s) for d in ("read", "write") for k in ("seq", "rand")
      for s in ("4k", "64k", "1m")]
WORKLOADS = IO + ["cold-read", "mmap-read-faults", "mmap-write-faults",
                  "pagecache-growth"]
RATES = IO + ["cold-read", "mmap-read-faults", "mmap-write-faults"]
READS = [w for w in IO if "-read-" in w]


def workloads_of(config, workloads):
    """The workloads config runs: memcpy and pmem-direct have only reads."""
    return [w for w in workloads if config not in READS_ONLY or w in READS]


def die(msg, *more):
    sys.stderr.write("bench: error: %s\n" % msg)
    for m in more:
        sys.stderr.write("bench:        %s\n" % m)
    sys.exit(2)


def names(given, valid, what):
    """The names in the comma-separated list given (all if empty)."""
    if not given:
        return list(valid)
    out = []
    for n in given.split(","):
        n = n.strip()
        if n not in valid:
            die("unknown %s \"%s\"." % (what, n),
                "The %ss are: %s" % (what, ", ".join(valid)))
        if n not in out:
            out.append(n)
    return out


def kernels_needed(configs):
    return sorted(set(CONFIGS[c][0] for c in configs))


def run_one(args, machine, config, round_no, workloads):
    """One boot: one round of one configuration.  {workload: value}, or a
    string saying what went wrong."""
    _, fs, opts, _ = CONFIGS[config]
    logdir = os.path.join(args.logdir, "%s-round%d" % (config, round_no))
    vmargs = parser().parse_args(["run", "--quiet", "--check-timeout", str(args.timeout)])
    vmargs.initrd = args.initrd
    cmd = "%s/bench/daxbench %s %s %s" % ("DAXBENCH_READ=%s " % config
                                          if config in READS_ONLY else "",
                                          fs, opts, " ".join(workloads))
    b = boot(machine, vmargs, "run", logdir, cmd=cmd, echo=False)
    if b.end == "interrupted":
        raise KeyboardInterrupt
    limits = dict(boot=vmargs.boot_timeout, check=vmargs.check_timeout)
    rc = run_verdict(b.reader, b.console_text, b.nonce, b.end, limits, logdir)
    splats = parse_console(b.console_text, b.nonce)
    got, errors = {}, []
    for _, line in b.reader.lines:
        if line.startswith("bench: "):
            w, value, unit = line.split()[1:4]
            got[w] = (float(value), unit)
        elif line.startswith("bench-error: "):
            errors.append(line[len("bench-error: "):])
    if splats:
        return "the kernel printed a %s (log: %s)" % (splats[0]["kind"], logdir)
    if rc != 0 or errors or len(got) != len(workloads):
        why = "; ".join(errors) or "exit status %d" % rc
        return "%s (log: %s)" % (why, logdir)
    return got


def median_of(results, config, w):
    vals = [v for (c, _, ww, v, _) in results if c == config and ww == w]
    return statistics.median(vals) if vals else None


def summarize(results, configs, workloads, failures, out, meta):
    """results: (config, round, workload, value, unit).  Writes
    summary.inc, bars.inc and plot data; returns the bars' verdicts."""
    units = {w: u for (_, _, w, _, u) in results}
    none = "\u2013"    # an en dash: a lone "-" in a cell is a bullet list
    rows = []
    for w in workloads:
        for c in configs:
            vals = sorted(v for (cc, _, ww, v, _) in results if cc == c and ww == w)
            if not vals:
                if w in workloads_of(c, [w]):
                    rows.append([w, c, "no result"] + [none] * 3)
                continue
            med = statistics.median(vals)
            base = median_of(results, BASELINE, w)
            up = median_of(results, COUNTERPART.get(c, ""), w)
            top = median_of(results, CEILING, w)
            fmt = "%.3f" if w == "pagecache-growth" else "%.0f"
            ratio = lambda x: "%.2fx" % (med / x) if x and w in RATES else none  # noqa: E731
            figure = "%s %s (%s%s%s)" % (fmt % med, units.get(w, ""), fmt % vals[0], none,
                                         fmt % vals[-1])
            rows.append([w, c, figure, ratio(base) if c != BASELINE else none,
                         ratio(up), ratio(top) if c != CEILING else none])
    with open(os.path.join(out, "summary.inc"), "w") as f:
        f.write(".. list-table:: Each figure: the median of %d runs (their min%smax); the "
                "ratios compare medians\n" % (meta["rounds"], none))
        f.write("   :header-rows: 1\n   :class: bench\n\n")
        head = ["workload", "configuration", "median (min%smax)" % none,
                "vs page cache", "vs upstream", "vs memcpy"]
        for r in [head] + rows:
            f.write("   * - " + "\n     - ".join("``%s``" % x if i < 2 and r is not head
                                               else x for i, x in enumerate(r)) + "\n")
    bars = []

    def bar(text, ok):
        bars.append((text, ok))

    for c in ("lab-dax", "upstream-dax", "lab-dax-ext2", "upstream-dax-ext2"):
        g = median_of(results, c, "pagecache-growth")
        if g is not None:
            bar("%s: page cache growth %.3f%% of the bytes moved (bar: at most 1%%)"
                % (c, g), g <= 1.0)
    g = median_of(results, BASELINE, "pagecache-growth")
    if g is not None:
        bar("pagecache: page cache growth %.1f%% of the bytes moved (most of them)"
            % g, g >= 50.0)
    lab, base = median_of(results, "lab-dax", "cold-read"), \
        median_of(results, BASELINE, "cold-read")
    if lab and base:
        bar("lab-dax cold sequential read: %.2fx the page cache path (bar: 1.5x)"
            % (lab / base), lab / base >= 1.5)
    for c, up_c in COUNTERPART.items():
        for w in IO:
            lab, up = median_of(results, c, w), median_of(results, up_c, w)
            if lab and up:
                bar("%s %s: %.2fx %s (bar: 0.8x)" % (c, w, lab / up, up_c),
                    lab / up >= 0.8)
    for w in READS:
        lab, top = median_of(results, "lab-dax", w), median_of(results, CEILING, w)
        if lab and top:
            bar("lab-dax %s: %.2f of one memcpy (goal: %.1f)" % (w, lab / top, CEILING_GOAL),
                lab / top >= CEILING_GOAL)
    notes = []
    for w in READS:
        lab, raw = median_of(results, "lab-dax", w), median_of(results, "pmem-direct", w)
        if lab and raw:
            notes.append("lab-dax %s: %.2fx the kernel's own copy of the same pmem"
                         " (pmem-direct)" % (w, lab / raw))
    with open(os.path.join(out, "bars.inc"), "w") as f:
        for text, ok in bars:
            f.write("* %s %s\n" % ("**met**:" if ok else "**missed**:", text))
        for text in notes:
            f.write("* %s\n" % text)
        for c, r, why in failures:
            f.write("* **failed run**: %s, round %d: %s\n" % (c, r, why))
    with open(os.path.join(out, "plot.dat"), "w") as f:
        plotted = [c for c in configs if c != BASELINE and CONFIGS[c][1] == "ext4"]
        f.write("workload " + " ".join(plotted) + "\n")
        for w in IO + ["cold-read"]:
            base = median_of(results, BASELINE, w)
            vals = [median_of(results, c, w) for c in plotted]
            if base and any(vals):
                f.write("%s %s\n" % (w, " ".join("%.3f" % (v / base) if v else "-"
                                                  for v in vals)))
    return bars


def plot(out):
    dat = os.path.join(out, "plot.dat")
    with open(dat) as f:
        header = f.readline().split()[1:]
        if not f.readline():
            return False
    series = ", ".join("'%s' using %d:xtic(1) title '%s'" % (dat, i + 2, c)
                       for i, c in enumerate(header))
    script = """set terminal svg size 900,420 font 'sans,11' background rgb 'white'
set output '%s'
set datafile missing '-'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel 'median throughput / page cache path'
set xtics rotate by -40
set key top left
set grid ytics
set yrange [0:*]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot %s
""" % (os.path.join(out, "plot.svg"), series)
    subprocess.run(["gnuplot"], input=script.encode(), check=True)
    return True


def report_again(args, configs, workloads):
    path = os.path.join(args.out, "results.csv")
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        results = [(r["configuration"], int(r["round"]), r["workload"],
                    float(r["value"]), r["unit"]) for r in rows]
    except (OSError, KeyError, ValueError) as e:
        die("%s: not a results file of make bench (%s)" % (path, e))
    rounds = max([r for (_, r, _, _, _) in results] or [0])
    configs = [c for c in configs if any(x[0] == c for x in results)]
    bars = summarize(results, configs, workloads, [], args.out, dict(rounds=rounds))
    for text, ok in bars:
        print("%s %s" % ("met   " if ok else "MISSED", text))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["check", "run", "report"])
    ap.add_argument("--configs", default="")
    ap.add_argument("--workloads", default="")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--build", default="build")
    ap.add_argument("--kobj", action="append", default=[],
                    help="KERNEL=DIR: the build directory of kernel lab or upstream")
    ap.add_argument("--initrd", action="append", default=[])
    ap.add_argument("--accel", default="auto")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--logdir", default="build/logs/bench")
    ap.add_argument("--out", default="build/bench/results")
    ap.add_argument("--command", default="make bench")
    args = ap.parse_args()

    configs = names(args.configs, CONFIGS, "configuration")
    workloads = names(args.workloads, WORKLOADS, "workload")
    if args.mode == "check":
        print(" ".join(kernels_needed(configs)))
        return 0
    if args.rounds < 1:
        die("ROUNDS must be at least 1")
    if args.mode == "report":
        return report_again(args, configs, workloads)

    kobjs = dict(k.split("=", 1) for k in args.kobj)
    qemu = qemu_binary()
    accel = pick_accel(args.accel, args.build)
    gen = os.path.join(args.build, "tools", "gen_init_cpio")
    machines = {}
    for k in kernels_needed(configs):
        kobj = kobjs[k]
        machines[k] = dict(kernel=os.path.join(kobj, "arch/x86/boot/bzImage"),
                           kobj=kobj, qemu=qemu, accel=accel, gen=gen,
                           banner=kernel_banner(os.path.join(kobj, "vmlinux")))
    os.makedirs(args.out, exist_ok=True)
    results, failures = [], []
    for r in range(1, args.rounds + 1):
        for c in configs:
            sys.stderr.write("bench: round %d of %d, %s ...\n" % (r, args.rounds, c))
            mine = workloads_of(c, workloads)
            if not mine:
                continue
            got = run_one(args, machines[CONFIGS[c][0]], c, r, mine)
            if isinstance(got, str):
                sys.stderr.write("bench: %s, round %d FAILED: %s\n" % (c, r, got))
                failures.append((c, r, got))
                continue
            for w in mine:
                results.append((c, r, w, got[w][0], got[w][1]))
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["configuration", "round", "workload", "value", "unit"])
        wr.writerows(results)
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(x.split(":", 1)[1].strip() for x in f if x.startswith("model name"))
    except (OSError, StopIteration):
        pass
    qv = subprocess.run([qemu, "--version"], capture_output=True, text=True).stdout
    meta = dict(rounds=args.rounds)
    with open(os.path.join(args.out, "machine.inc"), "w") as f:
        f.write("Measured with ``%s`` on %s: %s, %d cores, %s; QEMU %s under %s "
                "(guest: %d CPUs, %d MiB, pmem0 %d MiB).  Kernels:\n\n" % (
                    args.command, datetime.date.today().isoformat(), cpu,
                    os.cpu_count(), platform.platform(terse=True),
                    qv.split("version")[1].split()[0] if "version" in qv else "?",
                    accel.upper(), machine.CPUS, machine.MEM_MIB, machine.PMEM_MIB))
        for k, m in sorted(machines.items()):
            f.write("* %s: ``%s``\n" % (k, m["banner"].strip()))
        f.write("\nConfigurations:\n\n")
        for c in configs:
            f.write("* ``%s``: %s\n" % (c, CONFIGS[c][3]))
    bars = summarize(results, configs, workloads, failures, args.out, meta)
    plotted = plot(args.out)
    for text, ok in bars:
        sys.stderr.write("bench: %s %s\n" % ("met   " if ok else "MISSED", text))
    sys.stderr.write("bench: results in %s (summary.inc, results.csv%s)\n" % (
        args.out, ", plot.svg" if plotted else ""))
    if failures:
        sys.stderr.write("bench: %d run(s) failed; the others were measured\n"
                         % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
