/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lines qft.conf's errors name (src/plugins/common/qft_conf_lines.c):
 * Slurm's parser refuses an unknown key or a bad number or yes/no without
 * saying where, and our own range checks know the key only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "src/plugins/common/qft_conf_lines.h"

static const qft_conf_key_t keys[] = {
	{ "FabricFile", QFT_CONF_WORD },
	{ "ShapeWait", QFT_CONF_NUMBER },
	{ "ShapeWaitEnds", QFT_CONF_NUMBER },
	{ "PathPressure", QFT_CONF_BOOLEAN },
	{ "Pattern", QFT_CONF_WORD },
	{ NULL, QFT_CONF_WORD },
};

static char path[64];

static const char *conf_of(const char *text)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/qft-conf-lines.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int) strlen(text));
	close(fd);
	return path;
}

static void the_last_line_that_sets_a_key(void **state)
{
	const char *p = conf_of("# ShapeWait=1 in a comment\n"
				"FabricFile=fabric.json\n"
				"\n"
				"shapewait=10 Pattern=shift\n"
				"ShapeWaitEnds=40\n"
				"ShapeWait = 5\n" /* blanks around '=': the parser takes it */
				"ShapeWait+=20 # the one kept\n"
				"Include ShapeWait.conf\n");

	(void) state;
	assert_int_equal(qft_conf_line_of(p, "ShapeWait"), 7);
	assert_int_equal(qft_conf_line_of(p, "Pattern"), 4);  /* second on its line */
	assert_int_equal(qft_conf_line_of(p, "ShapeWaitEnds"), 5); /* not ShapeWait's */
	assert_int_equal(qft_conf_line_of(p, "FabricFile"), 2);
	assert_int_equal(qft_conf_line_of(p, "LidThreads"), 0);
	assert_int_equal(qft_conf_line_of("/nonexistent/qft.conf", "ShapeWait"), 0);
	unlink(p);
}

static void a_long_line_counts_once(void **state)
{
	char text[10000];
	const char *p;

	(void) state;
	memset(text, 'x', sizeof(text));
	memcpy(text, "Pattern=", 8);
	strcpy(text + 9000, "\nShapeWait=3\n");
	p = conf_of(text);
	assert_int_equal(qft_conf_line_of(p, "ShapeWait"), 2);
	unlink(p);
}

static void the_first_bad_line_and_what_it_expected(void **state)
{
	static const struct {
		const char *text, *what;
		int line;
	} cases[] = {
		{ "FabricFile=f.json\nFabric=x\n",
		  "unknown key Fabric=x, expected one of the keys of qft.conf(5)", 2 },
		{ "FabricFile=f.json\nShapeWait=ten\nFabric=x\n",
		  "ShapeWait=ten, expected a whole number", 2 },
		{ "FabricFile=f.json\n# PathPressure=maybe\nPathPressure=maybe\n",
		  "PathPressure=maybe, expected yes or no", 3 },
		{ "FabricFile=f.json\nPathPressure = maybe\n", "PathPressure=maybe, expected yes or no",
		  2 },
		{ "ShapeWaitEnds=-1\n", "ShapeWaitEnds=-1, expected a whole number", 1 },
		{ "ShapeWait=4294967296\n", "ShapeWait=4294967296, expected a whole number", 1 },
		{ "FabricFile=\"my fabric.json\" ShapeWait=x1\n",
		  "ShapeWait=x1, expected a whole number", 1 },
	};
	char *what;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = conf_of(cases[i].text);

		assert_int_equal(qft_conf_first_bad(p, keys, &what), cases[i].line);
		assert_non_null(what);
		assert_string_equal(what, cases[i].what);
		free(what);
		unlink(p);
	}
}

static void what_the_parser_takes_is_not_bad(void **state)
{
	const char *p = conf_of("Include /etc/slurm/other.conf\n"
				"FabricFile=\"a b.json\"\n"
				"SHAPEWAIT=0x10 ShapeWaitEnds=1k\n"
				"ShapeWait = 7\n"
				"ShapeWait=UNLIMITED\n"
				"PathPressure=Yes\n"
				"PathPressure=0 # no\n");
	char *what = (char *) 1;

	(void) state;
	assert_int_equal(qft_conf_first_bad(p, keys, &what), 0);
	assert_null(what);
	unlink(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_last_line_that_sets_a_key),
		cmocka_unit_test(a_long_line_counts_once),
		cmocka_unit_test(the_first_bad_line_and_what_it_expected),
		cmocka_unit_test(what_the_parser_takes_is_not_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
