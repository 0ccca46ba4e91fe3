# The DAX lab: the one entry point.  Run "make help".
#
# Numbers may follow a target as a second word: "make check-lab 3" is
# "make check-lab N=3".

SHELL := /bin/sh
.DEFAULT_GOAL := help
ROOT := $(CURDIR)
BUILD := $(ROOT)/build
export BUILD

# "make check-lab 3", "make lab 3": take the number and make it a no-op goal.
ifneq ($(filter check-lab lab vm vm-run,$(firstword $(MAKECMDGOALS))),)
  ifneq ($(word 2,$(MAKECMDGOALS)),)
    N := $(word 2,$(MAKECMDGOALS))
    $(eval $(wordlist 2,$(words $(MAKECMDGOALS)),$(MAKECMDGOALS)):;@:)
  endif
endif

# CMD is a shell command for the VM: keep its "$" for that shell (make
# would expand $HOME or $d when it exports the variable).
ifdef CMD
  override CMD := $(value CMD)
endif

# Variables the scripts read: N T V CMD FILES ACCEL BOOT_TIMEOUT CHECK_TIMEOUT
# APPEND INSTRUCTOR REF SKEL NVDIMM PATCH BRANCH SUBMISSIONS CONFIGS WORKLOADS
# ROUNDS UNSANDBOXED JOBS FORCE SLURM SLURM_WAIT PARTITION TIME MEM CPUS ARGS
# LEVEL KASAN MODEL_OPS LAB FILE SAMPLE SEED GOAL
export LEVEL KASAN MODEL_OPS T V CMD FILES ACCEL BOOT_TIMEOUT CHECK_TIMEOUT APPEND INSTRUCTOR \
	REF SKEL NVDIMM PATCH BRANCH SUBMISSIONS CONFIGS WORKLOADS ROUNDS UNSANDBOXED \
	JOBS FORCE SLURM SLURM_WAIT PARTITION TIME MEM CPUS ARGS LAB FILE SAMPLE SEED GOAL

.PHONY: help check-lab lab vm vm-run experiment test test-full test-runner mutants mutate mutate-report \
	bisect-check grade grade-selftest grade-status \
	docs deps tree \
	kernel kvm-probe bench clean distclean

help:
	@echo "The DAX lab.  Targets:"
	@echo "  make check-lab N     build, boot, run the checks of labs 0..N"
	@echo "                       (T=name: only checks whose name matches;"
	@echo "                        V=1: show the checks' output as they run;"
	@echo "                        MODEL_OPS=n: n operations for the model checks)"
	@echo "  make lab N           switch the kernel tree to branch labN"
	@echo "                       (LEVEL=open: branch labN-open, the functions to"
	@echo "                        write cut to their contracts, no step lists)"
	@echo "  make vm              an interactive shell in the lab VM"
	@echo "  make vm-run CMD='..' [FILES=dir]   run one command in the VM"
	@echo "  make experiment NAME=x [ARGS=..]   run a lab page's experiment in the VM"
	@echo "  make check-lab N REF=1    the same on the reference (SKEL=1: the skeleton;"
	@echo "                       SKEL=1 LEVEL=open: the open level's)"
	@echo "  make check-lab N KASAN=1  the same kernel with KASAN: a use-after-free is a splat"
	@echo "  make test            prove the project (runner, labs, mutants, docs), by turns:"
	@echo "                       a third of the mutants and one of three long parts a commit"
	@echo "  make test-full       all of it, every mutant and part (about 100 min)"
	@echo "  make mutants         each planted bug must fail some check of its lab"
	@echo "  make mutate [LAB=N] [FILE=path] [SAMPLE=K] [SEED=S]"
	@echo "                       mutate the series' own lines by rule, check each mutant"
	@echo "                       with its lab's checks, then the kill rates (hours for"
	@echo "                       all; again: resumes; results in build/mutate/)"
	@echo "  make mutate-report [GOAL=90]   the kill rates and survivors so far"
	@echo "                       (GOAL=P: fails if the core, ext2 or ext4 kills less)"
	@echo "  make bisect-check    every prefix of the reference series builds, boots, passes"
	@echo "  make check-lab N PATCH=file   a student's patches on the lab-N skeleton"
	@echo "  make grade [SUBMISSIONS=dir]  every lab (or submission): table, TAP, JUnit"
	@echo "                       (each built and booted in a sandbox; UNSANDBOXED=1:"
	@echo "                        without one, and every result says so)"
	@echo "                       (JOBS=J: J at a time; FORCE=1: grade again what was"
	@echo "                        graded; SLURM=1: as a Slurm job array, with"
	@echo "                        PARTITION= TIME= MEM= CPUS= per task)"
	@echo "  make grade-status    the progress of a SLURM=1 grading run"
	@echo "  make grade-selftest  see that the grading sandbox holds on this machine"
	@echo "  make docs            the documentation site, in build/docs"
	@echo "                       (INSTRUCTOR=1: with the solutions/ notes)"
	@echo "  make bench           page cache vs lab DAX vs Linux 6.1's DAX, measured"
	@echo "                       (CONFIGS=a,b WORKLOADS=x,y ROUNDS=n; full runs"
	@echo "                        write docs/bench/)"
	@echo "  make kvm-probe       see whether KVM works here (TCG otherwise)"
	@echo "  make clean           remove build outputs (keeps build/linux)"
	@echo "  make distclean       remove build/ entirely, after asking"
	@echo "The labs:"
	@sh scripts/labs.sh

check-lab:
	@sh scripts/vm.sh check "$(N)"

vm:
	@sh scripts/vm.sh shell "$(N)"

vm-run:
	@sh scripts/vm.sh run "$(N)"

experiment:
	@N="$(N)" sh scripts/experiment.sh "$(NAME)"

lab:
	@sh scripts/lab.sh "$(N)"

deps:
	@sh scripts/deps.sh docs

tree:
	@sh scripts/deps.sh core
	@sh scripts/tree.sh

kernel: tree
	@sh scripts/build.sh "$(or $(N),0)"

kvm-probe: kernel
	@sh scripts/kvm-probe.sh

test:
	@sh scripts/test.sh

test-full:
	@FULL=1 sh scripts/test.sh

test-runner:
	@sh tests/runner/run.sh

mutants:
	@sh scripts/mutants.sh

# Not part of make test: a full run takes hours.  LAB= FILE= SAMPLE= SEED=
# choose what runs; the report covers every result so far.
mutate:
	@python3 scripts/mutate.py run $(if $(LAB),--lab "$(LAB)") $(if $(FILE),--file "$(FILE)") \
		$(if $(SAMPLE),--sample "$(SAMPLE)") $(if $(SEED),--seed "$(SEED)")
	@python3 scripts/mutate.py report $(if $(GOAL),--goal "$(GOAL)")

mutate-report:
	@python3 scripts/mutate.py report $(if $(GOAL),--goal "$(GOAL)")

bisect-check:
	@sh scripts/bisect-check.sh

grade:
	@sh scripts/grade.sh

grade-selftest:
	@sh scripts/grade-selftest.sh

grade-status:
	@sh scripts/grade-slurm.sh status

docs:
	@sh scripts/docs.sh

bench:
	@sh scripts/bench.sh

# Build outputs only: the kernel tree build/linux holds student commits.
clean:
	rm -rf $(BUILD)/obj $(BUILD)/grade/obj $(BUILD)/grade/checks \
		$(BUILD)/initramfs $(BUILD)/checks \
		$(BUILD)/logs $(BUILD)/docs $(BUILD)/tools $(BUILD)/include \
		$(BUILD)/results $(BUILD)/screenshots $(BUILD)/kvm-probe \
		$(BUILD)/bench/obj-lab $(BUILD)/bench/obj-upstream $(BUILD)/bench/results

distclean:
	@sh scripts/distclean.sh
