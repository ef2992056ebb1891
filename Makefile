# Thin wrapper over meson + ninja.  `make demo` and `make check` are the two
# commands in the README; both build first.
BUILD ?= build
MESON_OPTS ?= --buildtype=debugoptimized -Dwerror=true

.PHONY: all demo check bench oracle clean install

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

# The seed's two sample programs, unchanged, under ualg-run.
demo: all
	@echo "== hash sample (sha1 of \"abc\")"
	@$(BUILD)/src/tools/ualg-run $(BUILD)/examples/hash-sample
	@echo "== cipher sample (cbc(aes), RFC 3602 case 1)"
	@$(BUILD)/src/tools/ualg-run $(BUILD)/examples/cipher-sample

check: all
	BUILD=$(BUILD) tests/run-all.sh

# Throughput and latency of the native API and the shim against in-process
# OpenSSL (a benchmark, not a test).  BENCH_ARGS="--json" for JSON.
bench: all
	$(BUILD)/src/tools/ualg-bench $(BENCH_ARGS)

# Re-records the golden files on a real Linux 6.1 (needs ../shared/kernel-oracle.sh).
oracle: all
	tests/oracle/record.sh

install: all
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD)
