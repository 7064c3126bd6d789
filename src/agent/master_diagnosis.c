/* Why the AgentX master cannot be reached (master_diagnosis.h). */
#define _GNU_SOURCE
#include "agent/master_diagnosis.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/log.h"

/* What the user this process runs as needs of snmpd's configuration to
 * open the socket. */
#define PERMISSIONS_HINT                                                       \
	"snmpd.conf's agentXPerms must let this user open it (for example "    \
	"'agentXPerms 0660 0755 root dcistat', with the user in group "        \
	"dcistat), then restart snmpd"

/* The last diagnosis logged, so that the same cause is said once. */
static char last_said[512];

static void
diagnose_unix(const char *path, char *why, size_t why_size)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	struct stat status;
	int descriptor, error;

	if (stat(path, &status) != 0) {
		error = errno;
		if (error == ENOENT)
			snprintf(why, why_size,
			    "no AgentX socket %s: no master is listening "
			    "there; start snmpd with 'master agentx' (and "
			    "'agentXSocket %s' where that is not its default) "
			    "in snmpd.conf, or name snmpd's socket in "
			    "agent: agentx-socket",
			    path, path);
		else if (error == EACCES)
			snprintf(why, why_size,
			    "cannot reach the AgentX socket %s: permission "
			    "denied on its directory; " PERMISSIONS_HINT,
			    path);
		else
			snprintf(why, why_size,
			    "cannot reach the AgentX socket "
			    "%s: %s",
			    path, strerror(error));
		return;
	}
	if (!S_ISSOCK(status.st_mode)) {
		snprintf(why, why_size,
		    "%s is not a socket: agent: agentx-socket must name "
		    "snmpd's AgentX socket (agentXSocket in snmpd.conf)",
		    path);
		return;
	}
	if (strlen(path) >= sizeof(address.sun_path)) {
		snprintf(why, why_size,
		    "the AgentX socket path %s is longer than a socket "
		    "address takes",
		    path);
		return;
	}
	strcpy(address.sun_path, path);
	descriptor = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (descriptor < 0) {
		snprintf(
		    why, why_size, "cannot make a socket: %s", strerror(errno));
		return;
	}
	error = connect(descriptor, (struct sockaddr *)&address,
	            sizeof(address)) == 0
	            ? 0
	            : errno;
	close(descriptor);
	if (error == EACCES || error == EPERM)
		snprintf(why, why_size,
		    "the AgentX socket %s refuses this user (permission "
		    "denied); " PERMISSIONS_HINT,
		    path);
	else if (error == ECONNREFUSED)
		snprintf(why, why_size,
		    "nothing listens on the AgentX socket %s (connection "
		    "refused): snmpd is not running, or left the file "
		    "behind; start snmpd with 'master agentx'",
		    path);
	else if (error != 0)
		snprintf(why, why_size,
		    "cannot connect to the AgentX socket "
		    "%s: %s",
		    path, strerror(error));
	else
		snprintf(why, why_size,
		    "the AgentX socket %s accepts a connection but the "
		    "master did not open a session (a master that is "
		    "busy or hung, or not an AgentX master)",
		    path);
}

void
agent_master_diagnose(const char *socket_name, char *why, size_t why_size)
{
	const char *path =
	    socket_name != NULL ? socket_name : AGENT_MASTER_DEFAULT_SOCKET;

	if (strncmp(path, "unix:", 5) == 0)
		path += 5;
	if (strchr(path, '/') == path) {
		diagnose_unix(path, why, why_size);
		return;
	}
	/* A network transport (tcp:host:port): only the master can tell. */
	snprintf(why, why_size,
	    "cannot connect to the AgentX master at %s: is snmpd listening "
	    "there ('master agentx' and 'agentXSocket %s' in snmpd.conf)?",
	    path, path);
}

void
agent_master_connect_failed(const char *socket_name)
{
	char why[sizeof(last_said)];

	agent_master_diagnose(socket_name, why, sizeof(why));
	if (strcmp(why, last_said) == 0)
		return;
	snprintf(last_said, sizeof(last_said), "%s", why);
	log_warnx("agent: %s; waiting for the master", why);
}

void
agent_master_connect_succeeded(void)
{
	last_said[0] = '\0';
}
