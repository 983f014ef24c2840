# tr - offline trace analysis. See README.md.
.SUFFIXES:

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/tr
DESTDIR ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
STDFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Isrc/lib
LDLIBS  ?=
LIBS     = -lyajl -ljansson -lzstd -lz -lm -lpthread $(LDLIBS)

# Every build output goes under BUILD, so a sanitizer build can sit beside the normal one.
BUILD   ?= build

# The library; a subsystem of several files has a folder (src/lib/ingest/).
LIB_SRC  := $(sort $(wildcard src/lib/*.c src/lib/*/*.c))
LIB_OBJ  := $(LIB_SRC:src/lib/%.c=$(BUILD)/lib/%.o)
LIB_HDR  := $(wildcard src/lib/*.h src/lib/*/*.h)
TOOLS    := $(sort $(patsubst src/%.c,%,$(wildcard src/tr-*.c)))
BINS     := $(TOOLS:%=$(BUILD)/bin/%)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNITS    := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
MANS     := $(wildcard man/*.1 man/*.5 man/*.7)

all: deps $(BINS) $(BUILD)/bin/trsim

deps:
	@sh scripts/deps.sh

# Order-only on deps: with make -j, nothing compiles before the headers are installed.
$(BUILD)/lib/%.o: src/lib/%.c $(LIB_HDR) | deps
	@mkdir -p $(@D)
	$(CC) $(STDFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/libtr.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(BUILD)/bin/%: src/%.c $(BUILD)/libtr.a $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(STDFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libtr.a $(LIBS)

$(BUILD)/bin/trsim: $(wildcard sim/*.c sim/*.h)
	@mkdir -p $(@D)
	$(CC) $(STDFLAGS) $(CFLAGS) -o $@ $(wildcard sim/*.c) -lm

$(BUILD)/unit/%: tests/unit/%.c $(BUILD)/libtr.a $(LIB_HDR) tests/unit/check.h
	@mkdir -p $(@D)
	$(CC) $(STDFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libtr.a $(LIBS)

# The test suite: C unit tests, then the bats suites (tests/*.bats), then the
# fuzz corpus replay, whose sanitizer build runs silently, two jobs at a time
# when make was given no -j.
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j2)
check: all $(UNITS)
	@sh scripts/check.sh $(CURDIR)/$(BUILD)/bin $(UNITS)
	@if command -v clang >/dev/null 2>&1; then $(MAKE) -s --no-print-directory $(CHECK_J) fuzz-regress; \
	else echo "check: no clang, fuzz regression corpus not replayed"; fi

# The same suite under AddressSanitizer and UndefinedBehaviorSanitizer (leaks are
# left to valgrind: tools exit through err()-style calls that do not free).
check-asan:
	ASAN_OPTIONS=detect_leaks=0 $(MAKE) check BUILD=build/asan \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

# The main job on the samples: ingest, then every analysis that has landed.
demo: all
	@sh scripts/demo.sh $(BUILD)/bin

bench: all $(BUILD)/bench/parse-floor
	@sh bench/run.sh $(BUILD)/bin

# The parser-only floor of make bench: libyajl alone, next to tr-ingest.
$(BUILD)/bench/parse-floor: bench/parse_floor.c
	@mkdir -p $(@D)
	$(CC) $(STDFLAGS) $(CFLAGS) -o $@ bench/parse_floor.c -lyajl

# Shard the 5M-span input, run the mappers with GNU parallel, merge, compare.
scale-demo: all
	@sh scripts/scale-demo.sh $(BUILD)/bin

# The simulator goes too: the README and the walkthrough use it.
COMPDIR ?= $(PREFIX)/share/bash-completion/completions
install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	for b in $(BINS) $(BUILD)/bin/trsim; do cp $$b $(DESTDIR)$(BINDIR)/; done
	for m in $(MANS); do s=$${m##*.}; cp $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	mkdir -p $(DESTDIR)$(COMPDIR)
	for t in $(TOOLS); do cp completion/tr.bash $(DESTDIR)$(COMPDIR)/$$t; done
	mkdir -p $(DESTDIR)$(DOCDIR)
	cp LICENSE $(DESTDIR)$(DOCDIR)/

# Removes exactly what install puts there, nothing else.
uninstall:
	for t in $(TOOLS) trsim; do rm -f $(DESTDIR)$(BINDIR)/$$t; done
	for m in $(MANS); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; done
	for t in $(TOOLS); do rm -f $(DESTDIR)$(COMPDIR)/$$t; done
	rm -f $(DESTDIR)$(DOCDIR)/LICENSE
	rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true

clean:
	rm -rf build

.PHONY: all deps check check-asan demo bench scale-demo install uninstall clean

# Further targets (fuzzing, memcheck, docs) live in mk/*.mk.
-include $(wildcard mk/*.mk)
