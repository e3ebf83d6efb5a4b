# SPDX-License-Identifier: GPL-2.0-or-later
# libqft-lid.so, the LID interposer (docs/lid-table.md, contribs/verbs/README.md).
# Included by Makefile.am after its own variables: `=` here defines what
# Makefile.am does not (lib_LTLIBRARIES, check_LTLIBRARIES); a fragment
# included later must append with `+=`.

# A libtool module: libqft-lid.so, no version suffix, for LD_PRELOAD.
# Only the two functions are exported, at libibverbs' version
# (libqft-lid.map); no libibverbs: the real functions are found at run time.
lib_LTLIBRARIES = contribs/verbs/libqft-lid.la
contribs_verbs_libqft_lid_la_SOURCES = contribs/verbs/qft_lid.c contribs/verbs/lid_table.c contribs/verbs/lid_table.h
contribs_verbs_libqft_lid_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
contribs_verbs_libqft_lid_la_LDFLAGS = -module -avoid-version -shared -no-undefined \
	-Wl,--version-script=$(srcdir)/contribs/verbs/libqft-lid.map
contribs_verbs_libqft_lid_la_LIBADD = -ldl -lpthread
EXTRA_contribs_verbs_libqft_lid_la_DEPENDENCIES = $(srcdir)/contribs/verbs/libqft-lid.map

# The test double of libibverbs (libibverbs.so.1 with rdma-core's version
# nodes) and a module linked against it; built for `make check` only,
# shared (-rpath), never installed.
check_LTLIBRARIES = tests/verbs/libibverbs.la tests/verbs/verbs_user.la
tests_verbs_libibverbs_la_SOURCES = tests/verbs/fake_ibverbs.c tests/verbs/fake_ibverbs.h
tests_verbs_libibverbs_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
tests_verbs_libibverbs_la_LDFLAGS = -rpath /nowhere -version-info 1:0:0 -no-undefined \
	-Wl,--version-script=$(srcdir)/tests/verbs/fake_ibverbs.map
EXTRA_tests_verbs_libibverbs_la_DEPENDENCIES = $(srcdir)/tests/verbs/fake_ibverbs.map
tests_verbs_verbs_user_la_SOURCES = tests/verbs/verbs_user.c
tests_verbs_verbs_user_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
tests_verbs_verbs_user_la_LDFLAGS = -module -avoid-version -rpath /nowhere -no-undefined
tests_verbs_verbs_user_la_LIBADD = tests/verbs/libibverbs.la

# The tests re-run themselves, one process per case, with the interposer
# preloaded (tests/verbs/harness.h); they find it and the test double
# where libtool puts them. -no-install: no libtool wrapper script between
# the preload and the program.
VERBS_TEST_CPPFLAGS = $(AM_CPPFLAGS) \
	-DQFT_LID_SO='"$(abs_top_builddir)/contribs/verbs/.libs/libqft-lid.so"' \
	-DFAKE_VERBS_DIR='"$(abs_top_builddir)/tests/verbs/.libs"' \
	-DVERBS_USER_SO='"$(abs_top_builddir)/tests/verbs/.libs/verbs_user.so"'
check_PROGRAMS += tests/verbs/test_lid_interposer tests/verbs/test_lid_dlopen
tests_verbs_test_lid_interposer_SOURCES = tests/verbs/test_lid_interposer.c \
	tests/verbs/harness.c tests/verbs/harness.h tests/verbs/fake_ibverbs.h
tests_verbs_test_lid_interposer_CPPFLAGS = $(VERBS_TEST_CPPFLAGS)
tests_verbs_test_lid_interposer_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_verbs_test_lid_interposer_LDFLAGS = -no-install
tests_verbs_test_lid_interposer_LDADD = tests/verbs/libibverbs.la $(CMOCKA_LIBS) -ldl
EXTRA_tests_verbs_test_lid_interposer_DEPENDENCIES = contribs/verbs/libqft-lid.la
# Not linked against libibverbs: it dlopen()s the test double.
tests_verbs_test_lid_dlopen_SOURCES = tests/verbs/test_lid_dlopen.c \
	tests/verbs/harness.c tests/verbs/harness.h tests/verbs/fake_ibverbs.h
tests_verbs_test_lid_dlopen_CPPFLAGS = $(VERBS_TEST_CPPFLAGS)
tests_verbs_test_lid_dlopen_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_verbs_test_lid_dlopen_LDFLAGS = -no-install
tests_verbs_test_lid_dlopen_LDADD = $(CMOCKA_LIBS) -ldl
EXTRA_tests_verbs_test_lid_dlopen_DEPENDENCIES = contribs/verbs/libqft-lid.la \
	tests/verbs/libibverbs.la tests/verbs/verbs_user.la

EXTRA_DIST += contribs/verbs/README.md contribs/verbs/libqft-lid.map tests/fuzz/fuzz_lid_table.c \
	tests/verbs/fake_ibverbs.map
