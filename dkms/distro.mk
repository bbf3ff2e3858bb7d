# ashmem on Debian's own kernels, included by the Makefile: the DKMS package
# (scripts/dkms-deb.sh).
DKMS_DEB_DIR := $(B)/dkms

.PHONY: dkms-deb clean-distro

dkms-deb:
	@bash scripts/dkms-deb.sh . $(DKMS_DEB_DIR)

clean: clean-distro
clean-distro:
	rm -rf $(DKMS_DEB_DIR)
