# SPDX-License-Identifier: GPL-2.0
"""One verdict per check, from everything a boot left: the results channel,
the console's splats, and how the run ended.  The boot is a check of its
own; a splat fails the check that owned it; a check that never reported
says why (a panic, a hang, an early exit, the end of the VM)."""

from labvm.check import Check
from labvm.console import console_segments, parse_console, splat_detail
from labvm.explain import splat_explained
from labvm.kselftest import prog_checks
from labvm.kunit import kunit_checks
from labvm.results import parse_results
from labvm.selection import glob_or_substring


def verdicts(planned, results_lines, console_text, nonce, end, pattern,
             limits, lab_functions=None):
    """The whole report.

    planned: list of (suite name, kind) the guest was asked to run
    end: how the run ended: "done", "exited", "boot-timeout",
         "check-timeout", "stall-timeout"
    lab_functions: {function: file} of the lab's code, for the hint of a
         check during which the kernel reported a problem
    """
    res = parse_results(results_lines, nonce)
    ready, suites = res.ready, res.suites
    splats = parse_console(console_text, nonce)
    segments = console_segments(console_text, nonce)
    panicked = [s for s in splats if "panic" in s["kind"]]

    def why_stopped(suite, before=False):
        if before:
            if panicked:
                return "not run: the kernel panicked during %s" % panicked[0]["owner"]
            if suite.ended and suite.rc == 137:
                return "not run: the program was killed at the time limit"
            if suite.ended:
                return "not run: the program stopped early (exit status %s)" % suite.rc
            if end == "check-timeout":
                return "not run: the VM was stopped after a hang"
            return "not run: the VM ended before this check"
        if panicked:
            return "the kernel panicked while this check ran"
        if end == "check-timeout" and not suite.ended:
            return ("no result within the check time limit (%d s): the check or"
                    " the kernel hangs (raise it with CHECK_TIMEOUT=seconds)"
                    % limits["check"])
        if suite.ended:
            if suite.rc == 137:
                return ("killed after the check time limit (%d s): it hangs "
                        "(raise it with CHECK_TIMEOUT=seconds)" % limits["check"])
            if suite.rc is not None and suite.rc > 128:
                return "the test process died of signal %d (see the console log)" % (
                    suite.rc - 128)
            return "the program exited (status %s) without a result for it" % suite.rc
        return "the VM ended while this check ran"

    def blame(check, owned):
        """check failed with the splats it owned: the first one explained
        first, then each in full."""
        if not owned:
            return
        check.verdict = "FAIL"
        check.detail = splat_explained(owned[0], lab_functions or {}) + check.detail
        for s in owned:
            check.detail += splat_detail(s)

    checks = []
    # The boot itself is a check: the kernel reached /init without a splat.
    boot_splats = [s for s in splats if s["owner"] == "boot"]
    if ready and not boot_splats and not res.preflight:
        checks.append(Check("boot", "PASS", res.ready_uptime))
    else:
        detail = []
        if res.preflight:
            detail += ["the VM is not what the labs need:"]
            detail += ["  " + p for p in res.preflight]
            detail += ["hint: the kernel needs CONFIG_BLK_DEV_PMEM, "
                       "CONFIG_X86_PMEM_LEGACY and CONFIG_BLK_DEV_RAM (vm/lab.config);"
                       " the sizes come from memmap= and brd.rd_size= (vm/labvm/machine.py)"]
        if not ready:
            if end == "boot-timeout":
                detail.append("the kernel did not start /init within %d s "
                              "(raise it with BOOT_TIMEOUT=seconds)" % limits["boot"])
            elif panicked:
                detail.append("the kernel panicked before /init started")
            else:
                detail.append("QEMU ended before /init started")
            if not boot_splats:
                tail = [x for x in console_text.replace("\r", "").split("\n")
                        if x.strip()][-12:]
                detail += ["last console lines:"] + ["  " + x for x in tail]
        checks.append(Check("boot", "FAIL", None, detail))
        blame(checks[-1], boot_splats)

    by_owner = {}
    for s in splats:
        by_owner.setdefault(s["owner"], []).append(s)
    used = set(["boot"])

    for name, kind in planned:
        suite = suites.get(name)
        if suite is None or not suite.began:
            if glob_or_substring(pattern, name) or kind == "prog":
                why = ("not run: the kernel panicked during %s" % panicked[0]["owner"]
                       if panicked else "not run: the VM never reached this suite"
                       if ready else "not run: the kernel did not boot")
                checks.append(Check(name, "NOT RUN", None, [why]))
            continue
        if kind == "kunit":
            # KUnit's KTAP from the kernel log: the debugfs copy of 6.1
            # keeps only 512 bytes per case and loses results
            suite.lines = segments.get(name, [])
        got = (prog_checks(suite, why_stopped) if kind == "prog"
               else kunit_checks(suite, why_stopped, pattern))
        for c in got:
            blame(c, by_owner.get(c.name, []))
            used.add(c.name)
        # splats inside the suite but outside any one case
        suite_splats = by_owner.get(name, [])
        if suite_splats:
            c = Check(name, "FAIL", suite.seconds,
                      ["the kernel reported a problem while suite %s ran, "
                       "outside any single check" % name])
            blame(c, suite_splats)
            got.append(c)
        used.add(name)
        checks += got

    rest = [s for s in splats if s["owner"] not in used]
    if rest:
        c = Check("between checks", "FAIL", None,
                  ["the kernel reported a problem outside any check"])
        blame(c, rest)
        checks.append(c)
    return checks

