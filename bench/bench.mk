# bench/bench.mk: "make bench", included by the top Makefile.
#
# Builds and installs into build/inst like "make test", then runs
# bench/bench.sh on a throwaway cluster tuned for timing (see scripts/run.sh).
# Results: printed, and written to bench/results/latest.txt.
.PHONY: bench
bench:
	@$(ROOT)/scripts/run.sh bench
