# ovni-auto build.  `make` builds build/lib/libovni-auto.so, build/bin/ovnirun and
# build/bin/ovni-auto; `make test` builds and runs every test; `make install PREFIX=DIR`.
# Sources are found by directory, so adding a file needs no change here.

CC ?= cc
PREFIX ?= /usr/local
B := build
VERSION := 0.1.0
COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

WARN := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-format-truncation
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -fPIC -fvisibility=hidden -I$(B)/gen
OMPT_INC := $(firstword $(wildcard /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h))
ifneq ($(OMPT_INC),)
BASE_CFLAGS += -idirafter $(dir $(OMPT_INC))
endif
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS)

COMMON_SRC := $(wildcard common/*.c)
WRITER_SRC := $(COMMON_SRC) $(wildcard writer/*.c)
AGENT_SRC := $(wildcard preload/*.c) $(wildcard hooks/*.c) $(wildcard hooks/*/*.c)
# tools/: main.c and one cmd_*.c per subcommand at the top; trace/ (reader
# and checker), export/, linktest/ (SIONlib, LinkTest, heat map), collect/
# (the TCP collector's parts) below;
# ovnirun/ is the launcher, a program of its own.
TOOLS_SRC := $(filter-out tools/main.c,$(wildcard tools/*.c) $(wildcard tools/trace/*.c tools/check/*.c tools/export/*.c tools/linktest/*.c tools/collect/*.c tools/view/*.c))
RUN_SRC := $(wildcard tools/ovnirun/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
PROG_SRC := $(filter-out tests/prog/so_%.c,$(wildcard tests/prog/*.c))

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
WRITER_OBJ := $(call obj,$(WRITER_SRC))
AGENT_OBJ := $(call obj,$(AGENT_SRC))
TOOLS_OBJ := $(call obj,$(TOOLS_SRC))

LIB := $(B)/lib/libovni-auto.so
CLI := $(B)/bin/ovni-auto
RUN := $(B)/bin/ovnirun
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
PROG_BIN := $(patsubst tests/prog/%.c,$(B)/prog/%,$(PROG_SRC))
# Preloads for tests (so_*.c): shared objects, loaded after the agent.
PROG_BIN += $(patsubst tests/prog/%.c,$(B)/prog/%.so,$(wildcard tests/prog/so_*.c))

AGENT_LIBS := -ldl -lpthread -lrt
TOOLS_LIBS := -ljansson -lm

.PHONY: all test test-unit test-run test-san test-real test-truth test-stress test-omp-stress install man clean deps bench example format-check format fuzz
SUPP := $(B)/share/ovni-auto/valgrind.supp
all: $(LIB) $(CLI) $(RUN) $(SUPP)

# Valgrind's race checkers and the agent (ovnirun passes it on: ovnirun(1)).
$(SUPP): tools/ovnirun/valgrind.supp
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@printf '#define OA_VERSION "%s"\n#define OA_COMMIT "%s"\n' '$(VERSION)' '$(COMMIT)' > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp
FORCE:

$(B)/obj/%.o: %.c $(B)/gen/version.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The formatter runs in a shell's fork child before its exec: no jump table
# (in .rodata, a page of ours that child would fault in; GCC makes one of
# its tests of the conversion character otherwise).
$(B)/obj/common/log.o: BASE_CFLAGS += -fno-jump-tables
# What a fork child runs before its exec calls no libc string function
# (common/str.h): GCC would make libc calls of its loops again.
$(B)/obj/preload/childenv.o $(B)/obj/preload/handover.o $(B)/obj/preload/agent.o $(B)/obj/common/env.o $(B)/obj/hooks/exec.o: BASE_CFLAGS += -fno-tree-loop-distribute-patterns

# The export map lists exactly the interposed symbols: each hooks/NAME.c (and
# hooks/KIND/NAME.c) has a NAME.exports beside it, one symbol per line;
# everything else is hidden.
EXPORT_LISTS := $(wildcard hooks/*.exports hooks/*/*.exports)
$(B)/gen/exports.map: $(EXPORT_LISTS)
	@mkdir -p $(dir $@)
	@{ echo '{ global:'; cat $(EXPORT_LISTS) | sed '/^$$/d; s/.*/\t&;/'; echo 'local: *; };'; } > $@

# preload/layout.ld: the read-only data on a 64 KiB boundary (a page fault
# less per traced process).  -z noseparate-code: the headers, symbol
# tables, text and read-only data are one mapping, not three (two mmap
# calls and a page fault less in every process that loads the agent,
# disabled or not; docs/internals.md).
# The tools' die()/err() (common/die.c) stay out of the agent.
AGENT_WRITER_OBJ := $(filter-out $(B)/obj/common/die.o $(B)/obj/writer/runspool.o,$(WRITER_OBJ))
$(LIB): $(AGENT_WRITER_OBJ) $(AGENT_OBJ) $(B)/gen/exports.map preload/layout.ld
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(AGENT_WRITER_OBJ) $(AGENT_OBJ) -Wl,--version-script=$(B)/gen/exports.map \
		-Wl,-z,nodelete -Wl,-z,lazy -Wl,-z,noseparate-code -Wl,-fini=oa_fini -Wl,-T,preload/layout.ld \
		$(AGENT_LIBS)

# The viewer's page parts, built into ovni-auto as C strings.
VIEW_ASSETS := tools/view/viewer.html tools/view/viewer.css tools/view/viewer.js
$(B)/gen/view_assets.h: $(VIEW_ASSETS) scripts/text2c.awk
	@mkdir -p $(dir $@)
	@{ awk -v name=oa_view_body -f scripts/text2c.awk tools/view/viewer.html; \
	   awk -v name=oa_view_css -f scripts/text2c.awk tools/view/viewer.css; \
	   awk -v name=oa_view_js -f scripts/text2c.awk tools/view/viewer.js; } > $@
$(B)/obj/tools/view/html.o: $(B)/gen/view_assets.h

$(CLI): $(B)/obj/tools/main.o $(TOOLS_OBJ) $(WRITER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(TOOLS_LIBS)

# ovnirun writes the threads' spools out while the run goes on (ovnirun_watch.c).
RUN_WRITER := $(addprefix $(B)/obj/writer/,spool.o runspool.o files.o stream.o clock.o meta.o finish.o) $(addprefix $(B)/obj/common/,env.o arena.o slab.o)
$(RUN): $(call obj,$(RUN_SRC)) $(B)/obj/common/log.o $(B)/obj/common/die.o $(B)/obj/common/fdroom.o $(RUN_WRITER)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^

# Unit tests never link the hooks. The writer's tests link only writer/ (and
# run again under the sanitizers); the others link the tools' modules too.
WRITER_TESTS := test_arena test_encode test_stream test_spool test_registry test_meta test_clock test_collect_auth test_finish test_offsets test_num test_env
$(addprefix $(B)/tests/,$(WRITER_TESTS)): $(B)/tests/%: tests/unit/%.c $(WRITER_OBJ) tests/unit/test.h $(wildcard writer/*.h common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(WRITER_OBJ) $(TOOLS_LIBS) -lpthread

# Tests of single agent modules link just that module.
$(B)/tests/test_real: tests/unit/test_real.c $(B)/obj/preload/real.o $(B)/obj/common/log.o $(B)/obj/common/fdroom.o $(B)/obj/common/env.o $(B)/gen/exports.map tests/unit/test.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DEXPORTS_MAP='"$(B)/gen/exports.map"' -o $@ $< $(B)/obj/preload/real.o $(B)/obj/common/log.o $(B)/obj/common/fdroom.o $(B)/obj/common/env.o -ldl -Wl,-z,lazy
$(B)/tests/test_symbols: tests/unit/test_symbols.c $(B)/obj/preload/symbols.o $(B)/obj/common/fdroom.o tests/unit/test.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fvisibility=default -o $@ $< $(B)/obj/preload/symbols.o $(B)/obj/common/fdroom.o -ldl

$(B)/tests/%: tests/unit/%.c $(WRITER_OBJ) $(TOOLS_OBJ) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(WRITER_OBJ) $(TOOLS_OBJ) $(TOOLS_LIBS) -lpthread

# Test programs are ordinary programs: no agent code is linked into them.
$(B)/prog/%: tests/prog/%.c $(wildcard tests/prog/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -o $@ $< -lpthread $(PROG_LIBS_$*)

PROG_LIBS_omp_% := -fopenmp
PROG_LIBS_static_exit := -static
# The same program, dynamic (the agent loads into it).
PROG_BIN += $(B)/prog/exit_with
$(B)/prog/exit_with: tests/prog/static_exit.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -o $@ $<
# A program instrumented with libovni, linked to a stand-in libovni.so.1
# (tests/prog/libovni/: the API's header as documented, the stub).
PROG_BIN += $(B)/prog/libovni/lo_api
$(B)/prog/libovni/libovni.so.1: tests/prog/libovni/stub.c tests/prog/libovni/ovni_api.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -shared -fPIC -Wl,-soname,libovni.so.1 -o $@ $<
$(B)/prog/libovni/lo_api: tests/prog/libovni/lo_api.c tests/prog/libovni/ovni_api.h $(B)/prog/libovni/libovni.so.1
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -o $@ $< -L$(B)/prog/libovni -l:libovni.so.1 \
		-Wl,-rpath,'$$ORIGIN' -lpthread
$(B)/prog/so_%.so: tests/prog/so_%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -shared -fPIC -o $@ $< -ldl

# signal() of a strict C11 program is glibc's __sysv_signal.
PROG_BIN += $(B)/prog/adv03_signal_chain_c11
$(B)/prog/adv03_signal_chain_c11: tests/prog/adv03_signal_chain.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Wall -Wextra -Werror -o $@ $< -lpthread
PROG_LIBS_bindpeek := -rdynamic
PROG_LIBS_jsoncheck := -ljansson
PROG_LIBS_truthcheck := -ljansson

# OpenMP test programs: omp_* with $(CC) -fopenmp (a variable name cannot
# hold a pattern, so PROG_LIBS_omp_% above never applies), clang_omp_* with
# clang -fopenmp (LLVM libomp; untied tasks are split and can migrate).
$(B)/prog/omp_%: tests/prog/omp_%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fopenmp -o $@ $< -lpthread
$(B)/prog/clang_omp_%: tests/prog/clang_omp_%.c $(wildcard tests/prog/*.h)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fopenmp -o $@ $< -lpthread

# Writer tests again under the sanitizers, in their own build trees.
SAN_TESTS := $(WRITER_TESTS)
test-san:
	$(MAKE) --no-print-directory B=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -Wno-format-overflow" \
		TOOLS_LIBS="-ljansson -lm -fsanitize=address,undefined" $(addprefix build-asan/tests/,$(SAN_TESTS))
	$(MAKE) --no-print-directory B=build-tsan CFLAGS="-O1 -g -fsanitize=thread -Wno-format-overflow" \
		TOOLS_LIBS="-ljansson -lm -fsanitize=thread" $(addprefix build-tsan/tests/,$(SAN_TESTS))

test: deps
	@$(MAKE) --no-print-directory all man $(UNIT_BIN) $(PROG_BIN)
	@$(MAKE) --no-print-directory -s test-san
	@tests/run.sh

# Only the real-software tier (also part of `make test`).
test-real: deps
	@$(MAKE) --no-print-directory all $(PROG_BIN)
	@T=real/ tests/run.sh

# Only the ground-truth tier (also part of `make test`): OA_TRUTH_RUNS runs
# (default 10) of each program must agree with their traces.
test-truth: deps
	@$(MAKE) --no-print-directory all $(PROG_BIN)
	@T=truth/ tests/run.sh

# The racy discipline cases and every OpenMP case 50 times each, two at a time.
test-stress: deps
	@$(MAKE) --no-print-directory all $(PROG_BIN)
	@OA_REPEAT=50 OA_OMP_REPEAT=50 T="t700 t390" tests/run.sh

# Every OpenMP case 20 times with 2 and with 4 threads, two at a time.
test-omp-stress: deps
	@$(MAKE) --no-print-directory all $(PROG_BIN)
	@OA_OMP_REPEAT=20 T=t390 tests/run.sh

# The readers under libFuzzer for FUZZ_SECONDS (not part of `make test`).
fuzz: all
	$(MAKE) -C fuzz regress run

bench: all
	$(MAKE) -C bench

example: all
	@sh run-example.sh

deps:
	@sh scripts/deps.sh

# Man pages from docs/NAME.S.md (scripts/md2man.awk): `man ovnirun` after
# `make install`; `man -l build/man/man1/ovnirun.1` before.
MAN_SRC := $(wildcard docs/*.1.md docs/*.7.md)
MAN_PAGES := $(foreach f,$(MAN_SRC),$(B)/man/man$(subst .,,$(suffix $(basename $(f))))/$(notdir $(basename $(f))))
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
man: $(MAN_PAGES)
$(B)/man/man1/%.1: docs/%.1.md scripts/md2man.awk
	@mkdir -p $(dir $@)
	awk -v date=$(MAN_DATE) -v version=$(VERSION) -f scripts/md2man.awk $< > $@
$(B)/man/man7/%.7: docs/%.7.md scripts/md2man.awk
	@mkdir -p $(dir $@)
	awk -v date=$(MAN_DATE) -v version=$(VERSION) -f scripts/md2man.awk $< > $@

install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(CLI) $(RUN) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(filter %.7,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man7/
	install -d $(DESTDIR)$(PREFIX)/share/ovni-auto
	install -m 644 $(SUPP) $(DESTDIR)$(PREFIX)/share/ovni-auto/

# The C files of the product and their headers against .clang-format.
FORMAT_FILES = $(WRITER_SRC) $(AGENT_SRC) $(wildcard common/*.h writer/*.h preload/*.h hooks/*.h hooks/*/*.h tools/*.c tools/*.h tools/*/*.c tools/*/*.h)
format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)
format:
	clang-format -i $(FORMAT_FILES)

clean:
	rm -rf build build-asan build-tsan

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
