# bloomfilter: PGXS build.
#
#   make && make install          build and install into the server pg_config names
#   make installcheck             run the SQL tests against your own running server
#   make prove_installcheck       run the TAP tests (t/*.pl), which start their own
#                                 servers of the installation PG_CONFIG names
#   make test                     fresh-machine path: install what is missing (apt),
#                                 build, run the C unit tests and the SQL tests on a
#                                 throwaway cluster
#   make test-all                 make test, then the SQL and cluster tests on
#                                 PostgreSQL 17, 18 and 19 in Debian chroots
#                                 (PG_MAJORS="17 18 19"), then across majors
#   make demo                     the same set-up, then a semi-join prefilter demo
#   make plots                    the same set-up (and gnuplot), then regenerate
#                                 the README's plots in doc/plots/ from real runs
#   make dist                     the PGXN release: bloomfilter-VERSION.zip (META.json's
#                                 version) of the committed tree, in the current
#                                 directory; needs git, not a build
#
# Out-of-tree builds work: mkdir b && cd b && make -f ../Makefile VPATH=..

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

EXTENSION  = bloomfilter
MODULE_big = bloomfilter
# Every .c under src/ (the folder tree is the inventory: doc/development.md
# has the layout).
SRC_FILES = $(sort $(wildcard $(ROOT)/src/*.c $(ROOT)/src/*/*.c $(ROOT)/src/*/*/*.c))
OBJS = $(patsubst $(ROOT)/%.c,%.o,$(SRC_FILES))
DATA = sql/bloomfilter--1.4.sql sql/bloomfilter--1.3.sql sql/bloomfilter--1.0.sql sql/bloomfilter--1.0--1.1.sql \
	sql/bloomfilter--1.1--1.2.sql sql/bloomfilter--1.2--1.3.sql sql/bloomfilter--1.3--1.4.sql

# pg_regress: every sql/*.sql but the install and upgrade scripts
# (bloomfilter--*.sql) against expected/, setup first (it defines the helpers
# the others share); the results go to the build directory.
REGRESS = setup $(sort $(filter-out setup bloomfilter--%,$(notdir $(basename $(wildcard $(ROOT)/sql/*.sql)))))
REGRESS_OPTS = --inputdir=$(ROOT) --load-extension=bloomfilter

PG_CPPFLAGS = -I$(ROOT)/src
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)

# The fresh-machine entry points work before PostgreSQL is installed: the
# script installs what is missing, then comes back here.
.PHONY: test test-all demo plots
test test-all demo plots:
	@$(ROOT)/scripts/run.sh $@

# The PGXN zip, from "git archive" of HEAD (.gitattributes says what stays
# out), once scripts/pgxn_meta.pl finds its META.json valid and agreeing with
# bloomfilter.control: scripts/dist.sh.
.PHONY: dist
dist:
	@$(ROOT)/scripts/dist.sh

ifneq ($(PGXS),)
include $(PGXS)
# An out-of-tree build needs the object directories.
ifdef VPATH
$(shell mkdir -p $(sort $(dir $(OBJS))))
endif
-include $(ROOT)/test/unit.mk
-include $(ROOT)/bench/bench.mk

# The TAP tests (t/*.pl, PostgreSQL::Test::Cluster): each starts the servers
# it needs from the installation PG_CONFIG names, as contrib's do.  Not part
# of installcheck, which runs pg_regress against your own server; t/ holds
# BloomTest.pm, the helpers the tests share.  PROVE_TESTS=t/NAME.pl runs one;
# BLOOM_INST=DESTDIR loads the extension from a "make install DESTDIR=" tree.
PG_PROVE_FLAGS += -I $(ROOT)/t
.PHONY: prove_installcheck
prove_installcheck:
	@$(prove_installcheck)
# Every object depends on every header (PGXS tracks none without
# --enable-depend): a stale object after a header change is a wrong build.
$(OBJS): $(wildcard $(ROOT)/src/*.h $(ROOT)/src/*/*.h $(ROOT)/src/*/*/*.h)
endif

.DEFAULT_GOAL := all
