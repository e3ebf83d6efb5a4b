// SPDX-License-Identifier: GPL-2.0-or-later
// The C boundary: slurmctld is C, and an exception that reaches it aborts
// the daemon. So every extern "C" function runs its body through guard()
// (a status and *err), guard_or() or guard_void() (no status: the error
// goes to the error handler and the caller gets a fallback value), which
// catch every exception. tests/unit/check_capi_guard.sh fails the build's
// tests when a function here does not start with one of them.
#include "qft/qft.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <new>
#include <optional>
#include <unordered_map>
#if defined(__GLIBCXX__)
#include <cxxabi.h>
#endif

#include "qft_config.h"
#include "lib/common/error.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/fabric/ibnetdiscover.hpp"
#include "lib/tree/recognise.hpp"
#include "lib/place/explain.hpp"
#include "lib/place/order.hpp"
#include "lib/lid/lid.hpp"
#include "lib/place/placement.hpp"
#include "lib/place/wait.hpp"
#include "lib/model/model.hpp"
#include "lib/score/score.hpp"
#include "lib/common/file.hpp"
#include "lib/slurm/groups.hpp"
#include "lib/slurm/status.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/tree.hpp"

struct qft_fabric {
	// The fabric, its tree, its routing; shared with the LID requests
	// (qft_placer_lid_request()), which may outlive this handle.
	std::shared_ptr<qft::Model> model;
	const qft::Fabric &fabric;         // model's
	// The groups and the C views of them (qft_group_t points into these).
	std::vector<qft::SwitchGroup> groups;
	std::vector<std::vector<size_t>> group_hosts, group_children;
	std::vector<std::string> group_switches;
	std::vector<qft_group_t> c_groups;
	std::vector<size_t> host_group; // host ordinal -> leaf group
	std::string report;             // findings of the import, a line each
	mutable std::string tree_name;  // qft_fabric_tree_name()'s text

	explicit qft_fabric(qft::Fabric f)
		: model(std::make_shared<qft::Model>(std::move(f))), fabric(model->fabric())
	{
		host_group.assign(fabric.hosts().size(), QFT_NONE);
		if (!model->tree())
			return;
		groups = qft::switch_groups(fabric, *model->tree());
		for (size_t i = 0; i < groups.size(); i++) {
			const qft::SwitchGroup &g = groups[i];
			group_hosts.emplace_back(g.hosts.begin(), g.hosts.end());
			group_children.push_back(g.children);
			std::string sw;
			for (qft::NodeId id : g.switches)
				sw += qft::cat(sw.empty() ? "" : ", ", fabric.node_label(id), " ",
					       qft::guid_text(fabric.node(id).guid));
			group_switches.push_back(sw);
			if (g.level == 1)
				for (qft::HostOrd h : g.hosts)
					host_group[h] = i;
		}
		for (size_t i = 0; i < groups.size(); i++) {
			const qft::SwitchGroup &g = groups[i];
			c_groups.push_back({g.level, g.name.c_str(),
					    g.parent == SIZE_MAX ? QFT_NONE : g.parent,
					    group_children[i].size(), group_children[i].data(),
					    group_hosts[i].size(), group_hosts[i].data(),
					    g.switches.size(), group_switches[i].c_str(),
					    g.link_gbps});
		}
	}
	const qft::Tree &need_tree() const { return model->need_tree(); }
};

// A placement as a qft_placement_t points into it.
struct told_placement {
	qft::Placement p;
	std::vector<size_t> hosts;
	std::string label, explain;
};

struct qft_placer {
	const qft_fabric_t *fabric;
	std::unique_ptr<qft::Placer> placer;
	told_placement last;  // qft_placer_place_range()'s
	told_placement ahead; // qft_placer_shape_ahead()'s
	// The placer's pattern again, shared with the LID requests (the
	// placer's own is not: it goes with the placer).
	std::shared_ptr<const qft::Pattern> pattern;
	// The running jobs, their hosts in rank order and the offsets recorded
	// for them (none: base LIDs), as a LID choice is made beside them.
	// Shared, never changed: a request holds the ones it was made with.
	std::unordered_map<uint32_t, std::shared_ptr<const qft::Job>> running;
};

// A job's offsets, as qft_lid_choice_t carries them to the placer.
struct qft_lid_job {
	std::shared_ptr<const qft::Job> job;
};

// What a LID choice needs, taken under slurmctld's locks; immutable.
struct qft_lid_request {
	std::shared_ptr<const qft::Model> model;
	std::shared_ptr<const qft::Pattern> pattern;
	std::vector<std::shared_ptr<const qft::Job>> beside;
	std::vector<qft::HostOrd> ranks;
	qft::LidMode mode = qft::LidMode::job;
	size_t max_stages = 0;
	uint32_t job_id = 0;
	unsigned threads = 1; // pair's stage search (qft_lid_request_set_threads)
};

namespace {

qft_status_t to_c(qft::Status s)
{
	switch (s) {
	case qft::Status::ok: return QFT_OK;
	case qft::Status::invalid: return QFT_EINVAL;
	case qft::Status::not_found: return QFT_ENOENT;
	case qft::Status::io: return QFT_EIO;
	case qft::Status::parse: return QFT_EPARSE;
	case qft::Status::unroutable: return QFT_EUNROUTABLE;
	case qft::Status::unsupported: return QFT_EUNSUPPORTED;
	case qft::Status::internal: return QFT_EINTERNAL;
	}
	return QFT_EINTERNAL;
}

void set_err(char **err, const char *msg)
{
	if (err)
		*err = strdup(msg);
}

// The status and message of the exception being handled. Called inside a
// handler: what() stays valid until that handler ends.
qft_status_t classify(const char **msg) noexcept
{
	try {
		throw;
	} catch (const qft::Error &e) {
		*msg = e.what();
		return to_c(e.status());
	} catch (const std::bad_alloc &) {
		*msg = "out of memory";
		return QFT_ENOMEM;
	} catch (const std::exception &e) {
		*msg = e.what();
		return QFT_EINTERNAL;
	} catch (...) {
		*msg = "unknown exception";
		return QFT_EINTERNAL;
	}
}

// Runs `body`; an exception becomes a status, its message goes to `tell`.
template <typename F, typename T> qft_status_t contain(F &&body, T &&tell)
{
	try {
		body();
		return QFT_OK;
	}
#if defined(__GLIBCXX__)
	catch (abi::__forced_unwind &) {
		throw; // pthread_cancel() unwinding the thread: swallowing it aborts
	}
#endif
	catch (...) {
		const char *msg = "";
		const qft_status_t st = classify(&msg);
		tell(msg);
		return st;
	}
}

template <typename F> qft_status_t guard(char **err, F &&body)
{
	if (err)
		*err = nullptr;
	return contain(body, [&](const char *msg) { set_err(err, msg); });
}

// Atomic: a plugin may set it while another thread of slurmctld calls in.
std::atomic<qft_error_handler_t> error_handler{nullptr};

// The error of a function that has no status to give it to.
void report(const char *func, const char *msg) noexcept
{
	if (qft_error_handler_t h = error_handler.load())
		h(func, msg);
	else
		std::fprintf(stderr, "libqft: %s: %s\n", func, msg);
}

// For functions with no status: on an error, the caller gets `fallback`.
template <typename R, typename F> R guard_or(const char *func, R fallback, F &&body)
{
	R r = fallback;
	contain([&] { r = body(); }, [&](const char *msg) { report(func, msg); });
	return r;
}

template <typename F> void guard_void(const char *func, F &&body)
{
	contain(body, [&](const char *msg) { report(func, msg); });
}

std::vector<std::string> names_of(const char *const *hosts, size_t n)
{
	if (!hosts && n)
		qft::fail(qft::Status::invalid, "host array is NULL");
	std::vector<std::string> v;
	for (size_t i = 0; i < n; i++) {
		if (!hosts[i])
			qft::fail(qft::Status::invalid, "host ", i, " is NULL");
		v.emplace_back(hosts[i]);
	}
	return v;
}

void need(const void *p, const char *what)
{
	if (!p)
		qft::fail(qft::Status::invalid, what, " is NULL");
}

// A fabric without a tree annotation (ibnetdiscover output, or the JSON
// that OpenSM's event plugin writes: contribs/opensm): its tree recognised,
// and the findings (`report` first, then the recognition's, then the hosts
// the router will not reach).
std::unique_ptr<qft_fabric> recognised(qft::Fabric fabric, const char *path, std::string report)
{
	const qft::Recognition r = qft::recognise(fabric);
	for (const qft::RecognisedCable &c : r.missing_cables)
		report += qft::cat(path, ": missing cable ", c.text, "\n");
	for (const std::string &s : r.missing_switches)
		report += qft::cat(path, ": no switch at ", s, "\n");
	for (const std::string &s : r.detached_text)
		report += qft::cat(path, ": detached ", s, "\n");
	auto f = std::make_unique<qft_fabric>(std::move(fabric));
	if (f->model->tree())
		report += qft::unplaced_hosts_report(f->fabric, *f->model->tree(), path);
	f->report = std::move(report);
	return f;
}

// Writes PATH.tmp, then renames it to `path`: a reader sees one record whole.
void replace_status(const char *path, const qft::ControllerStatus &s)
{
	const std::string tmp = std::string(path) + ".tmp";
	qft::write_file(tmp, qft::status_to_json(s));
	if (std::rename(tmp.c_str(), path) != 0)
		qft::fail(qft::Status::io, path, ": cannot rename ", tmp, " to it: ",
			  std::strerror(errno));
}

// The body of qft_fabric_import_ibnetdiscover().
void import_ibnetdiscover(const char *path, const qft::HostNaming &naming,
			 qft_fabric_t **out)
{
	qft::ImportResult imp = qft::load_ibnetdiscover(path, naming);
	std::string report;
	for (const std::string &w : imp.warnings)
		report += w + "\n";
	*out = recognised(std::move(imp.fabric), path, std::move(report)).release();
}

} // namespace

extern "C" {

void qft_set_error_handler(qft_error_handler_t handler)
{
	guard_void(__func__, [&] { error_handler.store(handler); });
}

const char *qft_status_str(qft_status_t status)
{
	return guard_or<const char *>(__func__, "unknown status", [&]() -> const char * {
		switch (status) {
		case QFT_OK: return "ok";
		case QFT_EINVAL: return "invalid argument";
		case QFT_ENOENT: return "not found";
		case QFT_EIO: return "I/O error";
		case QFT_EPARSE: return "parse error";
		case QFT_EUNROUTABLE: return "unroutable";
		case QFT_EUNSUPPORTED: return "unsupported";
		case QFT_EINTERNAL: return "internal error";
		case QFT_ENOMEM: return "out of memory";
		}
		return "unknown status";
	});
}

void qft_free(void *ptr)
{
	guard_void(__func__, [&] { std::free(ptr); });
}

const char *qft_version(void)
{
	return guard_or<const char *>(__func__, PACKAGE_VERSION, [] { return PACKAGE_VERSION; });
}

qft_status_t qft_fabric_load(const char *path, qft_fabric_t **out, char **err)
{
	return guard(err, [&] {
		need(path, "path");
		need(out, "out");
		*out = nullptr;
		qft::naming_origin(path, [&] {
			qft::Fabric fabric = qft::fabric_load_json(path);
			if (fabric.tree_tuple().empty()) { // no tree: recognise it here
				*out = recognised(std::move(fabric), path, "").release();
				return;
			}
			auto f = std::make_unique<qft_fabric>(std::move(fabric));
			if (const qft::Tree *t = f->model->tree())
				f->report = qft::missing_cables_report(f->fabric, *t, path) +
					    qft::unplaced_hosts_report(f->fabric, *t, path);
			*out = f.release();
		});
	});
}

qft_status_t qft_fabric_import_ibnetdiscover(const char *path, const char *name_regex,
					     qft_fabric_t **out, char **err)
{
	return guard(err, [&] {
		need(path, "path");
		need(out, "out");
		*out = nullptr;
		qft::HostNaming naming{name_regex ? name_regex : ""};
		qft::naming_origin(path, [&] { import_ibnetdiscover(path, naming, out); });
	});
}

const char *qft_fabric_report(const qft_fabric_t *fabric)
{
	return guard_or<const char *>(__func__, "", [&] {
		return fabric ? fabric->report.c_str() : "";
	});
}

qft_status_t qft_fabric_generate(const char *tuple, const char *name_pattern,
				 unsigned lmc, qft_fabric_t **out, char **err)
{
	return guard(err, [&] {
		need(tuple, "tuple");
		need(out, "out");
		*out = nullptr;
		qft::GenOptions opt;
		if (name_pattern)
			opt.name_pattern = name_pattern;
		opt.lmc = lmc;
		*out = new qft_fabric(qft::generate_pgft(qft::Pgft::parse(tuple), opt));
	});
}

void qft_fabric_destroy(qft_fabric_t *fabric)
{
	guard_void(__func__, [&] { delete fabric; });
}

size_t qft_fabric_host_count(const qft_fabric_t *fabric)
{
	return guard_or<size_t>(__func__, 0, [&] {
		return fabric ? fabric->fabric.hosts().size() : 0;
	});
}

const char *qft_fabric_host_name(const qft_fabric_t *fabric, size_t ord)
{
	return guard_or<const char *>(__func__, nullptr, [&]() -> const char * {
		if (!fabric || ord >= fabric->fabric.hosts().size())
			return nullptr;
		return fabric->fabric.node(fabric->fabric.hosts()[ord]).name.c_str();
	});
}

unsigned qft_fabric_lmc(const qft_fabric_t *fabric)
{
	return guard_or<unsigned>(__func__, 0, [&] { return fabric ? fabric->fabric.lmc() : 0; });
}

const char *qft_fabric_tuple(const qft_fabric_t *fabric)
{
	return guard_or<const char *>(__func__, "", [&] {
		return fabric ? fabric->fabric.tree_tuple().c_str() : "";
	});
}

const char *qft_fabric_tree_name(const qft_fabric_t *fabric)
{
	return guard_or<const char *>(__func__, "", [&] {
		if (!fabric || fabric->fabric.tree_tuple().empty())
			return "";
		const bool quasi = fabric->fabric.tree_kind() == qft::TreeKind::qft;
		fabric->tree_name = qft::cat(quasi ? "QFT of " : "", "PGFT(",
					     fabric->fabric.tree_tuple(), ")");
		return fabric->tree_name.c_str();
	});
}

qft_status_t qft_fabric_set_routing(qft_fabric_t *fabric, const char *spec, char **err)
{
	return guard(err, [&] {
		need(fabric, "fabric");
		need(spec, "spec");
		fabric->model->set_routing(spec);
	});
}

const char *qft_fabric_routing(const qft_fabric_t *fabric)
{
	return guard_or<const char *>(__func__, "", [&] {
		return fabric ? fabric->model->routing().c_str() : "";
	});
}

int qft_fabric_host_attached(const qft_fabric_t *fabric, size_t ord)
{
	return guard_or<int>(__func__, 0, [&] {
		const qft::Tree *t = fabric ? fabric->model->tree() : nullptr;
		return t && ord < fabric->fabric.hosts().size() &&
		       t->host_attached(qft::HostOrd(ord));
	});
}

size_t qft_fabric_attached_host_count(const qft_fabric_t *fabric)
{
	return guard_or<size_t>(__func__, 0, [&] {
		const qft::Tree *t = fabric ? fabric->model->tree() : nullptr;
		return t ? t->attached_hosts().size() : 0;
	});
}

qft_status_t qft_fabric_lost_destinations(const qft_fabric_t *fabric, size_t **hosts,
					  size_t *count, char **err)
{
	return guard(err, [&] {
		need(fabric, "fabric");
		need(hosts, "hosts");
		need(count, "count");
		*hosts = nullptr;
		*count = 0;
		const qft::Tree *t = fabric->model->tree();
		const std::vector<qft::HostOrd> lost =
			t ? qft::shared_down_destinations(fabric->fabric, fabric->model->router(),
							  t->attached_hosts())
			  : qft::shared_down_destinations(fabric->fabric, fabric->model->router());
		*hosts = static_cast<size_t *>(std::malloc(sizeof(size_t) * (lost.size() + 1)));
		if (!*hosts)
			throw std::bad_alloc();
		std::copy(lost.begin(), lost.end(), *hosts);
		*count = lost.size();
	});
}

qft_status_t qft_status_write(const char *path, const qft_fabric_t *fabric,
			      const qft_controller_status_t *status, char **err)
{
	return guard(err, [&] {
		need(path, "path");
		need(status, "status");
		const auto text = [](const char *s) { return std::string(s ? s : ""); };
		qft::ControllerStatus s;
		s.written = int64_t(std::time(nullptr));
		s.slurm_version = text(status->slurm_version);
		if (fabric) {
			s.source = text(status->source);
			s.format = text(status->format);
			s.host_name_regex = text(status->host_name_regex);
			s.loaded = status->loaded;
			s.tree = qft_fabric_tree_name(fabric);
			s.routing = fabric->model->routing();
			s.hosts = fabric->fabric.hosts().size();
			s.switch_groups = fabric->groups.size();
			for (size_t a = 0, b; a < fabric->report.size(); a = b + 1) {
				b = fabric->report.find('\n', a);
				if (b == std::string::npos)
					b = fabric->report.size();
				if (b > a)
					s.findings.push_back(fabric->report.substr(a, b - a));
			}
		}
		s.attempted = status->attempted;
		s.attempt_file = text(status->attempt_file);
		s.refused = text(status->refused);
		s.cut_off = text(status->cut_off);
		s.cut_off_count = status->cut_off_count;
		s.ignored = text(status->ignored);
		s.ignored_count = status->ignored_count;
		replace_status(path, s);
	});
}

qft_status_t qft_status_note_refusal(const char *path, int keep_fabric, int64_t attempted,
				     const char *attempt_file, const char *refused, char **err)
{
	return guard(err, [&] {
		need(path, "path");
		qft::ControllerStatus s;
		try {
			if (keep_fabric)
				s = qft::status_from_json(qft::read_file(path), path);
		} catch (const qft::Error &) {
			s = qft::ControllerStatus(); // none yet, or unreadable: start afresh
		}
		s.written = int64_t(std::time(nullptr));
		s.attempted = attempted;
		s.attempt_file = attempt_file ? attempt_file : "";
		s.refused = refused ? refused : "";
		replace_status(path, s);
	});
}

size_t qft_fabric_find_host(const qft_fabric_t *fabric, const char *name)
{
	return guard_or<size_t>(__func__, QFT_NONE, [&]() -> size_t {
		if (!fabric || !name)
			return QFT_NONE;
		qft::HostOrd h = fabric->fabric.find_host(name);
		return h == qft::kNone ? QFT_NONE : h;
	});
}

size_t qft_fabric_group_count(const qft_fabric_t *fabric)
{
	return guard_or<size_t>(__func__, 0, [&] { return fabric ? fabric->c_groups.size() : 0; });
}

const qft_group_t *qft_fabric_group(const qft_fabric_t *fabric, size_t index)
{
	return guard_or<const qft_group_t *>(__func__, nullptr, [&]() -> const qft_group_t * {
		if (!fabric || index >= fabric->c_groups.size())
			return nullptr;
		return &fabric->c_groups[index];
	});
}

size_t qft_fabric_host_group(const qft_fabric_t *fabric, size_t ord)
{
	return guard_or<size_t>(__func__, QFT_NONE, [&]() -> size_t {
		if (!fabric || ord >= fabric->host_group.size())
			return QFT_NONE;
		return fabric->host_group[ord];
	});
}

qft_status_t qft_fabric_tree_index(const qft_fabric_t *fabric, const char *name,
				   uint64_t *index, char **err)
{
	return guard(err, [&] {
		need(fabric, "fabric");
		need(name, "name");
		need(index, "index");
		const qft::Tree &tree = fabric->need_tree();
		qft::HostOrd h = fabric->fabric.find_host(name);
		if (h == qft::kNone)
			qft::fail(qft::Status::not_found, "host ", name, " is not in the fabric");
		if (tree.host_index(h) == qft::kNone)
			qft::fail(qft::Status::invalid, "host ", name, " has no tree position");
		*index = tree.host_index(h);
	});
}

qft_status_t qft_tree_order(const qft_fabric_t *fabric, const char *const *hosts,
			    size_t n, size_t *perm, char **err)
{
	return guard(err, [&] {
		need(fabric, "fabric");
		need(perm, "perm");
		std::vector<qft::HostOrd> ords =
			qft::resolve_hosts(fabric->fabric, names_of(hosts, n));
		std::vector<qft::HostOrd> sorted =
			qft::tree_order(fabric->fabric, fabric->need_tree(), ords);
		std::vector<size_t> pos(fabric->fabric.hosts().size());
		for (size_t i = 0; i < n; i++)
			pos[ords[i]] = i;
		for (size_t i = 0; i < n; i++)
			perm[i] = pos[sorted[i]];
	});
}

qft_status_t qft_score_job(const qft_fabric_t *fabric, const char *const *hosts,
			   size_t n, const char *pattern, qft_score_t *out,
			   char **err)
{
	return guard(err, [&] {
		need(fabric, "fabric");
		need(pattern, "pattern");
		need(out, "out");
		const qft::Tree &tree = fabric->need_tree();
		qft::Job job;
		job.ranks = qft::resolve_hosts(fabric->fabric, names_of(hosts, n));
		std::unique_ptr<qft::Pattern> p = qft::make_pattern(pattern, &tree.pgft());
		qft::Score sc = qft::score_jobs(fabric->fabric, fabric->model->router(), *p, {job});
		out->avg_hsd = sc.avg_hsd;
		out->max_hsd = sc.max_hsd;
		out->stages = sc.stages;
		out->congested_stages = sc.congested_stages;
	});
}

static_assert(QFT_FLOW_BUDGET == qft::kFlowBudget, "qft.h documents the placer's budget");

qft_status_t qft_placer_create(const qft_fabric_t *fabric, const qft_placer_config_t *config,
			       qft_placer_t **out, char **err)
{
	return guard(err, [&] {
		need(fabric, "fabric");
		need(out, "out");
		*out = nullptr;
		qft::PlacementPolicy pol;
		if (config) {
			pol.remainder = config->reserve_remainder ? qft::Remainder::reserve
								  : qft::Remainder::exact;
			if (config->pattern)
				pol.pattern = config->pattern;
			if (config->sample_stages)
				pol.sample_stages = config->sample_stages;
			pol.rank_by_congestion = config->rank_by_congestion != 0;
			if (config->flow_budget)
				pol.flow_budget = config->flow_budget;
			pol.products = config->products != 0;
			pol.round_up = config->round_up;
			pol.lid_offsets = config->lid_offsets != 0;
			pol.path_pressure = config->path_pressure != 0;
			pol.whole_leaves = config->whole_leaves != 0;
		}
		auto p = std::make_unique<qft_placer>();
		p->fabric = fabric;
		p->placer = std::make_unique<qft::Placer>(fabric->fabric, fabric->need_tree(),
							  fabric->model->router(), pol);
		p->pattern = qft::make_pattern(pol.pattern, &fabric->need_tree().pgft());
		*out = p.release();
	});
}

void qft_placer_destroy(qft_placer_t *placer)
{
	guard_void(__func__, [&] { delete placer; });
}

} // extern "C"

// C++ helpers of the placer's entry points: outside extern "C", so that
// they may return C++ types (clang's -Wreturn-type-c-linkage).
namespace {

// Points `out` at `t`, whose placement t.p is set.
void tell_placement(told_placement &t, qft_placement_t *out)
{
	const qft::Placement &p = t.p;
	t.hosts.assign(p.chosen.hosts.begin(), p.chosen.hosts.end());
	t.label = p.outcome == qft::Placement::placed ? p.chosen.label() : "";
	t.explain = qft::explain(p);
	out->outcome = p.outcome == qft::Placement::placed
			       ? QFT_PLACED
			       : (p.outcome == qft::Placement::not_now ? QFT_NOT_NOW : QFT_NEVER);
	out->count = t.hosts.size();
	out->hosts = t.hosts.data();
	out->hsd = p.chosen.hsd;
	out->hsd_alone = p.chosen.hsd_alone;
	out->level = p.chosen.level;
	out->aligned = p.chosen.kind == qft::PlacementKind::aligned;
	out->kind = qft::placement_kind_name(p.chosen.kind);
	out->contiguous = p.chosen.contiguous;
	out->shape = p.chosen.shape.c_str();
	out->congestion_free = p.chosen.congestion_free;
	out->offset_shape = p.chosen.offset_shape;
	out->label = t.label.c_str();
	out->reason = p.reason.c_str();
	out->explain = t.explain.c_str();
	out->candidates = p.considered.size();
	out->shared_links = p.chosen.shared;
}

// The request of qft_placer_place_range() and qft_placer_shape_ahead().
qft::PlacementRequest request_of(const qft_placer_t *placer, uint32_t min_nodes, uint32_t nodes,
				 const uint8_t *eligible, const uint8_t *busy,
				 const size_t *required, size_t required_count)
{
	need(placer, "placer");
	need(eligible, "eligible");
	if (min_nodes > nodes)
		qft::fail(qft::Status::invalid, "node range ", min_nodes, "-", nodes,
			  ": the minimum is above the maximum");
	size_t n = placer->fabric->fabric.hosts().size();
	qft::PlacementRequest req;
	req.nodes = nodes;
	req.nodes_min = min_nodes;
	req.eligible.assign(eligible, eligible + n);
	if (busy) {
		req.busy.resize(n);
		req.shared.resize(n);
		for (size_t h = 0; h < n; h++) {
			req.shared[h] = busy[h] == QFT_HOST_SHARED;
			req.busy[h] = busy[h] && !req.shared[h];
		}
	}
	for (size_t i = 0; i < required_count; i++) {
		if (required[i] >= n)
			qft::fail(qft::Status::invalid, "required host ordinal ", required[i],
				  " out of range");
		req.required.push_back(qft::HostOrd(required[i]));
	}
	return req;
}

// The body of qft_placer_place_range() and qft_placer_place().
void place_range(qft_placer_t *placer, uint32_t min_nodes, uint32_t nodes,
		 const uint8_t *eligible, const uint8_t *busy, const size_t *required,
		 size_t required_count, qft_placement_t *out,
		 const qft_place_request_t *more = nullptr)
{
	need(out, "out");
	qft::PlacementRequest req =
		request_of(placer, min_nodes, nodes, eligible, busy, required, required_count);
	if (more) {
		req.isolate = more->isolate != 0;
		if (more->ended_count)
			need(more->ended, "ended");
		req.ended.assign(more->ended, more->ended + more->ended_count);
	}
	placer->last.p = placer->placer->place(req);
	tell_placement(placer->last, out);
}

} // namespace

extern "C" {

qft_status_t qft_placer_place(qft_placer_t *placer, uint32_t nodes, const uint8_t *eligible,
			      const uint8_t *busy, const size_t *required,
			      size_t required_count, qft_placement_t *out, char **err)
{
	return guard(err, [&] {
		place_range(placer, nodes, nodes, eligible, busy, required, required_count, out);
	});
}

qft_status_t qft_placer_place_range(qft_placer_t *placer, uint32_t min_nodes, uint32_t nodes,
				    const uint8_t *eligible, const uint8_t *busy,
				    const size_t *required, size_t required_count,
				    qft_placement_t *out, char **err)
{
	return guard(err, [&] {
		place_range(placer, min_nodes, nodes, eligible, busy, required, required_count,
			    out);
	});
}

qft_status_t qft_placer_place_request(qft_placer_t *placer, const qft_place_request_t *request,
				      qft_placement_t *out, char **err)
{
	return guard(err, [&] {
		need(request, "request");
		place_range(placer, request->min_nodes, request->nodes, request->eligible,
			    request->busy, request->required, request->required_count, out,
			    request);
	});
}

qft_status_t qft_placer_shape_ahead(qft_placer_t *placer, uint32_t min_nodes, uint32_t nodes,
				    const uint8_t *eligible, const double *free_at,
				    const size_t *required, size_t required_count,
				    double horizon, double *at, qft_placement_t *out, char **err)
{
	return guard(err, [&] {
		need(free_at, "free_at");
		need(at, "at");
		need(out, "out");
		qft::PlacementRequest req = request_of(placer, min_nodes, nodes, eligible, nullptr,
						       required, required_count);
		size_t n = placer->fabric->fabric.hosts().size();
		std::vector<double> when(free_at, free_at + n);
		std::optional<qft::Placer::Ahead> a = placer->placer->shape_ahead(req, when, horizon);
		qft::Placement &p = placer->ahead.p;
		p = qft::Placement{};
		if (a) {
			p.outcome = qft::Placement::placed;
			p.chosen = std::move(a->chosen);
		} else {
			p.outcome = qft::Placement::not_now;
			p.reason = "no congestion-free shape within the horizon";
		}
		*at = a ? a->at : 0;
		tell_placement(placer->ahead, out);
	});
}

qft_status_t qft_placer_add_job(qft_placer_t *placer, uint32_t job_id, const size_t *hosts,
				size_t count, char **err)
{
	return guard(err, [&] {
		need(placer, "placer");
		size_t n = placer->fabric->fabric.hosts().size();
		std::vector<qft::HostOrd> v;
		for (size_t i = 0; i < count; i++) {
			if (hosts[i] >= n)
				qft::fail(qft::Status::invalid, "host ordinal ", hosts[i], " out of range");
			v.push_back(qft::HostOrd(hosts[i]));
		}
		// what may fail first, so that a failed add leaves nothing
		auto j = std::make_shared<qft::Job>();
		j->ranks = v;
		auto it = placer->running.find(job_id);
		const bool fresh = it == placer->running.end();
		if (fresh)
			it = placer->running.emplace(job_id, nullptr).first;
		try {
			placer->placer->add_running(job_id, v);
		} catch (...) {
			if (fresh)
				placer->running.erase(it);
			throw;
		}
		if (!it->second || it->second->ranks != v) // other hosts: its offsets go
			it->second = std::move(j);
	});
}

void qft_placer_remove_job(qft_placer_t *placer, uint32_t job_id)
{
	guard_void(__func__, [&] {
		if (placer) {
			placer->placer->remove_running(job_id);
			placer->running.erase(job_id);
		}
	});
}

size_t qft_placer_running(const qft_placer_t *placer)
{
	return guard_or<size_t>(__func__, 0, [&] {
		return placer ? placer->placer->running() : 0;
	});
}

qft_status_t qft_placer_isolate_job(qft_placer_t *placer, uint32_t job_id, int isolated,
				    char **err)
{
	return guard(err, [&] {
		need(placer, "placer");
		if (!placer->placer->isolate_running(job_id, isolated != 0))
			qft::fail(qft::Status::invalid, "isolation: job ", job_id,
				  " is not running on this placer");
	});
}

size_t qft_placer_isolated(const qft_placer_t *placer)
{
	return guard_or<size_t>(__func__, 0, [&] {
		return placer ? placer->placer->isolated() : 0;
	});
}

unsigned qft_placer_subtree_apart(const qft_placer_t *placer, const uint8_t *eligible,
				  uint32_t min_hosts, int from_every, unsigned after, uint8_t *zone)
{
	return guard_or<unsigned>(__func__, 0, [&] {
		need(placer, "placer");
		need(eligible, "eligible");
		need(zone, "zone");
		const size_t n = placer->fabric->fabric.hosts().size();
		std::fill(zone, zone + n, 0);
		std::vector<qft::HostOrd> hosts;
		const unsigned level = placer->placer->subtree_apart(
			std::vector<uint8_t>(eligible, eligible + n), min_hosts, from_every != 0,
			after, hosts);
		for (qft::HostOrd h : hosts)
			zone[h] = 1;
		return level;
	});
}

int qft_placer_hosts_apart(const qft_placer_t *placer, const size_t *hosts, size_t count,
			   int from_every)
{
	return guard_or<int>(__func__, 0, [&] {
		need(placer, "placer");
		need(hosts, "hosts");
		return placer->placer->hosts_apart(std::vector<qft::HostOrd>(hosts, hosts + count),
						   from_every != 0);
	});
}

void qft_shape_wait(const qft_wait_job_t *job, const qft_shape_wait_rule_t *rule, time_t now,
		    double *wait, double *left)
{
	guard_void(__func__, [&] {
		double w = 0, l = 0;
		if (job && rule) {
			const qft::WaitingJob j{job->limit, job->part_default, job->part_max,
						job->since, job->own_set != 0, job->own};
			w = qft::shape_wait(j, qft::ShapeWaitRule{rule->percent, rule->max_seconds, rule->ends});
			l = qft::shape_left(j, w, now);
		}
		if (wait)
			*wait = w;
		if (left)
			*left = l;
	});
}

void qft_shape_forecast(const qft_shape_wait_rule_t *rule, double *free_at, size_t hosts)
{
	guard_void(__func__, [&] {
		if (rule && free_at)
			qft::shape_forecast(free_at, hosts,
					    qft::ShapeWaitRule{rule->percent, rule->max_seconds, rule->ends});
	});
}

int qft_shape_decline(const qft_placement_t *now, double ahead_at)
{
	return guard_or<int>(__func__, 0, [&] {
		return now && now->outcome == QFT_PLACED &&
		       qft::decline_for_shape(now->congestion_free || now->offset_shape,
					       now->count, ahead_at);
	});
}

int qft_isolation_in_play(int asks_isolation, size_t isolated_running, uint32_t max_nodes)
{
	return guard_or<int>(__func__, 1, [&] {
		return qft::isolation_in_play(asks_isolation != 0, isolated_running, max_nodes);
	});
}

qft_pass_t qft_pass_to_cons_tres(int run_now, int asks_isolation, size_t isolated_running,
				 uint32_t max_nodes)
{
	return guard_or<qft_pass_t>(__func__, QFT_PASS_WAIT, [&] {
		switch (qft::pass_to_cons_tres(run_now != 0, asks_isolation != 0,
					       isolated_running, max_nodes)) {
		case qft::Pass::whole_bitmap:
			return QFT_PASS_WHOLE;
		case qft::Pass::off_isolated:
			return QFT_PASS_OFF_ISOLATED;
		case qft::Pass::idle_off_isolated:
			return QFT_PASS_IDLE_OFF_ISOLATED;
		case qft::Pass::wait:
			break;
		}
		return QFT_PASS_WAIT;
	});
}

struct qft_holders {
	qft::ShapeHolders holders;
};

qft_holders_t *qft_holders_create(void)
{
	return guard_or<qft_holders_t *>(__func__, nullptr, [] { return new qft_holders; });
}

void qft_holders_destroy(qft_holders_t *holders)
{
	guard_void(__func__, [&] { delete holders; });
}

int qft_holders_may_hold(qft_holders_t *holders, uint32_t id, uint32_t priority, uint32_t limit,
			 int (*pending)(uint32_t id, uint32_t *priority, void *arg), void *arg)
{
	return guard_or<int>(__func__, 0, [&] {
		need(holders, "holders");
		if (!pending)
			qft::fail(qft::Status::invalid, "pending is NULL");
		return holders->holders.may_hold(id, priority, limit,
						 [&](uint32_t other, uint32_t &prio) {
							 return pending(other, &prio, arg) != 0;
						 });
	});
}

void qft_holders_hold(qft_holders_t *holders, uint32_t id, uint32_t priority)
{
	guard_void(__func__, [&] {
		if (holders)
			holders->holders.hold(id, priority);
	});
}

void qft_holders_unhold(qft_holders_t *holders, uint32_t id)
{
	guard_void(__func__, [&] {
		if (holders)
			holders->holders.unhold(id);
	});
}

size_t qft_holders_count(const qft_holders_t *holders)
{
	return guard_or<size_t>(__func__, 0,
				[&] { return holders ? holders->holders.size() : 0; });
}

} // extern "C"

namespace {

// The body of qft_placer_lid_request(): what the choice reads, copied or
// shared, under the caller's locks.
qft_lid_request lid_request(const qft_placer_t *placer, uint32_t job_id, const size_t *hosts,
			    size_t count, const char *mode, size_t flows, bool beside)
{
	need(mode, "mode");
	need(placer, "placer");
	if (count)
		need(hosts, "hosts");
	qft_lid_request req;
	req.mode = qft::lid_mode(mode);
	if (req.mode == qft::LidMode::stripe)
		qft::fail(qft::Status::invalid, "a striped choice has nothing to export");
	const qft::Fabric &f = placer->fabric->fabric;
	req.ranks.reserve(count);
	for (size_t i = 0; i < count; i++) {
		if (hosts[i] >= f.hosts().size())
			qft::fail(qft::Status::invalid, "host ordinal ", hosts[i], " out of range");
		req.ranks.push_back(qft::HostOrd(hosts[i]));
	}
	req.model = placer->fabric->model;
	req.pattern = placer->pattern;
	req.job_id = job_id;
	const size_t all = placer->pattern->stage_count(uint32_t(count));
	if (!flows) {
		req.max_stages = placer->placer->predict_stages(count);
	} else { // as many evenly spread stages as `flows` allow, one at least
		const size_t per = std::max<size_t>(count, 1);
		req.max_stages = std::min(all, std::max<size_t>(1, flows / per));
	}
	if (!beside)
		return req;
	req.beside.reserve(placer->running.size());
	for (const auto &[id, job] : placer->running)
		if (id != job_id)
			req.beside.push_back(job);
	return req;
}

// The body of qft_lid_request_run() and qft_placer_choose_lids(): reads
// only the request.
void run_lid_request(const qft_lid_request &req, qft_lid_choice_t *out)
{
	const qft::Fabric &f = req.model->fabric();
	const qft::Router &router = req.model->router();
	std::vector<qft::Job> beside;
	beside.reserve(req.beside.size());
	for (const auto &j : req.beside)
		beside.push_back(*j);
	qft::LidOptions opt;
	opt.max_stages = req.max_stages;
	opt.pair.threads = req.threads;
	if (!beside.empty())
		opt.beside = &beside;
	const qft::LidTable t = qft::choose_lids(f, router, req.model->tree(), *req.pattern,
						 req.ranks, req.mode, opt);
	// pair: beside the running jobs on every stage, the figure its search
	// minimised (what `qft score --per-job` gives it with their tables);
	// job, dest: alone on the judged stages.
	const bool pair = req.mode == qft::LidMode::pair;
	const qft::LidScore sc = qft::score_lids(f, router, *req.pattern, t, pair ? 0 : opt.max_stages,
						 pair ? opt.beside : nullptr);
	const std::string text = qft::lid_table_text(f, t);
	out->mode = qft::lid_mode_name(req.mode);
	out->offsets = t.offsets;
	out->avg_hsd = sc.avg_hsd;
	out->max_hsd = sc.max_hsd;
	out->stages_played = sc.stages;
	out->stages_total = req.pattern->stage_count(uint32_t(req.ranks.size()));
	if (req.mode == qft::LidMode::pair) {
		out->floor_hsd = t.floor.hsd();
		out->stages_proven = t.floor.count(qft::PairFloor::congested);
		out->stages_undecided = t.floor.count(qft::PairFloor::undecided);
	}
	out->job = new qft_lid_job{std::make_shared<const qft::Job>(t.job())};
	out->table = strdup(text.c_str());
	if (!out->table)
		throw std::bad_alloc();
	if (!t.dest.empty()) {
		out->dest = static_cast<unsigned char *>(std::malloc(t.dest.size()));
		if (!out->dest)
			throw std::bad_alloc();
		std::copy(t.dest.begin(), t.dest.end(), out->dest);
	}
}

} // namespace

extern "C" {

// The prediction of qft_placer_score() and qft_placer_predict().
static qft::Prediction predict_hosts(const qft_placer_t *placer, const size_t *hosts,
				     size_t count)
{
	need(placer, "placer");
	if (count)
		need(hosts, "hosts");
	std::vector<qft::HostOrd> ranks;
	for (size_t i = 0; i < count; i++) {
		if (hosts[i] >= placer->fabric->fabric.hosts().size())
			qft::fail(qft::Status::invalid, "host ordinal ", hosts[i], " out of range");
		ranks.push_back(qft::HostOrd(hosts[i]));
	}
	return placer->placer->predict(ranks);
}

qft_status_t qft_placer_score(const qft_placer_t *placer, const size_t *hosts, size_t count,
			      double *avg_hsd, unsigned *max_hsd, char **err)
{
	qft_status_t st = guard(err, [&] {
		need(avg_hsd, "avg_hsd");
		need(max_hsd, "max_hsd");
		qft::Prediction pr = predict_hosts(placer, hosts, count);
		*avg_hsd = pr.avg_hsd;
		*max_hsd = pr.max_hsd;
	});
	if (st != QFT_OK && avg_hsd && max_hsd) { // never a figure that was not computed
		*avg_hsd = NAN;
		*max_hsd = 0;
	}
	return st;
}

qft_status_t qft_placer_predict(const qft_placer_t *placer, const size_t *hosts, size_t count,
				qft_prediction_t *out, char **err)
{
	qft_status_t st = guard(err, [&] {
		need(out, "out");
		qft::Prediction pr = predict_hosts(placer, hosts, count);
		*out = {pr.avg_hsd, pr.max_hsd, pr.stages_played, pr.stages_total};
	});
	if (st != QFT_OK && out) // as qft_placer_score(): nothing uncomputed
		*out = {NAN, 0, 0, 0};
	return st;
}

qft_status_t qft_placer_choose_lids(const qft_placer_t *placer, const size_t *hosts, size_t count,
				   const char *mode, qft_lid_choice_t *out, char **err)
{
	return guard(err, [&] {
		if (out) // nothing to free after an error, whichever
			*out = qft_lid_choice_t{};
		need(out, "out");
		const qft_lid_request req = lid_request(placer, 0, hosts, count, mode, 0, false);
		run_lid_request(req, out);
	});
}

qft_status_t qft_placer_lid_request(const qft_placer_t *placer, uint32_t job_id,
				    const size_t *hosts, size_t count, const char *mode,
				    size_t flows, qft_lid_request_t **out, char **err)
{
	return guard(err, [&] {
		need(out, "out");
		*out = nullptr;
		*out = new qft_lid_request(lid_request(placer, job_id, hosts, count, mode, flows, true));
	});
}

qft_status_t qft_lid_request_run(qft_lid_request_t *req, qft_lid_choice_t *out, char **err)
{
	return guard(err, [&] {
		if (out)
			*out = qft_lid_choice_t{};
		need(out, "out");
		need(req, "request");
		run_lid_request(*req, out);
	});
}

void qft_lid_request_set_threads(qft_lid_request_t *req, unsigned threads)
{
	guard_void(__func__, [&] {
		if (req)
			req->threads = std::max(threads, 1u);
	});
}

uint32_t qft_lid_request_job_id(const qft_lid_request_t *req)
{
	return guard_or<uint32_t>(__func__, 0, [&] { return req ? req->job_id : 0; });
}

size_t qft_lid_request_hosts(const qft_lid_request_t *req)
{
	return guard_or<size_t>(__func__, 0, [&] { return req ? req->ranks.size() : 0; });
}

void qft_lid_request_destroy(qft_lid_request_t *req)
{
	guard_void(__func__, [&] { delete req; });
}

qft_status_t qft_placer_record_lids(qft_placer_t *placer, uint32_t job_id,
				    const qft_lid_choice_t *choice, char **err)
{
	return guard(err, [&] {
		need(placer, "placer");
		need(choice, "choice");
		need(choice->job, "choice's job");
		auto it = placer->running.find(job_id);
		if (it == placer->running.end() || it->second->ranks != choice->job->job->ranks)
			qft::fail(qft::Status::not_found, "job ", job_id,
				  " is not tracked on the hosts of its LID choice (it ended, or moved)");
		it->second = choice->job->job;
	});
}

size_t qft_placer_copy_lids(qft_placer_t *to, const qft_placer_t *from)
{
	return guard_or<size_t>(__func__, 0, [&] {
		size_t n = 0;
		if (!to || !from)
			return n;
		for (auto &[id, job] : to->running) {
			auto it = from->running.find(id);
			if (it != from->running.end() && it->second->ranks == job->ranks &&
			    !it->second->offsets.empty()) {
				job = it->second;
				n++;
			}
		}
		return n;
	});
}

size_t qft_placer_lid_jobs(const qft_placer_t *placer)
{
	return guard_or<size_t>(__func__, 0, [&] {
		size_t n = 0;
		if (placer)
			for (const auto &r : placer->running)
				n += !r.second->offsets.empty();
		return n;
	});
}

void qft_lid_choice_clear(qft_lid_choice_t *choice)
{
	guard_void(__func__, [&] {
		if (!choice)
			return;
		std::free(choice->dest);
		std::free(choice->table);
		delete choice->job;
		*choice = qft_lid_choice_t{};
	});
}

qft_status_t qft_fabric_sort_tree_order(const qft_fabric_t *fabric, size_t *hosts, size_t count,
					char **err)
{
	return guard(err, [&] {
		need(fabric, "fabric");
		const qft::Tree &tree = fabric->need_tree();
		for (size_t i = 0; i < count; i++)
			if (hosts[i] >= fabric->fabric.hosts().size() ||
			    tree.host_index(qft::HostOrd(hosts[i])) == qft::kNone)
				qft::fail(qft::Status::invalid, "host ordinal ", hosts[i],
					  " has no tree position");
		qft::sort_tree_order(tree, hosts, hosts + count);
	});
}

} // extern "C"
