/* The closer (closer.h): a queue of descriptors whose close may sleep, and
 * the thread that closes them in order. */
#include "closer.h"
#include "account.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct pending {
	int fd;
	struct account *acct;	/* accounts live as long as algd */
	struct pending *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
static struct pending *head, **tail = &head;

static void *closer_main(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		while (!head)
			pthread_cond_wait(&queued, &lock);
		struct pending *p = head;
		if (!(head = p->next))
			tail = &head;
		pthread_mutex_unlock(&lock);
		close(p->fd);
		account_fds_put(p->acct, 1);
		free(p);
	}
	return NULL;
}

int closer_start(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, closer_main, NULL))
		return -1;
	pthread_detach(t);
	return 0;
}

/* Closes that cannot sleep: a socket's once it lingers no more (its
 * owner may have set SO_LINGER and left unsent data), a pipe's. */
static bool closes_at_once(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return true;	/* not a descriptor after all */
	if (S_ISSOCK(st.st_mode)) {
		const struct linger abort = { 1, 0 };
		return !setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof(abort));
	}
	return S_ISFIFO(st.st_mode);
}

void closer_dispose(int fd, void *account)
{
	struct account *a = account;
	struct pending *p;

	if (closes_at_once(fd) || !(p = malloc(sizeof(*p)))) {
		close(fd);	/* out of memory: late rather than never */
		return;
	}
	account_fds_hold(a, 1);
	*p = (struct pending){ fd, a, NULL };
	pthread_mutex_lock(&lock);
	*tail = p;
	tail = &p->next;
	pthread_cond_signal(&queued);
	pthread_mutex_unlock(&lock);
}
