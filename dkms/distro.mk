# ashmem on Debian's own kernels, included by the Makefile: the DKMS package
# (scripts/dkms-deb.sh) and the distro lane (scripts/distro.sh).
#
# DISTRO is the lane: Debian 12's kernel series 6.12 or 6.1, or Debian 13's
# trixie-6.12, trixie-7.2 or trixie-7.3 (the last two from
# trixie-backports); DISTRO_KVER the release, by default the newest kernel
# of the series that apt knows, of the lane's architecture: the cloud
# kernel on x86_64, the generic one on arm64 (KERNEL=arm64, whose
# selftests run there).  DISTRO_FULL=1 runs every selftest program, the
# fuzzer and the stress program instead of those that use the kernel's
# interfaces (scripts/distro.sh), into distro-...-full.json (held to
# manifests/distro-...-full.txt).
DISTRO       ?= 6.12
DISTRO_LANES := 6.12 6.1 trixie-6.12 trixie-7.2 trixie-7.3
export DISTRO_FULL
DISTRO_KVER  ?= $(shell KARCH=$(KARCH) bash scripts/distro.sh kver $(DISTRO))
DISTRO_NAME  := distro-$(if $(filter-out x86_64,$(KARCH)),$(KARCH)-)$(DISTRO)$(if $(DISTRO_FULL),-full)
DKMS_DEB_DIR := $(B)/dkms

.PHONY: dkms-deb distro-results check-distro check-distro-all run-distro \
	clean-distro mutants $(DISTRO_LANES:%=distro-%-results)

dkms-deb:
	@bash scripts/dkms-deb.sh . $(DKMS_DEB_DIR)

# One boot of Debian's kernel: load the module DKMS built as Debian does at
# boot, the selftest programs that use the kernel's interfaces, 64-bit and
# 32-bit (all of them but REPEATED_32 with DISTRO_FULL=1, and the fuzzer
# and the stress program), the demo, then unload, reload and ashmem_test
# again.  Debian 13's kernels get the package in a Debian 13 root,
# /var/cache/ashmem/chroot-trixie-amd64 (scripts/chroot.sh); on arm64 (make
# check-arm64, or make check-distro KERNEL=arm64) DKMS runs in an arm64
# root under qemu-user, chroot-bookworm-arm64 or chroot-trixie-arm64 there.
# The lanes of 6.12 on x86_64 first check, in a root of their release, that
# the install of an unsupported kernel's headers succeeds with the package
# installed (DISTRO_SKIP_*: the release whose DKMS is checked).
DISTRO_SKIP_6.12        := bookworm
DISTRO_SKIP_trixie-6.12 := trixie
DISTRO_SKIP := $(if $(filter x86_64,$(KARCH)),$(DISTRO_SKIP_$(DISTRO)))
distro-results: dkms-deb selftests samples guest-bin
	@rm -f $(RES)/$(DISTRO_NAME).json
	$(if $(DISTRO_SKIP),bash scripts/distro.sh skip $(DISTRO_SKIP) $(DKMS_DEB_DIR))
	KERNEL=$(KERNEL) SKIP_SUITES='$(REPEATED_32)' \
		bash scripts/distro.sh check $(DISTRO_KVER) $(DKMS_DEB_DIR) $(DISTRO_NAME)

check-distro:
	-@$(MAKE) distro-results
	@python3 scripts/results.py summary $(RES)/$(DISTRO_NAME).json

# make check's distro lanes, one target each (distro-6.1-results, ...).
$(foreach d,$(DISTRO_LANES),$(eval distro-$(d)-results: ; $$(MAKE) distro-results DISTRO=$(d)))

# Every distro lane, x86_64 and arm64 (Debian 12's 6.12, Debian 13's 6.12).
RES_distro_all := $(DISTRO_LANES:%=$(RES)/distro-%.json) \
	$(RES)/distro-arm64-6.12.json $(RES)/distro-arm64-trixie-6.12.json
check-distro-all:
	@rm -f $(RES_distro_all)
	@for d in $(DISTRO_LANES); do $(MAKE) distro-results DISTRO=$$d || true; done
	-@$(MAKE) KERNEL=arm64 distro-results DISTRO=6.12
	-@$(MAKE) KERNEL=arm64 distro-results DISTRO=trixie-6.12
	@python3 scripts/results.py summary --strict $(RES_distro_all)

run-distro: dkms-deb samples
	KERNEL=$(KERNEL) bash scripts/distro.sh run $(DISTRO_KVER) $(DKMS_DEB_DIR)
	@python3 scripts/results.py summary $(RES)/run-distro.json

# The mutation run: the module as DKMS builds it, on Debian's kernel, once
# unchanged and once with each deliberate bug, and the KUnit tests under UML
# and the debug kernel's module the same way; not part of make check.
mutants: selftests guest-bin
	bash scripts/deps.sh dkms linux-headers-$(DISTRO_KVER)
	if grep -q '^debug' mutants/ashmem.txt; then \
		$(MAKE) KERNEL=debug guest-bin selftests; fi
	python3 scripts/mutants.py run mutants/ashmem.txt . $(DISTRO_KVER) \
		$(B)/selftests/$(KERNEL)-64/install $(KSRC) $(B)/mutants
	cp $(B)/mutants/result.txt mutants/result.txt

clean: clean-distro
clean-distro:
	rm -rf $(DKMS_DEB_DIR) $(B)/distro $(B)/distro-*.suites $(B)/run-distro.suites
