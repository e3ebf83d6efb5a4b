// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/score/stages.hpp"

namespace qft {

void LinkPeaks::add(const LinkLoads &stage)
{
	stage.for_each([&](PortIdx l) {
		const uint32_t c = stage[l];
		if (peak_[l] == 0)
			links_.push_back(l);
		if (c > peak_[l]) {
			peak_[l] = c;
			at_peak_[l] = 1;
		} else if (c == peak_[l]) {
			at_peak_[l]++;
		}
	});
}

void LinkPeaks::merge(const LinkPeaks &other)
{
	for (PortIdx l : other.links_) {
		const uint32_t c = other.peak_[l];
		if (peak_[l] == 0)
			links_.push_back(l);
		if (c > peak_[l]) {
			peak_[l] = c;
			at_peak_[l] = other.at_peak_[l];
		} else if (c == peak_[l]) {
			at_peak_[l] += other.at_peak_[l];
		}
	}
}

void LinkPeaks::clear()
{
	for (PortIdx l : links_)
		peak_[l] = at_peak_[l] = 0;
	links_.clear();
}

StagePlayer::StagePlayer(const Fabric &fabric, const Router &router)
	: router_(router), loads_(fabric.port_count())
{
}

size_t StagePlayer::rounds(const Pattern &pattern, const Job *jobs, size_t count)
{
	size_t r = 0;
	for (size_t i = 0; i < count; i++)
		r = std::max(r, pattern.stage_count(uint32_t(jobs[i].ranks.size())));
	return r;
}

bool StagePlayer::stage_flows(const Pattern &pattern, const Job *jobs, size_t count, size_t t)
{
	flows_.clear();
	for (size_t i = 0; i < count; i++) {
		const Job &job = jobs[i];
		const uint32_t n = uint32_t(job.ranks.size());
		if (t >= pattern.stage_count(n))
			continue;
		pattern.stage(n, t, pairs_);
		const size_t at = flows_.size();
		flows_.resize(at + pairs_.size());
		Flow *out = flows_.data() + at;
		const HostOrd *ranks = job.ranks.data();
		if (job.offsets.empty()) {
			for (size_t k = 0; k < pairs_.size(); k++)
				out[k] = {ranks[pairs_[k].src], ranks[pairs_[k].dst], 0};
			continue;
		}
		const uint8_t *o = job.offsets.data();
		switch (job.lid_choice) {
		case LidChoice::source:
			for (size_t k = 0; k < pairs_.size(); k++)
				out[k] = {ranks[pairs_[k].src], ranks[pairs_[k].dst], o[pairs_[k].src]};
			break;
		case LidChoice::destination:
			for (size_t k = 0; k < pairs_.size(); k++)
				out[k] = {ranks[pairs_[k].src], ranks[pairs_[k].dst], o[pairs_[k].dst]};
			break;
		case LidChoice::pair:
			for (size_t k = 0; k < pairs_.size(); k++)
				out[k] = {ranks[pairs_[k].src], ranks[pairs_[k].dst],
					  o[size_t(pairs_[k].src) * n + pairs_[k].dst]};
			break;
		case LidChoice::stripe: {
			const size_t ways = job.offsets.size();
			flows_.resize(at + pairs_.size() * ways);
			out = flows_.data() + at;
			for (size_t k = 0; k < pairs_.size(); k++)
				for (size_t w = 0; w < ways; w++)
					out[k * ways + w] = {ranks[pairs_[k].src], ranks[pairs_[k].dst], o[w]};
			break;
		}
		}
	}
	return !flows_.empty();
}

} // namespace qft
