# fuzz.mk - libFuzzer targets (fuzz/*.c) against the library built with
# AddressSanitizer and UndefinedBehaviorSanitizer, into build/fuzz/.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="reader expr"]
#       fuzz every target for FUZZ_SECONDS (make -j2 fuzz: two at a time);
#       the growing corpus is kept in
#       build/fuzz/corpus/T, crashes go to build/fuzz/crashes/T; group them with
#       fuzz/triage.sh, then copy one input per bug into fuzz/regress/T/.
#   make fuzz-regress
#       run every file of fuzz/seed/T and fuzz/regress/T through target T once,
#       no fuzzing: the regression test that 'make check' should run.
#   make fuzz-smoke [FUZZ_SMOKE_RUNS=20000]
#       a short, repeatable run for CI: a fixed number of mutations of the
#       corpora per target from a fixed seed (fuzz/smoke.sh).

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc/lib -g -O1 $(FUZZ_SAN)
# ingest_* are one source, fuzz_ingest.c, with the input format forced (or auto).
FUZZ_ALL     := ingest_auto ingest_jaeger ingest_zipkin ingest_otlp reader expr query pag pag_build hb
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_LIB_OBJ := $(LIB_SRC:src/lib/%.c=$(FUZZ_BUILD)/lib/%.o)

fuzz_ingest_FORMAT_auto   := INGEST_AUTO
fuzz_ingest_FORMAT_jaeger := INGEST_JAEGER
fuzz_ingest_FORMAT_zipkin := INGEST_ZIPKIN
fuzz_ingest_FORMAT_otlp   := INGEST_OTLP

$(FUZZ_BUILD)/lib/%.o: src/lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wall -Wextra -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/libtr.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	ar rcs $@ $(FUZZ_LIB_OBJ)

$(FUZZ_BUILD)/fuzz_ingest_%: fuzz/fuzz_ingest.c fuzz/fuzz.h $(FUZZ_BUILD)/libtr.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wall -Wextra -Werror -fsanitize=fuzzer \
		-DFUZZ_FORMAT=$(fuzz_ingest_FORMAT_$*) -o $@ $< $(FUZZ_BUILD)/libtr.a $(LIBS)

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(FUZZ_BUILD)/libtr.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wall -Wextra -Werror -fsanitize=fuzzer \
		-o $@ $< $(FUZZ_BUILD)/libtr.a $(LIBS)

fuzz-build: $(FUZZ_BINS)

# One target per make job: 'make -j2 fuzz' fuzzes two at a time.
# A target that crashes does not stop the others; 'fuzz' fails at the end.
fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)
	@failed=$$(cd $(FUZZ_BUILD) && ls *.failed 2>/dev/null | sed 's/\.failed$$//'); \
	if [ -n "$$failed" ]; then \
		echo "fuzz: new crashes in:" $$failed "(sh fuzz/triage.sh $(FUZZ_BUILD) TARGET FILE... groups them)"; \
		exit 1; \
	fi; echo "fuzz: no new crashes"

fuzz-run-%: $(FUZZ_BUILD)/fuzz_%
	-@sh fuzz/run.sh $(FUZZ_BUILD) $* $(FUZZ_SECONDS)

# Replay: every seed and every regression file through its target, once each.
fuzz-regress: $(FUZZ_ALL:%=$(FUZZ_BUILD)/fuzz_%)
	@sh fuzz/regress.sh $(FUZZ_BUILD) $(FUZZ_ALL)

FUZZ_SMOKE_RUNS ?= 20000
fuzz-smoke: $(FUZZ_ALL:%=$(FUZZ_BUILD)/fuzz_%)
	@sh fuzz/smoke.sh $(FUZZ_BUILD) $(FUZZ_SMOKE_RUNS) $(FUZZ_ALL)

.PHONY: fuzz fuzz-build fuzz-regress fuzz-smoke
