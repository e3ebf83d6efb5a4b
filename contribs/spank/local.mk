# SPDX-License-Identifier: GPL-2.0-or-later
# spank_qft_lid.so, the SPANK plugin for --qft-lid (needs the Slurm source).
# C only, against Slurm's public <slurm/spank.h>; linked with $(CC) and no
# library: sbatch, salloc, srun, slurmd and slurmstepd provide the spank_*
# and slurm_* functions. Installed with the Slurm plugins (plugindir).
if HAVE_SLURM
SPANK_QFT_LID = contribs/spank/spank_qft_lid.so
# LD_PRELOAD's entry unless plugstack.conf says interposer=PATH
spank_interposer = $(libdir)/libqft-lid.so
plugin_DATA += $(SPANK_QFT_LID)
CLEANFILES += $(SPANK_QFT_LID) contribs/spank/spank_qft_lid.o contribs/spank/qft_request.o

contribs/spank/spank_qft_lid.o: $(srcdir)/contribs/spank/spank_qft_lid.c \
		$(srcdir)/contribs/verbs/lid_table.h $(srcdir)/contribs/spank/qft_request.h
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(CC) $(PLUGIN_CPPFLAGS) -DQFT_LID_INTERPOSER='"$(spank_interposer)"' \
		$(PLUGIN_CFLAGS) -c -o $@ $(srcdir)/contribs/spank/spank_qft_lid.c
contribs/spank/qft_request.o: $(srcdir)/contribs/spank/qft_request.c \
		$(srcdir)/contribs/spank/qft_request.h
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(CC) $(PLUGIN_CPPFLAGS) $(PLUGIN_CFLAGS) -c -o $@ $(srcdir)/contribs/spank/qft_request.c
$(SPANK_QFT_LID): contribs/spank/spank_qft_lid.o contribs/spank/qft_request.o \
		$(srcdir)/contribs/spank/spank_qft_lid.map
	$(AM_V_CCLD)$(CC) -shared -fPIC -Wl,-z,relro -o $@ contribs/spank/spank_qft_lid.o \
		contribs/spank/qft_request.o \
		-Wl,--version-script=$(srcdir)/contribs/spank/spank_qft_lid.map

# select/rlft writes QFT_LID_DIGEST with the interposer's lid_digest()
src/plugins/select/rlft/rlft_lid.o: $(srcdir)/contribs/verbs/lid_table.h

# tests/slurm/test-spank.sh finds it beside $(QFT_PLUGIN_BUILD)/../..
check-slurm: $(SPANK_QFT_LID)
endif
EXTRA_DIST += contribs/spank/spank_qft_lid.c contribs/spank/spank_qft_lid.map \
	contribs/spank/qft_request.c contribs/spank/qft_request.h \
	contribs/spank/README.md
