/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The test programs' driver (harness.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/verbs/harness.h"

/* Where the build put them (local.mk); the environment may say
 * otherwise, to test an installed interposer. */
#ifndef QFT_LID_SO
#error "define QFT_LID_SO, the built libqft-lid.so"
#endif
#ifndef FAKE_VERBS_DIR
#error "define FAKE_VERBS_DIR, the directory of the test double's libibverbs.so.1"
#endif

static char table_dir[4096];
static char table_path[4200];
static FILE *heard;
static int stderr_fd = -1;
static char said[16384];

/* Appends the sanitizer runtimes this program was linked with to the
 * preload list: under --enable-sanitizers the interposer is built with
 * them too, and ASan refuses to start unless its runtime is the first
 * library loaded. */
static int add_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
	static const char *const runtimes[] = {"libasan.so", "libubsan.so", "liblsan.so",
					       "libtsan.so"};
	const char *base = strrchr(info->dlpi_name, '/');
	char *list = data;

	(void)size;
	for (size_t i = 0; base && i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (!strncmp(base + 1, runtimes[i], strlen(runtimes[i])) &&
		    strlen(list) + strlen(info->dlpi_name) + 2 < 4096) {
			strcat(list, info->dlpi_name);
			strcat(list, " ");
		}
	return 0;
}

static int spawn(const struct harness_case *c, char **argv, const char *preload)
{
	const char *old = getenv("LD_LIBRARY_PATH");
	char path[8192];
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("harness: fork");
		return 1;
	}
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s%s%s", FAKE_VERBS_DIR, old ? ":" : "", old ? old : "");
		unsetenv("QFT_LID_TABLE");
		unsetenv("QFT_LID_SELF");
		unsetenv("QFT_LID_DEBUG");
		unsetenv("SLURMD_NODENAME");
		setenv("QFT_TEST_CASE", c->name, 1);
		setenv("LD_PRELOAD", preload, 1);
		if (!c->system_verbs)
			setenv("LD_LIBRARY_PATH", path, 1);
		execv("/proc/self/exe", argv);
		perror("harness: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("harness: waitpid");
		return 1;
	}
	if (WIFSIGNALED(status))
		printf("# case %s: killed by signal %d\n", c->name, WTERMSIG(status));
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

static int parent(const struct harness_case *cases, size_t n, char **argv)
{
	const char *lib = getenv("QFT_LID_SO");
	char preload[4096] = "";
	int failed = 0;

	if (!lib || !*lib)
		lib = QFT_LID_SO;
	if (access(lib, R_OK)) {
		printf("# %s: %s (build contribs/verbs/libqft-lid.la first)\n", lib, strerror(errno));
		return 1;
	}
	dl_iterate_phdr(add_runtime, preload);
	strncat(preload, lib, sizeof(preload) - strlen(preload) - 1);
	printf("# LD_PRELOAD=%s\n", preload);
	for (size_t i = 0; i < n; i++) {
		const int bad = spawn(&cases[i], argv, preload);

		printf("%s %zu - %s\n", bad ? "not ok" : "ok", i + 1, cases[i].name);
		failed += bad;
	}
	printf("# %d of %zu cases failed\n", failed, n);
	return failed ? 1 : 0;
}

static void remove_table(void)
{
	if (table_path[0])
		unlink(table_path);
	if (table_dir[0])
		rmdir(table_dir);
}

/* The child: is ibv_modify_qp the interposer's? */
static int preloaded(void)
{
	void *f = dlsym(RTLD_DEFAULT, "ibv_modify_qp");
	Dl_info info;

	if (f && dladdr(f, &info) && info.dli_fname && strstr(info.dli_fname, "libqft-lid"))
		return 1;
	fprintf(stderr, "harness: ibv_modify_qp is %s's, not libqft-lid.so's: not preloaded\n",
		f && dladdr(f, &info) && info.dli_fname ? info.dli_fname : "nobody");
	return 0;
}

int harness_main(const struct harness_case *cases, size_t n, char **argv)
{
	const char *which = getenv("QFT_TEST_CASE");

	if (!which)
		return parent(cases, n, argv);
	if (!preloaded())
		return 1;
	atexit(remove_table);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(cases[i].name, which))
			return cases[i].run(cases[i].arg) ? 1 : 0;
	fprintf(stderr, "harness: no case %s\n", which);
	return 1;
}

const char *harness_table(const char *text)
{
	const char *tmp = getenv("TMPDIR");
	FILE *f;

	if (!table_dir[0]) {
		snprintf(table_dir, sizeof(table_dir), "%s/qft-lid.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(table_dir)) {
			perror("harness: mkdtemp");
			exit(1);
		}
	}
	snprintf(table_path, sizeof(table_path), "%s/lid.table", table_dir);
	if (!(f = fopen(table_path, "w")) || fputs(text, f) < 0 || fclose(f)) {
		perror(table_path);
		exit(1);
	}
	setenv("QFT_LID_TABLE", table_path, 1);
	return table_path;
}

void harness_listen(void)
{
	fflush(stderr);
	if (!(heard = tmpfile()) || (stderr_fd = dup(2)) < 0 || dup2(fileno(heard), 2) < 0) {
		perror("harness: listening to stderr");
		exit(1);
	}
}

const char *harness_said(void)
{
	size_t len;

	fflush(stderr);
	dup2(stderr_fd, 2);
	close(stderr_fd);
	rewind(heard);
	len = fread(said, 1, sizeof(said) - 1, heard);
	said[len] = '\0';
	fclose(heard);
	return said;
}

unsigned harness_count(const char *text, const char *needle)
{
	unsigned n = 0;

	for (const char *s = text; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}
