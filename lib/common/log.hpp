// SPDX-License-Identifier: GPL-2.0-or-later
// The library never prints: it hands each message to a sink the caller sets
// (slurmctld's info()/debug(), the qft tool's stderr). No sink, no output.
#ifndef QFT_COMMON_LOG_HPP
#define QFT_COMMON_LOG_HPP

#include <functional>
#include <string>

namespace qft {

enum class LogLevel { error = 0, warning = 1, info = 2, debug = 3 };

using LogSink = std::function<void(LogLevel, const std::string &)>;

// A sink passed down explicitly; a default-constructed Log drops everything.
class Log {
public:
	Log() = default;
	explicit Log(LogSink sink) : sink_(std::move(sink)) {}
	void operator()(LogLevel level, const std::string &msg) const
	{
		if (sink_)
			sink_(level, msg);
	}
	bool enabled() const { return static_cast<bool>(sink_); }

private:
	LogSink sink_;
};

} // namespace qft

#endif
