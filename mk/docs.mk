# docs.mk - the pictures of docs/postmortem.md and the README, drawn by the
# tools from the samples: DOT rendered by graphviz, and SVG the tools draw
# themselves (the slowest trace's timeline, the p99 critical-path flame graph,
# SnailTrail's summaries over time).
#
#   make docs
#       (re)write docs/img/NAME.dot with the same commands the walkthrough
#       shows, and docs/img/NAME.svg from them with dot(1). Commit both: the
#       walkthrough test (tests/docs.bats) checks the .dot files against the
#       tools, without graphviz.

DOCS_IMG  := docs/img
DOCS_WORK := $(BUILD)/docs
# The slowest sample trace; docs/postmortem.md finds it the same way.
DOCS_SLOWEST = $$(tr-aggregate 'From s In spans Where s.root Select s.trace, s.duration' \
	$(DOCS_WORK)/hotrod.tr | sort -k2nr | awk 'NR == 1 { print $$1 }')

# deps (scripts/deps.sh) installs graphviz with the other test tools.
docs: deps $(BINS)
	@mkdir -p $(DOCS_WORK) $(DOCS_IMG)
	PATH=$(CURDIR)/$(BUILD)/bin:$$PATH; set -e; \
	tr-ingest -q samples/jaeger/hotrod.json > $(DOCS_WORK)/hotrod.tr; \
	slow=$(DOCS_SLOWEST); \
	tr-infer --links -f dot $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/dependencies.dot; \
	tr-infer --dot --spans --name service $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/causal-model.dot; \
	tr-cp --dot --trace "$$slow" $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/slowest-cp.dot; \
	tr-temporal --dot -t "$$slow" $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/provenance.dot; \
	$(DOCS_SVG_CMDS)
	for f in dependencies causal-model slowest-cp provenance; do \
		dot -Tsvg $(DOCS_IMG)/$$f.dot > $(DOCS_IMG)/$$f.svg.tmp && \
		mv $(DOCS_IMG)/$$f.svg.tmp $(DOCS_IMG)/$$f.svg || exit 1; \
	done

# The pictures the tools draw themselves; tests/svg.bats runs the same
# commands and compares.
DOCS_SVG_CMDS = \
	tr-cp --svg --trace "$$slow" $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/slowest-timeline.svg; \
	tr-cp --flame --percentile 99 $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/flame-p99.svg; \
	tr-pag -q -f svg -w 250ms $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/snailtrail-summaries.svg

.PHONY: docs
