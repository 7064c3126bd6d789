/* The DCI Server's work budget per user (server/dci_budget.h). */
#define _GNU_SOURCE
#include "server/dci_budget.h"

#include <time.h>

void
dci_budget_init(struct dci_budget *budget, int64_t rate)
{
	*budget = (struct dci_budget){.rate = rate > 0 ? rate : 1};
}

/* The bucket's tokens brought to `now`: a debt is paid off at the rate
 * before the bucket fills again, up to one second's worth. */
static void
refill(
    const struct dci_budget *budget, struct dci_budget_user *user, int64_t now)
{
	int64_t elapsed = now - user->updated_milliseconds;

	if (elapsed <= 0)
		return;
	/* An hour pays any debt (one request per connection) and keeps
	 * the product in range. */
	if (elapsed > 3600000)
		elapsed = 3600000;
	user->tokens += elapsed * budget->rate / 1000;
	if (user->tokens > budget->rate)
		user->tokens = budget->rate;
	user->updated_milliseconds = now;
}

/* The bucket of `uid`, brought to `now`; a new (full) one when it has
 * none: an unused entry, else the one with the most tokens. */
static struct dci_budget_user *
user_of(struct dci_budget *budget, uid_t uid, int64_t now)
{
	struct dci_budget_user *taken = NULL;

	for (unsigned i = 0; i < DCI_BUDGET_USERS_MAX; i++) {
		struct dci_budget_user *user = &budget->users[i];

		if (user->used && user->uid == uid) {
			refill(budget, user, now);
			return user;
		}
	}
	for (unsigned i = 0; i < DCI_BUDGET_USERS_MAX; i++) {
		struct dci_budget_user *user = &budget->users[i];

		if (!user->used) {
			taken = user;
			break;
		}
		refill(budget, user, now);
		if (taken == NULL || user->tokens > taken->tokens)
			taken = user;
	}
	*taken = (struct dci_budget_user){
	    .uid = uid,
	    .used = true,
	    .tokens = budget->rate,
	    .updated_milliseconds = now,
	};
	return taken;
}

bool
dci_budget_allows(struct dci_budget *budget, uid_t uid, int64_t now)
{
	return user_of(budget, uid, now)->tokens > 0;
}

void
dci_budget_charge(
    struct dci_budget *budget, uid_t uid, int64_t microseconds, int64_t now)
{
	struct dci_budget_user *user = user_of(budget, uid, now);

	if (microseconds > 0)
		user->tokens -= microseconds;
}

int64_t
dci_budget_ready_at(const struct dci_budget *budget, uid_t uid, int64_t now)
{
	for (unsigned i = 0; i < DCI_BUDGET_USERS_MAX; i++) {
		const struct dci_budget_user *user = &budget->users[i];
		int64_t missing;

		if (!user->used || user->uid != uid)
			continue;
		/* Tokens above 0: one more microsecond than the debt. */
		missing = 1 - user->tokens;
		if (missing <= 0)
			return now;
		return user->updated_milliseconds +
		       (missing * 1000 + budget->rate - 1) / budget->rate;
	}
	return now;
}

int64_t
dci_budget_thread_microseconds(void)
{
	struct timespec used;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used) != 0)
		return 0;
	return (int64_t)used.tv_sec * 1000000 + used.tv_nsec / 1000;
}
