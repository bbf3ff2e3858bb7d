# ashmem on Debian's own kernels, included by the Makefile: the DKMS package
# (scripts/dkms-deb.sh) and the distro lane (scripts/distro.sh).
#
# DISTRO is the kernel series, 6.12 or 6.1; DISTRO_KVER the release, by
# default the newest Debian 12 kernel of the series that apt knows, of the
# lane's architecture: the cloud kernel on x86_64, the generic one on
# arm64 (KERNEL=arm64, whose selftests run there).
DISTRO       ?= 6.12
DISTRO_KVER  ?= $(shell KARCH=$(KARCH) bash scripts/distro.sh kver $(DISTRO))
DISTRO_NAME  := distro-$(if $(filter-out x86_64,$(KARCH)),$(KARCH)-)$(DISTRO)
DKMS_DEB_DIR := $(B)/dkms

.PHONY: dkms-deb distro-results distro-6.1-results check-distro run-distro \
	clean-distro mutants

dkms-deb:
	@bash scripts/dkms-deb.sh . $(DKMS_DEB_DIR)

# One boot of Debian's kernel: load the module DKMS built, every selftest
# program 64-bit and 32-bit but REPEATED_32 (Makefile, the debug lane), the
# demo, the fuzzer, the stress program, then unload, reload and ashmem_test
# again.  On arm64 (make check-arm64, or make check-distro KERNEL=arm64)
# DKMS runs in an arm64 root under qemu-user, build/chroot-arm64, made once
# (scripts/chroot.sh).
distro-results: dkms-deb selftests samples guest-bin
	KERNEL=$(KERNEL) SKIP_SUITES='$(REPEATED_32)' \
		bash scripts/distro.sh check $(DISTRO_KVER) $(DKMS_DEB_DIR) $(DISTRO_NAME)

check-distro:
	-@$(MAKE) distro-results
	@python3 scripts/results.py summary $(RES)/$(DISTRO_NAME).json

# make check's lane of the 6.1 series, next to the default's.
distro-6.1-results:
	$(MAKE) distro-results DISTRO=6.1

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
