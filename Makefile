# Thin wrapper over meson + ninja.  `make demo` and `make check` are the two
# commands in the README; both build first.
BUILD ?= build
MESON_OPTS ?= --buildtype=debugoptimized -Dwerror=true
# The product build is link-time optimized: an emulated send crosses
# several small files (the interposed call, the kernel's argument checks,
# the socket's operations), which LTO inlines back into one path.
BUILD_OPTS ?= $(MESON_OPTS) -Db_lto=true

.PHONY: all demo check bench oracle clean install deb check-asan check-valgrind fuzz nolto libkcapi

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(BUILD_OPTS)

# The seed's two sample programs, unchanged, under ualg-run.
demo: all
	@echo "== hash sample (sha1 of \"abc\")"
	@$(BUILD)/src/tools/ualg-run $(BUILD)/examples/hash-sample
	@echo "== cipher sample (cbc(aes), RFC 3602 case 1)"
	@$(BUILD)/src/tools/ualg-run $(BUILD)/examples/cipher-sample

# Every suite of tests/run-all.sh, or SUITES="NAME|GROUP ..." (see
# tests/run-all.sh --list); meson test -C build runs the same suites.
SUITES ?=
check: all
	BUILD=$(BUILD) tests/run-all.sh $(SUITES)

# libkcapi's own test suite (Debian 12's libkcapi sources, built in a
# temporary directory) under ualg-run with each engine; apt-get needs root.
# Not part of check: it downloads and builds libkcapi.
libkcapi: all
	BUILD=$(BUILD) tests/real/libkcapi-suite.sh

# Throughput and latency of the native API and the shim against in-process
# OpenSSL (a benchmark, not a test), then every hash and skcipher streamed
# beside a busy process (ualg-sweep).  BENCH_ARGS="--json" for JSON.  Then
# each engine against in-process OpenSSL, with RFC 6070's PBKDF2 (the
# 16777216 iterations take seconds in the program, about a minute through
# algd).  Last, DPDK's software devices through algd (AF_ALG and the
# native ring) against the same devices driven directly
# (tests/ctl/dpdk-bench.sh; a line saying why when algd has no DPDK).
PBKDF2_ITERATIONS ?= 16777216
ALGD_PBKDF2_ITERATIONS ?= 1048576
bench: all
	$(BUILD)/src/tools/ualg-bench $(BENCH_ARGS)
	UALG_ENGINE=inproc $(BUILD)/src/tools/ualg-bench --engines --pbkdf2 $(PBKDF2_ITERATIONS)
	UALG_ENGINE=algd $(BUILD)/src/tools/ualg-bench --engines --pbkdf2 $(ALGD_PBKDF2_ITERATIONS)
	UALG_ENGINE=inproc $(BUILD)/src/tools/ualg-run $(BUILD)/src/tools/ualg-sweep
	UALG_ENGINE=algd $(BUILD)/src/tools/ualg-run $(BUILD)/src/tools/ualg-sweep
	BUILD=$(BUILD) tests/supervise/bench.sh
	BUILD=$(BUILD) tests/ctl/dpdk-bench.sh

# Re-records the golden files on a real Linux 6.1 (needs ../shared/kernel-oracle.sh).
oracle: all
	tests/oracle/record.sh

# `make install [prefix=/usr] [DESTDIR=/tmp/stage]`: prefix is configured
# into the build (paths in the units, ualg-run's fallbacks), DESTDIR only
# stages the copy (ualg-run finds its shim relative to itself there).
install:
	@[ -z "$(prefix)" ] || [ ! -f $(BUILD)/build.ninja ] || meson configure $(BUILD) -Dprefix=$(prefix)
	@[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) $(BUILD_OPTS) $(if $(prefix),-Dprefix=$(prefix))
	ninja -C $(BUILD)
	meson install -C $(BUILD) $(if $(DESTDIR),--destdir $(DESTDIR))

# Debian packages (ualg, libualg0, libualg-dev) from debian/ into
# $(DEB_OUT): dpkg-buildpackage -b on a copy of the tree, then the checks
# of tests/deploy/deb.sh (not part of make check: a whole second build).
DEB_OUT ?= $(BUILD)-deb
deb:
	tests/deploy/deb.sh $(DEB_OUT)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(NOLTO_BUILD)

# The plain build, without LTO, as a packager's own meson setup makes it:
# it must compile too (CI builds it; nothing runs from it).
NOLTO_BUILD ?= build-nolto
nolto: $(NOLTO_BUILD)/build.ninja
	ninja -C $(NOLTO_BUILD)

$(NOLTO_BUILD)/build.ninja:
	meson setup $(NOLTO_BUILD) $(MESON_OPTS)

# The Debian packages' suites build and test packages of their own, without
# sanitizers: make check runs them, the sanitizer passes skip them.
SANITIZED_SKIP = --skip deb --skip dpkg-root

# The whole suite with ASan+UBSan in its own build dir.  algd runs without
# its seccomp filter there (LeakSanitizer's exit-time scan uses ptrace),
# and the sanitized shim is preloaded into uninstrumented programs.
ASAN_BUILD ?= build-asan
check-asan: $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)
	BUILD=$(ASAN_BUILD) UALG_ALGD_OPTS=--no-seccomp \
	ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 tests/run-all.sh $(SUITES) $(SANITIZED_SKIP)

# The whole suite with the shared algd, the C test programs and the seed's
# samples under valgrind's memcheck: any error or definite leak fails
# (algd is checked when it exits at the end).  No seccomp filter there:
# valgrind makes its own system calls (PROT_EXEC mappings among them).
VALGRIND = valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite --vgdb=no
check-valgrind: all
	BUILD=$(BUILD) UALG_ALGD_OPTS=--no-seccomp UALG_ALGD_WRAP="$(VALGRIND)" \
	UALG_TEST_WRAP="$(VALGRIND)" tests/run-all.sh $(SUITES) $(SANITIZED_SKIP)

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) $(MESON_OPTS) -Db_sanitize=address,undefined -Db_lundef=false

# libFuzzer harnesses (tests/fuzz), FUZZ_TIME seconds each, from the seed
# corpus in tests/fuzz/corpus (new finds go to $(FUZZ_BUILD)/corpus).
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 60
fuzz: $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD)
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TIME)

$(FUZZ_BUILD)/build.ninja:
	CC=clang CXX=clang++ meson setup $(FUZZ_BUILD) $(MESON_OPTS) -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false
