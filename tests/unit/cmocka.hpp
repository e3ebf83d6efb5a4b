// SPDX-License-Identifier: GPL-2.0-or-later
// cmocka from C++: the headers it needs first, and helpers for qft::Error.
// Include it after the library's headers: cmocka defines a fail() macro
// that would otherwise rewrite qft::fail.
#ifndef QFT_TESTS_CMOCKA_HPP
#define QFT_TESTS_CMOCKA_HPP

#include "lib/common/error.hpp"

#include <algorithm>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

extern "C" {
#include <cmocka.h>
}

// Runs `body`, which must throw qft::Error with `status` and a message
// containing `needle`.
template <typename F>
void expect_error(F &&body, qft::Status status, const char *needle)
{
	try {
		body();
	} catch (const qft::Error &e) {
		if (e.status() != status || std::string(e.what()).find(needle) == std::string::npos) {
			std::fprintf(stderr, "got status \"%s\", message: %s\nwanted \"%s\" containing \"%s\"\n",
				     qft::status_name(e.status()), e.what(),
				     qft::status_name(status), needle);
			fail();
		}
		return;
	}
	std::fprintf(stderr, "no error; wanted one containing \"%s\"\n", needle);
	fail();
}

#endif
