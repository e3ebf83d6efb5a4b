# slurm-qft: stand-ins for the GLib/GTK+ 2 autoconf macros, so that
# autoreconf of Slurm's configure.ac (needed: Debian patches configure.ac)
# works without libglib2.0-dev/libgtk2.0-dev.  They always take the
# "not found" branch: sview is not built, nothing else depends on them.
# Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later
AC_DEFUN([AM_PATH_GLIB_2_0], [$3])
AC_DEFUN([AM_PATH_GTK_2_0], [$3])
