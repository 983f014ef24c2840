# eval.mk - the fault-injection suite of tr-cp --suspects.
#
#   make eval
#       simulate 240 cases (fault type x target service x instrumentation
#       variant x system, each its own seed) with trsim, rank the suspects
#       of each with tr-cp, and write eval/RESULTS.md. EVAL_JOBS=N runs N
#       cases at a time (default 2).

eval: $(BINS) $(BUILD)/bin/trsim
	@sh eval/run.sh $(BUILD)/bin eval/RESULTS.md

.PHONY: eval
