# DCISTAT_CHECK_NETSNMP
# Finds the Net-SNMP agent library through net-snmp-config and sets
# NETSNMP_CFLAGS and NETSNMP_LIBS. Fails with the Debian package to install.
AC_DEFUN([DCISTAT_CHECK_NETSNMP], [
  AC_ARG_VAR([NET_SNMP_CONFIG], [path of net-snmp-config])
  AC_PATH_PROG([NET_SNMP_CONFIG], [net-snmp-config], [no])
  AS_IF([test "$NET_SNMP_CONFIG" = no],
    [AC_MSG_ERROR([net-snmp-config not found: install the Debian package libsnmp-dev])])
  AC_MSG_CHECKING([for the Net-SNMP agent library])
  NETSNMP_LIBS=`$NET_SNMP_CONFIG --agent-libs`
  # Net-SNMP's own CFLAGS carry its build's optimisation and warning flags;
  # only the include directories matter here.
  NETSNMP_CFLAGS=`$NET_SNMP_CONFIG --base-cflags | tr ' ' '\n' | grep -E '^-(I|DNETSNMP_)' | grep -v perl | tr '\n' ' '`
  dcistat_save_CFLAGS=$CFLAGS
  dcistat_save_LIBS=$LIBS
  CFLAGS="$CFLAGS $NETSNMP_CFLAGS"
  LIBS="$NETSNMP_LIBS $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
]], [[init_agent("probe"); return snmp_select_info2(0, 0, 0, 0);]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([cannot link a Net-SNMP AgentX subagent: install the Debian package libsnmp-dev])])
  CFLAGS=$dcistat_save_CFLAGS
  LIBS=$dcistat_save_LIBS
  AC_SUBST([NETSNMP_CFLAGS])
  AC_SUBST([NETSNMP_LIBS])
])
