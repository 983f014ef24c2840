# memcheck.mk - the bats suites with every tool run under valgrind memcheck.
#
#   make memcheck [MEMCHECK_TESTS="tests/cp.bats ..."]
#
# Wrapper scripts named like the tools (build/memcheck/bin) run the real
# binaries under valgrind; TR_BIN points the suites at them. A memory error
# or a definitely-lost block makes the tool exit 99 (so the test fails) and
# is kept in build/memcheck/log/TOOL.PID; the summary at the end counts them
# per tool. TR_MEMCHECK=1 tells the suites to skip their size tests (millions
# of spans, 100 MB values), which valgrind would take an hour over.

MEMCHECK_DIR   := build/memcheck
MEMCHECK_TESTS ?= tests
VALGRIND_FLAGS := -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \
	--errors-for-leak-kinds=definite --track-origins=yes

memcheck: all
	@rm -rf $(MEMCHECK_DIR) && mkdir -p $(MEMCHECK_DIR)/bin $(MEMCHECK_DIR)/log
	@# valgrind finds the tool in PATH, so that argv[0] (getopt's messages) is "tr-xxx"
	@for b in $(BINS); do \
		n=$${b##*/}; w=$(MEMCHECK_DIR)/bin/$$n; \
		echo '#!/bin/sh' > $$w; \
		echo "PATH=$(CURDIR)/$(BUILD)/bin:\$$PATH exec valgrind $(VALGRIND_FLAGS) --log-file=$(CURDIR)/$(MEMCHECK_DIR)/log/$$n.%p $$n \"\$$@\"" >> $$w; \
		chmod +x $$w; \
	done
	@ln -s $(CURDIR)/$(BUILD)/bin/trsim $(MEMCHECK_DIR)/bin/trsim
	@TR_BIN=$(CURDIR)/$(MEMCHECK_DIR)/bin TR_MEMCHECK=1 bats --tap $(MEMCHECK_TESTS) \
		> $(MEMCHECK_DIR)/bats.log 2>&1; echo $$? > $(MEMCHECK_DIR)/bats.status
	@grep '^not ok' $(MEMCHECK_DIR)/bats.log || true
	@echo "memcheck: $$(grep -c '^ok' $(MEMCHECK_DIR)/bats.log) tests ok, $$(grep -c '^not ok' $(MEMCHECK_DIR)/bats.log) failed (log: $(MEMCHECK_DIR)/bats.log)"
	@bad=0; for b in $(BINS); do \
		n=$${b##*/}; runs=$$(ls $(MEMCHECK_DIR)/log | grep -c "^$$n\.") ; \
		errs=$$(grep -l 'ERROR SUMMARY: [1-9]\|are definitely lost\|Invalid \|uninitialised\|Mismatched\|overlap' $(MEMCHECK_DIR)/log/$$n.* 2>/dev/null | wc -l); \
		lost=$$(grep -h 'are definitely lost' $(MEMCHECK_DIR)/log/$$n.* 2>/dev/null | awk '{ gsub(",", "", $$2); s += $$2 } END { print s + 0 }'); \
		echo "memcheck: $$n: $$runs runs, $$errs with errors or definite leaks ($$lost bytes definitely lost)"; \
		[ "$$errs" -eq 0 ] || bad=1; \
	done; \
	[ "$$bad" -eq 0 ] && [ "$$(cat $(MEMCHECK_DIR)/bats.status)" -eq 0 ]

.PHONY: memcheck
