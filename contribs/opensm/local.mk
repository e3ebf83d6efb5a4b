# SPDX-License-Identifier: GPL-2.0-or-later
# libqftevent.so, the OpenSM event plugin that writes the fabric file
# (contribs/opensm/README.md). Built when configure found libopensm-dev's
# headers (HAVE_OPENSM); included by Makefile.am after contribs/verbs, whose
# `lib_LTLIBRARIES =` this appends to.
#
# OpenSM dlopen()s "lib<event_plugin_name>.so" by bare name, so the module
# goes to $(libdir) with no version suffix (-module -avoid-version), where
# the dynamic linker finds it. Only the osm_event_plugin symbol is exported
# (-fvisibility=hidden in the source). It links libopensm and libosmcomp
# (already in the opensm process) so that -no-undefined holds.
if HAVE_OPENSM
lib_LTLIBRARIES += contribs/opensm/libqftevent.la
contribs_opensm_libqftevent_la_SOURCES = contribs/opensm/qft_fabric_event.c
# -UHAVE_CONFIG_H: OpenSM's osm_base.h includes <config.h> when it is set;
# ours is qft_config.h, and the plugin needs neither.
contribs_opensm_libqftevent_la_CPPFLAGS = $(AM_CPPFLAGS) -UHAVE_CONFIG_H \
	$(OPENSM_CPPFLAGS) $(JANSSON_CFLAGS)
contribs_opensm_libqftevent_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
contribs_opensm_libqftevent_la_LDFLAGS = -module -avoid-version -shared -no-undefined
contribs_opensm_libqftevent_la_LIBADD = $(OPENSM_LIBS) $(JANSSON_LIBS) -lpthread

# check-ib (prerequisite $(QFT_EVENT_LA)) runs tests/ib/test-event.sh on
# this module; without it (no libopensm-dev) the test exits 77.
QFT_EVENT_LA = contribs/opensm/libqftevent.la
QFT_EVENT_TEST_ENV = QFT_EVENT_SO=$(abs_top_builddir)/contribs/opensm/.libs/libqftevent.so
endif
EXTRA_DIST += contribs/opensm/qft_fabric_event.c contribs/opensm/README.md \
	tests/ib/test-event.sh
