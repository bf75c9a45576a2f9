# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of sroce.ko, and the entry points of the test harness.
#
#   make                  build sroce.ko against the installed kernel headers
#   make W=1 / make C=1   extra warnings / sparse, as for any kernel module
#   make install          install into /lib/modules/$(uname -r)/extra
#   make load NETDEV=eth0 insmod sroce.ko and add sroce0 on NETDEV
#   make unload           delete sroce links and rmmod
#   make demo             2:1 incast through a congested port: rdma_rxe,
#                         then sroce with DCQCN (table, out/demo/demo.png)
#   make demo-devices     two QEMU guests with sroce, devices and a ping
#   make check            module build, checkpatch, sparse, KUnit, guest tests
#   make check-debug      every guest test on the debug (KASAN, lockdep) kernel
#   make check-trixie     Debian 13 (6.12): module, KUnit, smoke, RC, 6.1 interop
#   make check-all        make check and make check-trixie in one run
#   make check-cc         the long ECN/DCQCN guest experiments, with plots
#   make kunit            KUnit suites only, in QEMU
#   make bench [BENCH="quick trains window loss=2 3 duration=20"]
#                         sroce vs rdma_rxe vs TCP in two QEMU guests
#   make nvmeof           the long NVMe-oF fio verify run in two QEMU guests
#   make fuzz [SEED=N]    the long hostile-packet and user-ring fuzz run
#   make dkms-install     add, build and install the module with DKMS
#   make deb              build the sroce-dkms Debian package (out/deb)
#   make fuzz-verbs [SEED=N] [MINUTES=M] [KERNEL=stock]
#                         random verbs sequences while traffic flows, on
#                         the debug kernel unless KERNEL=stock
#   make faults [SEED=N]  verified RC traffic under loss, reordering,
#                         duplication, corruption and link down (long form)
#   make stress           teardown under load (teardown.sh), 50 rounds

KVER ?= $(shell uname -r)
KDIR ?= $(shell scripts/kdir.sh $(KVER))
NETDEV ?= eth0
LINK ?= sroce0

all: modules

modules:
	@test -n "$(KDIR)" || { echo "sroce: no kernel headers found; run 'scripts/deps.sh' or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_RDMA_SROCE=m modules

clean:
	@test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf out

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_RDMA_SROCE=m INSTALL_MOD_DIR=extra modules_install
	install -D -m 0644 scripts/rdma_rxe-blacklist.conf /etc/modprobe.d/sroce-blacklist-rdma_rxe.conf
	depmod -a $(KVER)

load: modules
	modprobe ib_core
	modprobe ib_uverbs
	modprobe udp_tunnel
	modprobe ip6_udp_tunnel
	insmod sroce.ko
	rdma link add $(LINK) type sroce netdev $(NETDEV)

unload:
	-for l in $$(rdma -j link show | python3 -c 'import json,sys; [print(x["ifname"]) for x in json.load(sys.stdin) if x.get("ifname","").startswith("sroce")]' 2>/dev/null); do rdma link delete $$l; done
	rmmod sroce

demo:
	scripts/demo.sh

demo-devices:
	scripts/demo.sh devices

check:
	scripts/check.sh

check-debug:
	scripts/check.sh --debug

check-trixie:
	scripts/check.sh --trixie

check-all:
	scripts/check.sh --all

check-cc:
	scripts/check-cc.sh

kunit:
	scripts/kunit.sh

bench:
	scripts/bench.sh $(BENCH)

nvmeof: modules
	scripts/vm-run.sh -n 2 -t 1800 -o out/nvmeof -f $(CURDIR)/sroce.ko \
		scripts/tests/nvmeof.sh long

fuzz: modules
	mkdir -p out
	scripts/test-prog-build.sh sroce_fuzz_test $(CURDIR)/out/sroce_fuzz_test
	scripts/vm-run.sh -n 2 -t 1500 -o out/fuzz -f $(CURDIR)/sroce.ko \
		-f $(CURDIR)/out/sroce_fuzz_test -f $(CURDIR)/scripts/tests/roce-fuzz.py \
		scripts/tests/fuzz.sh long $(SEED)

# On the debug kernel (KASAN, lockdep, kmemleak), unless KERNEL=stock.
MINUTES ?= 30
KERNEL ?= debug
FUZZ_KO = $(if $(filter debug,$(KERNEL)),$(CURDIR)/out/debug-module/sroce.ko,$(CURDIR)/sroce.ko)
fuzz-verbs: modules
	mkdir -p out
	scripts/test-prog-build.sh verbs-fuzz $(CURDIR)/out/verbs-fuzz
	$(if $(filter debug,$(KERNEL)),scripts/debug-kernel.sh -m $(CURDIR)/out/debug-module)
	scripts/vm-run.sh -k $(KERNEL) -n 2 -t $$(( $(MINUTES) * 60 + 300 )) -o out/fuzz-verbs \
		-f $(FUZZ_KO) -f $(CURDIR)/out/verbs-fuzz \
		scripts/tests/verbs-fuzz.sh $$(( $(MINUTES) * 60 )) $(SEED)

# The version DKMS and the package carry: debian/changelog's.
VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version | sed 's/-[^-]*$$//')

dkms-install:
	rm -rf /usr/src/sroce-$(VERSION)
	install -d /usr/src/sroce-$(VERSION)/scripts
	cp -a Kbuild Kconfig Makefile drivers include /usr/src/sroce-$(VERSION)/
	install -m 0755 scripts/kdir.sh /usr/src/sroce-$(VERSION)/scripts/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > /usr/src/sroce-$(VERSION)/dkms.conf
	dkms add -m sroce -v $(VERSION)
	dkms build -m sroce -v $(VERSION)
	dkms install -m sroce -v $(VERSION)
	install -D -m 0644 scripts/rdma_rxe-blacklist.conf /etc/modprobe.d/sroce-blacklist-rdma_rxe.conf

deb:
	scripts/deb.sh

rc-verify: modules
	mkdir -p out
	scripts/test-prog-build.sh rc-verify $(CURDIR)/out/rc-verify

faults: rc-verify
	scripts/vm-run.sh -n 2 -t 3600 -o out/faults-sroce -f $(CURDIR)/sroce.ko \
		-f $(CURDIR)/out/rc-verify scripts/tests/faults.sh pair sroce sroce long \
		$(if $(SEED),seed=$(SEED))
	scripts/vm-run.sh -n 2 -t 3600 -o out/faults-rxe -f $(CURDIR)/sroce.ko \
		-f $(CURDIR)/out/rc-verify scripts/tests/faults.sh pair sroce rxe long \
		$(if $(SEED),seed=$(SEED))

stress: rc-verify
	scripts/vm-run.sh -n 2 -t 14400 -o out/stress -f $(CURDIR)/sroce.ko \
		-f $(CURDIR)/out/rc-verify scripts/tests/teardown.sh 50

.PHONY: all modules clean install load unload demo demo-devices check check-debug check-trixie check-all \
	check-cc kunit bench \
	nvmeof fuzz \
	fuzz-verbs dkms-install deb rc-verify faults stress
