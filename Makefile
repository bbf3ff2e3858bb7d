# ashmem on Linux 6.12 and 7.3: prepare, build and test the kernels; `make help`.
# Everything is built under build/ (git-ignored).  See README.md.

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.NOTPARALLEL:
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

B      := build
# The tree of the lane's base (BASE, below): build/linux is the series on
# 6.12, build/linux-7.3 the series on 7.3 (scripts/series.py).
KSRC    = $(B)/linux$(if $(filter-out 6.12,$(BASE)),-$(BASE))
LOGS   := $(B)/logs
RES    := $(B)/results
JOBS   ?= $(shell nproc)
export JOBS

# ccache hits across clones: paths under the clone are hashed as relative
# paths, and the object directory is left out of the hash of objects with
# debug information, so a fresh clone in another folder reuses what an
# earlier build compiled.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

# Kernel lanes: KERNEL=NAME builds in build/NAME from the selftests' config
# files, then FRAGMENTS_NAME, merged on top of tinyconfig: a lane's fragment
# can override what the tests ask for (the debug lane builds ashmem as a
# module).  A new lane is one more FRAGMENTS_ line and a fragment in configs/.
# ARCH=arm64 (as for the kernel's own makefiles) picks the arm64 lane.
KERNEL           ?= $(if $(filter arm64,$(ARCH)),arm64,x86_64)
FRAGMENTS_x86_64 := configs/x86_64.config
FRAGMENTS_debug  := configs/x86_64.config configs/debug.config
FRAGMENTS_nomemfd := configs/x86_64.config configs/nomemfd.config
FRAGMENTS_arm64  := configs/arm64.config
FRAGMENTS_arm64-16k := configs/arm64.config configs/arm64-16k.config
FRAGMENTS_mainline := configs/mainline.config
FRAGMENTS        ?= $(FRAGMENTS_$(KERNEL))
# The kernel a lane builds: the series on Linux 6.12, or for the mainline
# lane on 7.3 (Debian 13's linux-source-7.3, scripts/fetch-source.sh).
BASE_mainline    := 7.3
BASE             ?= $(or $(BASE_$(KERNEL)),6.12)
KOUT             := $(B)/$(KERNEL)
LANES            := $(patsubst FRAGMENTS_%,%,$(filter FRAGMENTS_%,$(.VARIABLES)))

# A lane's architecture (KARCH, read by the build and VM scripts; not ARCH,
# which the kernel's makefiles take from the environment), its kernel image,
# and the word sizes of its selftests: 32-bit tasks need 4K pages on arm64.
KARCH_arm64      := arm64
KARCH_arm64-16k  := arm64
KARCH            := $(or $(KARCH_$(KERNEL)),x86_64)
BITS_arm64-16k   := 64
BITS             := $(or $(BITS_$(KERNEL)),64 32)
# The page size of a lane's kernel: ashmem_test checks that its programs
# see it (ASHMEM_PAGE_SIZE, on the kernel command line, reaches them
# through /init's environment).
PAGE_SIZE_arm64-16k := 16384
PAGE_SIZE        := $(or $(PAGE_SIZE_$(KERNEL)),4096)
IMAGE_x86_64     := arch/x86/boot/bzImage
IMAGE_arm64      := arch/arm64/boot/Image
BZIMAGE          := $(KOUT)/$(IMAGE_$(KARCH))
export KARCH

# Debian's static busybox of the lane's architecture, for the initramfs
# (scripts/mkinitramfs.sh); the host's own on x86_64.
ifneq ($(KARCH),x86_64)
export BUSYBOX   := $(CURDIR)/$(B)/busybox-$(KARCH)/bin/busybox
endif
# The packages the arm64 lanes add: clang and lld build the kernel and the
# programs (gcc-aarch64-linux-gnu cannot be installed with gcc-multilib).
DEPS_arm64       := clang lld llvm qemu-system-arm libc6-dev-arm64-cross \
	libc6-dev-armhf-cross libgcc-12-dev-arm64-cross libgcc-12-dev-armhf-cross

SELFTEST_TARGETS ?= ashmem
SELFTEST_CONFIGS := $(wildcard $(SELFTEST_TARGETS:%=tools/testing/selftests/%/config))
KUNITCONFIG      ?= mm/ashmem.kunitconfig
DEMO             ?= ashmem-demo
BENCH_ARGS       ?=

# The VM (see scripts/vm-run.sh).  RUN_KERNEL_ARGS keeps `make run` to the
# demo's own words: the console shows only kernel errors, while the whole
# kernel log still reaches the host (the guest dumps dmesg) and is checked.
VM_MEM          ?= 512M
VM_SMP          ?= 2
VM_TIMEOUT      ?= 1800
# SUITE_TIMEOUT, when set, replaces the guest's timeout per program, the
# kselftests' own (scripts/vm-run.sh reads their settings file, as
# run_kselftest.sh does); the soak and the benchmark raise it.
RUN_KERNEL_ARGS ?= quiet
export VM_MEM VM_SMP VM_TIMEOUT SUITE_TIMEOUT

.PHONY: help deps prepare kernel selftests samples guest-bin kunit kunit-results \
	vmtest vmtest-results stress-results nokmem-results soak soak-results \
	debug-results \
	nomemfd-results check-nomemfd arm64-results check-arm64 check check-fast check-all run \
	series-7.3-results mainline-results kunit-7.3-results check-mainline arm64-16k-results \
	distro-arm64-results distro-arm64-trixie-results \
	bench patches series series-results lint lint-results docs docs-results \
	clean distclean

help:
	@echo "make run        boot the kernel and run the ashmem demo (samples/ashmem)"
	@echo "make check      KUnit; the series on 6.12 and 7.3, lint, docs; in VMs on the x86_64"
	@echo "                kernel (6.12, two NUMA nodes): kselftests (64-bit, 32-bit), the demo,"
	@echo "                the fuzzer, the stress program (256M), the cgroup tests with"
	@echo "                cgroup.memory=nokmem; the debug kernel (KASAN, lockdep, kmemleak);"
	@echo "                the DKMS module on Debian 12's 6.12 and 6.1 and Debian 13's 6.12,"
	@echo "                7.2 and 7.3 kernels; the arm64 kernel (4K pages); the time of each"
	@echo "                step, then 'N passed, N failed, N skipped', non-zero exit on any problem"
	@echo "make check-fast the same without the debug, Debian and arm64 kernels"
	@echo "make check-all  check, the mainline lane (7.3), nomemfd, arm64 16K, Debian's arm64 kernels"
	@echo "make check-mainline  the series on Linux 7.3: applied, KUnit (UML), the vmtest programs"
	@echo "make deps       install missing Debian packages (apt-get, as root or via sudo)"
	@echo "make prepare    make $(KSRC) the git checkout of the series (patches/*.txt) on $(BASE)"
	@echo "make kernel     build $(BZIMAGE) (KERNEL=$(KERNEL))"
	@echo "make selftests  build the kselftests, static, 64-bit and 32-bit"
	@echo "make samples    build the demo programs in samples/ashmem"
	@echo "make kunit      KUnit only (UML, $(B)/kunit)"
	@echo "make vmtest     the VM part of check only (kselftests, demo)"
	@echo "make check-nomemfd  the x86_64 kernel without the ashmem ioctls of memfd files:"
	@echo "                every one must answer ENOTTY on a memfd (64-bit, 32-bit)"
	@echo "make check-arm64  the arm64 kernel (qemu virt): the vmtest programs 64-bit and"
	@echo "                32-bit with 4K pages, 64-bit with 16K pages; Debian's arm64"
	@echo "                kernel with the DKMS module (built in an arm64 root under"
	@echo "                qemu-user): the distro lane's programs; make run ARCH=arm64"
	@echo "make soak       the reclaim matrix (ashmem_reclaim), SOAK_RUNS=$(SOAK_RUNS) runs of every shape"
	@echo "make bench      run ashmem_bench (64-bit) in the VM, instruction then wall clock; BENCH_ARGS=\"--quick\""
	@echo "make patches    write the series (git format-patch, cover letter) to $(B)/patches"
	@echo "make series     git am the series onto pristine $(BASE) (BASE=7.3 too): applies, is the series"
	@echo "make lint       checkpatch on every patch, kernel-doc, sparse W=1, =y/=m/=n builds,"
	@echo "                the uapi header test, headers_install, results.py's self-test,"
	@echo "                and that mutants/ashmem.txt still applies"
	@echo "make docs       build the userspace API docs with Sphinx; no warning from ashmem's"
	@echo "make dkms-deb   build the DKMS package $(B)/dkms/ashmem-dkms_VERSION_all.deb"
	@echo "make check-distro  install Debian's $(DISTRO) kernel, its headers and the package,"
	@echo "                boot that kernel with the module: the selftests that use the kernel's"
	@echo "                interfaces, demo (DISTRO_FULL=1: every selftest, fuzzer, stress);"
	@echo "                DISTRO=$(subst $(eval) ,|,$(DISTRO_LANES)) (trixie-*: Debian 13)"
	@echo "make check-distro-all  every distro lane, and the arm64 ones (6.12, trixie-6.12)"
	@echo "make run-distro the demo on Debian's kernel with the DKMS module (DISTRO as above)"
	@echo "make mutants    build the module with each bug of mutants/ashmem.txt, boot Debian's"
	@echo "                kernel with it (or KUnit under UML, or the debug kernel):"
	@echo "                its test must fail (mutants/result.txt)"
	@echo "make clean      remove build outputs, keep the kernel tree and ccache"
	@echo "make distclean  remove $(B)/ entirely"
	@echo "Variables: KERNEL BASE VM_MEM VM_SMP VM_TIMEOUT SUITE_TIMEOUT JOBS DEMO BENCH_ARGS DISTRO DISTRO_KVER"

include dkms/distro.mk

deps:
	@bash scripts/deps.sh $(DEPS_$(KARCH))

prepare: deps
	$(if $(filter-out 6.12,$(BASE)),@bash scripts/fetch-source.sh $(BASE))
	@python3 scripts/series.py prepare . $(KSRC) $(BASE)

kernel: prepare
	bash scripts/build-kernel.sh $(KSRC) $(KOUT) $(SELFTEST_CONFIGS) $(FRAGMENTS)
ifneq ($(KARCH),x86_64)
	bash scripts/busybox-foreign.sh $(KARCH) $(B)/busybox-$(KARCH)
endif

selftests: kernel
	$(foreach b,$(BITS),bash scripts/build-selftests.sh $(KSRC) $(KOUT) $(b) \
		$(B)/selftests/$(KERNEL)-$(b) $(SELFTEST_TARGETS);)

samples: kernel
	bash scripts/build-samples.sh $(KOUT) samples/ashmem $(B)/samples

# Helper programs of the guest scripts (scripts/guest/*.c), and the modules
# of a lane built with CONFIG_MODULES, for the initramfs.
guest-bin: kernel
	bash scripts/build-samples.sh $(KOUT) scripts/guest $(B)/guest-bin
	@rm -rf $(B)/modules/$(KERNEL) && mkdir -p $(B)/modules/$(KERNEL)
	@find $(KOUT) -name '*.ko' -exec cp {} $(B)/modules/$(KERNEL)/ \;

# *-results targets record a result file and fail only if that is impossible;
# the targets people type add the summary (and its exit status).
kunit-results: prepare
	@rm -f $(RES)/kunit.json
	bash scripts/kunit.sh $(KSRC) $(KUNITCONFIG) $(B)/kunit $(LOGS)/kunit.log
	@python3 scripts/results.py kunit $(LOGS)/kunit.log "$$(cat $(LOGS)/kunit.log.rc)" \
		$(B)/kunit/test.log $(RES)/kunit.json

# One boot: what VMTEST_FIRST lists, the 64-bit selftests, the 32-bit ones,
# the demo (plain: it passes if it exits 0), the ioctl fuzzer (for -t
# seconds), and what VMTEST_EXTRA adds (files of suites lines; '#' starts
# a comment).
# The x86_64 and mainline lanes boot with two memory nodes, so that
# ashmem_reclaim's NUMA shapes (pressure bound to one node, an area
# interleaved over both) run there, 64-bit and 32-bit, with the rest of
# the suite; the debug lane boots with one node, which the other shapes
# then cover.
NUMA_x86_64  := 2
NUMA_mainline := 2
VM_NUMA      ?= $(or $(NUMA_$(KERNEL)),1)
FUZZ_ARGS    ?= -t 30 -p 2
VMTEST_FIRST ?=
VMTEST_EXTRA ?=
vmtest-results: selftests samples guest-bin
	@{ $(if $(VMTEST_FIRST),grep -hv '^#' $(VMTEST_FIRST);) \
	   cat $(BITS:%=$(B)/selftests/$(KERNEL)-%/suites.txt) \
	   $(if $(VMTEST_SKIP),| grep -Ev '^tap ($(VMTEST_SKIP)) '); \
	} >$(B)/vmtest-$(KERNEL).suites
	@{ echo "plain $(DEMO) /samples ./$(DEMO)"; \
	   $(foreach b,$(BITS),echo "tap ashmem_fuzz-$(b) /selftests/$(b)/ashmem ./ashmem_fuzz $(FUZZ_ARGS)";) \
	   $(if $(VMTEST_EXTRA),grep -hv '^#' $(VMTEST_EXTRA);) \
	} >>$(B)/vmtest-$(KERNEL).suites
	KERNEL_ARGS="$(KERNEL_ARGS) ASHMEM_PAGE_SIZE=$(PAGE_SIZE)" VM_NUMA=$(VM_NUMA) \
		bash scripts/vm.sh $(BZIMAGE) vmtest-$(KERNEL) $(B)/vmtest-$(KERNEL).suites \
		$(foreach b,$(BITS),$(B)/selftests/$(KERNEL)-$(b)/install=/selftests/$(b)) \
		$(B)/samples=/samples scripts/guest=/guest \
		$(B)/guest-bin=/guest-bin $(B)/modules/$(KERNEL)=/modules

# The stress program, 64-bit then 32-bit, in a VM with little memory so that
# its memory hogs force real reclaim.
STRESS_MEM  ?= 256M
STRESS_ARGS ?= -t 60
stress-results: selftests
	@{ echo "plain ashmem_stress-64 /selftests/64/ashmem ./ashmem_stress $(STRESS_ARGS)"; \
	   echo "plain ashmem_stress-32 /selftests/32/ashmem ./ashmem_stress -t 30"; \
	} >$(B)/stress-$(KERNEL).suites
	VM_MEM=$(STRESS_MEM) bash scripts/vm.sh $(BZIMAGE) stress-$(KERNEL) \
		$(B)/stress-$(KERNEL).suites \
		$(B)/selftests/$(KERNEL)-64/install=/selftests/64 \
		$(B)/selftests/$(KERNEL)-32/install=/selftests/32

# The nokmem lane: the same kernel booted with cgroup.memory=nokmem, as
# many Android devices boot.  list_lru then keeps one list per node for
# every cgroup, and a cgroup's reclaim must find its own ranges on it:
# ashmem_memcg and the cgroup shapes of ashmem_reclaim, 64-bit and 32-bit,
# after a check that the option is in force.
NOKMEM_SHAPES := cgroup_limit filled_elsewhere unpinned_elsewhere created_in_root \
	two_cgroups splits_at_limit
NOKMEM_RUNS   ?= 2
nokmem-suites = echo "plain nokmem-in-force / grep -qw cgroup.memory=nokmem /proc/cmdline"; \
	for b in 64 32; do \
		echo "tap ashmem_memcg-nokmem-$$b /selftests/$$b/ashmem ./ashmem_memcg"; \
		echo "tap ashmem_reclaim-nokmem-$$b /selftests/$$b/ashmem env ASHMEM_RECLAIM_RUNS=$(1) ./ashmem_reclaim $(NOKMEM_SHAPES:%=-v %)"; \
	done
nokmem-results: selftests
	@{ $(call nokmem-suites,$(NOKMEM_RUNS)); } >$(B)/nokmem-$(KERNEL).suites
	KERNEL_ARGS=cgroup.memory=nokmem bash scripts/vm.sh $(BZIMAGE) nokmem-$(KERNEL) \
		$(B)/nokmem-$(KERNEL).suites \
		$(B)/selftests/$(KERNEL)-64/install=/selftests/64 \
		$(B)/selftests/$(KERNEL)-32/install=/selftests/32

# The reclaim soak: every shape of ashmem_reclaim SOAK_RUNS times, 64-bit
# and 32-bit; the shapes on one node, then the two NUMA shapes (pages on
# node 1, pages interleaved over both) on two, then the cgroup shapes
# with cgroup.memory=nokmem.
SOAK_RUNS ?= 100
SOAK_NUMA := numa_node1 interleaved
soak-results: selftests
	@for b in 64 32; do echo "tap reclaim-$$b /selftests/$$b/ashmem env ASHMEM_RECLAIM_RUNS=$(SOAK_RUNS) ./ashmem_reclaim $(SOAK_NUMA:%=-V %)"; \
		done >$(B)/soak-$(KERNEL).suites
	@for b in 64 32; do echo "tap reclaim-numa-$$b /selftests/$$b/ashmem env ASHMEM_RECLAIM_RUNS=$(SOAK_RUNS) ./ashmem_reclaim $(SOAK_NUMA:%=-v %)"; \
		done >$(B)/soak-numa-$(KERNEL).suites
	SUITE_TIMEOUT=$$(( $(SOAK_RUNS) * 90 )) VM_TIMEOUT=$$(( $(SOAK_RUNS) * 200 )) \
		bash scripts/vm.sh $(BZIMAGE) soak-$(KERNEL) $(B)/soak-$(KERNEL).suites \
		$(B)/selftests/$(KERNEL)-64/install=/selftests/64 \
		$(B)/selftests/$(KERNEL)-32/install=/selftests/32
	SUITE_TIMEOUT=$$(( $(SOAK_RUNS) * 30 )) VM_TIMEOUT=$$(( $(SOAK_RUNS) * 70 )) VM_NUMA=2 \
		bash scripts/vm.sh $(BZIMAGE) soak-numa-$(KERNEL) $(B)/soak-numa-$(KERNEL).suites \
		$(B)/selftests/$(KERNEL)-64/install=/selftests/64 \
		$(B)/selftests/$(KERNEL)-32/install=/selftests/32
	@{ $(call nokmem-suites,$(SOAK_RUNS)); } >$(B)/soak-nokmem-$(KERNEL).suites
	SUITE_TIMEOUT=$$(( $(SOAK_RUNS) * 40 )) VM_TIMEOUT=$$(( $(SOAK_RUNS) * 100 )) \
		KERNEL_ARGS=cgroup.memory=nokmem \
		bash scripts/vm.sh $(BZIMAGE) soak-nokmem-$(KERNEL) $(B)/soak-nokmem-$(KERNEL).suites \
		$(B)/selftests/$(KERNEL)-64/install=/selftests/64 \
		$(B)/selftests/$(KERNEL)-32/install=/selftests/32

soak:
	-@$(MAKE) soak-results
	@python3 scripts/results.py summary $(RES)/soak-$(KERNEL).json $(RES)/soak-numa-$(KERNEL).json \
		$(RES)/soak-nokmem-$(KERNEL).json

# The debug lane: KASAN, lockdep, KFENCE, kmemleak... (configs/debug.config),
# with ashmem as a module.  First every detector the log scan relies on
# must be in the running kernel; ashmem_memfd runs before the module is
# loaded (the ashmem ioctls of memfd files are built in, and must answer);
# the module is loaded, which runs its KUnit
# tests; then every selftest, the fuzzer and the stress program; then
# unloading is refused while an area is open or mapped and works once none
# is, the module is loaded again (KUnit again) and the selftests run once
# more; last a kmemleak scan (scripts/suites/debug-*.txt).  A kernel report
# anywhere in the log fails the run (scripts/results.py).
#
# The 32-bit reclaim and memcg programs (REPEATED_32) do not run here nor
# in the distro lanes: a 32-bit process differs from a 64-bit one in the
# ioctls' compat entry, which ashmem_test and ashmem_bugs (32-bit) cover
# in every lane; the purges those programs wait for are the same kernel
# code as for the 64-bit ones beside them.  Both ABIs run them in the
# x86_64 and arm64 lanes and in make soak.
REPEATED_32 := kselftest-32/ashmem/ashmem_(reclaim|memcg)
debug-results:
	$(MAKE) KERNEL=debug VMTEST_FIRST=scripts/suites/debug-first.txt \
		VMTEST_EXTRA=scripts/suites/debug-extra.txt \
		VMTEST_SKIP='$(REPEATED_32)' vmtest-results

# The nomemfd lane (configs/nomemfd.config): the x86_64 kernel with the
# ashmem ioctls of memfd files switched off.  Every one must fail with
# ENOTTY on a memfd, as upstream, 64-bit and 32-bit: the tests of
# ashmem_memfd that check that (fixture "global"), told to expect no ashmem
# ioctls on memfds.  One more kernel build (mostly ccache hits: the
# configuration differs in one option) and one short boot.
nomemfd-results:
	$(MAKE) KERNEL=nomemfd selftests
	@for b in 64 32; do echo "tap ashmem_memfd-nomemfd-$$b /selftests/$$b/ashmem env ASHMEM_MEMFD=off ./ashmem_memfd -f global"; \
		done >$(B)/nomemfd.suites
	bash scripts/vm.sh $(B)/nomemfd/arch/x86/boot/bzImage vmtest-nomemfd $(B)/nomemfd.suites \
		$(B)/selftests/nomemfd-64/install=/selftests/64 \
		$(B)/selftests/nomemfd-32/install=/selftests/32

check-nomemfd:
	@rm -f $(RES)/vmtest-nomemfd.json
	-@$(MAKE) nomemfd-results
	@python3 scripts/results.py summary $(RES)/vmtest-nomemfd.json

# The arm64 lanes: the 4K-page kernel runs what vmtest runs on x86_64,
# 64-bit (aarch64) and 32-bit (armhf, compat) programs, in check too; the
# 16K-page kernel the 64-bit ones, and Debian's arm64 kernel the DKMS
# package's module (the distro lane on arm64), in check-arm64 only (one
# more kernel built with clang, and DKMS under qemu-user).
arm64-results:
	$(MAKE) KERNEL=arm64 vmtest-results

RES_arm64_all := $(RES)/vmtest-arm64.json $(RES)/vmtest-arm64-16k.json \
	$(RES)/distro-arm64-6.12.json $(RES)/distro-arm64-trixie-6.12.json
check-arm64:
	@rm -f $(RES_arm64_all)
	-@$(MAKE) KERNEL=arm64 vmtest-results
	-@$(MAKE) KERNEL=arm64-16k vmtest-results
	-@$(MAKE) KERNEL=arm64 distro-results DISTRO=6.12
	-@$(MAKE) KERNEL=arm64 distro-results DISTRO=trixie-6.12
	@python3 scripts/results.py summary --strict $(RES_arm64_all)

kunit:
	-@$(MAKE) kunit-results
	@python3 scripts/results.py summary $(RES)/kunit.json

vmtest:
	-@$(MAKE) vmtest-results
	@python3 scripts/results.py summary $(RES)/vmtest-$(KERNEL).json

# The series: the commits of $(KSRC)'s branch 'series' (scripts/series.py),
# written by git format-patch, then applied with git am to a fresh checkout
# of pristine 6.12; $(KSRC), what every lane builds, must be that series.
# BASE=7.3: the series on 7.3, in $(B)/patches-7.3, its result series-7.3.
SERIES_SUFFIX = $(if $(filter-out 6.12,$(BASE)),-$(BASE))
patches: prepare
	python3 scripts/series.py patches . $(KSRC) $(B)/patches$(SERIES_SUFFIX) $(BASE)

series-results: patches
	@rm -f $(RES)/series$(SERIES_SUFFIX).json $(LOGS)/series$(SERIES_SUFFIX).log.rc; mkdir -p $(LOGS)
	rc=0; python3 scripts/series.py verify $(KSRC) $(B)/patches$(SERIES_SUFFIX) \
		$(B)/series$(SERIES_SUFFIX) $(BASE) 2>&1 | tee $(LOGS)/series$(SERIES_SUFFIX).log || rc=$$?; \
		echo $$rc >$(LOGS)/series$(SERIES_SUFFIX).log.rc
	@python3 scripts/results.py tap series$(SERIES_SUFFIX) $(LOGS)/series$(SERIES_SUFFIX).log \
		"$$(cat $(LOGS)/series$(SERIES_SUFFIX).log.rc)" $(RES)/series$(SERIES_SUFFIX).json

# The series on 7.3 (make BASE=7.3 series), a step of make check of its
# own.
series-7.3-results:
	$(MAKE) BASE=7.3 series-results

# The mainline lane: the series on Linux 7.3, KUnit under UML on the 7.3
# tree (build/kunit-7.3, result kunit-7.3, manifests/kunit-7.3.txt), then
# what vmtest runs on 6.12 (manifests/vmtest-mainline.txt).
mainline-results:
	$(MAKE) BASE=7.3 kunit-7.3-results
	$(MAKE) KERNEL=mainline vmtest-results

kunit-7.3-results: prepare
	@rm -f $(RES)/kunit-7.3.json
	bash scripts/kunit.sh $(KSRC) $(KUNITCONFIG) $(B)/kunit-7.3 $(LOGS)/kunit-7.3.log
	@python3 scripts/results.py kunit $(LOGS)/kunit-7.3.log "$$(cat $(LOGS)/kunit-7.3.log.rc)" \
		$(B)/kunit-7.3/test.log $(RES)/kunit-7.3.json kunit-7.3

check-mainline:
	@rm -f $(RES)/series-7.3.json $(RES)/kunit-7.3.json $(RES)/vmtest-mainline.json
	-@$(MAKE) series-7.3-results
	-@$(MAKE) mainline-results
	@python3 scripts/results.py summary --strict $(RES)/series-7.3.json \
		$(RES)/kunit-7.3.json $(RES)/vmtest-mainline.json

lint-results: patches kernel
	@rm -f $(RES)/lint.json $(LOGS)/lint.log.rc; mkdir -p $(LOGS)
	rc=0; bash scripts/lint.sh $(KSRC) $(KOUT) $(B)/patches 2>&1 | tee $(LOGS)/lint.log || rc=$$?; \
		echo $$rc >$(LOGS)/lint.log.rc
	@python3 scripts/results.py tap lint $(LOGS)/lint.log \
		"$$(cat $(LOGS)/lint.log.rc)" $(RES)/lint.json

docs-results: prepare
	@rm -f $(RES)/docs.json $(LOGS)/docs.log.rc; mkdir -p $(LOGS)
	rc=0; bash scripts/docs.sh $(KSRC) $(B)/docs 2>&1 | tee $(LOGS)/docs.log || rc=$$?; \
		echo $$rc >$(LOGS)/docs.log.rc
	@python3 scripts/results.py tap docs $(LOGS)/docs.log \
		"$$(cat $(LOGS)/docs.log.rc)" $(RES)/docs.json

series lint docs:
	-@$(MAKE) $@-results
	@python3 scripts/results.py summary $(RES)/$@$(if $(filter series,$@),$(SERIES_SUFFIX)).json

# Every step runs even if an earlier one failed; a step that could not
# finish leaves no result file, which the summary counts as a failure, and
# each result file is held to its manifest (manifests/, scripts/results.py).
# check-fast is the inner loop on the x86_64 kernel and the series on both
# bases; check adds the debug lane, the distro lanes (Debian 12's 6.12 and
# 6.1, Debian 13's 6.12, 7.2 and 7.3: DISTRO_LANES) and the arm64 lane
# with 4K pages; check-all adds what does not fit in CI's time: the
# mainline lane (7.3), the nomemfd kernel, the arm64 kernel with 16K
# pages and the distro lanes on arm64.  Each prints the time of each step.
RES_kunit  := $(RES)/kunit.json
RES_vmtest := $(RES)/vmtest-$(KERNEL).json
RES_stress := $(RES)/stress-$(KERNEL).json
RES_nokmem := $(RES)/nokmem-$(KERNEL).json
RES_series := $(RES)/series.json
RES_series-7.3 := $(RES)/series-7.3.json
RES_lint   := $(RES)/lint.json
RES_docs   := $(RES)/docs.json
RES_debug  := $(RES)/vmtest-debug.json
RES_distro := $(RES)/$(DISTRO_NAME).json
$(foreach d,$(filter-out $(DISTRO),$(DISTRO_LANES)),$(eval RES_distro-$(d) := $(RES)/distro-$(d).json))
RES_arm64  := $(RES)/vmtest-arm64.json
RES_mainline := $(RES)/kunit-7.3.json $(RES)/vmtest-mainline.json
RES_nomemfd := $(RES)/vmtest-nomemfd.json
RES_arm64-16k := $(RES)/vmtest-arm64-16k.json
RES_distro-arm64 := $(RES)/distro-arm64-6.12.json
RES_distro-arm64-trixie := $(RES)/distro-arm64-trixie-6.12.json
arm64-16k-results:
	$(MAKE) KERNEL=arm64-16k vmtest-results
distro-arm64-results:
	$(MAKE) KERNEL=arm64 distro-results DISTRO=6.12
distro-arm64-trixie-results:
	$(MAKE) KERNEL=arm64 distro-results DISTRO=trixie-6.12

check-fast: STEPS := kunit vmtest stress nokmem series series-7.3 lint docs
check:      STEPS := kunit vmtest stress nokmem series series-7.3 lint docs debug distro \
		     $(filter-out distro-$(DISTRO),$(DISTRO_LANES:%=distro-%)) arm64
check-all:  STEPS := kunit vmtest stress nokmem series series-7.3 lint docs debug distro \
		     $(filter-out distro-$(DISTRO),$(DISTRO_LANES:%=distro-%)) arm64 \
		     mainline nomemfd arm64-16k distro-arm64 distro-arm64-trixie
check-fast check check-all:
	@rm -f $(foreach s,$(STEPS),$(RES_$(s))) $(LOGS)/$@.times; mkdir -p $(LOGS)
	@for step in $(STEPS); do start=$$(date +%s); $(MAKE) $$step-results || true; \
		echo "$$step $$(( $$(date +%s) - start ))" >>$(LOGS)/$@.times; done
	@python3 scripts/results.py times $(LOGS)/$@.times
	@python3 scripts/results.py summary --strict $(foreach s,$(STEPS),$(RES_$(s)))

run: samples
	@echo "plain $(DEMO) /samples ./$(DEMO)" >$(B)/run.suites
	KERNEL_ARGS="$(RUN_KERNEL_ARGS)" bash scripts/vm.sh $(BZIMAGE) run $(B)/run.suites \
		$(B)/samples=/samples
	@python3 scripts/results.py summary $(RES)/run.json

# Another program in the VM: a suites line and scripts/vm.sh, as here.
# A full run's repetitions may outlast a test program's timeout.
# Two boots: the guest clock counting instructions (one vCPU thread, no
# noise from the host; measure 2 needs parallel vCPUs and is left out), then
# wall-clock time with the vCPUs in parallel threads.
# Measure 7 reads its clean page cache from a blank virtio disk.
bench: SUITE_TIMEOUT := 1800
bench: export VM_DISK := 128M
bench: selftests
	@echo "plain ashmem_bench /selftests/64/ashmem ./ashmem_bench --insn --cache /dev/vda $(BENCH_ARGS)" \
		>$(B)/bench-insn.suites
	@echo "plain ashmem_bench /selftests/64/ashmem ./ashmem_bench --cache /dev/vda $(BENCH_ARGS)" >$(B)/bench.suites
	@echo "== bench, instruction clock (qemu -icount): measures 1, 3-7"
	VM_CLOCK=insn bash scripts/vm.sh $(BZIMAGE) bench-insn $(B)/bench-insn.suites \
		$(B)/selftests/$(KERNEL)-64/install=/selftests/64
	@echo "== bench, wall clock (2 vCPU threads): measures 1-7"
	bash scripts/vm.sh $(BZIMAGE) bench $(B)/bench.suites \
		$(B)/selftests/$(KERNEL)-64/install=/selftests/64
	@python3 scripts/results.py summary $(RES)/bench-insn.json $(RES)/bench.json

clean:
	rm -rf $(LANES:%=$(B)/%) $(LANES:%=$(B)/%-lint-m) $(LANES:%=$(B)/%-lint-n) \
		$(B)/kunit $(B)/selftests $(B)/samples $(B)/guest-bin $(B)/modules \
		$(B)/initramfs $(B)/patches $(B)/series $(B)/docs \
		$(LOGS) $(RES) $(B)/*.suites

distclean:
	rm -rf $(B)
