// SPDX-License-Identifier: GPL-2.0-or-later
// Errors of the routing core. Every failure is a qft::Error carrying a status
// (mirrored one to one by qft_status_t in the C API) and a message that names
// the input, the value and what was expected. The C API converts them in one
// place (lib/capi/qft_capi.cpp); nothing else catches them.
#ifndef QFT_COMMON_ERROR_HPP
#define QFT_COMMON_ERROR_HPP

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace qft {

enum class Status {
	ok = 0,
	invalid,     // a value out of range or of the wrong shape
	not_found,   // a name, GUID or LID that the fabric does not hold
	io,          // a file could not be read or written
	parse,       // malformed text (file, line/position in the message)
	unroutable,  // the routing has no path (missing cable, no table entry)
	unsupported, // valid input the core does not handle (yet)
	internal,    // a broken invariant: a bug
};

const char *status_name(Status s);

class Error : public std::runtime_error {
public:
	Error(Status status, const std::string &msg)
		: std::runtime_error(msg), status_(status) {}
	Status status() const { return status_; }

private:
	Status status_;
};

// Builds a message from its pieces: cat("port ", 3, " of ", name).
template <typename... Args> std::string cat(Args &&...args)
{
	std::ostringstream out;
	(out << ... << std::forward<Args>(args));
	return out.str();
}

template <typename... Args>
[[noreturn]] void fail(Status status, Args &&...args)
{
	throw Error(status, cat(std::forward<Args>(args)...));
}

// Runs body(); an Error it throws whose message does not name `origin`
// (a file) comes out with "origin: " in front, so that every load error
// names the file it is about.
template <typename F> void naming_origin(const std::string &origin, F &&body)
{
	try {
		body();
	} catch (const Error &e) {
		std::string msg = e.what();
		if (msg.find(origin) != std::string::npos)
			throw;
		throw Error(e.status(), origin + ": " + msg);
	}
}

} // namespace qft

#endif
