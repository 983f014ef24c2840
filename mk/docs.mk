# docs.mk - the pictures of docs/postmortem.md, drawn by the tools from the
# samples and rendered by graphviz.
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

docs: $(BINS) docs-graphviz
	@mkdir -p $(DOCS_WORK) $(DOCS_IMG)
	PATH=$(CURDIR)/$(BUILD)/bin:$$PATH; set -e; \
	tr-ingest -q samples/jaeger/hotrod.json > $(DOCS_WORK)/hotrod.tr; \
	slow=$(DOCS_SLOWEST); \
	tr-infer --links -f dot $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/dependencies.dot; \
	tr-infer --dot --spans --name service $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/causal-model.dot; \
	tr-cp --dot --trace "$$slow" $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/slowest-cp.dot; \
	tr-temporal --dot -t "$$slow" $(DOCS_WORK)/hotrod.tr > $(DOCS_IMG)/provenance.dot
	for f in dependencies causal-model slowest-cp provenance; do \
		dot -Tsvg $(DOCS_IMG)/$$f.dot > $(DOCS_IMG)/$$f.svg.tmp && \
		mv $(DOCS_IMG)/$$f.svg.tmp $(DOCS_IMG)/$$f.svg || exit 1; \
	done

# graphviz, installed the way scripts/deps.sh installs the build dependencies:
# with apt-get as root (or sudo without a password), else say what to install.
docs-graphviz:
	@command -v dot >/dev/null 2>&1 && exit 0; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; \
	else echo "docs: graphviz's dot is missing; install it (apt-get install graphviz) as root, then run make docs again" >&2; exit 1; fi; \
	echo "docs: installing graphviz" >&2; \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq graphviz >/dev/null || { \
		echo "docs: apt-get install graphviz failed" >&2; exit 1; }

.PHONY: docs docs-graphviz
