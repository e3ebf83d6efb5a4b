// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/score/report.hpp"

#include <jansson.h>

#include <cstdio>
#include <cstdlib>

#include "lib/common/error.hpp"

namespace qft {

namespace {

std::string fixed(double v, int digits)
{
	char buf[64];
	std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
	return buf;
}

} // namespace

std::string score_text(const Fabric &fabric, const Score &sc,
		       const ScoreContext &ctx)
{
	std::string out = cat("pattern ", sc.pattern, ", routing ", ctx.routing,
			      ", order ", ctx.order, ": ", ctx.jobs, " job(s), ",
			      ctx.hosts, " hosts, ", sc.stages, " stages, ", sc.flows,
			      " flows\n");
	out += cat("average HSD ", fixed(sc.avg_hsd, 4), ", worst HSD ", sc.max_hsd);
	if (sc.stages)
		out += cat(" (first at stage ", sc.max_hsd_stage, ")");
	out += cat(", congested stages ", sc.congested_stages, " of ", sc.stages, "\n");
	if (sc.bandwidth >= 0)
		out += cat("mean flow bandwidth ", fixed(sc.bandwidth, 4),
			   " of a link\n");
	if (sc.shared_links >= 0)
		out += cat("links shared between jobs ", sc.shared_links, "\n");
	if (!sc.job_hsd.empty()) {
		out += "average HSD of each job beside the others:";
		for (double h : sc.job_hsd)
			out += " " + fixed(h, 4);
		out += "\n";
	}
	if (!ctx.lid_floor.empty()) {
		out += "least HSD any offsets give each job, as proved (stages proven congested, "
		       "undecided):";
		for (const LidFloor &fl : ctx.lid_floor)
			out += fl.hsd < 0 ? std::string(" -")
					  : cat(" ", fixed(fl.hsd, 4), " (", fl.congested, ", ",
						fl.undecided, " of ", fl.stages, ")");
		out += "\n";
	}
	if (!sc.worst_links.empty() && sc.max_hsd > 1) {
		out += "worst links (flows in one stage, stages at that load):\n";
		for (const LinkPeak &lp : sc.worst_links)
			out += cat("  ", fabric.port_label(lp.link), " -> ",
				   fabric.port_label(fabric.port(lp.link).peer), ": ",
				   lp.peak, " flows, ", lp.peak_stages, " stage(s)\n");
	}
	return out;
}

std::string score_json(const Fabric &fabric, const Score &sc,
		       const ScoreContext &ctx)
{
	json_t *o = json_object();
	json_object_set_new(o, "pattern", json_string(sc.pattern.c_str()));
	json_object_set_new(o, "routing", json_string(ctx.routing.c_str()));
	json_object_set_new(o, "order", json_string(ctx.order.c_str()));
	json_object_set_new(o, "jobs", json_integer(json_int_t(ctx.jobs)));
	json_object_set_new(o, "hosts", json_integer(json_int_t(ctx.hosts)));
	json_object_set_new(o, "stages", json_integer(json_int_t(sc.stages)));
	json_object_set_new(o, "flows", json_integer(json_int_t(sc.flows)));
	json_object_set_new(o, "avg_hsd", json_real(sc.avg_hsd));
	json_object_set_new(o, "max_hsd", json_integer(sc.max_hsd));
	json_object_set_new(o, "max_hsd_stage", json_integer(json_int_t(sc.max_hsd_stage)));
	json_object_set_new(o, "congested_stages",
			    json_integer(json_int_t(sc.congested_stages)));
	json_object_set_new(o, "bandwidth",
			    sc.bandwidth >= 0 ? json_real(sc.bandwidth) : json_null());
	json_object_set_new(o, "shared_links", sc.shared_links >= 0
						       ? json_integer(sc.shared_links)
						       : json_null());
	if (!sc.job_hsd.empty()) {
		json_t *per = json_array();
		for (double h : sc.job_hsd)
			json_array_append_new(per, json_real(h));
		json_object_set_new(o, "job_hsd", per);
	}
	if (!ctx.lid_floor.empty()) {
		json_t *per = json_array();
		for (const LidFloor &fl : ctx.lid_floor) {
			if (fl.hsd < 0) {
				json_array_append_new(per, json_null());
				continue;
			}
			json_t *f = json_object();
			json_object_set_new(f, "hsd", json_real(fl.hsd));
			json_object_set_new(f, "stages", json_integer(json_int_t(fl.stages)));
			json_object_set_new(f, "congested", json_integer(json_int_t(fl.congested)));
			json_object_set_new(f, "undecided", json_integer(json_int_t(fl.undecided)));
			json_array_append_new(per, f);
		}
		json_object_set_new(o, "lid_floor", per);
	}
	json_t *worst = json_array();
	for (const LinkPeak &lp : sc.worst_links) {
		json_t *l = json_object();
		json_object_set_new(l, "from", json_string(fabric.port_label(lp.link).c_str()));
		json_object_set_new(
			l, "to",
			json_string(fabric.port_label(fabric.port(lp.link).peer).c_str()));
		json_object_set_new(l, "peak", json_integer(lp.peak));
		json_object_set_new(l, "peak_stages", json_integer(lp.peak_stages));
		json_array_append_new(worst, l);
	}
	json_object_set_new(o, "worst_links", worst);
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					   JSON_REAL_PRECISION(6));
	json_decref(o);
	if (!text)
		fail(Status::internal, "jansson could not serialise the score");
	std::string s(text);
	std::free(text);
	return s + "\n";
}

} // namespace qft
